"""The book's "Explain an error" page (book/explain-online.md) in Chromium.

Pyodide and the ice_lab.explain source load from the built book itself (127.0.0.1; every
other request is refused). Once the page says it is ready, the network is cut off
(``context.set_offline(True)``) and real messages of different kinds, pasted into public
issues (tests/support/explain_realworld*.py), are explained: the kind and the chapter
link shown must be what ``ice_lab.explain`` says in this Python. A torchrun log is pasted
too: the page names rank 1's root cause. A screenshot at phone width joins the others in
_build/screenshots/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from helpers import DESKTOP, PHONE

# tests/support/, on pyproject's pytest pythonpath
from explain_realworld_wrapped import MESSAGES

from ice_lab import explain

PAGE = "book/explain-online.html"
SOURCES = (  # four kinds, four chapters
    "https://github.com/Comfy-Org/ComfyUI/issues/11262",  # shape_mismatch, in a UI's log
    "https://github.com/EleutherAI/lm-evaluation-harness/issues/1131",  # device_mismatch, mps
    "https://github.com/IDSIA/hhmarl_2D/issues/15",  # nonfinite, torch.distributions
    "https://github.com/kijai/ComfyUI-WanVideoWrapper/issues/1666",  # broadcast, dynamo
)
TORCHRUN_LOG = (
    "[rank1]: Traceback (most recent call last):\n"
    '[rank1]:   File "train.py", line 9, in <module>\n'
    "[rank1]:     y = layer(x)\n"
    "[rank1]: RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x5 and 4x2)\n"
    "[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "train.py", line 10, in <module>\n'
    "[rank0]:     dist.all_reduce(y)\n"
    "[rank0]: RuntimeError: Connection closed by peer [127.0.0.1]:60068.\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    + "=" * 60 + "\nRoot Cause (first observed failure):\n[0]:\n"
    "  rank      : 1 (local_rank: 1)\n" + "=" * 60 + "\n"
)


def _open(context: Any, site: str) -> tuple[Any, list[str]]:
    problems: list[str] = []
    page = context.new_page()

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if url.startswith((site, "data:", "blob:")):
            request_route.continue_()
        else:
            problems.append(f"request that leaves the book: {url}")
            request_route.abort()

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.goto(urljoin(site, PAGE))
    page.wait_for_function(
        "document.getElementById('explain-online').dataset.ready !== undefined",
        timeout=120_000)
    ready = page.get_attribute("#explain-online", "data-ready")
    assert ready == "true", page.inner_text("#explain-status")
    return page, problems


def _explain_in_page(page: Any, text: str) -> tuple[str, str, str]:
    page.fill("#explain-input", text)
    page.click("#explain-button")
    page.wait_for_function("document.getElementById('explain-status').textContent"
                           " === 'Explained.'")
    kind = page.inner_text("#explain-result .explain-kind")
    link = page.locator("#explain-result a.explain-chapter")
    text_shown = page.inner_text("#explain-result")
    page.evaluate("document.getElementById('explain-status').textContent = ''")
    return kind, link.get_attribute("href"), text_shown


@pytest.fixture(scope="module")
def offline_page(browser: Any, site: str) -> Any:
    context = browser.new_context(viewport=DESKTOP)
    page, problems = _open(context, site)
    assert not problems, problems
    context.set_offline(True)
    yield page
    context.close()


@pytest.mark.parametrize("source", SOURCES)
def test_real_messages_offline(offline_page: Any, site: str, source: str) -> None:
    message = next(m for m in MESSAGES if m.source == source)
    here = explain(message.message)
    assert here.kind == message.kind  # what this Python says
    kind, href, shown = _explain_in_page(offline_page, message.message)
    assert kind == f"[{message.kind}]"
    page, _, anchor = here.chapter.partition("#")  # book/<page>.ipynb#<anchor>
    assert href == urljoin(site, f"{page.removesuffix('.ipynb')}.html#{anchor}")
    assert here.summary in shown and here.fixes[0] in shown


def test_a_torchrun_log_names_the_failing_rank(offline_page: Any) -> None:
    kind, href, shown = _explain_in_page(offline_page, TORCHRUN_LOG)
    assert kind == "[shape_mismatch]" and "book/tensors.html#" in href
    assert "rank 1, the root cause torchrun reports" in shown


def test_phone_width(browser: Any, site: str, screenshots: Path) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page, problems = _open(context, site)
        context.set_offline(True)
        message = next(m for m in MESSAGES if m.source == SOURCES[1])
        kind, _, _ = _explain_in_page(page, message.message)
        assert kind == "[device_mismatch]" and not problems, problems
        width = page.evaluate("document.getElementById('explain-online').scrollWidth")
        assert width <= PHONE["width"], f"the form is {width}px wide at {PHONE['width']}px"
        page.locator("#explain-online").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / f"explain-online-{PHONE['width']}x"
                                                f"{PHONE['height']}.png"))
    finally:
        context.close()
