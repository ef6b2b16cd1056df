"""Markers for the unit suite, and the guard that keeps them honest.

``@pytest.mark.kernel`` marks a test that starts another process: a Jupyter kernel, a
notebook execution, a ``torchrun`` job, a ``run_isolated`` child, a child pytest, a
DataLoader worker or any other subprocess (in the test or in a fixture it uses).
``make test-unit`` leaves them out (``-m "not kernel"``) so that it runs in seconds;
``make test`` runs them all.

The guard, in runs that leave the marked tests out (``-m "not kernel"``): anything that
starts a process, a test or one of its fixtures, fails at once, naming the test and the
marker, so the fast suite cannot silently grow slow again.
"""

from __future__ import annotations

import multiprocessing.process
import subprocess

import pytest

# Lint fixtures: notebooks with the bugs `ice-lab lint` must find, read, never executed.
collect_ignore_glob = ["package/lint_cases/*.ipynb"]

_current = {"test": "a test of this run"}


def _refuse(*args, **kwargs):
    raise RuntimeError(
        f"{_current['test']} starts another process: mark it @pytest.mark.kernel "
        "(tests/conftest.py), so that `make test-unit` stays fast"
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    # After collection: importing a library may start a helper process once (ldconfig).
    if "not kernel" in (session.config.getoption("markexpr") or ""):
        # matplotlib builds its font cache on first import, on a fresh machine, by running
        # `fc-list`: let it happen here, before the guard, not inside the first plotting test.
        try:
            import matplotlib.font_manager  # noqa: F401
        except ImportError:
            pass
        # torch's CUDA bindings look for libdl with `ldconfig -p` on first import: a test
        # module that imports torch only inside a test (test_debugging_links) would be
        # blamed for it when it runs alone.
        import torch  # noqa: F401
        subprocess.Popen.__init__ = _refuse  # type: ignore[method-assign]
        multiprocessing.process.BaseProcess.start = _refuse  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _current["test"] = item.nodeid
