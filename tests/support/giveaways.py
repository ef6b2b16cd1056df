"""How much of each exercise's fix a learner is shown before writing it.

For every solution region of a lab: the fix's lines (comments, blank lines and lines of
one short token dropped; whitespace ignored) that are not already in the exercise's own
broken code (the code cells under its Provoke heading, or a ``broken_*`` definition
before it) or in the stub the student edition ships. Each is looked for in what the learner sees before and during the attempt: the
lab's prose, code and outputs up to the solution cell, and the exercise's visible check
cells with their outputs (``lab``); and, separately, in the part's chapter, prose, code
and outputs (``chapter``). The share found is the give-away; tests/book/test_giveaways.py
holds it under one half. ``python tests/support/giveaways.py [LAB ...]`` prints the table.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
BEGIN, END = re.compile(r"^\s*# BEGIN SOLUTION"), re.compile(r"^\s*# END SOLUTION")


def norm(line: str) -> str:
    """A code line without its comment and without any whitespace."""
    code = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
    return re.sub(r"\s+", "", code)


def fix_lines(source: str) -> list[str]:
    inside, found = False, []
    for line in source.splitlines():
        if BEGIN.match(line):
            inside = True
        elif END.match(line):
            inside = False
        elif inside:
            text = norm(line)
            if len(text) >= 10 and not text.startswith(('"""', "'''")):
                found.append(text)
    return found


def forms(line: str) -> list[str]:
    """A fix line and what a learner would copy of it: the expression after ``return``
    or after an assignment's ``=``."""
    found = [line]
    if line.startswith("return"):
        found.append(line[len("return"):])
    target = re.match(r"^[\w.,\[\]()]+(?:\+|-|\*)?=(?!=)", line)
    if target:
        found.append(line[target.end():])
    return [f for f in found if len(f) >= 8]


def shows(text: str, line: str) -> bool:
    return any(f in text for f in forms(line))


def _cell_text(cell: nbformat.NotebookNode) -> str:
    parts = [cell.source]
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(out["text"])
        for value in out.get("data", {}).values():
            if isinstance(value, str):
                parts.append(value)
    return "\n".join(parts)


def provoke_cells(cells: list) -> set[int]:
    """Indices of the code cells under the last exercise's Provoke heading: the broken
    code the exercise starts from (its lines are the learner's to change, not a hint)."""
    start = max((k for k, c in enumerate(cells) if c.cell_type == "markdown"
                 and re.search(r"^## Exercise", c.source, re.M)), default=0)
    found, inside = set(), False
    for k in range(start, len(cells)):
        cell = cells[k]
        if cell.cell_type == "markdown":
            headings = re.findall(r"^###\s.*$", cell.source, re.M)
            if headings:
                inside = "Provoke" in headings[-1]
        elif inside:
            found.add(k)
    return found


def flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


def chapter_of(lab: Path) -> Path:
    """The chapter of the lab's part in _toc.yml."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    name = f"labs/{lab.stem}"
    for part in toc["parts"]:
        files = [c["file"] for c in part["chapters"]]
        if name in files:
            return ROOT / f"{next(f for f in files if f.startswith('book/'))}.ipynb"
    raise LookupError(f"{lab} is in no part of _toc.yml")


@dataclass
class Exposure:
    exercise: str
    lines: int  # fix lines counted
    in_lab: list[str]
    in_chapter: list[str]

    @property
    def lab_share(self) -> float:
        return len(self.in_lab) / self.lines if self.lines else 0.0

    @property
    def chapter_share(self) -> float:
        return len(self.in_chapter) / self.lines if self.lines else 0.0


def exposures(lab: Path, chapter_path: Path | None = None) -> list[Exposure]:
    """One Exposure per solution region of ``lab`` (chapter: the part's, unless given)."""
    nb = nbformat.read(lab, as_version=4)
    chapter = nbformat.read(chapter_path or chapter_of(lab), as_version=4)
    chapter_text = flat("\n".join(_cell_text(c) for c in chapter.cells))
    found: list[Exposure] = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("solution"):
            continue
        provoked = provoke_cells(cells[:i])
        broken = "\n".join(
            c.source for k, c in enumerate(cells[:i]) if c.cell_type == "code"
            and (k in provoked
                 or re.search(r"^def broken_\w*|^class Broken\w*", c.source, re.M)))
        stub = flat(re.sub(r"# BEGIN SOLUTION.*?# END SOLUTION", "", cell.source,
                           flags=re.S))
        lines = [x for x in fix_lines(cell.source)
                 if x not in flat(broken) and x not in stub]
        shown = [_cell_text(c) for k, c in enumerate(cells[:i])
                 if not (c.cell_type == "code" and (k in provoked or "def broken_" in c.source))
                 and not c.metadata.get("nbgrader", {}).get("solution")
                 and "### BEGIN HIDDEN TESTS" not in c.source]
        for c in cells[i + 1:]:
            grader = c.metadata.get("nbgrader", {})
            if grader.get("solution"):
                break
            if grader.get("grade") and "### BEGIN HIDDEN TESTS" not in c.source:
                shown.append(_cell_text(c))
        lab_text = flat("\n".join(shown))
        found.append(Exposure(meta["grade_id"], len(lines),
                              [x for x in lines if shows(lab_text, x)],
                              [x for x in lines if shows(chapter_text, x)]))
    return found


def main(argv: list[str]) -> int:
    labs = [Path(a) for a in argv] or sorted((ROOT / "labs").glob("lab-*.ipynb"))
    for lab in labs:
        for e in exposures(lab):
            print(f"{lab.stem:<16} {e.exercise:<28} {e.lines:>3} lines  "
                  f"lab {e.lab_share:4.0%}  chapter {e.chapter_share:4.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
