"""``ice-lab explain LOG`` (or ``-`` for standard input; ``python -m ice_lab explain``).

Finds the error to explain in a training log, a CI log or a ``torchrun`` job's output (the
failing rank's root cause, not the launcher's report or the ranks that only saw it die),
and prints the diagnosis with its chapter. ``--all`` explains each distinct error of the
log; ``--json`` prints the same as JSON for tools.

Exit status: 0 when the error was recognised, 1 when it was not (or the log holds no
error), 2 for a usage error or a file that cannot be read (missing, empty, binary).

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Optional

from .engine import explain
from .logs import LogError, find_errors, root_cause
from .render import Diagnosis, to_text

__all__ = ["main", "read_log"]

#: Bytes looked at to tell text from binary.
SNIFF = 65536


class LogUnreadable(Exception):
    """The log cannot be read as text: missing, empty, binary."""


def read_log(path: str) -> str:
    """The text of the log at ``path`` (``-``: standard input); raises ``LogUnreadable``
    with what was wrong and what to do."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
            name = "standard input"
        else:
            with open(path, "rb") as handle:
                data = handle.read()
            name = path
    except IsADirectoryError:
        raise LogUnreadable(f"{path} is a folder; pass the log file inside it") from None
    except OSError as err:
        raise LogUnreadable(f"cannot read {path}: {err.strerror or err}") from None
    if not data.strip():
        raise LogUnreadable(f"{name} is empty: save the output of the run first, e.g. "
                            "python train.py 2>&1 | tee train.log")
    head = data[:SNIFF]
    if b"\x00" in head or head.decode("utf-8", "replace").count("\ufffd") > len(head) // 10:
        raise LogUnreadable(f"{name} is not a text log (binary data); pass the text output "
                            "of the run (a .log or .txt file), not a checkpoint or an archive")
    return data.decode("utf-8", "replace")


def _where(error: LogError, root_rank: Optional[int], name: str) -> str:
    where = f"{name}, line {error.line}"
    if error.rank is not None or root_rank is not None:
        rank = error.rank if error.rank is not None else root_rank
        note = ", the root cause torchrun reports" if rank == root_rank else ""
        where += f" (rank {rank}{note})"
    return where


def _record(error: LogError, d: Diagnosis, count: int, root: bool) -> dict[str, Any]:
    return {"line": error.line, "rank": error.rank, "count": count, "root_cause": root,
            "kind": d.kind, "summary": d.summary, "causes": d.causes, "fixes": d.fixes,
            "chapter": d.chapter, "entry": d.entry, "error": error.text}


def _distinct(errors: list[LogError]) -> list[tuple[LogError, Diagnosis, int]]:
    by_text: dict[str, tuple[LogError, Diagnosis]] = {}
    for error in errors:
        if error.text not in by_text:
            by_text[error.text] = (error, explain(error.text))
    merged: dict[tuple[str, str], list[Any]] = {}
    for error in errors:
        first, d = by_text[error.text]
        key = (d.kind, d.summary) if d.kind != "unknown" else ("unknown", error.text)
        if key not in merged:
            merged[key] = [first, d, 0]
        merged[key][2] += 1
    return [(e, d, n) for e, d, n in merged.values()]


def main(argv: list[str]) -> int:
    """Run ``ice-lab explain`` with ``argv`` (the arguments after ``explain``); returns the
    exit status."""
    parser = argparse.ArgumentParser(
        prog="ice-lab explain",
        description="Explain the last PyTorch error in a log (a torchrun job's failing rank "
                    "included).")
    parser.add_argument("log", help="the log file, or - for standard input")
    parser.add_argument("--all", action="store_true", help="explain each distinct error")
    parser.add_argument("--json", action="store_true", help="print JSON (for tools)")
    parser.add_argument("--verbose", action="store_true", help="say which entry matched")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse printed the usage
        return 2 if stop.code else 0
    name = "standard input" if args.log == "-" else args.log
    try:
        text = read_log(args.log)
    except LogUnreadable as err:
        print(f"ice-lab explain: {err}", file=sys.stderr)
        return 2
    errors = find_errors(text)
    chosen, rank = root_cause(text, errors)
    if chosen is None:
        if args.json:
            print(json.dumps({"log": name, "recognised": False, "errors": []}))
        else:
            print(f"{name}: no traceback or error line found (looked for 'Traceback (most "
                  "recent call last)' and lines like 'RuntimeError: ...')")
        return 1
    if args.all:
        rows = _distinct([e for e in errors if not e.launcher] or errors)
        if all(e is not chosen for e, _, _ in rows) and chosen not in errors:
            rows.append((chosen, explain(chosen.text), 1))
    else:
        rows = [(chosen, explain(chosen.text), 1)]
    root_diag = explain(chosen.text)
    recognised = root_diag.kind != "unknown"
    if args.json:
        out = {"log": name, "recognised": recognised, "root_cause_rank": rank,
               "errors": [_record(e, d, n, e.text == chosen.text) for e, d, n in rows]}
        print(json.dumps(out, indent=2))
        return 0 if recognised else 1
    for i, (error, d, count) in enumerate(rows):
        if i:
            print("\n" + "-" * 60)
        times = f", {count} times" if count > 1 else ""
        mark = "  <- the root cause" if args.all and error.text == chosen.text else ""
        print(f"{_where(error, rank, name)}{times}{mark}")
        last = [ln for ln in error.text.splitlines() if ln.strip()][-1:] or [error.text]
        print(f"  {last[0].strip()[:300]}\n")
        print(to_text(d, verbose=args.verbose))
    return 0 if recognised else 1
