"""Markers for the unit suite, and the guard that keeps them honest.

``@pytest.mark.kernel`` marks a test that starts another process: a Jupyter kernel, a
notebook execution, a ``torchrun`` job, a ``run_isolated`` child, a child pytest or any
other subprocess. ``make test-unit`` leaves them out (``-m "not kernel"``) so that it runs
in seconds; ``make test`` runs them all.

The guard, in runs that leave the marked tests out (``-m "not kernel"``): a test without
the marker that starts a process fails at once, naming the marker, so the fast suite
cannot silently grow slow again.
"""

from __future__ import annotations

import multiprocessing.process
import subprocess

import pytest


@pytest.fixture(autouse=True)
def _children_need_the_kernel_marker(request: pytest.FixtureRequest, monkeypatch):
    unmarked_only = "not kernel" in (request.config.getoption("markexpr") or "")
    if not unmarked_only or request.node.get_closest_marker("kernel") is not None:
        yield
        return

    def refuse(*args, **kwargs):
        raise RuntimeError(
            f"{request.node.nodeid} starts another process: mark it @pytest.mark.kernel "
            "(tests/conftest.py), so that `make test-unit` stays fast"
        )

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refuse)
    yield
