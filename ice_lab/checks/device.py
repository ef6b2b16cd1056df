"""Checks of ``labs/lab-device.ipynb`` (chapter: Devices): model, inputs and labels on one
device; tensors created inside ``forward``; labels validated before a GPU sees them; a
colleague's loss that works on the CPU only (its check: ``device_loss.py``).

Each check runs the learner's code on the CPU and on "the other device": the GPU that
``ice_lab.best_device()`` picks, or ``meta`` (shapes only, no data) on a machine without
one, so a device bug fails the check on a laptop too.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ..env import best_device
from ._core import Hints, attempt, need_callable, passed, rng

_train = Hints("train_step_fixed")
_forward = Hints("PositionalPoolFixed")
_labels = Hints("validate_labels")

CPU = torch.device("cpu")


def other_device() -> torch.device:
    """The lab's other device: the GPU if there is one (CUDA, or Apple's mps), else meta."""
    device = best_device()
    return device if device.type != "cpu" else torch.device("meta")


def _on(thing: torch.Tensor | nn.Module, device: torch.device) -> bool:
    tensors = [*thing.parameters(), *thing.buffers()] if isinstance(thing, nn.Module) \
        else [thing]
    return all(t.device.type == device.type for t in tensors)


def _unwritten(error: str, fix: str) -> str:
    """The hint for the shipped stub: the fix is not written yet."""
    return f"Write your fix in the cell under {fix} first. " \
        if error.startswith("NotImplementedError") else ""


def _copied_out_of_meta(error: str) -> bool:
    return "meta" in error and ("copy" in error.lower() or "item()" in error)


# ------------------------------------------------------------------ exercise 1
def _classifier(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


STAYED = {
    "model": "The model stays where it was: the step never moves the module itself "
    "(1.3 Diagnose: where_is).",
    "inputs": "The inputs stay where they were: x.to(device) returns a moved copy and "
    "leaves x where it was (1.3 Diagnose).",
    "labels": "The labels stay where they were: cross_entropy then meets logits on one "
    "device and labels on another (the second CUDA message in 1.2).",
}


def _left_behind(fn: Callable, x: torch.Tensor, y: torch.Tensor, other: torch.device,
                 make_opt: Callable) -> list[str]:
    """Which of the model, the inputs and the labels ``fn`` leaves where it found it: each
    starts on the CPU in turn, the other two on ``other``."""
    stayed = []
    for name in ("model", "inputs", "labels"):
        model = _classifier(0)
        if name != "model":
            model.to(other)
        xs = x if name == "inputs" else x.to(other)
        ys = y if name == "labels" else y.to(other)
        _, error = attempt(fn, model, make_opt(model), xs, ys, other)
        if error:
            stayed.append(name)
    return stayed


def train_step(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(model, optimizer, x, y, device)`` takes one optimizer step with the model, the
    inputs and the labels all on ``device``, whatever device each one starts on, and
    returns the loss; on the CPU it is the plain step, same loss, same updated weights."""
    need_callable(fn, "train_step_fixed")
    other, gen = other_device(), rng(seed, 11)
    torch.manual_seed(gen.randrange(2**31))
    n = 32 if seed is None else gen.randint(1, 60)
    x, y = torch.rand(n, 64), torch.randint(0, 10, (n,))
    lr = 0.1 if seed is None else gen.choice([0.01, 0.1, 0.5])
    make_opt = (lambda m: torch.optim.SGD(m.parameters(), lr=lr)) if seed is None \
        else (lambda m: torch.optim.Adam(m.parameters(), lr=lr))
    h = _train.require

    ref = _classifier(1)
    ref_opt = make_opt(ref)
    ref_loss = F.cross_entropy(ref(x), y)
    ref_opt.zero_grad()
    ref_loss.backward()
    ref_opt.step()

    mine = _classifier(1)
    loss, error = attempt(fn, mine, make_opt(mine), x, y, CPU)
    hard_coded = bool(re.search("cuda|nvidia", error, re.I))
    h(not error,
      f"train_step_fixed fails even with everything on the CPU ({error}). "
      + (_unwritten(error, "1.4 Fix") or (
          "A hard-coded 'cuda' (or .cuda()) is not `device`: the step is asked for the "
          "device it is given." if hard_coded else "Run it on the CPU in a cell of your "
          "own and read the error with explain.")))
    h(isinstance(loss, torch.Tensor),
      f"train_step_fixed should return the loss, a tensor, got {type(loss).__name__}.")
    h(loss.device.type == "cpu" and _on(mine, CPU),
      f"Asked for the CPU, the step ran on {loss.device}: move to `device`, the argument, "
      "not to the lab's OTHER or another global device.")
    h(torch.allclose(loss.detach(), ref_loss.detach()),
      "On the CPU the step must compute the same loss as the plain step (nothing needs "
      "to move there): the loss or the batch was changed on the way.")
    h(all(torch.allclose(a, b) for a, b in zip(mine.parameters(), ref.parameters())),
      "The loss is right, but the model you were given did not take the step: a copy of "
      "it was trained, and the optimizer holds the parameters of the original.",
      kind="copy", more="model.to(...) moves a module in place; copy.deepcopy does not.")

    starts = {"everything on the CPU": (False, False, False)}
    if seed is None:
        starts |= {"the model already there": (True, False, False),
                   "the inputs already there": (False, True, False)}
    else:
        starts |= {"the batch already there": (False, True, True),
                   "the model and the labels already there": (True, False, True)}
    for where, (model_there, x_there, y_there) in starts.items():
        model = _classifier(2)
        if model_there:
            model.to(other)
        xs, ys = (x.to(other) if x_there else x), (y.to(other) if y_there else y)
        loss, error = attempt(fn, model, make_opt(model), xs, ys, other)
        stayed = _left_behind(fn, x, y, other, make_opt) if error else []
        h(not error,
          f"A step on {other}, {where}, fails ({error}). "
          + (" ".join(STAYED[name] for name in stayed)
             or "Move each of the three, whatever device it starts on."),
          kind="stayed", more="print where_is(model=..., x=..., y=...) inside your step, "
          "right before the model is called.")
        h(isinstance(loss, torch.Tensor) and loss.device.type == other.type,
          f"On {other}, {where}: the loss was computed on "
          f"{getattr(loss, 'device', None)}, not on {other}: moving everything to the CPU "
          "(or to where the model or x already is) hides the error.")
        h(_on(model, other),
          f"The step ran on {other}, but the model you were given is still on the CPU: a "
          "copy of it was trained, while the optimizer updates the original.")
    passed(f"model, inputs and labels on one device (CPU, then {other}), from "
           f"{len(starts)} starts.")


# ------------------------------------------------------------------ exercise 2
def _pool_reference(model: Any, x: torch.Tensor) -> torch.Tensor:
    """What BrokenPositionalPool computes, on the CPU (``model``: the learner's repair,
    read by the colleague's layer names)."""
    batch, length, _ = x.shape
    position = (torch.arange(length) / length).expand(batch, length).unsqueeze(-1)
    h = torch.relu(model.proj(torch.cat([x, position], dim=-1)))
    return model.head(h.mean(dim=1))


def _forward_hint(error: str, shape: tuple[int, ...], on_cpu: bool) -> str:
    if _copied_out_of_meta(error):
        return ("forward copied something from meta to the CPU (x.cpu(), self.cpu(), "
                ".item(), ...): moving the input to where the new tensors are hides the "
                "bug; the new tensors are on the wrong device.")
    if "device" in error and on_cpu:
        return ("On the CPU, forward met a tensor on another device: a global `device`, "
                "the lab's OTHER or a hard-coded 'cuda' is not the input's device.")
    if "device" in error:
        return ("A tensor created in forward is still born on the CPU, whatever device x "
                "is on: run 2.3's scanner on your forward.")
    if "dtype" in error or "Double" in error:
        return ("A dtype mismatch: the tensors created in forward must be float32, like "
                "x and the layers' weights, not float64.")
    if tuple(shape[:2]) != (4, 5):
        return (f"The example's inputs had 4 sequences of length 5; these have "
                f"{shape[0]} of length {shape[1]}: read batch and length from x.shape, "
                "not from the example.")
    return "Run the same input through your class in a cell and read the error."


def positional_pool(fixed: type[nn.Module], *, seed: int | None = None) -> None:
    """``fixed()`` computes what ``BrokenPositionalPool`` computes, for any batch and
    length, on the CPU and on the other device, with its own layers on that device."""
    need_callable(fixed, "PositionalPoolFixed")
    other, gen = other_device(), rng(seed, 12)
    torch.manual_seed(gen.randrange(2**31))
    h = _forward.require
    model, error = attempt(fixed)
    h(not error, f"PositionalPoolFixed() fails ({error}).")
    h(isinstance(getattr(model, "proj", None), nn.Linear)
      and isinstance(getattr(model, "head", None), nn.Linear),
      "PositionalPoolFixed should keep the layers proj and head of BrokenPositionalPool.")
    shapes = [(4, 5, 8), (3, 7, 8), (1, 2, 8)] if seed is None else [
        (gen.randint(1, 9), gen.randint(1, 12), 8) for _ in range(3)]
    for shape in shapes:
        inputs = torch.randn(shape)
        out, error = attempt(model, inputs)
        h(not error,
          f"PositionalPoolFixed fails on the CPU, inputs of shape {shape} ({error}). "
          + (_unwritten(error, "2.4 Fix") or _forward_hint(error, shape, on_cpu=True)))
        with torch.no_grad():
            expected = _pool_reference(model, inputs)
        h(isinstance(out, torch.Tensor) and out.shape == expected.shape
          and torch.allclose(out, expected, atol=1e-6),
          f"For inputs of shape {shape}, the fixed model must compute exactly what "
          "BrokenPositionalPool computes: the fix changes where tensors are born, not "
          "what forward does.")
    moved = copy.deepcopy(model).to(other)
    seen: list[str] = []  # the device of every input the projection layer received
    hook = moved.proj.register_forward_hook(
        lambda module, inputs, output: seen.append(inputs[0].device.type))
    try:
        for shape in shapes[:2]:
            inputs = torch.randn(shape)
            out, error = attempt(moved, inputs.to(other))
            h(not error,
              f"Inputs of shape {shape} on {other} still fail ({error}). "
              + _forward_hint(error, shape, on_cpu=False), kind="other",
              more="the Diagnose of 2.3 lists every factory call without a device.")
            h(isinstance(out, torch.Tensor) and out.shape == (shape[0], 3)
              and out.device.type == other.type,
              f"Expected a {(shape[0], 3)} output on {other}, got "
              f"{tuple(getattr(out, 'shape', ()))} on {getattr(out, 'device', None)}.")
            if other.type != "meta":
                h(torch.allclose(out.cpu(), _pool_reference(model, inputs), atol=1e-5),
                  f"On {other} the outputs differ from the CPU's.")
    finally:
        hook.remove()
    h(_on(moved, other),
      "forward moved the model's own parameters (self.cpu() or self.to(...)): a model "
      f"on {other} must stay there.")
    h(seen == [other.type] * 2,
      f"The model's layers did not run on {other} (they saw {seen}): catching the error "
      "and returning a placeholder, or moving x elsewhere, hides the bug.")
    passed(f"the same outputs on the CPU for {len(shapes)} shapes; the whole forward "
           f"runs on {other}.")


# ------------------------------------------------------------------ exercise 3
def _raised(fn: Callable, labels: torch.Tensor, classes: int) -> Exception | None:
    try:
        fn(labels, classes)
    except Exception as error:  # which exception it is, is what the check asks
        return error
    return None


def validate_labels(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(labels, num_classes)`` returns None for integer labels in 0..num_classes-1,
    changes nothing, and raises ValueError naming the bad values otherwise (TypeError or
    ValueError for float, complex and boolean labels)."""
    need_callable(fn, "validate_labels")
    gen = rng(seed, 13)
    torch.manual_seed(gen.randrange(2**31))
    h = _labels.require
    classes = 10 if seed is None else gen.randint(2, 60)
    good = torch.randint(0, classes, (1257 if seed is None else gen.randint(1, 500),))
    good[0] = classes - 1
    kept = good.clone()
    returned, error = attempt(fn, good, classes)
    h(not error, f"Good labels 0..{classes - 1} must pass silently ({error}). "
      + _unwritten(error, "3.4 Fix"))
    h(returned is None,
      f"validate_labels returned {returned!r}: a return value is easy to ignore. Return "
      "nothing for good labels, and raise ValueError for bad ones.")
    h(torch.equal(good, kept), "validate_labels must not change the labels.")
    shifted = good + 1  # a file that numbers the classes from 1
    kept = shifted.clone()
    err = _raised(fn, shifted, classes)
    h(torch.equal(shifted, kept),
      "validate_labels changed the labels: do not clamp or repair them (in place or "
      "not): raise and let a human look.")
    h(not isinstance(err, AssertionError),
      "raise ValueError, not assert: asserts vanish under python -O, and the message "
      "must reach whoever loads the data.")
    h(isinstance(err, ValueError),
      f"Labels 1..{classes} must raise ValueError, got {err!r}. Label {classes} is not "
      f"a class of a {classes}-class model (classes 0..{classes - 1}): num_classes itself "
      "is out of range, not only > num_classes; printing or warning lets training go on "
      "with a label that is not a class.")
    h(str(classes) in re.findall(r"-?\d+", str(err)),
      f"The message must name the bad value {classes}: {err}")
    err = _raised(fn, torch.tensor([0, 2, 4, 1]), 3)
    h(isinstance(err, ValueError),
      "Labels [0, 2, 4, 1] with num_classes=3 must raise ValueError (4 is not a class of "
      f"3), got {err!r}: compare with num_classes, not with the example's 10.")
    err = _raised(fn, torch.tensor([0, 57, 99]), 100)
    h(err is None,
      f"Labels 0, 57, 99 with num_classes=100 are classes, yet: {err!r}. Compare with "
      "num_classes, not with the example's 10.")
    far = torch.zeros(1000 if seed is None else gen.randint(200, 3000), dtype=torch.long)
    far[-1] = classes + 2
    h(isinstance(_raised(fn, far, classes), ValueError),
      f"{len(far)} labels whose last one is {classes + 2} passed: check every label, not "
      "only the first ones.")
    err = _raised(fn, torch.tensor([0, -1, 3]), 10)
    h(isinstance(err, ValueError),
      "Negative labels are out of range too (checking only the maximum is not enough): "
      f"{err!r}.")
    err = _raised(fn, torch.tensor([3, 12, 0, -3, 12]), 5)
    named = {int(n) for n in re.findall(r"-?\d+", str(err))}
    h(isinstance(err, ValueError) and {12, -3} <= named,
      "Labels [3, 12, 0, -3, 12] with 5 classes: the message must name the bad values, "
      f"12 and -3, not only the range: {err!r}")
    for dtype in (torch.int32, torch.int16, torch.uint8):
        err = _raised(fn, good.to(dtype), classes)
        h(err is None,
          f"{dtype} labels 0..{classes - 1} are class indices too: {err!r}. Refuse "
          "floats, complex and booleans, not the other integer dtypes.")
    h(isinstance(_raised(fn, torch.tensor([0.0, 1.0]), 10), (TypeError, ValueError)),
      "Float labels are not class indices: refuse them.")
    h(isinstance(_raised(fn, torch.tensor([True, False]), 10), (TypeError, ValueError)),
      "Boolean labels are not class indices either (True < 10 holds): refuse them.")
    other = other_device()
    if other.type != "meta":  # meta tensors hold no values to check
        h(isinstance(_raised(fn, shifted.to(other), classes), ValueError),
          f"Labels on {other} must be checked too.")
    passed("good labels pass unchanged; out-of-range, float and bool labels do not, "
           "and the message names the bad values.")


# ------------------------------------------------------------------ exercise 4
def smoothed_loss(make: Callable, *, seed: int | None = None) -> None:
    """The open exercise's check (``device_loss.smoothed_loss``): ``make(class_counts)``
    returns the colleague's loss, repaired, the same numbers on any device."""
    from .device_loss import smoothed_loss as check  # its module uses the helpers above

    check(make, seed=seed)
