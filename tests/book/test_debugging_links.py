"""Every link of the Debugging chapter and the capstone lab resolves.

The troubleshooting table of ``book/debugging.ipynb`` sends the reader to a chapter
section, a lab exercise and an ``ice_lab`` tool for each symptom. A link is a relative
Markdown link ``[text](../book/numerics.ipynb#some-heading)``: its file must exist in the
repository and be a page of ``_toc.yml``, and its ``#anchor`` must be the slug of a heading
of that page, computed as MyST computes it (``myst_heading_anchors``), so the link also
works in the built book. The check is ``ice_teach.chapters``, the one that resolves the
chapter references ice_lab prints (tests/book/test_chapter_refs.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ice_teach import chapters

ROOT = Path(__file__).resolve().parents[2]

PAGES = [Path("book/debugging.ipynb"), Path("labs/lab-capstone.ipynb")]
# A Markdown link or image target: ](target) — the target has no spaces.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def link_problem(target: str, page: Path) -> str | None:
    """Why a link from ``page`` does not resolve, or None when it does."""
    if re.match(r"^[a-z]+://", target) or target.startswith("mailto:"):
        return None  # external: not checked here
    file_part, _, anchor = target.partition("#")
    dest = (ROOT / page.parent / file_part).resolve() if file_part else ROOT / page
    try:
        rel = dest.relative_to(ROOT)
    except ValueError:
        return f"{target}: points outside the repository"
    problem = chapters.target_problem(rel, anchor)
    return f"{target}: {problem}" if problem else None


def links(page: Path) -> list[str]:
    return LINK.findall(chapters.markdown_of(page))


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
    text = chapters.markdown_of("book/debugging.ipynb")
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

