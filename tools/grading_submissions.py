"""One submission of each kind a grader must survive, made from any lab (tests, demos).

    python tools/grading_submissions.py lab-nan out_dir/

Built from the lab's student edition (tools/student.py); the first exercise is the one
the adversarial kinds break. The wrong answer is the lab's first recorded usual wrong
answer (tests/lab_answers.py) unless one is given.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))
import booktools

import student

SNOOP = '''\
import builtins as _b
import os as _os
if not hasattr(_b, "_snooped"):
    _b._snooped = []
    for _p in ("../../../source", "../../../gradebook.db", "../../../source/{lab}/{lab}.ipynb"):
        if _os.path.exists(_p):
            _b._snooped.append(_p)
    for _r, _d, _fs in _os.walk("/"):
        _d[:] = [d for d in _d if _os.path.join(_r, d) not in ("/proc", "/sys", "/dev")]
        for _f in _fs:
            if _f.endswith((".ipynb", ".db")):
                try:
                    _t = open(_os.path.join(_r, _f), errors="replace").read()
                except OSError:
                    continue
                if "{grade_id}" in _t and ("SOLUTION" in _t or "HIDDEN" in _t or "SQLite" in _t):
                    _b._snooped.append(_os.path.join(_r, _f))
    print("snooped:", _b._snooped)
if _b._snooped:
{solution}
{wrong}'''


def solution_body(source: str) -> str:
    lines, inside, body = source.splitlines(), False, []
    for line in lines:
        if booktools.SOLUTION_BEGIN.match(line):
            inside, indent = True, len(line) - len(line.lstrip())
        elif booktools.SOLUTION_END.match(line):
            inside = False
        elif inside:
            body.append(line[indent:])
    return "\n".join(body)


def with_body(source: str, body: str) -> str:
    """A solution cell's source with its region replaced by body (indented like it)."""
    out, inside = [], False
    for line in source.splitlines():
        begin = booktools.SOLUTION_BEGIN.match(line)
        if begin:
            inside = True
            out += [begin.group(1) + b if b.strip() else "" for b in body.strip("\n").splitlines()]
        elif booktools.SOLUTION_END.match(line):
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def make_submissions(lab: Path, out: Path, wrong: str | None = None) -> dict[str, Path]:
    """Write <kind>.ipynb for every kind into out; return {kind: path}."""
    nb = nbformat.read(lab, as_version=4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells if booktools.is_solution(c)}
    first = next(iter(solutions))
    if wrong is None:
        sys.path.insert(0, str(TOOLS.parent / "tests"))
        from lab_answers import EXERCISES

        rel = lab.resolve().relative_to(TOOLS.parent).as_posix()
        wrong = next(e.wrong[0].code for e in EXERCISES if e.lab == rel and e.solution == first)
    edition = student.student_edition(nb)

    def variant(first_body: str | None, check: str = "") -> nbformat.NotebookNode:
        copy = nbformat.from_dict(edition)
        cells, seen_first, check_done = [], False, False
        for cell in copy.cells:
            meta = booktools.nbgrader(cell) or {}
            if booktools.is_solution(cell):
                cell.source = solutions[meta["grade_id"]]
                if meta["grade_id"] == first:
                    seen_first = True
                    if first_body is not None:
                        cell.source = with_body(cell.source, first_body)
            elif booktools.is_check(cell) and seen_first and not check_done:
                check_done = True
                if check == "delete":
                    continue
                if check == "assert True":
                    cell.source = "assert True"
            cells.append(cell)
        copy.cells = cells
        return copy

    right = solution_body(solutions[first])
    indent = lambda text: "\n".join("    " + l if l.strip() else "" for l in text.splitlines())
    kinds = {
        "correct": variant(None),
        "stub": edition,
        "wrong": variant(wrong),
        "check_assert_true": variant(wrong, "assert True"),
        "check_deleted": variant(wrong, "delete"),
        "infinite_loop": variant("while True:\n    pass"),
        "os_exit": variant("import os\nos._exit(1)"),
        "segfault": variant("import ctypes\nctypes.string_at(0)"),
        "snoop": variant(SNOOP.format(lab=lab.stem, grade_id=first, solution=indent(right), wrong=wrong.strip("\n"))),
        "stderr_warning": variant(
            'import sys, warnings\nprint("a note on stderr", file=sys.stderr)\n'
            'warnings.warn("a warning from a correct answer")\n' + right
        ),
    }
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for kind, notebook in kinds.items():
        paths[kind] = out / f"{kind}.ipynb"
        nbformat.write(notebook, paths[kind])
    paths["not_json"] = out / "not_json.ipynb"
    paths["not_json"].write_text("this is not JSON {", encoding="utf-8")
    paths["not_notebook"] = out / "not_notebook.ipynb"
    paths["not_notebook"].write_text('{"cells": 3, "answer": 42}', encoding="utf-8")
    return paths


if __name__ == "__main__":
    lab_arg, out_arg = sys.argv[1], Path(sys.argv[2])
    lab_path = Path(lab_arg) if lab_arg.endswith(".ipynb") else TOOLS.parent / "labs" / f"{lab_arg}.ipynb"
    for name, p in make_submissions(lab_path, out_arg).items():
        print(name, p)
