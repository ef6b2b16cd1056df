"""pytest plugin: the longest work first, two kernels at a time (`make test`'s stages 3 and 4).

Under ``pytest -n 2 --dist loadfile --no-loadscope-reorder -p schedule_plugin``, xdist
hands each worker whole files: a notebook's cells (nbval) or a test file's tests stay
together, in order, in one kernel. This plugin decides the order in which the files are
handed out: longest first, by the seconds each took in the last run
(``tests/durations.json``), so that the two workers finish together instead of one
waiting on the other's last long notebook. At the end of a run, the controller writes
back what each file took this time.

The durations only order the work: a wrong or missing figure costs time, never a result.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DURATIONS = ROOT / "tests" / "durations.json"
#: Seconds assumed for a file the durations do not know yet.
UNKNOWN = {"notebook": 60.0, "test": 5.0}


def file_key(nodeid: str) -> str:
    """The file a node id belongs to, named from the repository: a bare copy
    (tests/bare_folders.py, ``book-x/book/x.ipynb``) is ``book/x.ipynb``."""
    file = nodeid.split("::", 1)[0]
    return "/".join(Path(file).parts[-2:]) if file.endswith(".ipynb") else file


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
    files: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        files[file_key(item.nodeid)].append(item)
    known = load()
    order = sorted(files, key=lambda key: -cost(key, known))  # stable: ties keep order
    items[:] = [item for key in order for item in files[key]]


class DurationRecorder:
    """Sums the seconds of each file's reports (controller side) and merges them into
    tests/durations.json when the run ends."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[file_key(report.nodeid)] += report.duration

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
        config.pluginmanager.register(DurationRecorder(), "ice-duration-recorder")
