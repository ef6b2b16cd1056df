"""Provoke a failure on purpose, and prove that it really happened.

Every lab starts by breaking something. ``expect`` is how a notebook does that honestly:
the block *must* fail the way the lesson says, or the cell fails. Taught in the Tensors
chapter (``book/tensors.ipynb``, "Provoking an error on purpose") and used by every lab.

    >>> import torch
    >>> from ice_lab import expect
    >>> with expect(RuntimeError, match="same dtype", what="float64 input into a float32 layer"):
    ...     torch.nn.Linear(3, 1)(torch.zeros(2, 3, dtype=torch.float64))
    Provoked as expected (float64 input into a float32 layer) -> RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float
"""

from __future__ import annotations

import re
from types import TracebackType
from typing import Pattern, Union

from ._text import error_line, first_line

__all__ = ["expect", "Provoked"]

ExceptionTypes = Union[type[BaseException], tuple[type[BaseException], ...]]

def _type_names(types: tuple[type[BaseException], ...]) -> str:
    return " or ".join(t.__name__ for t in types)


class Provoked:
    """What ``expect`` caught: the exception, its type name and its message.

    Available after the ``with`` block, e.g. to hand ``provoked.error`` to another tool.
    Taught in the Tensors chapter (``book/tensors.ipynb``).
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.error: BaseException | None = None

    @property
    def type_name(self) -> str:
        return type(self.error).__name__ if self.error is not None else ""

    @property
    def message(self) -> str:
        return str(self.error) if self.error is not None else ""

    def __repr__(self) -> str:
        if self.error is None:
            return f"Provoked(what={self.what!r}, nothing caught yet)"
        return f"Provoked(what={self.what!r}, {self.type_name}: {first_line(self.message)!r})"


class expect:
    """A context manager that passes only if the block fails in the expected way.

    Args:
        exception: the exception class (or a tuple of classes) the block must raise.
            Subclasses count: ``torch.OutOfMemoryError`` is a ``RuntimeError``.
        match: an optional regular expression searched (case-insensitively) in the
            error message. Write it loosely — a few stable words, alternatives joined
            with ``|`` — so it survives wording changes between PyTorch versions.
        what: a few words naming what is being provoked; printed, and used in
            the assertion message.

    On the expected failure it prints one line,
    ``Provoked as expected (<what>) -> <Type>: <first line of the message>``,
    and the notebook carries on. If the block runs without error, or raises something
    else, it raises ``AssertionError`` saying what was expected and what happened
    (chained to the unexpected exception, whose traceback stays visible).
    ``KeyboardInterrupt`` and ``SystemExit`` are never swallowed unless named.

    Taught in the Tensors chapter (``book/tensors.ipynb``); used by every lab's "Provoke"
    step.
    """

    def __init__(
        self,
        exception: ExceptionTypes = Exception,
        match: str | Pattern[str] | None = None,
        *,
        what: str | None = None,
    ) -> None:
        types = exception if isinstance(exception, tuple) else (exception,)
        if not types or not all(isinstance(t, type) and issubclass(t, BaseException) for t in types):
            raise TypeError(
                "expect(...) needs an exception class such as RuntimeError, or a tuple of them; "
                f"got {exception!r}. Example: with expect(RuntimeError, match='same dtype'): ..."
            )
        if match is not None and not isinstance(match, (str, re.Pattern)):
            raise TypeError(
                f"match must be a regular-expression string, got {type(match).__name__} {match!r}."
            )
        if isinstance(match, str):
            try:
                match = re.compile(match, re.IGNORECASE | re.DOTALL)
            except re.error as err:
                raise ValueError(f"match is not a valid regular expression ({err}): {match!r}") from None
        if what is not None and not isinstance(what, str):
            raise TypeError(f"what must be a short description string, got {type(what).__name__}.")
        self.types: tuple[type[BaseException], ...] = types
        self.pattern: Pattern[str] | None = match
        self.what = what or f"a {_type_names(types)}"
        self.provoked = Provoked(self.what)

    def _expected(self) -> str:
        text = _type_names(self.types)
        if self.pattern is not None:
            text += f" whose message matches {self.pattern.pattern!r}"
        return text

    def __enter__(self) -> Provoked:
        return self.provoked

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if exc is None:
            raise AssertionError(
                f"Expected {self._expected()} ({self.what}), but the block ran without error. "
                "The failure this cell provokes no longer happens: check the code above, "
                "or whether a newer PyTorch changed this behaviour."
            )
        if not isinstance(exc, self.types):
            if not isinstance(exc, Exception):
                return False  # KeyboardInterrupt, SystemExit, ...: never swallowed
            raise AssertionError(
                f"Expected {self._expected()} ({self.what}), but got {error_line(exc)}"
            ) from exc
        message = str(exc)
        if self.pattern is not None and not self.pattern.search(message):
            raise AssertionError(
                f"Expected {self._expected()} ({self.what}); got the right type, "
                f"{type(exc).__name__}, but its message does not match: {first_line(message)}"
            ) from exc
        self.provoked.error = exc
        quoted = first_line(message) or repr(exc)
        print(f"Provoked as expected ({self.what}) -> {type(exc).__name__}: {quoted}")
        return True
