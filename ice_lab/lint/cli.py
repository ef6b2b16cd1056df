"""``ice-lab lint PATH...``: lint scripts, notebooks and folders (book/debugging.ipynb).

Prints one flake8-style line per finding (or, with ``--format sarif``, one SARIF 2.1.0
log for a code host's CI) and exits 1 when something was found, 0 when nothing was, 2
when a path could not be read.
"""

from __future__ import annotations

import argparse
import json
import sys

from .engine import RULES, lint_paths

__all__ = ["main"]


def _codes(text: str | None) -> list[str] | None:
    if not text:
        return None
    codes = [c.strip().upper() for c in text.split(",") if c.strip()]
    for code in codes:
        if not any(rule.startswith(code) for rule in RULES):
            raise SystemExit(f"ice-lab lint: unknown code {code!r}; known codes are "
                             f"{', '.join(RULES)} (a prefix such as ICE10 works too)")
    return codes


def main(argv: list[str]) -> int:
    """Run the linter on ``argv`` as the command line would (book/debugging.ipynb)."""
    parser = argparse.ArgumentParser(
        prog="ice-lab lint",
        description="Find the ice in training scripts and notebooks before they run.",
        epilog="Silence one line with '# noqa: ICE101'. Codes: " + ", ".join(
            f"{code} {rule.summary}" for code, rule in RULES.items()),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help=".py files, .ipynb notebooks or folders holding them")
    parser.add_argument("--select", help="only these codes or prefixes, comma-separated")
    parser.add_argument("--ignore", help="not these codes or prefixes, comma-separated")
    parser.add_argument("--format", choices=["text", "sarif"], default="text",
                        help="text: one line per finding; sarif: a SARIF 2.1.0 log, for CI "
                        "that shows findings on the diff")
    parser.add_argument("--output", metavar="FILE",
                        help="write there instead of printing (e.g. ice-lab.sarif)")
    args = parser.parse_args(argv)
    select, ignore = _codes(args.select), _codes(args.ignore)
    unread: list[Exception] = []

    def report_error(error: Exception) -> None:
        print(f"ice-lab lint: {error}", file=sys.stderr)
        unread.append(error)

    try:
        everything = lint_paths(args.paths, select, ignore, on_error=report_error).findings
    except FileNotFoundError as error:
        print(f"ice-lab lint: {error}", file=sys.stderr)
        return 2
    if args.format == "sarif":
        from .sarif import to_sarif

        text = json.dumps(to_sarif(everything), indent=2)
    else:
        text = "\n".join(str(f) for f in everything)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    elif text:
        print(text)
    if unread:
        return 2
    return 1 if everything else 0
