"""Tools for the book's notebooks: the canonical setup cell, execution, exercise checks.

Used by the Makefile (`make execute`), by tests/test_notebooks.py, and by authors:

    ice-teach new labs/lab-foo.ipynb "Lab: Foo"   # a notebook with the setup cell
    ice-teach sync-setup                          # rewrite every setup cell
    ice-teach execute book/tensors.ipynb ...      # execute in place

Teacher tooling builds on `exercise_problems` here: the student editions are made by
nbgrader (ice_teach/student.py), the solution and hidden-test regions are read and written by
ice_teach/solutions.py.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from ice_teach import solutions
from ice_teach.settings import EXECUTION_ENV  # the one execution environment (settings.py)
# Read here by tools and tests that predate ice_teach/solutions.py (to move to solutions.X):
from ice_teach.solutions import HIDDEN_BEGIN, HIDDEN_END, SOLUTION_BEGIN, SOLUTION_END, STUDENT_STUB  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIRS = ("book", "labs")
NBFORMAT_VERSION = 4

GRADE_ID = re.compile(r"^[A-Za-z0-9_-]+$")


# --------------------------------------------------------------------------- config
def book_config() -> dict:
    with open(ROOT / "_config.yml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def repository_url() -> str:
    return book_config()["repository"]["url"].rstrip("/")


def setup_cell_source() -> str:
    """The first cell of every notebook. Derived from the repository URL in _config.yml."""
    branch = book_config()["repository"].get("branch", "main")
    return (
        "# Setup: on Colab, install this book's helper package, ice_lab.\n"
        "# Elsewhere this cell does nothing.\n"
        "import sys\n"
        "\n"
        f'ICE_LAB = "git+{repository_url()}@{branch}"\n'
        'if "google.colab" in sys.modules:\n'
        '    %pip install --quiet "ice_lab @ {ICE_LAB}"'
    )


SETUP_CELL_TAGS = ["hide-cell"]


# --------------------------------------------------------------------------- listing
def notebooks() -> list[Path]:
    """Every notebook of the book and the labs, as paths relative to the repository root."""
    found: list[Path] = []
    for d in NOTEBOOK_DIRS:
        found += sorted(
            p.relative_to(ROOT)
            for p in (ROOT / d).rglob("*.ipynb")
            if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")
        )
    return found


def toc_entries() -> list[tuple[str, str]]:
    """Every file named in _toc.yml, without its extension and in its order, with the
    caption of its part ("" for the root and for chapters outside parts)."""
    with open(ROOT / "_toc.yml", encoding="utf-8") as f:
        toc = yaml.safe_load(f)
    found: list[tuple[str, str]] = [(toc["root"], "")]

    def walk(node: object, caption: str) -> None:
        if isinstance(node, dict):
            if "file" in node:
                found.append((node["file"], caption))
            for value in node.values():
                walk(value, caption)
        elif isinstance(node, list):
            for item in node:
                walk(item, caption)

    for part in toc.get("parts", []):
        walk(part, part.get("caption", ""))
    walk(toc.get("chapters", []), "")
    return [(str(Path(file).with_suffix("")), caption) for file, caption in found]


def toc_files() -> list[str]:
    """Every file named in _toc.yml, without its extension."""
    return [file for file, _ in toc_entries()]


def read(path: Path | str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / path, as_version=NBFORMAT_VERSION)


def write(nb: nbformat.NotebookNode, path: Path | str) -> None:
    nbformat.write(nb, ROOT / path)


# --------------------------------------------------------------------------- setup cell
def make_setup_cell() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(setup_cell_source())
    cell.metadata["tags"] = list(SETUP_CELL_TAGS)
    return cell


# What JupyterLab writes for the venv's kernel: a notebook that says the same is not marked
# modified the moment it opens.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def sync_kernelspec(nb: nbformat.NotebookNode) -> bool:
    """Give the notebook the canonical kernelspec; return True if anything changed."""
    changed = dict(nb.metadata.get("kernelspec", {})) != KERNELSPEC
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    return changed


def sync_setup_cell(nb: nbformat.NotebookNode) -> bool:
    """Make the first cell the canonical setup cell; return True if anything changed."""
    first = nb.cells[0] if nb.cells else None
    if first is not None and first.cell_type == "code" and first.source.startswith("# Setup: on Colab"):
        changed = first.source != setup_cell_source() or first.metadata.get("tags") != SETUP_CELL_TAGS
        first.source = setup_cell_source()
        first.metadata["tags"] = list(SETUP_CELL_TAGS)
        return changed
    nb.cells.insert(0, make_setup_cell())
    return True


def new_notebook(path: Path | str, title: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [make_setup_cell(), nbformat.v4.new_markdown_cell(f"# {title}")]
    write(nb, path)


# --------------------------------------------------------------------------- exercises
# The cell tests of nbgrader.utils (is_solution, is_grade) give the same answers, but
# importing nbgrader.utils imports the nbgrader package: about 1.8 s and jupyter_server,
# tornado, sqlalchemy and requests with it, in every test run, `_ext/` and the book build
# that import this module. These three lines stay ours (review F6, issue 38).
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


# --------------------------------------------------------------------------- lab header
#: Cell metadata marking the header cell `sync_lab_header` writes under a lab's title.
LAB_HEADER = {"ice_lab": "lab-header"}
#: ... and the one `sync_chapter_header` writes under a chapter's title (its reading time).
CHAPTER_HEADER = {"ice_lab": "chapter-header"}
_HEADERS = (LAB_HEADER["ice_lab"], CHAPTER_HEADER["ice_lab"])


def colab_url(path: Path | str) -> str:
    """The Colab link of a notebook of this repository (from _config.yml's repository)."""
    branch = book_config()["repository"].get("branch", "main")
    repo = repository_url().removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repo}/blob/{branch}/{Path(path).as_posix()}"


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
        if cell.metadata.get("ice_lab") in _HEADERS:
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


def lab_header_source(nb: nbformat.NotebookNode, path: Path | str | None = None,
                      edition: str = "book") -> str:
    """The header cell under a lab's title, in one of its two editions.

    ``edition="book"``: labs/<name>.ipynb's (``path`` names it): the Colab button of its
    student edition, its points, the learner time. ``edition="student"``: the student
    edition's (ice_teach/student.py): the same points, and how to hand it in.
    """
    visible, hidden = lab_points(nb)
    hidden_text = f", {hidden:g} of them in hidden checks run at grading" if hidden else ""
    points = f"**{count_exercises(nb)} exercises, {visible + hidden:g} points**{hidden_text}. "
    if edition == "student":
        return (points + "Write each fix where the exercise cell says `raise NotImplementedError`, "
                "run the check under it, and hand in this notebook (File > Download > Download .ipynb).")
    if edition != "book" or path is None:
        raise ValueError(f"edition {edition!r}: 'book' (with the lab's path) or 'student'")
    name = Path(path).name
    estimate = learner_time(nb)
    return (
        f"[Open the exercise in Colab]({colab_url(Path('student') / name)}) "
        "(the student edition, without solutions; save it with File > Download to hand it in)\n\n"
        + points
        + "This page is the full lab: each solution is folded under its exercise, for self-study.\n\n"
        f"**About {estimate.minutes} minutes** of a learner's time (an estimate: "
        f"{estimate.explained()}).\n\n"
        "An error you do not recognise? `explain(err)` in the notebook, or paste it into "
        "[Explain an error](../book/explain-online.md) (in the browser, no kernel needed)."
    )


def _sync_header(nb: nbformat.NotebookNode, marker: dict[str, str], source: str) -> bool:
    """Insert or refresh the cell marked ``marker`` right under the title cell with
    ``source``; True if it changed."""
    for cell in nb.cells:
        if cell.metadata.get("ice_lab") == marker["ice_lab"]:
            changed = cell.source != source
            cell.source = source
            return changed
    title = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("# "))
    cell = nbformat.v4.new_markdown_cell(source, metadata=dict(marker))
    cell.id = marker["ice_lab"]
    nb.cells.insert(title + 1, cell)
    return True


def sync_lab_header(nb: nbformat.NotebookNode, path: Path | str) -> bool:
    """Insert or refresh the header cell right under the lab's title; True if it changed."""
    return _sync_header(nb, LAB_HEADER, lab_header_source(nb, path))


def chapter_header_source(nb: nbformat.NotebookNode) -> str:
    """The header of a chapter: an estimate of its reading time (learner_time, no exercises)."""
    estimate = learner_time(nb)
    return (f"*About {estimate.minutes} minutes of reading* (an estimate: {estimate.words:,} "
            f"words at {WORDS_PER_MINUTE} a minute, {estimate.code_lines} lines of code at "
            f"{CODE_LINES_PER_MINUTE} a minute; running the cells yourself takes longer).")


def sync_chapter_header(nb: nbformat.NotebookNode) -> bool:
    """Insert or refresh the reading-time line right under the chapter's title cell; True if
    it changed."""
    return _sync_header(nb, CHAPTER_HEADER, chapter_header_source(nb))


# --------------------------------------------------------------------------- execution


def bare_copies(dest: Path | str, paths: list[Path]) -> list[Path]:
    """Copy each notebook into a folder of its own under ``dest``, out of the repository's
    reach, as a learner's Colab runtime or an empty folder holds it:
    ``dest/book-numerics/book/numerics.ipynb``. The notebook's folder keeps its name (a
    cell may print it) and holds only the notebook; its parent holds only that folder.
    ``dest`` also gets the root ``conftest.py`` (what nbval compares) and nothing else, so
    that `make test`'s bare pass (the Makefile's BARE_PASS) runs nbval there."""
    import shutil

    dest = Path(dest).resolve()
    if ROOT == dest or ROOT in dest.parents:
        raise SystemExit(f"bare copies: {dest} is inside the repository; use a temporary folder")
    copies = []
    for nb in paths:
        folder = dest / f"{nb.parent.name}-{nb.stem}" / nb.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        copies.append(Path(shutil.copy2(nb, folder / nb.name)))
    shutil.copy2(ROOT / "conftest.py", dest / "conftest.py")
    return copies


def execute(path: Path | str, timeout: int = 600, allow_errors: bool = False, *,
            bare: bool = False, nb: nbformat.NotebookNode | None = None) -> nbformat.NotebookNode:
    """Execute a notebook and return it with its outputs (the file is not written).

    In place (the default): the notebook ``path`` (from the repository root), with its own
    folder as working directory, as nbval does, in settings.EXECUTION_ENV.
    ``bare``: a copy alone in a temporary folder (the layout of ``bare_copies``), as a
    learner's Colab or an empty folder holds it, in the caller's environment (the
    verification runs set it; ``ice_teach.verify.bare --bars`` leaves progress bars on);
    ``nb``, if given, is executed instead of the file ``path`` names (a filled-in student
    edition)."""
    import tempfile

    from nbclient import NotebookClient

    if nb is None:
        nb = nbformat.read(ROOT / path, as_version=NBFORMAT_VERSION)
    with tempfile.TemporaryDirectory(prefix="ice-bare-") as scratch:
        if bare:
            parent = Path(path).parent.name  # a bare name: the temporary folder itself
            folder = Path(scratch) / f"{parent}-{Path(path).stem}" / parent if parent else Path(scratch)
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, folder / Path(path).name)
        else:
            os.environ.update(EXECUTION_ENV)
            folder = (ROOT / path).parent
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=allow_errors,
            record_timing=False,  # no per-cell timestamps: re-executing leaves unchanged cells unchanged
            resources={"metadata": {"path": str(folder)}},
        )
        client.execute()
    return nb


def _cmd_execute(paths: list[str]) -> int:
    targets = [Path(p) for p in paths] or notebooks()
    for p in targets:
        nb = read(p)
        if sync_setup_cell(nb) | sync_kernelspec(nb):
            write(nb, p)
        start = time.perf_counter()
        nb = execute(p)
        write(nb, p)
        print(f"executed {p} in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_new = sub.add_parser("new", help="create a notebook that starts with the setup cell")
    p_new.add_argument("path")
    p_new.add_argument("title")
    sub.add_parser("sync-setup", help="rewrite the setup cell (from _config.yml) and the "
                   "kernelspec of every notebook")
    p_head = sub.add_parser("sync-lab-headers", help="insert/refresh the Colab button, points "
                            "and learner time of every lab (or of the labs named)")
    p_head.add_argument("paths", nargs="*")
    p_chap = sub.add_parser("sync-chapter-headers", help="insert/refresh the reading time "
                            "under the title of every chapter (or of the chapters named)")
    p_chap.add_argument("paths", nargs="*")
    p_exe = sub.add_parser("execute", help="execute notebooks in place (all when none is named)")
    p_exe.add_argument("paths", nargs="*")
    p_bare = sub.add_parser("bare-copies", help="copy every notebook (or those named, or "
                            "under the folders named) into a folder of its own under DEST, "
                            "out of the repository's reach; print DEST")
    p_bare.add_argument("dest")
    p_bare.add_argument("paths", nargs="*")
    args = parser.parse_args(argv)
    if args.cmd == "new":
        new_notebook(args.path, args.title)
    elif args.cmd == "sync-setup":
        for p in notebooks():
            nb = read(p)
            if sync_setup_cell(nb) | sync_kernelspec(nb):
                write(nb, p)
                print(f"updated {p}")
    elif args.cmd == "sync-lab-headers":
        named = {Path(p).as_posix() for p in args.paths}
        for p in notebooks():
            if p.parts[0] == "labs" and (not named or p.as_posix() in named):
                nb = read(p)
                if sync_lab_header(nb, p):
                    write(nb, p)
                    print(f"updated {p}")
    elif args.cmd == "sync-chapter-headers":
        named = {Path(p).as_posix() for p in args.paths}
        for p in notebooks():
            if p.parts[0] == "book" and (not named or p.as_posix() in named):
                nb = read(p)
                if sync_chapter_header(nb):
                    write(nb, p)
                    print(f"updated {p}")
    elif args.cmd == "execute":
        return _cmd_execute(args.paths)
    elif args.cmd == "bare-copies":
        found: list[Path] = []
        for arg in args.paths:
            path = Path(arg)
            found += sorted(path.rglob("*.ipynb")) if path.is_dir() else [path]
        # hidden files (an editor's or a tool's scratch copies) are not notebooks of the book
        found = [p for p in found if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")]
        bare_copies(args.dest, found if args.paths else [ROOT / p for p in notebooks()])
        print(Path(args.dest).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
