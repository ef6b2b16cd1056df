"""Right and wrong answers to every graded lab exercise, and the hint each wrong one gets.

For each exercise (a solution cell's ``grade_id`` in a lab), ``right`` holds the answers the
chapter teaches besides the lab's own solution, and ``wrong`` at least three mistakes
learners make, one or more of which hide the symptom (``hides=True``: the error or the
NaN goes away, the lesson does not). Each answer's ``code`` replaces the lines between
``# BEGIN SOLUTION`` and ``# END SOLUTION`` (indented like them). A wrong answer's ``hint``
is a piece of the assert message that must name it: the first cell to fail must be one of
the exercise's visible checks, with an ``AssertionError`` holding ``hint``.
tests/book/test_lab_answers.py runs them all, one kernel per lab. ``cleanup`` runs after an
answer's cells (for answers that change global state).

When a check or its hint changes, update the entry here; a new exercise needs its entry.

Comments say which round found a wrong answer that once passed a check: the *mutation
round* (answers written as small changes to the solution, to find what a check lets
through) and the *held-out round* (answers collected later, that the checks had not been
written against). The check was strengthened each time; the answer stays here so that it
keeps failing.

One module per lab (``tests/support/lab_answers/<lab>.py``, e.g. ``nan.py`` for ``labs/lab-nan.ipynb``),
each with its ``EXERCISES``; a new lab needs a module here and a line below.
"""

from __future__ import annotations

from . import (autograd, capstone, datasets, device, distributed, export, nan, oom, resume,
               tensors, training)
from .answer import Answer, Exercise, R, W

LABS = (tensors, autograd, datasets, nan, oom, training, device, export, distributed, resume,
        capstone)
EXERCISES: list[Exercise] = [ex for module in LABS for ex in module.EXERCISES]

__all__ = ["Answer", "EXERCISES", "Exercise", "LABS", "R", "W"]
