"""Execute every notebook of a checkout, each alone in an empty folder, in another venv.

`make test-compat` (ice_teach.verify.compat) and `make test-colab` (ice_teach.verify.colab)
run this module with the Python of the venv under test, from a scratch copy of the
repository, so that the notebooks' kernels run that venv's packages:

    <venv>/bin/python -m ice_teach.verify.bare --jobs 2 [--no-students] [--first export.ipynb]

It prints PASS or FAIL per notebook (ice_teach.verify.gpu.run_notebooks) and ends with
``notebooks: N of M ran with no error cell``; ``execute_in`` runs it and reads that back.
``ipython_startup`` makes an IPYTHONDIR whose startup file runs in every kernel before the
first cell (Colab's module, a start method: ice_teach.verify.colab, .start_methods).
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

from ice_teach import notebooks, settings
from ice_teach.verify import gpu as gpu_verify

SUMMARY = "notebooks:"


def ipython_startup(folder: Path, code: str) -> Path:
    """An IPYTHONDIR under ``folder`` whose kernels run ``code`` before the first cell."""
    startup = folder / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-startup.py").write_text(code)
    return folder


def execute_in(python: Path, repo: Path, args: list[str],
               env: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """Run this module with ``python`` in the checkout ``repo`` (its own ice_teach, from
    the working directory); return its summary line and its FAIL lines."""
    out = subprocess.run(
        [str(python), "-m", "ice_teach.verify.bare", *args], cwd=repo,
        capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(repo), **(env or {})})
    print(out.stdout[-8000:], out.stderr[-3000:])
    lines = out.stdout.strip().splitlines()
    summary = next((l for l in reversed(lines) if l.startswith(SUMMARY)), f"{SUMMARY} ?")
    return summary, [l for l in lines if l.startswith("FAIL")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1, help="notebooks at a time")
    parser.add_argument("--no-students", action="store_true",
                        help="leave out the solved student editions")
    parser.add_argument("--first", nargs="*", default=[], metavar="NAME",
                        help="notebooks (file names) run alone, before the others: "
                             "those that install packages into the venv")
    parser.add_argument("--bars", action="store_true",
                        help="progress bars on, as a learner sees them")
    args = parser.parse_args(argv)
    os.environ.update(settings.EXECUTION_ENV)
    if args.bars:
        os.environ.pop("TQDM_DISABLE", None)
    jobs = gpu_verify.notebook_jobs(notebooks.notebooks(), students=not args.no_students)
    first = [job for job in jobs if job[1].name in args.first]
    passed, failed = gpu_verify.run_notebooks(first, timeout=900, workers=1)
    more = gpu_verify.run_notebooks([j for j in jobs if j not in first], timeout=900,
                                    workers=args.jobs)
    passed, failed = passed + more[0], failed + more[1]
    print(SUMMARY, passed, "of", passed + failed, "ran with no error cell", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
