"""The units `make test` hands to its xdist workers (tests/schedule_plugin.py)."""

from __future__ import annotations

import pytest

import schedule_plugin
from schedule_plugin import UnitScheduling, cost, file_key


@pytest.mark.parametrize("nodeid, unit", [
    ("tests/test_grading.py::test_submission_checks", "tests/test_grading.py"),
    ("tests/test_data.py::test_x[a-b]", "tests/test_data.py"),  # one unit per file
    ("labs/lab-nan.ipynb::Cell 3", "labs/lab-nan.ipynb"),
    ("labs-lab-nan/labs/lab-nan.ipynb::Cell 3", "labs/lab-nan.ipynb"),  # a bare copy
    ("tests/test_lab_answers.py::test_right_answers_pass_every_check[labs/lab-nan.ipynb]",
     "tests/test_lab_answers.py[labs/lab-nan.ipynb]"),
    ("tests/test_lab_answers.py::test_every_lab_is_in_the_table", "tests/test_lab_answers.py"),
])
def test_units(nodeid, unit):
    assert file_key(nodeid) == unit


class _Scheduler(UnitScheduling):
    def __init__(self, numnodes: int) -> None:  # what _split_scope reads, nothing else
        self.numnodes = numnodes


def test_a_labs_three_probe_tests_are_one_unit_and_labs_are_apart():
    tests = ("test_every_visible_check_fails_on_the_shipped_stub",
             "test_wrong_answers_fail_with_their_hint", "test_right_answers_pass_every_check")
    split = _Scheduler(4)._split_scope
    for lab in ("labs/lab-nan.ipynb", "labs/lab-oom.ipynb"):
        units = {split(f"tests/test_lab_answers.py::{t}[{lab}]") for t in tests}
        assert len(units) == 1, units
    assert split("tests/test_lab_answers.py::t[labs/lab-nan.ipynb]") != split(
        "tests/test_lab_answers.py::t[labs/lab-oom.ipynb]")


def test_with_two_workers_the_probe_file_is_one_unit():
    split = _Scheduler(2)._split_scope
    units = {split(f"tests/test_lab_answers.py::t[labs/lab-{lab}.ipynb]")
             for lab in ("nan", "oom", "resume")}
    assert units == {"tests/test_lab_answers.py"}


def test_an_unknown_unit_costs_a_guess_not_an_error():
    assert cost("book/new.ipynb", {}) == schedule_plugin.UNKNOWN["notebook"]
    assert cost("tests/test_new.py", {}) == schedule_plugin.UNKNOWN["test"]
    assert cost("tests/test_new.py", {"tests/test_new.py": 7.5}) == 7.5
