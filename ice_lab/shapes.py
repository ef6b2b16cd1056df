"""What shape goes in and out of every layer? ``trace_shapes(model, batch)``.

It runs one dummy batch through a copy of the model and returns a table, one row per
module in call order: its path, input and output shapes, dtype, device and parameter
count. When a layer fails, the table stops there and names it. Taught in the Debugging
chapter (``book/debugging.ipynb``), used in the capstone lab (``labs/lab-capstone.ipynb``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from ._text import Report, error_line

__all__ = ["ShapeRow", "ShapeTrace", "trace_shapes"]


def _tensors(obj: Any) -> list[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _tensors(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors(item)]
    return []


def _shapes(obj: Any) -> str:
    shapes = [tuple(t.shape) for t in _tensors(obj)]
    return ", ".join(str(s) for s in shapes) if shapes else "-"


def dtype_name(t: torch.Tensor) -> str:
    return str(t.dtype).replace("torch.", "")


def _name(path: str, module: nn.Module) -> str:
    return f"{path or '<model>'} ({type(module).__name__})"



@dataclass
class ShapeRow:
    """One module call: where it sits, what went in and came out, its own parameters.
    Taught in the Debugging chapter (``book/debugging.ipynb``)."""

    path: str
    module: str
    inputs: str
    output: str = ""
    dtype: str = ""
    device: str = ""
    params: int = 0


@dataclass
class ShapeTrace(Report):
    """What ``trace_shapes`` saw: ``rows`` in call order; on failure, where and why.

    ``failed`` names the innermost module that raised (``"head.2 (Linear)"``), ``error`` is
    the exception, ``failed_module`` the module itself (its ``repr`` shows what it expects).
    ``ok`` is True when the whole forward pass ran. ``print(trace)`` shows the table.
    Taught in the Debugging chapter (``book/debugging.ipynb``).
    """

    rows: list[ShapeRow] = field(default_factory=list)
    failed: str | None = None
    failed_module: nn.Module | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def __str__(self) -> str:
        header = ShapeRow("module", "type", "input", "output", "dtype", "device", 0)
        table = [header, *self.rows]
        cols = ["path", "module", "inputs", "output", "dtype", "device"]
        widths = {c: max(len(getattr(r, c)) for r in table) for c in cols}
        lines = []
        for i, r in enumerate(table):
            params = "params" if i == 0 else str(r.params)
            cells = [getattr(r, c).ljust(widths[c]) for c in cols]
            lines.append("  ".join(cells + [params.rjust(7)]).rstrip())
        if self.error is not None:
            lines.append(f"FAILED in {self.failed}: {error_line(self.error)}")
            lines.append(f"  the failing module: {self.failed_module!r}")
        return "\n".join(lines)


def trace_shapes(model: nn.Module, batch: Any) -> ShapeTrace:
    """Run ``batch`` through a copy of ``model`` and record every module call.

    ``batch`` is a tensor (a tiny dummy batch, e.g. ``torch.zeros(2, 1, 8, 8)``)
    or a tuple of the model's positional arguments. The copy runs under ``no_grad`` in the
    model's current mode, so your model (its BatchNorm statistics included) and the random
    state are unchanged. Returns a :class:`ShapeTrace`; it never raises for an error inside
    the model: the table stops at the failing module, which ``failed`` names.

    Taught in the Debugging chapter (``book/debugging.ipynb``, "Shape debugging with a
    dummy input").
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"trace_shapes needs an nn.Module, got {type(model).__name__}.")
    args = tuple(batch) if isinstance(batch, (tuple, list)) else (batch,)
    if not _tensors(args):
        raise TypeError(
            "batch must be a tensor (or a tuple of the model's inputs), got "
            f"{type(batch).__name__}. Try a dummy batch such as torch.zeros(2, 1, 8, 8)."
        )
    twin = copy.deepcopy(model)
    trace, stack, handles = ShapeTrace(), [], []
    names = {id(m): n for n, m in twin.named_modules()}

    def before(module: nn.Module, inputs: Any) -> None:
        row = ShapeRow(names.get(id(module), "?"), type(module).__name__, _shapes(inputs))
        row.params = sum(p.numel() for p in module.parameters(recurse=False))
        trace.rows.append(row)
        stack.append((module, row))

    def after(module: nn.Module, inputs: Any, output: Any) -> None:
        _, row = stack.pop()
        row.output = _shapes(output)
        outs = _tensors(output)
        if outs:
            row.dtype = dtype_name(outs[0])
            row.device = str(outs[0].device)

    for module in twin.modules():
        handles.append(module.register_forward_pre_hook(before))
        handles.append(module.register_forward_hook(after))
    try:
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            twin(*args)
    except Exception as err:  # the table so far, and the module that raised
        trace.error = err
        if stack:
            module, row = stack[-1]
            row.output = "FAILED"
            trace.failed = _name(row.path, module)
            trace.failed_module = module
    finally:
        for h in handles:
            h.remove()
    for row in trace.rows:
        row.path = row.path or "<model>"
    return trace
