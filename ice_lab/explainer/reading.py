"""How ``explain`` reads a paste before any entry sees it: the way a person reads it.

A message arrives as people paste it, not as PyTorch printed it. Before matching, this
module

1. takes the text of anything, never raising (:func:`safe_text`);
2. removes what the paste added (:func:`clean`): terminal colours, the prefixes loggers,
   launchers, UIs and test runners put on every line, Markdown quotes, HTML entities; the
   borders of a Rich or Colab box traceback, rejoining a line the box cut at its border;
   full-width punctuation and other Unicode variants (NFKC: "（BFLoat16）" reads
   "(BFLoat16)"; case never matters to the patterns), curly quotes, backticks and C++
   namespaces ("c10::Half", retyped "c10--Half");
3. finds where to look (:func:`windows`): an exception quoted inside another one's message,
   the last exception of a quoted traceback, the whole text; and, when nothing matched
   there, the text with the lines a terminal or a post wrapped joined again
   (:func:`rejoined`), mid-word or between words;
4. reads the frames a pasted traceback names (:func:`frame_names`): the function that
   raised (``binary_cross_entropy``, ``cross_entropy``, ``__iter__``) is evidence, as the
   frames of a live exception are;
5. gives the words of a message (:func:`words`), for entries that recognise a paraphrase
   by the distinctive terms of their kind rather than by a sentence.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Optional

from .. import _prefixes
from .._text import ANSI_ESCAPE

__all__ = ["safe_text", "clean", "unbox", "quoted_errors", "final_exception", "windows",
           "rejoined", "frame_names", "words", "MATCH_WINDOW", "REJOIN_LIMIT"]

#: Characters matched from each end of a message (a 1 MB message is still kept whole in
#: ``Diagnosis.message``).
MATCH_WINDOW = 20_000
#: Longest text whose wrapped lines are joined again (a paste of one message, not a log:
#: each joined window is one more pass of every pattern).
REJOIN_LIMIT = 10_000

#: What loggers, launchers, UIs and test runners put before every line of a paste. Each
#: alternative is one shape of prefix, not one tool's words; several may follow each other.
_LINE_PREFIXES = re.compile(
    "^(?:" + "|".join([
        _prefixes.RANK + r"[ \t]?",  # torchrun's per-rank prefix
        r"E {2,}(?=\S)|E\t",  # pytest's failure lines
        _prefixes.TIMESTAMP + r"(?:\s*[-|]\s*[\w.]+)*?\s*[-|:]\s?",  # "2024-09-15 22:50:34,519 - root - ERROR - "
        _prefixes.GLOG_STAMP + r"[^\]\n]{1,200}\] (?:\[[\d/]+\] )?",  # glog / c10
        r"(?:CRITICAL|ERROR|WARNING|INFO|DEBUG):[\w.]*:",  # logging.basicConfig
        r"\[[\w.-]{1,40}\]:? ",  # "[ignite]: ", "[INFO] "
        r"> ?(?!>)|\*\*\* |- \*\*[\w ]+:\*\* ",  # Markdown quotes, lists and bold labels
    ]) + ")+",
    re.MULTILINE,
)
#: Punctuation that varies around the same identifiers: curly quotes, backticks, C++
#: namespaces around dtype names, dynamo's symbolic sizes ("s27: hint = 2048").
_PUNCTUATION = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                              "`": None, "\u00a0": " ", "\u3001": ",", "\u3002": ". "})
_CXX_TYPE = re.compile(r"\b(?:struct\s+)?c10(?:::|--)(\w+)")
_SYMBOLIC = re.compile(r"\b[su]\d+: hint = (\d+)")
#: The vertical borders and the frame lines of a box traceback (Rich, Colab, Lightning).
_BOX_SIDE = "\u2502\u2503\u2551|"
_BOX_LINE = re.compile(r"^\s*[\u256d\u2570\u250c\u2514\u2554\u255a][\u2500\u2501\u2550 \w()\-.:]*"
                       r"[\u256e\u256f\u2510\u2518\u2557\u255d]?\s*$")
_BOX_ROW = re.compile(r"^\s*[\u2502\u2503\u2551] ?(?P<body>.*?)(?P<pad> *)[\u2502\u2503\u2551]\s*$")
#: Rich's pointer at the line that raised, and its indentation guides inside a box.
_BOX_GUIDES = str.maketrans({"\u2771": ">", "\u2502": " ", "\u2503": " "})
#: An exception quoted inside another one's message: dynamo's "got RuntimeError('...')",
#: a worker's "raised ValueError(\"...\")", Ruby's "#<RuntimeError: ...>".
_QUOTED_ERROR = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\((?P<q>['\"])(?P<msg>.+?)(?P=q)\)"
    r"|#<[A-Z]\w*(?:Error|Exception): (?P<ruby>[^>]+)>",
    re.DOTALL,
)
#: A frame of a pasted traceback: CPython's 'File "x.py", line 3, in name', Jupyter's
#: "x.py in name(...)" / "File x.py:3, in name(...)", Rich's "x.py:3 in name".
_FRAME = re.compile(
    r"""File "[^"\n]*", line \d+, in (?P<a>[\w.<>]+)"""
    r"""|\.py"?(?::\d+)?,? in (?P<b>[\w.<>]+)"""
    r"""|^\s*in (?P<c>[\w.<>]+)\s*$""",
    re.MULTILINE,
)
_WORD = re.compile(r"[a-z0-9_]+")


def safe_text(obj: object) -> str:
    """Text of anything, never raising."""
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


def unbox(text: str) -> str:
    """The text of a box traceback without its borders; a row that fills the box to its
    right border continues on the next row, so the two are joined again: mid-word where
    letters meet ("weight ty" + "pe"), with a space otherwise. Text outside boxes is kept
    as it is."""
    if not any(c in text for c in "\u2502\u2503\u2551"):
        return text
    out: list[str] = []
    carry = False  # the previous row reached the border: this row continues it
    for line in text.split("\n"):
        if _BOX_LINE.match(line):
            carry = False
            continue
        row = _BOX_ROW.match(line)
        if row is None:
            out.append(line)
            carry = False
            continue
        body = row.group("body").translate(_BOX_GUIDES).rstrip()
        if carry and out:
            rest = body.lstrip()
            mid_word = out[-1][-1:].isalnum() and rest[:1].isalnum() or out[-1].endswith(("-", "/", "_", "."))
            out[-1] += rest if mid_word else " " + rest
        else:
            out.append(body)
        carry = bool(body) and len(row.group("pad")) <= 1  # Rich keeps one space inside the border
    return "\n".join(out)


def clean(text: str) -> str:
    """The text ``explain`` matches on: both ends of a huge message, paste noise removed
    (line prefixes, colour codes, HTML entities, box borders) and Unicode and punctuation
    normalised."""
    if len(text) > 2 * MATCH_WINDOW:
        text = text[:MATCH_WINDOW] + "\n...\n" + text[-MATCH_WINDOW:]
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = unbox(text)
    text = _LINE_PREFIXES.sub("", ANSI_ESCAPE.sub("", text))
    text = html.unescape(text) if "&" in text else text
    text = text.translate(_PUNCTUATION)
    if "c10" in text:
        text = _CXX_TYPE.sub(r"\1", text)
    if "hint = " in text:
        text = _SYMBOLIC.sub(r"\1", text)
    return text


def quoted_errors(text: str) -> list[str]:
    """Messages of exceptions quoted inside the text, innermost last: what a wrapper
    (``torch._dynamo``, a worker, another language's binding) was given."""
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


def final_exception(text: str) -> Optional[str]:
    """The last exception line(s) of a traceback quoted inside a message, if any."""
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


def windows(text: str) -> list[tuple[str, str]]:
    """Where ``explain`` looks, in order, as ``(text, label)``: each exception quoted inside
    another, then the last exception of a quoted traceback, then the whole cleaned text;
    the first window in which any entry matches decides."""
    out = [(q, "the exception quoted inside the message") for q in reversed(quoted_errors(text))]
    tail = final_exception(text)
    if tail:
        out.append((tail, "the last exception of the quoted traceback"))
    out.append((text, "the message"))
    return out


def rejoined(text: str) -> list[tuple[str, str]]:
    """The text with wrapped lines joined again, as extra windows for a paste in which
    nothing matched: once between words (a post wrapped at a space), once mid-word (a
    terminal that cut "do_constant_folding" after "'d"). Runs of spaces a terminal padded a
    wrapped line with are closed up. Texts longer than ``REJOIN_LIMIT`` are logs, not a
    wrapped message, and get no such window."""
    if len(text) > REJOIN_LIMIT or ("\n" not in text and "     " not in text):
        return []
    lines = [line.strip() for line in text.split("\n")]
    spaced = re.sub(r" {2,}", " ", " ".join(line for line in lines if line))
    tight = re.sub(r"(?<=\S) {8,}(?=\S)", "", "".join(lines))
    return [(spaced, "the message with its wrapped lines joined"),
            (tight, "the message with its lines joined mid-word")]


def frame_names(text: str) -> list[str]:
    """Names of the functions a pasted traceback shows, outermost first (CPython, Jupyter
    and Rich styles): the last one is the function that raised."""
    if " in " not in text:
        return []
    return [m.group("a") or m.group("b") or m.group("c") for m in _FRAME.finditer(text)]


def words(text: str) -> frozenset[str]:
    """The lower-case words of a text (letters, digits, underscores), for matching an
    entry's distinctive terms in any order."""
    return frozenset(_WORD.findall(text.lower()))
