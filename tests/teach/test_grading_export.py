"""What grading hands out besides the grades CSV (book/teachers.md, "Feedback, LMS export
and the class page"): a feedback file per student (ice_teach.grading.feedback), the
gradebook CSVs for Canvas and Moodle checked against their documented columns
(ice_teach.grading.export), and the class summary as a page
(ice_teach.grading.report_html). Unit tests on made-up rows, and one grading run of the
tiny lab that checks every file is there and says what it must."""

from __future__ import annotations

import csv
import shutil
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from ice_teach.grading import export, feedback, report_html
from ice_teach.grading.cli import Row

pytest.importorskip("nbgrader")
ROOT = Path(__file__).resolve().parents[2]
HINT = ("AssertionError: double(3) is not 6: multiply by 2, do not add 2\n"
        "Still stuck? Read section 2 again: the hint is in its second example.")


def fake_rows() -> list[Row]:
    """Four students of the tiny lab (5 points: double 2 + 1 hidden, count 2), one file
    that is not a notebook, one whose grading failed."""
    rows = []
    for student, double, count in (("ana", 2, 2), ("ben", 0, 2), ("cy", 0, 2),
                                   ("dee", 0, 0)):
        status = "passed" if double else "failed"
        message = "" if double else "AssertionError: double(3) is not 6: multiply by 2, do"
        rows += [Row(student, "check_double", double, 2, status, message),
                 Row(student, "hidden_double", double / 2, 1, status, ""),
                 Row(student, "check_count", count, 2,
                     "passed" if count else "timeout", "" if count else "no answer"),
                 Row(student, "TOTAL", double * 1.5 + count, 5, "graded", "", 3.0)]
    rows.append(Row("eve", "TOTAL", 0, 5, "invalid", "not valid JSON", 0))
    rows.append(Row("fay", "TOTAL", 0, 5, "error", "grading ran past 400 s", 400))
    return rows


SAID = {"ben": {"check_double": HINT, "check_count": "Check passed: count"},
        "cy": {"check_double": HINT}}


@pytest.fixture
def tiny_lab(tmp_path) -> Path:
    from make_tiny_lab import make_tiny_lab

    return make_tiny_lab(tmp_path / "lab")


def test_outputs_reads_each_checks_error_whole_and_its_pass_line():
    nb = nbformat.v4.new_notebook()
    failed = nbformat.v4.new_code_cell("check.a()")
    failed.metadata["nbgrader"] = {"grade": True, "grade_id": "check_a"}
    failed.outputs = [nbformat.v4.new_output("error", ename="AssertionError",
                                             evalue=HINT.split(": ", 1)[1],
                                             traceback=[])]
    passed = nbformat.v4.new_code_cell("check.b()")
    passed.metadata["nbgrader"] = {"grade": True, "grade_id": "check_b"}
    passed.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                             text="noise\nCheck passed: b on 3 cases\n")]
    guard = nbformat.v4.new_code_cell("import sys")  # the grader's guard cell: no id
    guard.outputs = [nbformat.v4.new_output("error", ename="X", evalue="y", traceback=[])]
    nb.cells = [guard, failed, passed]
    assert feedback.outputs(nb) == {"check_a": HINT,
                                    "check_b": "Check passed: b on 3 cases"}


def test_exercise_titles_are_the_labs_headings(tiny_lab):
    titles = feedback.exercise_titles(nbformat.read(ROOT / "labs" / "lab-tensors.ipynb", 4))
    assert titles["check_predict_float32"] == "Exercise 1: a float64 pipeline"
    assert titles["hidden_predict_float32"] == "Exercise 1: a float64 pipeline"
    assert titles["check_signal_net"].startswith("Exercise 4 (open)")
    tiny = feedback.exercise_titles(nbformat.read(tiny_lab, 4))  # no headings: the ids
    assert tiny == {"check_double": "double", "hidden_double": "double",
                    "check_count": "count"}


def test_feedback_says_what_passed_and_quotes_each_hint_whole(tiny_lab, tmp_path):
    paths = feedback.write_all(tmp_path / "fb", tiny_lab, fake_rows(), SAID)
    assert sorted(p.name for p in paths) == [f"{s}.md" for s in
                                             ("ana", "ben", "cy", "dee", "eve", "fay")]
    ben = (tmp_path / "fb" / "ben.md").read_text()
    assert ben.startswith("# lab-tiny: feedback for ben\n")
    assert "**Total: 2 of 5 points.**" in ben
    assert "1 of 3 checks passed" in ben
    assert "## double (0 of 3 points)" in ben and "## count (2 of 2 points)" in ben
    assert "- `check_double`: FAILED, 0 of 2 points" in ben
    for line in HINT.splitlines():  # whole, the "Still stuck" line included
        assert f"    {line}" in ben
    assert "- `check_count`: passed, 2 of 2 points\n\n    Check passed: count" in ben
    assert "ben.html" in ben
    dee = (tmp_path / "fb" / "dee.md").read_text()
    assert "- `check_count`: TIMED OUT, 0 of 2 points\n\n    no answer" in dee
    eve = (tmp_path / "fb" / "eve.md").read_text()
    assert "could not be graded (invalid): not valid JSON" in eve
    assert "eve.html" not in eve


def read(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_canvas_csv_has_the_documented_columns(tmp_path):
    """Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then
    the assignment; one of Student / ID / SIS User ID and the SIS Login ID filled."""
    unknown = export.canvas_csv(tmp_path / "c.csv", "lab-tiny", fake_rows())
    assert unknown == []
    table = read(tmp_path / "c.csv")
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                        "lab-tiny"]
    for row in table[1:]:
        assert len(row) == 6
        assert row[0] or row[1] or row[2], row
        assert row[3], row
    grades = {r[3]: r[5] for r in table[1:]}
    assert grades == {"ana": "5", "ben": "2", "cy": "2", "dee": "0", "eve": "0",
                      "fay": ""}  # invalid scores 0; a failed grading is left empty


def test_canvas_csv_with_canvas_export_as_roster(tmp_path):
    roster = tmp_path / "export.csv"
    roster.write_text(
        "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,lab-tiny (4321),"
        "Current Score\n"
        "    Points Possible,,,,,5,(read only)\n"
        '"Lee, Ana",101,ana,ana@uni.edu,Sec 1,,80\n'
        '"Park, Ben",102,s-ben,ben,Sec 2,3,70\n', encoding="utf-8")
    unknown = export.canvas_csv(tmp_path / "c.csv", "lab-tiny", fake_rows(), roster)
    assert unknown == ["cy", "dee", "eve", "fay"]
    table = read(tmp_path / "c.csv")
    assert table[0][-1] == "lab-tiny (4321)"  # the existing assignment, by its id
    assert table[1] == ["Lee, Ana", "101", "ana", "ana@uni.edu", "Sec 1", "5"]
    assert table[2] == ["Park, Ben", "102", "s-ben", "ben", "Sec 2", "2"]
    assert table[3] == ["cy", "", "", "cy", "", "2"]
    bad = tmp_path / "bad.csv"
    bad.write_text("name,grade\nana,3\n")
    with pytest.raises(ValueError, match="not a Canvas gradebook export"):
        export.canvas_csv(tmp_path / "c.csv", "lab-tiny", fake_rows(), bad)


def test_moodle_csv_is_an_identifier_and_a_grade_column(tmp_path):
    export.moodle_csv(tmp_path / "m.csv", "lab-tiny", fake_rows())
    table = read(tmp_path / "m.csv")
    assert table[0] == ["ID", "lab-tiny"]
    assert dict(table[1:]) == {"ana": "5", "ben": "2", "cy": "2", "dee": "0",
                               "eve": "0", "fay": ""}


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open: list[str] = []
        self.seen: set[str] = set()
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.seen.add(tag)
        self.attrs += attrs
        if tag not in ("meta", "br"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (tag, self.open[-3:])
        self.open.pop()


def test_the_class_page_counts_each_check_and_quotes_the_commonest_hint(tiny_lab):
    text = report_html.page(tiny_lab, fake_rows(), "lab-tiny: 6 submissions <4 graded>",
                            SAID, feedback="lab-tiny")
    tags = _Tags()
    tags.feed(text)
    assert tags.open == []  # every tag closed, in order
    assert not tags.seen & {"script", "link", "img", "iframe"}  # nothing fetched
    assert "&lt;4 graded&gt;" in text
    assert "<td class=num>1/4 (25%)</td>" in text  # check_double
    assert "<td class=num>3/4 (75%)</td>" in text  # check_count
    assert "Still stuck? Read section 2 again" in text  # the full hint, not the row's
    assert "<small>2 of 3 not passed</small>" in text
    assert '<a href="lab-tiny/ana.md">feedback</a>' in text
    assert '<a href="lab-tiny/ana.html">graded notebook</a>' in text
    assert '<a href="lab-tiny/eve.html">' not in text


@pytest.mark.kernel
def test_grading_the_tiny_lab_writes_feedback_exports_and_the_page(tiny_lab, tmp_path):
    """A correct, a wrong and a broken submission of the tiny lab, graded for real."""
    from ice_teach.grading import cli
    from ice_teach.grading.adversarial import make_submissions

    made = make_submissions(tiny_lab, tmp_path / "made", wrong="return x + 2")
    subs = tmp_path / "submissions"
    subs.mkdir()
    for kind in ("correct", "wrong", "not_json"):
        shutil.copyfile(made[kind], subs / f"{kind}.ipynb")
    out = tmp_path / "grades"
    cli.grade(tiny_lab, subs, out, timeout=10, jobs=2,
              sandbox=shutil.which("bwrap") is not None)
    names = sorted(p.name for p in (out / "lab-tiny").iterdir())
    assert names == ["correct.html", "correct.md", "not_json.md", "wrong.html",
                     "wrong.md"]
    wrong = (out / "lab-tiny" / "wrong.md").read_text()
    assert "**Total: 2 of 5 points.**" in wrong
    assert "- `check_double`: FAILED, 0 of 2 points" in wrong
    assert "    AssertionError: double(3) is not 6: multiply by 2, do not add 2" in wrong
    assert "- `check_count`: passed, 2 of 2 points\n\n    Check passed: count" in wrong
    assert "**Total: 5 of 5 points.**" in (out / "lab-tiny" / "correct.md").read_text()
    canvas = read(out / "lab-tiny-canvas.csv")
    assert canvas[0] == [*export.CANVAS_IDENTITY, "lab-tiny"]
    assert {r[3]: r[5] for r in canvas[1:]} == {"correct": "5", "wrong": "2",
                                                "not_json": "0"}
    assert dict(read(out / "lab-tiny-moodle.csv")[1:]) == {
        "correct": "5", "wrong": "2", "not_json": "0"}
    page = (out / "lab-tiny-summary.html").read_text()
    assert "<td class=num>1/2 (50%)</td>" in page
    assert "double(3) is not 6: multiply by 2, do not add 2" in page
