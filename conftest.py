"""pytest configuration shared by the unit tests and nbval.

nbval compares every output a cell makes; stderr is not compared (warnings, progress
bars and library chatter go there and vary between machines)."""


def pytest_collectstart(collector):
    if collector.fspath and collector.fspath.ext == ".ipynb":
        collector.skip_compare += ("stderr", "application/javascript")
