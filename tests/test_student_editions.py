"""What student/ ships grades something: each exercise's checks fail on its stub.

The student editions in student/ are made by nbgrader (tools/student.py; that they are up
to date is tests/test_student_folder.py's job). Here each lab runs once, in one kernel, with
every exercise played twice in place: first the shipped edition's cells (the stub, then its
visible checks), which must fail, then the lab's own cells (the solution, then the same
checks), which must pass. So each exercise's checks are seen failing on its stub while
every exercise before it is solved, and passing once it is solved too. A check that passes
on the stub could never fail, and would grade nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import booktools  # noqa: E402
import solutions  # noqa: E402
import student  # noqa: E402

pytestmark = pytest.mark.kernel  # every test here starts a kernel or a child process

LABS = student.labs()
ROLE = "student_editions_test"  # cell metadata key: which copy a cell is


def grade_id(cell: nbformat.NotebookNode) -> str:
    return booktools.nbgrader(cell)["grade_id"]


def visible_checks_after(cells: list, i: int) -> list[int]:
    """Indices of the visible check cells that follow solution cell ``i`` (up to the next
    solution cell)."""
    found = []
    for j in range(i + 1, len(cells)):
        if booktools.is_solution(cells[j]):
            break
        if booktools.is_check(cells[j]) and not booktools.is_hidden_check(cells[j]):
            found.append(j)
    return found


def played_twice(lab: nbformat.NotebookNode, shipped: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The lab, with the shipped stub and checks of each exercise run before its solution."""
    by_id = {grade_id(c): c for c in shipped.cells if booktools.nbgrader(c) is not None}
    out = nbformat.from_dict(lab)
    cells, last_check = [], 0
    for i, cell in enumerate(lab.cells):
        if booktools.is_solution(cell):
            checks = visible_checks_after(lab.cells, i)
            assert checks, f"exercise {grade_id(cell)} has no visible check after it"
            assert grade_id(cell) in by_id, f"student/ lacks exercise {grade_id(cell)}"
            for original in [cell] + [lab.cells[j] for j in checks]:
                copy = nbformat.from_dict(by_id[grade_id(original)])
                if original is cell:
                    assert solutions.STUDENT_STUB in copy.source, f"{grade_id(cell)} is not stubbed"
                copy.metadata[ROLE] = "stub" if original is cell else "check on the stub"
                if "id" in copy:
                    copy.id = f"{copy.id[:58]}-stub"  # ids stay unique in the notebook
                cells.append(copy)
        copy = nbformat.from_dict(cell)
        if booktools.is_check(cell) and not booktools.is_hidden_check(cell):
            copy.metadata[ROLE] = "check on the solution"
            last_check = len(cells)
        cells.append(copy)
    out.cells = cells[: last_check + 1]  # nothing after the last check needs to run
    return out


@pytest.mark.parametrize("path", LABS, ids=[str(p) for p in LABS])
def test_each_exercise_fails_on_its_stub_and_passes_solved(path):
    shipped = booktools.read(student.STUDENT_DIR / path.name)
    nb = played_twice(booktools.read(path), shipped)
    copy = ROOT / path.parent / f".student-{path.name}"  # the lab's folder: its data at hand
    try:
        nbformat.write(nb, copy)
        executed = booktools.execute(copy.relative_to(ROOT), timeout=600, allow_errors=True)
    finally:
        copy.unlink(missing_ok=True)
    wrong = []
    for cell in executed.cells:
        role = cell.metadata.get(ROLE)
        failed = any(o.output_type == "error" for o in cell.get("outputs", []))
        if role == "check on the stub" and not failed:
            wrong.append(f"{grade_id(cell)} passes on the stub")
        elif role == "check on the solution" and failed:
            wrong.append(f"{grade_id(cell)} fails with the solution in place")
    stubs = [c for c in executed.cells if c.metadata.get(ROLE) == "stub"]
    assert stubs, f"{path}: no exercise played"
    assert not wrong, f"{path}: " + "; ".join(wrong)
