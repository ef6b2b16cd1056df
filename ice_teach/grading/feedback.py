"""Feedback a learner can read: grades/<lab>/<student>.md, beside nbgrader's own.

nbgrader's ``generate_feedback`` (run by the grading worker) writes
grades/<lab>/<student>.html: the whole graded notebook, every cell's output and each
check's score. It works offline on the gradebook of the student's grading course, and it
stays the complete record. What it does not give is the short answer a learner wants
first: which checks passed and, for each failure, the hint that names the mistake. This
module writes that, one Markdown file per graded student (it reads as plain text too):
the total, then per exercise (the lab's ``## Exercise ...`` heading) each check with its
points, the ``Check passed: ...`` line of a passed check, and the full text of a failed
check's error (the ``AssertionError`` hint, "Still stuck" lines included), or why the
check could not run (``timeout``, ``kernel died``).

The hints come from the graded notebook (``outputs``, called by the grading worker, which
puts them in its result.json); the points and statuses from the grading rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import nbformat

#: How each status reads in the feedback.
MARKS = {"passed": "passed", "partial": "partly passed", "failed": "FAILED",
         "timeout": "TIMED OUT", "kernel died": "KERNEL DIED", "missing": "MISSING"}


def _grade_id(cell) -> str:
    meta = cell.metadata.get("nbgrader") or {}
    return meta.get("grade_id", "") if meta.get("grade") else ""


def outputs(graded: nbformat.NotebookNode) -> dict[str, str]:
    """{grade_id: what the check cell said} for each graded cell of an autograded
    notebook: its last error as ``Name: message`` (the message whole, lines kept), else
    the lines its run printed that start with ``Check passed``."""
    found: dict[str, str] = {}
    for cell in graded.cells:
        gid = _grade_id(cell)
        if not gid or cell.cell_type != "code":
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            ename = errors[-1].get("ename", "")
            evalue = str(errors[-1].get("evalue", "")).strip()
            found[gid] = f"{ename}: {evalue}" if evalue else ename
            continue
        text = "".join(o.get("text", "") for o in cell.get("outputs", [])
                       if o.get("output_type") == "stream")
        passed = [line for line in text.splitlines() if line.startswith("Check passed")]
        if passed:
            found[gid] = "\n".join(passed)
    return found


def exercise_titles(lab: nbformat.NotebookNode) -> dict[str, str]:
    """{check grade_id: the title of its exercise}: the last ``## `` heading above the
    exercise's solution cell (``Exercise 1: a float64 pipeline``), else the solution's
    grade_id; a check before any solution cell gets "-"."""
    titles: dict[str, str] = {}
    heading, current = "", "-"
    for cell in lab.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("## "):
                    heading = line[3:].strip()
            continue
        meta = cell.metadata.get("nbgrader") or {}
        if meta.get("solution"):
            current = heading or meta.get("grade_id", "-")
            heading = ""  # one heading names one exercise
        elif meta.get("grade"):
            titles[meta.get("grade_id", "")] = current
    return titles


def _of(got: float, of: float) -> str:
    return f"{got:g} of {of:g} point{'' if of == 1 else 's'}"


def _quote(text: str) -> list[str]:
    return [f"    {line}" if line.strip() else "" for line in text.splitlines()]


def markdown(lab_name: str, student: str, rows: Iterable, titles: Mapping[str, str],
             said: Mapping[str, str]) -> str:
    """One student's feedback. rows: that student's grading rows (Row objects: grade_id,
    points, max_points, status, message; the TOTAL row included); titles: from
    ``exercise_titles``; said: from ``outputs`` (may be empty: the rows' messages,
    shortened, are used then)."""
    rows = list(rows)
    total = next((r for r in rows if r.grade_id == "TOTAL"), None)
    checks = [r for r in rows if r.grade_id != "TOTAL"]
    lines = [f"# {lab_name}: feedback for {student}", ""]
    if total is not None:
        lines.append(f"**Total: {_of(total.points, total.max_points)}.**")
        if total.status != "graded":
            lines += ["", f"This submission could not be graded ({total.status}): "
                          f"{total.message}"]
        elif total.message:
            lines += ["", f"Note from the grader: {total.message}"]
    if checks:
        passed = sum(r.status == "passed" for r in checks)
        lines += ["", f"{passed} of {len(checks)} checks passed. Each failed check's "
                      "message is the hint: it names the mistake and where to look.",
                  ""]
    by_exercise: dict[str, list] = {}
    for row in checks:
        by_exercise.setdefault(titles.get(row.grade_id, "-"), []).append(row)
    for title, mine in by_exercise.items():
        got = sum(r.points for r in mine)
        of = sum(r.max_points for r in mine)
        name = title if title != "-" else "Checks outside an exercise"
        lines += [f"## {name} ({_of(got, of)})", ""]
        for row in mine:
            mark = MARKS.get(row.status, row.status)
            lines.append(f"- `{row.grade_id}`: {mark}, {_of(row.points, row.max_points)}")
            text = said.get(row.grade_id) or row.message
            if text:
                lines += ["", *_quote(text), ""]
        if lines[-1] != "":
            lines.append("")
    if total is not None and total.status == "graded":
        lines.append(f"The graded notebook, with every cell's output: {student}.html")
    return "\n".join(lines).rstrip() + "\n"


def write_all(folder: Path, lab: Path, rows: Iterable,
              said: Mapping[str, Mapping[str, str]] | None = None) -> list[Path]:
    """Write folder/<student>.md for every student with rows; return the paths."""
    titles = exercise_titles(nbformat.read(lab, as_version=4))
    by_student: dict[str, list] = {}
    for row in rows:
        by_student.setdefault(row.student, []).append(row)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student, mine in by_student.items():
        path = folder / f"{student}.md"
        path.write_text(markdown(lab.stem, student, mine, titles,
                                 (said or {}).get(student, {})), encoding="utf-8")
        written.append(path)
    return written
