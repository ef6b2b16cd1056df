"""Rules about values that stop being useful numbers: ICE102, ICE108, ICE109.

The question each answers: what will this expression compute, or break, once it runs
(a squashed loss, ``log(0)``, ``x / 0``, a tensor backward needs that was overwritten)?
Taught in the Numerics and Autograd chapters.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ._ast import FUNCTIONS, Function, Source, dotted, is_const, keyword, tail
from .flow import flow_of
from .rulebook import Found, rule

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10+
    from typing import TypeGuard


SOFTMAX = {"softmax": "softmax", "log_softmax": "log_softmax", "Softmax": "softmax",
           "LogSoftmax": "log_softmax", "Sigmoid": "sigmoid"}
SAVES_OUTPUT = {"relu", "sigmoid", "tanh", "exp", "softmax", "log_softmax", "ReLU",
                "Sigmoid", "Tanh", "Softmax", "LogSoftmax"}
IN_PLACE = {"add_", "sub_", "mul_", "div_", "relu_", "sigmoid_", "tanh_", "exp_", "clamp_",
            "clamp_min_", "clamp_max_", "masked_fill_", "pow_", "neg_", "abs_", "sqrt_",
            "fill_", "zero_", "copy_", "addcmul_", "addcdiv_", "sqrt_", "log_", "mul",
            "index_fill_", "scatter_", "index_add_", "masked_scatter_"} - {"mul"}
TENSOR_ROOTS = {"torch", "F", "th", "functional", "nn"}


def _last_binding(src: Source, name: str, scope: ast.AST, before: int) -> ast.expr | None:
    values = [v for v in src.values_of(name, scope) if v.lineno <= before]
    return max(values, key=lambda v: (v.lineno, v.col_offset)) if values else None


def _module_kind(src: Source, name: str, kinds: dict[str, set[str]]) -> str:
    """What a called attribute or name is bound to: ``nn.Softmax()``, a class, ..."""
    found = set()
    for v in src.bindings.get(name, []):
        if not isinstance(v, ast.Call):
            return ""
        t = tail(v)
        if t in SOFTMAX:
            found.add(SOFTMAX[t])
        elif t == "Sequential" and v.args and isinstance(v.args[-1], ast.Call) and tail(
                v.args[-1]) in SOFTMAX:
            found.add(SOFTMAX[tail(v.args[-1])])
        elif t in kinds:
            found |= kinds[t]
        else:
            return ""
    return found.pop() if len(found) == 1 else ""


def softmaxed(src: Source, expr: ast.AST, scope: ast.AST, kinds: dict[str, set[str]],
              depth: int = 0) -> str:
    """'softmax' or 'log_softmax' when ``expr`` is surely such an output, else ''."""
    if depth > 3:
        return ""
    if isinstance(expr, ast.Call):
        t = tail(expr)
        func = expr.func
        if t in {"softmax", "log_softmax", "sigmoid"}:
            if isinstance(func, ast.Attribute) and dotted(func.value).split(".")[0] not in \
                    TENSOR_ROOTS and not expr.args and not expr.keywords:
                return ""
            return t
        if isinstance(func, ast.Call) and tail(func) in SOFTMAX:
            return SOFTMAX[tail(func)]
        if isinstance(func, (ast.Name, ast.Attribute)) and dotted(func) in src.bindings:
            return _module_kind(src, dotted(func), kinds)
        return ""
    if isinstance(expr, ast.Name):
        value = _last_binding(src, expr.id, scope, expr.lineno)
        if value is not None and value.lineno < expr.lineno:
            return softmaxed(src, value, scope, kinds, depth + 1)
    return ""


def softmax_classes(src: Source) -> dict[str, set[str]]:
    """Module classes of this file whose ``forward`` returns softmax or log_softmax."""
    kinds: dict[str, set[str]] = {}
    for node in src.nodes:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, FUNCTIONS) and item.name == "forward":
                rets = [n.value for n in src.inside(item) if isinstance(n, ast.Return)]
                found = {softmaxed(src, r, item, kinds) if r is not None else "" for r in rets}
                if found and "" not in found and len(found) == 1:
                    kinds[node.name] = found
    return kinds


def _cross_entropy_names(src: Source) -> set[str]:
    names = set()
    for name, values in src.bindings.items():
        if values and all(isinstance(v, ast.Call) and tail(v) == "CrossEntropyLoss"
                          for v in values):
            names.add(name)
    return names


@rule("ICE102", "softmax before cross_entropy, which applies log_softmax itself",
      "book/training.ipynb#start-tiny-overfit-one-batch")
def ice102(src: Source) -> Found:
    kinds = softmax_classes(src)
    ce_names = _cross_entropy_names(src)
    flow = flow_of(src)
    for node in src.nodes:
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        is_ce = tail(node) == "cross_entropy" or dotted(func) in ce_names or (
            isinstance(func, ast.Call) and tail(func) == "CrossEntropyLoss") or (
            isinstance(func, (ast.Name, ast.Attribute)) and flow.only(func, "lossfn:ce"))
        if not is_ce:
            continue
        first = node.args[0] if node.args else keyword(node, "input")
        if first is None:
            continue
        kind = softmaxed(src, first, src.scope(node), kinds)
        if not kind and len(flow.kinds(first)) == 1:
            kind = {"probs": "softmax", "logprobs": "log_softmax"}.get(
                next(iter(flow.kinds(first))), "")
        if kind == "softmax":
            yield node, ("cross_entropy receives softmax probabilities and applies "
                                   "log_softmax again: the loss is squashed and learning "
                                   "stalls; pass the logits")
        elif kind == "log_softmax":
            yield node, ("cross_entropy receives log_softmax output and applies "
                                   "it again: pass the logits, or use nll_loss")


# --------------------------------------------------------------------------- ICE108


def _is_log(node: ast.Call) -> ast.AST | None:
    """The argument of ``torch.log(x)`` or ``x.log()``."""
    if tail(node) != "log" or not isinstance(node.func, ast.Attribute):
        return None
    root = dotted(node.func.value).split(".")[0]
    if root in {"torch", "th"}:
        return node.args[0] if node.args else None
    if root in {"np", "numpy", "math"} or node.args:
        return None
    return node.func.value


def _can_be_zero(src: Source, expr: ast.AST, scope: ast.AST) -> str:
    if isinstance(expr, ast.Call):
        t = tail(expr)
        if t in {"norm", "std", "var"}:
            return f"a {'standard deviation' if t != 'norm' else 'norm'}"
        if t == "sum" and isinstance(expr.func, ast.Attribute) and "mask" in dotted(
                expr.func.value).lower():
            return "a count of a mask"
        if t in {"bincount", "count_nonzero"}:
            return "a count"
        return ""
    if isinstance(expr, ast.Name):
        value = _last_binding(src, expr.id, scope, expr.lineno)
        if value is None or value.lineno >= expr.lineno:
            return ""
        mended = any(_mends(n, expr.id) and value.lineno < n.lineno < expr.lineno
                     for n in src.inside(scope))
        return "" if mended else _can_be_zero(src, value, scope)
    return ""


def _mends(node: ast.AST,
           name: str) -> TypeGuard[ast.AugAssign | ast.Assign | ast.Call]:
    """``std[std == 0] = 1``, ``std += eps``, ``std.clamp_(...)``: the zeros are dealt with."""
    if isinstance(node, ast.AugAssign):
        return dotted(node.target) == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Subscript) and dotted(t.value) == name
                   for t in node.targets)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return dotted(node.func.value) == name and node.func.attr.endswith("_")
    return False


@rule("ICE108", "log or division of a value that can be zero",
      "book/numerics.ipynb#division-by-a-zero-standard-deviation")
def ice108(src: Source) -> Found:
    kinds = softmax_classes(src)
    for node in src.nodes:
        if isinstance(node, ast.Call):
            arg = _is_log(node)
            if arg is None:
                continue
            scope = src.scope(node)
            if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Sub) and is_const(
                    arg.left, 1, 1.0):
                arg = arg.right  # log(1 - p): 0 when p reaches 1
            kind = softmaxed(src, arg, scope, kinds)
            if not kind and flow_of(src).kinds(arg) == {"probs"}:
                kind = "softmax"  # probabilities that arrive as a parameter or a return
            if kind == "softmax":
                yield node, ("log(softmax(x)) turns a probability that underflows "
                                       "to 0 into -inf: use log_softmax")
            elif kind == "sigmoid":
                yield node, ("log of a sigmoid output, which reaches 0 (or 1): "
                                       "-inf; use F.logsigmoid or BCEWithLogitsLoss")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            what = _can_be_zero(src, node.right, src.scope(node))
            if what:
                yield node, (f"division by {what}, which is 0 for a constant (or "
                                       "empty) input: clamp it or add an eps")


# --------------------------------------------------------------------------- ICE109


def _saves_output(src: Source, value: ast.AST) -> str:
    if not isinstance(value, ast.Call):
        return ""
    t = tail(value)
    if t in SAVES_OUTPUT and t[0].islower():
        return t
    name = dotted(value.func)
    if name.startswith("self.") and name in src.bindings:
        last = {_last_layer(b) for b in src.bindings[name]}
        if len(last) == 1 and None not in last:
            return str(last.pop()).lower()
    return ""


def _last_layer(bound: ast.AST) -> str | None:
    """``ReLU`` for ``nn.ReLU()`` or ``nn.Sequential(..., nn.ReLU())``; None otherwise."""
    if isinstance(bound, ast.Call) and tail(bound) == "Sequential" and bound.args:
        bound = bound.args[-1]
    if isinstance(bound, ast.Call) and tail(bound) in SAVES_OUTPUT:
        return tail(bound)
    return None


@rule("ICE109", "an in-place change to a tensor autograd saved for backward",
      "book/autograd.ipynb#in-place-operations-that-break-backward")
def ice109(src: Source) -> Found:
    for func in src.nodes:
        if isinstance(func, FUNCTIONS) and func.name == "forward":
            yield from _forward_in_place(src, func)
        if isinstance(func, ast.Call) and tail(func) in {"Sequential", "ModuleList"}:
            yield from _sequential(func)


def _forward_in_place(src: Source, func: Function) -> Found:
    for node in src.inside(func):
        name = ""
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        elif isinstance(node, ast.Call) and tail(node) in IN_PLACE and isinstance(
                node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            name = node.func.value.id
        elif isinstance(node, ast.Call) and is_const(keyword(node, "inplace"), True) and \
                node.args and isinstance(node.args[0], ast.Name):
            name = node.args[0].id
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Subscript) and isinstance(node.targets[0].value, ast.Name):
            name = node.targets[0].value.id  # out[:, 0] = ...: a write into a slice
        # (a name was found in an assignment or a call: both have a line)
        if not name or not isinstance(node, (ast.stmt, ast.expr)) or src.grad_off(node):
            continue
        value = _last_binding(src, name, func, node.lineno - 1)
        for _ in range(3):  # out = h; out[...] = ...: h is written through its alias
            if not isinstance(value, ast.Name):
                break
            value = _last_binding(src, value.id, func, value.lineno - 1)
        op = _saves_output(src, value) if value is not None else ""
        if op:
            yield node, (f"in-place change to {name}, the output of {op}, which "
                                   "backward needs: write name = name + ... instead")


def _sequential(call: ast.Call) -> Found:
    layers = call.args[0].elts if len(call.args) == 1 and isinstance(
        call.args[0], (ast.List, ast.Tuple)) else call.args
    for before, layer in zip(layers, layers[1:]):
        if not (isinstance(before, ast.Call) and isinstance(layer, ast.Call)):
            continue
        if tail(before) in SAVES_OUTPUT and is_const(keyword(layer, "inplace"), True):
            yield layer, (f"{tail(layer)}(inplace=True) right after "
                                    f"{tail(before)}, whose output backward needs: drop "
                                    "inplace=True")


# --------------------------------------------------------------------------- ICE112


def _is_nll(flow, node: ast.Call) -> bool:  # noqa: ANN001
    func = node.func
    if tail(node) == "nll_loss":
        return True
    if isinstance(func, ast.Call) and tail(func) == "NLLLoss":
        return True
    return isinstance(func, (ast.Name, ast.Attribute)) and flow.only(func, "lossfn:nll")


@rule("ICE112", "nll_loss given logits or probabilities, or log_softmax of a softmax",
      "book/numerics.ipynb#logsoftmax-vs-log_softmax--nll_loss")
def ice112(src: Source) -> Found:
    """nll_loss fed logits or probabilities; log_softmax of a softmax (book/numerics)."""
    flow = flow_of(src)
    bound = set(src.bindings) | set(flow.params)
    for node in src.calls():
        if tail(node) not in {"nll_loss", "log_softmax"} and not (
                isinstance(node.func, ast.Call) or dotted(node.func) in bound):
            continue
        first = node.args[0] if node.args else keyword(node, "input")
        if first is None:
            continue
        if tail(node) == "log_softmax" and flow.only(first, "probs"):
            yield node, ("log_softmax of a softmax output: the log-probabilities "
                                   "are squashed; apply log_softmax to the logits")
        elif tail(node) != "log_softmax" and _is_nll(flow, node):
            got = flow.kinds(first)
            if got == {"logits"}:
                yield node, ("nll_loss on raw logits: it expects log-probabilities "
                                       "(log_softmax first), or use cross_entropy")
            elif got == {"probs"}:
                yield node, ("nll_loss on softmax probabilities: it expects "
                                       "log-probabilities; use log_softmax")
