"""The engine of ``explain``: find every catalogue entry that matches an error, keep the best.

Nothing here knows about any kind of failure; that knowledge is the catalogue's
(``ice_lab/explain/catalogue/``). The engine

1. reads the error's text, never raising (a message of any size, bytes, a broken ``__str__``);
2. cleans it: terminal colour codes and the prefixes loggers, launchers and test runners put
   on every line (``[rank0]:``, ``2024-09-15 22:50:34,519 - root - ERROR -``, glog's
   ``E1013 15:52:48.898000 ...]``, pytest's ``E``, Markdown's ``>``) go, HTML entities are
   unescaped, curly quotes and backticks become plain, ``c10::Half`` reads ``Half`` and
   dynamo's ``s27: hint = 2048`` reads ``2048``; a huge message is cut to its two ends;
3. unwraps it, innermost first (``windows``): an exception quoted inside another one's
   message (dynamo's "Dynamo failed to run FX node ... got RuntimeError('<the real
   message>')"), then the last exception of a quoted traceback (a DataLoader worker
   re-raises "Original Traceback ... RuntimeError: <the real message>"; the code lines
   quoted above it must not decide), then the whole text; the first window in which any
   entry matches decides;
4. ranks the matching entries by a visible rule, so that the order of the catalogue never
   matters:

   * an entry that matched one of its **phrasings** (a sentence PyTorch prints) beats an
     entry that matched only one of its **keywords** (a few loose words);
   * then the higher ``priority`` wins (0 unless an entry says why it needs more);
   * an entry whose ``when`` condition fails (e.g. "raised inside an nn.Linear") is no match;
   * an exception class named in an entry's ``error_types`` (``torch.OutOfMemoryError``)
     decides the kind by itself; the text then only picks among that kind's entries;
   * ties go to the entry whose name sorts first (the tests show no test message is
     decided by a tie).

``explain(error, verbose=True)`` adds that reasoning to the text: which entry matched, on
what words, and which others it outranked (it is always in ``Diagnosis.why``).

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any, Optional

from .._text import first_line
from . import catalogue
from .entry import Clues, Entry
from .render import Diagnosis

__all__ = ["explain", "diagnose", "windows", "PHRASING", "KEYWORD"]

#: Characters matched from each end of a message (a 1 MB message is still kept whole in
#: ``Diagnosis.message``).
MATCH_WINDOW = 20_000
#: How far ``explain`` follows ``__cause__`` / ``__context__``.
CHAIN_LIMIT = 8
#: Strength of a match: one of the entry's phrasings, or only one of its keywords.
PHRASING, KEYWORD = 2, 1

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: What loggers, launchers, UIs and test runners put before every line of a paste. Each
#: alternative is one shape of prefix, not one tool's words; several may follow each other.
_LINE_PREFIXES = re.compile(
    r"^(?:"
    r"\[(?:rank|default)\d+\]:[ \t]?"  # torchrun's per-rank prefix
    r"|E {2,}(?=\S)|E\t"  # pytest's failure lines
    r"|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"
    r"(?:\s*[-|]\s*[\w.]+)*?\s*[-|:]\s?"  # "2024-09-15 22:50:34,519 - root - ERROR - "
    r"|[EWIF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]\n]{1,200}\] (?:\[[\d/]+\] )?"  # glog / c10
    r"|(?:CRITICAL|ERROR|WARNING|INFO|DEBUG):[\w.]*:"  # logging.basicConfig
    r"|\[[\w.-]{1,40}\]:? "  # "[ignite]: ", "[INFO] "
    r"|> ?(?!>)|\*\*\* |- \*\*[\w ]+:\*\* "  # Markdown quotes, lists and bold labels
    r")+",
    re.MULTILINE,
)
#: Punctuation that varies around the same identifiers: curly quotes, backticks, C++
#: namespaces around dtype names, dynamo's symbolic sizes ("s27: hint = 2048").
_PUNCTUATION = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                              "`": None, "\u00a0": " "})
_CXX_TYPE = re.compile(r"\b(?:struct\s+)?c10::(\w+)")
_SYMBOLIC = re.compile(r"\b[su]\d+: hint = (\d+)")
#: An exception quoted inside another one's message: dynamo's "got RuntimeError('...')",
#: a worker's "raised ValueError(\"...\")", Ruby's "#<RuntimeError: ...>".
_QUOTED_ERROR = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\((?P<q>['\"])(?P<msg>.+?)(?P=q)\)"
    r"|#<[A-Z]\w*(?:Error|Exception): (?P<ruby>[^>]+)>",
    re.DOTALL,
)


@dataclass
class _Candidate:
    entry: Entry
    strength: int
    match: Optional["re.Match[str]"]

    def rank(self) -> tuple[int, int]:
        return (self.strength, self.entry.priority)


# --------------------------------------------------------------------------- text


def safe_text(obj: object) -> str:
    """Text of anything, never raising (toolkit chapter, book/toolkit.ipynb)."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).decode("utf-8", errors="replace")
    try:
        text = str(obj)
        if isinstance(text, str):
            return text
    except Exception:
        pass
    try:
        args = getattr(obj, "args", ())
        if args:
            return " ".join(safe_text(a) for a in args if not isinstance(a, BaseException))
    except Exception:
        pass
    try:
        return f"<unprintable {type(obj).__name__}>"
    except Exception:  # pragma: no cover - type() always works
        return "<unprintable object>"


def clean(text: str) -> str:
    """The text ``explain`` matches on: both ends of a huge message, paste noise removed
    (line prefixes, colour codes, HTML entities) and punctuation normalised
    (toolkit chapter, book/toolkit.ipynb)."""
    if len(text) > 2 * MATCH_WINDOW:
        text = text[:MATCH_WINDOW] + "\n...\n" + text[-MATCH_WINDOW:]
    text = _LINE_PREFIXES.sub("", _ANSI.sub("", text))
    text = html.unescape(text) if "&" in text else text
    text = text.translate(_PUNCTUATION)
    if "c10::" in text:
        text = _CXX_TYPE.sub(r"\1", text)
    if "hint = " in text:
        text = _SYMBOLIC.sub(r"\1", text)
    return text


def quoted_errors(text: str) -> list[str]:
    """Messages of exceptions quoted inside the text, innermost last: what a wrapper
    (``torch._dynamo``, a worker, another language's binding) was given
    (toolkit chapter, book/toolkit.ipynb)."""
    if "(" not in text and "#<" not in text:
        return []
    found = []
    for match in _QUOTED_ERROR.finditer(text):
        msg = match.group("msg") or match.group("ruby") or ""
        if "\\" in msg:
            msg = msg.replace("\\n", "\n").replace("\\'", "'").replace('\\"', '"')
        if msg.strip():
            found.append(msg)
    return found


def windows(text: str) -> list[tuple[str, str]]:
    """Where ``explain`` looks, in order, as ``(text, label)``: each exception quoted inside
    another, then the last exception of a quoted traceback, then the whole cleaned text;
    the first window in which any entry matches decides (toolkit chapter,
    book/toolkit.ipynb)."""
    out = [(q, "the exception quoted inside the message") for q in reversed(quoted_errors(text))]
    tail = final_exception(text)
    if tail:
        out.append((tail, "the last exception of the quoted traceback"))
    out.append((text, "the message"))
    return out


def final_exception(text: str) -> Optional[str]:
    """The last exception line(s) of a traceback quoted inside a message, if any
    (toolkit chapter, book/toolkit.ipynb)."""
    if "Traceback (most recent call last)" not in text:
        return None
    lines = text.splitlines()
    frames = [i for i, line in enumerate(lines) if line.lstrip().startswith('File "')]
    if not frames:
        return None
    j = frames[-1] + 1
    while j < len(lines) and (not lines[j].strip() or lines[j][:1] in (" ", "\t")):
        j += 1
    tail = "\n".join(lines[j:]).strip()
    return tail or None


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


def _why(best: _Candidate, others: list[_Candidate], where: str) -> str:
    entry = best.entry
    if best.match is None:
        return f"the exception's class decides the kind; entry '{entry.name}' ({entry.kind})"
    how = "phrasing" if best.strength == PHRASING else "keyword"
    text = (f"entry '{entry.name}' ({entry.kind}, chapter {entry.chapter}) matched its {how} "
            f"{_snippet(best.match.group(0))!r} in {where}, priority {entry.priority}")
    beaten = sorted({f"{c.entry.name} ({c.entry.kind})" for c in others if c is not best})
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
        chapter="book/toolkit",
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
    for window, label in windows(clues.text):
        found = _candidates(pool, window, clues)
        if found:
            where = label
            break
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
            chapter="book/toolkit",
            why=f"explain itself failed: {type(failure).__name__}",
        )
    result.verbose = bool(verbose)
    return result


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
