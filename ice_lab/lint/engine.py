"""Read scripts and notebooks, run the rules, keep what ``--select``/``noqa`` allow.

A finding is one line, ``path:line:col: ICE1xx message``, the way flake8 prints. A
notebook's code cells are read as one script (a name bound in one cell is known in the
next), and its findings say which cell: ``path:cell_3:2:5: ...``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ._ast import Source
from ._cells import blank_ipython_lines

__all__ = ["RULES", "Finding", "LintReport", "check_tree", "lint_file", "lint_paths",
           "lint_source", "notebook_cells", "iter_files"]

#: Every rule: its code, what goes wrong, and the chapter that shows it.
RULES: dict[str, tuple[str, str]] = {
    "ICE100": ("not valid Python: nothing else in it was checked", "book/debugging"),
    "ICE101": ("a loss accumulated without .item() keeps every batch's graph alive",
               "book/devices, 'The leak: total_loss += loss'"),
    "ICE102": ("softmax before cross_entropy, which applies log_softmax itself",
               "book/numerics, 'log(softmax) vs log_softmax + nll_loss'"),
    "ICE103": ("gradients are not zeroed between steps",
               "book/training, 'The order: zero_grad, backward, step'"),
    "ICE104": ("evaluation in training mode or with autograd on",
               "book/training, 'train() and eval()'"),
    "ICE105": ("the device is hard-coded", "book/devices, 'One device, chosen once'"),
    "ICE106": ("an unsafe or fragile checkpoint", "book/checkpoints, 'Loading safely'"),
    "ICE107": ("an epoch scheduler stepped per batch, or without its metric",
               "book/schedules, 'Learning-rate schedulers'"),
    "ICE108": ("log or division of a value that can be zero",
               "book/numerics, 'Division by a zero standard deviation'"),
    "ICE109": ("an in-place change to a tensor autograd saved for backward",
               "book/autograd, 'In-place operations that break backward'"),
    "ICE110": ("a validation or test DataLoader with shuffle=True",
               "book/datasets, 'A validation loader with shuffle=True'"),
    "ICE111": ("a Dataset copied into every worker: its own generator, or a change "
               "made after the workers started",
               "book/datasets, 'A Dataset that holds its own random generator'"),
    "ICE112": ("nll_loss given logits or probabilities, or log_softmax of a softmax",
               "book/numerics, 'log(softmax) vs log_softmax + nll_loss'"),
    "ICE113": ("training resumed after eval() without train()",
               "book/training, 'train() and eval()'"),
    "ICE114": ("a checkpoint call given the wrong thing (the state_dict method, a path)",
               "book/checkpoints, 'A checkpoint is a dict'"),
    "ICE115": ("zero_grad() inside a gradient-accumulation window",
               "book/training, 'Gradient accumulation'"),
}

NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
                  re.IGNORECASE)
CELL_MAGIC_WRITEFILE = re.compile(r"^%%(writefile|file)\b")


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


Rule = Callable[[Source], Iterable[tuple[ast.AST, str, str]]]


def _rules() -> list[Rule]:
    from . import rules_eval, rules_loop, rules_numeric, rules_order, rules_setup

    return [*rules_loop.RULES, *rules_eval.RULES, *rules_numeric.RULES, *rules_setup.RULES,
            *rules_order.RULES]


def message(code: str, detail: str) -> str:
    """``detail`` then the chapter: every message says what goes wrong and where to read."""
    return f"{detail} (see {RULES[code][1]})"


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
    for rule in _rules():
        try:
            results = list(rule(src))
        except RecursionError:  # a pathologically deep expression: skip this rule
            continue
        for node, code, detail in results:
            key = (node.lineno, node.col_offset, code)
            if key not in seen:
                seen.add(key)
                found.append((node.lineno, node.col_offset, code, message(code, detail)))
    return sorted(found)


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


def _lint_cells(cells: list[tuple[int | None, str]], path: str,
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
                return _keep([Finding(path, line, col, "ICE100", message(
                    "ICE100", f"not valid Python ({error.msg})"))], text.splitlines(),
                    select, ignore)
            skipped.append(Finding(path, error.lineno or 1, error.offset or 1, "ICE100",
                                   message("ICE100", f"not valid Python ({error.msg}): "
                                           "this cell was skipped"), cell))
            text = "\n" * text.count("\n")
        lines = text.split("\n")
        where.extend((cell, i + 1) for i in range(len(lines)))
        texts.append(text)
    joined = "\n".join(texts)
    all_lines = joined.split("\n")
    findings = [f for f in skipped if _wanted(f.code, select, ignore)]
    if len(cells) != 1 or tree is None:
        tree = ast.parse(joined)
    for line, col, code, msg in check_tree(tree, folder):
        if _silenced(all_lines[line - 1], code) or not _wanted(code, select, ignore):
            continue
        cell, cell_line = where[line - 1]
        findings.append(Finding(path, cell_line, col + 1, code, msg, cell))
    return sorted(findings, key=lambda f: (f.cell or 0, f.line, f.col, f.code))


def _keep(findings: list[Finding], lines: list[str], select, ignore) -> list[Finding]:  # noqa: ANN001
    return [f for f in findings if _wanted(f.code, select, ignore)
            and not _silenced(lines[f.line - 1] if f.line <= len(lines) else "", f.code)]


def notebook_cells(text: str, path: str = "<notebook>") -> list[tuple[int, str]]:
    """A notebook's code cells as ``(cell number, Python text)``, numbered from 1
    (book/debugging.ipynb, 'Lint before you run').

    IPython lines (``%magic``, ``!shell``) become blank lines, so line numbers still
    match; a cell magic other than ``%%writefile`` makes the whole cell blank.
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
            if not CELL_MAGIC_WRITEFILE.match(lines[0]) or not lines[0].rstrip().endswith(
                    ".py"):
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
               ignore: Iterable[str] | None = None) -> LintReport:
    """Lint files, notebooks and folders (book/debugging.ipynb, 'Lint before you run')."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    report = LintReport()
    for path in iter_files(paths):
        report.files += 1
        report.findings.extend(lint_file(path, select, ignore))
    return report
