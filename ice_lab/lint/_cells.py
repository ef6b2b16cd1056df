"""Which lines of a notebook cell are IPython, not Python (book/debugging.ipynb, 'Lint before
you run').

A line is a magic (``%time``, ``%%capture``) or a shell escape (``!pip``) only where a new
statement starts. Inside brackets, a string or after a trailing backslash, a line that
starts with ``%`` is Python: ``"%d items"\\n    % (n,)`` formats a string, and must be
linted, not blanked.
"""

from __future__ import annotations

import re

__all__ = ["blank_ipython_lines"]

MAGIC = re.compile(r"^\s*(%%?[A-Za-z_]|!(?!=))")


def blank_ipython_lines(lines: list[str]) -> list[str]:
    """``lines`` with each IPython line made blank, so line numbers still match
    (book/debugging.ipynb)."""
    out = []
    depth, quote, continued = 0, "", False
    for line in lines:
        starts_statement = depth == 0 and not quote and not continued
        if starts_statement and MAGIC.match(line):
            out.append("")
            continue
        out.append(line)
        depth, quote, continued = _scan(line, depth, quote)
    return out


def _scan(line: str, depth: int, quote: str) -> tuple[int, str, bool]:
    """Bracket depth, open string quote and backslash continuation after ``line``."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            i += 1
            continue
        if ch == "#":
            break
        if ch in "\"'":
            quote = ch * 3 if line.startswith(ch * 3, i) else ch
            i += len(quote)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        i += 1
    if quote and len(quote) == 1:  # a one-quote string ends with its line (or is an error)
        quote = ""
    continued = line.rstrip().endswith("\\") and not quote
    return depth, quote, continued
