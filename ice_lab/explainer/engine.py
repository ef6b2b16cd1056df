"""The engine of ``explain``: find every catalogue entry that matches an error, keep the best.

Nothing here knows about any kind of failure; that knowledge is the catalogue's
(``ice_lab/explainer/catalogue/``). The engine

1. reads the error's text the way a person reads a paste (``reading.py``): never raising,
   paste noise removed (line prefixes, colours, box borders, Markdown quotes), Unicode and
   punctuation normalised, frames of a pasted traceback read as evidence;
2. looks in its windows, innermost first (``reading.windows``): an exception quoted inside
   another one's message (dynamo's "got RuntimeError('<the real message>')"), then the last
   exception of a quoted traceback (a DataLoader worker re-raises "Original Traceback ...
   RuntimeError: <the real message>"; the code lines quoted above it must not decide), then
   the whole text; the first window in which any entry matches decides; where none does, the
   text with its wrapped lines joined again, then the distinctive ``terms`` of each entry
   (a paraphrase: an issue title, a retyped or translated message);
3. ranks the matching entries by a visible rule, so that the order of the catalogue never
   matters:

   * an entry that matched one of its **phrasings** (a sentence PyTorch prints) beats an
     entry that matched only one of its **keywords** (a few loose words);
   * then the higher ``priority`` wins (0 unless an entry says why it needs more);
   * an entry whose ``when`` condition fails (e.g. "raised inside an nn.Linear") is no match;
   * an exception class named in an entry's ``error_types`` (``torch.OutOfMemoryError``)
     decides the kind by itself; the text then only picks among that kind's entries;
   * ties go to the entry whose name sorts first; a tie with an entry of another kind is
     said in ``Diagnosis.why`` ("tied with ...": the tests show no test message has one).

``explain(error, verbose=True)`` adds that reasoning to the text: which entry matched, on
what words, and which others it outranked (it is always in ``Diagnosis.why``).

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Optional

from .._text import first_line
from . import catalogue
from .entry import Clues, Entry
from .reading import clean, final_exception, rejoined, safe_text, windows, words
from .render import Diagnosis

__all__ = ["explain", "diagnose", "PHRASING", "KEYWORD", "TERMS", "TIE"]

#: How far ``explain`` follows ``__cause__`` / ``__context__``.
CHAIN_LIMIT = 8
#: Strength of a match: one of the entry's phrasings, one of its keywords, only its terms.
PHRASING, KEYWORD, TERMS = 3, 2, 1


@dataclass
class _Candidate:
    entry: Entry
    strength: int
    match: Optional["re.Match[str]"]

    def rank(self) -> tuple[int, int]:
        return (self.strength, self.entry.priority)


# --------------------------------------------------------------------------- matching


def _holds(entry: Entry, clues: Clues) -> bool:
    if entry.when is None:
        return True
    try:
        return bool(entry.when(clues))
    except Exception:
        return False


def _candidates(entries: list[Entry], window: str, clues: Clues) -> list[_Candidate]:
    found = []
    for entry in entries:
        hit = next((m for m in (p.search(window) for p in entry.compiled) if m), None)
        strength = PHRASING
        if hit is None:
            hit = next((m for m in (k.search(window) for k in entry.compiled_keywords) if m), None)
            strength = KEYWORD
        if hit is not None and _holds(entry, clues):
            found.append(_Candidate(entry, strength, hit))
    return found


class _Said:
    """A match on an entry's terms, shaped like a regular expression's match."""

    def __init__(self, spec: str) -> None:
        self.spec = spec

    def group(self, _index: int = 0) -> str:
        return self.spec

    def groupdict(self) -> dict:
        return {}


def _by_terms(entries: list[Entry], text: str, clues: Clues) -> list[_Candidate]:
    said = words(text)
    found = []
    for entry in entries:
        spec = entry.says_in_other_words(said, text) if entry.terms else None
        if spec is not None and _holds(entry, clues):
            found.append(_Candidate(entry, TERMS, _Said(spec)))  # type: ignore[arg-type]
    return found


def _best(candidates: list[_Candidate]) -> _Candidate:
    return sorted(candidates, key=lambda c: (-c.strength, -c.entry.priority, c.entry.name))[0]


def _format(template: str, details: dict) -> Optional[str]:
    try:
        return template.format(**details)
    except (KeyError, IndexError, ValueError, AttributeError):
        return None


def _snippet(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: How ``Diagnosis.why`` begins the entries of another kind that tied with the winner.
TIE = "tied with"


def _why(best: _Candidate, others: list[_Candidate], where: str) -> str:
    entry = best.entry
    if best.match is None:
        return f"the exception's class decides the kind; entry '{entry.name}' ({entry.kind})"
    how = {PHRASING: "phrasing", KEYWORD: "keyword"}.get(best.strength, "terms")
    text = (f"entry '{entry.name}' ({entry.kind}, chapter {entry.chapter}) matched its {how} "
            f"{_snippet(best.match.group(0))!r} in {where}, priority {entry.priority}")
    tied = sorted({f"{c.entry.name} ({c.entry.kind})" for c in others
                   if c.rank() == best.rank() and c.entry.kind != entry.kind})
    beaten = sorted({f"{c.entry.name} ({c.entry.kind})" for c in others if c is not best}
                    - set(tied))
    if tied:
        text += ("; " + TIE + " " + ", ".join(tied)
                 + " (same rank, another kind: the name that sorts first won)")
    if beaten:
        text += "; it outranked " + ", ".join(beaten[:4]) + (" ..." if len(beaten) > 4 else "")
    return text


def _unknown(text: str, error_type: str) -> Diagnosis:
    first = first_line(final_exception(clean(text)) or text, limit=200)
    summary = f"not in the catalogue: {error_type + ': ' if error_type else ''}{first}".rstrip(": ")
    return Diagnosis(
        kind="unknown",
        summary=summary,
        fixes=["read the last line of the traceback and the line of your code just above it",
               "print the shapes, dtypes and devices of the tensors on that line (ice_lab.summary)"],
        chapter="book/toolkit.ipynb#wrapped-errors-unknown-errors-anything-at-all",
        message=text,
        error_type=error_type,
        why="no catalogue entry matched the message",
    )


def diagnose(error: Optional[BaseException], text: str, entries: list[Entry]) -> Diagnosis:
    """The best diagnosis of one error (or one message when ``error`` is None) among
    ``entries``; ``explain`` calls it with the catalogue, and follows chained errors.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """
    clues = Clues(clean(text), error)
    error_type = type(error).__name__ if error is not None else ""
    classes = {c.__name__ for c in type(error).__mro__} if error is not None else set()
    decided = [e for e in entries if classes & set(e.error_types)]
    pool = [e for e in entries if e.kind in {d.kind for d in decided}] if decided else entries
    found: list[_Candidate] = []
    where = "the message"
    for window, label in windows(clues.text) + rejoined(clues.text):
        found = _candidates(pool, window, clues)
        if found:
            where = label
            break
    if not found:
        found = _by_terms(pool, clues.text, clues)
        where = "the message, read for its terms (a paraphrase)"
    if not found and decided:
        found = [_Candidate(e, 0, None) for e in decided]
    if not found:
        return _unknown(text, error_type)
    best = _best(found)
    entry = best.entry
    details: dict = {}
    if best.match is not None:
        details = {k: v for k, v in best.match.groupdict().items() if v is not None}
        if entry.specifics is not None:
            try:
                details.update(entry.specifics(best.match, clues) or {})
            except Exception:
                pass
    summary = details.pop("summary", None) if isinstance(details.get("summary"), str) else None
    summary = summary or _format(entry.summary, details) or _format(entry.fallback, details)
    return Diagnosis(
        kind=entry.kind,
        summary=summary or re.sub(r"\{[^}]*\}", "?", entry.fallback),
        causes=list(entry.causes),
        fixes=list(entry.fixes),
        chapter=entry.chapter,
        message=text,
        details=details,
        error_type=error_type,
        entry=entry.name,
        why=_why(best, found, where),
    )


def _chain(error: BaseException) -> list[BaseException]:
    """The error, then its __cause__ / __context__ chain (cycle-safe, bounded)."""
    seen: list[BaseException] = []
    current: Optional[BaseException] = error
    while current is not None and len(seen) < CHAIN_LIMIT and all(current is not s for s in seen):
        seen.append(current)
        try:
            nxt = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
        except Exception:
            nxt = None
        current = nxt if isinstance(nxt, BaseException) else None
    return seen


def explain(error: object, verbose: bool = False) -> Diagnosis:
    """Diagnose a PyTorch error: kind, summary with your specifics, causes, fixes, chapter.

    Args:
        error: an exception (best: its traceback is used for details such as the number of
            classes of the logits, or whether an ``nn.Linear`` raised it), the record
            ``expect`` returns, an error message string, or anything else.
        verbose: add a "Why:" line saying which catalogue entry matched and on what words
            (always available as ``Diagnosis.why``).

    Returns:
        a :class:`Diagnosis`; ``kind == "unknown"`` when the catalogue has no entry, with
        the message preserved. ``explain`` never raises.

    When the error is a generic wrapper (e.g. ``raise ValueError("bad batch") from err``),
    the chained ``__cause__`` / ``__context__`` is diagnosed instead and
    ``details["chained_from"]`` names the outer error.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb); used in every lab's
    "Diagnose" step.
    """
    try:
        result = _explain(error, catalogue.CATALOGUE)
    except Exception as failure:  # explain must never raise
        try:
            text = safe_text(error)
        except Exception:
            text = "<unprintable>"
        result = Diagnosis(
            kind="unknown",
            summary=f"explain could not analyse this error ({type(failure).__name__})",
            message=text,
            chapter="book/toolkit.ipynb#wrapped-errors-unknown-errors-anything-at-all",
            why=f"explain itself failed: {type(failure).__name__}",
        )
    return replace(result, verbose=bool(verbose))


def _explain(error: Any, entries: list[Entry]) -> Diagnosis:
    if not isinstance(error, (BaseException, str, bytes, bytearray)):
        # The record that ``expect`` returns: explain what it caught.
        try:
            caught = getattr(error, "error", None)
        except Exception:
            caught = None
        if isinstance(caught, BaseException):
            error = caught
    if not isinstance(error, BaseException):
        return diagnose(None, safe_text(error), entries)
    chain = _chain(error)
    outer = diagnose(error, safe_text(error), entries)
    if outer.kind != "unknown":
        return outer
    for inner in chain[1:]:
        found = diagnose(inner, safe_text(inner), entries)
        if found.kind != "unknown":
            found.details["chained_from"] = first_line(f"{outer.error_type}: {outer.message}", 200)
            return found
    return outer
