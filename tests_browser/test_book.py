"""Every page of _toc.yml as a reader meets it: at 1280x900 and at 390x844 (a phone).

Per page: it loads; no local request fails; the console shows no error except requests
to the external hosts below (unreachable offline; the test refuses every request that
leaves 127.0.0.1); no code or output block is wider than the text column; axe-core finds
no critical or serious violation. At 1280x900 there is one search box and searching
"NaN" finds pages; at 390x844 the hamburger opens the navigation and a chapter link in
it works. On a lab page, every solution is a closed toggle labelled "Show solution" that
opens on click. Every figure has alt text that is not its file name (read from the built
HTML). Screenshots of the landing page, one chapter and one lab at both sizes go to
_build/screenshots/.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlparse

import pytest
from axe_playwright_python.sync_playwright import Axe
from helpers import DESKTOP, HTML, PHONE, source_of, toc_files

PAGES = toc_files()
SCREENSHOT_PAGES = {
    "landing": PAGES[0],
    "chapter": next(
        (p for p in ("book/numerics", "book/tensors") if p in PAGES),
        next(p for p in PAGES if p.startswith("book/")),
    ),
    "lab": next((p for p in ("labs/lab-nan",) if p in PAGES), None)
    or next((p for p in PAGES if p.startswith("labs/")), None),
}

CONTRAST_PAGES = {*SCREENSHOT_PAGES.values(), *(p for p in PAGES if p == "book/api")}

# Hosts the built pages load from when online. Offline (and in this test, which refuses
# every request that leaves 127.0.0.1) these requests fail; nothing else may.
EXTERNAL_HOSTS = {
    "cdn.jsdelivr.net": "MathJax 3 (Sphinx's math) and the Jupyter widget embedder",
    "cdnjs.cloudflare.com": "require.js, which the Jupyter widget embedder loads",
}

# axe rules that only the theme can fix, each naming its upstream report. Keep it short.
AXE_ALLOWED: dict[str, str] = {}

AXE_OPTIONS = {
    "resultTypes": ["violations"],
    # Off by default in axe-core 4.12 (experimental); the search, colour-mode and toggle
    # buttons failed it, so it stays on.
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}


class Visit:
    """One page load: the failed requests and console errors it produced."""

    def __init__(self, context: Any, base: str, size: dict[str, int]) -> None:
        self.base = base
        self.problems: list[str] = []
        self.recording = True
        self.page = context.new_page()
        self.page.set_viewport_size(size)
        self.page.route("**/*", self._route)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self._add(f"page error: {error}"))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)

    def _add(self, problem: str) -> None:
        if self.recording:
            self.problems.append(problem)

    def _local(self, url: str) -> bool:
        return url.startswith(self.base)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if self._local(url) or url.startswith(("data:", "blob:")):
            route.continue_()
            return
        if urlparse(url).hostname not in EXTERNAL_HOSTS:
            self._add(f"request to a host not in EXTERNAL_HOSTS: {url}")
        route.abort()

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        url = (message.location or {}).get("url", "")
        if (
            message.text.startswith("Failed to load resource")
            and urlparse(url).hostname in EXTERNAL_HOSTS
        ):
            return
        self._add(f"console error: {message.text} ({url})")

    def _failed(self, request: Any) -> None:
        if self._local(request.url):
            self._add(f"local request failed: {request.url} ({request.failure})")

    def _response(self, response: Any) -> None:
        if self._local(response.url) and response.status >= 400:
            self._add(f"local request {response.status}: {response.url}")

    def open(self, page_name: str) -> bool:
        response = self.page.goto(urljoin(self.base, f"{page_name}.html"))
        if response is None or not response.ok:
            status = response.status if response else "no response"
            self.problems[:] = [
                f"page did not load ({status}): is the book built with this _toc.yml?"
            ]
            return False
        self.page.wait_for_load_state("load")
        # Let deferred scripts (the theme's, the toggles') run and report.
        self.page.wait_for_timeout(150)
        return True

    def stop_recording(self) -> None:
        """axe re-fetches style sheets to read them, resolving @import against the
        wrong base (a 404 no reader's browser makes); what happens after this is not
        counted."""
        self.recording = False


OVERFLOW_JS = """() => {
  const article = document.querySelector('article.bd-article');
  if (!article) return ['no article element'];
  const column = article.getBoundingClientRect();
  const found = [];
  // Code and outputs must fit. A wide table in the prose may scroll sideways inside the
  // theme's scroll box, but the box itself must fit.
  const blocks = article.querySelectorAll('pre, div.highlight, div.cell_output, '
    + 'div.output, img, iframe, .pst-scrollable-table-container');
  for (const el of blocks) {
    if (!el.offsetParent) continue;                                  // not displayed
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    const scrolls = el.classList.contains('pst-scrollable-table-container');
    const wide = !scrolls && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0;
    const out = box.right > column.right + 1;
    if (wide || out) {
      const text = (el.innerText || el.getAttribute('src') || '')
        .trim().split('\\n')[0];
      found.push(`${el.tagName.toLowerCase()}.${el.className || ''}: scrollWidth `
        + `${el.scrollWidth} > clientWidth ${el.clientWidth}, right edge `
        + `${Math.round(box.right)} vs column ${Math.round(column.right)}: `
        + text.slice(0, 90));
    }
  }
  const page = document.documentElement;
  if (page.scrollWidth > window.innerWidth + 1)
    found.push(`the page scrolls sideways: ${page.scrollWidth} > ${window.innerWidth}`);
  return found;
}"""

# Open every toggle, then wait for myst-nb's 0.3 s fade-in: mid-fade text is pale, and
# axe would measure its contrast while it is.
OPEN_ALL_TOGGLES_JS = """async () => {
  document.querySelectorAll('article details').forEach(d => { d.open = true; });
  await new Promise(requestAnimationFrame);
  await Promise.all(document.getAnimations().map(a => a.finished));
}"""


def _overflow(visit: Visit, label: str) -> None:
    visit.page.evaluate(OPEN_ALL_TOGGLES_JS)
    for problem in visit.page.evaluate(OVERFLOW_JS):
        visit.problems.append(f"{label}: wider than the column: {problem}")


def _solution_cells(page_name: str) -> int:
    source = source_of(page_name)
    if source is None or source.suffix != ".ipynb":
        return 0
    cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
    return sum(
        1
        for cell in cells
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution")
        and {"hide-input", "hide-cell"} & set(cell.get("metadata", {}).get("tags", []))
    )


def _solution_toggles(visit: Visit, page_name: str) -> None:
    expected = _solution_cells(page_name)
    page = visit.page
    toggles = page.locator("article details.hide", has=page.locator("summary")).filter(
        has_text="Show solution"
    )
    count = toggles.count()
    if count != expected:
        visit.problems.append(
            f"{expected} solution cells in the notebook, {count} toggles labelled "
            "'Show solution' on the page"
        )
    for index in range(count):
        toggle = toggles.nth(index)
        if toggle.evaluate("d => d.open"):
            visit.problems.append(f"solution {index + 1} is open on load")
            continue
        toggle.locator("summary").click()
        opened = toggle.evaluate("d => d.open")
        code_visible = toggle.locator("pre").first.is_visible()
        if not (opened and code_visible):
            visit.problems.append(f"solution {index + 1} did not open on click")


def _axe(visit: Visit, page_name: str) -> None:
    """axe-core on the page with every toggle open.

    Contrast is axe's slowest rule (seconds a page: it measures every piece of text).
    Prose, code, links, admonitions and API signatures take their colours from the same
    style sheets on every page, so contrast is measured on all of the page only on
    CONTRAST_PAGES (the landing page, a chapter, a lab, the API page); on the others it
    is measured on the outputs, whose colours (ANSI, stderr) vary from page to page.
    Every other rule runs on every page.
    """
    visit.stop_recording()
    axe = Axe()
    if page_name in CONTRAST_PAGES:
        runs = [axe.run(visit.page, options=AXE_OPTIONS)]
    else:
        without_contrast = {
            **AXE_OPTIONS,
            "rules": {**AXE_OPTIONS["rules"], "color-contrast": {"enabled": False}},
        }
        runs = [axe.run(visit.page, options=without_contrast)]
        if visit.page.locator("article .cell_output").count():
            runs.append(
                axe.run(
                    visit.page,
                    context={"include": [["article .cell_output"]]},
                    options={
                        "resultTypes": ["violations"],
                        "runOnly": ["color-contrast"],
                    },
                )
            )
    violations = [v for run in runs for v in run.response["violations"]]
    for violation in violations:
        if violation["impact"] not in ("critical", "serious"):
            continue
        if violation["id"] in AXE_ALLOWED:
            continue
        targets = [node["target"] for node in violation["nodes"][:3]]
        visit.problems.append(
            f"axe {violation['impact']} {violation['id']} ({len(violation['nodes'])} "
            f"nodes, e.g. {targets}): {violation['help']}"
        )


def _search(visit: Visit) -> None:
    page = visit.page
    boxes = page.locator(
        "button.search-button-field, input[type=search], input[name=q]"
    ).filter(visible=True)
    if boxes.count() != 1:
        visit.problems.append(f"{boxes.count()} search boxes visible, expected 1")
        return
    header = page.evaluate(
        "() => { const h = document.querySelector('.bd-header');"
        " return h ? h.getBoundingClientRect().height : 0; }"
    )
    if header > 0:
        visit.problems.append(f"an empty header band {header:.0f} px high")
    boxes.first.click()
    field = page.locator("#pst-search-dialog input[name=q]")
    field.wait_for(state="visible", timeout=5000)
    field.fill("NaN")
    field.press("Enter")
    page.wait_for_url("**/search.html?q=NaN*", timeout=10000)
    results = page.locator("#search-results li")
    try:
        results.first.wait_for(timeout=15000)
    except Exception:  # noqa: BLE001 - reported as a finding
        visit.problems.append("searching 'NaN' found nothing")


def _hamburger(visit: Visit, page_name: str, folder: Path) -> None:
    page = visit.page
    toggles = page.locator("button.primary-toggle").filter(visible=True)
    if toggles.count() != 1:
        visit.problems.append(
            f"{toggles.count()} visible navigation buttons, expected 1"
        )
        return
    toggles.first.click()
    links = page.locator("#pst-primary-sidebar-modal[open] a.reference.internal")
    try:
        links.first.wait_for(state="visible", timeout=5000)
    except Exception:  # noqa: BLE001 - reported as a finding
        visit.problems.append("the hamburger did not open the navigation")
        return
    if page_name == SCREENSHOT_PAGES["landing"]:
        page.wait_for_timeout(300)  # the sidebar slides in
        page.screenshot(path=str(folder / "landing-390x844-navigation.png"))
    here = urlparse(page.url).path
    for index in range(links.count()):
        link = links.nth(index)
        target = urljoin(page.url, link.get_attribute("href") or "")
        if urlparse(target).path != here and link.is_visible():
            link.click()
            page.wait_for_load_state("load")
            if urlparse(page.url).path != urlparse(target).path:
                visit.problems.append(f"chapter link went to {page.url}, not {target}")
            elif not page.locator("article h1").first.is_visible():
                visit.problems.append(f"chapter link {target} shows no heading")
            return
    visit.problems.append("no link to another page in the navigation")


def _screenshot(
    visit: Visit, page_name: str, size: dict[str, int], folder: Path
) -> None:
    for label, name in SCREENSHOT_PAGES.items():
        if name == page_name:
            visit.page.evaluate("() => window.scrollTo(0, 0)")
            path = folder / f"{label}-{size['width']}x{size['height']}.png"
            visit.page.screenshot(path=str(path))


@pytest.fixture(scope="module")
def desktop(browser: Any) -> Any:
    context = browser.new_context(viewport=DESKTOP)
    yield context
    context.close()


@pytest.fixture(scope="module")
def phone(browser: Any) -> Any:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    yield context
    context.close()


def _report(page_name: str, size: dict[str, int], problems: list[str]) -> None:
    if problems:
        listing = "\n  ".join(problems)
        pytest.fail(
            f"{page_name} at {size['width']}x{size['height']}:\n  {listing}",
            pytrace=False,
        )


@pytest.mark.parametrize("page_name", PAGES)
def test_page_desktop(
    page_name: str, site: str, desktop: Any, screenshots: Path
) -> None:
    visit = Visit(desktop, site, DESKTOP)
    try:
        if visit.open(page_name):
            _screenshot(visit, page_name, DESKTOP, screenshots)
            _desktop_checks(visit, page_name)
    finally:
        visit.page.close()
    _report(page_name, DESKTOP, visit.problems)


def _desktop_checks(visit: Visit, page_name: str) -> None:
    if page_name.startswith("labs/"):
        _solution_toggles(visit, page_name)
    _overflow(visit, "1280x900")
    _axe(visit, page_name)
    _search(visit)  # last: it leaves the page


@pytest.mark.parametrize("page_name", PAGES)
def test_page_phone(page_name: str, site: str, phone: Any, screenshots: Path) -> None:
    visit = Visit(phone, site, PHONE)
    try:
        if visit.open(page_name):
            _screenshot(visit, page_name, PHONE, screenshots)
            _overflow(visit, "390x844")
            visit.page.evaluate("() => window.scrollTo(0, 0)")
            _hamburger(visit, page_name, screenshots)
    finally:
        visit.page.close()
    _report(page_name, PHONE, visit.problems)


class _Images(HTMLParser):
    """The <img> tags inside the page's <article>."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.images: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "article":
            self.depth += 1
        elif tag == "img" and self.depth:
            self.images.append(dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self.depth:
            self.depth -= 1


@pytest.mark.parametrize("page_name", PAGES)
def test_figures_say_what_they_show(page_name: str) -> None:
    """Every figure's alt text describes it; myst-nb's default alt is the image's path.

    A notebook sets it in the cell's metadata: {"mystnb": {"image": {"alt": "..."}}}.
    """
    path = HTML / f"{page_name}.html"
    if not path.exists():
        pytest.fail(f"{path} not built: is the book built with this _toc.yml?")
    parser = _Images()
    parser.feed(path.read_text(encoding="utf-8"))
    bad = [
        image.get("src") or "?"
        for image in parser.images
        if not (image.get("alt") or "").strip()
        or image.get("alt") == image.get("src")
        or re.search(r"\.(png|jpe?g|svg|gif)$", image.get("alt") or "")
    ]
    assert not bad, f"{page_name}: {len(bad)} figure(s) without alt text: {bad}"
