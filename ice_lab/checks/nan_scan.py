"""Check of the open exercise of ``labs/lab-nan.ipynb`` (chapters: Floating point, mixed
precision and stable formulas; Finding where NaN starts): a colleague's scan classifier whose loss turns NaN somewhere in training,
located with ``watch_nonfinite`` and ``watch_nonfinite_ops``. The lab imports it through
``ice_lab.checks.nan`` (``check.scan_net``)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

import ice_lab.data

from ._core import Hints, attempt, built_model, need_callable, passed, rng

_scan = Hints("make_scan_net")

#: Training rows of the lab's digits that came out blank in the colleague's scans.
BLANK_ROWS = (455, 474, 1047)


@functools.cache
def _digits() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    images, labels = ice_lab.data.digits_arrays()
    train_idx, val_idx, _ = ice_lab.data.digits_split_indices(seed=0)
    pixels = torch.from_numpy(images.reshape(len(images), 64)).float() / 16
    targets = torch.from_numpy(labels)
    return pixels[train_idx], targets[train_idx], pixels[val_idx], targets[val_idx]


def scans() -> tuple[torch.Tensor, torch.Tensor]:
    """The colleague's scans: the training digits, 0..1, three of them blank."""
    X, y, _, _ = _digits()
    X = X.clone()
    X[list(BLANK_ROWS)] = 0.0
    return X, y


def _expected(model: Any, x: torch.Tensor) -> torch.Tensor:
    """What the colleague's docstring says, for scans that are not constant (``model``:
    the learner's repair, read by the colleague's layer names)."""
    centred = x - x.mean(dim=1, keepdim=True)
    z = centred / centred.std(dim=1, keepdim=True)  # noqa: ICE108 (never constant here)
    return model.out(torch.relu(model.hidden(z)))


def _train(model: nn.Module, X: torch.Tensor, y: torch.Tensor) -> list[float]:
    """The lab's training of the colleague's model: SGD, minibatches of 64."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    order = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
    losses: list[float] = []
    for step in range(120):
        start = (step * 64) % len(X)
        idx = order[start:start + 64]
        loss = F.cross_entropy(model(X[idx]), y[idx])
        losses.append(loss.item() if torch.is_tensor(loss) else float(loss))
        if not math.isfinite(losses[-1]):
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses


def scan_net(make: Callable[[], nn.Module], *, seed: int | None = None) -> None:
    """``make()`` returns the colleague's scan classifier, repaired: its own ``hidden`` and
    ``out`` layers, each scan standardised on its own as the docstring says, finite
    outputs and gradients for every scan (blank and constant ones included, which
    standardise to all zeros), and it trains on the colleague's scans.

    Exercise 5 (open) of ``labs/lab-nan.ipynb`` (chapters ``book/numerics.ipynb`` and
    ``book/nonfinite.ipynb``)."""
    need_callable(make, "make_scan_net")
    h = _scan.require
    gen = rng(seed, 50)
    torch.manual_seed(gen.randrange(2**31))
    model = built_model(make, _scan, "make_scan_net")
    hidden, out = getattr(model, "hidden", None), getattr(model, "out", None)
    h(isinstance(hidden, nn.Linear) and isinstance(out, nn.Linear)
      and hidden.in_features == 64 and out.out_features == 10,
      "The model should keep the colleague's layers, hidden (Linear(64, 32)) and out "
      "(Linear(32, 10)): the bug is not in which layers there are.")
    X, y, X_val, y_val = _digits()
    picks = torch.randperm(len(X), generator=torch.Generator().manual_seed(
        gen.randrange(2**31)))[:40]
    dim = 0.02 if seed is None else gen.uniform(0.005, 0.05)
    ordinary = {  # scans that are not constant: dark, faint, noise
        "digits": X[picks[:20]],
        f"faint digits (x{dim:g})": X[picks[20:]] * dim,
        "random pixels": torch.rand(6, 64, generator=torch.Generator().manual_seed(
            gen.randrange(2**31))),
    }
    for name, batch in ordinary.items():
        got, error = attempt(model, batch)
        h(not error, f"The model fails on {name} ({error}).")
        h(torch.is_tensor(got) and tuple(got.shape) == (len(batch), 10),
          f"On {len(batch)} {name} the model returns shape "
          f"{tuple(getattr(got, 'shape', ()))}, ({len(batch)}, 10) expected: one row of "
          "scores per scan, for every scan it is given (dropping scans inside the "
          "model leaves some without a score).")
        with torch.no_grad():
            expected = _expected(model, batch)
        h(bool(torch.isfinite(got).all()),
          f"On {name}, scans that are not blank, the model returns NaN or inf.")
        h(torch.allclose(got.detach(), expected, rtol=2e-2, atol=2e-2),
          f"On {name} the scores differ from the docstring's computation: the repair "
          "changes ordinary scans too (a large epsilon, or statistics taken over the "
          "whole batch or clamped, rescale every scan). Only scans whose pixels are all "
          "equal need anything new.", kind="ordinary")
    # gray levels a scanner writes (k/16): their mean is exact, so centred is exactly 0
    levels = [0.0, 0.5, 1.0]
    if seed is not None:
        levels = [0.0] + [gen.randint(1, 16) / 16 for _ in range(3)]
    constant = torch.tensor(levels)[:, None].expand(len(levels), 64).clone()
    got, error = attempt(model, constant)
    h(not error, f"The model fails on constant scans ({error}).")
    h(torch.is_tensor(got) and tuple(got.shape) == (len(levels), 10),
      f"On {len(levels)} constant scans the model returns shape "
      f"{tuple(getattr(got, 'shape', ()))}, ({len(levels)}, 10) expected: one row of "
      "scores per scan, blank ones included (dropping scans inside the model leaves "
      "some without a score).")
    h(bool(torch.isfinite(got).all()),
      f"On a blank scan (every pixel 0) or another constant one "
      f"({', '.join(f'{v:g}' for v in levels)}), the model returns NaN: the loss of any "
      "batch holding one is NaN. Find where with the watchers (5.3), then look at what "
      "that op received.", kind="blank",
      more="watch_nonfinite_ops names the op that made the first NaN and prints its "
      "inputs with summary: which input holds a 0, and why is it 0 for a blank scan?")
    with torch.no_grad():
        zero_pattern = model.out(torch.relu(model.hidden(torch.zeros(1, 64))))
    h(torch.allclose(got.detach(), zero_pattern.expand_as(got), atol=1e-4),
      "Blank and constant scans get finite scores, but not the scores of a scan with no "
      "pattern: standardised, a constant scan is all zeros (nothing differs from its "
      "mean), so every constant scan should score alike. Replacing the NaN after the "
      "fact (nan_to_num on the scores) hides where it came from.")
    mixed = torch.cat([X[picks[:8]], constant])
    labels = torch.arange(len(mixed)) % 10
    model.zero_grad()
    _, error = attempt(lambda: F.cross_entropy(model(mixed), labels).backward())
    bad = [n for n, p in model.named_parameters()
           if p.grad is None or not bool(torch.isfinite(p.grad).all())]
    h(not error and not bad,
      f"On a batch with blank scans the scores are finite, but the gradients of {bad} "
      f"are NaN or missing {error}: the NaN is still made on the way, and backward "
      "carries it into the weights (section 'sqrt and pow at 0: a fine forward, a "
      "broken backward' of the chapter Floating point, mixed precision and stable "
      "formulas).")
    X_scans, y_scans = scans()
    torch.manual_seed(0 if seed is None else gen.randrange(2**31))
    fresh, _ = attempt(make)
    losses = _train(fresh, X_scans, y_scans)
    h(all(map(math.isfinite, losses)),
      f"Training a fresh make_scan_net() on the colleague's scans still gives a "
      f"non-finite loss at step {len(losses) - 1}.")
    with torch.no_grad():
        acc = (fresh(X_val).argmax(dim=1) == y_val).float().mean().item()
    h(acc > 0.85,
      f"Trained on the colleague's scans the model reaches {acc:.0%} validation "
      "accuracy, expected over 85%.")
    passed("the docstring's scores for digits, faint scans and noise; blank and constant "
           f"scans ({', '.join(f'{v:.2g}' for v in levels)}) scored as no pattern, "
           "gradients finite; it trains.")
