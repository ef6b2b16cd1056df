"""The chapter references ice_lab prints, and the one check that they resolve.

``ice_lab`` points the learner to the section that teaches a thing in one format,
``"book/<page>.ipynb#<anchor>"``: the explain catalogue (``Entry.chapter``), the lint
rules (``Rule.chapter``) and ``ice_lab.preflight.CHAPTERS``. The page is a notebook of
``_toc.yml``; the anchor is the slug MyST gives one of its headings
(``myst_heading_anchors``, GitHub's slug), so a reference is also a Markdown link, and
``_ext/book_site.py`` makes every slug an anchor of the built HTML page too.

    from ice_teach import chapters
    chapters.problems("book/training.ipynb#train-and-eval")   # [] when it resolves
    chapters.headings("book/training.ipynb")                  # [(title, anchor), ...]

``tests/book/test_chapter_refs.py`` resolves every reference of the three sources;
``tests/book/test_debugging_links.py`` checks the Debugging chapter's links with it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt

from ice_teach import notebooks

__all__ = ["REF", "slugify", "markdown_of", "anchor_depth", "anchors_of", "headings",
           "target_problem", "problems"]

#: The one format: a notebook of book/ or labs/, then ``#`` and a heading's anchor.
REF = re.compile(r"(?P<page>(?:book|labs)/[a-z0-9_-]+\.ipynb)#(?P<anchor>[\w-]+)")
_SLUG_DROP = re.compile(r"[^\w\u4e00-\u9fff\- ]")


def slugify(title: str) -> str:
    """MyST's default heading slug (GitHub's): lower case, spaces to '-', punctuation
    out."""
    return _SLUG_DROP.sub("", title.lower().replace(" ", "-"))


def markdown_of(page: str | Path) -> str:
    """The Markdown text of a page (path from the repository root): a ``.md`` file, or a
    notebook's Markdown cells in order."""
    full = notebooks.ROOT / page
    if full.suffix == ".ipynb":
        nb = nbformat.read(full, as_version=4)
        return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return full.read_text(encoding="utf-8")


def anchor_depth() -> int:
    """The deepest heading level that gets an anchor (``myst_heading_anchors`` in
    ``_config.yml``; MyST gives deeper headings none)."""
    config = notebooks.book_config().get("sphinx", {}).get("config", {})
    return int(config.get("myst_heading_anchors", 0))


def anchors_of(markdown: str, depth: int | None = None) -> list[tuple[str, str]]:
    """``(title, anchor)`` of every heading of ``markdown`` that MyST gives an anchor
    (levels up to ``depth``, default :func:`anchor_depth`), in order, as MyST computes
    them: the title's text and code, slugified; a repeat gets ``-1``, then ``-2``
    appended to that (``provoke``, ``provoke-1``, ``provoke-1-2``), as MyST's
    ``compute_unique_slug`` does."""
    depth = anchor_depth() if depth is None else depth
    tokens = MarkdownIt("commonmark").parse(markdown)
    found: list[tuple[str, str]] = []
    taken: set[str] = set()
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or int(token.tag[1:]) > depth:
            continue
        title = "".join(
            child.content
            for child in tokens[i + 1].children or []
            if child.type in ("text", "code_inline")
        )
        slug, n = slugify(title), 1
        while slug in taken:
            slug, n = f"{slug}-{n}", n + 1
        taken.add(slug)
        found.append((title, slug))
    return found


@lru_cache(maxsize=None)
def _headings(page: str) -> tuple[tuple[str, str], ...]:
    return tuple(anchors_of(markdown_of(page)))


def headings(page: str | Path) -> list[tuple[str, str]]:
    """Every heading of a page (path from the repository root, with its suffix) as
    ``(title, anchor)``, in order, anchors as MyST computes them."""
    return list(_headings(Path(page).as_posix()))


def target_problem(page: str | Path, anchor: str = "") -> str | None:
    """Why ``page`` (from the repository root, with its suffix) and ``anchor`` (may be
    empty) do not name a page of ``_toc.yml`` and one of its headings, or None."""
    page = Path(page).as_posix()
    if not (notebooks.ROOT / page).is_file():
        return f"no file {page}"
    stem, suffix = page.rsplit(".", 1) if "." in page else (page, "")
    if suffix not in ("ipynb", "md"):
        return f"{page} is not a page" if anchor else None
    if stem not in notebooks.toc_files():
        return f"{page} is not a page of _toc.yml"
    if anchor and anchor not in {a for _, a in _headings(page)}:
        return f"{page} has no heading whose anchor is #{anchor}"
    return None


def problems(ref: str) -> list[str]:
    """What is wrong with a chapter reference (empty when it resolves): its format
    (``"book/<page>.ipynb#<anchor>"``), its page (a notebook of ``_toc.yml``) and its
    anchor (a heading of that page)."""
    match = REF.fullmatch(ref)
    if not match:
        return [f"{ref!r} is not 'book/<page>.ipynb#<heading-anchor>'"]
    problem = target_problem(match["page"], match["anchor"])
    return [f"{ref}: {problem}"] if problem else []
