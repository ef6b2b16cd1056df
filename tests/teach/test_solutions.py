"""ice_teach/solutions.py: the one reader and writer of solution and hidden-test regions."""

from __future__ import annotations


import pytest

from ice_teach import solutions

CELL = "import torch\n\ndef fix(x):\n    # BEGIN SOLUTION\n    y = x.float()\n\n    return y\n    # END SOLUTION\n\nout = fix(1)"


def test_regions_give_lines_indent_and_body():
    (region,) = solutions.regions(CELL)
    assert (region.begin, region.end, region.indent) == (3, 7, "    ")
    assert region.body == ["    y = x.float()", "", "    return y"]
    assert solutions.solution_body(CELL) == "y = x.float()\n\nreturn y"


def test_with_solution_and_stub_keep_the_rest_of_the_cell():
    filled = solutions.with_solution(CELL, "return x.double()\n\n# done")
    assert filled.splitlines()[3:6] == ["    return x.double()", "", "    # done"]
    assert filled.startswith("import torch\n") and filled.endswith("\n\nout = fix(1)")
    assert "BEGIN SOLUTION" not in filled
    stub = solutions.stubbed(CELL)
    assert stub.splitlines()[3] == "    " + solutions.STUDENT_STUB
    assert solutions.regions(stub) == []


@pytest.mark.parametrize(
    "source, match",
    [
        ("# BEGIN SOLUTION\nx = 1", "never closed"),
        ("x = 1\n# END SOLUTION", "without its BEGIN"),
        ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION", "inside another region"),
        ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", "single '#'"),
    ],
)
def test_markers_that_do_not_pair_up_are_refused(source, match):
    with pytest.raises(solutions.RegionError, match=match):
        solutions.regions(source)


def test_solution_body_needs_exactly_one_region():
    with pytest.raises(solutions.RegionError, match="found 2"):
        solutions.solution_body(CELL + "\n# BEGIN SOLUTION\nz = 2\n# END SOLUTION")


def test_hidden_tests_fill_their_own_cell():
    assert solutions.is_hidden_tests("\n### BEGIN HIDDEN TESTS\nassert f(2) == 2\n### END HIDDEN TESTS\n")
    assert not solutions.is_hidden_tests("x = 1\n### BEGIN HIDDEN TESTS\nassert x\n### END HIDDEN TESTS")
    assert not solutions.is_hidden_tests("")
