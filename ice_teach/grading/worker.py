"""One student's grading, in a child process of the grading CLI (ice_teach.grading.cli):

    python -m ice_teach.grading.worker <job.json>

The child gets a course directory of its own (a copy of the lab's generated assignment
and gradebook, with this one submission), runs nbgrader's Python API on it
(`NbGraderAPI.autograde`, then `generate_feedback`) and writes what happened to
result.json: nbgrader's own success / error for the student, and one row per graded cell
read from the gradebook. A child per student means a crash, a loop or a broken notebook
can only ever cost that student's grade, and many can run at once.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

COURSE_ID = "tensor-of-ice"


def nbgrader_config(root: Path, timeout: int, ipc: Path):
    """The nbgrader settings of a grading course (book/teachers.md says why each)."""
    from ice_teach.grading.guard import GuardChecks, check_imports, guard_source
    from ice_teach.grading.preprocessors import KeepStderr, SurvivingExecute
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata,
                                        IgnorePattern, LimitOutput, SaveAutoGrades)
    from traitlets.config import Config

    c = Config()
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
    c.CourseDirectory.course_id = COURSE_ID
    c.OverwriteCells.add_missing_cells = True  # deleted checks come back from the lab
    c.Execute.timeout = timeout
    c.Execute.kernel_name = "ice-grade"  # kernel.sh: in the sandbox unless opted out
    c.KernelManager.transport = "ipc"  # unix sockets: the sandbox has no network
    c.KernelManager.ip = str(ipc / "kernel")
    labs = sorted((root / "source").glob("*/*.ipynb"))  # the teacher's copy of the lab
    if labs:
        import nbformat

        c.GuardChecks.source = guard_source(check_imports(nbformat.read(labs[0], 4)))
    c.Autograde.autograde_preprocessors = [
        GuardChecks, SurvivingExecute, KeepStderr, IgnorePattern,
        ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades, AssignLatePenalties,
        CheckCellMetadata,
    ]
    return c


def api_for(root: Path, timeout: int = 60, ipc: Path | None = None):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    config = nbgrader_config(root, timeout, ipc or root)
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def _short(result: dict) -> str:
    """The last line of nbgrader's traceback, and its last [ERROR] log lines."""
    error = (result.get("error") or "").strip().splitlines()
    log = (result.get("log") or "").splitlines()
    logged = [line for line in log if "[ERROR]" in line]
    text = " | ".join([*logged[-2:], *error[-1:]])
    return " ".join(text.split())[:400]


def cell_status(cell, points: float, max_points: float) -> tuple[str, str]:
    if cell is None:
        return "missing", "the cell is not in the graded notebook"
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if errors:
        if any(o.get("ename") == "KernelDied" for o in errors):
            return "kernel died", "the Python kernel died while this check ran"
        if any(o.get("ename") == "CellTimeoutError" for o in errors):
            return "timeout", ("no answer before the per-cell timeout; the kernel was "
                               "interrupted")
        ename = errors[-1].get("ename", "")
        evalue = " ".join(str(errors[-1].get("evalue", "")).split())[:200]
        return "failed", f"{ename}: {evalue}" if evalue else ename
    return ("passed", "") if points >= max_points else ("partial", "")


#: What the check of an exercise says when its solution cell, not the check, broke.
SOLUTION_BROKE = {
    "CellTimeoutError": ("timeout", "The solution cell {gid} ran past the per-cell "
                         "timeout and was interrupted (a loop that never ends?), so "
                         "the check ran without it"),
    "KernelDied": ("kernel died", "The Python kernel died while the solution cell "
                   "{gid} ran (os._exit, a crash, out of memory); the kernel was "
                   "restarted without that cell, so the check ran without it"),
}


def solution_trouble(graded) -> dict[str, tuple[str, str]]:
    """{check grade_id: (status, why)} for each check whose exercise's solution cell
    (the last one above it) timed out or killed the kernel: the check then fails on a
    name the cell never defined; its status and message say what really happened."""
    found: dict[str, tuple[str, str]] = {}
    trouble = None
    for cell in graded.cells:
        meta = cell.metadata.get("nbgrader") or {}
        if cell.cell_type != "code":
            continue
        if meta.get("solution"):
            names = {o.get("ename") for o in cell.get("outputs", [])
                     if o.get("output_type") == "error"}
            hit = next((e for e in SOLUTION_BROKE if e in names), None)
            trouble = None if hit is None else (
                SOLUTION_BROKE[hit][0],
                SOLUTION_BROKE[hit][1].format(gid=f"`{meta.get('grade_id', '')}`"))
        elif meta.get("grade") and trouble is not None:
            found[meta.get("grade_id", "")] = trouble
    return found


def rows(root: Path, lab: str, student: str) -> list[list]:
    """[grade_id, points, max_points, status, message] per graded cell, in lab order."""
    import nbformat
    from nbgrader.api import Gradebook

    path = root / "autograded" / student / lab / f"{lab}.ipynb"
    graded = nbformat.read(path, as_version=4)
    cells = {(c.metadata.get("nbgrader") or {}).get("grade_id"): c
             for c in graded.cells}
    order = {g: i for i, g in enumerate(cells)}
    trouble = solution_trouble(graded)
    out = []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", COURSE_ID) as gb:
        notebook = gb.find_submission_notebook(lab, lab, student)
        for grade in sorted(notebook.grades, key=lambda g: order.get(g.name, 10**6)):
            points = grade.score or 0
            status, message = cell_status(cells.get(grade.name), points,
                                          grade.max_score)
            if status == "failed" and grade.name in trouble:
                status, why = trouble[grade.name]
                message = f"{why}: {message}"[:400]
            out.append([grade.name, points, grade.max_score, status, message])
    return out


def grade_one(job_path: str) -> None:
    """Autograde one student with nbgrader's API; write result.json next to job.json."""
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    root, lab, student = Path(job["root"]), job["lab"], job["student"]
    scripts = Path(sys.executable).parent
    os.environ.update(JUPYTER_PATH=job["jupyter_path"],
                      JUPYTER_RUNTIME_DIR=job["runtime"],
                      PATH=f"{scripts}{os.pathsep}{os.environ['PATH']}")
    os.chdir(root)
    api = api_for(root, job["timeout"], Path(job["ipc"]))
    result: dict = {"student": student}
    done = api.autograde(lab, student, force=True, create=True)
    result["autograde"] = {"success": bool(done.get("success")), "why": _short(done)}
    graded = root / "autograded" / student / lab / f"{lab}.ipynb"
    if graded.exists():
        result["rows"] = rows(root, lab, student)
        import nbformat

        from ice_teach.grading.feedback import outputs

        graded_nb = nbformat.read(graded, as_version=4)
        said = outputs(graded_nb)  # the whole hints
        trouble = solution_trouble(graded_nb)
        for gid, _, _, status, _ in result["rows"]:
            if gid in trouble and status == trouble[gid][0]:  # rows() found it failed
                said[gid] = f"{trouble[gid][1]}:\n{said.get(gid, '')}".rstrip()
        result["said"] = said
        fb = api.generate_feedback(lab, student, force=True)
        html = root / "feedback" / student / lab / f"{lab}.html"
        result["feedback"] = str(html) if fb.get("success") and html.exists() else None
        result["feedback_why"] = "" if result["feedback"] else _short(fb)
    out = Path(job_path).with_name("result.json")
    tmp = out.with_suffix(".part")
    tmp.write_text(json.dumps(result), encoding="utf-8")
    os.replace(tmp, out)


if __name__ == "__main__":
    grade_one(sys.argv[1])
