"""Run the book against the oldest and the newest PyTorch a learner may have.

`make test-compat` calls this once per version. For each, it builds a venv under
`.venv-compat/torch-<version>` (ignored by git), installs that torch with ice_lab and its
test and export extras, runs the unit tests, and executes every notebook of the book and
the labs in a scratch copy (outputs are not compared: other versions print other
messages). It ends with one table row per version, e.g.

    torch 2.6.0   unit tests: 1012 passed, 0 failed   notebooks: 22/22 ran

Each version costs a few GB of disk and several minutes (mostly the install), so CI does
not run it; run it after changing what a cell does with a version-dependent API.

    ice-teach compat 2.6.0 2.15.0      # what `make test-compat` runs
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ice_teach.verify import bare as execute_bare
from ice_teach.verify import junit

ROOT = Path(__file__).resolve().parents[2]

# torchvision releases that go with each torch release (torchvision pins its torch).
# A torch newer than the newest torchvision gets that torchvision without its pin.
TORCHVISION = {"2.6": "0.21.0", "2.7": "0.22.1", "2.8": "0.23.0", "2.9": "0.24.1",
               "2.10": "0.25.0", "2.11": "0.26.0", "2.12": "0.27.1", "2.13": "0.28.0",
               "2.14": "0.29.1"}
NEWEST_TORCHVISION = "0.29.2"
#: What the export notebooks install on torch 2.6 (the releases of its own time; see the
#: Export chapter's install cell).
OLD_TORCH_ONNX = ["onnx<=1.17.0", "onnxscript<=0.2.0"]


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, text=True, **kwargs)


def build_venv(version: str) -> Path:
    venv = ROOT / ".venv-compat" / f"torch-{version}"
    python = venv / "bin" / "python"
    if not python.exists():
        _run([sys.executable, "-m", "venv", str(venv)], check=True)
    # The machine-wide cap (if any) would refuse a newer torch than CI's: lift it here only.
    env = dict(os.environ, PIP_CONSTRAINT="/dev/null")
    minor = ".".join(version.split(".")[:2])
    vision = TORCHVISION.get(minor)
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    _run(pip + ["--upgrade", "pip"], env=env, check=True)
    if vision:
        _run(pip + [f"torch=={version}", f"torchvision=={vision}"], env=env, check=True)
    else:
        _run(pip + [f"torch=={version}"], env=env, check=True)
        _run(pip + ["--no-deps", f"torchvision=={NEWEST_TORCHVISION}"], env=env, check=True)
    _run(pip + ["-e", f"{ROOT}[test,export,teach]", "pyyaml", f"torch=={version}"], env=env, check=True)
    if tuple(int(p) for p in minor.split(".")) < (2, 7):
        # torch 2.6 gets the onnx and onnxscript of its own time; the Export chapter's
        # install cell asks for these on that torch (and says why).
        _run(pip + [*OLD_TORCH_ONNX, f"torch=={version}"], env=env, check=True)
    return python


def unit_tests(python: Path, kernel: bool = True) -> str:
    """Run the unit tests with ``python`` (its venv's torch) and count them from pytest's
    JUnit XML report (ice_teach.verify.junit): "N passed, M failed", where errors count
    as failed and skips as neither; "did not run: ..." when no test passed."""
    marks = [] if kernel else ["-m", "not kernel"]
    with tempfile.TemporaryDirectory(prefix="ice-compat-junit-") as tmp:
        report = Path(tmp) / "unit-tests.xml"
        out = _run([str(python), "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider",
                    "--deselect", "tests/book/test_strictness.py", *marks,
                    "--junitxml", str(report)],
                   cwd=ROOT, capture_output=True)
        totals = junit.count(junit.read_junit(report)) if report.exists() else None
    print(out.stdout[-3000:])
    if not totals or not totals["passed"]:  # collection stopped, or nothing ran
        last = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "no output"
        return f"did not run: {last.strip('= ')}"
    return f"{totals['passed']} passed, {totals['failed'] + totals['error']} failed"


def notebooks(python: Path, workers: int = 1, students: bool = True) -> tuple[str, list[str]]:
    """Execute every notebook, and every student edition with its solutions filled in,
    each alone in a temporary folder (as on Colab), with ``python``'s torch."""
    scratch = Path(tempfile.mkdtemp(prefix="ice-compat-"))
    try:
        # A scratch copy of the repository, so no committed notebook is touched.
        shutil.copytree(ROOT, scratch / "repo", ignore=shutil.ignore_patterns(
            ".venv*", "_build", ".git", "__pycache__", ".pytest_cache"))
        return execute_bare.execute_in(
            python, scratch / "repo",
            ["--jobs", str(workers), *([] if students else ["--no-students"])])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def write_record(rows: list[tuple[str, str, str, list[str]]], path: Path) -> None:
    """The table as data (reference/compat.json), for the book's status page."""
    import datetime
    import json

    record = {
        "date": datetime.date.today().isoformat(),
        "python": sys.version.split()[0],
        "versions": [  # the schema ice_teach/status.py reads (COMPAT_SCHEMA)
            {"torch": actual, "unit_tests": tests, "notebooks": ran, "failed": failed}
            for actual, tests, ran, failed in rows
        ],
    }
    path.write_text(json.dumps(record, indent=2) + "\n")
    print("wrote", path.relative_to(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("versions", nargs="+", help="torch versions, e.g. 2.6.0 2.15.0")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks executed at a time")
    parser.add_argument("--quick", action="store_true",
                        help="unit tests without the kernel ones, no student editions")
    parser.add_argument("--record", default=str(ROOT / "reference" / "compat.json"),
                        help="where to write the table as JSON (default reference/compat.json)")
    args = parser.parse_args(argv)
    rows = []
    for version in args.versions:
        python = build_venv(version)
        actual = subprocess.run([str(python), "-c", "import torch; print(torch.__version__)"],
                                capture_output=True, text=True).stdout.strip()
        tests = unit_tests(python, kernel=not args.quick)
        ran, failed = notebooks(python, args.jobs, students=not args.quick)
        rows.append((actual, tests, ran, failed))
    print("\ncompatibility:")
    for actual, tests, ran, failed in rows:
        print(f"  torch {actual:<14} unit tests: {tests:<22} {ran}")
        for line in failed:
            print("      ", line)
    write_record(rows, Path(args.record))
    return 0 if all(not f and t.endswith(" 0 failed") for _, t, _, f in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
