"""The units `make test` hands to its xdist workers (tests/support/schedule_plugin.py).

The plugin's own functions are checked directly; what xdist does with them (which worker
ran which test, in which order, and what the run wrote to the durations file) is checked
by running a small suite under xdist, as the Makefile does, never through xdist's
private names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import schedule_plugin
from schedule_plugin import cost, file_key


@pytest.mark.parametrize("nodeid, unit", [
    ("tests/teach/test_grading.py::test_submission_checks",
     "tests/teach/test_grading.py"),
    ("tests/package/test_data.py::test_x[a-b]", "tests/package/test_data.py"),
    ("labs/lab-nan.ipynb::Cell 3", "labs/lab-nan.ipynb"),
    ("labs-lab-nan/labs/lab-nan.ipynb::Cell 3", "labs/lab-nan.ipynb"),  # a bare copy
    ("tests/book/test_lab_answers.py::test_right_answers_pass_every_check"
     "[labs/lab-nan.ipynb]", "tests/book/test_lab_answers.py"),
])
def test_a_unit_is_a_file(nodeid, unit):
    assert file_key(nodeid) == unit


def test_an_unknown_unit_costs_a_guess_not_an_error():
    assert cost("book/new.ipynb", {}) == schedule_plugin.UNKNOWN["notebook"]
    assert cost("tests/test_new.py", {}) == schedule_plugin.UNKNOWN["test"]
    assert cost("tests/test_new.py", {"tests/test_new.py": 7.5}) == 7.5


#: A test file of four tests that must run in their order, as a notebook's cells must;
#: FILE_NAME is the file's name. Each test writes its worker and name to a log.
SUITE = """
import os


def _record(name):
    with open(os.environ["ICE_SCHEDULE_LOG"], "a") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', '-')} {name}\\n")
""" + "".join(f"""

def test_{n}():
    _record("FILE_NAME {n}")
""" for n in ("one", "two", "three", "four"))

#: Collected in this order, the reverse of the order their durations ask for.
FILES = ("a_short", "b_middle", "c_new", "d_long")
#: The seconds the last run took, by file: "d_long" the longest, "c_new" not known yet.
DURATIONS = {"tests/test_a_short.py": 1.0, "tests/test_b_middle.py": 2.0,
             "tests/test_d_long.py": 500.0}


def _run_scheduled(tmp_path: Path, workers: int) -> tuple[list[tuple[str, str]], dict]:
    """Run a small suite under xdist with the plugin and the Makefile's options: the
    (worker, test) lines in the order the tests ran, and the durations file after it."""
    suite = tmp_path / f"suite-{workers}"
    (suite / "tests").mkdir(parents=True)
    for name in FILES:
        (suite / "tests" / f"test_{name}.py").write_text(SUITE.replace("FILE_NAME", name))
    log, durations = suite / "order.txt", suite / "durations.json"
    durations.write_text(json.dumps(DURATIONS))
    env = {**os.environ, "ICE_SCHEDULE_LOG": str(log),
           "ICE_DURATIONS_FILE": str(durations), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(Path(schedule_plugin.__file__).parent),
                                          os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "xdist.plugin",
         "-p", "schedule_plugin", "-p", "no:cacheprovider",
         "-n", str(workers), "--dist", "loadfile",
         "--no-loadscope-reorder", "--rootdir", str(suite), "-c", os.devnull, "tests"],
        cwd=suite, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    ran = [tuple(line.split(" ", 1)) for line in log.read_text().splitlines()]
    return ran, json.loads(durations.read_text())  # type: ignore[return-value]


@pytest.mark.kernel
@pytest.mark.parametrize("workers", [2, 3])
def test_under_xdist_a_file_stays_whole_in_order_and_the_longest_goes_first(
        tmp_path, workers):
    ran, written = _run_scheduled(tmp_path, workers)
    assert len(ran) == 4 * len(FILES), ran
    for name in FILES:  # one worker per file, its tests in their order
        assert len({w for w, test in ran if test.startswith(f"{name} ")}) == 1, ran
        assert [test for _, test in ran if test.startswith(f"{name} ")] == [
            f"{name} {n}" for n in ("one", "two", "three", "four")], ran
    # The longest file by the durations went first, the shortest last: the first test
    # its worker ran, and the first of no worker (2 or 3 workers, 4 files).
    first = {worker: test for worker, test in reversed(ran)}
    assert "d_long one" in first.values() and "a_short one" not in first.values(), ran
    # Each file's seconds, under its name, for the next run (the known ones rewritten).
    assert set(written) == {f"tests/test_{name}.py" for name in FILES}, written
    assert written["tests/test_d_long.py"] < 500.0, written
