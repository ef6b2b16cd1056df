"""Rules about evaluation: ICE104, a validation or test loop in training mode or with
autograd on.

The question it answers: is this score the model's, or the score of a model still
dropping units and recording a graph? Taught in the Training chapter ('train() and
eval()') and the Devices chapter ('Evaluation without autograd').
"""

from __future__ import annotations

import ast
import re

from ._ast import (EVAL_FUNCTION, EVAL_WORDS, FUNCTIONS, LOOPS, Function, Source,
                   dotted, grad_off_call, is_const, line_order, tail, walk)
from .flow import Flow, flow_of
from .rules_loop import is_backward, is_optimizer_step
from .rulebook import Found, rule

MODE_LAYERS = re.compile(r"(?i)dropout|batchnorm|instancenorm")
MODEL_CALL = re.compile(r"(?i)^(model|net|network|cnn|mlp|classifier|\w*model|\w*net)$")


# --------------------------------------------------------------------------- ICE104


def _model_calls(node: ast.AST, flow: Flow | None = None) -> list[ast.Call]:
    """Forward passes under ``node``: a call of a name that looks like a model or that
    the data flow says holds one (a call of the file's own function is not one)."""
    if flow is not None:
        memo = flow.memo.setdefault(("model_calls",), {})
        if node in memo:
            return memo[node]
    found = []
    own = flow.src.functions if flow is not None else {}
    for n in (flow.src.inside(node) if flow is not None else walk(node)):
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)):
            name = tail(n)
            if name == "forward" and isinstance(n.func, ast.Attribute):
                name = tail(n.func.value) if isinstance(n.func.value, ast.Attribute) else \
                    dotted(n.func.value)
            if isinstance(n.func, ast.Name) and name in own:
                continue
            if MODEL_CALL.match(name) or flow is not None and "model" in flow.kinds(n.func):
                found.append(n)
    if flow is not None:
        memo[node] = found
    return found


def _trains(node: ast.AST, flow: Flow | None = None) -> bool:
    """backward() or an optimizer step under ``node``, or in a function of the file it
    calls (a loop that calls ``fit()`` trains)."""
    if flow is None:
        return any(is_backward(n) or is_optimizer_step(n) for n in walk(node))
    memo = flow.memo.setdefault(("eval_trains",), {})
    if node not in memo:
        memo[node] = any(is_backward(n) or is_optimizer_step(n)
                         for m in [node, *flow.calls_into(node)] for n in flow.src.inside(m))
    return memo[node]


def _loader_of(expr: ast.AST) -> ast.AST:
    """``loader`` in ``enumerate(tqdm(loader))`` or ``zip(loader, ...)``."""
    while isinstance(expr, ast.Call) and expr.args and tail(expr) in {
            "enumerate", "tqdm", "zip", "iter", "islice", "progress_bar", "track"}:
        expr = expr.args[0]
    return expr


def _evaluates(src: Source, flow: Flow, func: ast.AST) -> bool:
    """A function that loops over a loader running a model and never trains: an
    evaluation, whatever it is called (``get_loss``, ``score``, ``compute_metrics``)."""
    loops = [n for n in src.inside(func) if isinstance(n, (ast.For, ast.AsyncFor)) and
             "loader" in flow.kinds(_loader_of(n.iter)) and _model_calls(n, flow)]
    return bool(loops) and not _trains(func, flow)


def _sets_eval(node: ast.AST) -> bool:
    for n in walk(node):
        if isinstance(n, ast.Call) and tail(n) == "eval" and isinstance(n.func,
                                                                       ast.Attribute):
            return True
        if isinstance(n, ast.Call) and tail(n) == "train" and n.args and is_const(
                n.args[0], False):
            return True
    return False


def _turns_grad_off(node: ast.AST) -> bool:
    for n in walk(node):
        if isinstance(n, (ast.With, ast.AsyncWith)) and any(
                grad_off_call(i.context_expr) for i in n.items):
            return True
        if isinstance(n, ast.Call) and tail(n) == "set_grad_enabled" and n.args:
            return is_const(n.args[0], False)
    return any(grad_off_call(d) for d in getattr(node, "decorator_list", []))


def _has_modes(src: Source) -> bool:
    """Does the mode matter here: dropout, BatchNorm, a pretrained model, or train()?"""
    for node in src.nodes:
        if isinstance(node, ast.Call):
            name = tail(node)
            method = isinstance(node.func, ast.Attribute)
            if MODE_LAYERS.search(name) or method and name in {"train", "from_pretrained"}:
                return True
            if isinstance(node.func, ast.Attribute) and dotted(node.func.value).endswith(
                    "models"):
                return True
    return False


@rule("ICE104", "evaluation in training mode or with autograd on",
      "book/training.ipynb#train-and-eval")
def ice104(src: Source) -> Found:
    tests = {"pytest", "unittest"} & src.imports
    modes = _has_modes(src)
    flow = flow_of(src)
    judged = set()
    for func in src.nodes:
        if not isinstance(func, FUNCTIONS):
            continue
        if not EVAL_FUNCTION.match(func.name) and not _evaluates(src, flow, func):
            continue
        if tests and func.name.startswith("test"):
            continue
        loops = [n for n in src.inside(func) if isinstance(n, LOOPS) and _model_calls(n, flow)]
        if not loops or _trains(func, flow):
            continue
        judged.add(func)
        sites = [n for n in src.nodes if isinstance(n, ast.Call) and
                 tail(n) == func.name and n is not func]
        scopes = [src.scope(s) for s in sites]
        if modes and not _sets_eval(func):
            covered = any(_sets_eval(s) for s in scopes) if sites else _sets_eval(src.tree)
            if not covered:
                yield func, (f"{func.name}() runs the model without "
                                       "model.eval(): dropout and BatchNorm stay in "
                                       "training mode")
        if not _turns_grad_off(func) and not src.grad_off(func):
            if not any(src.grad_off(s) or _turns_grad_off(sc) and not _trains(sc)
                       for s, sc in zip(sites, scopes)):
                yield loops[0], (
                    f"{func.name}() runs the model with autograd on: wrap it in "
                    "torch.no_grad() (or inference_mode())")
    yield from _eval_blocks(src, modes, flow, judged)
    yield from _flagged_runs(src, modes, flow)


def _eval_blocks(src: Source, modes: bool, flow: Flow, judged: set) -> Found:
    """Validation inline in a training loop or a notebook cell: a loop over a validation
    loader (by its name, or any loader, by behaviour) that runs the model and never trains."""
    for loop in src.nodes:
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        scope = src.scope(loop)
        if scope in judged or isinstance(scope, FUNCTIONS) and EVAL_FUNCTION.match(
                scope.name):
            continue
        named = EVAL_WORDS.search(ast.unparse(loop.iter))
        if not named and not ("loader" in flow.kinds(_loader_of(loop.iter)) and any(
                _trains(other, flow) for other in src.loops_around(loop)[:1] or [scope])):
            continue
        models = _model_calls(loop, flow)
        if not models or _trains(loop, flow):
            continue
        before = [n for n in src.inside(scope) if isinstance(n, ast.Call) and n.lineno <=
                  (loop.end_lineno or loop.lineno) and tail(n) in {"eval", "train"}]
        last = line_order(before)[-1] if before else None
        if modes and (last is None or tail(last) == "train" and not (
                last.args and is_const(last.args[0], False))):
            yield loop, ("a validation loop without model.eval(): dropout and "
                                   "BatchNorm stay in training mode")
        if not all(src.grad_off(m) for m in models):
            yield loop.body[0], ("a validation loop with autograd on: wrap it in "
                                           "torch.no_grad() (or inference_mode())")


def _train_switch(func: Function) -> tuple[str, int] | None:
    """``(parameter, position)`` when backward()/step() run only under ``if param:`` (or
    ``if param is not None:``): one function for both training and evaluation."""
    args = func.args.posonlyargs + func.args.args
    names = [a.arg for a in args]
    for node in walk(func):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.IsNot) and \
                is_const(test.comparators[0], None):
            test = test.left
        if isinstance(test, ast.Name) and test.id in names and _trains(
                ast.Module(node.body, [])):
            return test.id, names.index(test.id)
    return None


def _switched_off(func: Function, call: ast.Call, param: str, index: int) -> bool:
    """This call passes the switch off: False, None, or leaves a falsy default."""
    given = next((kw.value for kw in call.keywords if kw.arg == param), None)
    offset = 1 if func.args.args and func.args.args[0].arg in {"self", "cls"} and \
        isinstance(call.func, ast.Attribute) else 0
    if given is None and index - offset < len(call.args):
        given = call.args[index - offset]
    if given is None:
        defaults = func.args.defaults
        first = len(func.args.posonlyargs + func.args.args) - len(defaults)
        given = defaults[index - first] if index >= first else None
    return given is not None and is_const(given, False, None)


def _flagged_runs(src: Source, modes: bool, flow: Flow) -> Found:
    """``run_epoch(model, loader, train=False)``: an evaluation through a function that
    trains only when its switch is on, and that never turns autograd off or sets eval()."""
    for func in src.nodes:
        if not isinstance(func, FUNCTIONS) or not _model_calls(func, flow):
            continue
        switch = _train_switch(func)
        if switch is None:
            continue
        handles_grad = _turns_grad_off(func) or any(
            isinstance(n, ast.Call) and tail(n) == "set_grad_enabled" for n in walk(func))
        handles_mode = _sets_eval(func) or any(
            isinstance(n, ast.Call) and tail(n) == "train" and n.args and not is_const(
                n.args[0], True) for n in walk(func))
        for site in src.calls(func.name):
            if site is func or not _switched_off(func, site, *switch):
                continue
            scope = src.scope(site)
            before = [c for c in src.inside(scope) if isinstance(c, ast.Call) and
                      tail(c) == "eval" and c.lineno <= site.lineno]
            wrong = [what for what, bad in (
                ("in training mode (call model.eval() first, train() after)",
                 modes and not handles_mode and not before),
                ("with autograd on (wrap the call in torch.no_grad())",
                 not handles_grad and not src.grad_off(site))) if bad]
            if wrong:
                yield site, (f"{func.name}() evaluates here, its training switch "
                                       f"off, {' and '.join(wrong)}")
