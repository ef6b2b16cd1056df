"""``python -m ice_lab doctor``: print what this machine offers PyTorch."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ice_lab",
        description="Helpers for the Tensor of Ice book.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{doctor}")
    sub.add_parser("doctor", help="print torch, CUDA, cuDNN, MPS and Python versions and devices")
    args = parser.parse_args(argv)
    if args.command == "doctor":
        from .env import report

        print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
