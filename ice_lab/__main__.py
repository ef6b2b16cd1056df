"""The ``ice-lab`` command (also ``python -m ice_lab``).

``ice-lab doctor``        what this machine offers PyTorch (Environment chapter)
``ice-lab explain LOG``   why did the error in this log happen? (Toolkit, Debugging)
``ice-lab lint PATH...``  what in this script will freeze? (Debugging chapter)

Each subcommand lives beside the code it drives: ``explain`` in ``ice_lab.explainer.cli``,
``lint`` in ``ice_lab.lint.cli``; each has a ``main(argv) -> int``.
"""

from __future__ import annotations

import argparse
import sys

COMMANDS = {
    "doctor": "print torch, CUDA, cuDNN, MPS and Python versions and devices",
    "explain": "explain the last PyTorch error in a log file (or - for standard input)",
    "lint": "find the ice in training scripts and notebooks before they run",
}


def _doctor(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ice-lab doctor", description=COMMANDS["doctor"])
    parser.parse_args(argv)
    from .env import report

    print(report())
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="ice-lab",
        description="Helpers for the Tensor of Ice book.",
        epilog="Run 'ice-lab COMMAND --help' for a command's options.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)
    if not argv or argv[0] not in COMMANDS:
        parser.parse_args(argv[:1])  # prints usage and exits 2 for an unknown command
        return 2
    command, rest = argv[0], argv[1:]
    if command == "doctor":
        return _doctor(rest)
    if command == "explain":
        from .explainer.cli import main as explain_main

        return explain_main(rest)
    from .lint.cli import main as lint_main

    return lint_main(rest)


if __name__ == "__main__":
    sys.exit(main())
