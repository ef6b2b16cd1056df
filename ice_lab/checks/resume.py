"""Checks of ``labs/lab-resume.ipynb`` (chapter: Checkpoints), one function per exercise:
``make_checkpoint`` (a resume that carries the optimizer and the schedule on, here),
``exact_resume`` and ``colleague_trainer`` (runs that go on bit for bit:
``resume_runs.py``), ``load_colleague`` and ``atomic_save`` (files: ``resume_files.py``).

The lab imports this module as ``check``; each Verify cell is one call, e.g.
``check.make_checkpoint(make_checkpoint, resume, make_parts)``.
"""

from __future__ import annotations

import copy
import functools
import tempfile
import traceback
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from ._core import Hints, attempt, need_callable, passed, quote, rng
from .resume_files import atomic_save, load_colleague
from .resume_runs import (KINDS, _building, _objects_hint, _others, _rates, _round_trip,
                          _same_state, _summary, _train, colleague_trainer, exact_resume,
                          one_thread)


_ckpt = Hints("make_checkpoint")


@functools.lru_cache(maxsize=4)
def _reference(make_parts: Callable, stop: int) -> tuple:
    """The lab's run to ``stop + 10``: its states at ``stop``, its whole-set loss there,
    and the rate of every step."""
    parts = make_parts()
    early = _train(parts, 0, stop)
    snapshot = copy.deepcopy([parts.model.state_dict(), parts.optimizer.state_dict(),
                              parts.scheduler.state_dict()])
    x_all, y_all = parts.loader.dataset.tensors
    parts.model.eval()
    with torch.no_grad():
        at_save = F.cross_entropy(parts.model(x_all), y_all).item()
    late = _train(parts, stop, stop + 10)
    return snapshot, at_save, early.lrs + late.lrs


# --------------------------------------------------------------------------- exercise 1
def make_checkpoint(save: Callable, resume: Callable, make_parts: Callable, *,
                    seed: int | None = None) -> None:
    """``save(parts, step)`` returns a checkpoint dict of plain states; ``resume(ckpt)``
    builds fresh parts with ``make_parts()`` and puts that state back, so that every step
    after the resume trains as the uninterrupted run would: the lab's example at step
    400, another step, a resumed run resumed again, another training script."""
    need_callable(save, "make_checkpoint")
    need_callable(resume, "resume")
    h = _ckpt.require
    fresh, error = attempt(save, make_parts(), 0)
    h(not error, f"make_checkpoint fails on fresh parts ({error}).")
    h(isinstance(fresh, dict),
      f"make_checkpoint should return a dict, got {type(fresh).__name__}.")
    h(not any(isinstance(v, KINDS) for v in fresh.values()), _objects_hint("object"),
      kind="object")
    with tempfile.TemporaryDirectory(prefix="check_resume_") as folder, one_thread():
        if seed is None:
            _example(save, resume, make_parts, folder)
        else:
            _drawn(save, resume, make_parts, folder, seed)
    passed("the optimizer and the schedule carry on where they stopped (another step, "
           "a second resume, SGD with a StepLR).")


def _example(save: Callable, resume: Callable, make_parts: Callable, folder: str) -> None:
    h = _ckpt.require
    snapshot, at_save, lrs = _reference(make_parts, 400)
    parts = make_parts()
    parts.model.load_state_dict(snapshot[0])
    parts.optimizer.load_state_dict(snapshot[1])
    parts.scheduler.load_state_dict(snapshot[2])
    result, error = attempt(lambda: resume(_round_trip(folder, "a.pt", save(parts, 400))))
    h(not error, _objects_hint(error) or
      f"The check could not resume your checkpoint ({error}).", kind="object")
    h(isinstance(result, tuple) and len(result) == 2,
      f"resume() should return (parts, step), got {type(result).__name__}.")
    got, step = result
    h(step == 400, f"resume() returned step {step}, expected 400.")
    params = [p for g in got.optimizer.param_groups for p in g["params"]]
    h(all(a is b for a, b in zip(params, got.model.parameters())),
      "The optimizer does not update the resumed model: it was built over another "
      "model's parameters. Put the saved state into the parts make_parts() built.")
    h(got.scheduler.optimizer is got.optimizer,
      "parts.scheduler sets the rate of another optimizer than parts.optimizer: resume() "
      "replaced the optimizer make_parts() built, and its scheduler still drives the "
      "old one. Put the saved state into the optimizer make_parts() built.")
    h(_same_state(got.optimizer.state_dict(), snapshot[1]),
      f"After the resume: {_summary(got.optimizer)}. Adam should continue at step 400, "
      "with the running averages (exp_avg, exp_avg_sq) it had: they are the "
      "optimizer's state, and the checkpoint must carry it.", kind="optimizer",
      more="1.3 Diagnose compares the optimizers of both runs: what does a fresh one lack?")
    restart = _train(make_parts(), 0, 10).lrs  # the rates of a schedule that starts over
    after = _train(got, 400, 410, watch=True)
    mine, want = after.lrs, lrs[400:410]
    h(mine == want,
      "After the resume the learning rate jumps back to the top of the schedule: step "
      f"402 trains at {mine[1]:.2g}, the uninterrupted run at {want[1]:.2g}. The resumed "
      "scheduler counts its steps from 0 again, and a LambdaLR computes the rate from "
      "its count: the checkpoint must carry the scheduler's state too."
      if mine[1:] == restart[1:] else
      "After the resume the schedule runs one step ahead: step 401 trains at the rate "
      "of step 402. Put the scheduler's saved state back as it was: stepping it once "
      "more, or building a new one with last_epoch=step (it steps once when built), "
      "moves it on." if mine[:-1] == want[1:] else
      "After the resume the schedule runs one step behind: step 402 trains at the rate "
      "of step 401. Put the scheduler's saved state back as it was, at its saved step."
      if mine[1:] == want[:-1] else
      f"Only the first step after the resume trains at another rate ({mine[0]:.2g}, "
      f"not {want[0]:.2g}): building a scheduler sets the optimizer's rate to the start "
      "of its schedule, and loading the scheduler's state afterwards does not set it "
      "back before its next step. Put the saved states into the scheduler and the "
      "optimizer make_parts() built." if mine[1:] == want[1:] else
      "The check could not tell what went wrong: after the resume the rates are "
      f"{_rates(mine[:3])}, where the uninterrupted run has {_rates(want[:3])}.",
      kind="schedule")
    h(max(after.whole[:5]) < 2 * at_save,
      "The loss still jumps after the resume. A new optimizer with the old learning "
      "rate is not enough: its moments (exp_avg, exp_avg_sq) must come from the "
      "checkpoint.")
    # Another step (37), and a resumed run resumed once more (at step 45).
    first = make_parts()
    _train(first, 0, 37)
    seen: dict[str, Any] = {}

    def twice() -> None:
        again, seen["step"] = resume(_round_trip(folder, "b.pt", save(first, 37)))
        seen["b"] = _train(again, 37, 45).lrs
        more, _ = resume(_round_trip(folder, "c.pt", save(again, 45)))
        seen["c"] = _train(more, 45, 50).lrs

    _, error = attempt(twice)
    h(seen.get("step") in (37, None),
      f"A checkpoint made at step 37 resumes at {seen.get('step')}: save the step "
      "make_checkpoint is given, not the example's 400.")
    h(not error, f"A checkpoint of step 37, or of a resumed run, does not resume ({error}).")
    h(seen["b"] == lrs[37:45] and seen["c"] == lrs[45:50],
      "Right at step 400, wrong at step 37 or once a resumed run is resumed again, and "
      f"the check could not tell what went wrong: the rates after step 37 are "
      f"{_rates(seen['b'][:2])}, after step 45 {_rates(seen['c'][:2])}; the "
      f"uninterrupted run has {_rates(lrs[37:39])} and {_rates(lrs[45:47])}.")
    _other_script(save, resume, _others(make_parts), folder, 2, 23, 33)


def _other_script(save: Callable, resume: Callable, build: Callable, folder: str,
                  seed: int, stop: int, last: int) -> None:
    """Another training script (SGD with momentum, a StepLR) stopped at ``stop``."""
    h = _ckpt.require
    whole = _train(build(seed), 0, last).lrs
    first = build(seed)
    _train(first, 0, stop)
    used: list[Any] = []  # the optimizer and scheduler resume() works with
    out: dict[str, Any] = {}
    try:
        with _building((resume,), build):
            again, _ = resume(_round_trip(folder, "d.pt", save(first, stop)))
            used = [again.optimizer, again.scheduler]
            out["same"] = _same_state(again.optimizer.state_dict(),
                                      first.optimizer.state_dict())
            out["count"] = again.scheduler.last_epoch  # the steps it has counted
            out["lrs"] = _train(again, stop, last).lrs
        error = ""
    except Exception as err:  # quoted in the hint below, on one line
        error = quote(err)
        used = [frame.f_locals.get("self")  # the objects the error happened in
                for frame, _ in traceback.walk_tb(err.__traceback__)]
    own = sorted({type(x).__name__ for x in used if isinstance(x, KINDS[1:])}
                 - {type(first.optimizer).__name__, type(first.scheduler).__name__})
    h(not own,
      "Right for this lab's script, wrong for another: where make_parts() builds an SGD "
      f"and a StepLR, resume() uses its own {' and '.join(own)}. Put the saved state "
      "into the optimizer and scheduler make_parts() built, whatever they are.",
      kind="own")
    h(not error, "Another training script (SGD with momentum, a StepLR) does not "
      f"resume, and the check could not tell what went wrong: {error}.")
    h(out["same"],
      "Right for Adam, wrong for another training script: after its resume, SGD's "
      "state (its momentum buffers) is not the one it had. Put back the optimizer's "
      "whole state.")
    mine = out["lrs"]
    h(mine == whole[stop:last],
      "Right for this lab's LambdaLR, wrong for another training script's StepLR: its "
      f"scheduler counts the right steps but sets another rate (step {stop + 1} trains "
      f"at {mine[0]:.2g}, its uninterrupted run at {whole[stop]:.2g}). Stepping a "
      "scheduler forward on top of the rate the optimizer's state brought back applies "
      "its decays twice (a StepLR multiplies the rate it finds): put back the "
      "scheduler's saved state instead of replaying its steps."
      if out["count"] == stop else
      "Right for this lab's LambdaLR, wrong for another training script's StepLR: after "
      f"a resume at step {stop} the rates are {_rates(mine[:6])}, where its "
      f"uninterrupted run has {_rates(whole[stop:stop + 6])}. The check could not tell "
      "what went wrong; the scheduler's own saved state fits every kind.")


def _drawn(save: Callable, resume: Callable, make_parts: Callable, folder: str,
           seed: int) -> None:
    """Runs drawn from ``seed``: the lab's script and another one with other batches,
    stopped at a drawn step, resumed twice."""
    h = _ckpt.require
    draw = rng(seed, 0)
    for case in range(3):
        size = draw.choice([32, 40, 56, 100])
        build = functools.partial(make_parts, 1) if case == 0 else functools.partial(
            _others(make_parts, size), 1)
        stop = draw.randrange(3, 40)
        whole = _train(build(), 0, stop + 8).lrs
        first = build()
        _train(first, 0, stop)
        out: dict[str, Any] = {}

        def twice() -> None:
            with _building((resume,), build):
                again, out["step"] = resume(_round_trip(folder, "e.pt", save(first, stop)))
                out["same"] = _same_state(again.optimizer.state_dict(),
                                          first.optimizer.state_dict())
                out["b"] = _train(again, stop, stop + 4).lrs
                more, _ = resume(_round_trip(folder, "e.pt", save(again, stop + 4)))
                out["c"] = _train(more, stop + 4, stop + 8).lrs

        _, error = attempt(twice)
        what = (f"A run stopped after step {stop} ({type(first.optimizer).__name__}, "
                f"batches of {first.loader.batch_size})")
        h(not error, f"{what} does not resume ({error}).")
        h(out["step"] == stop, f"{what} resumes at step {out['step']}.")
        h(out["same"], f"{what}: the optimizer's state does not come back.")
        h(out["b"] + out["c"] == whole[stop:],
          f"{what}, resumed twice: the learning rates differ from the uninterrupted run's.")
