"""Every private PyTorch API ``ice_lab`` uses, each behind one small function.

A name that starts with an underscore (``storage._cdata``, ``torch._C._current_autograd_node``,
``torch.utils._python_dispatch``) is PyTorch's own business: a new release may rename or
drop it without notice. Each function below looks its API up when called and, where it
is missing, gives a coarser answer (or, when there is none, a clear error) and warns
once with :class:`TorchCompatWarning` saying what is lost, instead of an
``AttributeError`` deep inside a lab. ``explain`` keeps its own lookups.

Used by ``MemoryBudget`` / ``estimate_peak`` (Devices chapter), ``summary`` and the
non-finite watchers (Numerics chapter). Private: learners never call it.
"""

from __future__ import annotations

import contextlib
import operator
import warnings
from typing import Any, Callable, ContextManager, Iterator

import torch

__all__ = [
    "TorchCompatWarning",
    "MissingTorchFeature",
    "TorchDispatchMode",
    "UnwrappedDispatchMode",
    "storage_key",
    "current_autograd_node",
    "no_dispatch_modes",
    "tree_leaves",
    "tree_map",
    "version_counter",
    "version_reader",
    "sparse_values",
    "aten_op",
    "op_caller",
]


class TorchCompatWarning(UserWarning):
    """A private PyTorch API that ``ice_lab`` uses is missing: a tool runs with less."""


class MissingTorchFeature(RuntimeError):
    """A tool cannot run at all on this PyTorch: a private API it needs is gone."""


_warned: set[str] = set()


def _degraded(api: str, consequence: str) -> None:
    """Warn once per API that it is missing and what that costs."""
    if api in _warned:
        return
    _warned.add(api)
    warnings.warn(
        f"ice_lab: this PyTorch ({torch.__version__}) has no {api}; {consequence} "
        "ice_lab is tested with the torch versions in its pyproject.toml.",
        TorchCompatWarning,
        stacklevel=3,
    )


# ------------------------------------------------------------------------ dispatch modes
def _dispatch_module() -> Any:
    try:
        from torch.utils import _python_dispatch
    except ImportError:
        return None
    return _python_dispatch


def _torch_dispatch_mode() -> type:
    module = _dispatch_module()
    mode = getattr(module, "TorchDispatchMode", None)
    if isinstance(mode, type):
        return mode

    class _Missing:
        """Stand-in base class: ``ice_lab`` still imports; entering the mode explains."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def __enter__(self) -> Any:
            raise MissingTorchFeature(
                f"{type(self).__name__} needs torch.utils._python_dispatch.TorchDispatchMode, "
                f"which this PyTorch ({torch.__version__}) does not have. Install a torch that "
                "ice_lab supports (see its pyproject.toml), or measure without it: "
                "torch.cuda.memory_allocated on a GPU, ice_lab.watch_nonfinite for NaN/Inf."
            )

        def __exit__(self, *exc: Any) -> None:
            return None

    return _Missing


#: The base class of ``MemoryBudget``'s tracker and ``watch_nonfinite_ops``.
TorchDispatchMode: type = _torch_dispatch_mode()


def _unwrapped_dispatch_mode() -> type:
    if not hasattr(TorchDispatchMode, "_should_skip_dynamo"):
        return TorchDispatchMode  # an older torch: __torch_dispatch__ is called as written

    class UnwrappedDispatchMode(TorchDispatchMode):
        """A mode whose ``__torch_dispatch__`` torch calls directly: without this, torch
        wraps it in ``torch._dynamo.disable`` (two Python frames per op, which doubles
        what a mode adds to a small step). The mode must then not run inside
        ``torch.compile``d code."""

        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            return False

    return UnwrappedDispatchMode


#: The base class of ``watch_nonfinite_ops``, which runs on every op.
UnwrappedDispatchMode: type = _unwrapped_dispatch_mode()


def op_caller(op: Any) -> Callable[..., Any]:
    """The cheapest callable that runs ``op`` (an ``OpOverload``) as ``op(*args)`` would.

    ``op(*args)`` is ``op._op(*args)`` plus a Python frame and a check for a Python-side
    dispatcher; a mode that calls every op (``watch_nonfinite_ops``) calls ``op._op``
    directly when the op has no such dispatcher. Without ``_op``: ``op`` itself, quietly
    (the same result, one frame slower)."""
    direct = getattr(op, "_op", None)
    if callable(direct) and getattr(op, "_pyobj_dispatcher", None) is None:
        return direct
    return op


def no_dispatch_modes() -> ContextManager[Any]:
    """A context in which no ``TorchDispatchMode`` sees the ops run (``summary`` uses it so
    that its own temporaries neither count in a ``MemoryBudget`` nor trip
    ``watch_nonfinite_ops``). Without ``_disable_current_modes``: a plain context, and the
    modes see ``summary``'s ops too."""
    disable = getattr(_dispatch_module(), "_disable_current_modes", None)
    if disable is None:
        _degraded(
            "torch.utils._python_dispatch._disable_current_modes",
            "summary() inside MemoryBudget or watch_nonfinite_ops is seen by them "
            "(its temporaries are counted, its inf fill values may be reported).",
        )
        return contextlib.nullcontext()
    return disable()


# ------------------------------------------------------------------------ pytrees
def _pytree() -> Any:
    try:
        from torch.utils import _pytree
    except ImportError:
        return None
    return _pytree


def _plain_leaves(obj: Any) -> Iterator[Any]:
    if isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _plain_leaves(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _plain_leaves(x)
    else:
        yield obj


def _plain_map(fn: Callable[[Any], Any], obj: Any) -> Any:
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*(_plain_map(fn, x) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain_map(fn, x) for x in obj)
    if isinstance(obj, dict):
        return {k: _plain_map(fn, v) for k, v in obj.items()}
    return fn(obj)


def tree_leaves(obj: Any) -> list[Any]:
    """The leaves of nested lists, tuples and dicts (``torch.utils._pytree.tree_leaves``;
    without it, a plain walk of those three containers)."""
    fn = getattr(_pytree(), "tree_leaves", None)
    if fn is None:
        _degraded("torch.utils._pytree.tree_leaves", "only lists, tuples and dicts are searched for tensors.")
        return list(_plain_leaves(obj))
    return fn(obj)


def tree_map(fn: Callable[[Any], Any], obj: Any) -> Any:
    """``fn`` applied to every leaf, containers rebuilt (``torch.utils._pytree.tree_map``)."""
    mapper = getattr(_pytree(), "tree_map", None)
    if mapper is None:
        _degraded("torch.utils._pytree.tree_map", "only lists, tuples and dicts are walked.")
        return _plain_map(fn, obj)
    return mapper(fn, obj)


# ------------------------------------------------------------------------ tensors, storages
def storage_key(storage: Any) -> int:
    """A number that identifies a storage's memory: the same for every view and every
    tensor sharing it (``storage._cdata``, the address of PyTorch's StorageImpl). Without
    it: ``id(storage)``, which is the same while the storage lives because PyTorch keeps
    one Python object per storage."""
    try:
        return int(storage._cdata)
    except AttributeError:
        _degraded("UntypedStorage._cdata", "storages are told apart by their Python object instead.")
        return id(storage)


def version_counter(t: torch.Tensor) -> int | None:
    """How many in-place writes ``t`` has seen (``t._version``); None when unknown."""
    try:
        return int(t._version)
    except AttributeError:
        _degraded("Tensor._version", "watch_nonfinite checks every output again instead of skipping repeats.")
        return None


def version_reader() -> Callable[[torch.Tensor], int | None]:
    """``version_counter`` for code that reads it on every step: a C-level getter of
    ``t._version`` (no Python frame per read), or ``version_counter`` itself where this
    PyTorch has no ``_version`` (None, warned once)."""
    if hasattr(torch.Tensor, "_version"):
        return operator.attrgetter("_version")
    return version_counter


def current_autograd_node() -> Any:
    """The autograd node running now (in the backward pass), else None
    (``torch._C._current_autograd_node``; without it, always None)."""
    fn = getattr(torch._C, "_current_autograd_node", None)
    if fn is None:
        _degraded(
            "torch._C._current_autograd_node",
            "watch_nonfinite_ops cannot name the autograd node of a NaN/Inf found in backward.",
        )
        return None
    try:
        return fn()
    except Exception:
        return None


def sparse_values(t: torch.Tensor) -> torch.Tensor:
    """The stored values of a sparse COO tensor, coalesced or not (``t._values()``;
    without it, ``t.coalesce().values()``, which adds up duplicate entries first)."""
    raw = getattr(t, "_values", None)
    if raw is None:
        _degraded("Tensor._values", "summary() of an uncoalesced sparse tensor adds duplicates first.")
        return t.coalesce().values()
    return raw()


def aten_op(name: str, overload: str = "default") -> Any:
    """``torch.ops.aten.<name>.<overload>``, or None if this PyTorch has no such op
    (an op whose name starts with ``_``, like ``_local_scalar_dense``, is private)."""
    try:
        return getattr(getattr(torch.ops.aten, name), overload)
    except (AttributeError, RuntimeError):
        _degraded(f"torch.ops.aten.{name}.{overload}", "the tool that needs it skips that step.")
        return None
