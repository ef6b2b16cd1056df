"""A small, readable training loop: ``fit``, ``evaluate`` and ``overfit_one_batch``.

The Training chapter (``book/training.ipynb``) builds the same loop by hand; ``fit`` is
taught in the Schedules chapter (``book/schedules.ipynb``); the Training lab (``labs/lab-training.ipynb``) breaks it on purpose. Later
chapters reuse ``fit`` and hook into it through ``callbacks``.

This is not a framework. It is the loop the chapter writes, in one place::

    for each epoch:
        model.train()
        for each batch (inputs, targets):
            at the start of each group of ``accumulation_steps`` batches: optimizer.zero_grad()
            loss = loss_fn(model(inputs), targets) / accumulation_steps
            loss.backward()
            at the end of the group: clip_grad_norm_ (optional), then optimizer.step()
        evaluate on val_loader (optional)
        scheduler.step()  (ReduceLROnPlateau: scheduler.step(val_loss))
        log the epoch (History, CSV), call the callbacks

Every loader must yield ``(inputs, targets)`` pairs.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import torch
from torch import nn

from .progress import tqdm as _tqdm  # private: tqdm's one import path is ice_lab.progress
from ._args import check_int as _check_int
from ._args import check_number

__all__ = ["History", "fit", "evaluate", "overfit_one_batch"]

LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
Callback = Callable[[int, "History", nn.Module, torch.optim.Optimizer], Any]

CSV_COLUMNS = ("epoch", "train_loss", "val_loss", "val_accuracy", "lr")


@dataclass
class History:
    """What ``fit`` measured, one entry per epoch in each list.

    ``epoch`` counts from 1. ``lr`` is the learning rate the epoch trained with (the first
    parameter group's). ``val_loss`` / ``val_accuracy`` hold ``None`` when there was no
    validation loader, and ``val_accuracy`` also when the task is not classification.
    ``history.plot()`` draws the loss curves; ``history.rows()`` gives one dict per epoch.

    Taught in the Schedules chapter (``book/schedules.ipynb``).
    """

    epoch: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    val_loss: list[float | None] = field(default_factory=list)
    val_accuracy: list[float | None] = field(default_factory=list)
    lr: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.epoch)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per epoch, keyed like the CSV columns."""
        return [
            dict(zip(CSV_COLUMNS, values))
            for values in zip(self.epoch, self.train_loss, self.val_loss, self.val_accuracy, self.lr)
        ]

    def plot(self, ax: Any = None, title: str | None = None) -> Any:
        """Train (and validation) loss against the epoch on a matplotlib axis; returns the axis."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3))
        ax.plot(self.epoch, self.train_loss, marker="o", label="train loss")
        if any(v is not None for v in self.val_loss):
            val = [math.nan if v is None else v for v in self.val_loss]
            ax.plot(self.epoch, val, marker="o", label="validation loss")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # epochs are whole numbers
        ax.set_xlabel("epoch")
        ax.set_ylabel("loss")
        if title:
            ax.set_title(title)
        ax.legend()
        return ax


# --------------------------------------------------------------------------- helpers
def _unpack(batch: Any, where: str) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch must be an ``(inputs, targets)`` pair of tensors; say clearly when it is not."""
    if isinstance(batch, (tuple, list)) and len(batch) == 2:
        inputs, targets = batch
        if isinstance(inputs, torch.Tensor) and isinstance(targets, torch.Tensor):
            return inputs, targets
        kinds = f"({type(inputs).__name__}, {type(targets).__name__})"
    elif isinstance(batch, (tuple, list)):
        kinds = f"a {type(batch).__name__} of {len(batch)} items"
    else:
        kinds = f"a {type(batch).__name__}"
    raise TypeError(
        f"{where} yielded {kinds}; ice_lab.train expects (inputs, targets) pairs of tensors. "
        "Make the Dataset's __getitem__ return (input, target), or write a collate_fn that does."
    )


def _model_device(model: nn.Module) -> torch.device:
    for parameter in model.parameters():
        return parameter.device
    for buffer in model.buffers():
        return buffer.device
    return torch.device("cpu")


def _scalar_loss(loss: Any) -> torch.Tensor:
    if not isinstance(loss, torch.Tensor):
        raise TypeError(f"loss_fn must return a tensor, got {type(loss).__name__}.")
    if loss.dim() != 0:
        raise ValueError(
            f"loss_fn returned a tensor of shape {tuple(loss.shape)}, not a single number. "
            "Use a loss with reduction='mean' (the default), or call .mean() on it."
        )
    return loss


def _is_plateau(scheduler: Any) -> bool:
    return isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)


# --------------------------------------------------------------------------- evaluate
def evaluate(
    model: nn.Module,
    loader: Iterable[Any],
    loss_fn: LossFn,
    device: torch.device | str | None = None,
) -> tuple[float, float | None]:
    """Mean loss and accuracy of ``model`` over ``loader``, without gradients, in eval mode.

    Runs under ``torch.no_grad()`` with ``model.eval()`` (dropout off, BatchNorm uses its
    running statistics) and puts the model back in the mode it was in. The loss is the
    per-sample mean over the whole loader (each batch weighted by its size, so a short
    last batch counts for what it holds). Accuracy is the fraction of ``argmax`` hits when
    the outputs are ``(N, classes)`` scores and the targets integer class labels; for any
    other task it is ``None``. ``device`` defaults to the device of the model's parameters.

    Taught in the Training chapter (``book/training.ipynb``, "train() and eval()").
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}.")
    device = torch.device(device) if device is not None else _model_device(model)
    was_training = model.training
    model.eval()
    total_loss, total, correct, classification = 0.0, 0, 0, True
    try:
        with torch.no_grad():
            for batch in loader:
                inputs, targets = _unpack(batch, "the evaluation loader")
                inputs, targets = inputs.to(device), targets.to(device)
                outputs = model(inputs)
                loss = _scalar_loss(loss_fn(outputs, targets))
                n = targets.shape[0] if targets.dim() > 0 else 1
                total_loss += loss.item() * n
                total += n
                if (
                    classification
                    and outputs.dim() == 2
                    and targets.dim() == 1
                    and not targets.is_floating_point()
                    and not targets.is_complex()
                ):
                    correct += (outputs.argmax(dim=1) == targets).sum().item()
                else:
                    classification = False
    finally:
        model.train(was_training)
    if total == 0:
        raise ValueError("the evaluation loader yielded no batches; is the dataset empty?")
    return total_loss / total, (correct / total if classification else None)


# --------------------------------------------------------------------------- fit
def fit(
    model: nn.Module,
    train_loader: Iterable[Any],
    loss_fn: LossFn,
    optimizer: torch.optim.Optimizer,
    *,
    epochs: int,
    val_loader: Iterable[Any] | None = None,
    scheduler: Any = None,
    device: torch.device | str | None = None,
    clip_grad_norm: float | None = None,
    accumulation_steps: int = 1,
    log_csv: str | os.PathLike[str] | None = None,
    progress: bool = True,
    callbacks: Sequence[Callback] = (),
) -> History:
    """Train ``model`` for ``epochs`` epochs and return a ``History`` (one entry per epoch).

    Args:
        model: the network. It is moved to ``device`` if one is given; otherwise batches go
            to the device its parameters are on.
        train_loader: yields ``(inputs, targets)`` pairs (a ``DataLoader``, or any iterable
            that can be iterated once per epoch).
        loss_fn: ``loss_fn(outputs, targets)`` -> a scalar tensor (e.g. ``nn.CrossEntropyLoss()``).
        optimizer: built over the parameters to train, e.g.
            ``torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()))``.
        epochs: number of passes over ``train_loader`` (at least 1).
        val_loader: optional; evaluated with ``evaluate`` after every epoch.
        scheduler: optional learning-rate scheduler, stepped **once per epoch** after the
            epoch: ``ReduceLROnPlateau`` with the validation loss (so it needs
            ``val_loader``), any other scheduler with ``scheduler.step()``.
        device: where to train; default: the device of the model's parameters.
        clip_grad_norm: optional maximum total gradient norm, applied with
            ``torch.nn.utils.clip_grad_norm_`` between ``backward`` and ``step``.
        accumulation_steps: gradients of this many batches are summed before each optimizer
            step, each loss divided by ``accumulation_steps`` so the step matches one big
            batch. A short group at the end of an epoch is stepped too (with a smaller
            gradient, since each of its losses is still divided by ``accumulation_steps``).
        log_csv: optional path; a CSV with columns epoch, train_loss, val_loss,
            val_accuracy, lr is written, one row per epoch, flushed as it goes.
        progress: show tqdm progress bars (``ice_lab.progress.tqdm``: ``TQDM_DISABLE=1`` in the
            environment turns them off, in Jupyter too).
        callbacks: callables called at the end of every epoch, after logging, as
            ``callback(epoch, history, model, optimizer)`` (``epoch`` counts from 1). A
            callback that returns ``True`` stops training after that epoch (early stopping);
            any other return value is ignored. Saving a checkpoint every epoch, or the best
            model so far, is a callback too.

    ``train_loss`` is the mean of the (unscaled) batch losses, weighted by batch size,
    measured while the epoch trained (so in train mode, with the weights still moving).
    The model is left in train mode.

    Taught in the Schedules chapter (``book/schedules.ipynb``); broken on purpose in the
    Training lab (``labs/lab-training.ipynb``).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}.")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}. "
            "Build one over the model's parameters, e.g. torch.optim.SGD(model.parameters(), lr=0.1)."
        )
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable, got {type(loss_fn).__name__}.")
    epochs = _check_int("epochs", epochs, 1)
    accumulation_steps = _check_int("accumulation_steps", accumulation_steps, 1)
    if clip_grad_norm is not None:
        clip_grad_norm = check_number("clip_grad_norm", clip_grad_norm, positive=True)
    if scheduler is not None and not hasattr(scheduler, "step"):
        raise TypeError(f"scheduler must have a .step() method, got {type(scheduler).__name__}.")
    if _is_plateau(scheduler) and val_loader is None:
        raise ValueError(
            "ReduceLROnPlateau is stepped with the validation loss once per epoch, so fit() needs "
            "val_loader. (Stepping it with the training loss hides overfitting.)"
        )
    if callable(callbacks):
        callbacks = [callbacks]  # a single callable is a list of one
    callbacks = list(callbacks)
    for cb in callbacks:
        if not callable(cb):
            raise TypeError(f"every callback must be callable, got {type(cb).__name__}.")

    if device is not None:
        device = torch.device(device)
        model.to(device)
    else:
        device = _model_device(model)

    history = History()
    csv_file = None
    writer = None
    if log_csv is not None:
        csv_file = open(log_csv, "w", newline="", encoding="utf-8")
        writer = csv.writer(csv_file)
        writer.writerow(CSV_COLUMNS)
        csv_file.flush()
    params = [p for group in optimizer.param_groups for p in group["params"]]

    try:
        # progress=True leaves the choice to the environment: TQDM_DISABLE=1 still wins.
        bar_options: dict[str, Any] = {"disable": None if progress else True}
        epoch_bar = _tqdm(range(1, epochs + 1), desc="epochs", **bar_options)
        for epoch in epoch_bar:
            model.train()
            lr = float(optimizer.param_groups[0]["lr"])
            total_loss, total, in_group = 0.0, 0, 0
            # ice_lab.progress.tqdm iterates the loader once (tqdm.auto would draw the shuffle twice).
            for batch in _tqdm(train_loader, desc=f"epoch {epoch}", leave=False, **bar_options):
                inputs, targets = _unpack(batch, "train_loader")
                inputs, targets = inputs.to(device), targets.to(device)
                if in_group == 0:
                    optimizer.zero_grad()
                loss = _scalar_loss(loss_fn(model(inputs), targets))
                (loss / accumulation_steps).backward()
                in_group += 1
                if in_group == accumulation_steps:
                    _step(optimizer, params, clip_grad_norm)
                    in_group = 0
                n = targets.shape[0] if targets.dim() > 0 else 1
                total_loss += loss.item() * n
                total += n
            if in_group:  # a short last group still updates the weights
                _step(optimizer, params, clip_grad_norm)
            if total == 0:
                raise ValueError("train_loader yielded no batches; is the dataset empty?")

            val_loss, val_acc = (None, None)
            if val_loader is not None:
                val_loss, val_acc = evaluate(model, val_loader, loss_fn, device)
            if scheduler is not None:
                if _is_plateau(scheduler):
                    scheduler.step(val_loss)
                else:
                    scheduler.step()

            history.epoch.append(epoch)
            history.train_loss.append(total_loss / total)
            history.val_loss.append(val_loss)
            history.val_accuracy.append(val_acc)
            history.lr.append(lr)
            if writer is not None and csv_file is not None:
                writer.writerow(["" if v is None else v for v in history.rows()[-1].values()])
                csv_file.flush()
            postfix = {"train_loss": f"{total_loss / total:.4f}"}
            if val_loss is not None:
                postfix["val_loss"] = f"{val_loss:.4f}"
            epoch_bar.set_postfix(postfix)
            stop = False
            for cb in callbacks:
                if cb(epoch, history, model, optimizer) is True:
                    stop = True
            if stop:
                break
    finally:
        if csv_file is not None:
            csv_file.close()
    return history


def _step(optimizer: torch.optim.Optimizer, params: list[torch.Tensor], clip: float | None) -> None:
    """Clip (optionally) between backward and step, then step."""
    if clip is not None:
        torch.nn.utils.clip_grad_norm_(params, clip)
    optimizer.step()


# --------------------------------------------------------------------------- start tiny
def overfit_one_batch(
    model: nn.Module,
    batch: Any,
    loss_fn: LossFn,
    optimizer: torch.optim.Optimizer,
    steps: int = 100,
    device: torch.device | str | None = None,
) -> list[float]:
    """"Start tiny": train on one batch ``steps`` times and return the loss of every step.

    Each loss is measured by that step's forward pass, before its update: ``losses[0]`` is
    the untrained model's loss, ``losses[-1]`` the loss after ``steps - 1`` updates.

    A model that cannot drive the loss on a single batch close to zero will not learn the
    whole dataset either: the wiring is broken (labels, loss, a layer that is not
    registered, a learning rate far off). Check this before any long run. The model is
    left in train mode; ``batch`` is an ``(inputs, targets)`` pair, e.g.
    ``next(iter(train_loader))``.

    Taught in the Training chapter (``book/training.ipynb``, "Start tiny").
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}.")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}.")
    steps = _check_int("steps", steps, 1)
    inputs, targets = _unpack(batch, "the batch passed to overfit_one_batch")
    if device is not None:
        device = torch.device(device)
        model.to(device)
    else:
        device = _model_device(model)
    inputs, targets = inputs.to(device), targets.to(device)
    model.train()
    losses: list[float] = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = _scalar_loss(loss_fn(model(inputs), targets))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
