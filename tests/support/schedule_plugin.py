"""pytest plugin: the longest work first, a kernel per core (`make test`'s stages 3 and 4).

Under ``pytest -n N --dist loadfile --no-loadscope-reorder -p schedule_plugin``, xdist
hands each worker whole units of work: a notebook's cells (nbval) or a test file's tests
stay together, in order, in one kernel. With more than two workers, a file named in
``PER_PARAMETER`` is cut into one unit per parameter instead (``tests/book/test_lab_answers.py``:
one unit per lab, whose three tests share that lab's probe), so that its labs go to
different workers; with two, it stays one unit, its labs one after another beside the
rest of the suite, which is then no longer than the file (the one run cut by lab on two
cores put its heaviest labs at once beside grading's sandboxes, and its stage 3 took
678 s, the slowest of seven runs; the six uncut took 556 to 655 s). This plugin
decides the order in which the units are handed out: longest first, by the seconds each
took in the last run (``tests/durations.json``), so that the workers finish together
instead of one waiting on another's last long notebook. At the end of a run, the
controller writes back what each unit took this time.

The durations only order the work: a wrong or missing figure costs time, never a result.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
from xdist.scheduler import LoadFileScheduling

ROOT = Path(__file__).resolve().parents[2]
DURATIONS = ROOT / "tests" / "durations.json"
#: Seconds assumed for a file the durations do not know yet.
UNKNOWN = {"notebook": 60.0, "test": 5.0}


#: Test files whose tests are handed out one parameter at a time (a parameter's tests
#: stay together, in one worker), not as one unit: the lab answer probe, a lab per unit.
PER_PARAMETER = {"tests/book/test_lab_answers.py"}


#: From how many workers on the files of ``PER_PARAMETER`` are cut by parameter.
SPLIT_FROM = 3


def file_key(nodeid: str, split: bool = True) -> str:
    """The unit of work a node id belongs to, named from the repository: its file, where a
    bare copy (notebooks.bare_copies, ``book-x/book/x.ipynb``) is ``book/x.ipynb``; when
    ``split``, in a file of ``PER_PARAMETER``, the file and the test's parameter,
    ``tests/book/test_lab_answers.py[labs/lab-nan.ipynb]``."""
    file, _, rest = nodeid.partition("::")
    if file.endswith(".ipynb"):
        return "/".join(Path(file).parts[-2:])
    if split and file in PER_PARAMETER and rest.endswith("]") and "[" in rest:
        return f"{file}[{rest.split('[', 1)[1]}"
    return file


def split_by_parameter(config: pytest.Config) -> bool:
    """Whether this run cuts the files of ``PER_PARAMETER`` by parameter: it has at least
    ``SPLIT_FROM`` xdist workers."""
    if hasattr(config, "workerinput"):
        n = int(config.workerinput["workercount"])
    else:
        n = config.getvalue("numprocesses")
    return isinstance(n, int) and n >= SPLIT_FROM


class UnitScheduling(LoadFileScheduling):
    """xdist's ``--dist loadfile``, with the units of ``file_key``."""

    def _split_scope(self, nodeid: str) -> str:
        return file_key(nodeid, split=self.numnodes >= SPLIT_FROM)


def pytest_xdist_make_scheduler(config: pytest.Config, log) -> LoadFileScheduling | None:
    if config.getvalue("dist") == "loadfile":
        return UnitScheduling(config, log)
    return None


def load(path: Path = DURATIONS) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))}


def cost(key: str, known: dict[str, float]) -> float:
    if key in known:
        return known[key]
    return UNKNOWN["notebook" if key.endswith(".ipynb") else "test"]


def _distributed(config: pytest.Config) -> bool:
    """True in an xdist run: in the controller ``dist`` names the mode; in a worker
    ``dist`` is "no" and ``workerinput`` is set."""
    return config.getvalue("dist") not in (None, "no") or hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _distributed(config):
        return
    units: dict[str, list[pytest.Item]] = defaultdict(list)
    split = split_by_parameter(config)
    for item in items:
        units[file_key(item.nodeid, split)].append(item)
    known = load()
    order = sorted(units, key=lambda key: -cost(key, known))  # stable: ties keep order
    items[:] = [item for key in order for item in units[key]]


class DurationRecorder:
    """Sums the seconds of each unit's reports (controller side) and merges them into
    tests/durations.json when the run ends."""

    def __init__(self, split: bool) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.split = split

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[file_key(report.nodeid, self.split)] += report.duration

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not self.seconds:
            return
        data = load()
        data.update({k: round(v, 1) for k, v in self.seconds.items()})
        DURATIONS.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n",
                             encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    # Only the controller of an xdist run writes (workers send it their reports).
    if _distributed(config) and not hasattr(config, "workerinput"):
        recorder = DurationRecorder(split_by_parameter(config))
        config.pluginmanager.register(recorder, "ice-duration-recorder")
