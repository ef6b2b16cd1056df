"""Checks of ``labs/lab-capstone.ipynb`` (chapter: Debugging), bugs 6 to 8: the
training step and the evaluation (its memory, its modes). Bugs 1 to 5: ``capstone.py``;
bugs 9 and 10 and the final run: ``capstone_colleague.py``.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import ice_lab
import ice_lab.data
from ice_lab import MemoryBudget, memory_trace

from ._core import Hints, attempt, need_callable, passed

_step = Hints("train_step")
_memory = Hints("evaluate")
_mode = Hints("evaluate")


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
                twin_used.append([p.grad.clone() for p in twin.parameters()])
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


class _Traced:
    """A loader for evaluate(), recording live memory before each batch."""

    def __init__(self, loader: DataLoader, trace: Any) -> None:
        self.loader, self.trace = loader, trace

    def __getattr__(self, name: str) -> Any:
        if name == "loader":  # not set yet: no loader to ask
            raise AttributeError(name)
        return getattr(self.loader, name)

    def __iter__(self) -> Iterator:
        for step, item in enumerate(self.loader):
            self.trace.record(step)
            yield item

    def __len__(self) -> int:
        return len(self.loader)


def _memory_cases(seed: int | None) -> list[tuple[TensorDataset, int]]:
    """(a validation set, its batch size): the first one is traced."""
    _, val = _digits()
    X, y = val.tensors
    if seed is None:
        return [(val, 10), (val, 64), (TensorDataset(X[:37], y[:37]), 8)]
    gen = torch.Generator().manual_seed(seed)
    cases = []
    for _ in range(3):
        n = int(torch.randint(100, len(y) + 1, (1,), generator=gen))
        pick = torch.randperm(len(y), generator=gen)[:n]
        cases.append((TensorDataset(X[pick], y[pick]),
                      int(torch.randint(4, 13, (1,), generator=gen))))
    return cases


def evaluate_memory(fn: Callable, *, seed: int | None = None) -> None:
    """Bug 7: ``fn(model, loader)`` keeps no graph (live memory flat per batch) and
    returns (mean loss over every sample, accuracy) as floats, for any loader."""
    need_callable(fn, "evaluate")
    h = _memory.require
    net = reference_model().eval()  # eval: its numbers do not depend on dropout
    cases = _memory_cases(seed)
    data, batch = cases[0]
    budget = MemoryBudget(None)
    trace = memory_trace(budget)
    loader = DataLoader(data, batch_size=batch)
    with budget:
        result, error = attempt(fn, net, _Traced(loader, trace))
    h(not error, f"evaluate fails ({error}).")
    h(len(trace.steps) == len(loader),
      f"evaluate went through {len(trace.steps)} of the loader's {len(loader)} "
      "batches: evaluate every batch of the loader.")
    growth = trace.growth_per_step()
    h(growth < 1024,
      f"Live memory still grows by {growth / 1024:.1f} KiB per batch: evaluate keeps "
      "each batch's graph (7.3 Diagnose).", kind="graph",
      more="what does autograd record for an operation outside any no-grad region?")
    h(isinstance(result, tuple) and len(result) == 2,
      "evaluate returns (mean loss, accuracy), as before.")
    h(isinstance(result[0], float),
      f"evaluate returns the loss as a {type(result[0]).__name__}. "
      "total += loss.detach() stops the graph, but the result is still a tensor: the "
      "loss comes back as a Python number, as the accuracy does.")
    h(isinstance(result[1], float),
      f"evaluate returns the accuracy as a {type(result[1]).__name__}: a Python float, "
      "the share of samples classified right.")
    X, y = data.tensors
    with torch.no_grad():
        right = (net(X).argmax(dim=1) == y).double().mean().item()
    h(abs(result[1] - right) < 1e-9,
      f"evaluate's accuracy is {result[1]:.4f} where the model gets {right:.4f} of "
      "these digits right: the prediction is the class with the largest logit (the "
      "class dimension), counted over every sample.")
    got = [result]
    for other, size in cases[1:]:
        loader = DataLoader(other, batch_size=size)
        result, error = attempt(fn, net, loader)
        h(not error, f"evaluate fails on a loader of {len(other)} digits in batches of "
          f"{size} ({error}): nothing in it may depend on the size of a batch or of "
          "the data.")
        got.append(result)
    means, accuracies = [], []
    for other, _ in cases:
        X, y = other.tensors
        with torch.no_grad():
            logits = net(X)
        means.append(F.cross_entropy(logits, y).item())
        accuracies.append((logits.argmax(dim=1) == y).double().mean().item())
    h(all(isinstance(r, tuple) and len(r) == 2 and all(isinstance(v, float) for v in r)
          for r in got), "evaluate returns two floats on every loader.")
    ratio = [r[0] / m for r, m in zip(got, means)]
    sizes = [len(d) for d, _ in cases]
    h(not all(math.isclose(r, n, rel_tol=1e-4) for r, n in zip(ratio, sizes)),
      "evaluate returns the summed loss, not the mean.")
    for (other, size), r, m in zip(cases, got, means):
        X, y = other.tensors
        if len(y) % size:
            with torch.no_grad():
                per = F.cross_entropy(net(X), y, reduction="none")
            by_batch = torch.stack([v.mean() for v in per.split(size)]).mean().item()
            h(not math.isclose(r[0], by_batch, rel_tol=1e-6),
              f"evaluate returns the mean of the batch means, {r[0]:.4f}, where the "
              f"mean loss over the samples is {m:.4f}: the last batch is smaller "
              f"({len(y) % size} of {len(y)} here).")
    h(all(math.isclose(r, ratio[0], rel_tol=1e-4) for r in ratio),
      f"On {', '.join(map(str, sizes))} samples evaluate's loss is "
      f"{', '.join(f'{r:.3g}' for r in ratio)} times the mean loss: it divides by a "
      "fixed number.")
    h(all(math.isclose(r[0], m, rel_tol=1e-5) and abs(r[1] - a) < 1e-9
          for r, m, a in zip(got, means, accuracies)),
      f"evaluate gives {[tuple(round(v, 4) for v in r) for r in got]} on these "
      "loaders. The check could not tell what went wrong: return the mean loss over "
      "every sample and the share of samples classified right.")
    passed("evaluate keeps no graph and returns the mean loss, a float, on "
           f"{', '.join(map(str, sizes))} digits.")


def _mode_models(seed: int | None) -> list[tuple[Callable[[], nn.Module], int, int]]:
    """(a builder of one model, how many validation digits, batch size)."""
    if seed is None:
        return [(reference_model, 270, 64)]
    gen = torch.Generator().manual_seed(seed)
    cases = []
    for k in range(2):
        p = 0.2 + 0.6 * float(torch.rand(1, generator=gen))
        n = int(torch.randint(20, 270, (1,), generator=gen))
        size = int(torch.randint(5, 70, (1,), generator=gen))

        def build(p: float = p, k: int = k) -> nn.Module:
            ice_lab.set_seed(seed + k)
            return nn.Sequential(
                nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                nn.Dropout(p), nn.Linear(4 * 8 * 8, 10))
        cases.append((build, n, size))
    return cases


def evaluate_mode(fn: Callable, *, seed: int | None = None) -> None:
    """Bug 8: ``fn(model, loader)`` gives the model's eval() answer, the same every
    call, leaves BatchNorm's statistics as they are and hands the model back in the
    mode it came in (every submodule)."""
    need_callable(fn, "evaluate")
    h = _mode.require
    _, val = _digits()
    for build, n, size in _mode_models(seed):
        net = build().train()
        X, y = val.tensors[0][:n], val.tensors[1][:n]
        loader = DataLoader(TensorDataset(X, y), batch_size=size)
        stats = net[1].running_mean.clone()
        modes = [m.training for m in net.modules()]  # every module: training
        twin = copy.deepcopy(net).eval()  # the same weights, in eval() mode
        with torch.no_grad():
            logits = twin(X)
        expected = (F.cross_entropy(logits, y).item(),
                    (logits.argmax(dim=1) == y).double().mean().item())
        first, error = attempt(fn, net, loader)
        second = third = None
        if not error:
            second, error = attempt(fn, net, loader)
        after = [m.training for m in net.modules()]
        if not error:
            net.eval()
            third, error = attempt(fn, net, loader)
        after_eval = [m.training for m in net.modules()]
        h(not error, f"evaluate fails ({error}).")
        h(all(isinstance(r, tuple) and len(r) == 2 and all(isinstance(v, float) for v in r)
              for r in (first, second, third)),
          "evaluate must still return the mean loss and the accuracy as floats: keep "
          "your fix of bug 7.")
        h(first == second,
          "Two evaluations of one model give different results: dropout is still "
          "active. torch.no_grad() turns off gradients, not dropout (8.3 Diagnose).",
          kind="dropout", more="the Training chapter's section on train and eval "
          "modes says which layers behave differently, and what switches them.")
        h(torch.equal(stats, net[1].running_mean),
          "Evaluating changed BatchNorm's running statistics: evaluation must leave "
          "the model as it was (8.3 Diagnose).")
        h(all(math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-9)
              for a, b in zip(first, expected)),
          f"evaluate gives {tuple(round(v, 4) for v in first)} twice, but the model in "
          f"eval() mode gives {tuple(round(v, 4) for v in expected)}: seeding the "
          "random state makes dropout repeat itself, it does not turn it off.")
        h(after[0],
          "The model came back in eval() mode, so the next epoch would train without "
          "dropout and with frozen BatchNorm: it must come back in the mode it came in.")
        h(after == modes,
          f"The model's own flag came back, but {after.count(False)} of its "
          f"{len(after)} modules stay in eval(): setting model.training sets one "
          "attribute, not the modules inside it. The next epoch would train without "
          "dropout.")
        h(not any(after_eval), "A model handed over in eval() mode stays in eval().")
    passed("the same answer twice, the model unchanged, its mode restored.")
