"""The exercise conventions of the labs, and what is counted from them: the nbgrader
cell tests, `exercise_problems` (every rule of book/teachers.md's conventions), the
exercise count, the points and the learner-time estimate.

The student editions are made by nbgrader (ice_teach/student.py); the solution and
hidden-test regions are read and written by ice_teach/solutions.py.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import nbformat

from ice_teach import solutions
from ice_teach.notebooks import CHAPTER_HEADER, LAB_HEADER
from ice_teach.solutions import HIDDEN_BEGIN, HIDDEN_END

GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")


# --------------------------------------------------------------------------- exercises
# The cell tests of nbgrader.utils (is_solution, is_grade) give the same answers, but
# importing nbgrader.utils imports the nbgrader package: about 1.8 s and jupyter_server,
# tornado, sqlalchemy and requests with it, in every test run, `_ext/` and the book build
# that import this module. These three lines stay ours.
def nbgrader(cell: nbformat.NotebookNode) -> dict | None:
    return cell.get("metadata", {}).get("nbgrader")


def is_solution(cell: nbformat.NotebookNode) -> bool:
    meta = nbgrader(cell)
    return bool(meta and meta.get("solution"))


def is_check(cell: nbformat.NotebookNode) -> bool:
    meta = nbgrader(cell)
    return bool(meta and meta.get("grade"))


def is_hidden_check(cell: nbformat.NotebookNode) -> bool:
    return is_check(cell) and HIDDEN_BEGIN in cell.source


#: The one line a check prints, once every case passed (``ice_lab.checks._core.passed``).
PASS_LINE = "Check passed"
#: The name a lab binds its check module to: ``from ice_lab.checks import tensors as check``.
CHECK_MODULE = "check"
#: At most this many lines in a visible check cell (a hidden one: its markers, one more).
CHECK_LINES = 4


def _is_check_call(node: ast.stmt) -> bool:
    """``check.<exercise>(...)``: a call of the lab's check module, as a statement."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == CHECK_MODULE)


def _check_cell_problems(where: str, source: str) -> list[str]:
    """A check cell is one readable call of the lab's check module (ice_lab.checks)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        return [f"{where}: check cell does not parse ({err})"]
    problems = []
    code = [line for line in source.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]
    if len(code) > CHECK_LINES:
        problems.append(f"{where}: check cell has {len(code)} lines of code, more than "
                        f"{CHECK_LINES}: the check logic belongs in ice_lab.checks")
    if not any(_is_check_call(n) for n in tree.body):
        problems.append(f"{where}: check cell does not call {CHECK_MODULE}.<exercise>(...), "
                        "the lab's module of ice_lab.checks")
    for node in tree.body:
        if not isinstance(node, (ast.Expr, ast.Import, ast.ImportFrom, ast.Assign)):
            problems.append(f"{where}: check cell holds a {type(node).__name__} at line "
                            f"{node.lineno}: it holds only calls of the lab's checks")
    if "print(" in source:
        problems.append(f"{where}: check cell calls print(): it prints nothing itself, the "
                        f"check prints its one '{PASS_LINE}: ...' line")
    return problems


def _only_pass_line_output(outputs: list) -> bool:
    texts = [o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout"]
    if len(texts) != len(outputs):
        return False
    lines = "".join(o.get("text", "") for o in texts).splitlines()
    return len(lines) == 1 and lines[0].startswith(PASS_LINE)


def exercise_problems(nb: nbformat.NotebookNode) -> list[str]:
    """Everything wrong with a notebook's exercise cells, as readable sentences: each names
    the fault first ("check cell is not locked"), then what the convention needs.

    The convention (CONTRIBUTING.md): nbgrader v3 metadata; solutions between
    `# BEGIN SOLUTION` / `# END SOLUTION`, tagged `hide-input`; checks that are one call
    of the lab's module of ice_lab.checks (``check.<exercise>(...)``); hidden checks in their own cell between
    `### BEGIN HIDDEN TESTS` / `### END HIDDEN TESTS`, tagged `remove-cell`.
    """
    problems: list[str] = []
    ids: set[str] = set()
    seen_solution_without_check = False
    for index, cell in enumerate(nb.cells):
        meta = nbgrader(cell)
        where = f"cell {index}"
        if meta is None:
            text = cell.source
            if "BEGIN SOLUTION" in text or HIDDEN_BEGIN in text:
                problems.append(f"{where}: has solution/hidden-test markers but no nbgrader metadata")
            continue
        if cell.cell_type != "code":
            problems.append(f"{where}: nbgrader metadata on a {cell.cell_type} cell")
            continue
        problems += _metadata_problems(where, meta, ids)
        if meta.get("solution"):
            problems += _solution_cell_problems(where, cell, meta)
            if seen_solution_without_check:
                problems.append(f"{where}: the previous solution has no check cell after it")
            seen_solution_without_check = True
        elif meta.get("grade"):
            problems += _graded_cell_problems(where, cell, meta)
            seen_solution_without_check = False
    if seen_solution_without_check:
        problems.append("the last solution cell has no check cell after it")
    return problems


def _metadata_problems(where: str, meta: dict, ids: set[str]) -> list[str]:
    """The nbgrader metadata of any exercise cell; adds its grade_id to ``ids``."""
    problems = []
    if meta.get("schema_version") != 3:
        problems.append(f"{where}: nbgrader schema_version is "
                        f"{meta.get('schema_version')!r}: nbgrader needs 3")
    grade_id = meta.get("grade_id", "")
    if not isinstance(grade_id, str) or not GRADE_ID.match(grade_id):
        problems.append(f"{where}: grade_id {grade_id!r} has characters outside "
                        "[A-Za-z0-9_-]")
    elif grade_id in ids:
        problems.append(f"{where}: grade_id {grade_id!r} is used twice")
    ids.add(grade_id)
    for key in ("grade", "solution", "locked"):
        if not isinstance(meta.get(key), bool):
            problems.append(f"{where}: nbgrader '{key}' is {meta.get(key)!r}: nbgrader "
                            "needs true or false")
    return problems


def _solution_cell_problems(where: str, cell: nbformat.NotebookNode, meta: dict) -> list[str]:
    """A solution cell: ungraded, unlocked, its regions well marked, folded on the page."""
    problems = []
    if meta.get("grade") or meta.get("locked"):
        problems.append(f"{where}: solution cell is graded or locked: nbgrader needs "
                        "grade: false and locked: false")
    try:
        if not solutions.regions(cell.source):
            raise solutions.RegionError("no region")
    except solutions.RegionError as err:
        if "single '#'" in str(err):
            problems.append(f"{where}: solution markers start with '##' or more: "
                            "use a single '#' before BEGIN SOLUTION")
        else:
            problems.append(f"{where}: solution cell has no matching "
                            "'# BEGIN SOLUTION' / '# END SOLUTION' lines")
    if "hide-input" not in cell.metadata.get("tags", []):
        problems.append(f"{where}: solution cell is not tagged 'hide-input': the "
                        "book's page would show the solution unfolded")
    return problems


def _graded_cell_problems(where: str, cell: nbformat.NotebookNode, meta: dict) -> list[str]:
    """A check cell: locked, worth points, its saved output the pass line, a hidden one in
    a cell of its own and removed from the page, its code one call of the lab's checks."""
    problems = []
    if not meta.get("locked"):
        problems.append(f"{where}: check cell is not locked: nbgrader needs "
                        "locked: true")
    points = meta.get("points")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points <= 0:
        problems.append(f"{where}: check cell has points {points!r}: nbgrader "
                        "needs a positive number")
    if cell.get("outputs") and not _only_pass_line_output(cell["outputs"]):
        problems.append(
            f"{where}: check cell's saved output is more than its one "
            f"'{PASS_LINE}: ...' line: it prints nothing else"
        )
    source = cell.source
    if HIDDEN_BEGIN in source or HIDDEN_END in source:
        if not solutions.is_hidden_tests(source):
            problems.append(f"{where}: hidden tests share their cell: a hidden-test "
                            f"cell holds only '{HIDDEN_BEGIN}' ... '{HIDDEN_END}'")
        if "remove-cell" not in cell.metadata.get("tags", []):
            problems.append(f"{where}: hidden-test cell is not tagged 'remove-cell': "
                            "the book's page would show it")
    return problems + _check_cell_problems(where, source)


def count_exercises(nb: nbformat.NotebookNode) -> int:
    return sum(1 for cell in nb.cells if is_solution(cell))


def lab_points(nb: nbformat.NotebookNode) -> tuple[float, float]:
    """(points of the visible checks, points of the hidden checks)."""
    visible = sum(nbgrader(c).get("points", 0) for c in nb.cells if is_check(c) and not is_hidden_check(c))
    hidden = sum(nbgrader(c).get("points", 0) for c in nb.cells if is_hidden_check(c))
    return visible, hidden


#: The learner-time estimate (lab header, landing table): prose read at a study pace, code
#: read at a pace of lines, then a fixed time to think and write per exercise.
WORDS_PER_MINUTE = 150
CODE_LINES_PER_MINUTE = 10
MINUTES_PER_EXERCISE = 10
MINUTES_PER_OPEN_EXERCISE = 20  # "## Exercise N (open): ...": the bug's place unknown
OPEN_EXERCISE = re.compile(r"^##\s.*\(open\)", re.M)  # a lab's headings, once per exercise


@dataclass(frozen=True)
class LearnerTime:
    """What a learner's time on a lab is estimated from, and the estimate in minutes."""

    words: int  # prose, the lab's header excluded
    code_lines: int  # code the learner reads (not solutions, not hidden checks)
    exercises: int
    open_exercises: int

    @property
    def minutes(self) -> int:
        exact = (self.words / WORDS_PER_MINUTE + self.code_lines / CODE_LINES_PER_MINUTE
                 + MINUTES_PER_EXERCISE * (self.exercises - self.open_exercises)
                 + MINUTES_PER_OPEN_EXERCISE * self.open_exercises)
        return max(5, int(5 * round(exact / 5)))

    def explained(self) -> str:
        return (f"{self.words:,} words at {WORDS_PER_MINUTE} a minute, {self.code_lines} "
                f"lines of code at {CODE_LINES_PER_MINUTE} a minute, "
                f"{MINUTES_PER_EXERCISE} minutes per exercise"
                + (f" and {MINUTES_PER_OPEN_EXERCISE} for the open one"
                   if self.open_exercises else ""))


def learner_time(nb: nbformat.NotebookNode) -> LearnerTime:
    """An estimate of a learner's time on a lab (not its execution time)."""
    words = lines = 0
    for cell in nb.cells:
        if cell.metadata.get("ice_lab") in (LAB_HEADER["ice_lab"], CHAPTER_HEADER["ice_lab"]):
            continue
        if cell.cell_type == "markdown":
            words += len(cell.source.split())
        elif cell.cell_type == "code" and not is_solution(cell) and not is_hidden_check(cell):
            if "hide-cell" in cell.metadata.get("tags", []):
                continue  # setup the learner does not need to read
            lines += sum(1 for line in cell.source.splitlines() if line.strip())
    opened = sum(len(OPEN_EXERCISE.findall(c.source)) for c in nb.cells
                 if c.cell_type == "markdown")
    return LearnerTime(words, lines, count_exercises(nb), opened)
