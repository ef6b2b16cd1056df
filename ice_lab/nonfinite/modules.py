"""Which layer made the NaN, in which pass? ``watch_nonfinite(model)``, hooks on modules.

An Inf in a loss computed *outside* the model is not seen here in the forward pass;
``watch_nonfinite`` reports the non-finite gradient that the loss sends back into the
model's output during ``backward()`` (``watch_nonfinite_ops`` names the op that made it).
Taught in the chapter Finding where NaN starts (``book/nonfinite.ipynb``).
"""

from __future__ import annotations

import functools
import types
import weakref
from types import TracebackType
from typing import Any, Sequence

import torch
from torch import nn

from .._torch_compat import version_reader
from ..describe import summary
from .error import NonFiniteError, finite, is_finite, tensors

__all__ = ["watch_nonfinite"]

_grad_enabled = torch.is_grad_enabled

# Modules whose output is finite whenever their one input is (they clamp, squash, select
# or reshape): when that input is the tensor checked last, their output needs no check.
_KEEPS_FINITE = frozenset(
    {
        nn.ReLU, nn.ReLU6, nn.Hardtanh, nn.Tanh, nn.Sigmoid, nn.Identity, nn.Flatten,
        nn.Unflatten, nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d,
    }
)


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
    :class:`watch_nonfinite_ops` to name the op). A module that cannot turn finite values
    into NaN/Inf (``ReLU``, ``Tanh``, ``Sigmoid``, ``Hardtanh``, ``MaxPool``, ``Flatten``
    ...) is not checked again when its input is the output just checked.

    Backward (``backward=True``): a hook on every module output and input that requires
    grad, and on every parameter, checks the gradient as it arrives. The first non-finite
    gradient names the module whose backward produced it, or says that it came into the
    model's output from the loss.

    While watching, each module's ``forward`` is wrapped (an attribute of the module,
    cheaper than a forward hook). On exit the wrappers and every hook (on parameters,
    tensors and autograd-graph nodes) are removed, also when an error is raised, and
    nothing is left in your tensors or model: the watcher keeps its notes in itself, so the
    model pickles. Entering the same watcher twice at once raises ``RuntimeError``. Cost:
    one reduction and one scalar read per checked output and gradient, plus a little
    Python per module call and per gradient (``benchmarks/nonfinite_overhead.py``). On a
    GPU every check waits for the GPU (one scalar read each).

    Taught in the chapter Finding where NaN starts (``book/nonfinite.ipynb``); shown on
    the toolkit page (``book/toolkit.ipynb``).
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
        self._forwards: list[tuple[nn.Module, Any, Any]] = []  # (module, our forward, its own)
        self._read_version = version_reader()
        self._prune_at = 1024
        self._nodes_prune_at = 32
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
        self._read_version = version_reader()
        try:
            for name, module in self.model.named_modules():
                self._watch_forward(name, module)
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
        self._nodes_prune_at = 32
        forwards, self._forwards = self._forwards, []
        for module, bound, own in forwards:
            if module.__dict__.get("forward") is bound:
                if own is None:
                    del module.__dict__["forward"]
                else:
                    module.__dict__["forward"] = own
        handles, self._handles = self._handles, []  # parameter, tensor and node hooks
        for h in handles:
            h.remove()

    # -- hooks -----------------------------------------------------------------------
    # The hooks run on every module call and every gradient: each line below is paid
    # for on every step (benchmarks/nonfinite_overhead.py).
    def _watch_forward(self, name: str, module: nn.Module) -> None:
        """Check ``module``'s outputs after each call, and note who made / used them.

        The check sits in ``module.forward`` itself (an attribute of the instance, removed
        on exit): a forward hook would make every call take ``nn.Module``'s slow path,
        which costs more than the check. A scripted module gets a forward hook instead.
        """
        label = _label(name, module)
        in_role, out_role = ("in", name, label), ("out", name, label)
        watcher, backward, read_version = self, self.backward, self._read_version
        keeps_finite = type(module) in _KEEPS_FINITE

        def after(args: Any, output: Any, checked: bool) -> None:
            outs = tensors(output)
            if not checked:
                last = watcher._last_ok
                for t in outs:
                    if last is not None and last[0]() is t:
                        version = read_version(t)
                        if version is not None and version == last[1]:
                            continue  # a container returning its last child's output
                    if not finite(t.detach() if t.requires_grad else t):
                        raise watcher._forward_error(label, t, args)
            if outs:
                t = outs[-1]
                watcher._last_ok = (weakref.ref(t), read_version(t))
            if backward and _grad_enabled():
                for t in tensors(args):  # inputs first: an in-place module returns its input
                    if t.requires_grad:
                        watcher._role(t, in_role, False)
                for t in outs:
                    if t.requires_grad:
                        watcher._role(t, out_role, True)

        if isinstance(module, torch.jit.ScriptModule):

            def hook(mod: nn.Module, args: Any, output: Any) -> None:
                if watcher._active:
                    after(args, output, False)

            self._handles.append(module.register_forward_hook(hook))
            return
        own = module.__dict__.get("forward")  # an instance's own forward, rare
        inner = own if own is not None else type(module).forward

        def forward(mod: nn.Module, *args: Any, **kwargs: Any) -> Any:
            # (a deepcopy of the model made while watching keeps this forward: unchecked)
            if not watcher._active or mod is not module:
                return inner(*args, **kwargs) if own is not None else inner(mod, *args, **kwargs)
            checked = False
            if keeps_finite and len(args) == 1:  # its input checked last: its output is finite
                last = watcher._last_ok
                if last is not None and last[0]() is args[0]:
                    version = read_version(args[0])  # type: ignore[arg-type]
                    checked = version is not None and version == last[1]
            output = inner(*args, **kwargs) if own is not None else inner(mod, *args, **kwargs)
            after(args, output, checked)
            return output

        if own is None:
            functools.update_wrapper(forward, inner)  # inspect.signature(module.forward) holds
        bound = types.MethodType(forward, module)
        module.__dict__["forward"] = bound
        self._forwards.append((module, bound, own))

    def _role(self, t: torch.Tensor, role: tuple[str, str, str], output: bool) -> None:
        """Note who made / used ``t`` and hook its gradient (one hook per tensor version).

        An in-place op (``ReLU(inplace=True)``) makes a new version of the same tensor
        object, with its own gradient: an output role at a new version starts a new hook;
        an input role goes with the version the module consumed (the older one).
        """
        key = id(t)
        nodes = self._nodes
        entry = nodes.get(key)
        version = None
        if entry is not None and entry[0]() is t:
            if not output or (version := self._read_version(t)) is not None and entry[1] == version:
                if role not in entry[2]:
                    entry[2].append(role)
                return
        node = t.grad_fn
        if node is None:  # a leaf (an input that requires grad, a parameter passed as input)
            self._leaf_role(t, role)
            return
        if version is None:
            version = self._read_version(t)
        roles = [role]
        try:
            # A pre-hook on the node that made t: cheaper to register than a tensor hook.
            # Its handle is kept, so the hook leaves the node on exit even if the graph lives on.
            handle = node.register_prehook(self._node_prehook(roles, t.output_nr))
        except Exception:
            return
        handles = self._handles
        handles.append(handle)
        if len(handles) > self._prune_at:  # a long loop: forget handles of freed graphs
            self._handles = handles = [h for h in handles if _hook_alive(h)]
            self._prune_at = 2 * len(handles) + 1024
        if len(nodes) >= self._nodes_prune_at:  # and the notes on tensors already freed
            self._nodes = nodes = {k: e for k, e in nodes.items() if e[0]() is not None}
            self._nodes_prune_at = max(32, 2 * len(nodes))
        nodes[key] = (weakref.ref(t), version, roles)

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
        watcher = self

        def prehook(grad_outputs: Sequence[torch.Tensor | None]) -> None:
            if watcher._active and index < len(grad_outputs):
                grad = grad_outputs[index]
                if grad is not None and not finite(grad):
                    raise watcher._backward_error(roles, grad)

        return prehook

    def _grad_hook(self, roles: list[tuple[str, str, str]]):
        watcher = self

        def hook(grad: torch.Tensor) -> None:
            if watcher._active and grad is not None and not finite(grad):
                raise watcher._backward_error(roles, grad)

        return hook

    def _param_hook(self, label: str, pname: str):
        watcher = self

        def hook(grad: torch.Tensor) -> None:
            if not watcher._active or grad is None or finite(grad):
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
