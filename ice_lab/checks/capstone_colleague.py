"""Checks of ``labs/lab-capstone.ipynb`` (chapter: Debugging), bugs 9 and 10, the two
modules of the colleague's improvement (``AddCoords``, ``Residual``), and the final run
of the whole script. Bugs 1 to 5: ``capstone.py``; bug 6: ``capstone_training.py``;
bugs 7 and 8: ``capstone_eval.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

import ice_lab

from ._core import Hints, attempt, need_callable, passed, quote

_coords = Hints("AddCoords")
_residual = Hints("Residual")
_final = Hints("the final run")


def _coords_reference(x: torch.Tensor) -> torch.Tensor:
    """What the colleague's AddCoords computes on the CPU."""
    n, _, hh, ww = x.shape
    rows = torch.linspace(-1, 1, hh).view(1, 1, hh, 1).expand(n, 1, hh, ww)
    cols = torch.linspace(-1, 1, ww).view(1, 1, 1, ww).expand(n, 1, hh, ww)
    return torch.cat([x, rows, cols], dim=1)


def add_coords(cls: Callable[[], nn.Module], other: torch.device, *,
               seed: int | None = None) -> None:
    """Bug 9: ``cls()(x)`` appends each pixel's row and column (from -1 to 1) to x's
    channels, for images of any size, on the CPU and on ``other`` (a GPU, or meta)."""
    need_callable(cls, "AddCoords")
    h = _coords.require
    other = torch.device(other)
    if seed is None:
        cases = [torch.rand(4, 1, 8, 8), torch.rand(3, 2, 5, 7), torch.rand(1, 1, 6, 3)]
        moved_cases = cases[:2]
    else:
        gen = torch.Generator().manual_seed(seed)
        cases = [torch.rand(int(torch.randint(1, 9, (1,), generator=gen)),
                            int(torch.randint(1, 4, (1,), generator=gen)),
                            *torch.randint(2, 12, (2,), generator=gen).tolist(),
                            generator=gen) for _ in range(3)]
        moved_cases = cases
    refs = [_coords_reference(x) for x in cases]
    outs, error = [], ""
    for x in cases:
        out, error = attempt(lambda: cls()(x))
        if error:
            break
        outs.append(out)
    devicey = any(w in error.lower() for w in ("device", "cuda", "nvidia", "gpu"))
    h(not devicey,
      f"AddCoords fails on a batch on the CPU ({error}): a device written into the "
      "code ('cuda', best_device(), OTHER) is where this lab runs, not where x is.")
    h("StopIteration" not in error,
      f"AddCoords fails ({error}): it has no parameters, so next(self.parameters()) "
      "finds none.")
    sized = any(w in error for w in ("size", "shape", "view", "dimension"))
    h(not (error and sized),
      f"AddCoords fails on a batch of shape {tuple(x.shape)} ({error}): the sizes of "
      "the lab's 8x8 digits are written into it; other images have other sizes.")
    h(not error, f"AddCoords fails on a batch of shape {tuple(x.shape)} ({error}). The "
      "check could not tell what went wrong.")
    h(all(isinstance(o, torch.Tensor) for o in outs), "AddCoords returns a tensor.")
    h(all(tuple(o.shape) == tuple(r.shape) for o, r in zip(outs, refs)),
      f"AddCoords turns {[tuple(x.shape) for x in cases]} into "
      f"{[tuple(o.shape) for o in outs]}: it appends two channels to x's, rows then "
      "columns, for images of any size (a grid made for 8x8 only fits 8x8).")
    h(all(torch.allclose(o, r) for o, r in zip(outs, refs)),
      "On the CPU AddCoords now computes other values than the colleague's: keep x's "
      "channels, then each pixel's row, then its column, each from -1 to 1.")
    moved, error = [], ""
    for x in moved_cases:
        out, error = attempt(lambda: cls()(x.to(other)))
        if error:
            break
        moved.append(out)
    h("copy out of meta" not in error,
      f"AddCoords fails on {other.type} ({error}): it copies x to the CPU, and a meta "
      "tensor has no data to copy. On a GPU, moving x to the CPU hides the error and "
      "hands the next layer, on the GPU, a CPU tensor.")
    h(not error,
      f"AddCoords still fails on {other.type} ({error}): a tensor it makes must be "
      "made where x is, whatever device that is, not on a device chosen in advance "
      "(best_device() is where run() trains, not where x is).", kind="device",
      more="9.3 Diagnose: which tensors does forward make, and where does a tensor go "
      "when nobody says?")
    h(all(isinstance(o, torch.Tensor) and o.device.type == other.type for o in moved),
      f"x was on {other.type}, the output is on "
      f"{sorted({getattr(o, 'device', torch.device('cpu')).type for o in moved})}: "
      "moving x to the CPU hides the error, and the next layer, on the device, gets a "
      "CPU tensor.")
    h(other.type == "meta" or all(torch.allclose(o.cpu(), r) for o, r in
                                  zip(moved, refs)),
      f"On {other.type} AddCoords computes other values than on the CPU.")
    passed(f"AddCoords runs on the CPU and on {other.type}, "
           f"{len(cases)} image sizes.")


def _residual_cases(seed: int | None) -> list[tuple[int, torch.Tensor]]:
    if seed is None:
        ice_lab.set_seed(10)
        return [(32, torch.randn(6, 32, 4, 4)), (5, torch.randn(3, 5, 6, 7))]
    gen = torch.Generator().manual_seed(seed)
    cases = []
    for _ in range(3):
        c = int(torch.randint(1, 20, (1,), generator=gen))
        shape = (int(torch.randint(2, 9, (1,), generator=gen)), c,
                 *torch.randint(2, 9, (2,), generator=gen).tolist())
        cases.append((c, torch.randn(*shape, generator=gen)))
    ice_lab.set_seed(seed)
    return cases


def residual(cls: Callable[[int], nn.Module], *, seed: int | None = None) -> None:
    """Bug 10: ``cls(channels)`` computes the colleague's ``relu(bn(conv(x))) + x``,
    with a backward pass that works and gives every weight, and the input, its true
    gradient, without changing its input."""
    need_callable(cls, "Residual")
    h = _residual.require
    # per case: the learner's block (its layers read by the colleague's names), the
    # input before the sigmoid, the output, the gradients of the input and the weights
    results: list[tuple[Any, torch.Tensor, torch.Tensor, tuple]] = []
    error, raw, block, kept = "", "", None, True
    for c, z in _residual_cases(seed):
        try:
            block = cls(c)
            z = z.clone().requires_grad_()
            x = torch.sigmoid(z)  # the block's input, which sigmoid saved
            out = block(x)
            kept = torch.equal(x.detach(), torch.sigmoid(z.detach()))
            grads = torch.autograd.grad(out.square().sum(), [z, *block.parameters()],
                                        allow_unused=True)
            results.append((block, z, out.detach(), grads))
        except Exception as err:  # the learner's error is quoted in the hint
            error, raw = quote(err), str(err)
            break
    h(kept,
      "x, the block's input, was changed in place (x += h, x.add_(...)): the layer "
      "before saved it for its own backward, and the caller's tensor is overwritten.")
    h("inplace" not in raw or getattr(getattr(block, "relu", None), "inplace", True),
      f"backward still fails ({error}): inplace=False on the ReLU is not enough. "
      "h += x is in place too, and it changes the output the ReLU saved.")
    h("inplace" not in raw,
      f"backward still fails ({error}): h, the ReLU's output, which its backward "
      "needs, is still changed in place (+=, add_, or an in-place op under "
      "torch.no_grad(), which bumps the version just the same).", kind="inplace",
      more="10.2's message names the tensor and its versions; read forward for "
      "every operation that writes into an existing tensor.")
    h(not error, f"Residual fails ({error}). The check could not tell what went "
      "wrong: keep the layers conv, bn and relu.")
    expected = []
    for block, z, _, _ in results:
        try:
            x = torch.sigmoid(z)
            hid = F.relu(block.bn(block.conv(x)))
            ref = hid + x
            before = F.relu(block.bn(block.conv(x)) + x)
            ref_grads = torch.autograd.grad(ref.square().sum(), [z, *block.parameters()])
        except Exception as err:  # the learner's layers are quoted in the hint
            _residual.fail(f"The check cannot run the block's layers ({quote(err)}): "
                           "keep conv, bn and relu as the colleague named them.")
        expected.append((ref.detach(), hid.detach(), before.detach(), ref_grads))
    outs = [(r[2], e) for r, e in zip(results, expected)]
    h(not all(torch.allclose(o, e[1], atol=1e-5) for o, e in outs),
      "The skip connection is gone: dropping it avoids the error but changes the "
      "model.")
    h(not all(torch.allclose(o, e[2], atol=1e-5) for o, e in outs),
      "x is added before the ReLU: that is another block than the colleague's.")
    h(all(torch.allclose(o, e[0], atol=1e-5) for o, e in outs),
      "Residual computes another function than the colleague's, relu(bn(conv(x))) + x.")
    h(all(g is not None for *_, grads in results for g in grads),
      "Some weights get no gradient: h.detach() or h.data hides the error by cutting "
      "the convolution and BatchNorm out of the graph.")
    h(all(torch.allclose(g, r, atol=1e-4) for (*_, grads), e in zip(results, expected)
          for g, r in zip(grads[1:], e[3][1:])),
      "The gradients are wrong: changing h through .data silences the version check, "
      "and the ReLU's backward then reads the changed values.")
    h(all(torch.allclose(grads[0], e[3][0], atol=1e-4)
          for (*_, grads), e in zip(results, expected)),
      "The weights get their true gradients, the input does not: the skip must carry "
      "the gradient back to x (x.detach() in the sum cuts it).")
    passed(f"the same block on {len(results)} shapes, and backward works, with the "
           "true gradients.")


def final(history: Any, *, seed: int | None = None) -> None:
    """The whole script: ``history`` (what ``run()`` returned) holds at least 97% test
    accuracy. ``seed`` is accepted for the graded copy; the run itself is the lab's."""
    h = _final.require
    accuracy, error = attempt(lambda: float(history["test_accuracy"]))
    h(not error, f"The script did not finish ({error}): every function above must run.")
    h(accuracy >= 0.97,
      f"Test accuracy {accuracy:.1%}, the target is 97%. More epochs do not fix a bug: "
      "rerun the checks above, one per function.")
    passed("at least 97% test accuracy.")
