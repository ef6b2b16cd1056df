"""Where did memory go? A simulated budget and a per-step trace.

* ``MemoryBudget(limit)`` counts the bytes of tensor storage allocated inside a ``with``
  block — forward, backward, optimizer — credits them back when the storage is freed, and
  raises ``torch.OutOfMemoryError`` (clearly marked *simulated*) when the live bytes would
  pass the limit. So OOM lessons run on a laptop with no GPU.
* ``memory_trace()`` records memory once per training step (CUDA's own figures on a GPU,
  the budget's on CPU), fits the growth per step and plots it: a leak is a slope.
* ``estimate_peak`` and ``cap_gpu_memory`` answer "will it fit on the GPU?": they are
  ``ice_lab.gpu_memory``'s (imported from there or from ``ice_lab``), not this module's.
* ``memory_limit``, ``traced`` and ``peak_bytes`` run the same code under a limit, a trace
  or a peak measurement on a CPU (a budget) and on a GPU (CUDA's allocator).

Taught in the Devices chapter (``book/devices.ipynb``); shown on the toolkit page
(``book/toolkit.ipynb``). How the bytes are counted: ``ice_lab/_storage_tracker.py``.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any, Union

import torch

from ._storage_tracker import _Tracker, _TrackingMode
from ._args import check_int
from ._text import format_bytes

__all__ = ["MemoryBudget", "MemoryTrace", "memory_limit", "memory_trace", "parse_bytes",
           "peak_bytes", "traced"]

_UNITS = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}

Limit = Union[int, str, None]


def parse_bytes(limit: int | str) -> int:
    """Bytes from ``4096``, ``"64MiB"``, ``"64 MiB"``, ``"1.5GiB"`` or ``"512KB"``.

    KiB/MiB/GiB/TiB are binary (1 MiB = 1024**2 bytes); KB/MB/GB/TB are decimal
    (1 MB = 1000**2 bytes), as in PyTorch's and the operating system's reports. Letter case
    does not matter. Used by ``MemoryBudget``; taught in the Devices chapter
    (``book/devices.ipynb``).
    """
    if isinstance(limit, bool) or not isinstance(limit, (int, str)):
        raise TypeError(
            f"a memory size must be a number of bytes (int) or a string such as '64MiB', "
            f"got {type(limit).__name__} {limit!r}."
        )
    if isinstance(limit, int):
        value = limit
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", limit)
        unit = m.group(2).lower() if m else ""
        if not m or (unit and unit not in _UNITS):
            raise ValueError(
                f"cannot read the memory size {limit!r}: write bytes (4096) or a number with a unit, "
                "e.g. '64MiB', '1.5 GiB' (binary: KiB, MiB, GiB) or '512KB', '2GB' (decimal)."
            )
        value = math.floor(float(m.group(1)) * _UNITS[unit or "b"])
    if value <= 0:
        raise ValueError(f"a memory size must be positive, got {limit!r}.")
    return value



# ---------------------------------------------------------------------------------------
# MemoryBudget
# ---------------------------------------------------------------------------------------


class MemoryBudget:
    """Count (and optionally cap) the tensor storage allocated inside a ``with`` block.

    Usage::

        budget = ice_lab.MemoryBudget("64MiB")
        with budget:
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        print(budget.live, budget.peak)   # bytes

    Every tensor storage created inside the block is counted — activations, tensors saved
    for backward, gradients, optimizer state — and credited back when it is freed. What a
    Python list or an autograd graph still references stays counted (so a leak shows as
    ``live`` growing step after step; the Devices chapter's section "The leak" shows one).
    Autograd graph nodes themselves are not tensor storage and are not counted. Storage
    that existed before the block (the model's parameters, a batch made outside) is not
    counted; in-place updates of it are free.

    Args:
        limit: bytes (``int``) or a string such as ``"64MiB"``, ``"1.5 GiB"``, ``"512KB"``
            (KiB/MiB/GiB binary, KB/MB/GB decimal); ``None`` only tracks.

    Attributes: ``live`` and ``peak`` (bytes), ``limit`` (bytes or None), ``requested`` (the
    size of the allocation that went over the limit, else None).

    Over the limit the op that allocated raises ``torch.OutOfMemoryError`` ("Simulated out
    of memory (ice_lab.MemoryBudget): tried to allocate X; N live; limit M ..."). Like a
    real OOM it is recoverable: catch it, free something, and enter the budget again —
    ``live`` is still right. One budget can be entered again after it exits (the count
    continues), but not twice at once. ``reset_peak()`` starts a new peak measurement.
    Works for tensors on any device (the count is of storage bytes, not of the device's
    allocator); on a GPU, ``torch.cuda.memory_allocated`` is the real figure.

    Taught in the Devices chapter (``book/devices.ipynb``); shown on the toolkit page
    (``book/toolkit.ipynb``).
    """

    def __init__(self, limit: Limit = None) -> None:
        self.limit: int | None = None if limit is None else parse_bytes(limit)
        self._tracker = _Tracker(self.limit)
        self._mode: _TrackingMode | None = None

    @property
    def live(self) -> int:
        """Bytes of storage allocated inside the budget and still alive."""
        return self._tracker.live

    @property
    def peak(self) -> int:
        """The most bytes that were live at once (since creation or ``reset_peak()``)."""
        return self._tracker.peak

    @property
    def requested(self) -> int | None:
        """Size of the last allocation that went over the limit (None if none did)."""
        return self._tracker.requested

    def reset_peak(self) -> None:
        """Start a new peak measurement from the current live bytes."""
        self._tracker.peak = self._tracker.live

    def __enter__(self) -> "MemoryBudget":
        if self._mode is not None:
            raise RuntimeError(
                "this MemoryBudget is already active: a budget cannot be entered twice at once. "
                "Use one `with budget:` block (or a second MemoryBudget to measure a part)."
            )
        mode = _TrackingMode(self._tracker)
        mode.__enter__()
        self._mode = mode
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        mode, self._mode = self._mode, None
        if mode is not None:
            mode.__exit__(exc_type, exc, tb)

    def __repr__(self) -> str:
        limit = "None" if self.limit is None else format_bytes(self.limit)
        return f"MemoryBudget(limit={limit}, live={format_bytes(self.live)}, peak={format_bytes(self.peak)})"


# ---------------------------------------------------------------------------------------
# memory_trace
# ---------------------------------------------------------------------------------------


class MemoryTrace:
    """Memory recorded once per step: made by ``memory_trace()``, which documents it.

    Taught in the Devices chapter (``book/devices.ipynb``).
    """

    def __init__(self, budget: MemoryBudget | None = None) -> None:
        if budget is not None and not isinstance(budget, MemoryBudget):
            raise TypeError(
                f"memory_trace() takes an ice_lab.MemoryBudget (or nothing on a CUDA machine), "
                f"got {type(budget).__name__}."
            )
        if budget is None and not torch.cuda.is_available():
            raise RuntimeError(
                "memory_trace() without a budget reads torch.cuda.memory_allocated, and there is no "
                "CUDA device here. On CPU, count with a budget: budget = ice_lab.MemoryBudget(None); "
                "trace = ice_lab.memory_trace(budget), and run the steps inside `with budget:`."
            )
        self.budget = budget
        self.steps: list[int] = []
        self.allocated: list[int] = []
        self.reserved: list[int] | None = None if budget is not None else []

    @property
    def source(self) -> str:
        return "MemoryBudget (simulated, CPU)" if self.budget is not None else "torch.cuda.memory_allocated"

    def record(self, step: int | None = None) -> int:
        """Append the current allocated bytes (and reserved, on CUDA) for ``step``; returns them."""
        if step is None:
            step = self.steps[-1] + 1 if self.steps else 0
        step = check_int("step", step, 0)  # or omitted: the next step
        if self.budget is not None:
            allocated = self.budget.live
        else:
            allocated = int(torch.cuda.memory_allocated())
            assert self.reserved is not None
            self.reserved.append(int(torch.cuda.memory_reserved()))
        self.steps.append(step)
        self.allocated.append(allocated)
        return allocated

    def growth_per_step(self) -> float:
        """Least-squares slope of allocated bytes against step: ~0 when flat, > 0 for a leak."""
        n = len(self.steps)
        if n < 2:
            raise ValueError(f"growth_per_step() needs at least two records, got {n}: call record() once per step.")
        mx = sum(self.steps) / n
        my = sum(self.allocated) / n
        sxx = sum((x - mx) ** 2 for x in self.steps)
        if sxx == 0:
            raise ValueError("growth_per_step() needs records at two different steps.")
        return sum((x - mx) * (y - my) for x, y in zip(self.steps, self.allocated)) / sxx

    def plot(self, ax: Any = None, title: str | None = None) -> Any:
        """Plot allocated (and reserved) MiB per step with matplotlib; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        mib = 2**20
        ax.plot(self.steps, [a / mib for a in self.allocated], marker="o", ms=3, label="allocated")
        if self.reserved:
            ax.plot(self.steps, [r / mib for r in self.reserved], marker=".", ms=3, label="reserved")
        ax.set_xlabel("step")
        ax.set_ylabel("MiB")
        if len(self.steps) >= 2:
            default = f"memory per step ({format_bytes(self.growth_per_step())}/step)"
        else:
            default = "memory per step"
        ax.set_title(title if title is not None else default)
        ax.legend(title=self.source, fontsize="small", title_fontsize="small")
        ax.grid(alpha=0.3)
        return ax

    def __repr__(self) -> str:
        return f"MemoryTrace({len(self.steps)} records from {self.source})"


def memory_trace(budget: MemoryBudget | None = None) -> MemoryTrace:
    """Start a per-step memory record: call ``.record()`` once per training step.

    On CUDA (no budget given) it records ``torch.cuda.memory_allocated`` and
    ``memory_reserved``; with a ``MemoryBudget`` it records ``budget.live`` (run the steps
    inside ``with budget:``). On a machine without CUDA a budget is required (a clear
    ``RuntimeError`` says so). ``.steps``, ``.allocated``, ``.reserved`` (None with a
    budget) hold the records; ``.growth_per_step()`` is the least-squares slope in
    bytes/step (a leak is a positive slope); ``.plot(ax=None, title=None)`` draws it and
    returns the matplotlib Axes.

    Taught in the Devices chapter (``book/devices.ipynb``); shown on the toolkit page
    (``book/toolkit.ipynb``).
    """
    return MemoryTrace(budget)


# ---------------------------------------------------------------------------------------
# memory_limit, traced, peak_bytes: the same code on a CPU and on a GPU
# ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def memory_limit(mib: float, *, gpu_scale: float = 1.0) -> Iterator[Any]:
    """At most ``mib`` MiB of new tensor memory inside the ``with`` block, else
    ``torch.OutOfMemoryError``, on whatever machine runs it.

    Without CUDA it is ``MemoryBudget(mib MiB)``, simulated, and the block gets the budget
    (``.live``, ``.peak``). With CUDA it is a real cap (``cap_gpu_memory``) at what is
    reserved now plus ``mib * gpu_scale`` MiB; the block gets the cap. CUDA's caching
    allocator reserves memory in blocks of 2 MiB and 20 MiB, which blur a limit of a few
    MiB: a lab that makes its data ``gpu_scale`` times larger on a GPU scales its limits
    with it.

    Used by the out-of-memory lab (``labs/lab-oom.ipynb``; chapter: Devices,
    ``book/devices.ipynb``).
    """
    if not torch.cuda.is_available():
        with MemoryBudget(max(1, int(mib * 2**20))) as budget:
            yield budget
        return
    from .gpu_memory import cap_gpu_memory

    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    with cap_gpu_memory((torch.cuda.memory_reserved() + mib * gpu_scale * 2**20) / 2**30) as cap:
        yield cap


@contextlib.contextmanager
def traced(limit_mib: float | None = None, *, gpu_scale: float = 1.0) -> Iterator[MemoryTrace]:
    """A ``memory_trace`` for the ``with`` block, under ``memory_limit(limit_mib)`` if given:
    call ``.record(step)`` once per step inside it. Without CUDA it records the live bytes
    of a ``MemoryBudget`` around the block; with CUDA, ``torch.cuda.memory_allocated``.

    Used by the out-of-memory lab (``labs/lab-oom.ipynb``; chapter: Devices,
    ``book/devices.ipynb``).
    """
    if limit_mib is not None:
        with memory_limit(limit_mib, gpu_scale=gpu_scale) as limit:
            yield memory_trace(limit if isinstance(limit, MemoryBudget) else None)
    elif torch.cuda.is_available():
        yield memory_trace()
    else:
        with MemoryBudget(None) as budget:
            yield memory_trace(budget)


def peak_bytes(fn: Callable[[], object]) -> int:
    """The peak bytes of tensor memory allocated while ``fn()`` runs (above what was
    allocated before): CUDA's own peak with CUDA, else a ``MemoryBudget``'s.

    Used by the out-of-memory lab (``labs/lab-oom.ipynb``; chapter: Devices,
    ``book/devices.ipynb``).
    """
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start = torch.cuda.memory_allocated()
        fn()
        torch.cuda.synchronize()
        return int(torch.cuda.max_memory_allocated() - start)
    with MemoryBudget(None) as budget:
        fn()
    return budget.peak
