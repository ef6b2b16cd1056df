"""The checks of labs/lab-capstone.ipynb (ice_lab.checks.capstone and its two sibling
modules), in process, without a kernel.

Each exercise's function is built the way the lab builds it: the lab's import cell, the
script, the colleague's improvement and the lab's own solutions of the exercises before
it run in one namespace, then the exercise's solution cell with the answer in its region.
So every entry of tests/lab_answers/capstone.py is replayed against the check functions
here too: a right answer passes the visible and the seeded check, a wrong one fails the
visible check with its recorded hint, the shipped stub fails.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
import torch

from ice_lab.checks import capstone as check
from lab_answers import capstone as table

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "labs" / "lab-capstone.ipynb"
STUB = 'raise NotImplementedError("Exercise: write your fix here.")'
REGION = re.compile(r"^([ \t]*)# BEGIN SOLUTION\n.*?^[ \t]*# END SOLUTION\n?", re.M | re.S)
SEEDS = (5, 2026)


@functools.cache
def _cells() -> tuple[list[str], dict[str, str], str, int]:
    """(the lab's setup cells, every solution cell by exercise, the colleague's cell,
    the index of the colleague's cell among the exercises)."""
    nb = nbformat.read(LAB, as_version=4)
    setup, solutions, colleague, order = [], {}, "", []
    for cell in nb.cells:
        grader = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        if grader.get("solution"):
            solutions[grader["grade_id"]] = cell.source
            order.append(grader["grade_id"])
        elif "from ice_lab.checks import capstone as check" in cell.source or (
                "def run(" in cell.source):
            setup.append(cell.source)
        elif "class AddCoords" in cell.source and not grader:
            colleague = cell.source
            order.append("<colleague>")
    return setup, solutions, colleague, order.index("<colleague>")


def with_answer(source: str, body: str) -> str:
    """A solution cell's source with its region replaced by ``body``."""
    def put(match: re.Match) -> str:
        return textwrap.indent(textwrap.dedent(body).strip("\n"), match.group(1)) + "\n"
    return REGION.sub(put, source, count=1)


@functools.cache
def _before(exercise: str) -> dict:
    """The lab's globals just before ``exercise``'s solution cell (never changed: each
    answer runs in a copy)."""
    setup, solutions, colleague, at = _cells()
    ns: dict = {}
    for source in setup:
        exec(compile(source, "<lab>", "exec"), ns)
    names = list(solutions)
    for k, name in enumerate(names[:names.index(exercise)]):
        if k == at:
            exec(compile(colleague, "<colleague>", "exec"), ns)
        exec(compile(solutions[name], name, "exec"), ns)
    if names.index(exercise) >= at:
        if names.index(exercise) == at:
            exec(compile(colleague, "<colleague>", "exec"), ns)
        ns.setdefault("OTHER", torch.device("meta"))
    return ns


def namespace(exercise: str, body: str | None = None) -> dict:
    """The lab's globals at ``exercise``, its solution cell run with ``body`` (the lab's
    own solution when None)."""
    ns = dict(_before(exercise))
    solutions = _cells()[1]
    source = solutions[exercise] if body is None else with_answer(solutions[exercise], body)
    exec(compile(source, exercise, "exec"), ns)
    return ns


CALLS: dict[str, Callable[[dict, int | None], None]] = {
    "fix_model": lambda ns, s: check.model(ns["make_model"], seed=s),
    "fix_normalise": lambda ns, s: check.normalise(ns["normalise"], seed=s),
    "fix_load_digits": lambda ns, s: check.load_digits(
        ns["load_digits"], ns["images"], ns["labels"], seed=s),
    "fix_setup": lambda ns, s: check.setup(ns["setup"], seed=s),
    "fix_compute_loss": lambda ns, s: check.compute_loss(ns["compute_loss"], seed=s),
    "fix_train_step": lambda ns, s: check.train_step(
        ns["train_step"], ns["compute_loss"], seed=s),
    "fix_evaluate_memory": lambda ns, s: check.evaluate_memory(ns["evaluate"], seed=s),
    "fix_evaluate_mode": lambda ns, s: check.evaluate_mode(ns["evaluate"], seed=s),
    "fix_add_coords": lambda ns, s: check.add_coords(ns["AddCoords"], ns["OTHER"], seed=s),
    "fix_residual": lambda ns, s: check.residual(ns["Residual"], seed=s),
}
EXERCISES = {ex.solution: ex for ex in table.EXERCISES}


def test_every_exercise_of_the_lab_has_a_check():
    assert set(CALLS) == set(_cells()[1]) == set(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(CALLS))
def test_the_lab_solution_passes_visible_and_seeded(exercise, capsys):
    ns = namespace(exercise)
    capsys.readouterr()  # what the lab's cells printed
    for seed in (None, *SEEDS):
        CALLS[exercise](ns, seed)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(SEEDS) and all(
        line.startswith("Check passed: ") for line in lines), lines


@pytest.mark.parametrize("exercise", sorted(CALLS))
def test_the_stub_fails(exercise):
    ns = namespace(exercise, STUB)
    with pytest.raises(AssertionError, match="NotImplementedError"):
        CALLS[exercise](ns, None)


def _answers(kind: str) -> list:
    return [pytest.param(ex.solution, k, id=f"{ex.solution}-{kind}{k}")
            for ex in table.EXERCISES for k, _ in enumerate(getattr(ex, kind))]


@pytest.mark.parametrize(("exercise", "k"), _answers("wrong"))
def test_a_wrong_answer_fails_with_its_hint(exercise, k):
    answer = EXERCISES[exercise].wrong[k]
    ns = namespace(exercise, answer.code)
    with pytest.raises(AssertionError) as failed:
        CALLS[exercise](ns, None)
    assert answer.hint in str(failed.value), (answer.why, str(failed.value))


@pytest.mark.parametrize(("exercise", "k"), _answers("right"))
def test_a_right_answer_passes_visible_and_seeded(exercise, k):
    ns = namespace(exercise, EXERCISES[exercise].right[k].code)
    for seed in (None, SEEDS[0]):
        CALLS[exercise](ns, seed)


def test_seeds_draw_other_cases(capsys):
    digits, loss = namespace("fix_load_digits"), namespace("fix_compute_loss")
    capsys.readouterr()
    for seed in (None, *SEEDS):
        check.load_digits(digits["load_digits"], digits["images"], digits["labels"],
                          seed=seed)
        check.compute_loss(loss["compute_loss"], seed=seed)
    lines = capsys.readouterr().out.splitlines()
    assert len(set(lines[0::2])) == 3 and len(set(lines[1::2])) == 3, lines


def test_a_second_failure_says_more():
    ns = namespace("fix_train_step", """
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item()""")
    messages = []
    for _ in range(2):
        with pytest.raises(AssertionError) as failed:
            check.train_step(ns["train_step"], ns["compute_loss"])
        messages.append(str(failed.value))
    assert "Still stuck" in messages[1]  # the first may be a second already


def test_the_final_check_reads_the_history(capsys):
    check.final({"test_accuracy": 0.975})
    assert capsys.readouterr().out.startswith("Check passed")
    with pytest.raises(AssertionError, match="the target is 97%"):
        check.final({"test_accuracy": 0.9})
    with pytest.raises(AssertionError, match="did not finish"):
        check.final({})


def test_no_hint_spells_a_fix():
    """The fixes' own code never stands in a check's messages (its string literals)."""
    texts = []
    for name in ("capstone", "capstone_training", "capstone_colleague"):
        tree = ast.parse((ROOT / "ice_lab" / "checks" / f"{name}.py").read_text())
        texts += [node.value for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    sources = " ".join(" ".join(texts).split())
    for fix in ("optimizer.zero_grad()", "model.zero_grad()", "torch.no_grad():",
                "model.eval()", "model.train(was",
                "device=x.device", "h = h + x", "y[order]", "std > 0",
                "F.cross_entropy(logits, labels)", "len(loader.dataset)", "32 * 4 * 4"):
        assert fix not in sources, fix
