"""The built book in a real browser: Debian's Chromium driven by Playwright for Python.

Run with ``make test-browser`` (it builds or updates ``_build/html`` first). Not part of
``make test``: it needs Chromium (``apt-get install chromium``) and the ``browser``
extra.
Playwright never downloads a browser here: it launches ``/usr/bin/chromium`` (or
``$CHROMIUM``), and every request that leaves 127.0.0.1 is refused, so the test sees the
book as a reader without network does.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CHROMIUM, CHROMIUM_ARGS, HTML, SCREENSHOTS, serve


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    """The built HTML served on 127.0.0.1; yields the base URL."""
    if not (HTML / "index.html").exists():
        pytest.fail(
            f"no built book in {HTML}: run `make book` (make test-browser does)"
        )
    with serve(HTML) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install Debian's "
            "(apt-get install chromium) "
            "or point $CHROMIUM at one. Playwright's own browser download is not used."
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="pip install -e '.[browser]' (make venv does)"
    )
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
