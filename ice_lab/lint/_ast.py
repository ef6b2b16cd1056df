"""Small helpers the lint rules share: names of calls, scopes, loops, autograd context.

Every rule reads one :class:`Source`: the parsed tree, each node's parent, and where
names are bound. Nothing here imports torch; the rules only read text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Sequence, TypeVar, Union, cast

if TYPE_CHECKING:
    from .flow import Flow

LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: A function definition, what :data:`FUNCTIONS` matches and ``Source.functions`` holds.
Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]
#: A node with a position (``lineno``, ``col_offset``): what a finding points at.
Located = Union[ast.stmt, ast.expr]
N = TypeVar("N", bound=ast.AST)
L = TypeVar("L", bound=Located)
NO_GRAD = {"no_grad", "inference_mode"}
EVAL_WORDS = re.compile(r"(?i)(?:^|[^a-z])(val|valid|validation|test|testing|dev|eval)"
                        r"(?:[^a-z]|$|loader|set|data|dl|ds)")

EVAL_FUNCTION = re.compile(r"(?i)^(test|eval|evaluate|evaluation|valid|validate|validation|"
                           r"val|inference|predict)(_\w+)?$|_(test|eval|evaluate|valid|"
                           r"validate|validation|val)$")


def dotted(node: ast.AST | None) -> str:
    """``self.opt.step`` for an attribute chain, ``f()`` for a call, '' for the rest."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    if isinstance(node, ast.Call):
        base = dotted(node.func)
        return f"{base}()" if base else ""
    if isinstance(node, ast.Subscript):
        base = dotted(node.value)
        return f"{base}[]" if base else ""
    return ""


def tail(call: ast.AST) -> str:
    """The last name of what is called: ``step`` for ``opt.step()``."""
    func = call.func if isinstance(call, ast.Call) else call
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def receiver(call: ast.Call) -> str:
    """What a method is called on: ``self.opt`` for ``self.opt.step()``."""
    return dotted(call.func.value) if isinstance(call.func, ast.Attribute) else ""


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def has_kwargs(call: ast.Call) -> bool:
    """``f(**options)``: any keyword may be hidden in it."""
    return any(kw.arg is None for kw in call.keywords)


def is_const(node: ast.AST | None, *values: object) -> bool:
    return isinstance(node, ast.Constant) and node.value in values and type(
        node.value) in {type(v) for v in values}


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node``, not entering nested functions, lambdas or classes."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, SCOPES):
            stack.extend(ast.iter_child_nodes(child))


def calls(node: ast.AST, *tails: str) -> list[ast.Call]:
    """The calls under ``node`` (same scope) whose last name is one of ``tails``."""
    wanted = set(tails)
    return [n for n in walk(node) if isinstance(n, ast.Call) and tail(n) in wanted]


def names_in(node: ast.AST) -> set[str]:
    """Every plain name and attribute chain read in an expression."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.Name, ast.Attribute)):
            text = dotted(n)
            if text:
                found.add(text)
    return found


@dataclass
class Source:
    """A parsed script: its tree, parents, and the values bound to each name."""

    tree: ast.Module
    nodes: list[ast.AST] = field(default_factory=list)
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    bindings: dict[str, list[ast.expr]] = field(default_factory=dict)
    functions: dict[str, list[Function]] = field(default_factory=dict)
    imports: set[str] = field(default_factory=set)
    _inside: dict[ast.AST, list[ast.AST]] = field(default_factory=dict, repr=False)
    _typed: dict[tuple, list[ast.AST]] = field(default_factory=dict, repr=False)
    #: Names imported from files beside this one, set by ``_siblings.attach_siblings``:
    #: name -> (that file's :class:`Flow`, the name there).
    siblings: dict[str, tuple[Flow, str]] = field(default_factory=dict, repr=False,
                                                  compare=False)
    #: The file's :class:`Flow` and its gradient-zeroing helpers, each built once
    #: (``flow.flow_of``, ``rules_loop.zeroing_helpers``).
    _flow: Flow | None = field(default=None, repr=False, compare=False)
    _zeroing: set[str] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def parse(cls, tree: ast.Module) -> "Source":
        src = cls(tree)
        src.nodes = list(ast.walk(tree))
        for node in src.nodes:
            for child in ast.iter_child_nodes(node):
                src.parents[child] = node
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    src._bind(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value:
                src._bind(node.target, node.value)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                src.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Import):
                src.imports.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                src.imports.add(node.module.split(".")[0])
        return src

    def _bind(self, target: ast.AST, value: ast.expr) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            for i, elt in enumerate(target.elts):
                if values is not None and len(values) == len(target.elts):
                    self._bind(elt, values[i])
                else:  # a, b = f(): each name is bound to the whole call
                    self._bind(elt, value)
            return
        name = dotted(target)
        if name:
            self.bindings.setdefault(name, []).append(value)

    def of_type(self, *types: type[N]) -> list[N]:
        """Every node of these types in the file (computed once)."""
        if types not in self._typed:
            self._typed[types] = [n for n in self.nodes if isinstance(n, types)]
        # The cache is keyed by ``types``: its list holds nodes of those types only.
        return cast("list[N]", self._typed[types])

    def calls(self, *tails: str) -> list[ast.Call]:
        """Every call in the file whose last name is one of ``tails`` (or all calls)."""
        found = self.of_type(ast.Call)
        return [c for c in found if tail(c) in tails] if tails else found

    def inside(self, node: ast.AST) -> list[ast.AST]:
        """:func:`walk` of ``node``, computed once per node."""
        if node not in self._inside:
            self._inside[node] = list(walk(node))
        return self._inside[node]

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        while node in self.parents:
            node = self.parents[node]
            yield node

    def scope(self, node: ast.AST) -> ast.AST:
        """The function (or the module) a node belongs to."""
        for up in self.ancestors(node):
            if isinstance(up, FUNCTIONS):
                return up
        return self.tree

    def loops_around(self, node: ast.AST) -> list[ast.AST]:
        """The loops around ``node`` in its own scope, innermost first."""
        found: list[ast.AST] = []
        for up in self.ancestors(node):
            if isinstance(up, SCOPES):
                break
            if isinstance(up, LOOPS):
                found.append(up)
        return found

    def grad_off(self, node: ast.AST) -> bool:
        """Inside ``with torch.no_grad()``, ``inference_mode()``, or a decorated function."""
        for up in self.ancestors(node):
            if isinstance(up, (ast.With, ast.AsyncWith)):
                if any(grad_off_call(item.context_expr) for item in up.items):
                    return True
            if isinstance(up, FUNCTIONS):
                if any(grad_off_call(d) for d in up.decorator_list):
                    return True
        return False

    def passed_as(self, names: set[str]) -> dict[str, str]:
        """Parameters of this file's functions that receive one of ``names`` in a call."""
        found = {}
        for node in self.calls():
            if tail(node) not in self.functions:
                continue
            for func in self.functions[tail(node)]:
                params = [a.arg for a in func.args.posonlyargs + func.args.args]
                if params and params[0] in {"self", "cls"} and isinstance(node.func,
                                                                         ast.Attribute):
                    params = params[1:]
                for param, arg in zip(params, node.args):
                    if dotted(arg) in names:
                        found[param] = dotted(arg)
                for kw in node.keywords:
                    if kw.arg and dotted(kw.value) in names:
                        found[kw.arg] = dotted(kw.value)
        return found

    def values_of(self, name: str, scope: ast.AST | None = None) -> list[ast.expr]:
        """The values bound to ``name`` (in ``scope`` only, when given)."""
        values = self.bindings.get(name, [])
        if scope is None:
            return values
        return [v for v in values if self.scope(v) is scope]


def grad_off_call(node: ast.AST) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()``, ``set_grad_enabled(False)``."""
    name = tail(node) if isinstance(node, ast.Call) else dotted(node).rsplit(".", 1)[-1]
    if name in NO_GRAD:
        return True
    if name == "set_grad_enabled" and isinstance(node, ast.Call) and node.args:
        return is_const(node.args[0], False)
    return False


def line_order(nodes: Sequence[L]) -> list[L]:
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset))
