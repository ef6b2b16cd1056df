"""Grades for the LMS: grades/<lab>-canvas.csv and grades/<lab>-moodle.csv.

One grade per student: the TOTAL row's points of the grading CSV. A submission that is
not a notebook (status ``invalid``) scores 0, as in that CSV; a student whose grading
failed (status ``error``: the grader's trouble, not the student's) is left empty, so the
LMS keeps what it has until you grade that file by hand. (The grading command leaves out
files whose name is not a usable student id.)

**Canvas** (Grades → Import, a CSV file). The documented columns, in the order of
Canvas's own gradebook export (columns A to E, then the assignments): ``Student``,
``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, then one column per assignment.
Required: one of Student name, Student ID or SIS User ID; the SIS Login ID; the Section;
the assignment's column. A new assignment column creates a new assignment; a score in
the file overwrites the one in the gradebook. Columns Canvas computes (current and final
scores, assignment groups) are read-only and ignored on import. (Sources: Ohio State's
"Import a CSV file to Carmen grades",
https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades,
for the required columns; VCU's "Gradebook Action Menu",
https://ts.vcu.edu/askit/teaching-and-learning/canvas/faculty/grading-faculty/gradebook-action-menu-faculty/,
for the read-only columns.)

Without a roster the student id (the submission's file name) fills ``Student`` and
``SIS Login ID``; ``ID``, ``SIS User ID`` and ``Section`` stay empty, and the assignment
column is named after the lab (``lab-nan``), so Canvas creates that assignment on the
first import. With Canvas's own export as a roster (``--canvas-roster``), a student is
found by any of ``ID``, ``SIS User ID``, ``SIS Login ID`` equal to the file name, their
row keeps Canvas's values, and an existing assignment column (``lab-nan (1234)``) is
used as is, so the grades go into that assignment; students the roster does not know
are written as without a roster and listed by ``canvas_csv``.

**Moodle** (Grades → Import → CSV file). Any header row; after the upload, Moodle asks
which column identifies the user ("Map from") and which user field it holds ("Map to":
user id, username, ID number or email address), then which grade item each other column
goes into. The file has two columns: ``ID`` (the student id: map it to what your file
names are, e.g. Username or ID number) and the lab's name (map it to the assignment's
grade item). (Source: MoodleDocs, "Grade import", https://docs.moodle.org/311/en/Grade_import:
CSV import, "Map from" / "Map to", and the fields a user can be identified by.)
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from pathlib import Path

CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_MATCH = ("ID", "SIS User ID", "SIS Login ID")
MOODLE_ID = "ID"


def totals(rows: Iterable) -> dict[str, float | None]:
    """{student: points for the LMS} from the TOTAL rows (None: grading failed)."""
    found: dict[str, float | None] = {}
    for row in rows:
        if row.grade_id == "TOTAL":
            found[row.student] = None if row.status == "error" else float(row.points)
    return found


def _cell(points: float | None) -> str:
    return "" if points is None else f"{points:g}"


def read_roster(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Canvas's gradebook export: (its header, its student rows). The export's
    ``Points Possible`` row, and anything without a student, is left out."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        header = list(reader.fieldnames or [])
        missing = [c for c in CANVAS_IDENTITY if c not in header]
        if missing:
            raise ValueError(f"{path} is not a Canvas gradebook export: no column "
                             f"{', '.join(missing)}")
        rows = [r for r in reader
                if (r.get("Student") or "").strip()
                and "Points Possible" not in (r.get("Student") or "")]
    return header, rows


def canvas_column(lab: str, header: Iterable[str] = ()) -> str:
    """The roster's column of this assignment (``lab-nan (1234)``), else ``lab``."""
    pattern = re.compile(rf"^{re.escape(lab)}( \(\d+\))?$")
    return next((c for c in header if pattern.match(c)), lab)


def canvas_csv(path: Path, lab: str, rows: Iterable,
               roster: Path | None = None) -> list[str]:
    """Write the Canvas gradebook import; return the students the roster lacks."""
    grades = totals(rows)
    header, known = read_roster(roster) if roster else ([], [])
    column = canvas_column(lab, header)
    by_id: dict[str, dict[str, str]] = {}
    for entry in known:
        for key in CANVAS_MATCH:
            if entry.get(key):
                by_id.setdefault(entry[key].strip(), entry)
    unknown: list[str] = []
    out = []
    for student, points in grades.items():
        found = by_id.get(student)
        if found is None:
            if roster:
                unknown.append(student)
            identity = {"Student": student, "ID": "", "SIS User ID": "",
                        "SIS Login ID": student, "Section": ""}
        else:
            identity = {c: found.get(c, "") for c in CANVAS_IDENTITY}
        out.append([identity[c] for c in CANVAS_IDENTITY] + [_cell(points)])
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([*CANVAS_IDENTITY, column])
        writer.writerows(out)
    return unknown


def moodle_csv(path: Path, lab: str, rows: Iterable) -> None:
    """Write the Moodle CSV grade import: the student id, and the lab's grade."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([MOODLE_ID, lab])
        writer.writerows([s, _cell(p)] for s, p in totals(rows).items())


def write_all(out: Path, lab: str, rows: Iterable,
              roster: Path | None = None) -> tuple[list[Path], list[str]]:
    """Both files in ``out``; (their paths, the students the Canvas roster lacks)."""
    rows = list(rows)
    canvas, moodle = out / f"{lab}-canvas.csv", out / f"{lab}-moodle.csv"
    unknown = canvas_csv(canvas, lab, rows, roster)
    moodle_csv(moodle, lab, rows)
    return [canvas, moodle], unknown
