"""What a catalogue entry is: :class:`Entry` (how to spot one failure, what to say about
it) and :class:`Clues` (what an entry's conditions may look at).

The catalogue (``catalogue/``) is made of entries; the engine (``engine.py``) matches them.
Both import this module, and neither imports the other's internals: the catalogue never
imports the engine.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, field
from typing import Callable, Optional

from .reading import frame_names as _pasted_frame_names

__all__ = ["Entry", "Clues"]


@dataclass
class Clues:
    """What an entry may look at: the cleaned text, and the exception with its traceback.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """

    text: str
    error: Optional[BaseException] = None
    _frames: Optional[list[types.FrameType]] = field(default=None, repr=False)
    _names: Optional[list[str]] = field(default=None, repr=False)

    def frames(self) -> list[types.FrameType]:
        """The frames of the error's traceback, outermost first (empty for a string)."""
        if self._frames is None:
            frames: list[types.FrameType] = []
            tb = getattr(self.error, "__traceback__", None)
            while tb is not None and len(frames) < 200:
                frames.append(tb.tb_frame)
                tb = tb.tb_next
            self._frames = frames
        return self._frames

    def frame_names(self) -> list[str]:
        """Names of the functions on the traceback, outermost first: the live frames of the
        error, or those a pasted traceback quotes."""
        if self._names is None:
            frames = self.frames()
            if frames:
                self._names = [f.f_code.co_name for f in frames]
            else:
                self._names = _pasted_frame_names(self.text)
        return self._names


Specifics = Callable[["re.Match[str]", Clues], dict]
Condition = Callable[[Clues], bool]


@dataclass
class Entry:
    """One recognisable failure: how to spot it and what to say about it.

    Attributes:
        name: unique, ``"<chapter file>.<what>"``, e.g. ``"devices.cuda_oom"``.
        kind: one of ``KINDS``.
        patterns: phrasings PyTorch prints (regular expressions; named groups become
            ``details``); the first that matches is used. A backend's own wording of the
            same failure (``mps``, cuDNN, cuBLAS) is one more phrasing of the same entry.
        summary: a ``str.format`` template over ``details``; ``fallback`` is used when a
            name is missing (default: the template with "?" for each name).
        causes, fixes, chapter: what the learner reads.
        keywords: loose words that identify the failure only when no phrasing matches.
        priority: raise it (with a comment saying why) when this entry must beat another
            entry whose phrasing also matches the same message.
        specifics: ``fn(match, clues) -> dict`` adding details (may set "summary").
        when: ``fn(clues) -> bool``; the entry matches only if it is true.
        error_types: exception class names that decide this entry's kind by themselves.
        terms: paraphrases, read only when nothing else matched anywhere in the message:
            each is a few distinctive words that must all appear, in any order, e.g.
            ``"inference|inferences tensor|tensors saved|save backward"`` (``|`` separates
            the forms one word may take; a form with non-ASCII characters, such as a
            translation's "腌制", is looked for as a part of the text).

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """

    name: str
    kind: str
    patterns: list[str]
    summary: str
    causes: list[str]
    fixes: list[str]
    chapter: str
    keywords: list[str] = field(default_factory=list)
    priority: int = 0
    fallback: str = ""
    specifics: Optional[Specifics] = None
    when: Optional[Condition] = None
    error_types: tuple[str, ...] = ()
    terms: list[str] = field(default_factory=list)
    compiled: list["re.Pattern[str]"] = field(default_factory=list, repr=False)
    compiled_terms: list[list[frozenset[str]]] = field(default_factory=list, repr=False)
    compiled_keywords: list["re.Pattern[str]"] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        flags = re.IGNORECASE | re.DOTALL
        self.compiled = [re.compile(p, flags) for p in self.patterns]
        self.compiled_keywords = [re.compile(k, flags) for k in self.keywords]
        self.compiled_terms = [[frozenset(w.lower().split("|")) for w in t.split()] for t in self.terms]

    def says_in_other_words(self, words: frozenset[str], text: str) -> Optional[str]:
        """The first of this entry's ``terms`` whose every word is in ``words`` (or, for a
        non-ASCII form, in ``text``), or None."""
        for spec, groups in zip(self.terms, self.compiled_terms):
            if all(g & words or any(not f.isascii() and f in text for f in g) for g in groups):
                return spec
        return None
        if not self.fallback:
            self.fallback = re.sub(r"\{[^}]*\}", "?", self.summary)
