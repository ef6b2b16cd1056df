"""Rules about the order of calls across iterations: ICE113 (training resumed after
``eval()`` without ``train()``), ICE115 (``zero_grad()`` inside a gradient-accumulation
window).

The question each answers: in what state does the second iteration start? A model left
in eval mode by the validation of epoch 1 trains every later epoch without dropout and
with frozen BatchNorm statistics; gradients cleared every micro-batch leave ``step()``
only the last one. Taught in the Training chapter ('train() and eval()', 'Gradient
accumulation').
"""

from __future__ import annotations

import ast
import re

from ._ast import LOOPS, Source, dotted, is_const, receiver, tail, walk
from .flow import Flow, flow_of
from .rules_loop import is_backward, is_optimizer_step, is_zeroing, zeroing_helpers
from .rulebook import Found, rule

OTHER_MODELS = re.compile(r"(?i)teacher|ema|target|frozen|reference|ref_|clip|judge")


def _mode_calls(node: ast.AST, mode: str, src: Source | None = None) -> list[ast.Call]:
    """``x.eval()``/``x.train(False)`` (mode 'eval') or ``x.train()`` (mode 'train')."""
    found = []
    for n in (src.inside(node) if src is not None else walk(node)):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        if OTHER_MODELS.search(receiver(n)):
            continue
        off = n.args and is_const(n.args[0], False)
        if mode == "eval" and (tail(n) == "eval" and not n.args or tail(n) == "train" and off):
            found.append(n)
        elif mode == "train" and tail(n) == "train" and not off and len(n.args) <= 1:
            found.append(n)
    return found


def _reach(flow: Flow, node: ast.AST) -> list[ast.AST]:
    """``node`` and every function of the file it calls, directly or not."""
    return [node, *flow.calls_into(node)]


def _sets(flow: Flow, node: ast.AST, mode: str) -> bool:
    memo = flow.memo.setdefault(("sets", mode), {})
    if node not in memo:
        memo[node] = any(_mode_calls(m, mode, flow.src) for m in _reach(flow, node))
    return memo[node]


def _trains(flow: Flow, node: ast.AST) -> bool:
    memo = flow.memo.setdefault(("trains",), {})
    if node not in memo:
        memo[node] = any(is_backward(n) or is_optimizer_step(n)
                         for m in _reach(flow, node) for n in flow.src.inside(m))
    return memo[node]


def _first_eval_site(flow: Flow, loop: ast.AST) -> ast.Call | None:
    """The statement of ``loop`` that leaves the model in eval mode (a call or eval())."""
    for node in sorted(walk(loop), key=lambda n: (getattr(n, "lineno", 0),
                                                   getattr(n, "col_offset", 0))):
        if not isinstance(node, ast.Call):
            continue
        if _mode_calls(ast.Expr(node), "eval"):
            return node
        if tail(node) in flow.src.functions and isinstance(node.func, ast.Name) and any(
                _sets(flow, f, "eval") for f in flow.src.functions[tail(node)]):
            return node
    return None


# --------------------------------------------------------------------------- ICE113


@rule("ICE113", "training resumed after eval() without train()",
      "book/training.ipynb#train-and-eval")
def ice113(src: Source) -> Found:
    """A loop that trains and evaluates, and never puts the model back in train mode."""
    if not any(tail(c) == "eval" and not c.args or c.args and is_const(c.args[0], False)
               for c in src.calls("eval", "train")):
        return  # nothing ever leaves train mode
    flow = flow_of(src)
    for loop in src.nodes:
        if not isinstance(loop, LOOPS) or not _trains(flow, loop):
            continue
        if not _sets(flow, loop, "eval") or _sets(flow, loop, "train"):
            continue
        site = _first_eval_site(flow, loop)
        if site is not None:
            yield site, (
                "this leaves the model in eval mode and nothing in the loop calls "
                "model.train(): from the second pass on it trains without dropout and "
                "with frozen BatchNorm statistics")
    yield from _cells_in_order(src, flow)


def _cells_in_order(src: Source, flow: Flow) -> Found:
    """A notebook (or script) that calls model.eval() at top level, then trains below it
    without model.train() in between."""
    evaluated = None
    for stmt in src.tree.body:
        if isinstance(stmt, ast.Expr) and _mode_calls(stmt, "eval"):
            evaluated = stmt
            continue
        if evaluated is None or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                  ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        if _sets(flow, stmt, "train"):
            evaluated = None
            continue
        if evaluated is not None and isinstance(stmt, LOOPS) and _trains(flow, stmt) and \
                not _sets(flow, stmt, "eval"):
            yield stmt, (
                f"this trains after {ast.unparse(evaluated.value)} (line "
                f"{evaluated.lineno}) with no model.train() between: dropout and "
                "BatchNorm stay in eval mode")
            evaluated = None


# --------------------------------------------------------------------------- ICE115


def _is_window(test: ast.AST) -> bool:
    """``(i + 1) % accum_steps == 0``, ``step % N``, ``if accumulate_now``."""
    text = ast.unparse(test)
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
               for n in ast.walk(test)) or bool(re.search(r"(?i)accum", text))


@rule("ICE115", "zero_grad() inside a gradient-accumulation window",
      "book/training.ipynb#gradient-accumulation")
def ice115(src: Source) -> Found:
    """zero_grad() every micro-batch while step() waits for N of them."""
    helpers = zeroing_helpers(src)
    for loop in src.nodes:
        if not isinstance(loop, LOOPS):
            continue
        windows = [n for n in loop.body if isinstance(n, ast.If) and _is_window(n.test) and
                   any(is_optimizer_step(m) for m in walk(n))]
        if not windows:
            continue
        direct = [n for stmt in loop.body if stmt not in windows and not isinstance(
            stmt, (ast.If, *LOOPS)) for n in [stmt, *walk(stmt)]]
        if not any(is_backward(n) for n in direct):
            continue
        for n in direct:
            if isinstance(n, ast.Call) and is_zeroing(n, helpers):
                stepped = [m for w in windows for m in walk(w) if is_optimizer_step(m)]
                yield n, (
                    f"{dotted(n.func)}() runs every micro-batch but "
                    f"{dotted(stepped[0].func)}() only every few: the step sees only the "
                    "last micro-batch's gradient; zero after the step, inside the if")
                break
