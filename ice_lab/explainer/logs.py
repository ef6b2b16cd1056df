"""The errors in a log: a training script's output, a CI log, a ``torchrun`` job's output.

``find_errors(text)`` returns every traceback and every stand-alone error line of a log, in
order, each with the line it starts on and the rank that printed it (``[rank1]:``);
``root_cause(text, errors)`` picks the one to explain: in a ``torchrun`` failure, the last
error of the rank that torchrun's ``ChildFailedError`` report names as the root cause
(the other ranks only saw their partner die), otherwise the last error of the log.

The log is scanned with regular expressions over the whole text (never line by line in
Python), so that a 100 MB log takes seconds (``benchmarks/explain_log.py``).

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``) and the Distributed chapter
(``book/distributed.ipynb``); ``ice-lab explain LOG`` (``cli.py``) drives it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .. import _prefixes

__all__ = ["LogError", "find_errors", "root_cause"]

#: How many lines of one traceback are kept (a recursion error prints thousands).
BLOCK_LINES = 400

_TRACEBACK = re.compile(r"Traceback \(most recent call last\):?")
_ERROR_WORD = re.compile(r"(?:Error|Exception|!!!)(?=[:!( ]|$)", re.MULTILINE)
_EXCEPTION_LINE = re.compile(
    r"(?:^|[\s>:\]-])(?:[A-Za-z_][\w.]*(?:Error|Exception)(?:: |:$| \()|!!! Exception)")
_RANK = _prefixes.RANK_PREFIX
_NEW_RECORD = _prefixes.NEW_RECORD
_REPORT = re.compile(r"ChildFailedError:?[ \t]*\r?\n=+")
_ROOT_RANK = re.compile(r"Root Cause \(first observed failure\):.{0,400}?\brank\s*:\s*(\d+)", re.DOTALL)
_EXIT_RANK = re.compile(r"failed \(exitcode: -?\d+\) local_rank: (\d+)")
_REPORT_TRACEBACK = re.compile(r"traceback\s*:\s*(Traceback \(most recent call last\):.*?)\n\s*(?:-{20}|={20})",
                               re.DOTALL)


@dataclass
class LogError:
    """One error found in a log.

    Attributes:
        text: the traceback or error line, with the rank prefix removed.
        line: the line of the log it starts on (1 = first).
        rank: the rank that printed it (``[rank1]:``), or None.
        launcher: True for torchrun's own report (``ChildFailedError``), which only says
            that a rank failed.
        offset: where in the log's text it starts (a character index), 0 for a traceback
            quoted by torchrun's report.
        complete: False for a traceback cut before its exception line (the log ended, or
            the block reached ``BLOCK_LINES``); :func:`root_cause` prefers complete ones.
    """

    text: str
    line: int
    rank: Optional[int] = None
    launcher: bool = False
    offset: int = 0
    complete: bool = True


def _line_bounds(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end


def _rank_of(prefix: str) -> Optional[int]:
    found = _RANK.search(prefix)
    return int(found.group(1)) if found else None


def _traceback_block(text: str, start: int, prefix: str) -> tuple[str, int, bool]:
    """The traceback starting at ``start``: its lines (a rank's only, when ranks interleave)
    up to the end of the exception message; returns (text, end offset, complete: whether
    the exception line was reached)."""
    rank_prefix = _RANK.search(prefix)
    keep = rank_prefix.group(0) if rank_prefix else None
    lines: list[str] = []
    pos, seen_frame, in_message, kept_until = start, False, False, start
    while pos < len(text) and len(lines) < BLOCK_LINES:
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        raw = text[pos:end]
        pos = end + 1
        kept_until = pos if keep is None or keep in raw[: len(prefix) + 8] else kept_until
        if keep is not None:
            if keep not in raw[: len(prefix) + 8]:
                if _RANK.match(raw.lstrip()):
                    continue  # another rank's line in between
                if in_message:
                    break
                continue
            raw = raw.split(keep, 1)[1]
            raw = raw[1:] if raw.startswith(" ") else raw
        elif lines:
            raw = raw[len(prefix):] if raw.startswith(prefix) and prefix.strip() else raw
        stripped = raw.strip()
        if not lines:
            lines.append(stripped)
            continue
        if in_message:
            if not stripped or _NEW_RECORD.match(raw) or _TRACEBACK.search(raw):
                break
            lines.append(raw)
            continue
        if stripped.startswith('File "') or raw[:1] in (" ", "\t"):
            seen_frame = seen_frame or stripped.startswith('File "')
            lines.append(raw)
            continue
        if not stripped:
            continue
        if seen_frame and not stripped.startswith(("During handling", "The above exception")):
            lines.append(raw)
            in_message = True
            continue
        lines.append(raw)
    return "\n".join(lines), kept_until, in_message


def find_errors(text: str) -> list[LogError]:
    """Every traceback and stand-alone error line in ``text``, in order."""
    found: list[LogError] = []
    covered: dict[Optional[int], int] = {}  # rank -> where its last error ended
    report = _REPORT.search(text)
    report_at = report.start() if report else len(text) + 1
    hits = sorted([(m.start(), "tb") for m in _TRACEBACK.finditer(text)]
                  + [(m.start(), "line") for m in _ERROR_WORD.finditer(text)])
    for pos, what in hits:
        start, end = _line_bounds(text, pos)
        rank = _rank_of(text[start:min(pos, start + 40)])
        if pos < covered.get(rank, -1):
            continue
        if what == "tb":
            prefix = text[start:pos]
            block, covered[rank], complete = _traceback_block(text, pos, prefix)
        else:
            line = text[start:end]
            body = line.strip()
            if (not _EXCEPTION_LINE.search(line) or body.startswith(("raise ", 'File "'))
                    or "Warning:" in line):
                continue
            block = _RANK.sub("", line, count=1).strip()
            covered[rank], complete = end, True
        launcher = pos >= report_at or "ChildFailedError" in block
        found.append(LogError(text=block, line=0, rank=rank, launcher=launcher, offset=start,
                              complete=complete))
    _number_lines(text, found)
    return found


def _number_lines(text: str, errors: list[LogError]) -> None:
    line, last = 1, 0
    for error in errors:  # offsets are increasing
        line += text.count("\n", last, error.offset)
        last = error.offset
        error.line = line


def failing_rank(text: str) -> Optional[int]:
    """The rank torchrun names as the root cause of a failed job, if the log has its report
    (Distributed chapter, book/distributed.ipynb)."""
    found = _ROOT_RANK.search(text) or _EXIT_RANK.search(text)
    return int(found.group(1)) if found else None


def root_cause(text: str, errors: list[LogError]) -> tuple[Optional[LogError], Optional[int]]:
    """The error to explain, and the failing rank when torchrun's report names one: the last
    error of that rank, else the traceback the report quotes, else the last error of the
    log that is not the launcher's own, nor a traceback cut before its message."""
    rank = failing_rank(text)
    own = [e for e in errors if not e.launcher]
    own = [e for e in own if e.complete] or own  # a traceback cut before its message says little
    if rank is not None:
        of_rank = [e for e in own if e.rank == rank]
        if of_rank:
            return of_rank[-1], rank
        quoted = _REPORT_TRACEBACK.findall(text[text.find("Root Cause"):]) if "Root Cause" in text else []
        if quoted:
            block = "\n".join(line[2:] if line.startswith("  ") else line
                              for line in quoted[0].splitlines())
            at = text.find("Root Cause")
            return LogError(text=block.strip(), line=text[:at].count("\n") + 1, rank=rank), rank
    if own:
        return own[-1], rank
    return (errors[-1] if errors else None), rank
