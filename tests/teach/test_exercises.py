"""ice_teach/exercises.py: the exercise checker must itself catch mistakes in a lab's
exercise cells (nbgrader metadata, solution markers, check cells)."""

from __future__ import annotations

import nbformat

from ice_teach import exercises


def solution(grade_id="ex1-solution", source=None, tags=("hide-input",)):
    cell = nbformat.v4.new_code_cell(
        source or "def fix(x):\n    # BEGIN SOLUTION\n    return x.float()\n    # END SOLUTION"
    )
    cell.metadata["nbgrader"] = {
        "grade": False, "grade_id": grade_id, "locked": False, "schema_version": 3, "solution": True, "task": False,
    }
    cell.metadata["tags"] = list(tags)
    return cell


def check(grade_id="ex1-check", source="check.fix(fix)", points=1, tags=()):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True, "grade_id": grade_id, "locked": True, "points": points, "schema_version": 3,
        "solution": False, "task": False,
    }
    cell.metadata["tags"] = list(tags)
    return cell


def notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def test_a_good_exercise_has_no_problems():
    hidden = check("ex1-hidden", "### BEGIN HIDDEN TESTS\ncheck.fix(fix, seed=2)\n### END HIDDEN TESTS", tags=("remove-cell",))
    assert exercises.exercise_problems(notebook(solution(), check(), hidden)) == []


def test_problems_are_reported():
    """Each message names the fault, not the rule it breaks."""
    unlocked, locked_solution, old_schema = check(), solution(), check()
    unlocked.metadata["nbgrader"]["locked"] = False
    locked_solution.metadata["nbgrader"]["locked"] = True
    old_schema.metadata["nbgrader"]["schema_version"] = 2
    cases = {
        "'bad id!' has characters outside": notebook(solution("bad id!"), check()),
        "used twice": notebook(solution("same"), check("same")),
        "not tagged 'hide-input'": notebook(solution(tags=()), check()),
        "has no matching '# BEGIN SOLUTION'": notebook(solution(source="def fix(x):\n    return x"), check()),
        "start with '##'": notebook(solution(source="### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION"), check()),
        "no check cell": notebook(solution()),
        "has points 0": notebook(solution(), check(points=0)),
        "check cell is not locked: nbgrader needs locked: true": notebook(solution(), unlocked),
        "solution cell is graded or locked": notebook(locked_solution, check()),
        "schema_version is 2": notebook(solution(), old_schema),
        "check cell calls print()": notebook(solution(), check(source="print(fix(1))\ncheck.fix(fix)")),
        "not tagged 'remove-cell'": notebook(solution(), check(source="### BEGIN HIDDEN TESTS\ncheck.fix(fix)\n### END HIDDEN TESTS")),
        "does not call check.": notebook(solution(), check(source="x = 1")),
        "has 5 lines of code, more than 4": notebook(solution(), check(source="a = 1\nb = 2\nc = 3\nd = 4\ncheck.fix(fix)")),
        "holds a For at line 1": notebook(solution(), check(source="for n in (1, 2):\n    check.fix(fix, n)")),
    }
    for needle, nb in cases.items():
        problems = exercises.exercise_problems(nb)
        assert any(needle in p for p in problems), (needle, problems)
