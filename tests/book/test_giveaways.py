"""No exercise's fix is shown to the learner before they write it (tests/support/giveaways.py).

For every graded exercise of every lab, less than half of its reference fix (the lines not
already in the exercise's broken code) may appear in what the student edition shows before
and during the attempt: the lab's prose, code and outputs up to the solution, and the
exercise's visible checks. The part's chapter is reported beside it (``python
tests/support/giveaways.py``), not held here: a chapter teaches the idea the lab transfers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from giveaways import exposures

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted((ROOT / "labs").glob("lab-*.ipynb"))


@pytest.mark.parametrize("lab", LABS, ids=[p.stem for p in LABS])
def test_no_lab_shows_half_of_a_fix_before_the_attempt(lab):
    shown = [f"{e.exercise}: {len(e.in_lab)} of {e.lines} fix lines shown ({e.in_lab})"
             for e in exposures(lab) if e.lab_share >= 0.5]
    assert not shown, f"{lab.name}:\n" + "\n".join(shown)


def test_the_count_finds_a_fix_in_a_hint():
    """The measure itself: a fix quoted in prose counts, its broken original does not."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    solution = nbformat.v4.new_code_cell(
        "def f(x):\n    # BEGIN SOLUTION\n    y = x.float().mean()\n    return y\n"
        "    # END SOLUTION")
    solution.metadata["nbgrader"] = {"solution": True, "grade_id": "f"}
    prose = nbformat.v4.new_markdown_cell("The fix: `x.float().mean()`.")
    nb.cells = [prose, solution]
    path = ROOT / "_build" / "giveaway-probe.ipynb"
    path.parent.mkdir(exist_ok=True)
    nbformat.write(nb, path)
    try:
        (found,) = exposures(path, chapter_path=path)
    finally:
        path.unlink()
    assert found.in_lab == ["y=x.float().mean()"] and found.lines == 1
