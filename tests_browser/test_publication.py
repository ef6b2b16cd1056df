"""The book as published: served from a sub-path, as GitHub Pages serves a project site
(https://<owner>.github.io/tensor-of-ice/), with the landing page's lab table and figure,
the status page and the stamp under every chapter's title, all built from data.

- Every link of every built page, resolved under /tensor-of-ice/, stays under it and
  names a file that exists (read from the HTML: fast, every page).
- In Chromium, under the sub-path: the root redirects to the landing page; the landing
  page, a chapter, a lab and the status page load with no failed request and no request
  outside the sub-path; searching works.
- The landing page: one row per lab of _toc.yml with the learner-time estimate and the
  minutes of reference/status.json,
  the figure with its alt text, the three ways in; at 390 px the table is stacked and
  nothing scrolls sideways.
- The stamp under the title of every executed page, and the status page, say what the
  committed data says (the GPU state included).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlparse

import pytest
import yaml
from helpers import DESKTOP, HTML, PHONE, ROOT, serve, toc_files

from ice_teach import exercises, notebooks
from ice_teach import status

PREFIX = "/tensor-of-ice/"
PAGES = toc_files()
NOTEBOOK_PAGES = [
    p for p in PAGES if p.startswith(("book/", "labs/")) and (ROOT / f"{p}.ipynb").exists()
]
LABS = [p for p in NOTEBOOK_PAGES if p.startswith("labs/")]
PARTS = {
    str(Path(c["file"]).with_suffix("")): part["caption"]
    for part in yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["parts"]
    for c in part["chapters"]
}
BROWSED = [PAGES[0], "book/numerics", "labs/lab-nan", "book/status"]


@pytest.fixture(scope="module")
def subpath_site() -> Iterator[str]:
    """_build/html served at http://127.0.0.1:<port>/tensor-of-ice/, nothing at /."""
    if not (HTML / "index.html").exists():
        pytest.fail(f"no built book in {HTML}: run `make book`")
    with tempfile.TemporaryDirectory(prefix="ice-pages-") as folder:
        (Path(folder) / PREFIX.strip("/")).symlink_to(HTML.resolve())
        with serve(Path(folder), PREFIX) as url:
            yield url


def _built(page: str) -> str:
    path = HTML / f"{page}.html"
    if not path.exists():
        pytest.fail(f"{path} not built: is the book built with this _toc.yml?")
    return path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- every link
class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for key in ("href", "src"):
            value = found.get(key)
            if value and not (tag == "a" and key == "src"):
                self.urls.append(value)


@pytest.mark.parametrize("page_name", PAGES + ["index", "search", "genindex"])
def test_every_link_resolves_under_the_sub_path(page_name: str) -> None:
    parser = _Links()
    parser.feed(_built(page_name))
    base = f"https://owner.github.io{PREFIX}{page_name}.html"
    broken = []
    for url in parser.urls:
        target = urlparse(urljoin(base, url))
        if target.scheme in ("mailto", "data", "javascript") or (
            target.netloc and target.netloc != "owner.github.io"
        ):
            continue
        if not target.path.startswith(PREFIX):
            broken.append(f"{url} leaves {PREFIX}")
            continue
        local = HTML / target.path[len(PREFIX) :]
        if target.path.endswith("/"):
            local = local / "index.html"
        if not local.exists():
            broken.append(f"{url} -> {target.path}: no such file")
    assert not broken, f"{page_name}: {len(broken)} broken link(s): {broken[:10]}"


# --------------------------------------------------------------------------- in the browser
class _Visit:
    def __init__(self, context: Any, base: str) -> None:
        self.base = base
        self.problems: list[str] = []
        self.page = context.new_page()
        self.page.route("**/*", self._route)
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))

    def _route(self, route: Any) -> None:
        url = route.request.url
        origin = self.base[: -len(PREFIX) + 1]
        if url.startswith(self.base) or url.startswith(("data:", "blob:")):
            route.continue_()
        elif url.startswith(origin):
            self.problems.append(f"request outside {PREFIX}: {url}")
            route.abort()
        else:
            route.abort()  # external hosts: test_book.py lists the ones allowed

    def _failed(self, request: Any) -> None:
        if request.url.startswith(self.base):
            self.problems.append(f"failed: {request.url} ({request.failure})")

    def _response(self, response: Any) -> None:
        if response.url.startswith(self.base) and response.status >= 400:
            self.problems.append(f"{response.status}: {response.url}")


@pytest.fixture(scope="module")
def desktop(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP)
    yield context
    context.close()


@pytest.fixture(scope="module")
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    yield context
    context.close()


def test_the_site_root_under_the_sub_path_opens_the_landing_page(
    subpath_site: str, desktop: Any
) -> None:
    visit = _Visit(desktop, subpath_site)
    try:
        visit.page.goto(subpath_site)
        visit.page.wait_for_url(f"**{PREFIX}{PAGES[0]}.html", timeout=10000)
        assert visit.page.locator("article h1").first.inner_text().startswith(
            "Tensor of Ice"
        )
    finally:
        visit.page.close()
    assert not visit.problems, visit.problems


@pytest.mark.parametrize("page_name", BROWSED)
def test_pages_load_under_the_sub_path(
    page_name: str, subpath_site: str, desktop: Any
) -> None:
    visit = _Visit(desktop, subpath_site)
    try:
        response = visit.page.goto(urljoin(subpath_site, f"{page_name}.html"))
        assert response is not None and response.ok, f"{page_name} did not load"
        visit.page.wait_for_load_state("load")
        visit.page.wait_for_timeout(150)
        # The book's own style sheet applied: the theme and _static/ were found.
        styled = visit.page.evaluate(
            "() => [...document.styleSheets].some(s => (s.href || '')"
            ".includes('_static/book.css') && s.cssRules.length > 0)"
        )
        assert styled, f"{page_name}: _static/book.css did not load under {PREFIX}"
        # A link of the navigation leads to a page under the prefix.
        link = visit.page.locator("nav.bd-links a.reference.internal").first
        link.click()
        visit.page.wait_for_load_state("load")
        assert urlparse(visit.page.url).path.startswith(PREFIX), visit.page.url
        assert visit.page.locator("article h1").first.is_visible()
    finally:
        visit.page.close()
    assert not visit.problems, f"{page_name}: {visit.problems}"


def test_search_works_under_the_sub_path(subpath_site: str, desktop: Any) -> None:
    visit = _Visit(desktop, subpath_site)
    try:
        visit.page.goto(urljoin(subpath_site, "search.html?q=NaN"))
        visit.page.locator("#search-results li").first.wait_for(timeout=15000)
        first = visit.page.locator("#search-results li a").first
        href = first.get_attribute("href") or ""
        target = urlparse(urljoin(visit.page.url, href)).path
        assert target.startswith(PREFIX), f"a search result leaves {PREFIX}: {href}"
    finally:
        visit.page.close()
    assert not visit.problems, visit.problems


# --------------------------------------------------------------------------- landing page
def _expected_minutes(lab: str) -> str:
    run = status.load()["notebooks"].get(f"{lab}.ipynb", {}).get("passes", {}).get("1")
    if run is None:
        return "not measured"
    return "under 1 min" if run["seconds"] < 60 else f"{run['seconds'] / 60:.0f} min"


def _expected_learner_time(lab: str) -> str:
    return f"about {exercises.learner_time(notebooks.read(ROOT / f'{lab}.ipynb')).minutes} min"


ROWS_JS = """() => [...document.querySelectorAll('table.ice-labs-table tbody tr')].map(
  tr => [...tr.querySelectorAll('td')].map(td => td.innerText.trim()))"""


def test_the_landing_page_has_every_lab_the_figure_and_three_ways_in(
    subpath_site: str, desktop: Any
) -> None:
    visit = _Visit(desktop, subpath_site)
    try:
        visit.page.goto(urljoin(subpath_site, f"{PAGES[0]}.html"))
        rows = visit.page.evaluate(ROWS_JS)
        hrefs = visit.page.eval_on_selector_all(
            "table.ice-labs-table tbody tr td:first-child a",
            "links => links.map(a => a.getAttribute('href'))",
        )
        figure = visit.page.locator("article figure.ice-figure img")
        alt = figure.get_attribute("alt") or ""
        figure_ok = figure.is_visible() and figure.evaluate("i => i.naturalWidth > 0")
        colab = visit.page.locator("article a[href*='colab.research.google.com']")
        teachers = visit.page.locator("article a[href$='teachers.html']")
        ways = (colab.count(), teachers.count())
    finally:
        visit.page.close()
    assert not visit.problems, visit.problems
    assert [Path(h).with_suffix("").name for h in hrefs] == [Path(p).name for p in LABS]
    for lab, cells in zip(LABS, rows):
        assert len(cells) == 7, f"{lab}: {cells}"
        assert cells[-1] == _expected_minutes(lab), f"{lab}: minutes {cells[-1]!r}"
        assert cells[-2] == _expected_learner_time(lab), f"{lab}: learner {cells[-2]!r}"
        assert re.fullmatch(r"\d+ · \d+ points", cells[4]), f"{lab}: {cells[4]!r}"
        assert cells[0].endswith(f"Part: {PARTS[lab]}"), f"{lab}: {cells[0]!r}"
    assert figure_ok and "nan" in alt and len(alt) > 80, f"figure: {alt!r}"
    assert all(ways), f"Colab links, teacher's guide links: {ways}"


def test_the_lab_table_is_stacked_on_a_phone(subpath_site: str, phone: Any) -> None:
    visit = _Visit(phone, subpath_site)
    try:
        visit.page.goto(urljoin(subpath_site, f"{PAGES[0]}.html"))
        widths = visit.page.evaluate(
            """() => {
              const t = document.querySelector('table.ice-labs-table');
              const box = t.closest('.pst-scrollable-table-container') || t;
              return {page: document.documentElement.scrollWidth, view: innerWidth,
                      box: box.scrollWidth, boxClient: box.clientWidth,
                      head: getComputedStyle(t.querySelector('thead')).display,
                      label: getComputedStyle(t.querySelector('.ice-label')).display};
            }"""
        )
        visit.page.locator("table.ice-labs-table").scroll_into_view_if_needed()
        visit.page.screenshot(path=str(HTML.parent / "landing-labs-390.png"))
    finally:
        visit.page.close()
    assert not visit.problems, visit.problems
    assert widths["page"] <= widths["view"], f"the page scrolls sideways: {widths}"
    assert widths["box"] <= widths["boxClient"] + 1, f"the table scrolls: {widths}"
    assert (widths["head"], widths["label"]) == ("none", "inline"), widths


# --------------------------------------------------------------------------- stamps, status
class _Stamp(HTMLParser):
    """The text of p.ice-stamp, its links, and whether an h1 came before it."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.after_h1 = False
        self.seen_h1 = False
        self.text = ""
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "h1":
            self.seen_h1 = True
        if tag == "p" and "ice-stamp" in (found.get("class") or "").split():
            self.inside, self.after_h1 = True, self.seen_h1
        elif tag == "a" and self.inside:
            self.links.append(found.get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.text += data


@pytest.mark.parametrize("page_name", NOTEBOOK_PAGES)
def test_every_chapter_and_lab_has_the_stamp(page_name: str) -> None:
    parser = _Stamp()
    parser.feed(_built(page_name))
    assert parser.text, f"{page_name}: no stamp"
    assert parser.after_h1, f"{page_name}: the stamp is not under the title"
    assert any(link.endswith("status.html") for link in parser.links), parser.links
    data = status.load()
    entry = data["notebooks"].get(f"{page_name}.ipynb")
    run = (entry or {}).get("passes", {}).get("1")
    if run:
        said = f"Executed with PyTorch {run['torch']} on {run['device']}, {run['date']}"
        assert parser.text.startswith(said), f"{page_name}: {parser.text!r}"
    else:
        assert parser.text.startswith("Not yet tested"), f"{page_name}: {parser.text!r}"
    gpu = status.gpu_verification()
    if gpu and f"{page_name}.ipynb" in gpu["notebooks_passed"]:
        assert f"GPU: verified {gpu['date']}" in parser.text
    else:
        assert "GPU: not yet verified" in parser.text


def test_the_status_page_says_what_the_data_says() -> None:
    text = re.sub(r"<[^>]+>", " ", _built("book/status"))
    text = re.sub(r"\s+", " ", text)
    for page in NOTEBOOK_PAGES:
        assert f'href="{Path(page).name}.html"' in _built("book/status") or (
            f'href="../{page}.html"' in _built("book/status")
        ), f"{page} not linked from the status page"
    gpu = status.gpu_verification()
    if gpu is None:
        assert "Never run on a GPU." in text
    else:
        assert f"Last run {gpu['date']} on {gpu['gpu']}" in text
    if status.compat() is None:
        assert "Not run: no result of make test-compat is committed." in text
    for run in status.load()["passes"].values():
        for name in ("python", "torch", "torchvision", "jupyter-book"):
            assert f" {name} {run['versions'][name]} " in text, f"{name} not shown"
