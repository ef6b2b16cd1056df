"""Every chapter reference ice_lab prints resolves: one format, one checker.

explain's catalogue entries (``Entry.chapter``, printed as "Read: ..."), the lint rules
(``Rule.chapter``, "(see ...)") and preflight's ``CHAPTERS`` ("(read: ...)") point to the
section that teaches a failure, each as ``"book/<page>.ipynb#<heading-anchor>"``.
``ice_teach.chapters.problems`` checks the format, that the page is a page of _toc.yml,
and that the anchor is the MyST slug of one of its headings, so the reference is also a
working link into the built book (``_ext/book_site.py`` makes every slug an HTML anchor).
"""

from __future__ import annotations

import pytest

from ice_lab.explainer import CATALOGUE, explain
from ice_lab.lint import RULES
from ice_lab.preflight import CHAPTERS
from ice_teach import chapters

REFERENCES = (
    [(f"explain entry {e.name}", e.chapter) for e in CATALOGUE]
    + [(f"lint rule {code}", rule.chapter) for code, rule in RULES.items()]
    + [(f"preflight check {check}", ref) for check, ref in CHAPTERS.items()]
)


@pytest.mark.parametrize("where, ref", REFERENCES, ids=[w for w, _ in REFERENCES])
def test_every_reference_resolves(where: str, ref: str) -> None:
    assert chapters.problems(ref) == [], f"{where}: {chapters.problems(ref)}"


def test_the_unknown_answer_points_to_a_section() -> None:
    ref = explain("nothing like this").chapter
    assert chapters.problems(ref) == [], chapters.problems(ref)


def test_the_checker_refuses_what_does_not_resolve() -> None:
    assert chapters.problems("book/training.ipynb#train-and-eval") == []
    wrong = {
        "book/training.ipynb#train-and-evaluation": "has no heading whose anchor",
        "book/no-such-page.ipynb#summary": "no file book/no-such-page.ipynb",
        "book/training, 'train() and eval()'": "is not 'book/<page>.ipynb#<heading-anchor>'",
        "book/training": "is not 'book/<page>.ipynb#<heading-anchor>'",
        "book/training.ipynb": "is not 'book/<page>.ipynb#<heading-anchor>'",
    }
    for ref, why in wrong.items():
        found = chapters.problems(ref)
        assert len(found) == 1 and why in found[0], (ref, found)


def test_slugs_match_myst() -> None:
    myst = pytest.importorskip("myst_parser.mdit_to_docutils.base")
    for title in ["The `squeeze` trap", "3. Device-side asserts: a bad index on the GPU",
                  "`nn.ModuleList`, not a Python list", "Train and eval: `eval()`",
                  "The broadcasting trap: `(N, 1) - (N,)` is `(N, N)`"]:
        assert chapters.slugify(title) == myst.default_slugify(title)


def test_anchors_are_the_ones_myst_makes() -> None:
    # MyST's own parser on headings that repeat (a lab's "Provoke", "Fix", ...), carry code
    # and punctuation, and lie deeper than myst_heading_anchors (no anchor).
    docutils_core = pytest.importorskip("docutils.core")
    myst = pytest.importorskip("myst_parser.parsers.docutils_")
    text = ("# Lab\n\n## 1.1 Provoke\n\n## Provoke\n\n### Provoke\n\n#### Provoke\n\n"
            "## The `squeeze` trap: (N, 1) - (N,)\n\n##### Too deep\n\n## `model.eval()`\n")
    doc = docutils_core.publish_doctree(text, parser=myst.Parser(), settings_overrides={
        "myst_heading_anchors": chapters.anchor_depth(), "report_level": 5})
    assert [a for _, a in chapters.anchors_of(text)] == list(doc.myst_slugs)
    assert "provoke-1-2" in doc.myst_slugs
