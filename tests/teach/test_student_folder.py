"""The committed student editions (student/, written by `make student`, ice_teach/student.py):
up to date with the labs, and free of solution code and hidden tests."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from ice_teach import editions, exercises, notebooks
from ice_teach import solutions

from ice_teach import student

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("nbgrader",
                    reason="the student editions are nbgrader's: pip install -e '.[teach]'")

LABS = student.labs()


def solution_lines(cell: nbformat.NotebookNode) -> list[str]:
    """The lines between # BEGIN SOLUTION and # END SOLUTION that say something."""
    return [
        line.strip()
        for region in solutions.regions(cell.source)
        for line in region.body
        if len(line.strip()) > 12 and not line.strip().startswith("#")
    ]


def test_student_editions_are_up_to_date():
    problems = student.stale()
    assert not problems, "\n".join(problems) + "\nRun `make student` and commit student/."


@pytest.mark.parametrize("lab", LABS, ids=[p.stem for p in LABS])
def test_student_edition_has_no_solutions_or_hidden_tests(lab):
    nb = notebooks.read(lab)
    edition_path = student.STUDENT_DIR / lab.name
    if not edition_path.exists():
        pytest.fail(f"{edition_path.relative_to(ROOT)} is missing: run `make student`")
    edition = nbformat.read(edition_path, as_version=4)
    text = "\n".join(c.source for c in edition.cells)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", solutions.HIDDEN_BEGIN, solutions.HIDDEN_END):
        assert marker not in text, f"{edition_path.name} contains {marker!r}"
    edition_lines = {line.strip() for line in text.splitlines()}
    lab_lines_outside = {
        line.strip()
        for c in nb.cells
        if not exercises.is_solution(c) and not exercises.is_hidden_check(c)
        for line in c.source.splitlines()
    }
    for cell in nb.cells:
        if exercises.is_solution(cell):
            leaked = [l for l in solution_lines(cell) if l in edition_lines and l not in lab_lines_outside]
            assert not leaked, f"{edition_path.name}: solution lines of {cell.metadata['nbgrader']['grade_id']}: {leaked}"
        if exercises.is_hidden_check(cell):
            gid = cell.metadata["nbgrader"]["grade_id"]
            assert gid not in {(c.metadata.get("nbgrader") or {}).get("grade_id") for c in edition.cells}
            leaked = [
                l.strip() for l in cell.source.splitlines()
                if len(l.strip()) > 20 and l.strip() in edition_lines and l.strip() not in lab_lines_outside
            ]
            assert not leaked, f"{edition_path.name}: hidden test lines of {gid}: {leaked}"
    graded = [c for c in edition.cells if exercises.is_check(c) or exercises.is_solution(c)]
    assert all(not c.get("outputs") for c in graded if c.cell_type == "code"), "exercise outputs kept"
    stubs = sum(solutions.STUDENT_STUB in c.source for c in edition.cells if exercises.is_solution(c))
    assert stubs == exercises.count_exercises(nb), f"{edition_path.name}: every exercise is a stub"


def test_student_edition_keeps_everything_else():
    lab = Path("labs/lab-nan.ipynb")
    nb, edition = notebooks.read(lab), student.student_edition(notebooks.read(lab))
    def plain(cells):  # neither graded nor the lab header (the edition has a hand-in note)
        return [c for c in cells if exercises.nbgrader(c) is None and not c.metadata.get("ice_lab")]

    assert plain(edition.cells) == plain(nb.cells)
    assert [c.id for c in edition.cells] == [c.id for c in nb.cells if not exercises.is_hidden_check(c)]


@pytest.mark.parametrize("lab", LABS, ids=[p.stem for p in LABS])
def test_lab_header_is_current_and_its_link_resolves(lab):
    """The header under a lab's title (ice-teach sync-lab-headers): the
    Colab button of its student edition, which must exist, and the lab's points."""
    nb = notebooks.read(lab)
    headers = [c for c in nb.cells if c.metadata.get("ice_lab") == notebooks.LAB_HEADER["ice_lab"]]
    if not headers:
        pytest.fail(f"{lab} has no header yet: ice-teach sync-lab-headers")
    assert len(headers) == 1
    assert not editions.sync_lab_header(nb, lab), f"{lab}: run ice-teach sync-lab-headers"
    prefix = editions.colab_url("x")[:-1]
    links = [l for l in headers[0].source.split("(") if l.startswith(prefix)]
    assert links, f"{lab}: the header has no Colab link"
    for link in links:
        target = ROOT / link.split(")")[0].removeprefix(prefix)
        assert target.is_file(), f"{lab}: the Colab link points at {target}, which does not exist"
    edition = student.student_edition(nb)
    assert any(c.source == editions.lab_header_source(nb, edition="student") for c in edition.cells)


def test_lab_header_on_a_copy():
    nb = notebooks.read("labs/lab-nan.ipynb")
    nb.cells = [c for c in nb.cells if not c.metadata.get("ice_lab")]  # as before the header
    assert editions.sync_lab_header(nb, "labs/lab-nan.ipynb")
    header = next(c for c in nb.cells if c.metadata.get("ice_lab"))
    target = header.source.split("(")[1].split(")")[0].removeprefix(editions.colab_url("x")[:-1])
    assert target == "student/lab-nan.ipynb" and (ROOT / target).is_file()
    visible, hidden = exercises.lab_points(nb)
    assert f"{visible + hidden:g} points" in header.source
    assert not editions.sync_lab_header(nb, "labs/lab-nan.ipynb")
    edition = student.student_edition(nb)
    assert "Open the exercise in Colab" not in "".join(c.source for c in edition.cells)


def test_lab_data_is_what_a_lab_reads_not_what_it_writes(tmp_path):
    """A file beside the labs is data (copied next to the editions and into grading); a
    file a lab writes itself with %%writefile (labs/scripts/ after a run) is not."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%%writefile scripts/job.py\nprint('hi')")]
    nbformat.write(nb, tmp_path / "lab-x.ipynb")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "job.py").write_text("print('hi')\n")  # left by a run
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "words.txt").write_text("ice\n")  # read by the lab
    assert student.lab_data(tmp_path) == [Path("data/words.txt")]


def test_writefile_cells_reads_what_a_notebook_writes():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%%writefile scripts/job.py\nprint('a')"),
        nbformat.v4.new_code_cell("%%writefile -a scripts/job.py\nprint('b')"),
        nbformat.v4.new_markdown_cell("%%writefile not/code.py\nx"),
        nbformat.v4.new_code_cell("print('%%writefile inside a cell is no magic')"),
    ]
    assert student.writefile_cells(nb) == {"scripts/job.py": "print('a')\nprint('b')\n"}


def test_write_all_writes_what_stale_lists(tmp_path):
    out = tmp_path / "student"
    assert student.write_all(out)  # an empty folder: everything is written
    assert student.stale(out) == []
    edition = out / LABS[0].name
    edition.write_text(edition.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    (out / "stray.txt").write_text("not from labs/", encoding="utf-8")
    (out / "README.md").write_text("kept", encoding="utf-8")
    listed = student.stale(out)
    assert len(listed) == 2 and "differs from the student edition" in listed[0], listed
    assert listed[1].endswith("stray.txt is not in labs/"), listed
    assert sorted(student.write_all(out)) == sorted([edition, out / "stray.txt"])
    assert student.stale(out) == [] and (out / "README.md").exists()
