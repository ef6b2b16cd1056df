"""``ice-lab lint PATH...``: lint scripts, notebooks and folders (book/debugging.ipynb).

Prints one flake8-style line per finding and exits 1 when something was found, 0 when
nothing was, 2 when a path could not be read.
"""

from __future__ import annotations

import argparse
import sys

from .engine import RULES, iter_files, lint_file

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
            f"{code} {text}" for code, (text, _) in RULES.items()),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help=".py files, .ipynb notebooks or folders holding them")
    parser.add_argument("--select", help="only these codes or prefixes, comma-separated")
    parser.add_argument("--ignore", help="not these codes or prefixes, comma-separated")
    args = parser.parse_args(argv)
    select, ignore = _codes(args.select), _codes(args.ignore)
    found, status = 0, 0
    try:
        files = list(iter_files(args.paths))
    except FileNotFoundError as error:
        print(f"ice-lab lint: {error}", file=sys.stderr)
        return 2
    for path in files:
        try:
            findings = lint_file(path, select, ignore)
        except (OSError, ValueError) as error:
            print(f"ice-lab lint: {error}", file=sys.stderr)
            status = 2
            continue
        for finding in findings:
            print(finding)
        found += len(findings)
    if status:
        return status
    return 1 if found else 0
