"""pytest plugin: the longest work first, two kernels at a time (`make test`'s stages 3 and 4).

Under ``pytest -n 2 --dist loadgroup --no-loadscope-reorder -p schedule_plugin``:

* every item gets an ``xdist_group``: a notebook's cells (nbval) and a test file's tests
  stay together in one worker, in order, as ``--dist loadfile`` would keep them, unless a
  test names a group of its own (tests/test_lab_answers.py: one group per lab, so two
  labs' probes run at once);
* the groups are sorted longest first, by the seconds each took in the last run
  (``tests/durations.json``), so that the two workers finish together instead of one
  waiting on the other's last long notebook;
* at the end of a run, the controller writes back what each group took this time.

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
#: Seconds assumed for a group the file does not know yet.
UNKNOWN = {"notebook": 60.0, "test": 5.0}


def group_of(item: pytest.Item) -> str:
    """The item's group name: its own xdist_group, else its notebook or test file, named
    from the repository (a bare copy of book/x.ipynb is book/x.ipynb)."""
    mark = item.get_closest_marker("xdist_group")
    if mark is not None:
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    return _file_key(item.nodeid.split("::", 1)[0])


def _file_key(file: str) -> str:
    parts = Path(file).parts
    return "/".join(parts[-2:]) if file.endswith(".ipynb") else file


def load(path: Path = DURATIONS) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))}


def cost(group: str, known: dict[str, float]) -> float:
    if group in known:
        return known[group]
    return UNKNOWN["notebook" if group.endswith(".ipynb") else "test"]


@pytest.hookimpl(tryfirst=True)  # before xdist appends the group to the node id
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getvalue("dist") != "loadgroup":
        return
    groups: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        name = group_of(item)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(name))
        groups[name].append(item)
    known = load()
    order = sorted(groups, key=lambda name: -cost(name, known))  # stable: ties keep order
    items[:] = [item for name in order for item in groups[name]]


class DurationRecorder:
    """Sums the seconds of each group's reports (controller side) and merges them into
    tests/durations.json when the run ends."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid, _, group = report.nodeid.partition("@")
        self.seconds[group or _file_key(nodeid.split("::", 1)[0])] += report.duration

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
    if config.getvalue("dist") == "loadgroup" and not hasattr(config, "workerinput") \
            and not os.environ.get("ICE_DURATIONS_READ_ONLY"):
        config.pluginmanager.register(DurationRecorder(), "ice-duration-recorder")
