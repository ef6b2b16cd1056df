"""pytest plugin: the longest work first, a kernel per core (`make test`'s stages 3 and 4).

Under ``pytest -n N --dist loadfile --no-loadscope-reorder -p schedule_plugin``, xdist
hands each worker whole test files and notebooks (its documented ``loadfile`` mode): a
notebook's cells (nbval) or a test file's tests stay together, in order, in one worker,
so in one kernel, and a module's fixtures are built once. This plugin decides the order
in which the files are handed out, through pytest's public hook alone: it sorts the
collected tests file by file, the longest first by the seconds each took in the last run
(``tests/durations.json``), and ``--no-loadscope-reorder`` makes xdist hand the files out
in that order, so that the workers finish together instead of one waiting on another's
last long notebook. At the end of a run, the controller writes back what each file took
this time (``ICE_DURATIONS_FILE`` names another file to read and write).

The lab answer probe (``tests/book/test_lab_answers.py``) is one unit, its labs one
after another in one worker. It used to be cut into a unit per lab from three workers
on, by overriding a private method of xdist's scheduler; xdist's public way to say
"these tests together" (``--dist loadgroup`` with ``xdist_group`` marks) groups nothing
under the pinned pytest 9.2 (pytest-xdist issue #1386: its node id suffix no longer
takes), so the cut waits for that fix. On two workers nothing changes: the probe was one unit
there already.

The durations only order the work: a wrong or missing figure costs time, never a result.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DURATIONS = ROOT / "tests" / "durations.json"
#: Seconds assumed for a file the durations do not know yet.
UNKNOWN = {"notebook": 60.0, "test": 5.0}


def file_key(nodeid: str) -> str:
    """The unit of work a node id belongs to, named from the repository: its file, where a
    bare copy (notebooks.bare_copies, ``book-x/book/x.ipynb``) is ``book/x.ipynb``."""
    file = nodeid.partition("::")[0]
    if file.endswith(".ipynb"):
        return "/".join(Path(file).parts[-2:])
    return file


def durations_file() -> Path:
    """``tests/durations.json``, or the file ``ICE_DURATIONS_FILE`` names."""
    return Path(os.environ.get("ICE_DURATIONS_FILE") or DURATIONS)


def load(path: Path | None = None) -> dict[str, float]:
    try:
        data = json.loads((path or durations_file()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))}


def cost(key: str, known: dict[str, float]) -> float:
    if key in known:
        return known[key]
    return UNKNOWN["notebook" if key.endswith(".ipynb") else "test"]


def _distributed(config: pytest.Config) -> bool:
    """True in an xdist run: in the controller ``dist`` names the mode; in a worker
    ``workerinput`` is set."""
    return config.getvalue("dist") not in (None, "no") or hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist run: the tests sorted file by file, the longest file first (a file's
    tests keep their order)."""
    if not _distributed(config):
        return
    units: dict[str, list[pytest.Item]] = defaultdict(list)
    for item in items:
        units[file_key(item.nodeid)].append(item)
    known = load()
    order = sorted(units, key=lambda key: -cost(key, known))  # stable: ties keep order
    items[:] = [item for key in order for item in units[key]]


class DurationRecorder:
    """Sums the seconds of each unit's reports (controller side) and merges them into
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
        text = json.dumps(dict(sorted(data.items())), indent=1) + "\n"
        durations_file().write_text(text, encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    # Only the controller of an xdist run writes (workers send it their reports).
    if _distributed(config) and not hasattr(config, "workerinput"):
        recorder = DurationRecorder()
        config.pluginmanager.register(recorder, "ice-duration-recorder")
