"""Checks of ``labs/lab-training.ipynb``, exercises 3 and 4 (chapters: Schedules,
reproducibility and speed, ``book/schedules.ipynb``, and The training loop,
``book/training.ipynb``): a scheduler stepped once per epoch, gradient accumulation that
matches one big batch. Exercise 5, the split: ``training_split.py``.

Re-exported by ``ice_lab.checks.training``, the module the lab imports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Subset

from ice_lab import set_seed
from ice_lab.data import digits_datasets, synthetic_regression
from ice_lab.train import evaluate, fit

from ._core import Hints, attempt, need_callable, passed, rng

_sched = Hints("run_epochs")
_accum = Hints("accumulate_gradients")


def _mlp() -> nn.Sequential:
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


class _RecordingPlateau(torch.optim.lr_scheduler.ReduceLROnPlateau):
    """A ReduceLROnPlateau that remembers the metric it was stepped with."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[float] = []

    def step(self, metrics: Any, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self.seen.append(float(metrics))
        super().step(metrics, *args, **kwargs)


def _watch(scheduler: Any) -> list[tuple]:
    """Record the arguments of every ``scheduler.step`` call."""
    given: list[tuple] = []
    plain = type(scheduler).step

    def step(*a: Any, **k: Any) -> Any:
        given.append(a + tuple(k.values()))
        return plain(scheduler, *a, **k)

    scheduler.step = step
    return given


# ------------------------------------------------------------------ 3. scheduler
def _recorder(model: nn.Module, used: list[float], modes: list[bool]) -> Callable:
    """A step pre-hook recording each step's learning rate and whether every module of
    ``model`` was in train mode."""
    def record(optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        used.append(optimizer.param_groups[0]["lr"])
        modes.append(all(m.training for m in model.modules()))
    return record


def _run(fn: Callable, scheduler_of: Callable, epochs: int, loader: DataLoader,
         val_loader: DataLoader, seed: int) -> tuple[Any, str, list[float], Any]:
    set_seed(seed)
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    sched = scheduler_of(opt)
    used: list[float] = []  # the learning rate of every optimizer step
    modes: list[bool] = []  # every module in train mode at that step
    hook = opt.register_step_pre_hook(_recorder(model, used, modes))
    try:
        out, error = attempt(fn, model, loader, val_loader, nn.CrossEntropyLoss(), opt,
                             sched, epochs)
    finally:
        hook.remove()
    return out, error, used, (model, sched, modes)


def _trains_in_train_mode(modes: list[bool], epochs: int, what: str) -> None:
    """Every optimizer step of ``run_epochs`` ran with the model in train mode."""
    per_epoch = max(1, len(modes) // epochs)
    first = next((i // per_epoch + 1 for i, ok in enumerate(modes) if not ok), 0)
    _sched.require(
        all(modes),
        f"With {what}, epoch {first} trained with the model in eval mode: the validation "
        "of the epoch before left it there, so dropout and BatchNorm would train as at "
        "inference. Every epoch trains in train mode (2. Fix: validation leaves no "
        "trace).")


def _trains_like_fit(model: nn.Module, out: dict, twin: nn.Module, ref: Any,
                     what: str) -> None:
    """``model`` trained as ice_lab's ``fit`` trained ``twin`` (the same data and
    schedule), and the validation losses are ``fit``'s."""
    _sched.require(
        all(torch.allclose(a, b, atol=1e-4)
            for a, b in zip(model.parameters(), twin.parameters())),
        f"With {what} the weights after training differ from those of a correct loop on "
        "the same model, batches and schedule: the training between the scheduler steps "
        "is wrong. Does every step use its own batch's gradient and nothing else "
        "(exercise 1)?")
    got = [round(v, 4) for v in out["val_loss"]]
    _sched.require(
        len(out["val_loss"]) == len(ref.val_loss)
        and all(abs(a - b) < 1e-4 * max(1.0, abs(b))
                for a, b in zip(out["val_loss"], ref.val_loss)),
        f"With {what} the weights are right, but the validation losses recorded are "
        f"{got}, the model's losses on val_loader {[round(v, 4) for v in ref.val_loss]}: "
        "the mean over every validation sample, the model in eval mode, after the "
        "epoch's batches (not the training loss, not a mean of batch means).")


def run_epochs(fn: Callable, *, seed: int | None = None) -> None:
    """``run_epochs(model, train_loader, val_loader, loss_fn, optimizer, scheduler,
    epochs)``: one scheduler step per epoch after the batches, ReduceLROnPlateau with the
    validation loss; returns the rate each epoch trained with and its validation loss.
    Exercise 3 of labs/lab-training.ipynb."""
    need_callable(fn, "run_epochs")
    gen = rng(seed, 35)
    h = _sched.require
    train_ds, val_ds, _ = digits_datasets(seed=0)
    val_loader = DataLoader(val_ds, batch_size=256)

    def digits(n: int, order: int) -> DataLoader:
        return DataLoader(Subset(train_ds, range(n)), batch_size=64, shuffle=True,
                          generator=torch.Generator().manual_seed(order))

    if seed is not None:  # other schedulers and epoch counts, against ice_lab's fit
        makers = [
            lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[1, 2], gamma=0.3),
            lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1)),
            lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=3),
            lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(
                o, patience=0, factor=0.3, threshold=0.5),
        ]
        for make in makers:
            epochs, order = gen.randint(1, 4), gen.randrange(1000)
            out, error, _, (model, sched, modes) = _run(fn, make, epochs,
                                                        digits(256, order), val_loader, order)
            what = f"{type(sched).__name__} over {epochs} epochs"
            h(not error, f"run_epochs fails with {what} ({error})")
            _trains_in_train_mode(modes, epochs, what)
            set_seed(order)
            twin = _mlp()
            twin_opt = torch.optim.SGD(twin.parameters(), lr=0.5)
            ref = fit(twin, digits(256, order), nn.CrossEntropyLoss(), twin_opt,
                      epochs=epochs, val_loader=val_loader, scheduler=make(twin_opt),
                      progress=False)
            h(isinstance(out, dict) and len(out.get("lr", [])) == epochs
              and all(abs(a - b) < 1e-12 for a, b in zip(out["lr"], ref.lr)),
              f"With {what}, the learning rates per epoch should be {ref.lr}: one "
              "scheduler step per epoch, after validation.")
            h(len(out.get("val_loss", [])) == epochs
              and all(abs(a - b) < 1e-5 for a, b in zip(out["val_loss"], ref.val_loss)),
              f"With {what}, val_loss must be the validation loss after each epoch.")
        passed("MultiStepLR, LambdaLR, CosineAnnealingLR and ReduceLROnPlateau, each "
               "stepped once per epoch as ice_lab's fit does.")
        return
    set_seed(0)
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    step = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    args = _watch(step)
    used: list[float] = []
    modes = []
    hook = opt.register_step_pre_hook(_recorder(model, used, modes))
    try:
        out, error = attempt(fn, model, digits(len(train_ds), 0), val_loader,
                             nn.CrossEntropyLoss(), opt, step, 3)
    finally:
        hook.remove()
    h(not error, f"run_epochs fails with StepLR ({error})")
    h(used, "the optimizer never stepped: train on every batch")
    with_args = [a for a in args if a]
    h(not with_args,
      f"StepLR.step() was called with {with_args[0] if with_args else ()}: "
      + ("scheduler.step(epoch) is deprecated (PyTorch warns): the scheduler counts its "
         "own epochs." if with_args and isinstance(with_args[0][0], int) else
         "StepLR.step() takes no metric (a number passed to it becomes its epoch "
         "counter). Only ReduceLROnPlateau watches the validation loss."))
    h(isinstance(out, dict) and "lr" in out and "val_loss" in out,
      'run_epochs must return {"lr": [...], "val_loss": [...]}')
    h(step.last_epoch == 3,
      f"StepLR was stepped {step.last_epoch} times in 3 epochs: step it once per "
      "epoch, after the batches"
      + (". The learning rate changed anyway, by hand: let the scheduler it is given "
         "set the rate, so that whatever schedule run_epochs gets is followed."
         if step.last_epoch == 0 and len(set(used)) > 1 else "."),
      kind="count", more="scheduler.last_epoch counts the step() calls (3. Diagnose).")
    per_epoch = len(used) // 3
    epoch_lrs = [used[0], used[per_epoch], used[2 * per_epoch]]
    h(epoch_lrs == [0.5, 0.25, 0.125],
      f"the epochs trained with learning rates {epoch_lrs}, expected [0.5, 0.25, 0.125]: "
      "step the scheduler after the epoch's batches, not before them.")
    h(out["lr"] == epoch_lrs,
      f"learning rates per epoch {out['lr']}, but the optimizer trained with "
      f"{epoch_lrs}: record the rate the optimizer holds at the start of each epoch, "
      "not computed from a schedule.")
    h(len(out["val_loss"]) == 3 and out["val_loss"][-1] < out["val_loss"][0],
      "the validation loss should fall over 3 epochs with a working schedule")
    _trains_in_train_mode(modes, 3, "StepLR over 3 epochs")
    set_seed(0)
    twin = _mlp()
    twin_opt = torch.optim.SGD(twin.parameters(), lr=0.5)
    ref = fit(twin, digits(len(train_ds), 0), nn.CrossEntropyLoss(), twin_opt, epochs=3,
              val_loader=val_loader, progress=False,
              scheduler=torch.optim.lr_scheduler.StepLR(twin_opt, step_size=1, gamma=0.5))
    _trains_like_fit(model, out, twin, ref, "StepLR over 3 epochs")
    out, error, used, (model, plateau, modes) = _run(
        fn, lambda o: _RecordingPlateau(o, patience=0, factor=0.5), 3,
        digits(len(train_ds), 0), val_loader, 0)
    h(not error,
      f"run_epochs fails with ReduceLROnPlateau ({error}): ReduceLROnPlateau needs the "
      "metric it watches; StepLR takes none.", kind="plateau",
      more="the Schedules chapter's scheduler section steps both kinds.")
    h(isinstance(out, dict) and len(out.get("val_loss", [])) == 3
      and len(out.get("lr", [])) == 3,
      'run_epochs must return {"lr": [...], "val_loss": [...]}, one entry per epoch')
    h(len(plateau.seen) == 3,
      f"ReduceLROnPlateau was stepped {len(plateau.seen)} times in 3 epochs: once per "
      "epoch")
    h(plateau.seen == out["val_loss"],
      "ReduceLROnPlateau must be stepped with the validation loss, not the training loss "
      "(nor an accuracy: in its default mode it waits for a number that stops falling).")
    final = evaluate(model, val_loader, nn.CrossEntropyLoss())[0]
    h(abs(out["val_loss"][-1] - final) < 1e-6,
      f"after the last epoch run_epochs recorded a validation loss of "
      f"{out['val_loss'][-1]:.4f}, the model's loss on val_loader is {final:.4f}: the mean "
      "over every validation sample, the model in eval mode, after the epoch's batches "
      "(not the training loss, not a mean of batch means).")
    epoch_lrs = used[:: max(1, len(used) // 3)]
    h(out["lr"] == epoch_lrs,
      f"with ReduceLROnPlateau the learning rates per epoch are {out['lr']}, but the "
      f"optimizer trained with {epoch_lrs}: record the rate the optimizer holds at the "
      "start of each epoch, not computed from a schedule.")

    def exponential(o: torch.optim.Optimizer) -> Any:
        sched = torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.7)
        exp_args.append(_watch(sched))
        return sched

    exp_args: list[list[tuple]] = []
    out, error, used, (model, sched, modes) = _run(fn, exponential, 2, digits(320, 2),
                                                   val_loader, 2)
    h(not error, f"run_epochs fails with ExponentialLR over 2 epochs ({error})")
    h(isinstance(out, dict) and "lr" in out,
      'run_epochs must return {"lr": [...], "val_loss": [...]}')
    exp_given = [a for a in exp_args[0] if a]
    h(not exp_given,
      f"ExponentialLR.step() was given {exp_given[0] if exp_given else ()}: only "
      "ReduceLROnPlateau takes the validation loss. Telling StepLR apart (by its "
      "step_size, or isinstance StepLR) sends every other scheduler to the metric "
      "branch: test for ReduceLROnPlateau instead.")
    h(isinstance(out, dict) and len(out["lr"]) == 2 and sched.last_epoch == 2,
      f"asked for 2 epochs, run_epochs recorded {len(out['lr'])} and stepped "
      f"ExponentialLR {sched.last_epoch} times: use the epochs it is given, not the "
      "lab's 3.")
    epoch_lrs = used[:: max(1, len(used) // 2)]
    h(out["lr"] == epoch_lrs and abs(epoch_lrs[1] - 0.35) < 1e-12,
      f"with ExponentialLR(gamma=0.7) the epochs trained with {epoch_lrs} and "
      f"run_epochs recorded {out['lr']}, expected [0.5, 0.35] both.")
    passed("StepLR, ReduceLROnPlateau and ExponentialLR each stepped once per epoch, "
           "ReduceLROnPlateau on the validation loss.")


# ------------------------------------------------------------------ 4. accumulation
def _mse(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.mse_loss(pred.squeeze(1), target)


def _whole(model: nn.Module, x: torch.Tensor, y: torch.Tensor, loss_fn: Callable) -> list:
    return list(torch.autograd.grad(loss_fn(model(x), y), list(model.parameters())))


def _accumulated(fn: Callable, model: nn.Module, x: torch.Tensor, y: torch.Tensor,
                 k: int, loss_fn: Callable) -> tuple[list, int, str]:
    """``fn`` on ``k`` micro-batches of ``(x, y)``: the ``.grad`` it leaves, how many
    backward passes it ran, and its error."""
    calls: list[int] = []
    plain = torch.autograd.backward

    def counted(*a: Any, **kw: Any) -> None:
        calls.append(1)
        return plain(*a, **kw)

    torch.autograd.backward = counted
    try:
        _, error = attempt(fn, model, list(zip(x.chunk(k), y.chunk(k))), loss_fn)
    finally:
        torch.autograd.backward = plain
    return [p.grad for p in model.parameters()], len(calls), error


def accumulate_gradients(fn: Callable, *, seed: int | None = None) -> None:
    """``accumulate_gradients(model, micro_batches, loss_fn)`` leaves in ``.grad`` the
    gradient of the whole batch, one backward per micro-batch, old gradients cleared.
    Exercise 4 of labs/lab-training.ipynb."""
    need_callable(fn, "accumulate_gradients")
    gen = rng(seed, 44)
    h = _accum.require
    X, y = synthetic_regression(n=1000, seed=0, noise=0.1)
    if seed is None:
        set_seed(0)
        model: nn.Module = nn.Linear(3, 1)
        x, t = X[:64], y[:64]
        big = _whole(model, x, t, _mse)
        for p in model.parameters():
            p.grad = torch.full_like(p, 100.0)  # old gradients, to be cleared
        grads, calls, error = _accumulated(fn, model, x, t, 4, _mse)
        h(not error, f"accumulate_gradients fails on 4 micro-batches of 16 ({error})")
        h(all(g is not None for g in grads), "no gradient at all: backward() each "
          "micro-batch's loss")
        h(calls == 4,
          f"{calls} backward passes for 4 micro-batches: one per micro-batch, as you go. "
          "One backward() on the mean of all the losses gives the same gradient, but "
          "keeps every micro-batch's graph alive at once: the memory accumulation "
          "exists to save.")
        h(not any(torch.allclose(g - 100.0, b, atol=1e-4) for g, b in zip(grads, big)),
          "the gradient is the whole batch's plus the old one: old gradients were not "
          "cleared, for every parameter.")
        last = _whole(model, x.chunk(4)[-1], t.chunk(4)[-1], _mse)
        h(not any(all(torch.allclose(g, c * b, atol=1e-5) for g, b in zip(grads, last))
                  for c in (1.0, 0.25)),
          "only the last micro-batch's gradient is left in .grad: the gradients of the "
          "earlier ones were cleared on the way.")
        flat, big_flat = torch.cat([g.flatten() for g in grads]), torch.cat(
            [b.flatten() for b in big])
        ratio = float((flat * big_flat).sum() / (big_flat ** 2).sum())
        h(all(torch.allclose(g, b, atol=1e-5) for g, b in zip(grads, big)),
          f"with 4 micro-batches of 16 the accumulated gradient is {ratio:.3g} times the "
          "whole batch's" + (": the micro-batch size is the wrong count."
                             if abs(ratio - 0.25) < 1e-3 else
                             ". Each micro-batch's mse is already a mean over its own "
                             "rows (4. Diagnose)."),
          kind="scale", more="the gradient of a sum of k means is k times the gradient "
          "of their mean.")
        grads, _, error = _accumulated(fn, model, x, t, 8, _mse)
        big8 = _whole(model, x, t, _mse)
        h(not error, f"accumulate_gradients fails on 8 micro-batches of 8 ({error})")
        h(grads[0] is not None and torch.allclose(grads[0], big8[0], atol=1e-5),
          "with 8 micro-batches the gradient is wrong: the count of micro-batches comes "
          "from the list, not a fixed 4.")
        cases = [(2, 3, 16, True)]  # another batch (3 x 16), L1, a fresh model
    else:
        cases = [(gen.randrange(1000), gen.randint(1, 6), gen.randint(1, 12), c % 2 == 0)
                 for c in range(4)]
    digits = digits_datasets(seed=0)[0]
    for case, (init, k, size, fresh) in enumerate(cases):
        set_seed(init)
        n = k * size
        if seed is None:
            model = nn.Linear(3, 1)
            loss_fn: Callable = lambda p, t: F.l1_loss(p.squeeze(1), t)  # noqa: E731
            x, t = X[100:100 + n], y[100:100 + n]
        elif case % 2:
            model, loss_fn = nn.Linear(3, 1), _mse
            x, t = X[:n], y[:n]
        else:
            model, loss_fn = _mlp(), nn.CrossEntropyLoss()
            x, t = digits.tensors[0][:n], digits.tensors[1][:n]
        whole = _whole(model, x, t, loss_fn)
        as_mse = _whole(model, x, t, _mse) if seed is None else whole
        if not fresh:
            for p in model.parameters():
                p.grad = torch.ones_like(p)
        what = f"{k} micro-batches of {size}"
        grads, _, error = _accumulated(fn, model, x, t, k, loss_fn)
        h(not error,
          f"accumulate_gradients fails on {what}"
          + (", on a fresh model whose .grad are still None" if fresh else "")
          + f" ({error})"
          + (": p.grad.zero_() needs a gradient to zero, and a fresh model has none."
             if "NoneType" in error else ""))
        h(all(g is not None for g in grads), "no gradient at all: backward() each "
          "micro-batch's loss")
        ratio = float((grads[0] * whole[0]).sum() / (whole[0] ** 2).sum())
        h(all(torch.allclose(g, w, atol=1e-5) for g, w in zip(grads, whole)),
          "With an L1 loss the gradient is MSE's: call the loss_fn accumulate_gradients "
          "is given, not mse."
          if seed is None and all(torch.allclose(g, w, atol=1e-6)
                                  for g, w in zip(grads, as_mse)) else
          f"With {what} the accumulated gradient is {ratio:.3g} times the whole "
          f"batch's: the count comes from this list ({k}), not from a number fitted to "
          "the lab's 64 = 4 x 16.")
    if seed is None:  # training with it matches one big batch, as in 4. Observe
        def steps(accumulate: Callable | None) -> list[float]:
            set_seed(0)
            model = nn.Linear(3, 1)
            opt = torch.optim.SGD(model.parameters(), lr=0.3)
            losses = []
            for step in range(15):
                xb, yb = X[64 * step:64 * (step + 1)], y[64 * step:64 * (step + 1)]
                if accumulate is None:
                    model.zero_grad()
                    _mse(model(xb), yb).backward()
                else:
                    accumulate(model, list(zip(xb.chunk(4), yb.chunk(4))), _mse)
                opt.step()
                with torch.no_grad():
                    losses.append(_mse(model(X), y).item())
            return losses
        fixed, error = attempt(steps, fn)
        h(not error, f"training with accumulate_gradients fails ({error})")
        h(max(abs(a - b) for a, b in zip(steps(None), fixed)) < 1e-4,
          "training with your accumulation should match one big batch")
    passed("one backward per micro-batch, the whole batch's gradient, any count, any "
           "loss, fresh models too.")
