"""The built book in a real browser: Debian's Chromium driven by Playwright for Python.

Run with ``make test-browser`` (it builds or updates ``_build/html`` first). Not part of
``make test``: it needs Chromium (``apt-get install chromium``) and the ``browser``
extra.
Playwright never downloads a browser here: it launches ``/usr/bin/chromium`` (or
``$CHROMIUM``), and every request that leaves 127.0.0.1 is refused, so the test sees the
book as a reader without network does.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import CHROMIUM, CHROMIUM_ARGS, HTML, SCREENSHOTS


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # The browser drops connections it no longer needs (a page closed mid-load).
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    """The built HTML served on 127.0.0.1; yields the base URL."""
    if not (HTML / "index.html").exists():
        pytest.fail(
            f"no built book in {HTML}: run `make book` (make test-browser does)"
        )
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


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
