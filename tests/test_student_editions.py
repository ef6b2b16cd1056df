"""Every lab's checks fail without the fix, each for its own exercise's reason.

The student edition replaces each solution region with ``raise NotImplementedError``
(tools/booktools.py). One kernel per lab runs the lab top to bottom; at each exercise it
runs the solution cell and the cells up to its last visible check twice: first with the
stub in place, where every visible check must fail (a check that passes anyway grades
nothing), then with the solution, where every check passes and the lab goes on. Each
exercise thus starts from the state the solutions before it left: a check fails because
its own exercise is unsolved, never only because an earlier one is broken.

The usual wrong answers, and the hints the checks must give them, are tested the same way
in tests/test_lab_answers.py (table: tests/lab_answers.py).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import booktools  # noqa: E402

LABS = [p for p in booktools.notebooks() if p.parts[0] == "labs"]
PROBE = "ice_lab_probe"  # cell metadata key marking what a probe cell is for


@dataclass
class Exercise:
    solution: int  # cell index of the solution cell
    checks: list[int]  # cell indices of its visible check cells
    span: list[int]  # code cells after the solution, up to its last visible check

    def grade_id(self, nb: nbformat.NotebookNode, index: int) -> str:
        return nb.cells[index].metadata["nbgrader"]["grade_id"]


def exercises(nb: nbformat.NotebookNode) -> list[Exercise]:
    found: list[Exercise] = []
    for i, cell in enumerate(nb.cells):
        if booktools.is_solution(cell):
            found.append(Exercise(i, [], []))
        elif booktools.is_check(cell) and not booktools.is_hidden_check(cell):
            assert found, f"check cell {i} comes before any solution"
            found[-1].checks.append(i)
    for ex in found:
        last = ex.checks[-1]
        ex.span = [
            j
            for j in range(ex.solution + 1, last + 1)
            if nb.cells[j].cell_type == "code" and not booktools.is_hidden_check(nb.cells[j])
        ]
    return found


def with_solution(source: str, body: str) -> str:
    """The solution cell's source with its solution region replaced by ``body``
    (indented like the region), as the student edition replaces it by the stub."""
    lines, kept, inside, regions = source.splitlines(), [], False, 0
    for line in lines:
        begin = booktools.SOLUTION_BEGIN.match(line)
        if begin:
            inside, regions = True, regions + 1
            kept += [begin.group(1) + b if b.strip() else "" for b in body.strip("\n").splitlines()]
        elif booktools.SOLUTION_END.match(line):
            inside = False
        elif not inside:
            kept.append(line)
    assert regions == 1, f"expected one solution region, found {regions}"
    return "\n".join(kept)


def _cell(source: str, variant: str, role: str, grade_id: str = "") -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata[PROBE] = {"variant": variant, "role": role, "grade_id": grade_id}
    return cell


def probe_notebook(path: Path) -> nbformat.NotebookNode:
    """The lab with each exercise run as stub, then as solution."""
    nb = booktools.read(path)
    found = exercises(nb)
    by_solution = {ex.solution: ex for ex in found}
    cells: list[nbformat.NotebookNode] = []
    i = 0
    while i < len(nb.cells) and found:
        cell = nb.cells[i]
        ex = by_solution.get(i)
        if ex is None:
            if cell.cell_type == "code" and not booktools.is_hidden_check(cell):
                cells.append(_cell(cell.source, "lab", "lab"))
            i += 1
            continue
        solution_id = ex.grade_id(nb, ex.solution)
        stubbed = with_solution(cell.source, booktools.STUDENT_STUB)
        for variant, source in (("stub", stubbed), ("solution", cell.source)):
            cells.append(_cell(source, variant, "solution", solution_id))
            for j in ex.span:
                role = "check" if j in ex.checks else "between"
                grade_id = ex.grade_id(nb, j) if role == "check" else solution_id
                cells.append(_cell(nb.cells[j].source, variant, role, grade_id))
        i = ex.checks[-1] + 1
        if ex is found[-1]:
            break  # nothing after the last check is needed
    out = nbformat.v4.new_notebook(metadata=nb.metadata)
    out.cells = cells
    return out


@dataclass
class Outcome:
    variant: str
    grade_id: str
    error: tuple[str, str] | None  # (exception name, message) of the check cell, None if it passed
    solution: str  # grade_id of the exercise's solution


@functools.lru_cache(maxsize=None)
def run_probe(path: Path) -> tuple[list[Outcome], dict[str, str]]:
    """Execute the probe notebook of one lab once (shared by the tests below).

    Returns the outcome of every check cell run, and the errors of solution cells run
    with their real solution (there must be none)."""
    nb = probe_notebook(path)
    copy = ROOT / path.parent / f".probe-{path.name}"
    try:
        nbformat.write(nb, copy)
        executed = booktools.execute(copy.relative_to(ROOT), timeout=600, allow_errors=True)
    finally:
        copy.unlink(missing_ok=True)
    outcomes: list[Outcome] = []
    broken: dict[str, str] = {}
    solution_of = ""
    for index, cell in enumerate(executed.cells):
        meta = cell.metadata[PROBE]
        errors = [o for o in cell.outputs if o.output_type == "error"]
        error = (errors[0].ename, errors[0].evalue) if errors else None
        if meta["role"] == "solution":
            solution_of = meta["grade_id"]
        if meta["role"] == "check":
            outcomes.append(Outcome(meta["variant"], meta["grade_id"], error, solution_of))
        elif error is not None and meta["variant"] in ("lab", "solution"):
            broken[f"probe cell {index} ({meta['role']} {meta['grade_id']})"] = f"{error[0]}: {error[1][:200]}"
    return outcomes, broken


@pytest.mark.parametrize("path", LABS, ids=[str(p) for p in LABS])
def test_checks_fail_without_the_fixes(path):
    outcomes, broken = run_probe(path)
    stubbed = [o for o in outcomes if o.variant == "stub"]
    assert stubbed, f"{path} has no visible check cells"
    passing = [o.grade_id for o in stubbed if o.error is None]
    assert not passing, f"{path}: these checks pass without any fix: {', '.join(passing)}"


@pytest.mark.parametrize("path", LABS, ids=[str(p) for p in LABS])
def test_checks_pass_on_the_solutions(path):
    outcomes, broken = run_probe(path)
    failing = [f"{o.grade_id}: {o.error}" for o in outcomes if o.variant == "solution" and o.error is not None]
    assert not failing and not broken, f"{path}: {failing} {broken}"


def test_with_solution_replaces_the_region_only():
    source = "def f(x):\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n\n\ny = f(2)"
    assert with_solution(source, "a = 1\n\nreturn a") == "def f(x):\n    a = 1\n\n    return a\n\n\ny = f(2)"
