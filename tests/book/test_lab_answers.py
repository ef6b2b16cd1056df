"""Every lab check refuses the shipped stub, accepts every recorded right answer and rejects
every recorded wrong one with the hint that names that mistake (the table is
tests/support/lab_answers/, one module per lab).

One kernel per lab runs the lab top to bottom (the probe). At each exercise, before the
solution itself, it plays:

* the **stub**, as the student edition in ``student/`` ships it: its solution cell, then
  each of its visible check cells, every one of which must fail (a check that passes on
  the stub could never fail, and would grade nothing);
* each recorded **wrong** answer, in place of the region between ``# BEGIN SOLUTION`` and
  ``# END SOLUTION``, followed by the cells up to the exercise's last check: the first cell
  that fails must be one of the exercise's visible checks, failing with an
  ``AssertionError`` whose message holds the recorded hint. A wrong answer that passes
  every check, that fails on a raw error (in the check, or earlier, where no hint can
  speak), or that fails with another message, fails this test;
* each recorded **right** answer: every check passes, the hidden ones included.

After the first failing cell of an answer, the rest of that answer's cells are skipped (an
IPython input transformer turns them into ``pass``), so a wrong answer costs little. Then
the lab's own solution runs, and the lab goes on from the state it leaves; its own cells
must not fail. So each lab is executed once here, answers and stubs included, from a kernel
already at each exercise.

The three tests of a lab share its probe, computed once (``functools.cache``); under
``make test``'s xdist stage the whole file goes to one worker (``--dist loadfile``), lab
after lab (``tests/support/schedule_plugin.py`` hands the longest files out first, by
``tests/durations.json``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from lab_answers import EXERCISES, Exercise

from ice_teach import exercises, notebooks
from ice_teach import solutions
from ice_teach import student

ROOT = Path(__file__).resolve().parents[2]

LABS = sorted({ex.lab for ex in EXERCISES})
PROBE = "ice_lab_answers"  # cell metadata key of the probe notebook
START, STUB, END = "# PROBE-START", "# PROBE-STUB", "# PROBE-END"

# Installed once in the probe kernel: after a cell of an answer fails, the answer's other
# cells run as `pass`, until the next START, STUB or END cell. A stub's cells all run: each
# of its checks must fail on its own.
SKIPPER = f'''{START}
import IPython as _IPython


class _Probe:
    active = False
    skip = False


def _probe_transform(lines):
    if lines and lines[0].startswith(("{START}", "{STUB}", "{END}")):
        _Probe.active, _Probe.skip = lines[0].startswith("{START}"), False
        return lines
    return ["pass\\n"] if _Probe.skip else lines


def _probe_after(result):
    if _Probe.active and (result.error_in_exec is not None or result.error_before_exec is not None):
        _Probe.skip = True


_IPython.get_ipython().input_transformers_cleanup.append(_probe_transform)
_IPython.get_ipython().events.register("post_run_cell", _probe_after)
_Probe.active = False
'''


@dataclass
class ExerciseCells:
    """Where one exercise lies in a lab, as cell indices (not solutions.Region, a span of
    lines between the solution markers inside one cell)."""

    solution: int  # cell index of the solution cell
    checks: list[int]  # visible check cells
    hidden: list[int]  # hidden check cells
    span: list[int]  # code cells after the solution, up to its last check (hidden included)


def exercise_cells(nb: nbformat.NotebookNode) -> dict[str, ExerciseCells]:
    """Each exercise of lab ``nb`` by its grade id: its solution cell and check cells."""
    found: dict[str, ExerciseCells] = {}
    last: ExerciseCells | None = None
    for i, cell in enumerate(nb.cells):
        if exercises.is_solution(cell):
            last = found[exercises.nbgrader(cell)["grade_id"]] = ExerciseCells(i, [], [], [])
        elif exercises.is_check(cell):
            assert last is not None, f"check cell {i} comes before any solution"
            (last.hidden if exercises.is_hidden_check(cell) else last.checks).append(i)
    for ex_cells in found.values():
        end = max(ex_cells.checks + ex_cells.hidden)
        ex_cells.span = [j for j in range(ex_cells.solution + 1, end + 1) if nb.cells[j].cell_type == "code"]
    return found


def with_one_solution(source: str, body: str) -> str:
    """The solution cell's source with its one solution region replaced by ``body``."""
    count = len(solutions.regions(source))
    assert count == 1, f"expected one solution region, found {count}"
    return solutions.with_solution(source, body)


def _cell(source: str, key: str, role: str, grade_id: str = "") -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata[PROBE] = {"key": key, "role": role, "grade_id": grade_id}
    return cell


def _grade_id(cell: nbformat.NotebookNode) -> str:
    return exercises.nbgrader(cell)["grade_id"]


def stub_cells(grade_id: str, ex_cells: ExerciseCells, nb: nbformat.NotebookNode,
               shipped: dict[str, nbformat.NotebookNode]) -> list[nbformat.NotebookNode]:
    """The shipped student edition's stub of exercise ``grade_id`` and its visible checks,
    as probe cells (the key ``<grade_id>/stub/0``)."""
    key = f"{grade_id}/stub/0"
    assert grade_id in shipped, f"student/ lacks exercise {grade_id}: run `make student`"
    stub = shipped[grade_id].source
    assert solutions.STUDENT_STUB in stub, f"{grade_id} is not stubbed in student/"
    cells = [_cell(STUB, key, "start"), _cell(stub, key, "stub", grade_id)]
    for j in ex_cells.checks:
        check = _grade_id(nb.cells[j])
        assert check in shipped, f"student/ lacks the check {check}: run `make student`"
        cells.append(_cell(shipped[check].source, key, "check", check))
    return cells + [_cell(END, key, "end")]


def probe_notebook(lab: str) -> nbformat.NotebookNode:
    nb = notebooks.read(lab)
    found = exercise_cells(nb)
    edition = notebooks.read(student.STUDENT_DIR / Path(lab).name)
    shipped = {_grade_id(c): c for c in edition.cells if exercises.nbgrader(c) is not None}
    mine = {ex.solution: ex for ex in EXERCISES if ex.lab == lab}
    unknown = set(mine) - set(found)
    assert not unknown, f"{lab}: the table names exercises the lab does not have: {unknown}"
    at = {ex_cells.solution: (grade_id, ex_cells) for grade_id, ex_cells in found.items()}
    cells = [_cell(SKIPPER, "", "setup")]
    i = 0
    while i < len(nb.cells):
        cell = nb.cells[i]
        if i not in at:
            if cell.cell_type == "code" and not exercises.is_hidden_check(cell):
                cells.append(_cell(cell.source, "", "lab"))
            i += 1
            continue
        grade_id, ex_cells = at[i]
        cells += stub_cells(grade_id, ex_cells, nb, shipped)
        ex = mine.get(grade_id)
        answers = [] if ex is None else [("wrong", k, a) for k, a in enumerate(ex.wrong)]
        answers += [] if ex is None else [("right", k, a) for k, a in enumerate(ex.right)]
        for kind, k, answer in answers:
            key = f"{grade_id}/{kind}/{k}"
            cells.append(_cell(START, key, "start"))
            cells.append(_cell(with_one_solution(cell.source, answer.code), key, "solution", grade_id))
            for j in ex_cells.span:
                check = exercises.is_check(nb.cells[j])
                role = "check" if j in ex_cells.checks else "hidden" if check else "between"
                cells.append(_cell(nb.cells[j].source, key, role, _grade_id(nb.cells[j]) if check else ""))
            cells.append(_cell(END + "\n" + answer.cleanup, key, "end"))
        # then the lab's own solution and its cells, as the lab runs them
        cells.append(_cell(cell.source, "", "lab"))
        for j in ex_cells.span:
            cells.append(_cell(nb.cells[j].source, "", "lab"))
        i = ex_cells.span[-1] + 1
    out = nbformat.v4.new_notebook(metadata=nb.metadata)
    out.cells = cells
    return out


@dataclass
class Probe:
    first: dict[str, dict | None]  # answer key -> its first failure (None: every cell passed)
    stub_checks: dict[str, dict[str, str]]  # exercise -> {visible check: "" if it passed}
    broken: list[str]  # errors of the lab's own cells (there must be none)


@functools.cache
def run_probe(lab: str) -> Probe:
    """Execute one lab's probe notebook, once per worker process."""
    path = ROOT / lab
    copy = path.parent / f".answers-{path.name}"  # the lab's folder: its data at hand
    try:
        nbformat.write(probe_notebook(lab), copy)
        executed = notebooks.execute(copy.relative_to(ROOT), timeout=600, allow_errors=True)
    finally:
        copy.unlink(missing_ok=True)
    probe = Probe({}, {}, [])
    for index, cell in enumerate(executed.cells):
        meta = cell.metadata[PROBE]
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if not meta["key"]:
            if errors:
                probe.broken.append(f"probe cell {index} ({meta['role']}): {errors[0].ename}: "
                                    f"{errors[0].evalue[:200]}")
            continue
        exercise, kind, _ = meta["key"].split("/")
        if kind == "stub":
            if meta["role"] == "check":
                error = f"{errors[0].ename}: {errors[0].evalue[:200]}" if errors else ""
                probe.stub_checks.setdefault(exercise, {})[meta["grade_id"]] = error
            continue
        probe.first.setdefault(meta["key"], None)
        if errors and probe.first[meta["key"]] is None:
            probe.first[meta["key"]] = {"role": meta["role"], "grade_id": meta["grade_id"],
                                        "ename": errors[0].ename, "evalue": errors[0].evalue}
    return probe


def _table(lab: str) -> list[Exercise]:
    return [ex for ex in EXERCISES if ex.lab == lab]


def _lab_params() -> list:
    """One parameter per lab; its tests start a kernel."""
    return [pytest.param(lab, id=lab, marks=pytest.mark.kernel) for lab in LABS]


@pytest.mark.parametrize("lab", _lab_params())
def test_every_visible_check_fails_on_the_shipped_stub(lab):
    probe = run_probe(lab)
    assert not probe.broken, f"{lab}: the lab's own cells failed in the probe: {probe.broken}"
    exercises = exercise_cells(notebooks.read(lab))
    assert set(probe.stub_checks) == set(exercises), (
        f"{lab}: stubs played for {sorted(probe.stub_checks)}, exercises {sorted(exercises)}")
    passing = [f"{check} passes on the stub of {exercise}"
               for exercise, checks in probe.stub_checks.items()
               for check, error in checks.items() if not error]
    assert not passing, f"{lab}: " + "; ".join(passing)


@pytest.mark.parametrize("lab", _lab_params())
def test_wrong_answers_fail_with_their_hint(lab):
    probe = run_probe(lab)
    assert not probe.broken, f"{lab}: the lab's own cells failed in the probe: {probe.broken}"
    problems = []
    for ex in _table(lab):
        for k, answer in enumerate(ex.wrong):
            failure = probe.first.get(f"{ex.solution}/wrong/{k}", "missing")
            what = f"{ex.solution}, wrong answer {k} ({answer.why})"
            if failure == "missing":
                problems.append(f"{what}: never ran")
            elif failure is None:
                problems.append(f"{what}: PASSES every check")
            elif failure["role"] != "check":
                problems.append(f"{what}: failed in a {failure['role']} cell, before any check: "
                                f"{failure['ename']}: {failure['evalue'][:200]}")
            elif failure["ename"] != "AssertionError":
                problems.append(f"{what}: a raw {failure['ename']} instead of a hint: {failure['evalue'][:200]}")
            elif answer.hint not in failure["evalue"]:
                problems.append(f"{what}: failed in {failure['grade_id']} with another hint: "
                                f"{failure['evalue'][:300]}")
    assert not problems, f"{lab}:\n" + "\n".join(problems)


@pytest.mark.parametrize("lab", _lab_params())
def test_right_answers_pass_every_check(lab):
    probe = run_probe(lab)
    assert not probe.broken, f"{lab}: the lab's own cells failed in the probe: {probe.broken}"
    refused = []
    for ex in _table(lab):
        for k, answer in enumerate(ex.right):
            failure = probe.first.get(f"{ex.solution}/right/{k}", "missing")
            if failure is not None:
                refused.append(f"{ex.solution}, right answer {k} ({answer.why}): {failure}")
    assert not refused, f"{lab}:\n" + "\n".join(refused)
# Labs whose exercises are not in the table yet: each must be named here, with its reason.
KNOWN_GAPS: dict[str, str] = {}


def every_lab() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "labs").glob("lab-*.ipynb"))


def test_every_lab_is_in_the_table():
    """A lab with graded exercises but no entry in tests/support/lab_answers/ fails here, unless it
    is named in KNOWN_GAPS; a gap that has been filled must leave KNOWN_GAPS."""
    missing = [lab for lab in every_lab() if exercise_cells(notebooks.read(lab)) and lab not in LABS]
    assert set(missing) <= set(KNOWN_GAPS), (
        f"labs without entries in tests/support/lab_answers/: {sorted(set(missing) - set(KNOWN_GAPS))}")
    filled = set(KNOWN_GAPS) & set(LABS)
    assert not filled, f"remove from KNOWN_GAPS, their entries exist now: {sorted(filled)}"


def test_the_table_covers_every_exercise():
    """Every graded exercise of the labs in the table: at least one right answer besides the
    lab's own, three wrong ones, one of which hides the symptom; hints are not empty."""
    for lab in LABS:
        nb = notebooks.read(lab)
        exercises = set(exercise_cells(nb))
        table = {ex.solution: ex for ex in _table(lab)}
        assert set(table) == exercises, f"{lab}: table {sorted(table)} vs exercises {sorted(exercises)}"
        for ex in table.values():
            assert len(ex.wrong) >= 3, f"{lab} {ex.solution}: at least three wrong answers"
            assert any(a.hides for a in ex.wrong), f"{lab} {ex.solution}: one wrong answer hides the symptom"
            assert ex.right, f"{lab} {ex.solution}: the right answers the chapter teaches"
            for a in ex.wrong:
                assert a.hint.strip() and a.why.strip(), f"{lab} {ex.solution}: {a}"


def test_with_solution_replaces_the_region_only():
    source = "def f(x):\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n\n\ny = f(2)"
    assert with_one_solution(source, "a = 1\n\nreturn a") == "def f(x):\n    a = 1\n\n    return a\n\n\ny = f(2)"


def test_check_cells_may_print_one_pass_line_only():
    def check(source: str, outputs: list | None = None) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "points": 1,
                                     "grade_id": "c", "schema_version": 3, "task": False}
        cell.outputs = outputs or []
        return cell

    solution = nbformat.v4.new_code_cell("def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION")
    solution.metadata["nbgrader"] = {"grade": False, "solution": True, "locked": False,
                                     "grade_id": "s", "schema_version": 3, "task": False}
    solution.metadata["tags"] = ["hide-input"]
    passed = nbformat.v4.new_output("stream", name="stdout", text="Check passed: f works.\n")
    good = "check.f(f)"
    cases = {
        good: (None, False),
        "check.f(f)\nprint('Done')": ("prints nothing", True),
        "print(f())\ncheck.f(f)": ("prints nothing", True),
    }
    for source, (needle, expect_problem) in cases.items():
        nb = nbformat.v4.new_notebook()
        nb.cells = [solution, check(source, [passed])]
        problems = exercises.exercise_problems(nb)
        assert bool(problems) == expect_problem, (source, problems)
        assert needle is None or any(needle in p for p in problems), (source, problems)
    nb = nbformat.v4.new_notebook()
    error = nbformat.v4.new_output("error", ename="AssertionError", evalue="x", traceback=[])
    nb.cells = [solution, check(good, [error])]
    assert any("prints nothing" in p for p in exercises.exercise_problems(nb))
