"""Checks of ``labs/lab-capstone.ipynb`` (chapter: Debugging), bugs 7 and 8: the
evaluation, its memory (no graph kept, the mean loss as a float) and its modes (eval()
inside, the caller's mode back). Bugs 1 to 5: ``capstone.py``; bug 6:
``capstone_training.py``; bugs 9 and 10 and the final run: ``capstone_colleague.py``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import ice_lab
from ice_lab import MemoryBudget, memory_trace

from ._core import Hints, attempt, need_callable, passed
from .capstone_training import _digits, reference_model
from .training import GaussianNoise  # the same layer of one's own as lab-training's

_memory = Hints("evaluate")
_mode = Hints("evaluate")


def noisy_model(seed: int = 1) -> nn.Sequential:
    """A correct CNN with a layer of its own besides dropout and BatchNorm."""
    ice_lab.set_seed(seed)
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), GaussianNoise(0.5),
        nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.3), nn.Linear(8 * 4 * 4, 10),
    )


def _batches_follow_model(fn: Callable, h: Callable) -> None:
    """``fn(model, loader)`` with the model on the ``meta`` device (shapes, no data) and
    the loader's batches on the CPU: the evaluation may fail where it needs numbers,
    never because the model met a batch on another device."""
    _, val = _digits()
    net = reference_model().to("meta")
    loader = DataLoader(TensorDataset(val.tensors[0][:16], val.tensors[1][:16]),
                        batch_size=8)
    _, error = attempt(fn, net, loader)
    h(not any(s in error for s in ("expected device", "same device")),
      f"With the model on another device than the batches, evaluate fails ({error}): "
      "it hands the model batches where the loader made them. On the GPU where run() "
      "trains, evaluate would crash as bug 9 does; the batches go where the model is "
      "(the script's evaluate said so).")


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


def _growth_after_first_batch(trace: Any) -> float:
    """Live bytes per batch, a least-squares slope from the second record on: a leak
    grows by every batch; a loop that keeps its last batch's graph until the next batch
    replaces it steps up once, at the first batch, and is flat after."""
    steps, live = trace.steps[1:], trace.allocated[1:]
    if len(steps) < 2:
        return 0.0
    mx, my = sum(steps) / len(steps), sum(live) / len(live)
    sxx = sum((x - mx) ** 2 for x in steps)
    return sum((x - mx) * (y - my) for x, y in zip(steps, live)) / sxx


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
    growth = _growth_after_first_batch(trace)
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
    h(abs(result[1] - right) < 1e-6,  # a wrong count is off by 1 / n at least
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
    h(all(math.isclose(r[0], m, rel_tol=1e-5) and abs(r[1] - a) < 1e-6
          for r, m, a in zip(got, means, accuracies)),
      f"evaluate gives {[tuple(round(v, 4) for v in r) for r in got]} on these "
      "loaders. The check could not tell what went wrong: return the mean loss over "
      "every sample and the share of samples classified right.")
    _batches_follow_model(fn, h)
    passed("evaluate keeps no graph and returns the mean loss, a float, on "
           f"{', '.join(map(str, sizes))} digits.")


def _mode_models(seed: int | None,
                 ) -> list[tuple[Callable[[], nn.Sequential], int, int]]:
    """(a builder of one model, how many validation digits, batch size)."""
    if seed is None:
        return [(reference_model, 270, 64), (noisy_model, 100, 32)]
    gen = torch.Generator().manual_seed(seed)
    cases: list[tuple[Callable[[], nn.Sequential], int, int]] = []
    for k in range(2):
        p = 0.2 + 0.6 * float(torch.rand(1, generator=gen))
        n = int(torch.randint(20, 270, (1,), generator=gen))
        size = int(torch.randint(5, 70, (1,), generator=gen))

        def build(p: float = p, k: int = k) -> nn.Sequential:
            ice_lab.set_seed(seed + k)
            return nn.Sequential(
                nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                *([GaussianNoise(p)] if k else []), nn.Flatten(),
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
        stats = net[1].get_buffer("running_mean").clone()
        modes = [m.training for m in net.modules()]  # every module: training
        twin = copy.deepcopy(net).eval()  # the same weights, in eval() mode
        with torch.no_grad():
            logits = twin(X)
        expected = (F.cross_entropy(logits, y).item(),
                    (logits.argmax(dim=1) == y).double().mean().item())
        ran: set[tuple[str, bool]] = set()  # (leaf layer, its mode) in the first call
        hooks = [m.register_forward_pre_hook(
            lambda mod, args: ran.add((type(mod).__name__, mod.training)))
            for m in net.modules() if not list(m.children())]
        try:
            first, error = attempt(fn, net, loader)
        finally:
            for hook in hooks:
                hook.remove()
        on = sorted({name for name, training in ran if training
                     and name not in ("Conv2d", "Linear", "ReLU", "Flatten", "MaxPool2d")})
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
          "active. torch.no_grad() turns off gradients, not dropout (8.3 Diagnose)."
          if not on or "Dropout" in on else
          f"Two evaluations of one model give different results: {', '.join(on)} ran "
          "in training mode. Switching chosen layers misses the others: dropout and "
          "BatchNorm are not the only layers that behave differently in training, a "
          "layer of one's own can too.",
          kind="dropout", more="the Training chapter's section on train and eval "
          "modes says which layers behave differently, and what switches them.")
        h(torch.equal(stats, net[1].get_buffer("running_mean")),
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
    _batches_follow_model(fn, h)
    passed("the same answer twice, the model unchanged, its mode restored.")
