"""pytest plugin: record what a `make test` pass ran into the book's status data.

Active only when ``ICE_STATUS_FILE`` names the data file (reference/status.json), and
``ICE_STATUS_PASS`` says which pass this run is ("1": this machine's CPU kernels, "2":
the portable kernels). For every notebook nbval ran it records the seconds its cells
took, whether all of them passed, its cell counts and its SHA-256 (ice_teach/status.py
merges it into the file: notebooks this run did not touch keep their earlier entries).
Under xdist, only the controller writes (workers send it their reports).

    ICE_STATUS_FILE=reference/status.json ICE_STATUS_PASS=1 \\
        python -m pytest -p tests.status_plugin tests book labs --nbval ...
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ice_teach import status


class StatusRecorder:
    """Sums per notebook the durations and outcomes of its cells' reports."""

    def __init__(
        self, path: Path, pass_id: str, root: Path, started_in: Path | None = None
    ) -> None:
        if pass_id not in status.PASSES:
            raise pytest.UsageError(
                f"ICE_STATUS_PASS={pass_id!r}: set it to one of "
                f"{sorted(status.PASSES)} "
                "(1 = this machine's kernels, 2 = portable kernels)"
            )
        self.path = path
        self.pass_id = pass_id
        self.root = root
        self.dirs = [root] + ([started_in] if started_in else [])
        self.notebooks: dict[str, dict[str, Any]] = {}
        self.unit = {"passed": 0, "failed": 0, "skipped": 0}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        file = report.nodeid.split("::", 1)[0]
        if not file.endswith(".ipynb"):
            # A test counts once: its call, or its setup when that failed or skipped.
            if report.when == "call" or (report.when == "setup" and not report.passed):
                self.unit[report.outcome] = self.unit.get(report.outcome, 0) + 1
            return
        entry = self._entry(file)
        entry["seconds"] += report.duration
        if report.failed:
            entry["failed"].add(report.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        file = report.nodeid.split("::", 1)[0]
        if report.failed and file.endswith(".ipynb"):
            self._entry(file)["failed"].add(f"{file} (collection)")

    def _entry(self, file: str) -> dict[str, Any]:
        """A notebook's running totals, under its name in the repository.

        The name is the file's last two parts (``book/numerics.ipynb``), so that a bare
        copy (notebooks.bare_copies: ``book-numerics/book/numerics.ipynb``) counts as
        its notebook. Its hash and cell counts are taken when its first report comes, so
        an edit made while the run goes on does not pass for tested.
        """
        name = "/".join(Path(file).parts[-2:])
        if name not in self.notebooks:
            # A node id is relative to the root directory, or, for a file outside it
            # (a bare copy under /tmp while the sanitize file's pyproject.toml made the
            # repository the root), to the directory pytest was started in.
            found_in = [d / file for d in self.dirs if (d / file).exists()]
            path = found_in[0] if found_in else Path(file)
            found = path.exists()
            self.notebooks[name] = {
                "seconds": 0.0,
                "failed": set(),
                "sha256": status.notebook_hash(path) if found else "",
                **(status.cell_counts(path) if found else {}),
            }
        return self.notebooks[name]

    def results(self) -> dict[str, dict[str, Any]]:
        return {
            name: {
                "result": "failed" if entry["failed"] else "passed",
                "seconds": entry["seconds"],
                "failed_cells": len(entry["failed"]),
                "sha256": entry["sha256"],
                "cells": entry["cells"],
                "code_cells": entry["code_cells"],
            }
            for name, entry in self.notebooks.items()
            if entry["sha256"]
        }

    def run_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "versions": status.versions(),
            "machine": status.machine(),
            "env": {k: os.environ[k] for k in status.PASS_ENV if k in os.environ},
            "device": _device(),
        }
        if any(self.unit.values()):
            info["unit_tests"] = dict(self.unit)
        return info

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        results = self.results()
        if not results and not any(self.unit.values()):
            return
        data = status.load(self.path)
        status.record_pass(
            data, self.pass_id, results, root=self.root, run=self.run_info()
        )
        status.write(data, self.path)


def _device() -> str:
    """ "CPU", or the name of the GPU torch would have used."""
    try:
        import torch
    except ImportError:
        return "CPU"
    if torch.cuda.is_available():
        return f"GPU ({torch.cuda.get_device_name(0)})"
    return "CPU"


def pytest_configure(config: pytest.Config) -> None:
    target = os.environ.get("ICE_STATUS_FILE")
    if not target or hasattr(config, "workerinput"):  # not asked, or an xdist worker
        return
    path = Path(target)
    if not path.is_absolute():
        path = Path(config.invocation_params.dir) / path
    recorder = StatusRecorder(
        path,
        os.environ.get("ICE_STATUS_PASS", ""),
        config.rootpath,
        Path(config.invocation_params.dir),
    )
    config.pluginmanager.register(recorder, "ice-status-recorder")
