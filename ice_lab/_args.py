"""Checking a learner's arguments, the same way in every ``ice_lab`` tool.

* ``check_int(name, value, minimum, maximum=None)``: a whole-number argument (a count of
  steps, workers, bytes), or a clear error;
* ``check_number(name, value, ...)``: a real-number argument (seconds, a rate, a size),
  or a clear error.

Both raise ``TypeError`` for a wrong type (a string, a bool) and ``ValueError`` for a
number out of range, and the message names the argument, what it got and what to pass.

Private: learners meet these through the tools that use them (the Devices chapter's
``MemoryBudget``, the Training chapter's ``fit``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

__all__ = ["check_int", "check_number"]


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
