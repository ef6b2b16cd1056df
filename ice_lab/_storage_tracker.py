"""The storage counter behind ``MemoryBudget`` and ``estimate_peak`` (private).

How the counting works: a ``TorchDispatchMode`` sees every aten op (also the ones the
autograd engine and the optimizer run). A tensor an op returns whose storage is neither
tracked already nor shared with one of the op's inputs is a new allocation; its bytes are
added, and a weak reference on the storage object (PyTorch keeps one Python object per
storage for the storage's whole life) subtracts them when the last tensor, view or saved
tensor of the autograd graph using it is gone. Scratch buffers that a kernel allocates and
frees internally are not seen: the figures are tensor storage, not allocator totals.
Taught through ``MemoryBudget`` in the Devices chapter (``book/devices.ipynb``).
"""

from __future__ import annotations

import weakref
from typing import Any

import torch

from ._text import format_bytes
from ._torch_compat import TorchDispatchMode, aten_op, storage_key, tree_leaves


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
            self._refs[key] = weakref.ref(s, lambda _, key=key: self._freed(key))  # type: ignore[misc]


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
