"""Checks of ``labs/lab-resume.ipynb`` (chapter: Checkpoints) that continue runs bit for
bit: exercise 2 (a resume that is the same run) and exercise 5 (a colleague's trainer), and
the runs every check of ``ice_lab.checks.resume`` trains. The lab calls them through
``ice_lab.checks.resume``.

The checks train their own runs with the lab's ``make_parts()`` and compare them, with
``_train``, the lab's ``train``; ``_other_parts`` is another training script (SGD with
momentum, a ``StepLR``, other batches), which ``resume()`` must rebuild when the lab's
name ``make_parts`` stands for it (``_building``).
"""

from __future__ import annotations

import copy
import functools
import itertools
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader

import ice_lab
from ice_lab.checkpoint import load_checkpoint, save_checkpoint
from ice_lab.resume import ResumableSampler

from ._core import Hints, attempt, need_callable, passed, rng

_exact = Hints("exact_resume")
_trainer = Hints("colleague_trainer")
KINDS = (nn.Module, torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler)


# --------------------------------------------------------------------------- set-up
def _other_parts(seed: int = 0, batch_size: int = 48, *, data: Any) -> SimpleNamespace:
    """Another training script: a narrower network, SGD with momentum, a StepLR."""
    _ = ice_lab.set_seed(seed)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 96), nn.ReLU(), nn.Dropout(0.2),
                          nn.Linear(96, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.7)
    sampler = ResumableSampler(len(data), seed=seed)
    loader = DataLoader(data, batch_size=batch_size, sampler=sampler,
                        generator=torch.Generator())
    return SimpleNamespace(model=model, optimizer=optimizer, scheduler=scheduler,
                           sampler=sampler, loader=loader, lrs=[], batch_losses=[],
                           losses=[])


def _others(make_parts: Callable, batch_size: int = 48) -> Callable:
    data = make_parts().loader.dataset
    return functools.partial(_other_parts, batch_size=batch_size, data=data)


def _train(parts: Any, step: int, last: int, watch: bool = False) -> SimpleNamespace:
    """The lab's ``train``: the rate and batch loss of every step from ``step`` to
    ``last``; with ``watch``, the loss on the whole training set after each step."""
    run = SimpleNamespace(lrs=[], losses=[], whole=[])
    x_all, y_all = parts.loader.dataset.tensors
    parts.model.train()
    while step < last:
        for xb, yb in parts.loader:
            run.lrs.append(parts.optimizer.param_groups[0]["lr"])
            loss = F.cross_entropy(parts.model(xb), yb)
            parts.optimizer.zero_grad()
            loss.backward()
            parts.optimizer.step()
            parts.scheduler.step()
            run.losses.append(loss.item())
            if watch:
                parts.model.eval()
                with torch.no_grad():
                    run.whole.append(F.cross_entropy(parts.model(x_all), y_all).item())
                parts.model.train()
            step += 1
            if step == last:
                break
    return run


@contextmanager
def _building(fns: tuple[Callable, ...], build: Callable) -> Iterator[None]:
    """The name ``make_parts`` of the learner's notebook stands for ``build`` meanwhile."""
    spaces = {id(g): g for g in (getattr(f, "__globals__", None) for f in fns) if g}
    saved = {key: space.get("make_parts") for key, space in spaces.items()}
    for space in spaces.values():
        space["make_parts"] = build
    try:
        yield
    finally:
        for key, space in spaces.items():
            space["make_parts"] = saved[key]


@contextmanager
def one_thread() -> Iterator[None]:
    """torch on one thread meanwhile: a check's small steps run several times faster on
    one thread than on threads that wait for each other on a busy machine, and the runs a
    check compares all run alike."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _same_state(a: dict, b: dict) -> bool:
    """Two ``optimizer.state_dict()``: equal state for every parameter."""
    return a["state"].keys() == b["state"].keys() and all(
        s.keys() == b["state"][i].keys()
        and all(torch.equal(torch.as_tensor(v), torch.as_tensor(b["state"][i][k]))
                for k, v in s.items())
        for i, s in a["state"].items())


def _summary(optimizer: torch.optim.Optimizer) -> str:
    state = optimizer.state_dict()["state"]
    steps = sorted({int(s["step"]) for s in state.values() if "step" in s})
    return f"{len(state)} parameters with state, step counts {steps}"


def _rates(rates: list[float]) -> list[float]:
    return [float(f"{r:.2g}") for r in rates]


def _round_trip(folder: str, name: str, ckpt: Any) -> Any:
    """``ckpt`` saved with save_checkpoint and loaded back (weights_only)."""
    return load_checkpoint(save_checkpoint(Path(folder) / name, **ckpt))


def _objects_hint(error: str) -> str:
    return ("Your checkpoint holds an object (a model, an optimizer, a scheduler, a "
            "sampler), which torch.load(weights_only=True) refuses: a checkpoint holds "
            "states (tensors, numbers, strings, lists, dicts), not the objects that hold "
            "them." if "object" in error else "")


# --------------------------------------------------------------------------- exercise 2
def _tensors_in(value: Any) -> list[torch.Tensor]:
    """Every tensor a checkpoint holds, however deep."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors_in(item)]
    return []


def exact_resume(save: Callable, resume: Callable, make_parts: Callable, *,
                 seed: int | None = None) -> None:
    """``save(parts, step)`` and ``resume(ckpt)`` continue a run bit for bit: the same
    samples, dropout masks, losses and final weights, in a process whose random state
    is anywhere, for other seeds, steps and batch sizes."""
    need_callable(save, "make_exact_checkpoint")
    need_callable(resume, "resume_exact")
    with tempfile.TemporaryDirectory(prefix="check_exact_") as folder, one_thread():
        if seed is None:
            cases = [("The example (seed 0, stopped after step 25)", make_parts, 0, 25, 45),
                     ("A run with seed 3 stopped after step 33", make_parts, 3, 33, 45),
                     ("The other script (batches of 48), seed 1, stopped after step 31",
                      _others(make_parts), 1, 31, 40)]
            for what, build, run_seed, stop, last in cases:
                _one_exact(save, resume, folder, what, build, run_seed, stop, last)
        else:
            _exact_drawn(save, resume, make_parts, folder, seed)
    passed("resumed runs go on bit for bit (other seeds, steps, batches, a new process's "
           "random state).")


def _one_exact(save: Callable, resume: Callable, folder: str, what: str, build: Callable,
               run_seed: int, stop: int, last: int) -> None:
    h = _exact.require
    whole = build(run_seed)  # the run never interrupted
    whole_run = _train(whole, 0, last)
    first = build(run_seed)  # the same run, up to the checkpoint
    _train(first, 0, stop)
    torch_state = torch.get_rng_state()  # where the run's random state stands
    loader_state = first.loader.generator.get_state()
    was = first.loader.sampler.state_dict()
    nxt = list(itertools.islice(copy.deepcopy(first.loader.sampler), 8))
    out: dict[str, Any] = {"saved": {}}

    def go() -> None:
        with _building((resume, save), build):
            out["saved"] = save(first, stop)
            path = save_checkpoint(Path(folder) / "x.pt", **out["saved"])
            _ = torch.manual_seed(12345)  # a new process starts with other random states
            again, out["step"] = resume(load_checkpoint(path))
            out["where"] = again.loader.sampler.state_dict()
            out["next"] = list(itertools.islice(copy.deepcopy(again.loader.sampler), 8))
            out["run"] = _train(again, stop, last)
            out["model"] = again.model

    _, error = attempt(go)
    hint = _objects_hint(error)
    h(not error, f"{what}: {hint} ({error})" if hint else
      f"{what}: the check could not resume it ({error}).")
    h(out["step"] == stop, f"{what}: resume_exact returned step {out['step']}, "
      f"expected {stop}.")
    where = out["where"]
    loader_hint = (
        "starts the first epoch again, from its first sample, while the run it replaces "
        f"was {was['position']} samples into epoch {was['epoch']}. Which samples come "
        "next is state too, and the checkpoint does not carry it."
        if (where["epoch"], where["position"]) == (0, 0) else
        f"shuffles with seed {where['seed']}, the run with {was['seed']}: the sampler's "
        "place was rebuilt (recomputed from the step, or typed in), not restored. Its "
        "seed, epoch and position are state to save and put back."
        if where["seed"] != was["seed"] else
        f"is at the right position of the wrong epoch ({where['epoch']}, not "
        f"{was['epoch']}): each epoch has an order of its own, so the epoch is state too."
        if where["position"] == was["position"] else
        f"is at position {where['position']} of epoch {where['epoch']}, the run at "
        f"{was['position']} of epoch {was['epoch']}: its place cannot be computed from "
        "the step count with the example's numbers (20 steps an epoch, 64 samples a "
        "step), which do not hold for another batch size (and an epoch of 1257 samples "
        "ends on a short batch). Restore where the sampler stood."
        if first.loader.batch_size != 64 else
        f"is at position {where['position']} of epoch {where['epoch']}, the run at "
        f"{was['position']} of epoch {was['epoch']}; the check could not tell what went "
        "wrong.")
    h(out["next"] == nxt, f"{what}: after the resume, the loader {loader_hint}",
      kind="sampler", more="2.3 Diagnose lists every state that differs at step 26.")
    run = out["run"]
    h(run.lrs == whole_run.lrs[stop:last],
      f"{what}: the same samples, but after the resume the learning rate is not the "
      "uninterrupted run's: exercise 1's resume must pass its check first.")
    kept = [t for t in _tensors_in(out["saved"]) if t.dtype == torch.uint8]
    h(run.losses[0] == whole_run.losses[stop],
      f"{what}: the same samples, other dropout masks. " + (
          "Your checkpoint holds the state torch's global generator had at the "
          "checkpoint, but it was put back too early: something drew from the generator "
          "or seeded it afterwards (make_parts() seeds torch and draws the initial "
          "weights). Put it back once the parts are built."
          if any(torch.equal(t, torch_state) for t in kept) else
          "Your checkpoint holds the DataLoader's generator, which seeds worker processes "
          "(this loader has none); dropout draws its masks from torch's global "
          "generator, and the checkpoint does not hold where that one stood."
          if any(torch.equal(t, loader_state) for t in kept) else
          "Dropout draws its masks from torch's global generator, and the checkpoint "
          "does not hold where that generator stood. Seeding it again starts it over; "
          "its state can be read, saved and set back."), kind="rng")
    differ = next((i for i, (a, b) in enumerate(zip(run.losses, whole_run.losses[stop:]))
                   if a != b), None)
    parted = "in its final weights" if differ is None else f"at step {stop + 1 + differ}"
    h(differ is None and all(torch.equal(a, b) for a, b in zip(
        out["model"].state_dict().values(), whole.model.state_dict().values())),
      f"{what}: the resumed run agrees at first, then parts {parted}; the check could "
      "not tell what went wrong.")


def _exact_drawn(save: Callable, resume: Callable, make_parts: Callable, folder: str,
                 seed: int) -> None:
    """An epoch boundary exactly, then two drawn runs of the other script, each resumed
    twice."""
    h = _exact.require
    draw = rng(seed, 0)
    cases = [(make_parts, 64, draw.randrange(0, 5), 40)]
    for _ in range(2):
        size = draw.choice([32, 40, 56, 100])
        cases.append((_others(make_parts, size), size, draw.randrange(1, 10),
                      draw.randrange(2, 45)))
    for build, size, run_seed, stop in cases:
        what = (f"A run with seed {run_seed} and batches of {size}, stopped after step "
                f"{stop} and resumed twice")
        whole = build(run_seed)
        whole_losses = _train(whole, 0, stop + 6).losses
        first = build(run_seed)
        losses = _train(first, 0, stop).losses
        out: dict[str, Any] = {}

        def twice() -> None:
            with _building((resume, save), build):
                path = save_checkpoint(Path(folder) / "h.pt", **save(first, stop))
                _ = torch.manual_seed(stop)
                again, out["step"] = resume(load_checkpoint(path))
                out["b"] = _train(again, stop, stop + 3).losses
                path = save_checkpoint(Path(folder) / "h.pt", **save(again, stop + 3))
                _ = torch.manual_seed(run_seed)
                more, _ = resume(load_checkpoint(path))
                out["c"] = _train(more, stop + 3, stop + 6).losses
                out["model"] = more.model

        _, error = attempt(twice)
        h(not error, f"{what}: it does not resume ({error}).")
        h(out["step"] == stop, f"{what}: it resumes at {out['step']}.")
        h(losses + out["b"] + out["c"] == whole_losses,
          f"{what}: the losses differ from the uninterrupted run's.")
        h(all(torch.equal(a, b) for a, b in zip(out["model"].state_dict().values(),
                                                whole.model.state_dict().values())),
          f"{what}: the weights differ from the uninterrupted run's.")


# --------------------------------------------------------------------------- exercise 5
def colleague_trainer(make: Callable[[], type], colleague: type, *,
                      seed: int | None = None) -> None:
    """``make()`` returns the colleague's trainer class, repaired: a run resumed from its
    ``state()`` with ``resume(state)`` goes on as the uninterrupted run, bit for bit, in
    one ``fit`` call or several, in a process whose random state is anywhere; and an
    uninterrupted run computes what the colleague's ``colleague`` class computed (their
    published numbers)."""
    need_callable(make, "repaired_trainer")
    h = _trainer.require
    cls, error = attempt(make)
    h(not error, f"repaired_trainer() fails ({error}).")
    h(isinstance(cls, type) and all(hasattr(cls, n) for n in ("fit", "state", "resume")),
      "repaired_trainer() should return a class like the colleague's Trainer (with fit, "
      f"state and resume), got {type(cls).__name__}.")
    draw = rng(seed, 0)
    cases = [(0, 25, 60), (2, 40, 70)] if seed is None else [
        (draw.randrange(1, 50), stop, stop + draw.randrange(8, 30))
        for stop in (draw.randrange(3, 60), draw.randrange(26, 80))]
    with tempfile.TemporaryDirectory(prefix="check_trainer_") as folder, one_thread():
        for run_seed, stop, last in cases:
            _one_trainer(cls, colleague, folder, run_seed, stop, last)
    passed("resumed runs go on bit for bit, in one fit or several; uninterrupted runs "
           "compute what the colleague's did.")


def _one_trainer(cls: type[Any], colleague: type, folder: str, run_seed: int, stop: int,
                 last: int) -> None:
    h = _trainer.require
    what = f"A run with seed {run_seed} stopped after step {stop}"
    theirs = _fit(colleague(run_seed), last)
    whole, error = attempt(lambda: cls(run_seed))
    _, error = attempt(_fit, whole, last) if not error else (None, error)
    h(not error, f"An uninterrupted run fails ({error}).")
    h(whole.losses[-last:] == theirs,
      f"An uninterrupted run (seed {run_seed}, {last} steps) no longer computes what the "
      "colleague's computed: their published numbers could not be reproduced. Whatever "
      "you change for a resume must leave a run from step 0 as it was.", kind="fresh")
    split = min(stop + 5, last)
    out: dict[str, Any] = {}

    def go() -> None:
        first = cls(run_seed)
        _fit(first, stop)
        path = save_checkpoint(Path(folder) / "t.pt", **first.state())
        _ = torch.manual_seed(12345)  # a new process starts with other random states
        again = cls.resume(load_checkpoint(path))
        out["one"] = _fit(again, split)[-(split - stop):]
        out["two"] = _fit(again, last)[-(last - stop):]
        out["model"] = again.model

    _, error = attempt(go)
    h(not error, f"{what} does not resume ({error}).")
    one, two, tail = out["one"], out["two"], theirs[stop:]
    first_differ = next((i for i, (a, b) in enumerate(zip(one, tail)) if a != b), 0)
    h(one == tail[:len(one)],
      f"{what}: resumed, it parts from the uninterrupted run at step "
      f"{stop + 1 + first_differ}: the same samples, other dropout masks. The "
      "checkpoint holds torch's random state and Trainer.resume puts it back; something "
      "that runs after that draws from it, or sets it again, before that step.",
      kind="rng", more="compare torch's generator (capture_rng) where the uninterrupted "
      "run stood at the checkpoint with the resumed run's, right after Trainer.resume "
      "returns; then line by line through what runs in between.")
    differ = next((i for i, (a, b) in enumerate(zip(two, tail)) if a != b), None)
    h(differ is None,
      f"{what}: resumed, its first fit call goes on as the uninterrupted run, and a "
      f"second fit call on the same trainer parts from it at step {stop + 1 + (differ or 0)}. "
      "A resumed trainer may be trained further in several calls: each must go on from "
      "the random state the last one left.")
    h(all(torch.equal(a, b) for a, b in zip(out["model"].state_dict().values(),
                                            whole.model.state_dict().values())),
      f"{what}: the same losses, other final weights.")


def _fit(trainer: Any, until: int) -> list[float]:
    """``trainer.fit(until)``; the losses it has recorded."""
    trainer.fit(until)
    return list(trainer.losses)
