"""Student editions of the labs, made by nbgrader's own release preprocessors.

    ice-teach student            # write student/<lab>.ipynb for every lab (make student)
    ice-teach student --check    # exit 1 if a committed student edition is stale

A student edition is the lab with, through nbgrader (the same preprocessors as
`nbgrader generate_assignment`):

- every solution region replaced by the stub (`ClearSolutions`, stub = solutions.STUDENT_STUB);
- hidden tests removed (`ClearHiddenTests`), and their then-empty cells dropped;
- graded and solution cells locked / checksummed as nbgrader expects (`LockCells`,
  `ComputeChecksums`, `CheckCellMetadata`), so a JupyterHub with nbgrader accepts it;
- the outputs of exercise and check cells cleared; every other cell exactly as in the lab
  (its outputs included: the Provoke and Observe steps show what the learner will see).

The lab's data (every file in labs/ that is not a notebook, e.g. labs/scripts/) is copied
next to the editions, so that a clone runs them from student/ as from labs/.
Deterministic: no timestamps, cell ids kept from the lab.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
from pathlib import Path

import nbformat

from ice_teach import booktools, solutions

ROOT = booktools.ROOT
STUDENT_DIR = ROOT / "student"
LABS_DIR = ROOT / "labs"


def labs() -> list[Path]:
    """Every lab notebook, as a path relative to the repository root."""
    return [p for p in booktools.notebooks() if p.parts[0] == "labs" and not p.name.startswith(".")]


def lab_data(labs_dir: Path = LABS_DIR) -> list[Path]:
    """Every file under labs/ a lab may read: not a notebook, not hidden, not a cache, and
    not a file a lab writes itself (a ``%%writefile`` cell's, such as labs/scripts/: what
    running the lab leaves behind is no data)."""
    skip = {".ipynb_checkpoints", "__pycache__"}
    written = _written_by_labs(labs_dir)
    return sorted(
        rel
        for p in labs_dir.rglob("*")
        if p.is_file()
        and p.suffix != ".ipynb"
        and not any(part.startswith(".") or part in skip for part in p.relative_to(labs_dir).parts)
        and (rel := p.relative_to(labs_dir)) not in written
    )


def writefile_cells(nb: nbformat.NotebookNode) -> dict[str, str]:
    """``{path as written: text}`` for the files ``nb`` writes with ``%%writefile [-a] path``
    cells (the Distributed chapter's and lab's torchrun scripts): what running it leaves
    beside it. The one reader of such cells; tests/notebook_scripts.py writes them out."""
    found: dict[str, str] = {}
    for cell in nb.cells:
        first, _, body = cell.source.partition("\n")
        words = first.split() if cell.cell_type == "code" else []
        if words[:1] == ["%%writefile"] and len(words) > 1:
            appended = found.get(words[-1], "") if "-a" in words[1:-1] else ""
            found[words[-1]] = appended + body + "\n"
    return found


def _written_by_labs(labs_dir: Path) -> set[Path]:
    """The files the notebooks in ``labs_dir`` write themselves."""
    return {Path(rel) for lab in labs_dir.glob("*.ipynb")
            for rel in writefile_cells(booktools.read(lab))}


def _clear_outputs(cell: nbformat.NotebookNode) -> None:
    cell.outputs = []
    cell.execution_count = None


def student_edition(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student edition of one lab notebook (see the module docstring)."""
    from nbgrader.preprocessors import (
        CheckCellMetadata,
        ClearHiddenTests,
        ClearMarkScheme,
        ClearSolutions,
        ComputeChecksums,
        LockCells,
    )

    out = nbformat.from_dict(nb)
    hidden = {booktools.nbgrader(c)["grade_id"] for c in out.cells if booktools.is_hidden_check(c)}
    for cell in out.cells:
        if booktools.nbgrader(cell) is not None and cell.cell_type == "code":
            _clear_outputs(cell)
    resources: dict = {}
    for pp in (
        LockCells(),
        ClearSolutions(code_stub={"python": solutions.STUDENT_STUB}),
        ClearHiddenTests(),
        ClearMarkScheme(),
        ComputeChecksums(),
        CheckCellMetadata(),
    ):
        out, resources = pp.preprocess(out, resources)
    cells = []
    for cell in out.cells:
        meta = booktools.nbgrader(cell)
        if meta is not None and meta.get("grade_id") in hidden:
            continue  # hidden tests: nbgrader empties the cell; the learner never sees it
        if cell.metadata.get("ice_lab") == booktools.LAB_HEADER["ice_lab"]:
            cell.source = student_header(nb)
        if booktools.is_solution(cell):
            # hide-input hides the solution on the book's pages; here the stub is the exercise
            tags = [t for t in cell.metadata.get("tags", []) if t != "hide-input"]
            if tags:
                cell.metadata["tags"] = tags
            else:
                cell.metadata.pop("tags", None)
        cells.append(cell)
    out.cells = cells
    return out


def student_header(nb: nbformat.NotebookNode) -> str:
    """The student edition's version of the lab header (booktools.sync_lab_header)."""
    visible, hidden = booktools.lab_points(nb)
    hidden_text = f", {hidden:g} of them in hidden checks run at grading" if hidden else ""
    return (
        f"**{booktools.count_exercises(nb)} exercises, {visible + hidden:g} points**{hidden_text}. "
        "Write each fix where the exercise cell says `raise NotImplementedError`, run the check "
        "under it, and hand in this notebook (File > Download > Download .ipynb)."
    )


def edition_text(lab: Path) -> str:
    """The student edition of labs/<name>.ipynb as the exact text written to student/."""
    return nbformat.writes(student_edition(booktools.read(lab))) + "\n"


def write_all(out_dir: Path = STUDENT_DIR) -> list[Path]:
    """Write every student edition and the labs' data into out_dir; remove stale ones."""
    out_dir.mkdir(exist_ok=True)
    written = []
    wanted = set()
    for lab in labs():
        target = out_dir / lab.name
        text = edition_text(lab)
        wanted.add(target)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written.append(target)
    for rel in lab_data():
        target = out_dir / rel
        wanted.add(target)
        if not target.exists() or not filecmp.cmp(LABS_DIR / rel, target, shallow=False):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(LABS_DIR / rel, target)
            written.append(target)
    for old in sorted(out_dir.rglob("*")):
        if old.is_file() and old not in wanted and old.name != "README.md":
            old.unlink()
            written.append(old)
    return written


def stale(out_dir: Path = STUDENT_DIR) -> list[str]:
    """Why the committed student editions differ from the labs, one sentence each."""
    problems = []
    for lab in labs():
        target = out_dir / lab.name
        if not target.exists():
            problems.append(f"{target.relative_to(ROOT)} is missing")
        elif target.read_text(encoding="utf-8") != edition_text(lab):
            problems.append(f"{target.relative_to(ROOT)} differs from the student edition of {lab}")
    for rel in lab_data():
        target = out_dir / rel
        if not target.exists() or not filecmp.cmp(LABS_DIR / rel, target, shallow=False):
            problems.append(f"{target.relative_to(ROOT)} differs from labs/{rel}")
    names = {p.name for p in labs()}
    for extra in sorted(out_dir.glob("*.ipynb")):
        if extra.name not in names:
            problems.append(f"{extra.relative_to(ROOT)} has no lab in labs/")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report stale editions (exit 1)")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for p in problems:
            print(p)
        if problems:
            print("Run `make student` and commit student/.")
        return 1 if problems else 0
    for path in write_all():
        print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
