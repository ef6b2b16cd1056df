"""Grading as a teacher does it from their own folder (book/teachers.md, "Grading"):
`ice-teach grade` run from a folder outside the repository, with the lab, the
submissions and the output folder given as paths relative to it; what a solution cell
that loops or kills the kernel is told (ice_teach/grading/worker.py); and `ice-teach`
in a learner's install, without the teach extra: one line saying what to install."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from make_tiny_lab import make_tiny_lab  # tests/support/, pyproject's pytest pythonpath

from ice_teach import __main__ as ice_teach_main
from ice_teach.grading.worker import solution_trouble

ROOT = Path(__file__).resolve().parents[2]


def _solution(source: str, grade_id: str):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": grade_id}
    return cell


def _check(grade_id: str, error: str = ""):
    cell = nbformat.v4.new_code_cell(f"check.{grade_id}()")
    cell.metadata["nbgrader"] = {"solution": False, "grade": True, "grade_id": grade_id}
    if error:
        cell.outputs = [nbformat.v4.new_output("error", ename=error, evalue="x",
                                               traceback=[])]
    return cell


def _broke(cell, ename: str):
    cell.outputs = [nbformat.v4.new_output("error", ename=ename, evalue="",
                                           traceback=[])]
    return cell


def test_a_check_after_a_solution_that_looped_or_died_says_so():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _broke(_solution("while True:\n    pass", "loop"), "CellTimeoutError"),
        _check("check_loop", "NameError"), _check("hidden_loop", "NameError"),
        _solution("def fine(): pass", "fine"), _check("check_fine"),
        _broke(_solution("import os\nos._exit(1)", "dies"), "KernelDied"),
        nbformat.v4.new_markdown_cell("## the next exercise"),
        _check("check_dies", "NameError"),
    ]
    found = solution_trouble(nb)
    assert set(found) == {"check_loop", "hidden_loop", "check_dies"}
    assert found["check_loop"][0] == "timeout"
    assert "cell `loop` ran past the per-cell timeout" in found["check_loop"][1]
    assert found["check_dies"][0] == "kernel died"
    assert "solution cell `dies`" in found["check_dies"][1]


def test_without_the_teach_extra_one_line_says_what_to_install(monkeypatch, capsys):
    """A learner's install (`pip install -e .`): no nbgrader. Faked in-process: the
    module cannot be imported, and the grading CLI is imported afresh."""
    for name in ["nbgrader", *[n for n in sys.modules if n.startswith("nbgrader.")]]:
        monkeypatch.setitem(sys.modules, name, None)  # import nbgrader...: not found
    monkeypatch.delitem(sys.modules, "ice_teach.grading.cli", raising=False)
    assert ice_teach_main.main(["grade", "lab-nan", "submissions"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "ice-teach grade" in err and "'nbgrader'" in err
    assert 'pip install -e ".[teach]"' in err and "make venv" in err


def test_a_missing_module_of_the_repository_itself_is_not_hidden(monkeypatch):
    monkeypatch.setitem(ice_teach_main.COMMANDS, "grade",
                        ("ice_teach.no_such_module", "", None))
    with pytest.raises(ModuleNotFoundError, match="ice_teach.no_such_module"):
        ice_teach_main.main(["grade"])


def test_a_lab_is_found_by_name_from_any_folder(monkeypatch, tmp_path):
    from ice_teach.grading import cli

    monkeypatch.chdir(tmp_path)
    assert cli.resolve_lab("lab-nan") == ROOT / "labs" / "lab-nan.ipynb"
    assert cli.resolve_lab("labs/lab-nan.ipynb") == ROOT / "labs" / "lab-nan.ipynb"


@pytest.mark.kernel
def test_grading_from_a_folder_outside_the_repository_with_relative_paths(tmp_path):
    """cwd: a teacher's folder (not the checkout); `ice-teach grade labs/lab-tiny.ipynb
    class --out marks`. Sandboxed where bubblewrap is installed (CI), so the binds made
    from sys.path hold from there too; a solution cell that loops or kills the kernel
    scores its checks 0, with a status and message that say so."""
    from ice_teach.grading.adversarial import make_submissions

    teacher = tmp_path / "course folder"
    lab = make_tiny_lab(teacher / "labs")
    made = make_submissions(lab, tmp_path / "made", wrong="return x + 2")
    subs = teacher / "class"
    subs.mkdir()
    for kind in ("correct", "wrong"):
        shutil.copyfile(made[kind], subs / f"{kind}.ipynb")
    for kind, body in (("loops", "while True:\n    pass"),
                       ("dies", "import os\nos._exit(1)")):
        nb = nbformat.read(made["correct"], as_version=4)
        for cell in nb.cells:
            if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "double":
                cell.source = body  # at the cell's top level: double is never defined
        nbformat.write(nb, subs / f"{kind}.ipynb")
    script = Path(sys.executable).parent / "ice-teach"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "ice_teach"]
    sandbox = [] if shutil.which("bwrap") else ["--no-sandbox"]
    done = subprocess.run(
        [*command, "grade", "labs/lab-tiny.ipynb", "class", "--out", "marks",
         "--timeout", "5", "--jobs", "2", *sandbox],
        cwd=teacher, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    marks = teacher / "marks"
    assert str(marks / "lab-tiny.csv") in done.stdout
    assert sorted(p.name for p in teacher.iterdir()) == ["class", "labs", "marks"]
    with open(marks / "lab-tiny.csv", newline="", encoding="utf-8") as f:
        rows = {(r["student"], r["grade_id"]): r for r in csv.DictReader(f)}
    assert rows[("correct", "TOTAL")]["points"] == "5.0"
    assert rows[("wrong", "check_double")]["status"] == "failed"
    assert "double(3) is not 6" in rows[("wrong", "check_double")]["message"]
    for kind, status, said in (("loops", "timeout", "ran past the per-cell timeout"),
                               ("dies", "kernel died", "kernel died while")):
        for check in ("check_double", "hidden_double"):
            row = rows[(kind, check)]
            assert (row["points"], row["status"]) == ("0", status), row
            assert said in row["message"] and "NameError" in row["message"], row
        assert rows[(kind, "check_count")]["status"] == "passed"  # graded on
        feedback = (marks / "lab-tiny" / f"{kind}.md").read_text(encoding="utf-8")
        assert said in feedback
    for student in ("correct", "wrong", "loops", "dies"):
        assert (marks / "lab-tiny" / f"{student}.html").exists()
    with open(marks / "lab-tiny-canvas.csv", newline="", encoding="utf-8") as f:
        canvas = {r["SIS Login ID"]: r["lab-tiny"] for r in csv.DictReader(f)}
    assert canvas == {"correct": "5", "wrong": "2", "loops": "2", "dies": "2"}
    assert (marks / "lab-tiny-moodle.csv").read_text().startswith("ID,lab-tiny\n")
    assert 'href="lab-tiny/loops.md"' in (marks / "lab-tiny-summary.html").read_text()
