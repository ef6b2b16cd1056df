"""pytest configuration shared by the unit tests and nbval.

nbval compares every output a cell makes; stderr is not compared (warnings, progress
bars and library chatter go there and vary between machines). Every notebook cell runs
in a kernel, so nbval's items carry the ``kernel`` marker (see ``tests/conftest.py``)."""

import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "kernel: starts another process (a kernel, a notebook, torchrun, a "
        "child Python); left out of `make test-unit`")


def pytest_collectstart(collector):
    if collector.fspath and collector.fspath.ext == ".ipynb":
        collector.skip_compare += ("stderr", "application/javascript")


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.fspath and item.fspath.ext == ".ipynb":
            item.add_marker(pytest.mark.kernel)
