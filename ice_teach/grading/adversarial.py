"""One submission of each kind a grader must survive, made from any lab (tests, demos).

    python -m ice_teach.grading.adversarial lab-tiny.ipynb out_dir/ "return x + 2"

Built from the lab's student edition (ice_teach/student.py); the first exercise is the one
the adversarial kinds break, and `wrong` is the body of a usual wrong answer to it (the
tests take it from tests/support/lab_answers/). The two snooping kinds look for the solutions,
the gradebook and other students' work: `snoop_relative` by relative paths from its
working folder (`../` up to eight times, then nbgrader's `source/`, `release/`,
`submitted/`, `autograded/` notebooks and `gradebook.db`), `snoop` by walking the whole
filesystem for a notebook or database that names the exercise. Each prints what it
found and answers right if it found anything, wrong otherwise. `tamper` answers wrong and,
from the same solution cell, replaces every function of the loaded ``ice_lab.checks``
modules and the name ``check`` by something that prints a pass (ice_teach/grading/guard.py
must undo it before every graded cell).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from ice_teach import exercises, notebooks
from ice_teach import solutions as regions

from ice_teach import student

SNOOP_RELATIVE = '''\
import builtins as _b
import os as _os
if not hasattr(_b, "_snooped"):
    _b._snooped = []
    import glob as _glob
    for _up in range(1, 9):
        for _pat in ("source/*/*.ipynb", "gradebook.db", "release/*/*.ipynb",
                     "autograded/*/*/*.ipynb", "submitted/*/*/*.ipynb"):
            for _p in _glob.glob("../" * _up + _pat):
                try:
                    _t = open(_p, errors="replace").read()
                except OSError:
                    continue
                if _t.strip():  # its own notebook reads as an empty file in the sandbox
                    _b._snooped.append(_p)
    print("snooped:", _b._snooped)
if _b._snooped:
{solution}
else:
{wrong}'''

SNOOP = '''\
import builtins as _b
import os as _os
if not hasattr(_b, "_snooped"):
    _b._snooped = []
    for _r, _d, _fs in _os.walk("/"):
        _d[:] = [d for d in _d if _os.path.join(_r, d) not in ("/proc", "/sys", "/dev")]
        for _f in _fs:
            if _f.endswith((".ipynb", ".db")):
                try:
                    _t = open(_os.path.join(_r, _f), errors="replace").read()
                except OSError:
                    continue
                if "{grade_id}" in _t and any(
                        _w in _t for _w in ("SOLUTION", "HIDDEN", "SQLite")):
                    _b._snooped.append(_os.path.join(_r, _f))
    print("snooped:", _b._snooped)
if _b._snooped:
{solution}
else:
{wrong}'''


TAMPER = '''

import sys as _sys


def _passes(*args, **kwargs):
    print("Check passed: (a replaced check)")


class _AlwaysPasses:
    def __getattr__(self, name):
        return _passes


for _name in [n for n in list(_sys.modules) if n.startswith("ice_lab.checks")]:
    for _attr, _value in list(vars(_sys.modules[_name]).items()):
        if callable(_value) and not _attr.startswith("__"):
            setattr(_sys.modules[_name], _attr, _passes)
check = _AlwaysPasses()
'''


def make_submissions(lab: Path, out: Path, wrong: str) -> dict[str, Path]:
    """Write <kind>.ipynb for every kind into out; return {kind: path}.

    wrong: the body of a usual wrong answer to the lab's first exercise."""
    nb = nbformat.read(lab, as_version=4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source
                 for c in nb.cells if exercises.is_solution(c)}
    first = next(iter(solutions))
    edition = student.student_edition(nb)

    def variant(first_body: str | None, check: str = "",
                after: str = "") -> nbformat.NotebookNode:
        copy = nbformat.from_dict(edition)
        cells, seen_first, check_done = [], False, False
        for cell in copy.cells:
            meta = exercises.nbgrader(cell) or {}
            if exercises.is_solution(cell):
                cell.source = solutions[meta["grade_id"]]
                if meta["grade_id"] == first:
                    seen_first = True
                    if first_body is not None:
                        cell.source = regions.with_solution(cell.source, first_body)
                    cell.source += after
            elif exercises.is_check(cell) and seen_first and not check_done:
                check_done = True
                if check == "delete":
                    continue
                if check == "assert True":
                    cell.source = "assert True"
            cells.append(cell)
        copy.cells = cells
        return copy

    right = regions.solution_body(solutions[first])

    def indent(text: str) -> str:
        return "\n".join("    " + t if t.strip() else "" for t in text.splitlines())

    kinds = {
        "correct": variant(None),
        "stub": edition,
        "wrong": variant(wrong),
        "check_assert_true": variant(wrong, "assert True"),
        "check_deleted": variant(wrong, "delete"),
        "tamper": variant(wrong, after=TAMPER),
        "infinite_loop": variant("while True:\n    pass"),
        "os_exit": variant("import os\nos._exit(1)"),
        "segfault": variant("import ctypes\nctypes.string_at(0)"),
        "snoop": variant(SNOOP.format(grade_id=first, solution=indent(right),
                                      wrong=indent(wrong))),
        "snoop_relative": variant(SNOOP_RELATIVE.format(
            lab=lab.stem, solution=indent(right), wrong=indent(wrong))),
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
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    lab_arg, out_arg, wrong_arg = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    lab_path = Path(lab_arg)
    if not lab_arg.endswith(".ipynb"):
        lab_path = notebooks.ROOT / "labs" / f"{lab_arg}.ipynb"
    for name, p in make_submissions(lab_path, out_arg, wrong_arg).items():
        print(name, p)
