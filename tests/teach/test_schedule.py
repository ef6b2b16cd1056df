"""The units `make test` hands to its xdist workers (tests/support/schedule_plugin.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

import schedule_plugin
from schedule_plugin import cost, file_key, split_by_parameter


@pytest.mark.parametrize("nodeid, unit", [
    ("tests/teach/test_grading.py::test_submission_checks", "tests/teach/test_grading.py"),
    ("tests/package/test_data.py::test_x[a-b]", "tests/package/test_data.py"),  # one unit per file
    ("labs/lab-nan.ipynb::Cell 3", "labs/lab-nan.ipynb"),
    ("labs-lab-nan/labs/lab-nan.ipynb::Cell 3", "labs/lab-nan.ipynb"),  # a bare copy
    ("tests/book/test_lab_answers.py::test_right_answers_pass_every_check[labs/lab-nan.ipynb]",
     "tests/book/test_lab_answers.py[labs/lab-nan.ipynb]"),
    ("tests/book/test_lab_answers.py::test_every_lab_is_in_the_table", "tests/book/test_lab_answers.py"),
])
def test_units(nodeid, unit):
    assert file_key(nodeid) == unit


PROBE_TESTS = ("test_every_visible_check_fails_on_the_shipped_stub",
               "test_wrong_answers_fail_with_their_hint", "test_right_answers_pass_every_check")


def test_a_labs_three_probe_tests_are_one_unit_and_labs_are_apart():
    for lab in ("labs/lab-nan.ipynb", "labs/lab-oom.ipynb"):
        units = {file_key(f"tests/book/test_lab_answers.py::{t}[{lab}]") for t in PROBE_TESTS}
        assert len(units) == 1, units
    assert file_key("tests/book/test_lab_answers.py::t[labs/lab-nan.ipynb]") != file_key(
        "tests/book/test_lab_answers.py::t[labs/lab-oom.ipynb]")


def test_uncut_the_probe_file_is_one_unit():
    units = {file_key(f"tests/book/test_lab_answers.py::t[labs/lab-{lab}.ipynb]", split=False)
             for lab in ("nan", "oom", "resume")}
    assert units == {"tests/book/test_lab_answers.py"}


@pytest.mark.parametrize("workers, split", [(None, False), (1, False), (2, False), (3, True),
                                            (4, True), ("auto", False)])
def test_the_probe_file_is_cut_from_three_workers(workers, split):
    controller = SimpleNamespace(getvalue=lambda name: {"numprocesses": workers}[name])
    assert split_by_parameter(controller) is split  # type: ignore[arg-type]
    if isinstance(workers, int):
        worker = SimpleNamespace(workerinput={"workercount": workers})
        assert split_by_parameter(worker) is split  # type: ignore[arg-type]


SUITE = """
import os

import pytest

LABS = ["labs/lab-a.ipynb", "labs/lab-b.ipynb", "labs/lab-c.ipynb"]


def _record(name):
    with open(os.environ["ICE_SCHEDULE_LOG"], "a") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', '-')} {name}\\n")

""" + "".join(f"""

@pytest.mark.parametrize("lab", LABS)
def {test}(lab):
    _record(f"{test}[{{lab}}]")
""" for test in PROBE_TESTS)


def _run_scheduled(tmp_path, workers: int) -> dict[str, set[str]]:
    """Run a tiny lab-answers suite under xdist with the plugin: the workers each lab's
    tests ran in, and those of the other file ('other')."""
    (tmp_path / "tests" / "book").mkdir(parents=True, exist_ok=True)
    (tmp_path / "tests" / "book" / "test_lab_answers.py").write_text(SUITE)
    (tmp_path / "tests" / "test_other.py").write_text(
        "import os\n\n\ndef test_other():\n"
        "    with open(os.environ['ICE_SCHEDULE_LOG'], 'a') as log:\n"
        "        log.write(os.environ.get('PYTEST_XDIST_WORKER', '-') + ' other\\n')\n")
    log = tmp_path / f"order-{workers}.txt"
    env = {**os.environ, "ICE_SCHEDULE_LOG": str(log), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(Path(schedule_plugin.__file__).parent),
                                          os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "xdist.plugin", "-p", "schedule_plugin",
         "-p", "no:ice-duration-recorder",  # no write to this checkout's durations.json
         "-p", "no:cacheprovider", "-n", str(workers), "--dist", "loadfile",
         "--rootdir", str(tmp_path), "-c", os.devnull, "tests"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    where: dict[str, set[str]] = defaultdict(set)
    for line in log.read_text().splitlines():
        worker, name = line.split(" ", 1)
        where[name.split("[", 1)[1].rstrip("]") if "[" in name else name].add(worker)
    return where


@pytest.mark.kernel
def test_under_xdist_a_lab_stays_on_one_worker_and_two_workers_keep_the_file_whole(tmp_path):
    where = _run_scheduled(tmp_path, 4)
    labs = {lab: workers for lab, workers in where.items() if lab != "other"}
    assert len(labs) == 3 and all(len(w) == 1 for w in labs.values()), where
    assert len(set().union(*labs.values())) > 1, where  # cut by lab: labs on other workers
    where = _run_scheduled(tmp_path, 2)
    labs = {lab: workers for lab, workers in where.items() if lab != "other"}
    assert len(set().union(*labs.values())) == 1, where  # one unit: one worker


def test_an_unknown_unit_costs_a_guess_not_an_error():
    assert cost("book/new.ipynb", {}) == schedule_plugin.UNKNOWN["notebook"]
    assert cost("tests/test_new.py", {}) == schedule_plugin.UNKNOWN["test"]
    assert cost("tests/test_new.py", {"tests/test_new.py": 7.5}) == 7.5
