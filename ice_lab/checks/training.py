"""Checks of ``labs/lab-training.ipynb`` (chapter: The training loop, ``book/training.ipynb``):
gradients cleared once per batch, validation in eval mode that restores the mode it found.

The lab's other exercises are checked in ``training_more.py`` (a scheduler stepped once
per epoch, gradient accumulation) and ``training_split.py`` (a train/validation split
without shared rows); this module re-exports them, so that the lab needs one import.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ice_lab import set_seed
from ice_lab.data import digits_datasets, synthetic_regression
from ice_lab.train import evaluate, fit

from ._core import Hints, attempt, need_callable, passed, rng
from .training_more import accumulate_gradients, run_epochs  # noqa: F401
from .training_split import make_loaders  # noqa: F401

_zero = Hints("train_epoch")
_eval = Hints("validate")


def mse(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The lab's loss: a model's ``(N, 1)`` output against ``(N,)`` targets."""
    return F.mse_loss(pred.squeeze(1), target)


def regression_loader(batch_size: int = 50, seed: int = 0) -> DataLoader:
    """The lab's regression data (``y = X @ [2, -3, 5] + 1 + noise``), shuffled by ``seed``."""
    X, y = synthetic_regression(n=1000, seed=0, noise=0.1)
    return DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=True,
                      generator=torch.Generator().manual_seed(seed))


# ------------------------------------------------------------------ 1. zero_grad
def _step_kinds(model: nn.Linear, steps: list[tuple[list, Any]]) -> list[str]:
    """Per optimizer step, what ``.grad`` held when it ran: ``fresh`` (this batch's own
    gradient), ``none``, ``parallel`` (scaled), ``stale`` (the last step's added), ``other``,
    ``unknown`` (no forward pass seen)."""
    kinds, before = [], None
    for grads, want in steps:
        got = (torch.cat([g.flatten() for g in grads])
               if all(g is not None for g in grads) else torch.zeros(4))
        new = torch.cat([g.flatten() for g in want]) if want else None
        kinds.append(
            "unknown" if new is None
            else "none" if not got.any()
            else "fresh" if torch.allclose(got, new, rtol=1e-4, atol=1e-6)
            else "parallel" if F.cosine_similarity(got, new, dim=0) > 0.9999
            else "stale" if before is not None
            and F.cosine_similarity(got, before + new, dim=0) > 0.9999
            else "stale" if before is not None and _partly_stale(grads, want, before)
            else "other")
        before = got
    return kinds


def _partly_stale(grads: list, want: list, before: torch.Tensor) -> bool:
    """Each parameter's ``.grad`` is its own fresh gradient or that plus the last step's,
    at least one the latter: some parameters' gradients were cleared, others not."""
    if any(g is None for g in grads):
        return False
    kinds, start = [], 0
    for got, new in zip(grads, want):
        old = before[start:start + got.numel()].view_as(got)
        start += got.numel()
        kinds.append("fresh" if torch.allclose(got, new, rtol=1e-4, atol=1e-6)
                     else "stale" if torch.allclose(got, old + new, rtol=1e-4, atol=1e-6)
                     else "other")
    return "stale" in kinds and "other" not in kinds


def _epoch_case(fn: Callable, make_opt: Callable, data: TensorDataset, batch: int,
                order: int, what: str) -> None:
    """One epoch of ``fn`` on ``data``, watched step by step, against a correct twin."""
    h = _zero.require
    target_of = {tuple(row): t for row, t in zip(data.tensors[0].tolist(),
                                                 data.tensors[1].tolist())}
    model = nn.Linear(3, 1)
    twin = copy.deepcopy(model)
    opt, twin_opt = make_opt(model.parameters()), make_opt(twin.parameters())
    inputs: list[torch.Tensor] = []
    steps: list[tuple[list, Any]] = []  # per step: (.grad, the batch's own gradient)

    def fresh(xb: torch.Tensor) -> tuple[torch.Tensor, ...]:
        target = torch.tensor([target_of[tuple(r)] for r in xb.tolist()])
        with torch.enable_grad():
            out = F.linear(xb, model.weight, model.bias)
            return torch.autograd.grad(mse(out, target), [model.weight, model.bias])

    hooks = [
        model.register_forward_pre_hook(lambda m, args: inputs.append(args[0].detach())),
        opt.register_step_pre_hook(lambda o, args, kwargs: steps.append((
            [p.grad.detach().clone() if p.grad is not None else None
             for p in (model.weight, model.bias)],
            fresh(inputs[-1]) if inputs else None))),
    ]
    loader = DataLoader(data, batch_size=batch, shuffle=True,
                        generator=torch.Generator().manual_seed(order))
    try:
        result, error = attempt(fn, model, loader, opt)
    finally:
        for hook in hooks:
            hook.remove()
    h(not error, f"train_epoch fails with {what} ({error})")
    h(steps,
      f"optimizer.step() was never called (with {what}): the update must come from the "
      "optimizer train_epoch is given. A hand-written update ignores its kind, its "
      "learning rate and its state.")
    h(len(steps) == len(loader),
      f"optimizer.step() ran {len(steps)} times for {len(loader)} batches ({what}): "
      "once per batch.")
    kinds = _step_kinds(model, steps)
    h("none" not in kinds,
      f"At step {kinds.index('none') + 1 if 'none' in kinds else 0} the optimizer found "
      "no gradient at all: the "
      "gradients were cleared between backward() and step(), which wipes every fresh "
      "gradient.")
    h("stale" not in kinds[1:],
      f"At step {kinds.index('stale', 1) + 1 if 'stale' in kinds[1:] else 0} .grad "
      "holds the sum of this batch's gradient and the earlier ones': are the gradients "
      "cleared on every batch, for every parameter? Clipping or a smaller step only "
      "hides the stale gradients.", kind="stale",
      more="1. Diagnose shows .grad as a running sum; the chapter's section on the order "
      "of the loop's calls shows where each batch starts from a clean slate.")
    h("other" not in kinds and "unknown" not in kinds,
      "The gradient the optimizer steps with is not that of mse(model(xb), yb) for the "
      "batch: train on the lab's mse. Another loss (Smooth L1, L1) changes the problem, "
      "and F.mse_loss on the (N, 1) output against (N,) targets broadcasts to N x N "
      "pairs." if "other" in kinds else
      "The check could not tell what went wrong: it saw no forward pass through the "
      "model before a step. Run the model on each batch.")
    h("parallel" not in kinds,
      "The gradient points the right way but has the wrong size: the loss is scaled (or "
      "the gradient clipped). Train on mse(model(xb), yb) as it is.")
    losses = []  # a correct loop over the same batches: its batch losses
    for xb, yb in DataLoader(data, batch_size=batch, shuffle=True,
                             generator=torch.Generator().manual_seed(order)):
        twin_opt.zero_grad()
        loss = mse(twin(xb), yb)
        loss.backward()
        twin_opt.step()
        losses.append(loss.item())
    h(all(torch.allclose(a, b, atol=1e-5)
          for a, b in zip(model.parameters(), twin.parameters())),
      f"With {what} the weights differ from a loop that steps the optimizer once per "
      "batch on the same gradients: nothing but optimizer.step() may change the weights.")
    h(isinstance(result, float),
      f"train_epoch returned a {type(result).__name__}: return a Python float. Adding "
      "up the loss tensors themselves keeps every batch's graph alive.")
    mean = sum(losses) / len(losses)
    h(abs(result - mean) < 1e-5 * max(1.0, abs(mean)),
      f"train_epoch returned {result:.4g}; the mean of the {len(losses)} batch losses is "
      f"{mean:.4g} ({what}): return the mean of the batch losses, "
      + ("not their sum." if abs(result - sum(losses)) < 1e-4 * max(1.0, sum(losses))
         else "the sum divided by the number of batches of this loader, not a fixed "
         "count."))


def train_epoch(fn: Callable, *, seed: int | None = None) -> None:
    """``train_epoch(model, loader, optimizer)``: one epoch, each step on the batch's own
    MSE gradient, with the optimizer it is given; returns the mean batch loss (a float).
    Exercise 1 of labs/lab-training.ipynb."""
    need_callable(fn, "train_epoch")
    gen = rng(seed, 13)
    torch.manual_seed(gen.randrange(2**31))
    weights = torch.tensor([1.5, -2.0, 0.5])
    if seed is None:  # another loader (4 batches of 24), optimizer and rate than the lab's
        x = torch.randn(96, 3)
        data = TensorDataset(x, (x * weights).sum(1) - 0.5)
        _epoch_case(fn, lambda p: torch.optim.Adam(p, lr=0.01), data, 24, 1,
                    "Adam at lr=0.01, 4 batches of 24")
        set_seed(0)  # the lab's example: the weights of ice_lab's fit, near the noise
        model = nn.Linear(3, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        loader = regression_loader()
        first, error = attempt(fn, model, loader, optimizer)
        rest = [attempt(fn, model, loader, optimizer)[0] for _ in range(3)]
        _zero.require(not error, f"train_epoch fails on the lab's example ({error})")
        set_seed(0)
        ref = nn.Linear(3, 1)
        history = fit(ref, regression_loader(), mse,
                      torch.optim.SGD(ref.parameters(), lr=0.05), epochs=4, progress=False)
        _zero.require(
            torch.allclose(model.weight, ref.weight, atol=1e-5)
            and torch.allclose(model.bias, ref.bias, atol=1e-5),
            "On the lab's data the weights differ from ice_lab's fit after 4 epochs.")
        _zero.require(abs(first - history.train_loss[0]) < 1e-4,
                      "return the mean of the batch losses of the epoch")
        _zero.require(rest[-1] < 0.05,
                      f"after 4 epochs the loss is {rest[-1]:.4f}, not near 0.01")
    else:  # other optimizers, rates and batch sizes
        for kind in (torch.optim.SGD, torch.optim.RMSprop, torch.optim.AdamW):
            batch = gen.choice([5, 8, 10, 12, 15, 20, 24, 30, 40])
            lr = gen.uniform(0.001, 0.05)
            options = {"momentum": 0.9} if kind is torch.optim.SGD else {}
            x = torch.randn(120, 3)
            data = TensorDataset(x, (x * weights).sum(1) + 0.1 * torch.randn(120))
            _epoch_case(fn, lambda p, k=kind, o=options, r=lr: k(p, lr=r, **o),
                        data, batch, gen.randrange(1000),
                        f"{kind.__name__} at lr={lr:.3g}, batches of {batch}")
    passed("the optimizer steps on each batch's own MSE gradient, any optimizer and "
           "loader; the mean batch loss returned.")


# ------------------------------------------------------------------ 2. eval mode
def _digits_mlp(dropout: float, batchnorm: bool) -> nn.Sequential:
    """The lab's ``make_mlp``."""
    layers: list[nn.Module] = [nn.Flatten(), nn.Linear(64, 64)]
    if batchnorm:
        layers.append(nn.BatchNorm1d(64))
    layers.append(nn.ReLU())
    if dropout:
        layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(64, 10))
    return nn.Sequential(*layers)


@functools.cache
def _trained_weights() -> tuple[dict[str, torch.Tensor], TensorDataset]:
    train_ds, val_ds, _ = digits_datasets(seed=0)
    set_seed(0)
    model = _digits_mlp(0.5, True)
    fit(model, DataLoader(train_ds, batch_size=64, shuffle=True,
                          generator=torch.Generator().manual_seed(0)),
        nn.CrossEntropyLoss(), torch.optim.Adam(model.parameters(), lr=1e-2), epochs=2,
        progress=False)
    return copy.deepcopy(model.state_dict()), val_ds


def _trained_mlp() -> tuple[nn.Sequential, TensorDataset]:
    """The lab's digits MLP (BatchNorm, dropout 0.5) after two epochs (trained once per
    kernel), and the digits' validation set."""
    weights, val_ds = _trained_weights()
    model = _digits_mlp(0.5, True)
    model.load_state_dict(weights)
    return model, val_ds


class GaussianNoise(nn.Module):
    """A layer of one's own that behaves differently in training: noise on its input in
    train mode, nothing at inference (a regulariser, as dropout is)."""

    def __init__(self, std: float) -> None:
        super().__init__()
        self.std = std

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.std * torch.randn_like(x) if self.training else x


def _validate_case(fn: Callable, model: nn.Module, loader: DataLoader, loss_fn: Callable,
                   what: str) -> None:
    """One call of ``fn`` on a model in train mode: every layer in eval mode, no graph,
    every batch, the per-sample mean of ``loss_fn`` and the accuracy, train mode back."""
    h = _eval.require
    modes, calls = [], []  # (layer, its mode) in each forward; the graph of each call
    hooks = [mod.register_forward_pre_hook(
        lambda module, args: modes.append((type(module).__name__, module.training)))
        for mod in model.modules() if mod is not model and not list(mod.children())]
    hooks.append(model.register_forward_hook(
        lambda module, args, output: calls.append(output.requires_grad)))
    try:
        out, error = attempt(fn, model, loader, loss_fn)
    finally:
        for hook in hooks:
            hook.remove()
    h(not error, f"validate fails on {what} ({error})")
    in_train = sorted({name for name, training in modes
                       if training and name not in ("Linear", "ReLU", "Flatten", "Conv2d")})
    h(not in_train,
      f"{' and '.join(in_train)} ran in training mode on {what}: switch the whole "
      "model, not chosen layers (the example's Dropout and BatchNorm1d are not the only "
      "layers that behave differently in training).")
    h(calls and not any(calls),
      "validation records a graph for every batch: eval() changes how layers behave, "
      "not autograd; gradient recording must be off while validating.")
    h(len(calls) == len(loader),
      f"validate ran the model on {len(calls)} of the loader's {len(loader)} batches "
      f"({what}): go through the whole loader, every sample counts.")
    h(all(mod.training for mod in model.modules()),
      f"After validate on {what} the model is not in train mode: validate must put the "
      "model back in train mode, the mode it was in before the call.")
    h(isinstance(out, tuple | list) and len(out) == 2,
      "validate returns two numbers: (mean loss, accuracy)")
    ref = evaluate(model, loader, loss_fn)
    plain = evaluate(model, loader, nn.CrossEntropyLoss())[0]
    h(abs(out[0] - ref[0]) < 1e-5,
      f"On {what} the mean loss is {ref[0]:.4f}, validate returned {out[0]:.4f}: "
      + ("that is another loss. Compute it with the loss_fn validate is given, not "
         "F.cross_entropy or a loss of your choice."
         if abs(out[0] - plain) < 1e-5 else
         "weight each batch's loss by its size and divide by the number of samples "
         "seen, not by a fixed count (the lab's 270) or the number of batches."))
    h(abs(out[1] - ref[1]) < 1e-6,  # a wrong count is off by 1 / n at least
      f"accuracy {out[1]:.4f}, expected {ref[1]:.4f} on {what}: count the correct "
      "predictions of every batch and divide by the samples seen.")


def validate(fn: Callable, *, seed: int | None = None) -> None:
    """``validate(model, loader, loss_fn)`` -> ``(mean loss, accuracy)``: every layer in
    eval mode, no graph, the model left in the mode it was in. Exercise 2 of
    labs/lab-training.ipynb."""
    need_callable(fn, "validate")
    gen = rng(seed, 24)
    h = _eval.require
    trained, val_ds = _trained_mlp()
    val_loader = DataLoader(val_ds, batch_size=256)
    if seed is None:  # the lab's model: the same weights twice, BatchNorm untouched
        model = copy.deepcopy(trained).train()
        mean_before = model[2].get_buffer("running_mean").clone()
        first, error = attempt(fn, model, val_loader, nn.CrossEntropyLoss())
        second, error2 = attempt(fn, model, val_loader, nn.CrossEntropyLoss())
        h(not (error or error2), f"validate fails on the lab's model ({error or error2})")
        h(first == second,
          "two validations of the same weights differ: the model ran in training mode "
          "(dropout, BatchNorm's batch statistics); torch.no_grad() does not change the "
          "mode (2. Diagnose).", kind="mode",
          more="print every layer's training flag during validation, as 2. Diagnose does.")
        h(torch.equal(model[2].get_buffer("running_mean"), mean_before),
          "validation changed BatchNorm's running statistics: the model ran in "
          "training mode.")
        h(model.training,
          "After validate the model is in eval mode: validate must put the model back in "
          "train mode, the mode it was in before the call.", kind="restore",
          more="the caller (a training loop) goes on training after validating.")
        left = [type(mod).__name__ for mod in model.modules() if not mod.training]
        h(not left,
          f"After validate, {', '.join(left)} stayed in eval mode although the model "
          "says train: setting model.training by hand sets the flag of the top module "
          "only; every layer has its own.")
        _validate_case(fn, model, val_loader, nn.CrossEntropyLoss(),
                       "the lab's model and validation set")
        set_seed(1)  # another model (BatchNorm2d, Dropout2d, nested), loss and loader
        cnn = nn.Sequential(
            nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), GaussianNoise(0.1),
            nn.Sequential(nn.Dropout2d(0.5), nn.Flatten(), nn.Linear(4 * 6 * 6, 10)),
        ).train()
        loader = DataLoader(TensorDataset(val_ds.tensors[0][:120], val_ds.tensors[1][:120]),
                            batch_size=50)
        _validate_case(fn, cnn, loader, nn.CrossEntropyLoss(label_smoothing=0.2),
                       "a small CNN with a noise layer of its own, 120 samples in "
                       "batches of 50, 50 and 20")
        cases = 2
    else:
        losses = [nn.CrossEntropyLoss(), nn.CrossEntropyLoss(label_smoothing=0.1),
                  nn.MultiMarginLoss()]
        for case, loss_fn in enumerate(losses):
            n, batch = gen.randint(20, 270), gen.randint(7, 64)
            set_seed(gen.randrange(1000))
            model = (copy.deepcopy(trained) if case == 0
                     else nn.Sequential(GaussianNoise(0.05), _digits_mlp(0.3, True))).train()
            loader = DataLoader(TensorDataset(val_ds.tensors[0][:n], val_ds.tensors[1][:n]),
                                batch_size=batch)
            _validate_case(fn, model, loader, loss_fn,
                           f"{n} samples in batches of {batch}, {loss_fn}")
        cases = len(losses)
    model = copy.deepcopy(trained).eval()
    _, error = attempt(fn, model, val_loader, nn.CrossEntropyLoss())
    h(not error, f"validate fails on a model in eval mode ({error})")
    h(not any(mod.training for mod in model.modules()),
      "a model that was in eval mode must stay in eval mode: validate must leave the "
      "model in the mode it found it in, whichever that was.")
    passed(f"eval mode, no graph, the mode restored (train or eval), per-sample mean "
           f"loss, on {cases} models.")
