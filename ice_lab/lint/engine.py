"""Read scripts and notebooks, run the rules, keep what ``--select``/``noqa`` allow.

A finding is one line, ``path:line:col: ICE1xx message``, the way flake8 prints. A
notebook's code cells are read as one script (a name bound in one cell is known in the
next), and its findings say which cell: ``path:cell_3:2:5: ...``. Taught in the
Debugging chapter (``book/debugging.ipynb``, "Lint before you run").
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from . import rules_eval, rules_loop, rules_numeric, rules_order, rules_setup
from ._ast import Source
from ._cells import blank_ipython_lines, writefile_target
from .rulebook import SYNTAX, Rule

__all__ = ["RULES", "Finding", "LintReport", "check_tree", "lint_file", "lint_paths",
           "lint_source", "notebook_cells", "iter_files"]


def _collect() -> dict[str, Rule]:
    """ICE100, then every :class:`Rule` the ``rules_*`` modules define, in code order."""
    found = [SYNTAX]
    for module in (rules_eval, rules_loop, rules_numeric, rules_order, rules_setup):
        found += [v for v in vars(module).values() if isinstance(v, Rule) and v not in found]
    codes = [r.code for r in found]
    duplicated = sorted({code for code in codes if codes.count(code) > 1})
    if duplicated:
        raise RuntimeError(f"two lint rules share the code(s) {duplicated}")
    return {r.code: r for r in sorted(found, key=lambda r: r.code)}


#: Every rule by its code (ICE100 first). Each carries its code, what goes wrong and the
#: chapter that shows it, written once as ``@rule(...)`` above its check.
RULES: dict[str, Rule] = _collect()

NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
                  re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    """One problem: where, its code, and a message naming the chapter (book/debugging.ipynb)."""

    path: str
    line: int
    col: int
    code: str
    message: str
    cell: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:cell_{self.cell}" if self.cell is not None else self.path
        return f"{where}:{self.line}:{self.col}: {self.code} {self.message}"


@dataclass
class LintReport:
    """What ``lint`` found in some files (book/debugging.ipynb, 'Lint before you run')."""

    findings: list[Finding] = field(default_factory=list)
    files: int = 0

    @property
    def ok(self) -> bool:
        return not self.findings

    def codes(self) -> list[str]:
        """The codes found, once each, sorted."""
        return sorted({f.code for f in self.findings})

    def __str__(self) -> str:
        lines = [str(f) for f in self.findings]
        lines.append(f"{len(self.findings)} finding(s) in {self.files} file(s)")
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle: bool) -> None:  # noqa: ANN001
        printer.text(str(self))


def check_tree(tree: ast.Module, folder: Path | None = None) -> list[tuple[int, int, str, str]]:
    """Every finding in a parsed tree as ``(line, col, code, message)``, sorted
    (book/debugging.ipynb).

    This is what the flake8 plugin calls; ``col`` is 0-based, as in ``ast``. With the
    ``folder`` the file lies in, names it imports from files beside it are followed.
    """
    src = Source.parse(tree)
    if folder is not None:
        from ._siblings import attach_siblings

        attach_siblings(src, folder)
    seen: set[tuple[int, int, str]] = set()
    found = []
    for rule in RULES.values():
        if rule.check is None:
            continue
        try:
            results = list(rule.check(src))
        except RecursionError:  # a pathologically deep expression: skip this rule
            continue
        for node, detail in results:
            key = (node.lineno, node.col_offset, rule.code)
            if key not in seen:
                seen.add(key)
                found.append((node.lineno, node.col_offset, rule.code, rule.message(detail)))
    return sorted(found)


def _keep(code: str, line: str, select: Iterable[str] | None,
          ignore: Iterable[str] | None) -> bool:
    """The one filter: ``select``/``ignore`` allow ``code``, and no ``# noqa`` on ``line``
    silences it."""
    return _wanted(code, select, ignore) and not _silenced(line, code)


def _wanted(code: str, select: Iterable[str] | None, ignore: Iterable[str] | None) -> bool:
    if select and not any(code.startswith(s) for s in select):
        return False
    return not (ignore and any(code.startswith(s) for s in ignore))


def _silenced(line: str, code: str) -> bool:
    match = NOQA.search(line)
    if not match:
        return False
    codes = match.group("codes")
    if not codes:
        return True
    return any(code.startswith(c.upper()) for c in re.split(r"[,\s]+", codes) if c)


def lint_source(source: str, path: str = "<string>", select: Iterable[str] | None = None,
                ignore: Iterable[str] | None = None) -> list[Finding]:
    """Lint one script given as text (book/debugging.ipynb, 'Lint before you run').

    ``select``/``ignore`` take code prefixes (``["ICE10"]``); a line ending in
    ``# noqa: ICE101`` (or a bare ``# noqa``) silences its findings.
    """
    if not isinstance(source, str):
        raise TypeError(f"lint_source wants the script's text as a str, got "
                        f"{type(source).__name__}; read the file first, or call lint_paths")
    return _lint_cells([(None, source)], path, select, ignore)


def _lint_cells(cells: Sequence[tuple[int | None, str]], path: str,
                select: Iterable[str] | None, ignore: Iterable[str] | None,
                folder: Path | None = None) -> list[Finding]:
    # Cells are joined into one script; where one does not parse, it becomes blank lines.
    where: list[tuple[int | None, int]] = []
    texts, skipped = [], []
    tree = None
    for cell, text in cells:
        try:
            tree = ast.parse(text)
        except SyntaxError as error:
            if cell is None:
                line = error.lineno or 1
                col = error.offset or 1
                script = text.splitlines()
                if not _keep(SYNTAX.code, script[line - 1] if line <= len(script) else "",
                             select, ignore):
                    return []
                return [Finding(path, line, col, SYNTAX.code,
                                SYNTAX.message(f"not valid Python ({error.msg})"))]
            skipped.append(Finding(path, error.lineno or 1, error.offset or 1, SYNTAX.code,
                                   SYNTAX.message(f"not valid Python ({error.msg}): "
                                                  "this cell was skipped"), cell))
            text = "\n" * text.count("\n")
        lines = text.split("\n")
        where.extend((cell, i + 1) for i in range(len(lines)))
        texts.append(text)
    joined = "\n".join(texts)
    all_lines = joined.split("\n")
    findings = [f for f in skipped if _keep(f.code, "", select, ignore)]  # no noqa: skipped
    if len(cells) != 1 or tree is None:
        tree = ast.parse(joined)
    for line, col, code, msg in check_tree(tree, folder):
        if not _keep(code, all_lines[line - 1], select, ignore):
            continue
        cell, cell_line = where[line - 1]
        findings.append(Finding(path, cell_line, col + 1, code, msg, cell))
    return sorted(findings, key=lambda f: (f.cell or 0, f.line, f.col, f.code))


def notebook_cells(text: str, path: str = "<notebook>") -> list[tuple[int, str]]:
    """A notebook's code cells as ``(cell number, Python text)``, numbered from 1
    (book/debugging.ipynb, 'Lint before you run').

    IPython lines (``%magic``, ``!shell``) become blank lines, so line numbers still
    match; a cell magic other than ``%%writefile`` (or ``%%file``) of a ``.py`` file makes
    the whole cell blank (:func:`~ice_lab.lint._cells.writefile_target` reads that line).
    """
    try:
        nb = json.loads(text)
        raw_cells = nb["cells"]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a Jupyter notebook (no 'cells' list in its JSON: "
                         f"{error}); pass .py files or .ipynb files saved by Jupyter") from None
    cells = []
    for number, cell in enumerate(raw_cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = source.split("\n")
        if lines and lines[0].startswith("%%"):
            target = writefile_target(lines[0])
            if target is None or not target[0].endswith(".py"):
                lines = [""] * len(lines)
            else:
                lines[0] = ""
        lines = blank_ipython_lines(lines)
        cells.append((number, "\n".join(lines)))
    return cells


def lint_file(path: str | Path, select: Iterable[str] | None = None,
              ignore: Iterable[str] | None = None) -> list[Finding]:
    """Lint one ``.py`` file or one notebook's code cells (book/debugging.ipynb)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        return _lint_cells(notebook_cells(text, str(path)), str(path), select, ignore,
                           path.parent)
    return _lint_cells([(None, text)], str(path), select, ignore, path.parent)


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """The ``.py`` and ``.ipynb`` files named, and those in the folders named
    (book/debugging.ipynb)."""
    for path in paths:
        path = Path(path)
        if path.is_dir():
            for found in sorted(path.rglob("*")):
                skip = any(p.startswith(".") or p in {"__pycache__", "node_modules"}
                           for p in found.relative_to(path).parts)
                if found.suffix in {".py", ".ipynb"} and found.is_file() and not skip:
                    yield found
        elif path.is_file():
            yield path
        else:
            raise FileNotFoundError(f"{path}: no such file or folder; give a .py file, a "
                                    ".ipynb notebook or a folder holding them")


def lint_paths(paths: Iterable[str | Path] | str | Path, select: Iterable[str] | None = None,
               ignore: Iterable[str] | None = None,
               on_error: Callable[[Exception], None] | None = None) -> LintReport:
    """Lint files, notebooks and folders (book/debugging.ipynb, 'Lint before you run').

    A path that does not exist raises :class:`FileNotFoundError` before any file is read.
    A file that cannot be read (or a ``.ipynb`` that is no notebook) raises, unless
    ``on_error`` is given: then it is passed the error and the others are still linted.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    report = LintReport()
    for path in list(iter_files(paths)):
        report.files += 1
        try:
            report.findings.extend(lint_file(path, select, ignore))
        except (OSError, ValueError) as error:
            if on_error is None:
                raise
            on_error(error)
    return report
