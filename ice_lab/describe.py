"""One line that says what a tensor holds: shape, dtype, device, grad state and statistics.

``summary(t)`` is what you print when a loss turns into ``nan``: the statistics are taken
over the *finite* values only, and the NaN / +Inf / -Inf counts are shouted separately, so
a single bad value cannot hide the rest. Taught in the chapter Finding where NaN starts
(``book/nonfinite.ipynb``); shown on the toolkit page (``book/toolkit.ipynb``).

    >>> import torch
    >>> from ice_lab import summary
    >>> print(summary(torch.tensor([1.0, float("nan"), 3.0, float("inf")])))
    tensor[4] float32 cpu no-grad finite=2/4 min=1 max=3 mean=2 std=1.414 NaN=1! +Inf=1! -inf=0

It never copies a large tensor to the CPU and never builds a full-size mask: the
reductions run on the tensor's own device, chunk by chunk, and only a handful of scalars
come back.
"""

from __future__ import annotations

import math
from typing import Iterator

import torch

from ._text import error_line
from ._torch_compat import no_dispatch_modes, sparse_values

__all__ = ["summary"]


# Elements per chunk: temporaries stay below ~40 MB whatever the tensor's size.
_CHUNK = 1 << 21


def _shape(t: torch.Tensor) -> str:
    return "tensor[" + ", ".join(str(d) for d in t.shape) + "]"


def _dtype(t: torch.Tensor) -> str:
    return str(t.dtype).replace("torch.", "")


def _grad_state(t: torch.Tensor) -> str:
    if t.grad_fn is not None:
        return f"grad_fn={type(t.grad_fn).__name__}"
    if t.requires_grad:
        return "requires_grad (leaf)"
    return "no-grad"


def _fmt(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.4g}"


def _blocks(t: torch.Tensor, limit: int) -> Iterator[torch.Tensor]:
    """Flat pieces of ``t`` of at most ``limit`` elements, copying at most one piece at a time."""
    if t.numel() <= limit:
        yield t.reshape(-1)
        return
    if t.is_contiguous():
        flat = t.view(-1)
        for start in range(0, flat.numel(), limit):
            yield flat[start : start + limit]
        return
    rows = t.shape[0]
    per_row = t.numel() // rows
    if per_row <= limit:
        step = max(1, limit // per_row)
        for start in range(0, rows, step):
            yield t[start : start + step].reshape(-1)
    else:
        for i in range(rows):
            yield from _blocks(t[i], limit)


def _stats(t: torch.Tensor) -> str:
    """Statistics of a strided tensor with values; may raise (the caller catches)."""
    n = t.numel()
    is_float = t.is_floating_point()
    is_complex = t.is_complex()
    acc = torch.float32 if t.device.type == "mps" else torch.float64
    zero = torch.zeros((), dtype=acc, device=t.device)
    count = torch.zeros((), dtype=torch.int64, device=t.device)
    nan = count.clone()
    pinf = count.clone()
    ninf = count.clone()
    total = zero.clone()
    lo = torch.full((), math.inf, dtype=acc, device=t.device)
    hi = torch.full((), -math.inf, dtype=acc, device=t.device)

    def values(block: torch.Tensor) -> torch.Tensor:
        if is_complex:
            return block.abs().to(acc)  # |z|; NaN if either part is NaN, Inf if either is Inf
        return block.to(acc)

    # Pass 1: counts, sum, min, max over the finite values.
    for block in _blocks(t, _CHUNK):
        v = values(block)
        if is_float or is_complex:
            finite = torch.isfinite(v)
            nan += torch.isnan(v).sum()
            if is_complex:
                pinf += torch.isinf(v).sum()
            else:
                pinf += (v == math.inf).sum()
                ninf += (v == -math.inf).sum()
            count += finite.sum()
            total += torch.where(finite, v, zero).sum()
            lo = torch.minimum(lo, torch.where(finite, v, lo).min())
            hi = torch.maximum(hi, torch.where(finite, v, hi).max())
        else:
            count += v.numel()
            total += v.sum()
            lo = torch.minimum(lo, v.min())
            hi = torch.maximum(hi, v.max())
    mean = total / count.clamp(min=1)
    # Pass 2: squared deviations from the mean (stable, unlike sum of squares).
    sq = zero.clone()
    for block in _blocks(t, _CHUNK):
        v = values(block)
        d = v - mean
        if is_float or is_complex:
            d = torch.where(torch.isfinite(v), d, zero)
        sq += (d * d).sum()
    figures = torch.stack([count.to(acc), total, lo, hi, mean, sq, nan.to(acc), pinf.to(acc), ninf.to(acc)])
    c, _, lo_, hi_, mean_, sq_, nan_, pinf_, ninf_ = (float(x) for x in figures.tolist())
    c_i = int(c)
    parts: list[str] = []
    if is_complex:
        parts.append("|z|:")
    if (is_float or is_complex) and c_i < n:
        parts.append(f"finite={c_i}/{n}")
    if c_i == 0:
        parts.append("no finite values")
    elif c_i == 1:
        # One value has no spread: a "std=nan" here would read as a NaN in the data.
        parts.append(f"value={_fmt(mean_)}")
    else:
        std = math.sqrt(sq_ / (c_i - 1))
        parts.append(f"min={_fmt(lo_)} max={_fmt(hi_)} mean={_fmt(mean_)} std={_fmt(std)}")
    if is_float:
        parts.append(_count("NaN", nan_) + " " + _count("+Inf", pinf_) + " " + _count("-Inf", ninf_))
    elif is_complex:
        parts.append(_count("NaN", nan_) + " " + _count("Inf", pinf_))
    return " ".join(parts)


def _count(name: str, value: float) -> str:
    """A shouted count when non-zero (``NaN=3!``), a quiet one otherwise (``nan=0``)."""
    k = int(value)
    return f"{name}={k}!" if k else f"{name.lower()}=0"


def summary(t: torch.Tensor) -> str:
    """One line describing ``t``: shape, dtype, device, grad state and statistics.

    ``min``/``max``/``mean``/``std`` are computed over the finite values only; the counts
    of NaN, +Inf and -Inf follow, in capitals with ``!`` when non-zero
    (``NaN=3! +inf=0 -Inf=1!``). ``finite=k/n`` appears when some values are not finite.
    Integer and bool tensors get the same statistics (``mean`` of a bool tensor is the
    fraction of ``True``); complex tensors are summarised by their magnitude ``|z|``.
    Meta tensors have no values, sparse tensors are summarised by their stored values, and
    an empty tensor says so.

    Safe on huge and on GPU tensors: the reductions run on the tensor's own device, chunk
    by chunk, and only a few scalars are copied back, so ``summary`` cannot itself run out
    of memory. It never raises for a tensor (a statistic it cannot compute is reported as
    unavailable); anything that is not a tensor gets a ``TypeError``.

    Taught in the chapter Finding where NaN starts (``book/nonfinite.ipynb``); shown on the
    toolkit page (``book/toolkit.ipynb``).
    """
    if not isinstance(t, torch.Tensor):
        raise TypeError(
            f"summary() needs a torch.Tensor, got {type(t).__name__}. "
            "Convert first, e.g. summary(torch.as_tensor(x))."
        )
    try:
        head = f"{_shape(t)} {_dtype(t)} {t.device} {_grad_state(t)}"
    except Exception as err:  # pragma: no cover - exotic tensor subclasses
        return f"tensor ({type(t).__name__}; description unavailable: {type(err).__name__})"
    try:
        # Outside any dispatch mode: summary's own temporaries must not trip
        # watch_nonfinite_ops (it builds +/-inf fill values) nor count in a MemoryBudget.
        with no_dispatch_modes(), torch.no_grad():
            return head + " " + _values_part(t)
    except Exception as err:
        return f"{head} (statistics unavailable: {error_line(err)})"


def _values_part(t: torch.Tensor) -> str:
    if t.device.type == "meta":
        return "meta (shape only, no values)"
    if t.layout != torch.strided:
        layout = str(t.layout).replace("torch.", "")
        if t.layout == torch.sparse_coo:
            vals = sparse_values(t)
        elif t.layout in (torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc):
            vals = t.values()
        else:
            return f"{layout} layout (no statistics)"
        if vals.numel() == 0:
            return f"{layout} nnz=0 (no stored values)"
        return f"{layout} nnz={vals.numel()} stored values: " + _stats(vals)
    if t.is_quantized:
        return "quantized: " + _stats(t.dequantize())
    if t.numel() == 0:
        return "empty"
    return _stats(t)
