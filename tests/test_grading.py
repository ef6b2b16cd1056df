"""Grading with nbgrader (tools/grade.py, tools/grade_kernel.py; book/teachers.md).

- a plain nbgrader round trip: generate_assignment, autograde, scores in the gradebook;
- `make grade`'s CSV over one submission of each kind a grader must survive, on a tiny
  lab in the labs' format (tests/grading/make_tiny_lab.py: seconds per submission);
- one real lab end to end (lab-nan: the correct answer, the stub, the usual wrong answer).
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "tests" / "grading")]
import grade
from grading_submissions import make_submissions
from make_tiny_lab import make_tiny_lab

import student

pytest.importorskip("nbgrader")
NBGRADER = Path(sys.executable).parent / "nbgrader"


def read_csv(path: Path) -> dict[tuple[str, str], dict]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(grade.FIELDS)
    return {(r["student"], r["grade_id"]): r for r in rows}


def test_nbgrader_round_trip(tmp_path):
    """generate_assignment -> submissions -> autograde -> the gradebook's scores."""
    lab = make_tiny_lab(tmp_path / "lab")
    course = tmp_path / "course"
    (course / "source" / "tiny").mkdir(parents=True)
    shutil.copyfile(lab, course / "source" / "tiny" / "tiny.ipynb")
    shutil.copytree(lab.parent / "data", course / "source" / "tiny" / "data")
    db = f"sqlite:///{course / 'gradebook.db'}"
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(course)!r}\nc.CourseDirectory.db_url = {db!r}\n"
        "c.CourseDirectory.course_id = 'tiny'\nc.Execute.timeout = 30\n"
        "c.OverwriteCells.add_missing_cells = True\n"
    )
    env = dict(os.environ, PATH=f"{NBGRADER.parent}{os.pathsep}{os.environ['PATH']}")  # alembic

    def run(*args: str) -> None:
        done = subprocess.run([str(NBGRADER), *args], cwd=course, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[-2000:]

    run("generate_assignment", "tiny", "--force")
    release = nbformat.read(course / "release" / "tiny" / "tiny.ipynb", as_version=4)
    text = "\n".join(c.source for c in release.cells)
    assert "return 2 * x" not in text and "double(-4)" not in text
    made = make_submissions(lab, tmp_path / "made", wrong="return x + 2")
    for kind in ("correct", "stub", "wrong"):
        dest = course / "submitted" / kind / "tiny"
        dest.mkdir(parents=True)
        shutil.copyfile(made[kind], dest / "tiny.ipynb")
    run("autograde", "tiny", "--force")
    from nbgrader.api import Gradebook

    with Gradebook(db, "tiny") as gb:
        scores = {
            kind: {g.name: g.score for g in gb.find_submission_notebook("tiny", "tiny", kind).grades}
            for kind in ("correct", "stub", "wrong")
        }
    assert scores["correct"] == {"check_double": 2, "hidden_double": 1, "check_count": 2}
    assert scores["stub"] == {"check_double": 0, "hidden_double": 0, "check_count": 0}
    assert scores["wrong"] == {"check_double": 0, "hidden_double": 0, "check_count": 2}


#: (points of check_double, hidden_double, check_count), status of check_double
EXPECTED = {
    "correct": ((2, 1, 2), "passed"),
    "stub": ((0, 0, 0), "failed"),
    "wrong": ((0, 0, 2), "failed"),
    "check_assert_true": ((0, 0, 2), "failed"),
    "check_deleted": ((0, 0, 2), "failed"),
    "infinite_loop": ((0, 0, 2), "timeout"),
    "os_exit": ((0, 0, 2), "kernel died"),
    "segfault": ((0, 0, 2), "kernel died"),
    "snoop": ((0, 0, 2), "failed"),  # it finds neither the source nor the gradebook
    "stderr_warning": ((2, 1, 2), "passed"),
}


@pytest.mark.skipif(not grade.sandbox_works()[0], reason="needs bubblewrap (apt-get install bubblewrap)")
def test_grading_survives_every_kind_of_submission(tmp_path):
    lab = make_tiny_lab(tmp_path / "lab")
    subs = tmp_path / "submissions"
    make_submissions(lab, subs, wrong="return x + 2")
    (subs / "bad name!.ipynb").write_text((subs / "correct.ipynb").read_text())
    grade.grade(lab, subs, tmp_path / "grades", timeout=3)
    rows = read_csv(tmp_path / "grades" / "lab-tiny.csv")
    for kind, ((double, hidden, count), status) in EXPECTED.items():
        got = tuple(float(rows[(kind, g)]["points"]) for g in ("check_double", "hidden_double", "check_count"))
        assert got == (double, hidden, count), f"{kind}: {got}"
        assert rows[(kind, "check_double")]["status"] == status, f"{kind}: {rows[(kind, 'check_double')]}"
        assert float(rows[(kind, "TOTAL")]["points"]) == double + hidden + count
        assert float(rows[(kind, "TOTAL")]["max_points"]) == 5
        assert (tmp_path / "grades" / "lab-tiny" / f"{kind}.html").exists(), f"{kind}: no feedback"
    assert "double(3) is not 6" in rows[("wrong", "check_double")]["message"]
    assert rows[("not_json", "TOTAL")]["status"] == "invalid"
    assert "not valid JSON" in rows[("not_json", "TOTAL")]["message"]
    assert "not a Jupyter notebook" in rows[("not_notebook", "TOTAL")]["message"]
    assert "student id" in rows[("bad name!", "TOTAL")]["message"]
    feedback = (tmp_path / "grades" / "lab-tiny" / "snoop.html").read_text()
    assert "snooped: []" in feedback, "the snooping submission found files it must not see"


def test_no_sandbox_is_said_loudly(monkeypatch, capsys):
    monkeypatch.setenv("ICE_GRADE_NO_SANDBOX", "1")
    works, why = grade.sandbox_works()
    assert not works and "ICE_GRADE_NO_SANDBOX" in why
    grade.warn_no_sandbox(why)
    assert "NO SANDBOX" in capsys.readouterr().err


def test_submission_checks(tmp_path):
    bad = tmp_path / "a.ipynb"
    bad.write_bytes(b"\xff\xfe not text")
    assert "not a notebook" in grade.check_submission(bad)
    bad.write_text("[1, 2]")
    assert "not a Jupyter notebook" in grade.check_submission(bad)
    good = tmp_path / "b.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), good)
    assert grade.check_submission(good) == ""


@pytest.mark.skipif(not grade.sandbox_works()[0], reason="needs bubblewrap (apt-get install bubblewrap)")
def test_a_real_lab_end_to_end(tmp_path):
    lab = ROOT / "labs" / "lab-nan.ipynb"
    made = make_submissions(lab, tmp_path / "made")
    subs = tmp_path / "submissions"
    subs.mkdir()
    for kind in ("correct", "wrong"):
        shutil.copyfile(made[kind], subs / f"{kind}.ipynb")
    grade.grade(lab, subs, tmp_path / "grades", timeout=grade.DEFAULT_TIMEOUT)
    rows = read_csv(tmp_path / "grades" / "lab-nan.csv")
    nb = student.booktools.read(Path("labs/lab-nan.ipynb"))
    first, others, seen = [], [], 0  # checks of the first exercise, and of the others
    for cell in nb.cells:
        seen += student.booktools.is_solution(cell)
        if student.booktools.is_check(cell):
            (first if seen == 1 else others).append(cell.metadata["nbgrader"]["grade_id"])
    points = {g: float(rows[("correct", g)]["max_points"]) for g in first + others}
    assert float(rows[("correct", "TOTAL")]["points"]) == sum(points.values())
    assert float(rows[("wrong", first[0])]["points"]) == 0, rows  # the visible check names it
    assert all(float(rows[("wrong", g)]["points"]) == points[g] for g in others), rows
