"""The notebook conventions of CONTRIBUTING.md, checked for every notebook.

(Executing the notebooks and comparing outputs is nbval's job: `make test` runs it.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ice_teach import editions, exercises, notebooks
from ice_teach import solutions

ROOT = Path(__file__).resolve().parents[2]

NOTEBOOKS = notebooks.notebooks()
LABS = [p for p in NOTEBOOKS if p.parts[0] == "labs"]
FORBIDDEN_TAGS = {"raises-exception", "nbval-raises-exception", "nbval-skip", "skip-execution"}
IGNORE_REASON = re.compile(r"^# output varies: \S", re.IGNORECASE | re.MULTILINE)
MAX_LINE = 88
# Absolute paths of the machine that executed a notebook (its own checkout is checked too).
MACHINE_PATH = re.compile(r"(/home/|/Users/|/root/|/tmp/ipykernel|site-packages/|/__w/)")
MYST_ROLE = re.compile(r"\{(doc|ref|numref)\}`")


def ids(paths):
    return [str(p) for p in paths]


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def test_there_are_notebooks():
    """Every notebook of _toc.yml is found, and no other (the tests below run on them)."""
    in_toc = {f for f in notebooks.toc_files() if (ROOT / f"{f}.ipynb").exists()}
    assert in_toc and {str(p.with_suffix("")) for p in NOTEBOOKS} == in_toc


def test_every_toc_entry_exists():
    for entry in notebooks.toc_files():
        candidates = [ROOT / f"{entry}{ext}" for ext in (".ipynb", ".md")]
        assert any(c.exists() for c in candidates), f"_toc.yml names {entry}, which does not exist"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
class TestNotebook:
    def test_every_figure_says_what_it_shows(self, path):
        """A cell that draws a figure carries its alt text (mystnb.image.alt): the browser
        test finds it missing only after a book build, this one before."""
        bare = [i for i, cell in enumerate(notebooks.read(path).cells)
                if cell.cell_type == "code"
                and any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))
                and not cell.metadata.get("mystnb", {}).get("image", {}).get("alt")]
        assert not bare, f"{path}: code cells {bare} draw a figure without mystnb.image.alt"

    def test_in_toc(self, path):
        assert str(path.with_suffix("")) in notebooks.toc_files(), f"{path} is missing from _toc.yml"

    def test_starts_with_canonical_setup_cell(self, path):
        first_code = notebooks.read(path).cells[0]
        assert first_code.cell_type == "code" and first_code.source == notebooks.setup_cell_source(), (
            f"{path}: the first code cell is not the canonical setup cell; "
            "run `ice-teach sync-setup`"
        )
        assert first_code.metadata.get("tags") == notebooks.SETUP_CELL_TAGS

    def test_kernel_is_python3(self, path):
        # JupyterLab writes this kernelspec; any other marks the notebook modified on open.
        assert notebooks.read(path).metadata.get("kernelspec") == notebooks.KERNELSPEC, (
            f"{path}: run `ice-teach sync-setup`"
        )

    def test_committed_executed_top_to_bottom(self, path):
        counts = [c.execution_count for c in code_cells(notebooks.read(path))]
        assert None not in counts, f"{path}: some code cells were never executed (`make execute NB={path}`)"
        assert counts == list(range(1, len(counts) + 1)), (
            f"{path}: cells were not executed once, top to bottom, in a fresh kernel"
        )

    def test_no_raw_errors(self, path):
        for i, cell in enumerate(notebooks.read(path).cells):
            for out in cell.get("outputs", []):
                assert out.output_type != "error", (
                    f"{path} cell {i} holds a raw error; provoke failures inside `with ice_lab.expect(...)`"
                )
                if out.output_type == "stream" and out.name == "stderr":
                    assert "Traceback (most recent call last)" not in out.text, f"{path} cell {i}: traceback in stderr"

    def test_failures_are_asserted_not_tagged(self, path):
        for i, cell in enumerate(notebooks.read(path).cells):
            tags = set(cell.metadata.get("tags", []))
            assert not tags & FORBIDDEN_TAGS, f"{path} cell {i}: tags {tags & FORBIDDEN_TAGS} hide a failure"
            if "nbval-ignore-output" in tags:
                # The reason is a comment, or (where readers should not see it, as for a
                # widget explorer) the cell metadata `output_varies`.
                assert IGNORE_REASON.search(cell.source) or cell.metadata.get("output_varies"), (
                    f"{path} cell {i} is tagged nbval-ignore-output; it must say why with a "
                    "'# output varies: <reason>' comment or metadata output_varies"
                )

    def test_no_frozen_progress_bars(self, path):
        for i, cell in enumerate(notebooks.read(path).cells):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                assert "application/vnd.jupyter.widget-view+json" not in data or not re.search(
                    r"\d+%\|", data.get("text/plain", "")
                ), f"{path} cell {i}: a frozen progress bar; use `from ice_lab.progress import tqdm`"

    def test_code_lines_fit_the_page(self, path):
        # The book's text column holds 88 characters; a longer line scrolls sideways.
        for i, cell in enumerate(code_cells(notebooks.read(path))):
            for line in cell.source.splitlines():
                assert len(line) <= MAX_LINE, (
                    f"{path} code cell {i}: a line of {len(line)} characters "
                    f"(at most {MAX_LINE}): {line[:60]}..."
                )

    def test_no_machine_paths_in_outputs(self, path):
        # Outputs are read by everyone; the machine that executed them is nobody's business.
        for i, cell in enumerate(code_cells(notebooks.read(path))):
            for out in cell.get("outputs", []):
                text = out.get("text", "") + "".join(
                    v for k, v in out.get("data", {}).items() if k.startswith("text/")
                    and isinstance(v, str)
                )
                found = MACHINE_PATH.search(text) or (str(ROOT) in text and str(ROOT))
                assert not found, (
                    f"{path} code cell {i}: an output shows a path of the machine that ran "
                    f"it ({found.group(0) if hasattr(found, 'group') else found!r}); print "
                    "a name relative to the repository, or show a warning as "
                    "category and message"
                )

    def test_links_work_outside_the_book(self, path):
        # Jupyter and Colab show MyST roles as raw text; plain Markdown links work there too.
        for i, cell in enumerate(notebooks.read(path).cells):
            if cell.cell_type == "markdown":
                assert not MYST_ROLE.search(cell.source), (
                    f"{path} cell {i}: {MYST_ROLE.search(cell.source).group(0)} reads as raw "
                    "text in Jupyter and Colab; write a Markdown link to the .ipynb instead"
                )

    def test_code_parses(self, path):
        from IPython.core.inputtransformer2 import TransformerManager

        transform = TransformerManager().transform_cell  # IPython magics -> Python
        for i, cell in enumerate(code_cells(notebooks.read(path))):
            try:
                ast.parse(transform(cell.source))
            except SyntaxError as err:  # pragma: no cover - a message for authors
                pytest.fail(f"{path} code cell {i}: {err}")

    def test_exercise_metadata(self, path):
        problems = exercises.exercise_problems(notebooks.read(path))
        assert not problems, f"{path}:\n" + "\n".join(problems)

    def test_student_edition_hides_solutions(self, path):
        """The edition that ships in student/ (ice_teach/student.py, nbgrader) holds a stub for
        every solution region and no solution or hidden test; a chapter has none."""
        nb = notebooks.read(path)
        regions = sum(len(solutions.regions(c.source)) for c in nb.cells if exercises.is_solution(c))
        shipped = ROOT / "student" / Path(path).name
        if not Path(path).parts[0] == "labs":
            assert regions == 0, f"{path}: a chapter has no exercises to strip"
            return
        assert shipped.exists(), f"{path}: no student edition; run `make student`"
        text = "\n".join(c.source for c in notebooks.read(shipped).cells)
        assert "BEGIN SOLUTION" not in text and solutions.HIDDEN_BEGIN not in text
        assert regions and text.count(solutions.STUDENT_STUB) == regions


@pytest.mark.parametrize("path", LABS, ids=ids(LABS))
def test_lab_has_three_exercises(path):
    assert exercises.count_exercises(notebooks.read(path)) >= 3, f"{path}: a lab has at least 3 exercises"


@pytest.mark.parametrize("path", LABS, ids=ids(LABS))
def test_lab_follows_the_arc(path):
    headings = "\n".join(c.source for c in notebooks.read(path).cells if c.cell_type == "markdown")
    for step in ("Provoke", "Observe", "Diagnose", "Fix", "Verify"):
        assert re.search(rf"^#+ .*{step}", headings, re.MULTILINE), f"{path}: no '{step}' heading"


#: Code a learner reads before the first provoked failure of a lab (issue: "harness below
#: the lesson"): measuring helpers live in ice_lab or in a collapsed setup cell.
OPENING_LINES = 15


def opening_code_lines(nb) -> int:
    """Lines of code (not blank, not comments) a learner reads before the lab's first
    Provoke heading; collapsed cells (hide-cell, hide-input, remove-cell, or folded in
    Jupyter with source_hidden) do not count."""
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown" and re.search(r"^#+ .*Provoke", cell.source, re.M):
            return count
        folded = {"hide-cell", "hide-input", "remove-cell"} & set(cell.metadata.get("tags", []))
        if cell.cell_type == "code" and not folded and not cell.metadata.get(
                "jupyter", {}).get("source_hidden"):
            count += sum(1 for line in cell.source.splitlines()
                         if line.strip() and not line.lstrip().startswith("#"))
    return count


@pytest.mark.parametrize("path", LABS, ids=ids(LABS))
def test_lab_opens_with_the_lesson_not_the_harness(path):
    lines = opening_code_lines(notebooks.read(path))
    assert lines <= OPENING_LINES, (
        f"{path}: {lines} lines of code before the first Provoke (at most {OPENING_LINES}):"
        " move measuring helpers into ice_lab or a collapsed setup cell")


@pytest.mark.parametrize("path", LABS, ids=ids(LABS))
def test_every_provoke_asks_for_a_prediction(path):
    cells = notebooks.read(path).cells
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and re.search(r"^#+ .*Provoke", cell.source, re.M):
            ahead = "\n".join(c.source for c in cells[i:i + 3] if c.cell_type == "markdown")
            assert "Predict before you run" in ahead, (
                f"{path}: the Provoke at cell {i} asks for no prediction first")


@pytest.mark.parametrize("path", LABS, ids=ids(LABS))
def test_every_lab_has_an_open_exercise(path):
    text = "\n".join(c.source for c in notebooks.read(path).cells if c.cell_type == "markdown")
    assert exercises.OPEN_EXERCISE.search(text), (
        f"{path}: no heading marked '(open)', e.g. '## Exercise 4 (open): ...' (unfamiliar "
        "code, the bug's place unknown)")


CHAPTERS = [p for p in NOTEBOOKS if p.parts[0] == "book"]


@pytest.mark.parametrize("path", CHAPTERS, ids=ids(CHAPTERS))
def test_chapter_opens_with_its_objectives_and_assumptions(path):
    """A reader sees, under the title, what the chapter makes them able to do and what it
    takes for granted (the review of the early chapters: "no objectives or prerequisites")."""
    title = next(c for c in notebooks.read(path).cells
                 if c.cell_type == "markdown" and c.source.startswith("# "))
    for lead in ("**You will be able to:**", "**It assumes:**"):
        assert lead in title.source, f"{path}: the title cell has no {lead!r} paragraph"
    able = title.source.split("**You will be able to:**", 1)[1].split("**It assumes:**")[0]
    assert len(re.findall(r"^\s*[-*] \S", able, re.M)) >= 3, (
        f"{path}: 'You will be able to' lists fewer than 3 skills")


@pytest.mark.parametrize("path", CHAPTERS, ids=ids(CHAPTERS))
def test_chapter_header_states_its_reading_time(path):
    nb = notebooks.read(path)
    headers = [i for i, c in enumerate(nb.cells)
               if c.metadata.get("ice_lab") == notebooks.CHAPTER_HEADER["ice_lab"]]
    assert len(headers) == 1, f"{path}: run ice-teach sync-chapter-headers"
    assert not editions.sync_chapter_header(nb), (
        f"{path}: reading time out of date; run ice-teach sync-chapter-headers")


def test_reading_time_counts_prose_and_code_but_not_the_setup():
    nb = notebooks.nbformat.v4.new_notebook()
    nb.cells = [notebooks.nbformat.v4.new_markdown_cell("# T\n\n" + "word " * 298),
                notebooks.nbformat.v4.new_code_cell("import x", metadata={"tags": ["hide-cell"]}),
                notebooks.nbformat.v4.new_code_cell("\n".join(["a = 1"] * 100))]
    assert editions.sync_chapter_header(nb)
    assert nb.cells[1].source.startswith("*About 10 minutes of reading*")
    assert "300 words" in nb.cells[1].source and "100 lines of code" in nb.cells[1].source
    assert not editions.sync_chapter_header(nb)
