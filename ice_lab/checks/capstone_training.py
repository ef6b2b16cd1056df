"""Checks of ``labs/lab-capstone.ipynb`` (chapter: Debugging), bug 6: the training
step. Bugs 1 to 5: ``capstone.py``; bugs 7 and 8 (the evaluation: its memory, its
modes): ``capstone_eval.py``; bugs 9 and 10 and the final run: ``capstone_colleague.py``.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.utils.data import TensorDataset

import ice_lab
import ice_lab.data

from ._core import Hints, attempt, need_callable, passed

_step = Hints("train_step")


@functools.cache
def _digits() -> tuple[TensorDataset, TensorDataset]:
    """The checks' own digits (train, validation), correct and normalised to 0..1."""
    train, val, _ = ice_lab.data.digits_datasets(seed=0)
    return train, val


def reference_model(p: float = 0.5, seed: int = 0) -> nn.Sequential:
    """A correct CNN for the digits, dropout and BatchNorm included."""
    ice_lab.set_seed(seed)
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(p), nn.Linear(8 * 4 * 4, 10),
    )


def _grads(net: nn.Module) -> list[torch.Tensor | None]:
    return [None if p.grad is None else p.grad.clone() for p in net.parameters()]


def _rng_int(seed: int, low: int, high: int) -> int:
    """One integer in [low, high) drawn from ``seed``."""
    return int(torch.randint(low, high, (1,), generator=torch.Generator().manual_seed(seed)))


def _one_step_each(fn: Callable, loss_fn: Callable, seed: int | None) -> None:
    """Part 1: at a learning rate of 0, each step must use the gradient of its batch."""
    h = _step.require
    train, _ = _digits()
    net = nn.Sequential(nn.Flatten(), nn.Linear(64, 10))
    still = torch.optim.SGD(net.parameters(), lr=0.0)  # the weights stay put
    used: list[list] = []  # every parameter's gradient, as each step receives it
    hook = still.register_step_pre_hook(lambda o, a, k: used.append(_grads(net)))
    start = 0 if seed is None else _rng_int(seed, 0, 1200)
    xb, yb = train[start:start + 32]
    losses: list[Any] = []
    try:
        fresh, error = attempt(lambda: torch.autograd.grad(
            loss_fn(net(xb), yb), list(net.parameters())))
        h(not error, f"compute_loss fails ({error}): fix bug 5 first.")
        for _ in range(3):
            loss, error = attempt(fn, net, xb, yb, still)
            h(not error, f"train_step fails ({error}). The check could not tell what "
              "went wrong: it calls train_step(model, xb, yb, optimizer) with a small "
              "model and an optimizer of its own.")
            losses.append(loss)
    finally:
        hook.remove()
    h(len(used) == 3,
      f"Three calls of train_step made {len(used)} optimizer steps: one each, by "
      "the optimizer it is given (not an update by hand).")
    h(all(isinstance(v, float) for v in losses),
      "train_step returns the loss as a Python float.")
    h(all(g is not None and g.any() for step in used for g in step),
      "The weights did not move: zero_grad() between backward() and step() wipes the "
      "gradient just computed.")
    names = [n for n, _ in net.named_parameters()]
    ok = [[torch.allclose(g, f, atol=1e-6) for g, f in zip(step, fresh)] for step in used]
    sizes = [[round((g.norm() / f.norm()).item(), 2)  # noqa: ICE108 (f: no zero gradient)
              for g, f in zip(step, fresh)]
             for step in used]
    kept = [n for i, n in enumerate(names) if all(o[i] for o in ok)]
    h(len(kept) in (0, len(names)),
      f"Only some gradients are cleared: {sorted(set(names) - set(kept))} accumulates "
      f"(the steps used {sizes} times the gradient of their batch, per parameter).")
    scale = sizes[0][0]
    h(not (all(s == scale for step in sizes for s in step) and scale != 1.0),
      f"Every step used {scale} times the gradient of its batch"
      + (f": the loss was divided by the batch size ({len(xb)}) before backward."
         if abs(scale - 1 / len(xb)) < 0.005 else
         ": the loss was scaled before backward, or the gradient clipped.")
      + " Step on the gradient of the loss itself.")
    h(all(all(o) for o in ok),
      f"The steps used {sizes} times the gradient of their batch: .grad accumulates "
      "across steps (6.3 Diagnose). Clipping the gradient only bounds the sum.",
      kind="accumulates",
      more="backward() adds into .grad; which line of train_step empties it?")


def _step_cases(seed: int | None) -> list[tuple[type, dict, int, type, int, int, float]]:
    """(optimizer, its settings, hidden width, activation, first sample, batch, scale)."""
    if seed is None:
        return [(torch.optim.SGD, {"lr": 0.01, "momentum": 0.9}, 12, nn.Tanh, 32, 20, 10.0)]
    gen = torch.Generator().manual_seed(seed)
    kinds = [(torch.optim.SGD, {"lr": 0.05, "momentum": 0.9}),
             (torch.optim.AdamW, {"lr": 0.01}), (torch.optim.RMSprop, {"lr": 0.003})]
    return [(kind, settings, *torch.randint(3, 20, (1,), generator=gen).tolist(), nn.ReLU,
             *torch.randint(0, 1000, (1,), generator=gen).tolist(),
             *torch.randint(2, 40, (1,), generator=gen).tolist(), 1.0)
            for kind, settings in kinds]


def train_step(fn: Callable, loss_fn: Callable, *, seed: int | None = None) -> None:
    """Bug 6: ``fn(model, xb, yb, optimizer)`` is one plain step of the optimizer it is
    given on the gradient of its own batch (``loss_fn``, the lab's ``compute_loss``),
    for every parameter, and returns that step's loss as a float."""
    need_callable(fn, "train_step")
    need_callable(loss_fn, "compute_loss")
    h = _step.require
    _one_step_each(fn, loss_fn, seed)
    train, _ = _digits()
    for kind, settings, width, act, start, size, scale in _step_cases(seed):
        ice_lab.set_seed(65 if seed is None else width)
        net = nn.Sequential(nn.Flatten(), nn.Linear(64, width), act(), nn.Linear(width, 10))
        twin = copy.deepcopy(net)
        opt, twin_opt = kind(net.parameters(), **settings), kind(twin.parameters(), **settings)
        name = f"{kind.__name__}" + (" with momentum" if settings.get("momentum") else "")
        steps: list[int] = []
        used: list[list] = []
        twin_used: list[list] = []
        hooks = [opt.register_step_post_hook(lambda o, a, k: steps.append(1)),
                 opt.register_step_pre_hook(lambda o, a, k: used.append(
                     [torch.zeros(1) if g is None else g for g in _grads(net)]))]
        xb, yb = train[start:start + size]
        xb = xb * scale  # large inputs, large gradients
        losses: list[Any] = []
        twin_losses: list[float] = []
        try:
            for _ in range(3):
                loss, error = attempt(fn, net, xb, yb, opt)
                h(not error, f"train_step fails with {name} on another model ({error}): "
                  "take everything from the arguments.")
                losses.append(loss)
                twin_opt.zero_grad()
                twin_loss = loss_fn(twin(xb), yb)
                twin_loss.backward()
                twin_used.append([torch.zeros(1) if g is None else g  # as in used
                                  for g in _grads(twin)])
                twin_opt.step()
                twin_losses.append(twin_loss.item())
        finally:
            for hook in hooks:
                hook.remove()
        h(len(steps) == 3,
          f"With {name}, three calls of train_step made {len(steps)} steps of it: step "
          "with the optimizer it is given (its kind and learning rate are not the "
          "script's), once per call.")
        norms = [torch.stack([g.norm() for g in s]).norm().item() for s in used]
        twin_norms = [torch.stack([g.norm() for g in s]).norm().item() for s in twin_used]
        same = [len(s) == len(t) and all(torch.allclose(g, u, atol=1e-6)
                                         for g, u in zip(s, t))
                for s, t in zip(used, twin_used)]
        h(all(same) or not all(math.isclose(n, norms[0], rel_tol=1e-3) and n < t
                               for n, t in zip(norms, twin_norms)),
          f"The steps used gradients of norm {norms[0]:.3g}, clipped (the batches' own: "
          f"{[round(t, 3) for t in twin_norms]}): clipping changes the update. Step on "
          "the gradient of the loss itself.")
        sums = len(used) > 1 and all(torch.allclose(g, a + b, atol=1e-5) for g, a, b
                                     in zip(used[1], twin_used[0], twin_used[1]))
        h(not (same[0] and sums),
          "On its second call, train_step stepped on the sum of two batches' "
          f"gradients: .grad accumulates, whatever the optimizer ({name} here) holds.")
        later = all(isinstance(a, float) and math.isclose(a, b, rel_tol=1e-5)
                    for a, b in zip(losses[:2], twin_losses[1:]))
        h(not later,
          f"train_step returns {[round(v, 4) for v in losses]}, the losses after each "
          "step (a second forward pass): return the loss its gradient came from.")
        h(all(isinstance(a, float) and math.isclose(a, b, rel_tol=1e-5)
              for a, b in zip(losses, twin_losses)),
          f"train_step returns {losses}; the losses its steps were computed from are "
          f"{[round(v, 4) for v in twin_losses]}. The check could not tell what went "
          "wrong: the loss returned is not the one the step was computed from.")
        h(all(same) and all(torch.allclose(p, q, atol=1e-6)
                            for p, q in zip(net.parameters(), twin.parameters())),
          f"With {name} the weights end elsewhere than after three plain steps of it. "
          "The check could not tell what went wrong.")
    passed("every step uses the gradient of its own batch, once, with "
           + ", ".join(c[0].__name__ for c in _step_cases(seed)) + ".")
