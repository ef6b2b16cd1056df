"""Which lines of a notebook cell are IPython, not Python (book/debugging.ipynb, 'Lint before
you run').

A line is a magic (``%time``, ``%%capture``) or a shell escape (``!pip``) only where a new
statement starts. Inside brackets, a string or after a trailing backslash, a line that
starts with ``%`` is Python: ``"%d items"\\n    % (n,)`` formats a string, and must be
linted, not blanked.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["blank_ipython_lines", "writefile_cells", "writefile_target"]

MAGIC = re.compile(r"^\s*(%%?[A-Za-z_]|!(?!=))")


def writefile_target(first_line: str) -> tuple[str, bool] | None:
    """``(path, append)`` when a cell's first line is ``%%writefile [-a] PATH`` (or
    IPython's alias ``%%file``): the cell is a file the notebook writes, not code it runs.
    ``None`` for any other line. The one reader of such lines: lint reads a written ``.py``
    as Python, ice_teach.student keeps written files out of a lab's data."""
    words = first_line.split()
    if words[:1] not in (["%%writefile"], ["%%file"]) or len(words) < 2:
        return None
    return words[-1], "-a" in words[1:-1]


def writefile_cells(nb: Mapping[str, Any]) -> dict[str, str]:
    """``{path as written: text}`` for the files notebook ``nb`` (nbformat's node or the
    JSON as a dict) writes with ``%%writefile [-a] PATH`` cells (the Distributed chapter's
    and lab's torchrun scripts): what running it leaves beside it."""
    found: dict[str, str] = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        first, _, body = source.partition("\n")
        target = writefile_target(first)
        if target is not None:
            path, append = target
            found[path] = (found.get(path, "") if append else "") + body + "\n"
    return found


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
