"""The settings that `make`, the tests and the grader share, each written once here.

- ``EXECUTION_ENV``: the environment every notebook executes in (``make`` exports it; the
  grader's workers, ``ice-teach execute`` and the verification runs set it), so that
  executed outputs depend on neither timing nor hash order;
- ``nbval_options()``: how ``make test`` and ``make test-nb`` run notebooks under nbval
  (tests/book/test_strictness.py runs the same).

The Makefile reads both through ``python -m ice_teach settings env|nbval`` with the plain
``python3`` that creates the venv, so this module needs the standard library only.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXECUTION_ENV = {
    # Progress bars are for people; executed outputs must not depend on timing.
    "TQDM_DISABLE": "1",
    "PYTHONHASHSEED": "0",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}

#: The seconds one cell may run under nbval before the run fails.
NBVAL_CELL_TIMEOUT = 600


def nbval_options(root: Path = ROOT) -> list[str]:
    """pytest's options for the notebooks: nbval in the current environment, the outputs
    compared after tests/support/sanitize.cfg's replacements, a time limit per cell."""
    return ["--nbval", "--nbval-current-env",
            "--nbval-sanitize-with", str(root / "tests" / "support" / "sanitize.cfg"),
            "--nbval-cell-timeout", str(NBVAL_CELL_TIMEOUT)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("env", "nbval"),
                        help="env: NAME=value words of EXECUTION_ENV; nbval: the nbval "
                        "options; each on one line, quoted for a shell")
    args = parser.parse_args(argv)
    if args.what == "env":
        words = [f"{name}={value}" for name, value in EXECUTION_ENV.items()]
    else:
        words = nbval_options()
    print(" ".join(shlex.quote(word) for word in words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
