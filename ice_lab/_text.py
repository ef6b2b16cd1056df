"""The few words every ``ice_lab`` module says the same way.

One of each, so that every tool quotes an error and prints a size alike:

* ``first_line(error)``: the first non-empty line of an error message, shortened to fit
  a printed line (``provoke``, ``run_isolated``, ``describe``, ``estimate_peak`` quote
  PyTorch's messages with it);
* ``format_bytes(n)``: ``"1.50 MiB"``, binary units like PyTorch's OOM messages;
* ``error_line(error)``: ``"TypeName: first line"``, how a tool quotes an exception;
* ``Report``: the mixin of every result a tool returns (Jupyter shows its ``str()``).

Checking a learner's arguments (a count, a number of seconds) is ``ice_lab._args``.

Private: learners meet these through the tools that use them (the Tensors chapter's
``provoke``, the Devices chapter's ``MemoryBudget``).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["first_line", "error_line", "format_bytes", "Report", "QUOTE_LIMIT"]

#: Characters of an error's first line that ``first_line`` keeps (a quoted PyTorch message
#: in a notebook output; longer lines end in "…").
QUOTE_LIMIT = 300

#: Terminal escape sequences (colours, cursor moves; PyTorch's torch.load message contains
#: some): dropped when quoting, and by the explainer when it reads a paste.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def first_line(error_or_text: BaseException | str | None, limit: int = QUOTE_LIMIT) -> str:
    """The first non-empty line of an error message (or of a text), stripped of terminal
    colour codes and surrounding blanks, cut to ``limit`` characters (the last one "…").

    Accepts an exception (its ``str()``), a string, or None (gives ""). An exception with
    an empty message gives "" too: callers print the type name next to it.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 2:
        raise ValueError(f"limit must be a whole number of characters, at least 2, got {limit!r}.")
    if error_or_text is None:
        return ""
    text = error_or_text if isinstance(error_or_text, str) else str(error_or_text)
    line = next((ln.strip() for ln in ANSI_ESCAPE.sub("", text).splitlines() if ln.strip()), "")
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return line


def error_line(error: BaseException, limit: int = QUOTE_LIMIT) -> str:
    """``"TypeName: first line of its message"`` (``first_line``), or the type name alone
    when the message is empty: how every tool quotes an exception on one line."""
    line = first_line(error, limit)
    return f"{type(error).__name__}: {line}" if line else type(error).__name__


def format_bytes(n: float) -> str:
    """``"1.50 MiB"``: bytes in binary units with two decimals, like PyTorch's OOM messages.

    Used in ``MemoryBudget``'s messages and by ``explain`` for an OOM's request; taught in
    the Devices chapter (``book/devices.ipynb``).
    """
    for unit, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{int(n)} bytes"


class Report:
    """The shape of every result a tool returns (``ShapeTrace``, ``PreflightReport``,
    ``ExportReport``, ``IsolatedResult``, ``TorchrunResult``, ``StateDictDiff``): an ``ok``
    that is True when nothing is wrong, a readable ``str()``, and, through this mixin, the
    same display in Jupyter: the ``str()``, as ``print(result)`` shows it."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))
