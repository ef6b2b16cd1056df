"""Grade a folder of lab submissions with nbgrader: make grade LAB=lab-nan SUBMISSIONS=dir

    python tools/grade.py lab-nan submissions/ [--out grades] [--timeout 120] [--keep]

Every `<student>.ipynb` in the folder is one student's submission (the file's stem is the
student's id). For each, `nbgrader autograde` (the grader of record) restores the locked
and hidden check cells from the lab (`OverwriteCells`, `add_missing_cells=True`: a check
edited to `assert True` or deleted counts as the original), runs the notebook and scores
it in its gradebook; `nbgrader generate_feedback` writes the feedback.

Out: grades/<lab>.csv, one row per student and graded cell
(student,grade_id,points,max_points,status,message) and a TOTAL row per student;
grades/<lab>/<student>.html, the feedback.

Where things live: a throw-away course directory made with tempfile.mkdtemp, named
`ice-grade-<lab>-*` in the system's temp folder (source/, submitted/, autograded/,
feedback/, gradebook.db (SQLite), nbgrader_config.py, and the kernel's sockets). It is
deleted at the end; --keep keeps it and prints its path.

Surviving students (tools/grade_kernel.py):
- each cell has --timeout seconds (default 120, the slowest lab cell takes well under
  that); an infinite loop is interrupted, its exercise scores 0 with status `timeout`, the
  rest is graded. A loop that ignores the interrupt gets the kernel restarted.
- a kernel death (os._exit, a segfault) scores that exercise 0 (status `kernel died`); the
  kernel is restarted, the earlier cells are replayed, the rest is graded.
- a file that is not JSON or not a notebook gets one row saying so.
- a warning on stderr does not cost a correct answer its points.

The sandbox (Linux, bubblewrap): each kernel runs under `bwrap` with no network and a
filesystem holding only the submission's folder (with the lab's data), the Python
environment (read-only) and an empty /tmp; the course directory, the gradebook (it holds
the hidden tests) and the repository are not in it. Without bwrap, grading says so loudly
and runs unsandboxed (set ICE_GRADE_NO_SANDBOX=1 to choose that).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import astuple, dataclass
from pathlib import Path

import nbformat

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
DEFAULT_TIMEOUT = 120
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
FIELDS = ("student", "grade_id", "points", "max_points", "status", "message")


@dataclass
class Row:
    student: str
    grade_id: str
    points: float
    max_points: float
    status: str
    message: str = ""


# --------------------------------------------------------------------------- sandbox
def _python_dirs() -> list[Path]:
    """What the kernel needs to read: the venv, the Python install, editable packages."""
    dirs = {Path(sys.prefix), Path(sys.base_prefix)}
    spec = importlib.util.find_spec("ice_lab")
    if spec and spec.submodule_search_locations:
        dirs |= {Path(p) for p in spec.submodule_search_locations}
    return sorted(d.resolve() for d in dirs)


def bwrap_command(ipc_dir: Path, runtime_dir: Path) -> list[str]:
    """The bwrap prefix; the launcher adds the submission's folder and the kernel."""
    cmd = ["bwrap", "--ro-bind", "/usr", "/usr"]
    for link in ("bin", "sbin", "lib", "lib64", "lib32"):
        target = Path("/") / link
        if target.is_symlink():
            cmd += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            cmd += ["--ro-bind", str(target), str(target)]
    for d in _python_dirs():
        cmd += ["--ro-bind", str(d), str(d)]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/tmp/home",
            "--bind", str(ipc_dir), str(ipc_dir), "--ro-bind", str(runtime_dir), str(runtime_dir),
            "--setenv", "HOME", "/tmp/home", "--setenv", "MPLCONFIGDIR", "/tmp/home",
            # the kernel's parent is outside the sandbox's process namespace
            "--unsetenv", "JPY_PARENT_PID", "--unshare-all", "--die-with-parent"]
    return cmd


def sandbox_works() -> tuple[bool, str]:
    """Whether bwrap can start a sandbox here, and why not."""
    if os.environ.get("ICE_GRADE_NO_SANDBOX") == "1":
        return False, "ICE_GRADE_NO_SANDBOX=1 is set"
    if not sys.platform.startswith("linux"):
        return False, "the sandbox needs Linux"
    if shutil.which("bwrap") is None:
        return False, "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    with tempfile.TemporaryDirectory() as d:
        probe = bwrap_command(Path(d), Path(d)) + ["--chdir", "/tmp", sys.executable, "-c", "pass"]
        done = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        return False, f"bwrap cannot start a sandbox here: {done.stderr.strip()[:200]}"
    return True, ""


def warn_no_sandbox(why: str) -> None:
    bar = "!" * 78
    print(f"{bar}\n!! NO SANDBOX: {why}\n!! Submissions run with this user's rights: they can read "
          f"every file it can\n!! (the solutions, the gradebook) and reach the network.\n{bar}",
          file=sys.stderr, flush=True)


def write_kernel(work: Path, sandbox: bool) -> None:
    """A kernelspec `ice-grade` under work/jupyter whose kernel runs in the sandbox."""
    ipc, runtime = work / "ipc", work / "runtime"
    ipc.mkdir()
    runtime.mkdir()
    kernel = [sys.executable, "-m", "ipykernel_launcher", "-f"]
    launcher = work / "kernel.sh"
    if sandbox:
        prefix = " ".join(_quote(a) for a in bwrap_command(ipc, runtime))
        # The submission's folder, with the notebooks in it (the sanitised copy holds the
        # hidden tests) replaced by empty files.
        body = ('here="$(pwd -P)"\nhide=""\nfor f in "$here"/*.ipynb; do\n'
                '  if [ -e "$f" ]; then hide="$hide --ro-bind /dev/null $f"; fi\ndone\n'
                f'exec {prefix} --bind "$here" "$here" $hide --ro-bind "$1" "$1" --chdir "$here" \\\n  ')
    else:
        body = "exec "
    launcher.write_text("#!/bin/sh\n" + body + " ".join(_quote(a) for a in kernel) + ' "$1"\n')
    launcher.chmod(0o755)
    spec = work / "jupyter" / "kernels" / "ice-grade"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(launcher), "{connection_file}"],
        "display_name": "Python 3 (grading sandbox)",
        "language": "python",
        "interrupt_mode": "message",  # a signal to bwrap would not reach the kernel
        "env": {"TQDM_DISABLE": "1", "PYTHONHASHSEED": "0", "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
    }))


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


# --------------------------------------------------------------------------- course
CONFIG = """\
import sys
sys.path.insert(0, {tools!r})
from grade_kernel import KeepStderr, SurvivingExecute
from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties, CheckCellMetadata, IgnorePattern, LimitOutput, SaveAutoGrades)

c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = {db!r}
c.CourseDirectory.course_id = "tensor-of-ice"
c.OverwriteCells.add_missing_cells = True  # deleted check cells come back from the lab
c.Execute.kernel_name = "ice-grade"        # the sandboxed kernel (tools/grade.py)
c.Execute.timeout = {timeout}
c.KernelManager.transport = "ipc"          # unix sockets: the sandbox has no network
c.KernelManager.ip = {ipc!r}
c.Autograde.autograde_preprocessors = [
    SurvivingExecute, KeepStderr, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, AssignLatePenalties, CheckCellMetadata,
]
"""


class Course:
    """A throw-away nbgrader course for one lab (see the module docstring)."""

    def __init__(self, lab: Path, timeout: int, sandbox: bool):
        self.lab, self.name, self.timeout = lab, lab.stem, timeout
        self.work = Path(tempfile.mkdtemp(prefix=f"ice-grade-{self.name}-"))
        self.root = self.work / "course"
        self.root.mkdir()
        write_kernel(self.work, sandbox)
        (self.root / "nbgrader_config.py").write_text(CONFIG.format(
            tools=str(TOOLS), root=str(self.root), db=f"sqlite:///{self.root / 'gradebook.db'}",
            timeout=timeout, ipc=str(self.work / "ipc" / "kernel"),
        ))
        source = self.root / "source" / self.name
        source.mkdir(parents=True)
        shutil.copyfile(lab, source / lab.name)
        for rel in lab_data(lab.parent):
            (source / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(lab.parent / rel, source / rel)
        self.env = dict(os.environ, JUPYTER_PATH=str(self.work / "jupyter"),
                        JUPYTER_RUNTIME_DIR=str(self.work / "runtime"),
                        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        self.nbgrader("generate_assignment", self.name, "--force")
        code_cells = sum(c.cell_type == "code" for c in nbformat.read(lab, as_version=4).cells)
        self.bound = code_cells * timeout + 300  # one student's run can never take longer

    def nbgrader(self, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "nbgrader"), *args], cwd=self.root, env=self.env,
            capture_output=True, text=True, timeout=timeout, start_new_session=True, check=False,
        )
        if args[0] == "generate_assignment" and done.returncode != 0:
            raise RuntimeError(f"nbgrader generate_assignment failed:\n{done.stderr[-3000:]}")
        return done

    def submit(self, student: str, submission: Path) -> None:
        dest = self.root / "submitted" / student / self.name
        dest.mkdir(parents=True)
        shutil.copyfile(submission, dest / f"{self.name}.ipynb")

    def grade_all(self, students: list[str]) -> dict[str, tuple[list[Row], Path | None]]:
        """One `nbgrader autograde` and one `generate_feedback` over every submission."""
        bound = self.bound * max(1, len(students))
        try:
            done = self.nbgrader("autograde", self.name, "--force", timeout=bound)
            log = done.stderr + done.stdout
        except subprocess.TimeoutExpired:
            log = f"[ERROR] nbgrader autograde ran past {bound} s and was stopped"
        if any(self._graded(s).exists() for s in students):
            self.nbgrader("generate_feedback", self.name, "--force", timeout=bound)
        results = {}
        for student in students:
            graded = self._graded(student)
            if not graded.exists():
                mine = [line for line in log.splitlines() if f"'{student}'" in line or "[ERROR]" in line]
                results[student] = ([Row(student, "TOTAL", 0, self.max_points(), "error",
                                         "nbgrader could not grade it: " + " | ".join(mine[-2:])[:300])], None)
                continue
            feedback = self.root / "feedback" / student / self.name / f"{self.name}.html"
            results[student] = (self.rows(student, nbformat.read(graded, as_version=4)),
                                feedback if feedback.exists() else None)
        return results

    def _graded(self, student: str) -> Path:
        return self.root / "autograded" / student / self.name / f"{self.name}.ipynb"

    def max_points(self) -> float:
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}", "tensor-of-ice") as gb:
            return gb.find_assignment(self.name).max_score

    def rows(self, student: str, graded: nbformat.NotebookNode) -> list[Row]:
        from nbgrader.api import Gradebook

        cells = {(c.metadata.get("nbgrader") or {}).get("grade_id"): c for c in graded.cells}
        rows = []
        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}", "tensor-of-ice") as gb:
            notebook = gb.find_submission_notebook(self.name, self.name, student)
            order = {g: i for i, g in enumerate(cells)}
            for grade in sorted(notebook.grades, key=lambda g: order.get(g.name, 10**6)):
                points = grade.score or 0
                status, message = cell_status(cells.get(grade.name), points, grade.max_score)
                rows.append(Row(student, grade.name, points, grade.max_score, status, message))
        total = sum(r.points for r in rows)
        rows.append(Row(student, "TOTAL", total, sum(r.max_points for r in rows), "graded", ""))
        return rows


def cell_status(cell: nbformat.NotebookNode | None, points: float, max_points: float) -> tuple[str, str]:
    if cell is None:
        return "missing", "the cell is not in the graded notebook"
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if errors:
        ename = errors[-1].get("ename", "")
        evalue = " ".join(str(errors[-1].get("evalue", "")).split())[:200]
        if any(o.get("ename") == "KernelDied" for o in errors):
            return "kernel died", "the Python kernel died while this check ran"
        if any(o.get("ename") == "CellTimeoutError" for o in errors):
            return "timeout", "no answer before the per-cell timeout; the kernel was interrupted"
        return "failed", f"{ename}: {evalue}" if evalue else ename
    return ("passed", "") if points >= max_points else ("partial", "")


def lab_data(lab_dir: Path) -> list[Path]:
    """The files next to a lab that it may read (see tools/student.py)."""
    sys.path.insert(0, str(TOOLS))
    import student

    return student.lab_data(lab_dir)


def check_submission(path: Path) -> str:
    """Why a file is not a gradable notebook ("" when it is)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError) as err:
        return f"unreadable ({type(err).__name__}): not a notebook"
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        return f"not valid JSON (line {err.lineno}, column {err.colno}): not a notebook"
    try:
        nb = nbformat.reads(raw, as_version=4)
        nbformat.validate(nb)
    except (nbformat.ValidationError, ValueError, KeyError, TypeError, AttributeError) as err:
        kind = "a JSON list" if isinstance(data, list) else "JSON"
        return f"{kind} but not a Jupyter notebook ({' '.join(str(err).split())[:120]})"
    return ""


# --------------------------------------------------------------------------- main
def resolve_lab(lab: str) -> Path:
    path = Path(lab)
    for candidate in (path, ROOT / path, ROOT / "labs" / path, ROOT / "labs" / f"{lab}.ipynb"):
        if candidate.is_file() and candidate.suffix == ".ipynb":
            return candidate.resolve()
    raise SystemExit(f"No lab {lab!r}: give a name from labs/ (e.g. lab-nan) or a notebook path.")


def grade(lab: Path, submissions: Path, out: Path, timeout: int = DEFAULT_TIMEOUT,
          keep: bool = False) -> list[Row]:
    """Grade every .ipynb in `submissions`; write out/<lab>.csv and out/<lab>/<student>.html."""
    files = sorted(submissions.glob("*.ipynb"))
    if not files:
        raise SystemExit(f"No .ipynb files in {submissions}.")
    sandbox, why = sandbox_works()
    if not sandbox:
        warn_no_sandbox(why)
    course = Course(lab, timeout, sandbox)
    print(f"Grading {len(files)} submission(s) of {lab.name}, {timeout} s per cell, "
          f"{'sandboxed (bwrap)' if sandbox else 'NOT SANDBOXED'}; course directory {course.work}",
          flush=True)
    feedback_dir = out / lab.stem
    rows: list[Row] = []
    try:
        problems = {}
        for path in files:
            problem = check_submission(path)
            if not STUDENT_ID.match(path.stem):
                problem = "the file name is not a usable student id (letters, digits, _ . -)"
            if problem:
                problems[path.stem] = problem
            else:
                course.submit(path.stem, path)
        graded = course.grade_all([p.stem for p in files if p.stem not in problems])
        for path in files:
            student = path.stem
            if student in problems:
                new, feedback = [Row(student, "TOTAL", 0, course.max_points(), "invalid", problems[student])], None
            else:
                new, feedback = graded[student]
            if feedback is not None:
                feedback_dir.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(feedback, feedback_dir / f"{student}.html")
            total = new[-1]
            print(f"  {student}: {total.points:g}/{total.max_points:g} {total.status} {total.message}", flush=True)
            rows += new
    finally:
        if keep:
            print(f"Kept the course directory: {course.work}")
        else:
            shutil.rmtree(course.work, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{lab.stem}.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        writer.writerows(astuple(r) for r in rows)
    print(f"Wrote {out / f'{lab.stem}.csv'} and feedback in {feedback_dir}/")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lab", help="a lab name (lab-nan) or a notebook path")
    parser.add_argument("submissions", type=Path, help="a folder of <student>.ipynb files")
    parser.add_argument("--out", type=Path, default=ROOT / "grades", help="where the CSV goes")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per cell")
    parser.add_argument("--keep", action="store_true", help="keep the course directory")
    args = parser.parse_args(argv)
    grade(resolve_lab(args.lab), args.submissions, args.out, args.timeout, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
