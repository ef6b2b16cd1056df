"""Checks of ``labs/lab-nan.ipynb`` (chapter: Finding where NaN starts), part 2:
the lab's digits and training loop, shared by its checks, and the check of exercise 4 (NaN
hidden in the data). The lab reaches them through ``ice_lab.checks.nan``."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

import ice_lab.data

from ._core import Hints, attempt, need_callable, passed

_clean = Hints("clean")


# ------------------------------------------------------------------ the lab's data and loop
@functools.cache
def digits() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The lab's digits: training pixels and labels, validation pixels and labels (pixels
    0..16)."""
    images, labels = ice_lab.data.digits_arrays()
    train_idx, val_idx, _ = ice_lab.data.digits_split_indices(seed=0)
    pixels = torch.from_numpy(images.reshape(len(images), 64)).float()
    targets = torch.from_numpy(labels)
    return pixels[train_idx], targets[train_idx], pixels[val_idx], targets[val_idx]


def train(model: nn.Module, X: torch.Tensor, y: torch.Tensor, loss_fn: Callable, *,
          lr: float, steps: int, batch_size: int | None = None) -> list[float]:
    """The lab's ``train_steps`` (plain SGD), stopping after the first non-finite loss."""
    losses: list[float] = []
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    order = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
    for step in range(steps):
        if batch_size is None:
            xb, yb = X, y
        else:
            start = (step * batch_size) % len(X)
            idx = order[start:start + batch_size]
            xb, yb = X[idx], y[idx]
        loss = loss_fn(model(xb), yb)
        losses.append(loss.item() if torch.is_tensor(loss) else float(loss))
        if not math.isfinite(losses[-1]):
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses


def accuracy(model: nn.Module, X: torch.Tensor, y: torch.Tensor) -> float:
    with torch.no_grad():
        return (model(X).argmax(dim=1) == y).float().mean().item()


# ------------------------------------------------------------------ exercise 4
def corrupted_digits() -> torch.Tensor:
    """The lab's export: the training digits scaled to 0..1, one pixel missing (NaN) in
    each of 12 images."""
    X = digits()[0] / 16
    rows = torch.randperm(len(X), generator=torch.Generator().manual_seed(1))[:12]
    X = X.clone()
    X[rows, torch.arange(12) * 5] = float("nan")
    return X


def mlp() -> nn.Module:
    """The lab's ``make_mlp()``."""
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def _damaged(seed: int | None) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    X, y, _, _ = digits()
    cases = {"the lab's export": (corrupted_digits(), y)}
    gen = torch.Generator().manual_seed(4 if seed is None else seed)
    if seed is None:  # raw pixels, 0..16; NaN elsewhere, several in some rows
        other = X[:400].clone()
        rows = torch.randperm(400, generator=gen)[:15]
        other[rows, torch.randint(0, 64, (15,), generator=gen)] = float("nan")
        other[rows[:6], 63] = float("nan")
        other[rows[6:9], 0] = float("nan")
        cases["other data"] = (other, (y[:400] + 3) % 10)
        return cases
    for k in range(3):  # random sizes, ranges, labels; NaN anywhere, 1 to 3 a row
        n = int(torch.randint(200, 600, (1,), generator=gen))
        top = float(torch.randint(1, 256, (1,), generator=gen))
        other = torch.rand(n, 64, generator=gen) * top
        other[other < 0.3 * top] = 0.0  # a background of zeros, as in digits
        labels = torch.randint(0, 10, (n,), generator=gen)
        damaged = int(torch.randint(1, n // 25, (1,), generator=gen))
        rows = torch.randperm(n, generator=gen)[:damaged]
        for j in range(3):
            some = rows[:max(1, damaged // (j + 1))]
            other[some, torch.randint(0, 64, (len(some),), generator=gen)] = float("nan")
        cases[f"{n} images from 0 to {top:g}, {damaged} damaged"] = (other, labels)
    return cases


def clean(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(X, y)`` returns ``(X_clean, y_clean)``: no NaN left wherever it sat, the rows
    dropped or filled within the pixels' range, labels matched, ``X`` and ``y`` untouched;
    the lab's MLP trains on the result.

    Exercise 4 of ``labs/lab-nan.ipynb`` (chapter ``book/nonfinite.ipynb``)."""
    need_callable(fn, "clean")
    h = _clean.require
    cases = _damaged(seed)
    runs: dict[str, tuple[Any, bool]] = {}  # (the learner's result or error, edited)
    for name, (X, y) in cases.items():
        x, t = X.clone(), y.clone()  # clean gets copies
        result, error = attempt(fn, x, t)
        edited = not (torch.equal(t, y) and torch.equal(torch.isnan(x), torch.isnan(X))
                      and torch.equal(x.nan_to_num(-1.0), X.nan_to_num(-1.0)))
        runs[name] = (error or result, edited)
    failed = [n for n, (r, _) in runs.items() if isinstance(r, str)]
    h(not failed or "the lab's export" in failed,
      f"clean works on the lab's export but fails on other data "
      f"({runs[failed[0]][0] if failed else ''}): take everything from its arguments X "
      "and y, not from the lab's variables (X_export, y_train), and no sizes from the "
      "example.")
    for name, (result, edited) in runs.items():
        X, y = cases[name]
        h(not isinstance(result, str),
          f"clean fails on {name} ({result}): return (X_clean, y_clean).")
        pair = isinstance(result, (tuple, list)) and len(result) == 2
        kinds = [type(v).__name__ for v in result] if pair else type(result).__name__
        h(pair and kinds == ["Tensor", "Tensor"],
          f"clean must return two tensors (X_clean, y_clean), got {kinds}: numpy's "
          "nan_to_num or pandas return arrays; stay in torch.")
        Xc, yc = result
        h(Xc.dtype == X.dtype and yc.dtype == y.dtype,
          f"X_clean is {Xc.dtype} and y_clean {yc.dtype}, the data were {X.dtype} and "
          f"{y.dtype}: keep the dtypes (the model's weights are float32, cross_entropy "
          "wants int64 labels).")
        shape_hint = (
            "X[~torch.isnan(X)] drops single pixels and flattens the data: whole images "
            "are the unit." if Xc.dim() == 1 else
            "Dropping the columns that hold a NaN throws that pixel away for every "
            "image." if Xc.dim() == 2 and Xc.shape[1] < 64 else
            "An extra column (a missing-value flag, say) changes the model's input, "
            "Linear(64, ...): keep the 64 pixels.")
        h(Xc.dim() == 2 and Xc.shape[1] == 64,
          f"X_clean must keep one row of 64 pixels per image, got shape "
          f"{tuple(Xc.shape)} on {name}. " + shape_hint)
        h(len(Xc) == len(yc),
          "X_clean and y_clean have different lengths: drop the same rows from both.")
        missing = torch.isnan(X)  # from the data as they were, before clean
        bad = missing.any(dim=1)
        filled = len(Xc) == len(X)
        h(not torch.isnan(Xc).any(),
          f"X_clean still holds NaN ({name}). "
          + ("A mean over data with a NaN in it is NaN: the fill value itself is missing."
             if filled else
             f"{int(torch.isnan(Xc).any(dim=1).sum())} of the {int(bad.sum())} damaged "
             "rows are still there: drop every row with a NaN anywhere in it, wherever "
             "it sits and however many there are."))
        h(len(Xc) >= 0.95 * len(X),
          f"Only {len(Xc)} of {len(X)} images kept: drop only the damaged ones (or fill "
          "them in).")
        if filled:  # filled in: labels and intact pixels unchanged
            h(torch.equal(yc, y),
              "The labels changed or moved: keep the labels you were given, in their "
              "order.")
            h(torch.equal(Xc[~missing], X[~missing]),
              "Pixels that were not missing changed: fill only the NaN entries.")
            lo, hi = X[~missing].min().item(), X[~missing].max().item()
            fill = Xc[missing]
            h(bool(((fill >= lo) & (fill <= hi)).all()),
              f"Filled with {fill.unique().tolist()[:3]} on {name}: a value outside the "
              f"pixels' range {lo:g}..{hi:g} (a sentinel like -1 or -999) is not missing "
              "to the model, it is a very dark pixel. Fill with a value the pixel could "
              "have.")
        else:  # dropped rows: what is kept must be the intact rows, with their labels
            h(torch.equal(Xc, X[~bad]),
              f"The kept rows are not the intact images, in their original order "
              f"({name}).")
            h(torch.equal(yc, y[~bad]),
              f"X_clean holds the intact images, but y_clean is not their labels "
              f"({name}): drop the same rows from both, from the y you were given.")
        h(not edited,
          f"clean changed its inputs in place ({name}): X[mask] = ... or nan_to_num_ "
          "edit the raw data, the evidence of what went missing. Return a cleaned copy "
          "and leave X and y as they are.")
    Xc, yc = runs["the lab's export"][0]
    _, _, X_val, y_val = digits()
    torch.manual_seed(0)
    model = mlp()
    losses = train(model, Xc, yc, F.cross_entropy, lr=0.5, steps=120, batch_size=64)
    h(all(map(math.isfinite, losses)),
      "Training on the cleaned data still produced a non-finite loss.")
    h(accuracy(model, X_val / 16, y_val) > 0.85,
      "The MLP trained on the cleaned data should reach over 85% validation accuracy.")
    passed(f"no NaN left wherever it sat, on {len(cases)} data sets, rows and labels "
           "matched, the data left as they were; the MLP trains.")
