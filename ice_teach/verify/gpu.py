"""GPU verification for Tensor of Ice: run it on a machine with a CUDA GPU.

    python tools/gpu_verify.py                 # every notebook + every GPU test
    python tools/gpu_verify.py --skip-notebooks
    python tools/gpu_verify.py --list          # name the GPU tests; runs none

(`ice-teach gpu-verify ...` is the same; tools/gpu_verify.py, the path the GPU procedure
names, only calls this module.)

The committed notebooks were executed on a CPU: on a GPU their CUDA branches
(`if torch.cuda.is_available():`, `best_device()`) take the other path, which CI never
runs. This script executes every notebook in book/ and labs/, and every student edition
with its lab's solutions filled in, on the GPU: each in a temporary folder that holds
only that notebook (as Colab does), several at a time (--jobs), every cell even after an
error, and reports each error cell (execution only: outputs differ from the committed
CPU outputs by design, so they are not compared). Then it runs the GPU tests, the
GPU-only behaviour the book quotes from reference/gpu-probe-h200.log:
``pytest tests/gpu -m gpu`` with a JUnit XML report, which it reads
(ice_teach.verify.junit) to print one PASS, FAIL or SKIP line per test (a PASS with the
figures the test printed). It ends with one line:

    GPU verification: N passed, M failed

Keep its log:
`python tools/gpu_verify.py 2>&1 | tee reference/gpu-verify-$(date +%F).log`.
Exit status: 0 when everything passed, 1 when something failed, 2 when this machine has
no CUDA (nothing is run). It is not part of `make test`: CI has no GPU, and there the
tests in tests/gpu are collected and skipped.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from ice_teach.verify.junit import Case, read_junit

ROOT = Path(__file__).resolve().parents[2]

#: The GPU tests (pytest, marked ``gpu``), relative to the repository root.
GPU_TESTS = "tests/gpu"


class NotebookFailed(RuntimeError):
    """A notebook (or a solved student edition) did not run cleanly on the GPU."""


# -------------------------------------------------------------- notebooks on the GPU
def filled_student_edition(lab: Path, student: Path):
    """The student edition of ``lab`` with every solution cell put back (matched by
    nbgrader ``grade_id``): what a learner who solved every exercise runs."""
    import nbformat

    from ice_teach import exercises

    solved = nbformat.read(ROOT / lab, as_version=4)
    answers = {exercises.nbgrader(c)["grade_id"]: c.source
               for c in solved.cells if exercises.is_solution(c)}
    nb = nbformat.read(ROOT / student, as_version=4)
    missing = []
    for cell in nb.cells:
        if exercises.is_solution(cell):
            meta = exercises.nbgrader(cell)
            if meta.get("grade_id") not in answers:
                missing.append(meta.get("grade_id"))
                continue
            cell.source = answers[meta["grade_id"]]
    if missing:
        raise NotebookFailed(f"{student}: no solution in {lab} for {missing}")
    return nb


def error_cells(nb) -> list[str]:
    """One line per cell that ended in an error: its index, the error type and message."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                text = (out.get("evalue") or "").strip().splitlines()
                found.append(f"cell {i}: {out.get('ename')}: {text[0][:200] if text else ''}")
    return found


def execute_bare(name: str, nb, timeout: int) -> str:
    """Execute ``nb`` in a temporary folder that holds only it (as a learner's Colab or an
    empty folder would: notebooks.execute(bare=True)), on every cell even after an error;
    raise listing the error cells."""
    from ice_teach import notebooks

    start = time.perf_counter()
    notebooks.execute(name, timeout, allow_errors=True, bare=True, nb=nb)
    seconds = time.perf_counter() - start
    errors = error_cells(nb)
    if errors:
        raise NotebookFailed(f"{len(errors)} error cell(s): " + " | ".join(errors))
    return f"{len(nb.cells)} cells, no error cell, {seconds:.0f} s"


Job = tuple[str, Path, Callable[[], object]]  # name in the log, notebook file, loader


def notebook_jobs(paths: list[Path], students: bool) -> list[Job]:
    """Every notebook to execute: chapters and labs as committed, and (with ``students``)
    each lab's student edition with the lab's solutions filled in."""
    import nbformat

    jobs: list[Job] = [
        (f"notebook {p}", p, lambda p=p: nbformat.read(ROOT / p, as_version=4)) for p in paths
    ]
    if students:
        for p in paths:
            student = Path("student") / p.name
            if p.parts[0] == "labs" and (ROOT / student).exists():
                jobs.append((f"student edition {student}, solved", student,
                             lambda p=p, s=student: filled_student_edition(p, s)))
    return jobs


def run_notebooks(jobs: list[Job], timeout: int, workers: int,
                  failures: list[str] | None = None) -> tuple[int, int]:
    """Execute the notebooks, ``workers`` at a time, each in a bare folder of its own;
    print PASS or FAIL (with every error cell) per notebook as it finishes, and append
    each FAIL line to ``failures`` if given."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    passed = failed = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            pool.submit(lambda f=f, load=load: execute_bare(str(f), load(), timeout)): name
            for name, f, load in jobs
        }
        for future in as_completed(futures):
            name = futures[future]
            try:
                detail = future.result()
            except Exception as err:  # one notebook never stops the others
                failed += 1
                line = f"FAIL  {name}: {type(err).__name__}: {err}"
                print(line, flush=True)
                if failures is not None:
                    failures.append(line)
            else:
                passed += 1
                print(f"PASS  {name}: {detail}", flush=True)
    return passed, failed


# ------------------------------------------------------------------------- GPU tests
def pytest_command(*extra: str) -> list[str]:
    """``python -m pytest tests/gpu -m gpu`` (run from the repository root), then
    ``extra``."""
    return [sys.executable, "-m", "pytest", GPU_TESTS, "-m", "gpu",
            "-p", "no:cacheprovider", *extra]


def list_gpu_tests() -> tuple[int, list[str]]:
    """pytest's exit status and the node ids of the GPU tests
    (``pytest --collect-only -q tests/gpu``): collecting runs none of them."""
    done = subprocess.run(pytest_command("--collect-only", "-q"), cwd=ROOT,
                          capture_output=True, text=True)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    if done.returncode != 0 or not ids:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
    return done.returncode, ids


def report_cases(cases: list[Case]) -> tuple[int, int]:
    """Print one line per test of a JUnit report (``PASS  name: figures``, ``FAIL  name:
    first line of the failure``, ``SKIP  name: reason``); return (passed, failed), where
    an error (in a fixture, or at collection) counts as failed and a skip as neither."""
    passed = failed = 0
    for case in cases:
        first = (case.message.strip().splitlines() or [""])[0]
        if case.outcome == "passed":
            passed += 1
            print(f"PASS  {case.name}: {case.output}", flush=True)
        elif case.outcome == "skipped":
            print(f"SKIP  {case.name}: {first}", flush=True)
        else:
            failed += 1
            where = "error in " if case.outcome == "error" else ""
            print(f"FAIL  {where}{case.name}: {first}", flush=True)
    return passed, failed


def run_gpu_tests(extra: tuple[str, ...] = ()) -> tuple[int, int]:
    """Run the GPU tests (pytest's own output goes to this one's), read its JUnit XML,
    print a line per test (``report_cases``); return (passed, failed). A run that
    leaves no report, or one without a single test, counts as one failure."""
    with tempfile.TemporaryDirectory(prefix="gpu_verify_") as tmp:
        report = Path(tmp) / "gpu-tests.xml"
        command = pytest_command("--junitxml", str(report),
                                 "-o", "junit_logging=system-out", *extra)
        shown = " ".join(["python", *command[1:]]).replace(str(report), "REPORT.xml")
        print("$", shown, flush=True)
        code = subprocess.run(command, cwd=ROOT).returncode
        cases = read_junit(report) if report.exists() else []
    passed, failed = report_cases(cases)
    if not cases:
        print(f"FAIL  {GPU_TESTS}: no test ran (pytest exit status {code})", flush=True)
        failed += 1
    elif code not in (0, 1):  # 1: some test failed, counted above
        print(f"FAIL  {GPU_TESTS}: pytest exit status {code}", flush=True)
        failed += 1
    return passed, failed


def verify_notebooks(paths: list[Path], timeout: int, workers: int,
                     students: bool) -> tuple[int, int]:
    """The notebook part: every notebook (default: all of book/ and labs/) and, with
    ``students``, every solved student edition, executed on the GPU
    (``run_notebooks``); return (passed, failed)."""
    from ice_teach import notebooks, settings

    os.environ.update(settings.EXECUTION_ENV)  # what `make` sets for executed outputs
    os.environ["OMP_NUM_THREADS"] = "2"  # several kernels at a time share the cores
    jobs = notebook_jobs(paths or notebooks.notebooks(), students=students)
    return run_notebooks(jobs, timeout, workers)


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*",
                        help="notebooks to execute (default: all of book/ and labs/)")
    parser.add_argument("--skip-notebooks", action="store_true",
                        help="run only the GPU tests")
    parser.add_argument("--timeout", type=int, default=900,
                        help="seconds per notebook cell (default 900)")
    parser.add_argument("--jobs", type=int,
                        default=min(6, max(1, (os.cpu_count() or 2) // 2)),
                        help="notebooks executed at a time (default: half the cores, "
                             "at most 6)")
    parser.add_argument("--no-students", action="store_true",
                        help="skip the student editions (solutions filled in)")
    parser.add_argument("--list", action="store_true",
                        help="name the GPU tests (pytest --collect-only) and exit; "
                             "runs nothing")
    args = parser.parse_args(argv)

    if args.list:
        code, ids = list_gpu_tests()
        for node_id in ids:
            print(node_id)
        return 0 if code == 0 and ids else 1
    if not cuda_available():
        print(
            "gpu_verify: CUDA is not available on this machine "
            "(torch.cuda.is_available() is False), so nothing was run. Run this script "
            "on a machine with an NVIDIA GPU and a CUDA build of PyTorch; on a CPU, "
            "`make test` is the check.",
            file=sys.stderr,
        )
        return 2

    import torch

    print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}",
          flush=True)
    passed = failed = 0
    if not args.skip_notebooks:
        passed, failed = verify_notebooks([Path(p) for p in args.notebooks],
                                          args.timeout, args.jobs,
                                          students=not args.no_students)
    more_passed, more_failed = run_gpu_tests()
    passed, failed = passed + more_passed, failed + more_failed
    print(f"GPU verification: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
