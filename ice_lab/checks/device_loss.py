"""Checks of the open exercise of ``labs/lab-device.ipynb`` (chapter: Devices): a
colleague's loss that works on the CPU only. The lab calls it as ``check.smoothed_loss``
(re-exported by ``ice_lab.checks.device``, whose helpers it shares)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from ._core import Hints, attempt, need_callable, passed, rng
from .device import CPU, _copied_out_of_meta, _unwritten, other_device

_loss = Hints("make_fixed_loss")


def _smoothed_reference(logits: torch.Tensor, labels: torch.Tensor, counts: list[int],
                        smoothing: float = 0.1) -> torch.Tensor:
    """The colleague's loss, on the CPU."""
    count = torch.tensor(counts, dtype=torch.float32)
    weights = count.sum() / (len(count) * count)
    batch, classes = logits.shape
    target = torch.full((batch, classes), smoothing / (classes - 1))
    target[torch.arange(batch), labels] = 1 - smoothing
    per_sample = -(target * F.log_softmax(logits, dim=1)).sum(dim=1)
    return (per_sample * weights[labels]).mean()


def _graph(loss: torch.Tensor) -> set[str]:
    """The names of the autograd nodes that computed ``loss``."""
    seen: set = set()
    todo = [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(n for n, _ in node.next_functions)
    return {type(node).__name__ for node in seen}


def _own_tensors(loss_fn: object) -> dict[str, torch.Tensor]:
    return {k: v for k, v in getattr(loss_fn, "__dict__", {}).items()
            if isinstance(v, torch.Tensor)}


def _loss_hint(loss_fn: Callable[..., Any], logits: torch.Tensor, labels: torch.Tensor,
               other: torch.device, error: str) -> str:
    """Which tensor the failing loss left on the CPU: one of its own (made when it was
    built), or one created during the call."""
    if _copied_out_of_meta(error):
        return ("The loss copied something from meta to the CPU (.cpu(), .item(), "
                ".tolist(), ...): moving logits and labels to the CPU hides the bug; the "
                "loss must run where the logits are.")
    if "device" not in error:
        return "Call your loss on the other device in a cell of your own, and explain."
    own = {k: v for k, v in _own_tensors(loss_fn).items() if v.device.type != other.type}
    if own:
        moved = copy.copy(loss_fn)
        for name, tensor in own.items():
            setattr(moved, name, tensor.to(other))
        _, again = attempt(moved, logits, labels)
        if not again:
            return (f"The loss's own tensor {', '.join(own)}, made when the loss was "
                    "built, stays on the CPU: a plain Python object is not an "
                    "nn.Module, and nothing ever moves it.")
    return ("A tensor created inside the call is born on the CPU, whatever device the "
            "logits are on: the lab's scanner lists the candidates (4.3).")


def smoothed_loss(make: Callable, *, seed: int | None = None) -> None:
    """``make(class_counts)`` returns the colleague's loss, repaired: the same value and
    gradient on the CPU, and the same loss object also runs on the other device, where
    the logits are."""
    need_callable(make, "make_fixed_loss")
    other, gen = other_device(), rng(seed, 14)
    torch.manual_seed(gen.randrange(2**31))
    h = _loss.require
    counts = [100, 180, 40, 75] if seed is None else [
        gen.randint(5, 300) for _ in range(gen.randint(2, 12))]
    loss_fn, error = attempt(make, counts)
    h(not error, f"make_fixed_loss({counts}) fails ({error}). "
      + _unwritten(error, "4.4 Fix"))
    h(callable(loss_fn), f"make_fixed_loss should return a loss to call, got "
      f"{type(loss_fn).__name__}.")
    classes = len(counts)
    batches = [8, 1, 13] if seed is None else [gen.randint(1, 40) for _ in range(3)]
    for device, batch in [(CPU, batches[0]), (other, batches[1]), (other, batches[2])]:
        logits = torch.randn(batch, classes, requires_grad=True)
        labels = torch.randint(0, classes, (batch,))
        here = logits.detach().to(device).requires_grad_()
        out, error = attempt(loss_fn, here, labels.to(device))
        if device.type == "cpu":
            h(not error,
              f"On the CPU the loss fails ({error}): "
              + ("a hard-coded device (the lab's OTHER, 'cuda', best_device()) is not "
                 "where the logits are." if "device" in error else
                 "run it on the CPU in a cell of your own and read the error."))
        else:
            h(not error,
              f"On {other} the loss still fails ({error}). "
              + _loss_hint(loss_fn, here, labels.to(device), other, error),
              kind="other", more="where_is(...) on the logits, the labels and each "
              "tensor the loss holds or makes, then factory_calls_without_device.")
        h(isinstance(out, torch.Tensor) and out.dim() == 0,
          f"The loss should be one number, a 0-dim tensor, got "
          f"{getattr(out, 'shape', type(out).__name__)}.")
        h(out.device.type == device.type,
          f"The loss was computed on {out.device}, not on {device}, where the logits are: "
          "moving logits and labels to the CPU hides the bug.")
        h(out.requires_grad,
          "The loss carries no gradient back to the logits (.detach(), .item() or a "
          "placeholder): training on it would change nothing.")
        h(any(k in name for name in _graph(out) for k in ("Softmax", "Logsumexp")),
          f"On {device} the loss is not computed from a softmax of the logits (its "
          "autograd graph holds none): a placeholder returned where the real loss fails "
          "hides the bug.")
        out.backward()
        if not (here.grad is not None and here.grad.device.type == device.type):
            _loss.fail(f"The gradient did not reach the logits on {device}.")
        if device.type == "meta":
            continue
        expected = _smoothed_reference(logits, labels, counts)
        (expected_grad,) = torch.autograd.grad(expected, logits)
        h(torch.allclose(out.detach().cpu(), expected.detach(), atol=1e-5),
          f"On {device} the loss differs from the colleague's "
          f"({out.item():.4f} vs {expected.item():.4f}): the fix changes where tensors "
          "live, not what the loss computes (smoothing, class weights, the mean).",
          kind="value")
        h(torch.allclose(here.grad.cpu(), expected_grad, atol=1e-5),
          "The loss has the colleague's value but not its gradient.")
    passed(f"the colleague's loss and gradient on the CPU for {classes} classes; the same "
           f"loss object runs on {other}.")
