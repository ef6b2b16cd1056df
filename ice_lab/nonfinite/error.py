"""The error both NaN/Inf watchers raise, and the two checks they share."""

from __future__ import annotations

import cmath
import math
from typing import Any

import torch

from .._torch_compat import tree_leaves

__all__ = ["NonFiniteError"]  # is_finite, tensors: shared by modules.py and ops.py only


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
    Taught in the Numerics chapter (``book/numerics.ipynb``).
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
        if (
            not (t.is_floating_point() or t.is_complex())
            or t.layout is not _strided
            or t.is_meta
        ):
            return True
        value = (t.detach() if t.requires_grad else t).sum().item()
        if value.__class__ is float:
            if _isfinite(value):
                return True
        elif isinstance(value, complex) and cmath.isfinite(value):
            return True
        return bool(torch.isfinite(t.detach()).all())
    except Exception:
        return True


def tensors(obj: Any) -> list[torch.Tensor]:
    """The tensors in a module's or op's output (a tensor, a tuple, a list, a dict ...)."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)) and all(isinstance(x, torch.Tensor) for x in obj):
        return list(obj)
    try:
        return [x for x in tree_leaves(obj) if isinstance(x, torch.Tensor)]
    except Exception:
        return []
