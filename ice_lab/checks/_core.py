"""What every lab check shares (see ``ice_lab/checks/__init__.py``): run the learner's code
so that a raw error never speaks for the hint, fail with a hint that names the mistake,
pass with one line that says what was tried.

Used by every lab's Verify step.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any, NoReturn

#: How long a quoted error may be, on one line.
QUOTE_CHARS = 150


def quote(error: BaseException) -> str:
    """``"TypeError: the first 150 characters of the message, on one line"``."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:QUOTE_CHARS]}"


def attempt(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str]:
    """Call ``fn``; return ``(result, "")``, or ``(None, quoted error)`` if it raised."""
    try:
        return fn(*args, **kwargs), ""
    except Exception as error:  # the learner's error is quoted in the hint, not raised
        return None, quote(error)


class Hints:
    """The hints of one exercise. ``require`` fails with ``hint``; when the same kind of
    mistake fails a second time (in this kernel), the hint adds ``more``."""

    def __init__(self, exercise: str) -> None:
        self.exercise = exercise
        self.seen: Counter[str] = Counter()

    def require(self, ok: object, hint: str, *, kind: str = "", more: str = "") -> None:
        """Nothing if ``ok`` is true; else an ``AssertionError`` naming the mistake."""
        if not ok:
            self.fail(hint, kind=kind, more=more)

    def fail(self, hint: str, *, kind: str = "", more: str = "") -> NoReturn:
        """The ``AssertionError`` of ``require``, for a check written as ``if not ...:``
        so that the type checker knows what holds after it (the learner's object is an
        ``nn.Module``, not ``None``)."""
        key = kind or hint
        self.seen[key] += 1
        text = hint
        if more and self.seen[key] > 1:
            text = f"{hint} Still stuck: {more}"
        raise AssertionError(f"{self.exercise}: {text}")


def passed(what: str) -> None:
    """The one line a check prints when every case passed."""
    print(f"Check passed: {what}")


def built_model(make: Callable[[], Any], hints: Hints, name: str) -> Any:
    """The model ``make()`` returns (an open exercise's factory of a repaired model), or
    a failure that says what it did instead."""
    from torch import nn

    model, error = attempt(make)
    hints.require(not error, f"{name}() fails ({error}).")
    hints.require(isinstance(model, nn.Module),
                  f"{name}() should return a model (an nn.Module), got "
                  f"{type(model).__name__}.")
    return model


def rng(seed: int | None, default: int) -> random.Random:
    """The random source of a check's cases: ``seed`` in graded copies, else the lab's."""
    return random.Random(default if seed is None else seed)


def need_callable(fn: object, name: str) -> None:
    """A clear error when the cell that defines the learner's function was not run."""
    if not callable(fn):
        raise TypeError(
            f"check expected the function {name}, got {type(fn).__name__}: run the cell "
            f"that defines {name} (under the exercise's Fix heading) first."
        )
