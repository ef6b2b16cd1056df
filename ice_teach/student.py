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
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ice_lab.lint import writefile_cells  # the one reader of %%writefile cells
from ice_teach import editions, exercises, notebooks, solutions

ROOT = notebooks.ROOT
STUDENT_DIR = ROOT / "student"
LABS_DIR = ROOT / "labs"


def labs() -> list[Path]:
    """Every lab notebook, as a path relative to the repository root."""
    return [p for p in notebooks.notebooks() if p.parts[0] == "labs" and not p.name.startswith(".")]


def lab_data(labs_dir: Path = LABS_DIR) -> list[Path]:
    """Every file under labs/ a lab may read: not a notebook, not hidden, not a cache, and
    not a file a lab writes itself (a ``%%writefile`` cell's, such as labs/scripts/: what
    running the lab leaves behind is no data)."""
    return [rel for rel in _kept_files(labs_dir) if rel.suffix != ".ipynb"]


def _kept_files(folder: Path) -> list[Path]:
    """The files under ``folder`` (relative to it) that are neither hidden, a cache, nor
    written by its own notebooks' ``%%writefile`` cells."""
    skip = {".ipynb_checkpoints", "__pycache__"}
    written = _written_by_labs(folder)
    return sorted(
        rel
        for p in folder.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") or part in skip for part in p.relative_to(folder).parts)
        and (rel := p.relative_to(folder)) not in written
    )


def _written_by_labs(labs_dir: Path) -> set[Path]:
    """The files the notebooks in ``labs_dir`` write themselves."""
    return {Path(rel) for lab in labs_dir.glob("*.ipynb")
            for rel in writefile_cells(notebooks.read(lab))}


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
    hidden = {exercises.nbgrader(c)["grade_id"] for c in out.cells if exercises.is_hidden_check(c)}
    for cell in out.cells:
        if exercises.nbgrader(cell) is not None and cell.cell_type == "code":
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
        meta = exercises.nbgrader(cell)
        if meta is not None and meta.get("grade_id") in hidden:
            continue  # hidden tests: nbgrader empties the cell; the learner never sees it
        if cell.metadata.get("ice_lab") == notebooks.LAB_HEADER["ice_lab"]:
            cell.source = editions.lab_header_source(nb, edition="student")
        if exercises.is_solution(cell):
            # hide-input hides the solution on the book's pages; here the stub is the exercise
            tags = [t for t in cell.metadata.get("tags", []) if t != "hide-input"]
            if tags:
                cell.metadata["tags"] = tags
            else:
                cell.metadata.pop("tags", None)
        cells.append(cell)
    out.cells = cells
    return out


def edition_text(lab: Path) -> str:
    """The student edition of labs/<name>.ipynb as the exact text written to student/."""
    return nbformat.writes(student_edition(notebooks.read(lab))) + "\n"


@dataclass(frozen=True)
class Change:
    """One file of the student folder that is not what the labs make, and why. ``text``: the
    edition to write; ``source``: the lab data file to copy; neither: a file to remove."""

    target: Path
    why: str
    text: str | None = None
    source: Path | None = None


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def changes(out_dir: Path = STUDENT_DIR) -> list[Change]:
    """Every file of out_dir to write, copy or remove so that it holds the labs' student
    editions and data: the one comparison behind `stale` and `write_all`."""
    found: list[Change] = []
    wanted = set()
    for lab in labs():
        target = out_dir / lab.name
        wanted.add(target)
        text = edition_text(lab)
        if not target.exists():
            found.append(Change(target, f"{_shown(target)} is missing", text=text))
        elif target.read_text(encoding="utf-8") != text:
            found.append(Change(target, f"{_shown(target)} differs from the student edition of {lab}",
                                text=text))
    for rel in lab_data():
        target = out_dir / rel
        wanted.add(target)
        if not target.exists() or not filecmp.cmp(LABS_DIR / rel, target, shallow=False):
            found.append(Change(target, f"{_shown(target)} differs from labs/{rel}",
                                source=LABS_DIR / rel))
    if out_dir.is_dir():
        for rel in _kept_files(out_dir):
            target = out_dir / rel
            if target not in wanted and rel.name != "README.md":
                what = "has no lab in labs/" if rel.suffix == ".ipynb" else "is not in labs/"
                found.append(Change(target, f"{_shown(target)} {what}"))
    return found


def stale(out_dir: Path = STUDENT_DIR) -> list[str]:
    """Why the committed student editions differ from the labs, one sentence each."""
    return [change.why for change in changes(out_dir)]


def write_all(out_dir: Path = STUDENT_DIR) -> list[Path]:
    """Write every student edition and the labs' data into out_dir; remove stale ones: what
    `changes` lists. Returns the paths written or removed."""
    out_dir.mkdir(exist_ok=True)
    done = []
    for change in changes(out_dir):
        if change.text is not None:
            change.target.write_text(change.text, encoding="utf-8")
        elif change.source is not None:
            change.target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(change.source, change.target)
        else:
            change.target.unlink()
        done.append(change.target)
    return done


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
