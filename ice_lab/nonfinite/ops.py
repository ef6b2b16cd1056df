"""Which aten op made the NaN? ``watch_nonfinite_ops``, a dispatch mode over every op.

Taught in the chapter Finding where NaN starts (``book/nonfinite.ipynb``).
"""

from __future__ import annotations

from typing import Any, Iterable

import torch

from .._torch_compat import UnwrappedDispatchMode, current_autograd_node, op_caller
from ..describe import summary
from .error import NonFiniteError, finite, is_finite, tensors

__all__ = ["watch_nonfinite_ops"]

# Ops whose output is uninitialised memory: NaN there is not a bug.
_UNINITIALISED = frozenset(
    {
        "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
        "empty_permuted", "resize_", "set_",
    }
)
# Ops that only copy, select or zero their tensor inputs' values, or fill in 0 or 1:
# from finite inputs they cannot make NaN/Inf, so a NaN/Inf in their output came into
# the block from outside, and the first checked op that computes with it names it.
_NO_NEW_VALUES = frozenset(
    {
        "relu", "relu_", "threshold_backward", "clone", "cat", "stack", "neg", "abs",
        "gather", "index_select", "zeros", "ones", "zeros_like", "ones_like", "zero_",
    }
)
# Namespaces of ops that compute no values (the profiler's record_function markers).
_NO_VALUES = frozenset({"profiler"})
_Tensor = torch.Tensor


class watch_nonfinite_ops(UnwrappedDispatchMode):
    """Raise :class:`NonFiniteError` at the first aten op whose output holds NaN/Inf.

    Usage::

        with ice_lab.watch_nonfinite_ops():
            loss = my_loss(model(x), y)
            loss.backward()

    Every floating-point output of every aten op run inside the block is checked: in
    modules, in plain tensor code (a hand-written loss or softmax), and in the backward pass
    (the message then names the autograd node too). The error names the op, e.g.
    ``aten.log.default``, with ``summary()`` of its output and of its tensor inputs, and
    says whether the inputs were already non-finite (then the NaN/Inf came from before the
    block: data or parameters).

    Args:
        allow: op names (``"masked_fill"`` or ``"aten.masked_fill.Scalar"``) allowed to
            produce NaN/Inf on purpose, e.g. an attention mask filled with ``-inf``.

    Not checked: uninitialised outputs (``torch.empty``), views (``t``, ``view``,
    ``detach`` ...) and ops that only copy, select or zero values (``relu``, ``cat``,
    ``zeros_like`` ...): they cannot turn finite inputs into NaN/Inf, so a NaN/Inf in their
    output came into the block from outside, and the first op that computes with it names
    it ("its inputs already held NaN/Inf").
    Slower than :class:`watch_nonfinite` (every op goes through Python): use it to pin
    down an op once the module watcher has named the module.

    Taught in the chapter Finding where NaN starts (``book/nonfinite.ipynb``); shown on
    the toolkit page (``book/toolkit.ipynb``).
    """

    def __init__(self, *, allow: Iterable[str] = ()) -> None:
        super().__init__()
        if isinstance(allow, str):
            allow = (allow,)
        try:
            names = [a for a in allow]
        except TypeError:
            raise TypeError(
                f"allow must be a list of op names such as ['masked_fill'], got {allow!r}."
            ) from None
        for a in names:
            if not isinstance(a, str):
                raise TypeError(
                    f"allow must contain op names (strings) such as 'masked_fill', got {a!r}."
                )
        self.allow = frozenset(a.removeprefix("aten.") for a in names)
        # id(op) -> (how to call it, its name to report or None: not checked), decided
        # once per op (ops live as long as torch, and an id is cheaper to hash than the op)
        self._plan: dict[int, tuple[Any, str | None]] = {}

    def _plan_for(self, func: Any) -> tuple[Any, str | None]:
        name = str(func)
        packet = func.overloadpacket.__name__ if hasattr(func, "overloadpacket") else name
        skip = (
            packet in _UNINITIALISED
            or packet in self.allow
            or name.removeprefix("aten.") in self.allow
            or packet in _NO_NEW_VALUES
            or getattr(func, "is_view", False)  # an alias of its input: no new values
            or getattr(func, "namespace", "") in _NO_VALUES
        )
        plan = self._plan[id(func)] = (op_caller(func), None if skip else name)
        return plan

    def __torch_dispatch__(
        self, func: Any, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        # Runs for every op in the block, forward and backward: each line costs.
        plan = self._plan.get(id(func))
        if plan is None:
            plan = self._plan_for(func)
        call, name = plan
        out = call(*args, **kwargs) if kwargs else call(*args)
        if name is None:
            return out
        if isinstance(out, _Tensor):  # the common case, inlined
            if out.is_floating_point():
                if finite(out):
                    return out
            elif not out.is_complex() or is_finite(out):
                return out
            raise self._error(name, out, args, kwargs or {})
        for t in tensors(out):
            if not is_finite(t):
                raise self._error(name, t, args, kwargs or {})
        return out

    @staticmethod
    def _error(name: str, t: torch.Tensor, args: Any, kwargs: Any) -> NonFiniteError:
        s = summary(t)
        lines = []
        bad = False
        for i, a in enumerate(tensors((args, kwargs))):
            if i >= 6:
                lines.append("  ...")
                break
            lines.append(f"  input {i}: {summary(a)}")
            bad = bad or not is_finite(a)
        node = current_autograd_node()
        during = (
            f" during the backward pass (autograd node {node.name()})" if node is not None else ""
        )
        if bad:
            why = (
                "Its inputs already held NaN/Inf, so they were made before this block "
                "(in the data, or in parameters already damaged by an earlier step)."
            )
        elif not lines:
            why = "It has no tensor inputs: it created these values itself."
        else:
            why = "Its inputs were all finite, so this op made the NaN/Inf."
        inputs = ("\n" + "\n".join(lines)) if lines else ""
        return NonFiniteError(
            f"non-finite values (NaN/Inf) produced by {name}{during}\n{s}{inputs}\n{why}",
            where=name,
            phase="op",
            tensor_summary=s,
        )
