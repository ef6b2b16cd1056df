"""What ``explain`` returns, and how it reads: the :class:`Diagnosis`, as text and as HTML.

The text form is what ``print(diagnosis)`` shows (and what ``%load_ext ice_lab`` shows in a
terminal); the HTML form is what Jupyter shows when a diagnosis is the last value of a cell.
In HTML, "Read: book/<page>.ipynb#<anchor>" is a link to that section of the built book.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Diagnosis", "CHAPTER_LINK", "to_text", "to_html"]

#: Where "Read: book/<page>.ipynb#<anchor>" points in HTML: the page's ``.html``, at the
#: section's anchor. Every page of the built book sits one folder below the book's root
#: (book/…, labs/…), so this reaches a section from any chapter or lab.
CHAPTER_LINK = "../{page}.html{anchor}"


@dataclass
class Diagnosis:
    """What ``explain`` found out about one error.

    Attributes:
        kind: one of ``KINDS`` ("unknown" when no catalogue entry matched).
        summary: one sentence in the learner's terms, with the specifics of the message.
        causes: likely causes in the learner's code, most likely first.
        fixes: what to do, in the same order.
        chapter: the section that teaches it, ``"book/<page>.ipynb#<heading-anchor>"``,
            e.g. ``"book/devices.ipynb#2-device-mismatch-provoked-for-real"``.
        message: the original error text (never shortened).
        details: specifics parsed from the message (shapes, devices, dtypes, keys, ...).
        error_type: the exception's class name, or "" when a plain string was given.
        entry: the name of the catalogue entry that matched ("" for unknown).
        why: which entry matched, on what words, and what else matched.
        verbose: when True, the text and HTML forms end with ``why`` (set by
            ``explain(..., verbose=True)``; never changed afterwards).

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """

    kind: str
    summary: str
    causes: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    chapter: str = ""
    message: str = ""
    details: dict[str, object] = field(default_factory=dict)
    error_type: str = ""
    entry: str = ""
    why: str = ""
    verbose: bool = field(default=False, repr=False)

    def __str__(self) -> str:
        return to_text(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's text form is the short text, not the dataclass repr."""
        printer.text(to_text(self))

    def _repr_html_(self) -> str:
        return to_html(self)


def to_text(d: Diagnosis, verbose: bool | None = None) -> str:
    """The plain-text form: kind and summary, causes, fixes, the chapter, and ``why`` when
    ``verbose`` (by default, as ``explain(..., verbose=)`` made ``d``).

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """
    lines = [f"[{d.kind}] {d.summary}"]
    if d.causes:
        lines.append("Likely causes:")
        lines += [f"  - {c}" for c in d.causes]
    if d.fixes:
        lines.append("Fixes:")
        lines += [f"  - {f}" for f in d.fixes]
    if d.chapter:
        lines.append(f"Read: {d.chapter}")
    if (d.verbose if verbose is None else verbose) and d.why:
        lines.append(f"Why: {d.why}")
    return "\n".join(lines)


def to_html(d: Diagnosis, verbose: bool | None = None) -> str:
    """The HTML form; every piece of the message is escaped, the chapter is a link;
    ``verbose`` as in :func:`to_text`.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """
    esc = html.escape
    parts = [
        '<div style="border-left:4px solid #3b82c4;padding:4px 10px;margin:4px 0;'
        'font-family:sans-serif;font-size:0.9em">',
        f'<div><code style="font-weight:bold">{esc(d.kind)}</code> &mdash; {esc(d.summary)}</div>',
    ]
    for title, items in (("Likely causes", d.causes), ("Fixes", d.fixes)):
        if items:
            parts.append(f'<div style="margin-top:4px"><b>{title}</b><ul style="margin:0">')
            parts += [f"<li>{esc(i)}</li>" for i in items]
            parts.append("</ul></div>")
    if d.chapter:
        page, hash_, anchor = d.chapter.partition("#")
        page = page[:-len(".ipynb")] if page.endswith(".ipynb") else page
        href = esc(CHAPTER_LINK.format(page=page, anchor=hash_ + anchor), quote=True)
        parts.append(f'<div style="margin-top:4px">Read: <a href="{href}">'
                     f"<code>{esc(d.chapter)}</code></a></div>")
    if (d.verbose if verbose is None else verbose) and d.why:
        parts.append(f'<div style="margin-top:4px;color:#555">Why: {esc(d.why)}</div>')
    parts.append("</div>")
    return "".join(parts)
