"""Grade a folder of lab submissions with nbgrader.

    make grade LAB=lab-nan SUBMISSIONS=dir [JOBS=N] [TIMEOUT=s] [UNSANDBOXED=1]

    ice-teach grade lab-nan submissions/ [--out grades] [--timeout S] [--jobs N]
                          [--no-sandbox] [--keep]

Every `<student>.ipynb` in the folder is one student's submission (the file's stem is
the student's id). It runs from any folder: relative paths (the lab's notebook, the
submissions, --out) are read from the current folder, a lab's name from the clone's
labs/. nbgrader is the grader of record, driven through its Python API
(ice_teach/grading/worker.py): `generate_assignment` once, then for each student, in a child
process of its own (`python -m ice_teach.grading.worker JOB`) and a course directory of its own,
`NbGraderAPI.autograde` restores the locked and hidden check cells from the lab
(`OverwriteCells`, `add_missing_cells=True`: a check edited to `assert True` or deleted
counts as the original), runs the notebook and scores it; `generate_feedback` writes the
feedback. Whether a student was graded is nbgrader's return value, not its log.

--jobs N students are graded at once (default: the number of cores), with a progress bar
(graded / total, and how many could not be graded or lost points so far).

Out: grades/<lab>.csv, one row per student and graded cell
(student,grade_id,points,max_points,status,message,seconds) and a TOTAL row per student
(seconds: how long that student's grading took); grades/<lab>-summary.txt, what a
teacher reads first (ice_teach/grading/summary.py), and -summary.html, the same as a page
(report_html.py); grades/<lab>/<student>.html, nbgrader's feedback (the graded notebook),
and <student>.md, each check's points and hint (feedback.py); grades/<lab>-canvas.csv and
grades/<lab>-moodle.csv, the grades in the Canvas and Moodle gradebook import formats
(export.py; --canvas-roster: Canvas's gradebook export, to use its ids and assignment).

Where things live: a throw-away directory made with tempfile.mkdtemp, named
`ice-grade-<lab>-*` in the system's temp folder (template/: the generated assignment
and its gradebook.db; students/<id>/: that student's copy of the course, its kernel's
sockets).
It is deleted at the end; --keep keeps it and prints its path.

Surviving students (ice_teach/grading/preprocessors.py): each cell has --timeout seconds; an infinite
loop is interrupted (status `timeout`), a kernel death scores that exercise 0 (status
`kernel died`) and grading goes on; a file that is not a notebook gets one row saying
so; a warning on stderr does not cost a correct answer its points. A child that runs
past the lab's code cells times the timeout plus five minutes is killed (`error`).

The sandbox (ice_teach/grading/sandbox.py, Linux, bubblewrap) is on by default: when it cannot
start, grading stops before it begins and says why and what to install. --no-sandbox
(make grade ... UNSANDBOXED=1) grades without it, after a large banner.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import astuple, dataclass
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook  # the teach extra: without it, ice-teach says so

from ice_teach import settings, student
from ice_teach.grading import export as grade_export
from ice_teach.grading import feedback as grade_feedback
from ice_teach.grading import report_html
from ice_teach.grading import sandbox as grade_sandbox
from ice_teach.grading import summary as grade_summary
from ice_teach.grading import worker as grade_worker

ROOT = Path(__file__).resolve().parents[2]

DEFAULT_TIMEOUT = 120
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
FIELDS = ("student", "grade_id", "points", "max_points", "status", "message", "seconds")


@dataclass
class Row:
    student: str
    grade_id: str
    points: float
    max_points: float
    status: str
    message: str = ""
    seconds: float | str = ""


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# --------------------------------------------------------------------------- course
class Course:
    """The generated assignment, and a copy of it per student (see the docstring)."""

    def __init__(self, lab: Path, timeout: int, work: Path, prefix: list[str] | None,
                 threads: int = 1):
        self.lab, self.name, self.timeout, self.prefix = lab, lab.stem, timeout, prefix
        self.work, self.threads = work, threads
        self.said: dict[str, dict[str, str]] = {}  # {student: {grade_id: its message}}
        self.template = self.work / "template"
        source = self.template / "source" / self.name
        source.mkdir(parents=True)
        shutil.copyfile(lab, source / lab.name)
        for rel in student.lab_data(lab.parent):  # what the lab reads beside it
            (source / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(lab.parent / rel, source / rel)
        api = grade_worker.api_for(self.template)
        done = api.generate_assignment(self.name, force=True)
        if not done.get("success"):
            raise SystemExit(f"nbgrader generate_assignment failed on {lab.name}:\n"
                             f"{(done.get('log') or '')[-3000:]}")
        db = f"sqlite:///{self.template / 'gradebook.db'}"
        with Gradebook(db, grade_worker.COURSE_ID) as gb:
            self.max_points = gb.find_assignment(self.name).max_score
        cells = nbformat.read(lab, as_version=4).cells
        code_cells = sum(c.cell_type == "code" for c in cells)
        self.bound = code_cells * timeout + 300  # one student's run never takes longer

    def _prepare(self, student: str, submission: Path) -> Path:
        """students/<id>/: a course copy with this submission, a kernel, job.json."""
        home = self.work / "students" / student
        root = home / "course"
        shutil.copytree(self.template, root)
        dest = root / "submitted" / student / self.name
        dest.mkdir(parents=True)
        shutil.copyfile(submission, dest / f"{self.name}.ipynb")
        ipc, runtime = home / "ipc", home / "runtime"
        ipc.mkdir()
        runtime.mkdir()
        prefix = None
        if self.prefix is not None:
            prefix = [*self.prefix, "--bind", str(ipc), str(ipc)]
        grade_sandbox.write_launcher(home / "kernel.sh", prefix)
        spec = home / "jupyter" / "kernels" / "ice-grade"
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [str(home / "kernel.sh"), "{connection_file}"],
            "display_name": "Python 3 (grading sandbox)",
            "language": "python",
            "interrupt_mode": "message",  # a signal to bwrap would not reach the kernel
            "env": {**settings.EXECUTION_ENV, "OMP_NUM_THREADS": str(self.threads)},
        }))
        job = home / "job.json"
        job.write_text(json.dumps({
            "root": str(root), "lab": self.name, "student": student,
            "timeout": self.timeout, "ipc": str(ipc), "runtime": str(runtime),
            "jupyter_path": str(home / "jupyter"),
        }))
        return job

    def grade_student(self, student: str,
                      submission: Path) -> tuple[list[Row], Path | None]:
        """Grade one student in a child process; never raises for what they did."""
        from ice_lab._child import run as run_child  # its process group, killed whole

        start = time.monotonic()
        job = self._prepare(student, submission)
        try:
            outcome = run_child([sys.executable, "-m", "ice_teach.grading.worker", str(job)],
                                timeout=self.bound,
                                env=dict(os.environ, PYTHONUNBUFFERED="1"))
        except OSError as err:
            row = Row(student, "TOTAL", 0, self.max_points, "error",
                      f"the grading process could not start: {err}"[:400],
                      round(time.monotonic() - start, 1))
            return [row], None
        seconds = round(time.monotonic() - start, 1)
        result_path = job.with_name("result.json")
        result = json.loads(result_path.read_text()) if result_path.exists() else {}
        feedback = Path(result["feedback"]) if result.get("feedback") else None
        self.said[student] = result.get("said") or {}
        if result.get("rows"):
            rows = [Row(student, *r) for r in result["rows"]]
            total = sum(r.points for r in rows)
            why = "" if result["autograde"]["success"] else result["autograde"]["why"]
            if feedback is None:
                why = f"{why} no feedback: {result.get('feedback_why', '')}".strip()
            rows.append(Row(student, "TOTAL", total, sum(r.max_points for r in rows),
                            "graded", why, seconds))
            return rows, feedback
        if outcome.timed_out:
            why = f"grading ran past {self.bound} s and was stopped"
        elif "autograde" in result:
            why = "nbgrader could not grade it: " + result["autograde"]["why"]
        else:
            lines = outcome.stderr.strip().splitlines() or [f"exit {outcome.returncode}"]
            why = f"the grading process failed: {lines[-1]}"
        row = Row(student, "TOTAL", 0, self.max_points, "error", why[:400], seconds)
        return [row], None


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
    except (nbformat.ValidationError, ValueError, KeyError, TypeError,
            AttributeError) as err:
        kind = "a JSON list" if isinstance(data, list) else "JSON"
        return f"{kind} but not a Jupyter notebook ({' '.join(str(err).split())[:120]})"
    return ""


# --------------------------------------------------------------------------- main
def resolve_lab(lab: str) -> Path:
    path = Path(lab)
    labs = ROOT / "labs"
    for candidate in (path, ROOT / path, labs / path, labs / f"{lab}.ipynb"):
        if candidate.is_file() and candidate.suffix == ".ipynb":
            return candidate.resolve()
    raise SystemExit(f"No lab {lab!r}: give a name from labs/ (e.g. lab-nan) or a "
                     "notebook path.")


def _bar(total: int):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="student", desc="graded", file=sys.stderr,
                bar_format="{desc} {n_fmt}/{total_fmt} |{bar}| "
                           "{elapsed}<{remaining}{postfix}")


def lab_cell_timeout(lab: Path) -> int | None:
    """The seconds one cell of ``lab`` may need, where the lab says so in its notebook
    metadata (``"ice_lab": {"cell_timeout": 330}``): lab-distributed's torchrun jobs may
    each take up to five minutes on a loaded machine. None where the lab says nothing."""
    meta = nbformat.read(lab, as_version=4).metadata.get("ice_lab") or {}
    value = meta.get("cell_timeout") if isinstance(meta, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def cell_timeout(lab: Path, asked: int | None) -> int:
    """The per-cell timeout to grade with: what the teacher asked for, else the larger of
    the default and what the lab needs. A timeout asked below the lab's need is kept, with
    a warning (a slow but right answer may then score 0 as `timeout`)."""
    needed = lab_cell_timeout(lab)
    if asked is None:
        return max(DEFAULT_TIMEOUT, needed or 0)
    if needed is not None and asked < needed:
        print(f"Warning: {lab.stem}'s cells may need {needed} s each; with --timeout "
              f"{asked} a slow but right answer can score 0 (status timeout).",
              file=sys.stderr, flush=True)
    return asked


def grade(lab: Path, submissions: Path, out: Path, timeout: int | None = None,
          keep: bool = False, jobs: int | None = None,
          sandbox: bool = True, canvas_roster: Path | None = None) -> list[Row]:
    """Grade every .ipynb in `submissions`; write the CSV, summary and feedback.
    ``timeout``: seconds per cell (None: 120, or more where the lab asks for more);
    ``canvas_roster``: Canvas's gradebook export, to fill the Canvas CSV (export.py)."""
    timeout = cell_timeout(lab, timeout)
    files = sorted(submissions.glob("*.ipynb"))
    if not files:
        raise SystemExit(f"No .ipynb files in {submissions}.")
    # nbgrader's gradebook runs the `alembic` script: this environment's scripts first
    scripts = Path(sys.executable).parent
    os.environ["PATH"] = f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}"
    jobs = max(1, min(jobs or cores(), len(files)))
    threads = max(1, cores() // jobs)
    work = Path(tempfile.mkdtemp(prefix=f"ice-grade-{lab.stem}-")).resolve()
    secrets = [ROOT, lab.parent, submissions, out, work]
    try:
        prefix = None
        if sandbox:
            try:
                grade_sandbox.check(secrets)
                out.mkdir(parents=True, exist_ok=True)  # to be covered if need be
                prefix = grade_sandbox.bwrap_prefix(secrets, threads=threads)
            except grade_sandbox.SandboxError as err:
                raise SystemExit(f"make grade stopped before grading: {err}") from None
        else:
            print(grade_sandbox.banner("--no-sandbox (UNSANDBOXED=1) was asked for"),
                  file=sys.stderr, flush=True)
        course = Course(lab, timeout, work, prefix, threads)
        return _grade_all(course, files, out, jobs, sandbox, canvas_roster)
    finally:
        if keep:
            print(f"Kept the course directory: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _grade_all(course: Course, files: list[Path], out: Path, jobs: int,
               sandbox: bool, canvas_roster: Path | None = None) -> list[Row]:
    how = "sandboxed (bwrap)" if sandbox else "NOT SANDBOXED"
    print(f"Grading {len(files)} submission(s) of {course.lab.name}, "
          f"{course.timeout} s per cell, {jobs} at a time, {how}", flush=True)
    feedback_dir = out / course.name
    by_student: dict[str, list[Row]] = {}
    feedback: dict[str, Path] = {}
    todo = []
    for path in files:
        problem = check_submission(path)
        if not STUDENT_ID.match(path.stem):
            problem = "the file name is not a usable student id (letters, digits, _.-)"
        if problem:
            by_student[path.stem] = [
                Row(path.stem, "TOTAL", 0, course.max_points, "invalid", problem, 0)]
        else:
            todo.append(path)
    start = time.monotonic()
    with _bar(len(files)) as bar, ThreadPoolExecutor(jobs) as pool:
        def tally() -> None:
            totals = [r[-1] for r in by_student.values()]
            errors = sum(t.status != "graded" for t in totals)
            lost = sum(t.status == "graded" and t.points < t.max_points for t in totals)
            bar.set_postfix_str(f"could not grade {errors}, lost points {lost}")

        bar.update(len(files) - len(todo))
        tally()
        futures = {pool.submit(course.grade_student, p.stem, p): p.stem for p in todo}
        for future in as_completed(futures):
            student = futures[future]
            rows, html = future.result()
            by_student[student] = rows
            if html is not None:
                feedback[student] = html
            total = rows[-1]
            bar.write(f"  {student}: {total.points:g}/{total.max_points:g} "
                      f"{total.status} ({total.seconds:g} s) {total.message}".rstrip())
            bar.update(1)
            tally()
    wall = time.monotonic() - start
    out.mkdir(parents=True, exist_ok=True)
    for student, html in feedback.items():
        feedback_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(html, feedback_dir / f"{student}.html")
    rows = [r for path in files for r in by_student[path.stem]]
    with open(out / f"{course.name}.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(FIELDS)
        writer.writerows(astuple(r) for r in rows)
    text = grade_summary.summary(course.lab, rows, jobs=jobs, wall=wall)
    (out / f"{course.name}-summary.txt").write_text(text + "\n", encoding="utf-8")
    print(text)
    _hand_outs(course, rows, out, text, canvas_roster)
    print(f"Wrote {out / f'{course.name}.csv'}, {course.name}-summary.txt and .html, "
          f"{course.name}-canvas.csv and -moodle.csv, and the feedback in "
          f"{feedback_dir}/ (<student>.md and .html)")
    return rows


def _hand_outs(course: Course, rows: list[Row], out: Path, text: str,
               canvas_roster: Path | None) -> None:
    """Each student's feedback (.md), the LMS CSVs and the class page."""
    grade_feedback.write_all(out / course.name, course.lab, rows, course.said)
    usable = [r for r in rows if STUDENT_ID.match(r.student)]  # ids an LMS can match
    _, unknown = grade_export.write_all(out, course.name, usable, canvas_roster)
    if unknown:
        print(f"Warning: {len(unknown)} student(s) not in the Canvas roster "
              f"{canvas_roster}, written with their file name as SIS Login ID: "
              f"{', '.join(unknown)}", file=sys.stderr, flush=True)
    head = text.split("\n\n")[0]
    page = report_html.page(course.lab, rows, head, course.said, feedback=course.name)
    (out / f"{course.name}-summary.html").write_text(page, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lab", help="a lab name (lab-nan) or a notebook path")
    parser.add_argument("submissions", type=Path,
                        help="a folder of <student>.ipynb files")
    parser.add_argument("--out", type=Path, default=ROOT / "grades",
                        help="the folder the grades, summaries and feedback go to "
                             "(default: the clone's grades/, from any folder)")
    parser.add_argument("--timeout", type=int, default=None,
                        help=f"seconds per cell (default: {DEFAULT_TIMEOUT}, or what the "
                             "lab's metadata asks for, e.g. lab-distributed's 330)")
    parser.add_argument("--jobs", type=int, default=None,
                        help=f"students graded at once (default: the cores, {cores()})")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade without the sandbox (trusted submissions only)")
    parser.add_argument("--keep", action="store_true", help="keep the course directory")
    parser.add_argument("--canvas-roster", type=Path, default=None,
                        help="Canvas's gradebook export (CSV): the Canvas CSV then uses "
                             "its students' ids, sections and the lab's assignment column")
    args = parser.parse_args(argv)
    if args.timeout is not None and args.timeout < 1:
        parser.error(f"--timeout must be 1 second or more, got {args.timeout}")
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs must be 1 or more, got {args.jobs}")
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder of submissions")
    grade(resolve_lab(args.lab), args.submissions.resolve(), args.out.resolve(),
          args.timeout, args.keep, args.jobs, sandbox=not args.no_sandbox,
          canvas_roster=args.canvas_roster)
    return 0


if __name__ == "__main__":
    sys.exit(main())
