"""Will it fit on the GPU? A dry-run peak and a real GPU cap.

* ``estimate_peak(model, batch, loss_fn, optimizer)`` runs one training step on the
  ``meta`` device, where tensors have shapes but no data, and returns its peak bytes
  without allocating them (counted like ``ice_lab.MemoryBudget``).
* ``cap_gpu_memory(gib)`` caps this process's share of a real GPU, so a real CUDA OOM
  comes in seconds on a large card.

Both can also be imported from ``ice_lab``. Taught in the
Devices chapter (``book/devices.ipynb``); shown on the toolkit page (``book/toolkit.ipynb``).
"""

from __future__ import annotations

import copy
from types import TracebackType
from typing import Any, Callable

import torch
from torch import nn

from ._storage_tracker import _storage, _Tracker, _TrackingMode
from ._args import check_number
from ._text import error_line
from ._torch_compat import storage_key, tree_leaves, tree_map

__all__ = ["estimate_peak", "cap_gpu_memory"]


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
        if id(p) in memo or isinstance(p, nn.parameter.UninitializedTensorMixin):  # type: ignore[attr-defined]
            continue
        existing.append(p)
        twin: torch.Tensor
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
            twin_opt = type(optimizer)(groups)  # type: ignore[call-arg]
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
    batch: Any,
    loss_fn: Callable[..., torch.Tensor],
    optimizer: torch.optim.Optimizer | None,
) -> int:
    """Peak bytes of one training step, computed on the ``meta`` device: nothing is allocated.

    The step is ``loss = loss_fn(model(inputs), targets)`` (``batch`` a pair
    ``(inputs, targets)``) or ``loss = loss_fn(model(batch))`` (a single tensor), then
    ``loss.backward()`` and ``optimizer.step()`` — state creation included (Adam's two
    moments on its first step). It runs on a meta twin of the model and optimizer (same
    shapes, dtypes and hyper-parameters, no data, the real model untouched), counted by
    the same storage tracker as ``MemoryBudget``.

    The result counts what is resident before the step — parameters, buffers, gradients
    already present, optimizer state, the batch — plus the peak of what the step allocates,
    with the model's output and the loss referenced until the step ends (as in
    ``out = model(x); loss = loss_fn(out, y); loss.backward(); optimizer.step()``). On the
    CPU it agrees with ``MemoryBudget``'s measurement of that step (``tests/package/test_memory.py``
    compares them on MLPs, CNNs and embeddings with SGD, Adam and AdamW). It is tensor
    storage: a GPU adds the CUDA context and allocator rounding on top
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
    if isinstance(batch, torch.Tensor):
        inputs, targets, pair = batch, None, False
    elif isinstance(batch, (tuple, list)) and len(batch) == 2:
        (inputs, targets), pair = batch, True
    else:
        raise TypeError(
            "batch must be one batch as the model takes it: a pair (inputs, targets) or a "
            f"single tensor, got {type(batch).__name__}."
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
    return RuntimeError(
        f"estimate_peak() could not run {stage} on the meta device ({error_line(err)}). "
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
        gib = check_number("gib", gib, positive=True, unit="GiB")
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
