"""Where memory goes: a simulated budget, a per-step trace, a dry-run peak and a GPU cap.

* ``MemoryBudget(limit)`` counts the bytes of tensor storage allocated inside a ``with``
  block — forward, backward, optimizer — credits them back when the storage is freed, and
  raises ``torch.OutOfMemoryError`` (clearly marked *simulated*) when the live bytes would
  pass the limit. So OOM lessons run on a laptop with no GPU.
* ``memory_trace()`` records memory once per training step (CUDA's own figures on a GPU,
  the budget's on CPU), fits the growth per step and plots it: a leak is a slope.
* ``estimate_peak(model, batch, loss_fn, optimizer)`` runs one training step on the
  ``meta`` device, where tensors have shapes but no data, and returns its peak bytes
  without allocating them.
* ``cap_gpu_memory(gib)`` caps this process's share of a real GPU, so a real CUDA OOM
  comes in seconds on a large card.

Taught in the Devices chapter (``book/devices.ipynb``); shown on the toolkit page
(``book/toolkit.ipynb``).

How the counting works: a ``TorchDispatchMode`` sees every aten op (also the ones the
autograd engine and the optimizer run). A tensor an op returns whose storage is neither
tracked already nor shared with one of the op's inputs is a new allocation; its bytes are
added, and a ``weakref.finalize`` on the storage object (PyTorch keeps one Python object per
storage for the storage's whole life) subtracts them when the last tensor, view or saved
tensor of the autograd graph using it is gone. Scratch buffers that a kernel allocates and
frees internally are not seen: the figures are tensor storage, not allocator totals.
"""

from __future__ import annotations

import copy
import math
import re
import weakref
from types import TracebackType
from typing import Any, Callable, Union

import torch
from torch import nn
from ._text import first_line, format_bytes  # format_bytes re-exported: ice_lab.memory.format_bytes
from ._torch_compat import TorchDispatchMode, aten_op, storage_key, tree_leaves, tree_map

__all__ = ["MemoryBudget", "MemoryTrace", "memory_trace", "estimate_peak", "cap_gpu_memory", "parse_bytes", "format_bytes"]

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
# The storage tracker shared by MemoryBudget and estimate_peak.
# ---------------------------------------------------------------------------------------


def _storage(t: torch.Tensor) -> Any:
    try:
        return t.untyped_storage()
    except Exception:  # sparse, nested or wrapper tensors: no single storage to count
        return None


class _Tracker:
    """Live and peak bytes of the storages first seen as a new op output."""

    def __init__(self, limit: int | None, count_meta: bool = False) -> None:
        self.limit = limit
        self.count_meta = count_meta  # meta storages hold no memory: only estimate_peak counts them
        self.live = 0
        self.peak = 0
        self.requested: int | None = None
        self.sizes: dict[int, int] = {}  # StorageImpl address -> bytes counted
        self._refs: dict[int, weakref.ref] = {}  # ... -> weak reference whose callback credits it

    def _freed(self, key: int) -> None:
        self.live -= self.sizes.pop(key, 0)
        self._refs.pop(key, None)

    def _grow(self, nbytes: int, device: torch.device) -> None:
        if self.limit is not None and self.live + nbytes > self.limit:
            self.requested = nbytes
            where = "the CPU" if device.type == "cpu" else str(device)
            raise torch.OutOfMemoryError(
                f"Simulated out of memory (ice_lab.MemoryBudget): tried to allocate "
                f"{format_bytes(nbytes)}; {format_bytes(self.live)} live; limit {format_bytes(self.limit)}. "
                f"This is a simulated budget on {where}, not a real allocator failure: free "
                "what you no longer need (del, .item(), .detach()), use a smaller batch, or raise the limit."
            )
        self.live += nbytes
        self.peak = max(self.peak, self.live)

    def observe(self, out: Any, args: Any, kwargs: Any, fresh_inputs: bool = False) -> None:
        if isinstance(out, torch.Tensor):
            outputs = [out]
        elif isinstance(out, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in out):
            outputs = list(out)
        else:
            outputs = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
        inputs: set[int] | None = set() if fresh_inputs else None  # computed only when needed
        for t in outputs:
            s = _storage(t)
            if s is None:
                continue
            key, nbytes = storage_key(s), s.nbytes()
            old = self.sizes.get(key)
            if old is not None:  # tracked already: only a resize changes anything
                if nbytes > old:
                    self._grow(nbytes - old, t.device)
                else:
                    self.live -= old - nbytes
                self.sizes[key] = nbytes
                continue
            if nbytes == 0 or (t.is_meta and not self.count_meta):
                continue
            if inputs is None:
                inputs = _input_storages(args, kwargs)
            if key in inputs:
                continue  # a view of, or in-place write into, storage allocated before
            self._grow(nbytes, t.device)  # raises over the limit: the new storage is then never counted
            self.sizes[key] = nbytes
            self._refs[key] = weakref.ref(s, lambda _, key=key: self._freed(key))


def _input_storages(args: Any, kwargs: Any) -> set[int]:
    """Storage addresses of the tensors among an op's arguments (lists of tensors included)."""
    found: set[int] = set()
    values = list(args) + list(kwargs.values())
    for a in values:
        if isinstance(a, torch.Tensor):
            items: Any = (a,)
        elif isinstance(a, (tuple, list)):
            items = a if all(isinstance(x, torch.Tensor) or not isinstance(x, (tuple, list, dict)) for x in a) else tree_leaves(a)
        elif isinstance(a, dict):
            items = tree_leaves(a)
        else:
            continue
        for x in items:
            if isinstance(x, torch.Tensor):
                st = _storage(x)
                if st is not None:
                    found.add(storage_key(st))
    return found


_aten = torch.ops.aten
_FRESH = {_aten.lift_fresh.default, _aten.lift_fresh_copy.default}  # torch.tensor(...) data
_LOCAL_SCALAR = aten_op("_local_scalar_dense")  # .item()


class _TrackingMode(TorchDispatchMode):
    def __init__(self, tracker: _Tracker, meta_scalars: bool = False) -> None:
        super().__init__()
        self.tracker = tracker
        self.meta_scalars = meta_scalars

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if self.meta_scalars and func is _LOCAL_SCALAR and args[0].device.type == "meta":
            # ``.item()`` on a meta tensor (a loss printed in loss_fn): there is no value.
            return False if args[0].dtype == torch.bool else 0
        out = func(*args, **kwargs)
        self.tracker.observe(out, args, kwargs, fresh_inputs=func in _FRESH)
        return out


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
    Python list or an autograd graph still references stays counted. The classic leak:
    ``total_loss += loss`` in a loop that does not call ``backward()`` on each loss (an
    evaluation loop without ``torch.no_grad()``) keeps every step's graph alive with the
    activations it saved, so ``live`` grows by about one batch of activations per step;
    ``total_loss += loss.item()`` keeps it flat. (Where ``backward()`` runs on each loss,
    it frees the saved activations; the chained graph nodes that remain are not tensor
    storage and are not counted.) Storage that existed before the block (the model's
    parameters, a batch made outside) is not counted; in-place updates of it are free.

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
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"step must be an int (or omitted), got {type(step).__name__}.")
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
# estimate_peak
# ---------------------------------------------------------------------------------------


def _meta_like(t: torch.Tensor) -> torch.Tensor:
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


def _existing_bytes(tensors: list[torch.Tensor]) -> int:
    seen: dict[int, int] = {}
    for t in tensors:
        s = _storage(t)
        if s is not None:
            seen[storage_key(s)] = s.nbytes()
    return sum(seen.values())


def _meta_copy(model: nn.Module, optimizer: torch.optim.Optimizer | None) -> tuple[nn.Module, Any, list[torch.Tensor]]:
    """A meta-device twin of model (and optimizer) built without copying any real data."""
    memo: dict[int, Any] = {}
    existing: list[torch.Tensor] = []
    for p in list(model.parameters()) + list(model.buffers()):
        if id(p) in memo or isinstance(p, nn.parameter.UninitializedTensorMixin):
            continue
        existing.append(p)
        if isinstance(p, nn.Parameter):
            twin = nn.Parameter(_meta_like(p), requires_grad=p.requires_grad)
            if p.grad is not None:
                twin.grad = _meta_like(p.grad)
                existing.append(p.grad)
        else:
            twin = _meta_like(p)
        memo[id(p)] = twin
    twin_model = copy.deepcopy(model, memo)
    twin_opt = None
    if optimizer is not None:
        groups = []
        for group in optimizer.param_groups:
            g = {k: v for k, v in group.items() if k != "params"}
            g["params"] = [memo[id(p)] for p in group["params"]]
            groups.append(g)
        try:
            twin_opt = type(optimizer)(groups, **optimizer.defaults)
        except TypeError:  # an optimizer whose defaults are not all constructor arguments
            twin_opt = type(optimizer)(groups)
        for p, state in optimizer.state.items():
            if id(p) not in memo:
                continue
            new_state = {}
            for k, v in state.items():
                if isinstance(v, torch.Tensor):
                    existing.append(v)
                    new_state[k] = _meta_like(v) if v.device.type != "cpu" or v.dim() > 0 else v.clone()
                else:
                    new_state[k] = copy.deepcopy(v)
            twin_opt.state[memo[id(p)]] = new_state
    return twin_model, twin_opt, existing


def estimate_peak(
    model: nn.Module,
    example_batch: Any,
    loss_fn: Callable[..., torch.Tensor],
    optimizer: torch.optim.Optimizer | None,
) -> int:
    """Peak bytes of one training step, computed on the ``meta`` device: nothing is allocated.

    The step is ``loss = loss_fn(model(inputs), targets)`` (``example_batch`` a pair
    ``(inputs, targets)``) or ``loss = loss_fn(model(batch))`` (a single tensor), then
    ``loss.backward()`` and ``optimizer.step()`` — state creation included (Adam's two
    moments on its first step). It runs on a meta twin of the model and optimizer (same
    shapes, dtypes and hyper-parameters, no data, the real model untouched), counted by
    the same storage tracker as ``MemoryBudget``.

    The result counts what is resident before the step — parameters, buffers, gradients
    already present, optimizer state, the batch — plus the peak of what the step allocates,
    with the model's output and the loss referenced until the step ends (as in
    ``out = model(x); loss = loss_fn(out, y); loss.backward(); optimizer.step()``). On the
    CPU it matches ``MemoryBudget``'s measurement of that step to the byte for MLPs, CNNs
    (BatchNorm, Dropout, pooling) and embeddings with SGD, Adam and AdamW (torch 2.14).
    It is tensor storage: a GPU adds the CUDA context and allocator rounding on top
    (``torch.cuda.max_memory_allocated`` is usually a few percent higher). Code in
    ``loss_fn`` that needs values (``.item()``, ``if loss > 0``) sees 0 / False.

    Taught in the Devices chapter (``book/devices.ipynb``); shown on the toolkit page
    (``book/toolkit.ipynb``).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"estimate_peak() needs an nn.Module as model, got {type(model).__name__}.")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable, e.g. nn.CrossEntropyLoss(), got {type(loss_fn).__name__}.")
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            f"optimizer must be a torch.optim.Optimizer (or None to leave out the step), got {type(optimizer).__name__}."
        )
    if isinstance(example_batch, torch.Tensor):
        inputs, targets, pair = example_batch, None, False
    elif isinstance(example_batch, (tuple, list)) and len(example_batch) == 2:
        (inputs, targets), pair = example_batch, True
    else:
        raise TypeError(
            "example_batch must be one batch as the model takes it: a pair (inputs, targets) or a "
            f"single tensor, got {type(example_batch).__name__}."
        )
    twin, twin_opt, existing = _meta_copy(model, optimizer)
    batch_tensors = [t for t in tree_leaves((inputs, targets)) if isinstance(t, torch.Tensor)]

    def to_meta(x: Any) -> Any:
        return _meta_like(x) if isinstance(x, torch.Tensor) else x

    m_inputs, m_targets = tree_map(to_meta, inputs), tree_map(to_meta, targets)
    before = _existing_bytes(existing + batch_tensors)
    tracker = _Tracker(None, count_meta=True)
    with _TrackingMode(tracker, meta_scalars=True):
        try:
            out = twin(m_inputs)
            loss = loss_fn(out, m_targets) if pair else loss_fn(out)
        except Exception as err:
            raise _meta_failure("the forward pass or the loss", err) from err
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise TypeError("loss_fn must return a scalar tensor (one element), the value you call backward() on.")
        try:
            loss.backward()
            if twin_opt is not None:
                twin_opt.step()
        except Exception as err:
            raise _meta_failure("backward() or optimizer.step()", err) from err
    return before + tracker.peak


def _meta_failure(stage: str, err: Exception) -> RuntimeError:
    first = first_line(err)
    return RuntimeError(
        f"estimate_peak() could not run {stage} on the meta device ({type(err).__name__}: {first}). "
        "Ops whose output shape depends on values (nonzero, boolean-mask indexing), control flow "
        "on tensor values, and ops without a meta kernel cannot be estimated. Measure instead: run "
        "one step on a small batch inside ice_lab.MemoryBudget() and scale with the batch size."
    )


# ---------------------------------------------------------------------------------------
# cap_gpu_memory
# ---------------------------------------------------------------------------------------


class cap_gpu_memory:
    """Cap this process's share of a real GPU at ``gib`` GiB, for a real CUDA OOM in seconds.

    Usage::

        with ice_lab.cap_gpu_memory(2):        # 2 GiB of an 80 GiB card
            big = torch.empty(3 * 2**30, dtype=torch.uint8, device="cuda")   # OutOfMemoryError

    A context manager around ``torch.cuda.set_per_process_memory_fraction(gib / total)``;
    on exit the previous fraction is restored (1.0 if it cannot be read). Memory already
    allocated stays allocated: free it (``del``; ``torch.cuda.empty_cache()``) to get a
    clean lesson. ``device`` defaults to the current CUDA device.

    Errors: ``ValueError`` when ``gib`` is not positive or above the card's total;
    ``RuntimeError`` when there is no CUDA device ("on CPU use ice_lab.MemoryBudget").

    Taught in the Devices chapter (``book/devices.ipynb``); shown on the toolkit page
    (``book/toolkit.ipynb``).
    """

    def __init__(self, gib: float, device: int | str | torch.device | None = None) -> None:
        if isinstance(gib, bool) or not isinstance(gib, (int, float)):
            raise TypeError(f"gib must be a number of GiB such as 2 or 0.5, got {type(gib).__name__} {gib!r}.")
        if not gib > 0 or math.isinf(gib):
            raise ValueError(f"gib must be a positive number of GiB, got {gib!r}.")
        if not torch.cuda.is_available():
            raise RuntimeError(
                "cap_gpu_memory() caps a CUDA GPU, and there is no CUDA device here; on CPU use "
                "ice_lab.MemoryBudget('2GiB') for a simulated budget."
            )
        self.device = torch.device("cuda", torch.cuda.current_device()) if device is None else torch.device(device)
        if self.device.type != "cuda":
            raise ValueError(f"cap_gpu_memory() needs a CUDA device, got {self.device}.")
        self.total = int(torch.cuda.get_device_properties(self.device).total_memory)
        if gib * 2**30 > self.total:
            raise ValueError(
                f"cannot cap at {gib} GiB: the GPU has {self.total / 2**30:.2f} GiB in total. Pick a smaller cap."
            )
        self.gib = float(gib)
        self.fraction = gib * 2**30 / self.total
        self.previous: float = 1.0

    def __enter__(self) -> "cap_gpu_memory":
        getter = getattr(torch.cuda, "get_per_process_memory_fraction", None)
        try:
            self.previous = float(getter(self.device)) if getter is not None else 1.0
        except Exception:
            self.previous = 1.0
        torch.cuda.set_per_process_memory_fraction(self.fraction, self.device)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        torch.cuda.set_per_process_memory_fraction(self.previous, self.device)

    def __repr__(self) -> str:
        return f"cap_gpu_memory({self.gib:g} GiB = {self.fraction:.4f} of {self.total / 2**30:.2f} GiB)"
