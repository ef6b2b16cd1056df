"""The one reader and writer of a lab's exercise regions.

A solution cell holds its answer between ``# BEGIN SOLUTION`` and ``# END SOLUTION``
(single ``#``, each on its own line, indented like the code they enclose); a hidden check
cell is one region from ``### BEGIN HIDDEN TESTS`` to ``### END HIDDEN TESTS``
(CONTRIBUTING.md, "Exercises"). Every tool and test that reads or rewrites these regions
calls the functions below instead of parsing the markers again:

    regions(source)              -> [Region(begin, end, indent, body), ...]
    solution_body(source)        -> the code inside the one region, dedented
    with_solution(source, body)  -> the source with each region replaced by ``body``
    stubbed(source)              -> the source with each region replaced by STUDENT_STUB
    is_hidden_tests(source)      -> the whole source is one hidden-tests region

Plain text in, plain text out: nothing here knows about notebooks.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

__all__ = [
    "SOLUTION_BEGIN", "SOLUTION_END", "HIDDEN_BEGIN", "HIDDEN_END", "STUDENT_STUB",
    "Region", "RegionError", "regions", "solution_body", "with_solution", "stubbed",
    "is_hidden_tests",
]

SOLUTION_BEGIN = re.compile(r"^(\s*)# BEGIN SOLUTION\s*$")
SOLUTION_END = re.compile(r"^\s*# END SOLUTION\s*$")
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"
#: What the student edition puts where the solution was (nbgrader's code stub).
STUDENT_STUB = 'raise NotImplementedError("Exercise: write your fix here.")'


class RegionError(ValueError):
    """The markers of a solution region do not pair up (a BEGIN without its END ...)."""


@dataclass(frozen=True)
class Region:
    """One solution region: the line numbers (0-based) of its BEGIN and END markers,
    the BEGIN marker's indentation, and the lines between them as written."""

    begin: int
    end: int
    indent: str
    body: list[str]


def regions(source: str) -> list[Region]:
    """Every ``# BEGIN SOLUTION`` ... ``# END SOLUTION`` region of ``source``, in order.

    Raises :class:`RegionError` when the markers do not pair up (nested, unclosed, an END
    before its BEGIN) or a marker has three ``#`` (``### BEGIN SOLUTION``).
    """
    if "### BEGIN SOLUTION" in source or "### END SOLUTION" in source:
        raise RegionError("use a single '#' before BEGIN SOLUTION / END SOLUTION")
    lines = source.splitlines()
    found: list[Region] = []
    open_at: int | None = None
    indent = ""
    for i, line in enumerate(lines):
        begin = SOLUTION_BEGIN.match(line)
        if begin:
            if open_at is not None:
                raise RegionError(f"line {i + 1}: '# BEGIN SOLUTION' inside another region")
            open_at, indent = i, begin.group(1)
        elif SOLUTION_END.match(line):
            if open_at is None:
                raise RegionError(f"line {i + 1}: '# END SOLUTION' without its BEGIN")
            found.append(Region(open_at, i, indent, lines[open_at + 1 : i]))
            open_at = None
    if open_at is not None:
        raise RegionError(f"line {open_at + 1}: '# BEGIN SOLUTION' is never closed")
    return found


def solution_body(source: str) -> str:
    """The code inside the one solution region of ``source``, dedented (RegionError
    unless there is exactly one region)."""
    found = regions(source)
    if len(found) != 1:
        raise RegionError(f"expected one solution region, found {len(found)}")
    return textwrap.dedent("\n".join(found[0].body))


def with_solution(source: str, body: str) -> str:
    """``source`` with each solution region (its markers included) replaced by ``body``,
    indented like the region's BEGIN marker; blank lines of ``body`` stay blank."""
    found = regions(source)
    lines = source.splitlines()
    new_lines = [b for b in body.strip("\n").splitlines()]
    out: list[str] = []
    start = 0
    for region in found:
        out += lines[start : region.begin]
        out += [region.indent + b if b.strip() else "" for b in new_lines]
        start = region.end + 1
    out += lines[start:]
    return "\n".join(out)


def stubbed(source: str) -> str:
    """``source`` as the student edition shows it: each region replaced by STUDENT_STUB."""
    return with_solution(source, STUDENT_STUB)


def is_hidden_tests(source: str) -> bool:
    """True when ``source`` is one hidden-tests region: its first non-blank line is
    ``### BEGIN HIDDEN TESTS`` and its last ``### END HIDDEN TESTS``."""
    stripped = [line.strip() for line in source.splitlines() if line.strip()]
    return bool(stripped) and stripped[0] == HIDDEN_BEGIN and stripped[-1] == HIDDEN_END
