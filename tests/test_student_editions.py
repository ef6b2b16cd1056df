"""Every lab's checks fail without the fix, fail on the usual wrong answer WITH the hint
that names it, and pass on the solution.

One kernel per lab runs the lab top to bottom; at each exercise it runs the solution cell
and the cells up to its checks several times over (tools/booktools.py's regions and
execution):

1. with the solution replaced by the student edition's ``raise NotImplementedError``:
   every visible check must fail (a check that passes anyway grades nothing);
2. with each recorded wrong answer (tests/wrong_answers.py) in place of the solution:
   its check must fail with an ``AssertionError`` whose message holds the recorded hint;
3. with the solution: every check passes, and the lab goes on to the next exercise.

Each exercise starts from the state the solutions before it left, so a check fails for
its own exercise's reason, never because an earlier one is broken.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from wrong_answers import WRONG_ANSWERS, WrongAnswer

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


def probe_notebook(path: Path, wrong: list[WrongAnswer]) -> nbformat.NotebookNode:
    """The lab with each exercise run as stub, as each wrong answer, then as solution."""
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
        variants = [("stub", booktools.STUDENT_STUB, ex.span, "")]
        for k, answer in enumerate(a for a in wrong if a.solution == solution_id):
            target = [j for j in ex.checks if ex.grade_id(nb, j) == answer.check]
            assert target, f"{path}: {answer.check!r} is not a visible check of {solution_id!r}"
            variants.append((f"wrong {k}", answer.code, [j for j in ex.span if j <= target[0]], answer.cleanup))
        variants.append(("solution", None, ex.span, ""))
        for variant, body, span, cleanup in variants:
            source = cell.source if body is None else with_solution(cell.source, body)
            cells.append(_cell(source, variant, "solution", solution_id))
            for j in span:
                role = "check" if j in ex.checks else "between"
                cells.append(_cell(nb.cells[j].source, variant, role, ex.grade_id(nb, j) if role == "check" else solution_id))
            if cleanup:
                cells.append(_cell(cleanup, variant, "cleanup", solution_id))
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
    wrong = [a for a in WRONG_ANSWERS if Path(a.lab) == path]
    nb = probe_notebook(path, wrong)
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
def test_checks_fail_on_the_usual_wrong_answers_with_their_hint(path):
    outcomes, _ = run_probe(path)
    wrong = [a for a in WRONG_ANSWERS if Path(a.lab) == path]
    problems = []
    for answer in wrong:
        runs = [o for o in outcomes if o.variant.startswith("wrong ") and o.grade_id == answer.check]
        mine = [o for o in runs if o.solution == answer.solution]
        k = [a for a in wrong if a.solution == answer.solution].index(answer)
        got = [o for o in mine if o.variant == f"wrong {k}"]
        assert len(got) == 1, f"{answer.check}: expected one run of wrong answer {k}, got {len(got)}"
        error = got[0].error
        if error is None:
            problems.append(f"{answer.check} ({answer.why}): the check PASSES on this wrong answer")
        elif answer.raw:  # documented: a raw error before any hint (the check could say more)
            name, _, fragment = answer.raw.partition(": ")
            if (error[0], fragment in error[1]) != (name, True):
                problems.append(
                    f"{answer.check} ({answer.why}): recorded as raising {answer.raw!r}, got {error[0]}: "
                    f"{error[1][:200]}. If the check now names it, record the hint instead."
                )
        elif error[0] != "AssertionError":
            problems.append(f"{answer.check} ({answer.why}): raised {error[0]} before any hint: {error[1][:200]}")
        elif answer.hint not in error[1]:
            problems.append(f"{answer.check} ({answer.why}): failed with another message: {error[1][:300]}")
    assert not problems, f"{path}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", LABS, ids=[str(p) for p in LABS])
def test_checks_pass_on_the_solutions(path):
    outcomes, broken = run_probe(path)
    failing = [f"{o.grade_id}: {o.error}" for o in outcomes if o.variant == "solution" and o.error is not None]
    assert not failing and not broken, f"{path}: {failing} {broken}"


def test_every_graded_exercise_has_a_recorded_wrong_answer():
    for path in LABS:
        nb = booktools.read(path)
        for ex in exercises(nb):
            solution_id = ex.grade_id(nb, ex.solution)
            checks = {ex.grade_id(nb, j) for j in ex.checks}
            answers = [a for a in WRONG_ANSWERS if Path(a.lab) == path and a.solution == solution_id]
            assert [a for a in answers if not a.raw], (
                f"{path}: exercise {solution_id!r} has no recorded wrong answer whose hint fires"
            )
            for a in answers:
                assert a.check in checks, f"{path}: {a.check!r} is not a visible check of {solution_id!r}"
                assert a.why.strip() and bool(a.hint.strip()) != bool(a.raw), f"{a.why}: a hint or a raw error"
    known = {(str(p), booktools.nbgrader(c)["grade_id"]) for p in LABS for c in booktools.read(p).cells if booktools.is_solution(c)}
    stale = [(a.lab, a.solution) for a in WRONG_ANSWERS if (a.lab, a.solution) not in known]
    assert not stale, f"wrong answers for exercises that no longer exist: {stale}"


def test_with_solution_replaces_the_region_only():
    source = "def f(x):\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n\n\ny = f(2)"
    assert with_solution(source, "a = 1\n\nreturn a") == "def f(x):\n    a = 1\n\n    return a\n\n\ny = f(2)"
