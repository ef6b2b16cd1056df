"""A solution cell cannot grade itself: before every graded cell, the lab's checks are
imported again from the installed package (an nbgrader preprocessor, ice_teach/grading/worker.py).

A lab binds its checks with ``from ice_lab.checks import tensors as check`` and each check
cell calls ``check.<exercise>(...)``. A submission could replace what that call reaches,
from a solution cell: ``check.forward_numpy = lambda *a: None``, a patched
``ice_lab.checks._core``, another object bound to ``check`` or put in ``sys.modules``.
`GuardChecks` inserts, before each graded cell (visible and hidden, after nbgrader has
restored them from the lab), a cell that drops every ``ice_lab.checks`` module from
``sys.modules``, imports the lab's check modules again from their files and binds them to
the names the lab's own import cell uses (read from the teacher's copy, not from the
submission). So a check runs as published whatever the cells before it did.

What this does not stop: code that patches the standard library or torch itself, or code
inside the learner's own function that patches the checks while a check is running; the
sandbox (ice_teach/grading/sandbox.py) keeps the installed files out of reach.
"""

from __future__ import annotations

import re

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

#: ``from ice_lab.checks import tensors as check`` (a lab may import several modules).
CHECK_IMPORT = re.compile(r"^from ice_lab\.checks import (\w+) as (\w+)\s*$", re.M)
MARK = {"ice_lab": "grader-guard"}


def check_imports(lab: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """(module, name) for each ``from ice_lab.checks import <module> as <name>`` line."""
    return [m.groups() for cell in lab.cells if cell.cell_type == "code"
            for m in CHECK_IMPORT.finditer(cell.source)]


def guard_source(imports: list[tuple[str, str]]) -> str:
    """The cell the grader inserts before every graded cell ("" when the lab has none)."""
    if not imports:
        return ""
    lines = [
        "# Inserted by the grader: the lab's checks as installed (ice_teach/grading/guard.py).",
        "import importlib as _grader_importlib",
        "import sys as _grader_sys",
        "for _grader_name in [n for n in list(_grader_sys.modules)",
        "                     if n == 'ice_lab.checks' or n.startswith('ice_lab.checks.')]:",
        "    del _grader_sys.modules[_grader_name]",
    ]
    lines += [f"{name} = _grader_importlib.import_module('ice_lab.checks.{module}')"
              for module, name in imports]
    return "\n".join(lines)


class GuardChecks(NbGraderPreprocessor):
    """Insert the guard cell before every graded cell of the notebook being autograded."""

    source = Unicode("", help="The guard cell's source (guard_source)").tag(config=True)

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict):
        if not self.source:
            return nb, resources
        cells = []
        for cell in nb.cells:
            if (cell.metadata.get("nbgrader") or {}).get("grade"):
                guard = nbformat.v4.new_code_cell(self.source)
                guard.metadata.update(MARK)
                cells.append(guard)
            cells.append(cell)
        nb.cells = cells
        return nb, resources
