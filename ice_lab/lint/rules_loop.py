"""Rules about what a loop does across its iterations: ICE101, ICE103, ICE107.

The question each answers: what does the next batch inherit from this one (a graph, a
gradient, a learning rate)? Taught in the Training and Devices
chapters; the Debugging chapter lints a whole script with them.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ._ast import (EVAL_FUNCTION, FUNCTIONS, LOOPS, Source, dotted, is_const, line_order,
                   receiver, tail)
from .rulebook import Found, rule

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10+
    from typing import TypeGuard

COMPS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)

LOSS_CALL = re.compile(r"(?i)(loss|criterion|cross_entropy|kl_div)")
NOT_OPTIMIZER = re.compile(r"(?i)sched|lr|warm|env|ema|swa|bar|timer|prof|writer|meter|"
                           r"log|progress|track|callback|hook|game|sim")
DETACHING = {"item", "detach", "tolist", "numpy", "argmax", "argmin", "eq", "ne", "lt",
             "gt", "le", "ge", "long", "int", "bool", "size", "numel", "dim", "data",
             "shape", "sign", "round", "floor", "ceil", "nonzero", "detach_", "dtype"}
KEEPING_FUNCS = {"torch", "F", "nn", "functional", "th"}
BUILTIN_KEEPING = {"sum", "max", "min", "abs"}
EPOCH_SCHEDULERS = {"StepLR", "MultiStepLR", "ExponentialLR", "ReduceLROnPlateau",
                    "CosineAnnealingLR", "PolynomialLR"}  # horizons counted in epochs


def is_backward(node: ast.AST) -> TypeGuard[ast.Call]:
    return isinstance(node, ast.Call) and tail(node) in {"backward", "manual_backward"}


def is_optimizer_step(node: ast.AST) -> TypeGuard[ast.Call]:
    if not isinstance(node, ast.Call):
        return False
    if tail(node) == "optimizer_step":
        return True
    if tail(node) != "step" or not isinstance(node.func, ast.Attribute):
        return False
    who = receiver(node)
    if "scaler" in who.lower():
        return True
    if NOT_OPTIMIZER.search(who.rsplit(".", 1)[-1]):
        return False
    return not node.args or "opt" in who.lower()


def zeroing_helpers(src: Source) -> set[str]:
    """Names of the file's own functions that zero gradients (``reset_grad()``)."""
    if src._zeroing is None:
        src._zeroing = _zeroing_helpers(src)
    return src._zeroing


def _zeroing_helpers(src: Source) -> set[str]:
    names = set()
    for node in src.nodes:  # one pass: the functions that hold a zeroing statement
        if isinstance(node, (ast.Call, ast.Assign)) and is_zeroing(node, set()):
            scope = src.scope(node)
            if isinstance(scope, FUNCTIONS):
                names.add(scope.name)
    return names


def is_zeroing(node: ast.AST, helpers: set[str]) -> bool:
    if isinstance(node, ast.Call):
        name = tail(node)
        if "zero_grad" in name or name in {"reset_grad", "clear_grad"} or name in helpers:
            return True
        return name in {"zero_", "fill_"} and ".grad" in dotted(node.func)
    if isinstance(node, ast.Assign):
        return any(dotted(t).endswith(".grad") for t in node.targets) and is_const(
            node.value, None)
    return False


# --------------------------------------------------------------------------- ICE103


@rule("ICE103", "gradients are not zeroed between steps",
      "book/training.ipynb#the-order-zero_grad--backward--step")
def ice103(src: Source) -> Found:
    helpers = zeroing_helpers(src)
    for loop in src.nodes:
        if not isinstance(loop, LOOPS):
            continue
        nodes = list(src.inside(loop))
        backs = [n for n in nodes if is_backward(n)]
        steps = [n for n in nodes if is_optimizer_step(n)]
        if not backs or not steps:
            continue
        inner = [n for n in nodes if isinstance(n, LOOPS)]
        if any(any(is_backward(m) for m in src.inside(i)) and any(is_optimizer_step(m) for m in
                                                             src.inside(i)) for i in inner):
            continue  # the innermost loop with both is the one to judge
        zeros = [n for n in nodes if is_zeroing(n, helpers)]
        if not zeros:
            yield loop, ("backward() and step() in this loop but no zero_grad(): "
                                   "each step adds the gradients of every batch before it")
            continue
        yield from _zero_between(backs, zeros, steps)
    yield from _step_functions(src, helpers)


def _step_functions(src: Source, helpers: set[str]) -> Found:
    """A ``train_step()`` with backward and step and no zero_grad, called in a loop."""
    for func in src.nodes:
        if not isinstance(func, FUNCTIONS):
            continue
        nodes = list(src.inside(func))
        backs = [n for n in nodes if is_backward(n) and not src.loops_around(n)]
        if not backs or not any(is_optimizer_step(n) for n in nodes):
            continue
        if any(is_zeroing(n, helpers) for n in nodes):
            continue
        for site in src.nodes:
            if not (isinstance(site, ast.Call) and tail(site) == func.name):
                continue
            loop = next((up for up in src.ancestors(site) if isinstance(up, LOOPS + COMPS)),
                        None)
            if loop is not None and not any(is_zeroing(n, helpers) for n in src.inside(loop)):
                yield backs[0], (f"{func.name}() calls backward() and step() but "
                                           "never zero_grad(), and runs in a loop: each "
                                           "step adds the gradients of every batch before it")
                break


def _zero_between(backs: list, zeros: list, steps: list) -> Found:
    events = line_order([*backs, *zeros, *steps])
    for i, node in enumerate(events):
        if node not in zeros or not isinstance(node, ast.Call):
            continue
        before = [e for e in events[:i] if e not in zeros]
        if not before or before[-1] not in backs:
            continue  # no backward since the last step: nothing of value to clear
        for later in events[i + 1:]:
            if later in backs:
                break
            if later in steps and isinstance(later, ast.Call) and receiver(later) == receiver(node):
                yield node, ("zero_grad() between backward() and step(): the "
                                       "step sees zeros and the model does not learn")
                break


# --------------------------------------------------------------------------- ICE101


def _returns_detached(src: Source, name: str) -> bool:
    """A function of this file whose every ``return`` is a plain number."""
    defs = src.functions.get(name, [])
    rets = [n.value for d in defs for n in src.inside(d) if isinstance(n, ast.Return) and n.value]
    return bool(rets) and all(_detached(v) for v in rets)


def _detached(expr: ast.AST) -> bool:
    if isinstance(expr, ast.Call):
        return tail(expr) in {"item", "float", "int", "tolist", "round"}
    return isinstance(expr, ast.Constant)


def _is_loss_value(src: Source, expr: ast.AST) -> bool:
    if isinstance(expr, ast.Attribute) and expr.attr == "loss":
        return True
    if not isinstance(expr, ast.Call) or not isinstance(expr.func, (ast.Name, ast.Attribute)):
        return False
    name = tail(expr)
    return bool(LOSS_CALL.search(name)) and not _returns_detached(src, name)


def _graph_refs(src: Source, expr: ast.AST, graph: set[str]) -> bool:
    """Does ``expr`` carry one of the ``graph`` names (or a loss call) un-detached?"""
    if isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr) in graph:
        return True
    if _is_loss_value(src, expr):
        return True
    if isinstance(expr, ast.Attribute):
        return expr.attr not in DETACHING and _graph_refs(src, expr.value, graph)
    if isinstance(expr, ast.BinOp):
        return _graph_refs(src, expr.left, graph) or _graph_refs(src, expr.right, graph)
    if isinstance(expr, ast.UnaryOp):
        return _graph_refs(src, expr.operand, graph)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return any(_graph_refs(src, e, graph) for e in expr.elts)
    if isinstance(expr, ast.Subscript):
        base = expr.value
        if isinstance(base, ast.Call) and tail(base) in {"max", "min", "sort", "topk"}:
            return False  # (values, indices): too often the indices
        return _graph_refs(src, base, graph)
    if isinstance(expr, ast.Call):
        name = tail(expr)
        if name in DETACHING:
            return False
        func = expr.func
        if isinstance(func, ast.Attribute):
            root = dotted(func.value).split(".")[0]
            if root in KEEPING_FUNCS:
                return any(_graph_refs(src, a, graph) for a in expr.args)
            return _graph_refs(src, func.value, graph)
        if isinstance(func, ast.Name) and func.id in BUILTIN_KEEPING:
            return any(_graph_refs(src, a, graph) for a in expr.args)
    return False


def _graph_names(src: Source, loop: ast.AST) -> set[str]:
    """Names that hold a loss in this loop: backpropagated, or bound to a loss call."""
    graph, detached = set(), set()
    for node in src.inside(loop):
        if is_backward(node) and isinstance(node.func, ast.Attribute):
            who = node.func.value
            if isinstance(who, ast.Call) and tail(who) == "scale" and who.args:
                who = who.args[0]
            if isinstance(who, (ast.Name, ast.Attribute)):
                graph.add(dotted(who))
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = dotted(node.targets[0])
            if not name:
                continue
            if _is_loss_value(src, node.value):
                graph.add(name)
            elif _detached(node.value) or not _graph_refs(src, node.value, graph):
                detached.add(name)
    return graph - detached


def _backpropagated(src: Source, scope: ast.AST, acc: str) -> bool:
    """The accumulated value (or one made from it) is backpropagated on purpose."""
    tainted = {acc}
    assigns = [n for n in src.inside(scope) if isinstance(n, ast.Assign)]
    for _ in range(3):
        for assign in assigns:
            if any(t in tainted for t in _names(assign.value)):
                tainted.update(dotted(t) for t in assign.targets if dotted(t))
    for node in src.inside(scope):
        if isinstance(node, ast.Call) and (tail(node) in {"backward", "manual_backward",
                                                          "grad"}):
            if tainted & _names(node):
                return True
    return False


def _names(node: ast.AST) -> set[str]:
    return {dotted(n) for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))}


@rule("ICE101", "a loss accumulated without .item() keeps every batch's graph alive",
      "book/devices.ipynb#the-leak-total_loss--loss")
def ice101(src: Source) -> Found:
    cache: dict[ast.AST, set[str]] = {}
    for node in src.nodes:
        if not isinstance(node, (ast.AugAssign, ast.Assign, ast.Call)):
            continue  # not one of the shapes _accumulation reads
        acc, value = _accumulation(node)
        if value is None:
            continue
        loops = src.loops_around(node)
        if not loops or src.grad_off(node):
            continue
        loop = loops[0]
        if loop not in cache:
            cache[loop] = _graph_names(src, loop)
        graph = cache[loop] - {acc}
        if not _graph_refs(src, value, graph):
            continue
        scope = src.scope(node)
        if _backpropagated(src, scope, acc):
            continue
        returned = any(isinstance(n, ast.Return) and n.value is not None and acc in
                       _names(n.value) for n in src.inside(scope))
        if returned and not (isinstance(scope, FUNCTIONS) and EVAL_FUNCTION.match(
                scope.name)) and not _callers_only_read(src, scope):
            continue  # the caller may backpropagate it
        how = "append" if isinstance(node, ast.Call) else "+="
        yield node, (f"{acc} {how} a loss that still holds its graph: keep "
                               f".item() (or .detach()) so each batch's graph is freed")


def _callers_only_read(src: Source, func: ast.AST) -> bool:
    """Every call of ``func`` in the file binds its result to names that are never
    backpropagated (printed, logged, compared): the returned sum only had to be a number."""
    if not isinstance(func, FUNCTIONS):
        return False
    sites = [c for c in src.calls(func.name) if isinstance(c.func, ast.Name)]
    if not sites:
        return False
    for site in sites:
        up = src.parents.get(site)
        if not isinstance(up, ast.Assign):
            return False
        for target in up.targets:
            names = [dotted(t) for t in ast.walk(target) if isinstance(t, ast.Name)]
            if any(_backpropagated(src, src.scope(site), n) for n in names):
                return False
    return True


def _accumulation(node: ast.AST) -> tuple[str, ast.AST | None]:
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        return dotted(node.target), node.value
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = dotted(node.targets[0]), node.value
        if target and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            if dotted(value.left) == target:
                return target, value.right
    if isinstance(node, ast.Call) and tail(node) == "append" and len(node.args) == 1:
        if isinstance(node.func, ast.Attribute) and receiver(node):
            return receiver(node), node.args[0]
    return "", None


# --------------------------------------------------------------------------- ICE107


def _per_iteration(call: ast.Call) -> bool:
    text = ast.unparse(call)
    if re.search(r"(?i)len\(|iter|steps|batch", text):
        return True
    numbers = [n.value for n in ast.walk(call) if isinstance(n, ast.Constant) and
               isinstance(n.value, (int, float)) and not isinstance(n.value, bool)]
    return any(v >= 1000 or 0.999 <= v < 1 for v in numbers)


@rule("ICE107", "an epoch scheduler stepped per batch, or without its metric",
      "book/schedules.ipynb#learning-rate-schedulers")
def ice107(src: Source) -> Found:
    schedulers = {}
    for name, values in src.bindings.items():
        for v in values:
            if isinstance(v, ast.Call) and tail(v) in EPOCH_SCHEDULERS:
                schedulers[name] = v
    if not schedulers:
        return
    for param, name in src.passed_as(set(schedulers)).items():
        schedulers.setdefault(param, schedulers[name])
    for node in src.nodes:
        if not (isinstance(node, ast.Call) and tail(node) == "step"):
            continue
        made = schedulers.get(receiver(node))
        if made is None:
            continue
        if tail(made) == "ReduceLROnPlateau":
            if not node.args and not node.keywords:
                yield node, ("ReduceLROnPlateau.step() without the metric it "
                                       "watches: pass the validation loss")
            continue
        loops = src.loops_around(node)
        if not loops or _per_iteration(made):
            continue
        loop = loops[0]
        if any(isinstance(up, ast.If) for up in _between(src, node, loop)):
            continue
        if re.search(r"(?i)epoch", ast.unparse(getattr(loop, "target", loop))):
            continue
        batchy = len(loops) > 1 or re.search(r"(?i)loader|batch|data|dl\b|tqdm",
                                            ast.unparse(getattr(loop, "iter", loop)))
        if batchy and any(is_backward(n) for n in src.inside(loop)):
            yield node, (f"{tail(made)} counts epochs but is stepped once per "
                                   "batch: its learning rate decays len(loader) times "
                                   "too fast")


def _between(src: Source, node: ast.AST, top: ast.AST) -> list[ast.AST]:
    found = []
    for up in src.ancestors(node):
        if up is top:
            break
        found.append(up)
    return found
