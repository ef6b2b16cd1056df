"""Which layer made the NaN, in which pass? ``watch_nonfinite(model)``, hooks on modules.

An Inf in a loss computed *outside* the model is not seen here in the forward pass;
``watch_nonfinite`` reports the non-finite gradient that the loss sends back into the
model's output during ``backward()`` (``watch_nonfinite_ops`` names the op that made it).
Taught in the Numerics chapter (``book/numerics.ipynb``).
"""

from __future__ import annotations

import weakref
from types import TracebackType
from typing import Any, Sequence

import torch
from torch import nn

from .._torch_compat import version_counter
from ..summary import summary
from .error import NonFiniteError, is_finite, tensors

__all__ = ["watch_nonfinite"]


def _hook_alive(handle: Any) -> bool:
    """False once the graph node a hook handle points into has been freed."""
    ref = getattr(handle, "hooks_dict_ref", None)
    return ref is None or ref() is not None


def _label(name: str, module: nn.Module) -> str:
    return f"{name or '<model>'} ({type(module).__name__})"


def _innermost(names: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop containers: keep (name, label) pairs whose module contains no other in the list."""
    kept = []
    for name, label in names:
        inner = any(
            other != name and (name == "" or other.startswith(name + ".")) for other, _ in names
        )
        if not inner and (name, label) not in kept:
            kept.append((name, label))
    return kept


class watch_nonfinite:
    """Raise :class:`NonFiniteError` at the first module whose output or gradient holds NaN/Inf.

    Usage::

        with ice_lab.watch_nonfinite(model):
            loss = loss_fn(model(x), y)
            loss.backward()

    Forward: every submodule's outputs (tensors, tuples, lists, dicts) are checked right
    after it runs, so the first module to produce NaN/Inf is named — innermost first, e.g.
    ``net.2 (Linear)``. The message says whether its inputs were finite (then that module
    made the NaN) or not (then it came from the data, or from code between modules: use
    :class:`watch_nonfinite_ops` to name the op).

    Backward (``backward=True``): a hook on every module output and input that requires
    grad, and on every parameter, checks the gradient as it arrives. The first non-finite
    gradient names the module whose backward produced it, or says that it came into the
    model's output from the loss.

    On exit every hook is removed (on modules, parameters, tensors and autograd-graph
    nodes), also when an error is raised, and nothing is left in your tensors or model:
    the watcher keeps its notes in itself, so the model pickles. Entering the same watcher twice
    at once raises ``RuntimeError``. Cost: one reduction and one scalar read per module
    output and per gradient, plus a few microseconds of Python per hook
    (``benchmarks/nonfinite_overhead.py`` measures it against ``detect_anomaly``). On a
    GPU every check waits for the GPU (one scalar read each).

    Taught in the Numerics chapter (``book/numerics.ipynb``); shown on the toolkit page
    (``book/toolkit.ipynb``).
    """

    def __init__(self, model: nn.Module, *, backward: bool = True) -> None:
        if not isinstance(model, nn.Module):
            raise TypeError(
                f"watch_nonfinite() needs an nn.Module (your model), got {type(model).__name__}. "
                "To watch plain tensor code, use ice_lab.watch_nonfinite_ops()."
            )
        if not isinstance(backward, bool):
            raise TypeError(f"backward must be True or False, got {backward!r}.")
        self.model = model
        self.backward = backward
        self._handles: list[Any] = []
        self._prune_at = 1024
        self._active = False
        self._last_ok: tuple[weakref.ref, int | None] | None = None
        # Who made / used each hooked tensor, kept here (never in the tensor's __dict__):
        # id -> (weak reference, version hooked, roles); leaves: id -> (weak reference, roles).
        self._nodes: dict[int, tuple[weakref.ref, int | None, list[tuple[str, str, str]]]] = {}
        self._leaves: dict[int, tuple[weakref.ref, list[tuple[str, str, str]]]] = {}

    # -- context manager -------------------------------------------------------------
    def __enter__(self) -> "watch_nonfinite":
        if self._active:
            raise RuntimeError("this watch_nonfinite is already active; enter it once at a time.")
        self._active = True
        try:
            for name, module in self.model.named_modules():
                self._handles.append(module.register_forward_hook(self._forward_hook(name, module)))
            if self.backward:
                owners: dict[int, tuple[str, str]] = {}
                for mname, module in self.model.named_modules():
                    for pname, p in module.named_parameters(recurse=False):
                        owners.setdefault(id(p), (_label(mname, module), f"{mname}.{pname}" if mname else pname))
                # Lazy modules' parameters have no shape before the first forward: skipped.
                params = [
                    p
                    for p in self.model.parameters()
                    if p.requires_grad and not isinstance(p, nn.parameter.UninitializedParameter)
                ]
                for p in params:
                    label, pname = owners[id(p)]
                    self._handles.append(p.register_hook(self._param_hook(label, pname)))
        except BaseException:
            self._remove()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._remove()

    def _remove(self) -> None:
        self._active = False
        self._last_ok = None
        self._nodes = {}
        self._leaves = {}
        handles, self._handles = self._handles, []  # module, parameter, tensor and node hooks
        for h in handles:
            h.remove()

    # -- hooks -----------------------------------------------------------------------
    def _forward_hook(self, name: str, module: nn.Module):
        label = _label(name, module)

        def hook(mod: nn.Module, args: Any, output: Any) -> None:
            if not self._active:
                return
            outs = tensors(output)
            last = self._last_ok
            for t in outs:
                if last is not None and last[0]() is t and last[1] is not None and last[1] == version_counter(t):
                    continue  # a container returning its last child's output: checked already
                if not is_finite(t):
                    raise self._forward_error(label, t, args)
            if outs:
                self._last_ok = (weakref.ref(outs[-1]), version_counter(outs[-1]))
            if self.backward and torch.is_grad_enabled():
                for t in tensors(args):  # inputs first: an in-place module returns its input
                    if t.requires_grad:
                        self._role(t, ("in", name, label), output=False)
                for t in outs:
                    if t.requires_grad:
                        self._role(t, ("out", name, label), output=True)

        return hook

    def _role(self, t: torch.Tensor, role: tuple[str, str, str], output: bool) -> None:
        """Note who made / used ``t`` and hook its gradient (one hook per tensor version).

        An in-place op (``ReLU(inplace=True)``) makes a new version of the same tensor
        object, with its own gradient: an output role at a new version starts a new hook;
        an input role goes with the version the module consumed (the older one).
        """
        node = t.grad_fn
        if node is None:  # a leaf (an input that requires grad, a parameter passed as input)
            self._leaf_role(t, role)
            return
        key, version = id(t), version_counter(t)
        entry = self._nodes.get(key)
        if entry is not None and entry[0]() is t and ((version is not None and entry[1] == version) or not output):
            if role not in entry[2]:
                entry[2].append(role)
            return
        roles = [role]
        try:
            # A pre-hook on the node that made t: cheaper to register than a tensor hook.
            # Its handle is kept, so the hook leaves the node on exit even if the graph lives on.
            self._handles.append(node.register_prehook(self._node_prehook(roles, t.output_nr)))
        except Exception:
            return
        if len(self._handles) > self._prune_at:  # a long loop: forget handles of freed graphs
            self._handles = [h for h in self._handles if _hook_alive(h)]
            self._prune_at = 2 * len(self._handles) + 1024
        nodes = self._nodes
        self._nodes[key] = (weakref.ref(t, lambda _, key=key: nodes.pop(key, None)), version, roles)

    def _leaf_role(self, t: torch.Tensor, role: tuple[str, str, str]) -> None:
        """Leaves live across steps: one hook per watcher, removed on exit, roles not repeated."""
        entry = self._leaves.get(id(t))
        if entry is not None and entry[0]() is t:
            if role not in entry[1]:
                entry[1].append(role)
            return
        roles = [role]
        try:
            self._handles.append(t.register_hook(self._grad_hook(roles)))
            self._leaves[id(t)] = (weakref.ref(t), roles)
        except Exception:
            pass

    def _node_prehook(self, roles: list[tuple[str, str, str]], index: int):
        def prehook(grad_outputs: Sequence[torch.Tensor | None]) -> None:
            if index >= len(grad_outputs) or not self._active:
                return
            grad = grad_outputs[index]
            if grad is not None and not is_finite(grad):
                raise self._backward_error(roles, grad)

        return prehook

    def _grad_hook(self, roles: list[tuple[str, str, str]]):
        def hook(grad: torch.Tensor) -> None:
            if not self._active or grad is None:
                return
            if is_finite(grad):
                return
            raise self._backward_error(roles, grad)

        return hook

    def _param_hook(self, label: str, pname: str):
        def hook(grad: torch.Tensor) -> None:
            if not self._active or grad is None or is_finite(grad):
                return
            s = summary(grad)
            raise NonFiniteError(
                f"non-finite values (NaN/Inf) in the backward pass: the gradient of parameter "
                f"{pname!r} of {label}\n{s}\n"
                f"{label}'s backward produced it. Look at what its forward computes with this "
                "parameter (a log, sqrt, division or pow of values near 0 or negative?); "
                "ice_lab.watch_nonfinite_ops() names the exact op.",
                where=label,
                phase="backward",
                tensor_summary=s,
            )

        return hook

    # -- messages --------------------------------------------------------------------
    def _forward_error(self, label: str, t: torch.Tensor, args: Any) -> NonFiniteError:
        s = summary(t)
        bad_inputs = []
        with torch.no_grad():
            for i, a in enumerate(tensors(args)):
                if not is_finite(a):
                    bad_inputs.append(f"  input {i}: {summary(a)}")
        if bad_inputs:
            why = (
                "Its input already held NaN/Inf:\n" + "\n".join(bad_inputs) + "\n"
                "So they were made before this module: in the data you passed in, or by code "
                "between modules (in a forward() method). Check the batch with summary(), or run "
                "the step under ice_lab.watch_nonfinite_ops() to name the exact op."
            )
        else:
            why = (
                "Its inputs were all finite, so this module made them. Check its parameters "
                "(summary(module.weight)) and what it computes (log, sqrt, division, exp of large "
                "values?); ice_lab.watch_nonfinite_ops() names the exact op."
            )
        return NonFiniteError(
            f"non-finite values (NaN/Inf) in the forward output of {label}\n{s}\n{why}",
            where=label,
            phase="forward",
            tensor_summary=s,
        )

    def _backward_error(self, roles: list[tuple[str, str, str]], grad: torch.Tensor) -> NonFiniteError:
        s = summary(grad)
        consumers = _innermost([(n, lab) for kind, n, lab in roles if kind == "in"])
        producers = _innermost([(n, lab) for kind, n, lab in roles if kind == "out"])
        is_model_output = any(kind == "out" and n == "" for kind, n, _ in roles)
        if consumers:
            where = ", ".join(lab for _, lab in consumers)
            produced = f" (the output of {producers[0][1]})" if producers else ""
            text = (
                f"non-finite values (NaN/Inf) in the backward pass of {where}: the gradient it "
                f"computed for its input{produced} holds NaN/Inf\n{s}\n"
                "The gradient arriving at its output was finite, so its backward made them. "
                "Typical causes: sqrt/log/pow/division at 0 or at negative values in its forward, "
                "or huge activations; ice_lab.watch_nonfinite_ops() names the exact op."
            )
        elif is_model_output:
            where = producers[0][1] if producers else "<model>"
            text = (
                f"non-finite values (NaN/Inf) in the backward pass: the gradient arriving at the "
                f"model's output ({where}) holds NaN/Inf\n{s}\n"
                "It came from the loss, computed outside the model. Check the loss value "
                "(is it inf or nan?) and the loss code; ice_lab.watch_nonfinite_ops() names the "
                "exact op that made it."
            )
        else:
            where = producers[0][1] if producers else "<model>"
            text = (
                f"non-finite values (NaN/Inf) in the backward pass: the gradient arriving at the "
                f"output of {where} holds NaN/Inf\n{s}\n"
                "No submodule consumed that output, so code in a forward() method (between "
                "modules) made the NaN/Inf in its backward; ice_lab.watch_nonfinite_ops() names "
                "the exact op."
            )
        return NonFiniteError(text, where=where, phase="backward", tensor_summary=s)
