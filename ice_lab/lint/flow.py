"""What does each name hold? A small data-flow model of one file or one notebook
(book/debugging.ipynb, 'Lint before you run').

The rules decide on behaviour, not on names: a loop over a loader that runs a model and
never calls ``backward()`` is an evaluation, whatever its function is called; a loss fed
from a softmax is ICE102 whether the softmax is in ``forward``, in a factory that builds
the model, or in the caller of a helper. :class:`Flow` follows values through
assignments, through the parameters of the file's own functions (every call site binds
its arguments) and through their ``return`` statements. All cells of a notebook are one
program here. Nothing runs: this reads the tree.

Kinds of value: ``model``, ``optimizer``, ``scheduler:<class>``, ``loader``,
``lossfn:<ce|nll|other>``, ``probs`` (softmax output), ``logprobs`` (log_softmax
output), ``logits`` (a linear layer's raw output), ``cuda`` (a device that is always
CUDA).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Set as AbstractSet

from ._ast import FUNCTIONS, Function, Located, Source, dotted, tail

__all__ = ["Flow", "flow_of"]

OPTIMIZERS = {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
              "RAdam", "LBFGS", "SparseAdam", "Adafactor", "Lion", "Adam8bit"}
LAYERS_EMITTING_LOGITS = {"Linear", "Bilinear", "LazyLinear"}
MODULE_BASE = re.compile(r"Module$|LightningModule$|^Sequential$")
TORCHVISION = re.compile(r"(?:^|\.)models(?:\.\w+)*$")
SOFTMAX_LAYERS = {"Softmax": "probs", "LogSoftmax": "logprobs"}
SOFTMAX_CALLS = {"softmax": "probs", "log_softmax": "logprobs"}
CUDA_TEXT = re.compile(r"^cuda(:\d+)?$")
PASS_THROUGH = {"to", "cuda", "cpu", "float", "double", "half", "train", "eval",
                "requires_grad_", "contiguous", "squeeze", "unsqueeze", "view", "reshape",
                "flatten", "permute", "transpose", "clone"}


class Flow:
    """The kinds of value each name, call and function return holds in one file
    (book/debugging.ipynb)."""

    def __init__(self, src: Source) -> None:
        self.src = src
        self.classes = {n.name: n for n in src.nodes if isinstance(n, ast.ClassDef)}
        self._memo: dict[tuple, frozenset[str]] = {}
        #: Rules' own per-file caches (what a function sets or trains, ...).
        self.memo: dict[tuple, dict] = {}
        self.params = self._bind_params()
        #: Names imported from files beside this one: name -> (their flow, their name).
        self.imports: dict[str, tuple[Flow, str]] = src.siblings

    # ------------------------------------------------------------------ public
    def kinds(self, expr: ast.AST | None, depth: int = 0) -> frozenset[str]:
        """Every kind ``expr`` may hold, following names, calls and returns."""
        if expr is None or depth > 8:
            return frozenset()
        key = (id(expr), depth > 4)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = frozenset()  # a cycle reads as "unknown"
        found = frozenset(self._kinds(expr, depth))
        self._memo[key] = found
        return found

    def only(self, expr: ast.AST | None, *kinds: str) -> bool:
        """``expr`` holds one of ``kinds`` on every path the file shows (and is known)."""
        found = self.kinds(expr)
        return bool(found) and all(k in kinds for k in found)

    def holds(self, expr: ast.AST | None, prefix: str) -> bool:
        """Some path gives ``expr`` a kind starting with ``prefix``."""
        return any(k.startswith(prefix) for k in self.kinds(expr))

    def model_names(self) -> set[str]:
        """Names (and attribute chains) the file binds to a model on some path."""
        names = {n for n, vs in self.src.bindings.items()
                 if any("model" in self.kinds(v) for v in vs)}
        return names | {p for p, vs in self.params.items()
                        if any("model" in self.kinds(v) for v in vs)}

    def calls_into(self, node: ast.AST) -> list[Function]:
        """The file's own functions that ``node`` calls, directly or through each other."""
        memo = self.memo.setdefault(("calls_into",), {})
        if node not in memo:
            memo[node] = self._calls_into(node)
        return memo[node]

    def _calls_into(self, node: ast.AST) -> list[Function]:
        seen: dict[str, Function] = {}
        todo: list[ast.AST] = [node]
        while todo:
            here = todo.pop()
            for n in self.src.inside(here):
                if isinstance(n, ast.Call) and tail(n) in self.src.functions:
                    for func in self.src.functions[tail(n)]:
                        if func.name not in seen:
                            seen[func.name] = func
                            todo.append(func)
        return list(seen.values())

    # ------------------------------------------------------------------ kinds
    def _kinds(self, expr: ast.AST, depth: int) -> AbstractSet[str]:
        if isinstance(expr, ast.Constant):  # "cpu" and "mps" are values too: not CUDA
            return {"cuda" if isinstance(expr.value, str) and CUDA_TEXT.match(
                expr.value) else "constant"}
        if isinstance(expr, (ast.Name, ast.Attribute)):
            return self._name_kinds(expr, depth)
        if isinstance(expr, ast.Subscript):
            return self.kinds(expr.value, depth + 1) & {"probs", "logprobs", "logits"}
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.Mult)):
            return self.kinds(expr.left, depth + 1) & {"logits"}
        if isinstance(expr, ast.IfExp):
            return set()  # a choice: neither branch is certain
        if isinstance(expr, ast.Call):
            return self._call_kinds(expr, depth)
        return set()

    def _name_kinds(self, expr: ast.Name | ast.Attribute, depth: int) -> set[str]:
        name = dotted(expr)
        values = self._values_before(name, expr)
        if not values:
            values = self.params.get(name, [])
        found: set[str] = set()
        for value in values:
            found |= self.kinds(value, depth + 1)
        return found

    def _values_before(self, name: str, at: Located) -> list[ast.expr]:
        """The last value bound to ``name`` before ``at`` in its scope, else every one."""
        scope = self.src.scope(at)
        local = [v for v in self.src.values_of(name, scope)
                 if (v.lineno, v.col_offset) < (at.lineno, at.col_offset)]
        if local:
            return [max(local, key=lambda v: (v.lineno, v.col_offset))]
        if isinstance(scope, FUNCTIONS) and name in _params_of(scope):
            return []  # a parameter: what the call sites pass
        return list(self.src.bindings.get(name, []))

    def _call_kinds(self, call: ast.Call, depth: int) -> AbstractSet[str]:
        name, func = tail(call), call.func
        full = dotted(func)
        if name in OPTIMIZERS and ("optim" in full or name == full):
            return {"optimizer"}
        if "lr_scheduler" in full or name.endswith("LR") or name == "ReduceLROnPlateau":
            return {f"scheduler:{name}"}
        if name == "DataLoader":
            return {"loader"}
        if name.endswith("Loss") and name[0].isupper():
            return {"lossfn:" + {"CrossEntropyLoss": "ce", "NLLLoss": "nll"}.get(name,
                                                                                  "other")}
        if name in SOFTMAX_CALLS and (call.args or not isinstance(func, ast.Attribute) or
                                      dotted(func.value).split(".")[0] in {"torch", "F"}):
            return {SOFTMAX_CALLS[name]}
        if name == "device" and call.args and isinstance(call.args[0], ast.Constant):
            return self.kinds(call.args[0], depth + 1)
        if isinstance(func, ast.Attribute) and name in PASS_THROUGH:
            return self.kinds(func.value, depth + 1) & {"model", "probs", "logprobs",
                                                        "logits"}
        if name in self.classes and self._is_module_class(name):
            return {"model"}
        if name in self.imports and isinstance(func, ast.Name):
            other, original = self.imports[name]
            if original in other.classes:
                return {"model"} if other._is_module_class(original) else set()
            return other._returns(original, depth + 1) & {"model"}
        if name == "Sequential" or name in LAYERS_EMITTING_LOGITS or TORCHVISION.search(
                dotted(func.value) if isinstance(func, ast.Attribute) else ""):
            return {"model"}
        if isinstance(func, (ast.Name, ast.Attribute)):
            if "model" in self.kinds(func, depth + 1):
                return self._model_output(func, depth)
            if name in self.src.functions and not isinstance(func, ast.Attribute):
                return self._returns(name, depth)
        return set()

    def _returns(self, name: str, depth: int) -> set[str]:
        found: set[str] = set()
        for func in self.src.functions.get(name, []):
            for n in self.src.inside(func):
                if isinstance(n, ast.Return) and n.value is not None:
                    found |= self.kinds(n.value, depth + 1)
        return found

    def _model_output(self, func: ast.expr, depth: int) -> set[str]:
        """What calling a model gives: probs when its last layer is a softmax, ..."""
        found: set[str] = set()
        for value in self._values_before(dotted(func), func) or self.params.get(
                dotted(func), []):
            found |= self._emits(value, depth + 1)
        return found if found and len(found) == 1 else set()

    def _emits(self, value: ast.AST, depth: int) -> set[str]:
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                tail(value) in PASS_THROUGH:
            value = value.func.value
        if isinstance(value, (ast.Name, ast.Attribute)):
            return {k for v in self._values_before(dotted(value), value) for k in
                    self._emits(v, depth + 1)} if depth < 6 else set()
        if not isinstance(value, ast.Call):
            return set()
        name = tail(value)
        if name in self.imports and name not in self.classes and isinstance(value.func,
                                                                           ast.Name):
            other, original = self.imports[name]  # model.py's Net: what its forward gives
            return other._emits(ast.Call(ast.Name(original, ast.Load()), [], []), depth + 1)
        if name == "Sequential" and value.args and isinstance(value.args[-1], ast.Call):
            last = value.args[-1]
            return {SOFTMAX_LAYERS.get(tail(last), "logits" if tail(last) in
                                       LAYERS_EMITTING_LOGITS else "")} - {""}
        if name in LAYERS_EMITTING_LOGITS:
            return {"logits"}
        if name in self.classes:
            forward = [f for f in self.classes[name].body
                       if isinstance(f, FUNCTIONS) and f.name == "forward"]
            rets = [n.value for f in forward for n in self.src.inside(f)
                    if isinstance(n, ast.Return) and n.value is not None]
            kinds = [self.kinds(r, depth + 1) & {"probs", "logprobs", "logits"} for r in rets]
            if kinds and all(len(k) == 1 for k in kinds) and len(set().union(*kinds)) == 1:
                return set(kinds[0])
        if name in self.src.functions:  # a factory: what it returns
            return {k for n in self.src.inside(self.src.functions[name][0])
                    if isinstance(n, ast.Return) and n.value is not None
                    for k in self._emits(n.value, depth + 1)}
        return set()

    def _is_module_class(self, name: str, depth: int = 0) -> bool:
        cls = self.classes.get(name)
        if cls is None or depth > 5:
            return False
        for base in cls.bases:
            text = dotted(base)
            if MODULE_BASE.search(text) or self._is_module_class(text, depth + 1):
                return True
        return False

    # ------------------------------------------------------------------ calls
    def _bind_params(self) -> dict[str, list[ast.expr]]:
        """Each parameter of the file's functions: the arguments its call sites pass."""
        params: dict[str, list[ast.expr]] = {}
        for call in self.src.calls():
            name = tail(call)
            if name not in self.src.functions:
                continue
            for func in self.src.functions[name]:
                names = _params_of(func)
                if names and names[0] in {"self", "cls"}:
                    names = names[1:]
                for param, arg in zip(names, call.args):
                    params.setdefault(param, []).append(arg)
                for kw in call.keywords:
                    if kw.arg in names:
                        params.setdefault(kw.arg, []).append(kw.value)
        return params


def _params_of(func: Function) -> list[str]:
    args = func.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]


def flow_of(src: Source) -> Flow:
    """The file's :class:`Flow`, built once and shared by every rule (book/debugging.ipynb)."""
    if src._flow is None:
        src._flow = Flow(src)
    return src._flow
