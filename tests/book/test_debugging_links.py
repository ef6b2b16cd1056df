"""Every link of the Debugging chapter and the capstone lab resolves.

The troubleshooting table of ``book/debugging.ipynb`` sends the reader to a chapter
section, a lab exercise and an ``ice_lab`` tool for each symptom. A link is a relative
Markdown link ``[text](../book/numerics.ipynb#some-heading)``: its file must exist in the
repository and be a page of ``_toc.yml``, and its ``#anchor`` must be the slug of a heading
of that page, computed as MyST computes it (``myst_heading_anchors``), so the link also
works in the built book. ``ice_lab.preflight``'s chapter pointers are checked the same way.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from ice_teach import notebooks

ROOT = Path(__file__).resolve().parents[2]

PAGES = [Path("book/debugging.ipynb"), Path("labs/lab-capstone.ipynb")]
# A Markdown link or image target: ](target) — the target has no spaces.
LINK = re.compile(r"\]\(([^)\s]+)\)")
_SLUG_DROP = re.compile(r"[^\w\u4e00-\u9fff\- ]")


def slugify(title: str) -> str:
    """MyST's default heading slug (GitHub's): lower case, spaces to '-', punctuation out."""
    return _SLUG_DROP.sub("", title.lower().replace(" ", "-"))


def markdown_of(path: Path) -> str:
    """The Markdown text of a page: a .md file, or a notebook's Markdown cells in order."""
    full = ROOT / path
    if full.suffix == ".ipynb":
        nb = nbformat.read(full, as_version=4)
        return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return full.read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def heading_slugs(path: Path) -> frozenset[str]:
    """The anchors MyST gives the headings of a page (repeats get -1, -2, ...)."""
    tokens = MarkdownIt("commonmark").parse(markdown_of(path))
    slugs: list[str] = []
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[i + 1]
        title = "".join(
            child.content
            for child in inline.children or []
            if child.type in ("text", "code_inline")
        )
        slug, n = slugify(title), 1
        while slug in slugs:
            slug, n = f"{slugify(title)}-{n}", n + 1
        slugs.append(slug)
    return frozenset(slugs)


def toc_pages() -> set[str]:
    return set(notebooks.toc_files())


def link_problem(target: str, page: Path) -> str | None:
    """Why a link from ``page`` does not resolve, or None when it does."""
    if re.match(r"^[a-z]+://", target) or target.startswith("mailto:"):
        return None  # external: not checked here
    file_part, _, anchor = target.partition("#")
    dest = (ROOT / page.parent / file_part).resolve() if file_part else ROOT / page
    if not dest.exists():
        return f"{target}: no file {file_part}"
    try:
        rel = dest.relative_to(ROOT)
    except ValueError:
        return f"{target}: points outside the repository"
    if rel.suffix in (".ipynb", ".md"):
        if str(rel.with_suffix("")) not in toc_pages():
            return f"{target}: {rel} is not a page of _toc.yml"
        if anchor and anchor not in heading_slugs(rel):
            return f"{target}: {rel} has no heading whose anchor is #{anchor}"
    elif anchor:
        return f"{target}: an #anchor into a file that is not a page"
    return None


def links(page: Path) -> list[str]:
    return LINK.findall(markdown_of(page))


def test_slugs_match_myst():
    myst = pytest.importorskip("myst_parser.mdit_to_docutils.base")
    for title in ["The `squeeze` trap", "3. Device-side asserts: a bad index on the GPU",
                  "`nn.ModuleList`, not a Python list", "Train and eval: `eval()`"]:
        assert slugify(title) == myst.default_slugify(title)


def test_anchor_check_catches_a_broken_link():
    assert link_problem("../book/nonfinite.ipynb#finding-the-source", Path("book/x.ipynb")) is None
    assert link_problem("../book/numerics.ipynb#no-such-heading", Path("book/x.ipynb"))
    assert link_problem("../book/no-such-page.ipynb", Path("book/x.ipynb"))
    assert link_problem("numerics.ipynb", Path("book/x.ipynb")) is None


@pytest.mark.parametrize("page", PAGES, ids=[str(p) for p in PAGES])
def test_every_link_resolves(page):
    assert (ROOT / page).exists(), f"{page} is missing"
    found = links(page)
    assert found, f"{page} has no links"
    problems = [p for p in (link_problem(t, page) for t in found) if p]
    assert not problems, f"{page}:\n" + "\n".join(problems)


def troubleshooting_rows() -> list[str]:
    text = markdown_of(Path("book/debugging.ipynb"))
    start = text.index("| Symptom")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_troubleshooting_table_links_every_row():
    rows = troubleshooting_rows()
    assert len(rows) >= 10, f"the troubleshooting table has {len(rows)} rows, expected 10"
    for row in rows:
        targets = LINK.findall(row)
        chapters = [t for t in targets if t.startswith("../book/") and "#" in t]
        labs = [t for t in targets if t.startswith("../labs/") and "#" in t]
        assert chapters and labs, f"row without a chapter section and a lab exercise: {row}"
        assert "`" in row.split("|")[-2], f"row without an ice_lab tool: {row}"


def test_explain_kinds_in_the_table_exist():
    from ice_lab.explainer import KINDS

    for row in troubleshooting_rows():
        kind_cell = row.split("|")[-3]
        for kind in re.findall(r"`([a-z_]+)`", kind_cell):
            assert kind in KINDS, f"explain has no kind {kind!r} (row: {row})"


def test_preflight_pointers_resolve():
    from ice_lab.preflight import CHAPTERS

    for check, pointer in CHAPTERS.items():
        problem = link_problem(pointer, Path("x.md"))
        assert problem is None, f"preflight check {check}: {problem}"
