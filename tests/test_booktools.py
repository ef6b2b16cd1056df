"""The exercise checker and student-edition writer must themselves catch mistakes."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from ice_teach import exercises, notebooks, settings

ROOT = Path(__file__).resolve().parents[1]


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


def test_toc_entries_give_each_page_its_part():
    """One walker of _toc.yml (the status page's parts and the file list read it)."""
    entries = notebooks.toc_entries()
    assert [page for page, _ in entries] == notebooks.toc_files()
    assert entries[0] == ("book/intro", "")  # the root is in no part
    parts = dict(entries)
    assert parts["book/tensors"] == parts["labs/lab-tensors"] == "Tensors"
    assert all(parts[page] for page in parts if page.startswith("labs/"))


def test_setup_cell_uses_the_configured_repository():
    assert notebooks.repository_url() in notebooks.setup_cell_source()
    nb = notebook(nbformat.v4.new_markdown_cell("# T"))
    assert notebooks.sync_setup_cell(nb) is True
    assert nb.cells[0].source == notebooks.setup_cell_source()
    assert notebooks.sync_setup_cell(nb) is False


@pytest.mark.kernel  # runs make
def test_make_runs_with_the_one_execution_environment_and_nbval_options():
    """What make's recipes see: ice_teach/settings.py's environment and nbval options."""
    if shutil.which("make") is None:
        pytest.skip("no make")
    shown = subprocess.run(
        ["make", "-s", "--eval", "ice-show-settings: ; @env; echo NBVAL=$(NBVAL)",
         "ice-show-settings"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    env = dict(line.split("=", 1) for line in shown if "=" in line)
    assert {name: env.get(name) for name in settings.EXECUTION_ENV} == settings.EXECUTION_ENV
    assert shlex.split(env["NBVAL"]) == settings.nbval_options()