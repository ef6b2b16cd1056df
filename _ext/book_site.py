"""Sphinx extension for the book's HTML: how readers meet the notebooks in a browser.

- A lab's solution cell (nbgrader ``solution: true``, tagged ``hide-input``) opens with
  "Show solution" instead of myst-nb's "Show code cell source".
- The setup cell that comes before a notebook's title is shown under the title, so the
  page starts with its title and not with a toggle.
- A toggle's accessible name is its visible label (myst-nb's ``<summary>`` carried
  ``aria-label="Toggle hidden content"``, which screen readers announce instead of the
  label sighted readers see: axe's ``label-content-name-mismatch``).
- A script the page would include twice is included once (sphinx-thebe 0.3.1 adds its
  inline configuration twice, so every page logged ``Identifier 'THEBE_JS_URL' has
  already been declared``).
- Every page gets a ``<meta name="description">``: its first paragraph of text, or the
  book's description (``book_description``) for pages without one.
- A dataclass field with a ``default_factory`` shows its default as the value it makes
  (``gpus=[]``), not as autodoc's ``gpus=<factory>``.
- A heading repeated on a page (a lab's "Provoke", "Fix", ... in every exercise) gets an
  anchor that says where it is, ``#exercise-2-...-provoke``, instead of docutils'
  ``#id1``; the old anchor stays valid.
- A heading's MyST slug (``myst_heading_anchors``) is an anchor of its section too, so
  ``book/devices.html#2-device-mismatch-provoked-for-real`` lands where the Markdown link
  ``devices.ipynb#2-device-mismatch-provoked-for-real`` does: the chapter references
  ``ice_lab`` prints (explain's "Read:" link, lint, preflight; ``ice_teach/chapters.py``)
  are slugs, and docutils' own id differs from the slug for many titles
  (``#device-mismatch-provoked-for-real``).
"""

from __future__ import annotations

import dataclasses
import re
from html import escape
from typing import Any

from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

DESCRIPTION_CHARS = 160


def _is_code_cell(node: nodes.Node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def _is_solution(cell: nodes.Element) -> bool:
    nbgrader = (cell.get("cell_metadata") or {}).get("nbgrader") or {}
    return bool(nbgrader.get("solution"))


class LabelHiddenCells(SphinxPostTransform):
    """Name hidden solution cells, and put a setup cell under the page title.

    Runs before myst-nb's HideInputCells (priority 199), which wraps hidden cells in a
    toggle labelled with the cell's ``prompt_show`` / ``prompt_hide``.
    """

    default_priority = 150
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for cell in self.document.findall(_is_code_cell):
            if cell.get("hide_mode") and _is_solution(cell):
                cell["prompt_show"] = "Show solution"
                cell["prompt_hide"] = "Hide solution"
        self._move_cells_under_title()

    def _move_cells_under_title(self) -> None:
        children = list(self.document.children)
        section = next((c for c in children if isinstance(c, nodes.section)), None)
        if section is None:
            return
        before = [c for c in children[: children.index(section)] if _is_code_cell(c)]
        if not before:
            return
        title_at = next(
            (i for i, c in enumerate(section.children) if isinstance(c, nodes.title)),
            -1,
        )
        for offset, cell in enumerate(before):
            self.document.remove(cell)
            section.insert(title_at + 1 + offset, cell)
            if cell.get("hide_mode"):
                cell["prompt_show"] = "Show setup cell"
                cell["prompt_hide"] = "Hide setup cell"


class NameRepeatedHeadings(SphinxTransform):
    """Give sections that docutils could only number (``id1``, ``id2``...) an id made of
    the enclosing section's id and their own title. Runs while the document is read,
    before Sphinx's doctree-read event (a transform of priority 880) builds the page's
    table of contents, so the contents link to the new ids."""

    default_priority = 850

    def apply(self, **kwargs: Any) -> None:
        for section in self.document.findall(nodes.section):
            ids = section["ids"]
            parent = section.parent
            if not ids or not re.fullmatch(r"id\d+", ids[0]):
                continue
            if not isinstance(parent, nodes.section) or not parent["ids"]:
                continue
            title = section.next_node(nodes.title)
            if title is None:
                continue
            new = nodes.make_id(f"{parent['ids'][0]}-{title.astext()}")
            if not new or new in self.document.ids:
                continue
            ids.insert(0, new)  # first id: the anchor links use; id1 still works
            self.document.ids[new] = section


class SlugAnchors(SphinxTransform):
    """Add each section's MyST heading slug to its ids (after docutils' own, which stays
    the first: the table of contents and Markdown links keep using it), unless the page
    already has that id. The HTML writer makes every further id an empty anchor."""

    default_priority = 851  # after NameRepeatedHeadings, before the table of contents

    def apply(self, **kwargs: Any) -> None:
        for section in self.document.findall(nodes.section):
            slug = section.get("slug")
            if not slug or slug in self.document.ids:
                continue
            section["ids"].append(slug)
            self.document.ids[slug] = section


def visit_hidden_cell(self: Any, node: HideCodeCellNode) -> None:
    """myst-nb's toggle markup, without an aria-label that hides the visible label."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(
        f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n'
    )
    self.body.append(
        f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n'
    )
    self.body.append("</summary>\n")


def _first_paragraph(doctree: nodes.document) -> str:
    """The text of the page's first paragraph of prose (not code, not an output)."""
    for paragraph in doctree.findall(nodes.paragraph):
        parent = paragraph.parent
        inside_cell = False
        while parent is not None:
            if isinstance(parent, nodes.container) and parent.get("nb_element"):
                inside_cell = str(parent.get("nb_element")).startswith("cell_code")
                if inside_cell:
                    break
            parent = parent.parent
        text = re.sub(r"\s+", " ", paragraph.astext()).strip()
        if not inside_cell and len(text) >= 40:
            return text
    return ""


def _shorten(text: str, limit: int = DESCRIPTION_CHARS) -> str:
    """At most ``limit`` characters: whole sentences if they fill half of it, else
    whole words and an ellipsis."""
    if len(text) <= limit:
        return text
    sentences = text[:limit].rsplit(". ", 1)[0] + "."
    if len(sentences) >= limit // 2 and ". " in text[: limit + 1]:
        return sentences
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return cut + "…"


def add_page_details(
    app: Sphinx,
    pagename: str,
    templatename: str,
    context: dict[str, Any],
    doctree: nodes.document | None,
) -> None:
    scripts = context.get("script_files")
    if isinstance(scripts, list):
        # The same inline script can come twice, once with filename None and once with
        # "" (and possibly different priorities); keep the first.
        seen: set[tuple[Any, ...]] = set()
        unique = []
        for script in scripts:
            attributes = getattr(script, "attributes", {})
            filename = getattr(script, "filename", script) or ""
            key = (str(filename), *sorted(attributes.items()))
            if key not in seen:
                seen.add(key)
                unique.append(script)
        scripts[:] = unique  # in place: the builder restores its list after each page
    description = _first_paragraph(doctree) if doctree is not None else ""
    description = _shorten(description or app.config.book_description)
    if description:
        meta = f'<meta name="description" content="{escape(description)}" />\n'
        context["metatags"] = context.get("metatags", "") + meta


def show_factory_defaults(
    app: Sphinx,
    what: str,
    name: str,
    obj: Any,
    options: Any,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str | None, str | None] | None:
    """autodoc-process-signature: ``field=<factory>`` becomes ``field=[]`` (or ``{}``,
    ``set()``, ``Name()``), what a reader gets without passing the field."""
    if (
        not signature
        or "<factory>" not in signature
        or not dataclasses.is_dataclass(obj)
    ):
        return None
    for field in dataclasses.fields(obj):
        factory = field.default_factory
        if factory is dataclasses.MISSING:
            continue
        shown = (
            repr(factory())
            if factory in (list, dict, set, tuple)
            else f"{getattr(factory, '__name__', 'factory')}()"
        )
        signature = re.sub(
            rf"\b({re.escape(field.name)}(?:\s*:[^=,()]*)?\s*=\s*)<factory>",
            lambda match: match.group(1) + shown,
            signature,
        )
    return signature, return_annotation


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("book_description", "", "html")
    app.add_transform(NameRepeatedHeadings)
    app.add_transform(SlugAnchors)
    app.connect("autodoc-process-signature", show_factory_defaults)
    app.add_post_transform(LabelHiddenCells)
    app.add_node(
        HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput)
    )
    # Late (priority 900), after other extensions have added their scripts to the page.
    app.connect("html-page-context", add_page_details, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
