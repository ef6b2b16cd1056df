"""What did the exporter warn about? ``export_warnings``.

It records what an exporter warns about (``TracerWarning``, deprecation notices) and keeps
torch's export log lines and the partial graph a failed ``torch.export`` prints off the
screen, so that a notebook can print the warnings short: category and first sentence.
Taught in the Export chapter (``book/export.ipynb``) and its lab (``labs/lab-export.ipynb``).
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import warnings
from typing import Any

from ._text import first_line

__all__ = ["export_warnings", "CaughtWarnings"]

_FIRST_SENTENCE = re.compile(r"^(.{40,}?[.!?])\s")
_LOG_PREFIXES = ("torch", "onnxscript", "onnx_ir")


def _export_loggers() -> list[logging.Logger]:
    """torch's loggers that print by themselves (torch._logging gives many of them their
    own stderr handler), and those of the ONNX exporter's libraries."""
    found = [logging.getLogger(p) for p in _LOG_PREFIXES]
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if (
            isinstance(logger, logging.Logger)
            and name.split(".")[0] in _LOG_PREFIXES
            and (logger.handlers or not logger.propagate)
            and logger not in found
        ):
            found.append(logger)
    return found


class CaughtWarnings:
    """What ``export_warnings`` recorded: the warnings, torch's log lines, and what was
    written to stderr (torch.export prints the partial graph of a failed export there).
    Taught in the Export chapter (``book/export.ipynb``)."""

    def __init__(self) -> None:
        self.warnings: list[warnings.WarningMessage] = []
        self.log_lines: list[str] = []
        self.stderr = ""

    def lines(self) -> list[str]:
        """``Category: first sentence`` for each distinct warning, in order."""
        seen: dict[str, None] = {}
        for w in self.warnings:
            text = first_line(str(w.message))
            m = _FIRST_SENTENCE.match(text)
            seen[f"{w.category.__name__}: {m.group(1) if m else text}"] = None
        return list(seen)

    def categories(self) -> list[str]:
        return list(dict.fromkeys(w.category.__name__ for w in self.warnings))

    def show(self) -> None:
        """Print ``lines()``, one per line (no file names, no paths)."""
        for line in self.lines():
            print(line)


class _Collect(logging.Handler):
    def __init__(self, sink: list[str]) -> None:
        super().__init__(logging.WARNING)  # what torch would have printed; not its debug trace
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        line = first_line(record.getMessage())
        if line:
            self.sink.append(f"{record.levelname}: {line}")


class export_warnings:
    """Record every warning raised in the block, torch's export log lines and whatever is
    written to stderr, instead of printing them (their printed form names files on this
    machine). Warnings and log lines stay available on the returned ``CaughtWarnings``::

        with export_warnings() as caught:
            traced = torch.jit.trace(model, x)
        caught.show()        # TracerWarning: Converting a tensor to a Python boolean ...

    Errors are not touched: an exception raised in the block propagates as usual.
    Taught in the Export chapter (``book/export.ipynb``).
    """

    def __enter__(self) -> CaughtWarnings:
        self.caught = CaughtWarnings()
        self._warnings = warnings.catch_warnings(record=True)
        self.caught.warnings = self._warnings.__enter__()
        warnings.simplefilter("always")
        self._handler = _Collect(self.caught.log_lines)
        self._saved: list[tuple[logging.Logger, list[logging.Handler], bool]] = []
        for logger in _export_loggers():
            self._saved.append((logger, logger.handlers[:], logger.propagate))
            logger.handlers = [self._handler]
            logger.propagate = False
        self._stderr = io.StringIO()
        self._redirect = contextlib.redirect_stderr(self._stderr)
        self._redirect.__enter__()
        return self.caught

    def __exit__(self, *exc: Any) -> None:
        self._redirect.__exit__(*exc)
        self.caught.stderr = self._stderr.getvalue()
        for logger, handlers, propagate in self._saved:
            logger.handlers = handlers
            logger.propagate = propagate
        self._warnings.__exit__(*exc)

