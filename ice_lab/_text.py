"""The few words every ``ice_lab`` module says the same way.

One of each, so that every tool quotes an error, prints a size and refuses a bad count
alike:

* ``first_line(error)``: the first non-empty line of an error message, shortened to fit
  a printed line (``expect``, ``run_isolated``, ``summary``, ``estimate_peak`` quote
  PyTorch's messages with it);
* ``format_bytes(n)``: ``"1.50 MiB"``, binary units like PyTorch's OOM messages;
* ``error_line(error)``: ``"TypeName: first line"``, how a tool quotes an exception;
* ``check_int(name, value, minimum, maximum=None)``: a whole-number argument, or a clear
  error;
* ``Report``: the mixin of every result a tool returns (Jupyter shows its ``str()``);
* ``check_number(name, value, ...)``: a real-number argument (seconds, a rate, a size),
  or a clear error. Both raise ``TypeError`` for a wrong type (a string, a bool) and
  ``ValueError`` for a number out of range, everywhere in ``ice_lab``.

Private: learners meet these through the tools that use them (the Tensors chapter's
``expect``, the Devices chapter's ``MemoryBudget``).
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

__all__ = [
    "first_line", "error_line", "format_bytes", "check_int", "check_number", "Report",
    "QUOTE_LIMIT",
]

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


def check_int(name: str, value: Any, minimum: int, *, maximum: int | None = None) -> int:
    """``value`` as a Python ``int`` if it is a whole number (``int`` or a NumPy integer,
    never ``bool``) of at least ``minimum`` (and at most ``maximum``, if given); otherwise
    a ``TypeError`` / ``ValueError`` that names the argument, what it got and what to pass
    instead.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be a whole number (an int such as {max(minimum, 1)}), "
            f"got {type(value).__name__} {value!r}."
        )
    if int(value) < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}.")
    if maximum is not None and int(value) > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value}.")
    return int(value)


def check_number(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    positive: bool = False,
    unit: str = "",
) -> float:
    """``value`` as a ``float`` if it is a real number (``int``, ``float`` or a NumPy
    number, never ``bool``), finite, ``> 0`` when ``positive``, and within ``minimum`` /
    ``maximum``; otherwise a ``TypeError`` (not a number) or ``ValueError`` (out of range)
    that names the argument, what it got and what to pass instead. ``unit`` (``"seconds"``)
    is said in the message.
    """
    what = f"a number of {unit}" if unit else "a number"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__} {value!r}.")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    if positive and not number > 0:
        raise ValueError(f"{name} must be a positive {what[2:]}, got {value!r}.")
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be at least {minimum:g}, got {value!r}.")
    if maximum is not None and number > maximum:
        raise ValueError(f"{name} must be at most {maximum:g}, got {value!r}.")
    return number


class Report:
    """The shape of every result a tool returns (``ShapeTrace``, ``PreflightReport``,
    ``ExportReport``, ``IsolatedResult``, ``TorchrunResult``, ``StateDictDiff``): an ``ok``
    that is True when nothing is wrong, a readable ``str()``, and, through this mixin, the
    same display in Jupyter: the ``str()``, as ``print(result)`` shows it."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))
