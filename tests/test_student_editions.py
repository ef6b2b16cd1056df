"""Every lab's checks fail on the student edition: no check passes without a fix.

The student edition replaces each solution region with `raise NotImplementedError`
(tools/booktools.py). Executed with errors allowed, every visible check cell must then
raise. A check that passes anyway could never fail, and would grade nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import booktools  # noqa: E402

LABS = [p for p in booktools.notebooks() if p.parts[0] == "labs"]


@pytest.mark.parametrize("path", LABS, ids=[str(p) for p in LABS])
def test_checks_fail_without_the_fixes(path, tmp_path):
    student = booktools.student_edition(booktools.read(path))
    checks = [i for i, c in enumerate(student.cells) if booktools.is_check(c)]
    assert checks, f"{path} has no visible check cells"
    # Run up to the last check only; the lab's own folder is the working directory.
    student.cells = student.cells[: checks[-1] + 1]
    copy = ROOT / path.parent / f".student-{path.name}"
    try:
        nbformat.write(student, copy)
        executed = booktools.execute(copy.relative_to(ROOT), timeout=300, allow_errors=True)
    finally:
        copy.unlink(missing_ok=True)
    passing = [
        f"cell {i} ({executed.cells[i].metadata['nbgrader']['grade_id']})"
        for i in checks
        if not any(o.output_type == "error" for o in executed.cells[i].outputs)
    ]
    assert not passing, f"{path}: these checks pass without any fix: {', '.join(passing)}"
