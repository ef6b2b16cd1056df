"""The error both NaN/Inf watchers raise, and the two checks they share (the chapter
Finding where NaN starts, ``book/nonfinite.ipynb``)."""

from __future__ import annotations

import cmath
import math
from typing import Any, Sequence

import torch

from .._torch_compat import tree_leaves

__all__ = ["NonFiniteError"]  # is_finite, finite, tensors: shared by modules.py and ops.py only


class NonFiniteError(RuntimeError):
    """NaN or Inf found by ``watch_nonfinite`` or ``watch_nonfinite_ops``.

    Attributes:
        where: the module (``"net.2 (Linear)"``) or aten op (``"aten.log.default"``).
        phase: ``"forward"``, ``"backward"`` (module watcher) or ``"op"`` (op-level mode).
        tensor_summary: ``summary()`` of the offending tensor.

    The message's first line says where (``"non-finite values (NaN/Inf) in the forward
    output of net.2 (Linear)"``; ``ice_lab.explain`` files it under kind ``nonfinite``);
    the tensor's summary follows on the next line, then what to look at. The first line
    holds no measured value, so a notebook that quotes it prints the same on every CPU.
    Taught in the chapter Finding where NaN starts (``book/nonfinite.ipynb``).
    """

    def __init__(
        self, message: str, *, where: str = "", phase: str = "", tensor_summary: str = ""
    ) -> None:
        super().__init__(message)
        self.where = where
        self.phase = phase
        self.tensor_summary = tensor_summary

    def __reduce__(self) -> Any:  # picklable (DataLoader workers, child processes)
        return (_rebuild, (type(self), str(self), self.where, self.phase, self.tensor_summary))


def _rebuild(
    cls: type, message: str, where: str, phase: str, tensor_summary: str
) -> NonFiniteError:
    return cls(message, where=where, phase=phase, tensor_summary=tensor_summary)


_isfinite = math.isfinite
_strided = torch.strided


def is_finite(t: torch.Tensor) -> bool:
    """True unless ``t`` holds a NaN/Inf. Cheap: one reduction, one scalar read.

    A sum is finite whenever every element is; only when the sum is not (overflow, or a
    real NaN/Inf) is the exact element-wise test run. Tensors without values (meta, fake,
    sparse, wrapped by functorch transforms) count as finite: the watcher never breaks code.
    """
    try:
        if t.layout is not _strided or not (t.is_floating_point() or t.is_complex()):
            return True
        if t.requires_grad:
            t = t.detach()
        value = t.sum().item()  # raises for meta tensors and functorch wrappers
        if value.__class__ is float:
            if _isfinite(value):
                return True
        elif isinstance(value, complex) and cmath.isfinite(value):
            return True
        return bool(torch.isfinite(t).all())
    except Exception:
        return True


def finite(t: torch.Tensor) -> bool:
    """The watchers' hot-path test: ``is_finite`` with the least work per call.

    One reduction and one scalar read, no other attribute reads: an integer or bool sum
    is always finite, and anything unusual (a complex or non-finite sum, a tensor
    without values) goes on to :func:`is_finite`. ``t`` must not require grad (the
    caller detaches), so that the sum builds no graph.
    """
    try:
        value = t.sum().item()
    except Exception:
        return is_finite(t)
    cls = value.__class__
    if cls is float:
        if _isfinite(value):
            return True
    elif cls is int or cls is bool:
        return True
    return is_finite(t)


_Tensor = torch.Tensor


def tensors(obj: Any) -> Sequence[torch.Tensor]:
    """The tensors in a module's or op's output (a tensor, a tuple, a list, a dict ...)."""
    if isinstance(obj, _Tensor):
        return (obj,)
    if obj.__class__ is tuple or obj.__class__ is list:
        for x in obj:
            if not isinstance(x, _Tensor):
                break
        else:
            return obj
    try:
        return [x for x in tree_leaves(obj) if isinstance(x, _Tensor)]
    except Exception:
        return []
