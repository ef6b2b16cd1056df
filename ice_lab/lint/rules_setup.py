"""Rules about where a script runs, what it saves and loads, what order its data comes in:
ICE105, ICE106, ICE110, ICE111.

The question each answers: will this script still work on another machine, on a
checkpoint from elsewhere, with workers? Taught in the Devices, Checkpoints and Datasets
chapters.
"""

from __future__ import annotations

import ast
import re

from ._ast import (EVAL_WORDS, FUNCTIONS, Function, Source, dotted, has_kwargs,
                   is_const, keyword, receiver, tail)
from .flow import Flow, flow_of
from .rulebook import Found, rule


CUDA_TEXT = re.compile(r"^cuda(:\d+)?$")
CREATORS = {"zeros", "ones", "randn", "rand", "empty", "full", "arange", "eye", "linspace",
            "randint", "randperm", "tensor", "normal"}
MOVED = {"to", "cuda", "type_as", "to_device"}
GENERATORS = {"random.Random", "torch.Generator", "np.random.Generator"}
MODULE_NAME = re.compile(r"(?i)^(model|net|network|module|\w*model|\w*net)\d*$")


GUARD = re.compile(r"(?i)cuda|gpu|device|is_available")
#: Classes whose forward() runs on the CPU by design (data transforms, not modules).
NOT_MODULE = re.compile(r"Transform$|Dataset$|Sampler$|Callback$")


def _needs_cuda(src: Source) -> bool:
    """A script that needs CUDA on purpose (one process per GPU) or says so in a flag."""
    return any(isinstance(n, ast.Call) and tail(n) in {"set_device", "init_process_group"}
               for n in src.nodes)


def _guarded(src: Source, node: ast.AST) -> bool:
    """Under an ``if`` (or ``x if ... else y``) that asks about CUDA or the device."""
    for up in src.ancestors(node):
        if isinstance(up, (ast.If, ast.IfExp, ast.While)) and GUARD.search(
                ast.unparse(up.test)):
            return True
        if isinstance(up, ast.BoolOp) and GUARD.search(ast.unparse(up)):
            return True
    return False


def _checks(src: Source) -> bool:
    return any(isinstance(n, ast.Call) and tail(n) in {"is_available", "device_count"}
               for n in src.nodes)


def _hard_coded(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        if tail(node) == "cuda" and isinstance(node.func, ast.Attribute) and dotted(
                node.func.value) not in {"torch", "th"}:
            return True
        args = list(node.args) + [kw.value for kw in node.keywords if kw.arg == "device"]
        if tail(node) in {"device", "to"} or keyword(node, "device") is not None:
            return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and
                       CUDA_TEXT.match(a.value) for a in args)
    return False


@rule("ICE105", "the device is hard-coded",
      "book/devices.ipynb#1-one-device-chosen-once")
def ice105(src: Source) -> Found:
    if not _needs_cuda(src):
        checks = _checks(src)
        flow = flow_of(src)
        for node in src.nodes:
            if not isinstance(node, (ast.Call, ast.Attribute)):
                continue  # the calls and the attribute the three checks read
            if _hard_coded(node) or _cuda_by_name(src, flow, node):
                if _guarded(src, node):
                    continue
                where = "outside the is_available() check" if checks else (
                    "with no torch.cuda.is_available() check")
                yield node, (f"CUDA hard-coded {where}: the script fails on a "
                                       "machine without a GPU")
            elif _uncalled_check(src, node):
                yield node, ("torch.cuda.is_available without (): a function is "
                                       "always true, so this always picks CUDA; call it")
    for cls in src.nodes:
        if isinstance(cls, ast.ClassDef) and not any(NOT_MODULE.search(dotted(b))
                                                     for b in cls.bases):
            methods = {f.name: f for f in cls.body if isinstance(f, FUNCTIONS)}
            if "forward" in methods:
                for func in _called_by(src, methods, methods["forward"]):
                    yield from _created_in_forward(src, func)


def _cuda_by_name(src: Source, flow: Flow, node: ast.AST) -> bool:
    """``.to(device)`` or ``device=device`` where every binding of ``device`` is CUDA
    (a module-level ``device = 'cuda'``, a config value)."""
    if not isinstance(node, ast.Call) or tail(node) not in {"to", "device", "cuda"} and \
            keyword(node, "device") is None:
        return False
    args = list(node.args[:1]) + [kw.value for kw in node.keywords if kw.arg == "device"]
    for arg in args:
        if isinstance(arg, (ast.Name, ast.Attribute)) and flow.only(arg, "cuda"):
            values = src.bindings.get(dotted(arg), [])
            if values and not any(_guarded(src, v) for v in values):
                return True
    return False


def _uncalled_check(src: Source, node: ast.AST) -> bool:
    """``torch.cuda.is_available`` read as a value (in an ``if`` or a conditional)."""
    if not (isinstance(node, ast.Attribute) and node.attr == "is_available"):
        return False
    up = src.parents.get(node)
    return not (isinstance(up, ast.Call) and up.func is node) and "cuda" in dotted(node)


def _called_by(src: Source, methods: dict[str, Function],
               forward: Function) -> list[Function]:
    """forward() and the helpers it calls: ``self.make_mask(x)``, ``positional(n)``."""
    found = [forward]
    for node in src.inside(forward):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if name.startswith("self.") and name[5:] in methods and name[5:] != "forward":
            helper = methods[name[5:]]
        elif isinstance(node.func, ast.Name) and len(src.functions.get(name, [])) == 1:
            helper = src.functions[name][0]
            if src.scope(helper) is not src.tree:
                continue
        else:
            continue
        if not _moved_later(src, node):  # self.make_mask(n).to(x.device) is moved
            found.append(helper)
    return list(dict.fromkeys(found))


def _moved_later(src: Source, node: ast.AST) -> bool:
    """``torch.ones(n).to(x.device)``, ``torch.block_diag(*[torch.ones(...)]).to(dev)``:
    the tensor (or what it becomes within the statement) is moved."""
    for up in src.ancestors(node):
        if isinstance(up, ast.stmt):
            return False
        if isinstance(up, ast.Attribute) and up.attr in MOVED | {"new", "expand_as"}:
            return True
    return False


def _created_in_forward(src: Source, func: Function) -> Found:
    moved_names = {dotted(n.func.value) for n in src.inside(func) if isinstance(n, ast.Call) and
                   tail(n) in MOVED and isinstance(n.func, ast.Attribute)}
    for node in src.inside(func):
        if not (isinstance(node, ast.Call) and tail(node) in CREATORS and isinstance(
                node.func, ast.Attribute) and dotted(node.func.value) in {"torch", "th"}):
            continue
        if keyword(node, "device") is not None or has_kwargs(node):
            continue
        if tail(node) == "tensor" and node.args and not isinstance(node.args[0], (
                ast.List, ast.Tuple, ast.ListComp)):
            continue  # a 0-dim tensor mixes with any device
        up = src.parents.get(node)
        if _moved_later(src, node):
            continue
        if isinstance(up, ast.Assign) and any(dotted(t) in moved_names for t in up.targets):
            continue
        where = "forward" if func.name == "forward" else f"{func.name}(), which forward calls,"
        yield node, (f"torch.{tail(node)}() in {where} without device=: it is "
                               "made on the CPU even when the model runs on a GPU; pass "
                               "device=x.device or use *_like(x)")


@rule("ICE106", "an unsafe or fragile checkpoint",
      "book/checkpoints.ipynb#why-weights_only-exists")
def ice106(src: Source) -> Found:
    for node in src.nodes:
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if name in {"torch.load", "th.load"} and keyword(node, "weights_only") is None:
            if not has_kwargs(node):
                yield node, ("torch.load without weights_only=: before torch 2.6 "
                                       "it unpickles (runs) anything in the file; say "
                                       "weights_only=True")
        elif name in {"torch.save", "th.save"} and node.args:
            first = node.args[0]
            if isinstance(first, (ast.Name, ast.Attribute)) and _is_module(src, first):
                yield node, (f"torch.save({dotted(first)}) pickles the whole "
                                       "module, tied to this code's classes: save "
                                       "its state_dict()")


@rule("ICE114", "a checkpoint call given the wrong thing (the state_dict method, a path)",
      "book/checkpoints.ipynb#a-checkpoint-is-a-dict")
def ice114(src: Source) -> Found:
    """``torch.save(model.state_dict, ...)`` (the method, not the dict it returns) and
    ``load_state_dict('file.pt')`` (a path where a dict belongs) (book/checkpoints)."""
    for node in src.calls("save", "load_state_dict"):
        first = node.args[0] if node.args else None
        if tail(node) == "save" and dotted(node.func) in {"torch.save", "th.save"}:
            if isinstance(first, ast.Attribute) and first.attr == "state_dict":
                yield node, (f"torch.save({dotted(first)}) saves the method, not "
                                       "the weights: call it, state_dict()")
        elif tail(node) == "load_state_dict" and first is not None and _is_path(src, first):
            yield node, ("load_state_dict() given a path: it wants the dict; "
                                   "load_state_dict(torch.load(path, weights_only=True))")


def _is_path(src: Source, expr: ast.AST, depth: int = 0) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.Call):
        return dotted(expr.func) in {"os.path.join", "path.join", "Path", "pathlib.Path"}
    if isinstance(expr, ast.Name) and depth < 3:
        values = src.bindings.get(expr.id, [])
        return bool(values) and all(_is_path(src, v, depth + 1) for v in values)
    return False


def _is_module(src: Source, expr: ast.AST) -> bool:
    text = dotted(expr)
    last = text.rsplit(".", 1)[-1]
    if not MODULE_NAME.match(last) or re.search(r"(?i)state|dict|ckpt|checkpoint", text):
        return False
    for value in src.bindings.get(text, []):
        if isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and tail(value) in {
                "state_dict", "dict", "OrderedDict"}):
            return False
    return True


@rule("ICE110", "a validation or test DataLoader with shuffle=True",
      "book/datasets.ipynb#3-a-validation-loader-with-shuffletrue")
def ice110(src: Source) -> Found:
    for node in src.nodes:
        if not (isinstance(node, ast.Call) and tail(node) == "DataLoader"):
            continue
        if not is_const(keyword(node, "shuffle"), True) and not _shuffles_in_kwargs(src, node):
            continue
        data = node.args[0] if node.args else keyword(node, "dataset")
        texts = []
        if isinstance(data, (ast.Name, ast.Attribute, ast.Subscript)):
            texts.append(ast.unparse(data))
        elif isinstance(data, ast.Call) and is_const(keyword(data, "train"), False):
            texts.append("test")  # datasets.MNIST(..., train=False)
        up = src.parents.get(node)
        if isinstance(up, ast.Assign):
            texts += [ast.unparse(t) for t in up.targets]
        elif isinstance(up, ast.Dict):
            texts += [ast.unparse(k) for k, v in zip(up.keys, up.values) if v is node and k]
        text = " ".join(texts)
        if EVAL_WORDS.search(text) and "train" not in text.lower():
            yield node, ("a validation/test DataLoader with shuffle=True: the "
                                   "batches change every pass and predictions no longer "
                                   "line up with the samples")


def _shuffles_in_kwargs(src: Source, call: ast.Call) -> bool:
    """``DataLoader(data, **params)`` where every binding of ``params`` is a dict literal
    with ``"shuffle": True`` (configuration as data)."""
    for kw in call.keywords:
        if kw.arg is None and isinstance(kw.value, (ast.Name, ast.Attribute)):
            name = dotted(kw.value)
            values = src.bindings.get(name, [])
            if values and all(isinstance(v, ast.Dict) and _dict_shuffles(v) for v in values):
                return True
            if values and _updated_to_shuffle(src, name, call):
                return True
    return False


def _dict_shuffles(value: ast.AST) -> bool:
    return isinstance(value, ast.Dict) and any(
        is_const(k, "shuffle") and is_const(v, True) for k, v in zip(value.keys, value.values))


def _updated_to_shuffle(src: Source, name: str, call: ast.Call) -> bool:
    """``kwargs.update({'shuffle': True})`` or ``kwargs['shuffle'] = True`` before ``call``
    in the same scope."""
    scope = src.scope(call)
    for node in src.inside(scope):
        if getattr(node, "lineno", call.lineno) >= call.lineno:
            continue
        if isinstance(node, ast.Call) and tail(node) == "update" and receiver(node) == name:
            if any(_dict_shuffles(a) for a in node.args) or any(
                    kw.arg == "shuffle" and is_const(kw.value, True) for kw in node.keywords):
                return True
        if isinstance(node, ast.Assign) and is_const(node.value, True) and any(
                isinstance(t, ast.Subscript) and dotted(t.value) == name and
                is_const(t.slice, "shuffle") for t in node.targets):
            return True
    return False


@rule("ICE111", "a Dataset copied into every worker: its own generator, or a change made "
      "after the workers started",
      "book/datasets.ipynb#2-a-dataset-that-holds-its-own-random-generator")
def ice111(src: Source) -> Found:
    yield from _stale_worker_copies(src)
    holders = _generator_holders(src)
    if not holders:
        return
    for node in src.nodes:
        if not (isinstance(node, ast.Call) and tail(node) == "DataLoader"):
            continue
        workers = keyword(node, "num_workers")
        if workers is None or is_const(workers, 0) or has_kwargs(node):
            continue
        if keyword(node, "worker_init_fn") is not None:
            continue
        data = node.args[0] if node.args else keyword(node, "dataset")
        made = _class_made(src, data)
        if made not in holders:
            continue
        yield node, (f"{made} draws augmentations from its own generator, "
                               "copied into every worker: the workers repeat each other; "
                               "reseed it in a worker_init_fn")


def _stale_worker_copies(src: Source) -> Found:
    """``train_set.epoch = e`` in the epoch loop while persistent workers iterate it: each
    worker holds its own copy of the Dataset, made once, and never sees the change."""
    for call in src.calls("DataLoader"):
        workers = keyword(call, "num_workers")
        if workers is None or is_const(workers, 0):
            continue
        if not is_const(keyword(call, "persistent_workers"), True):
            continue  # workers made anew each epoch copy the changed Dataset
        data = call.args[0] if call.args else keyword(call, "dataset")
        up = src.parents.get(call)
        if not isinstance(data, (ast.Name, ast.Attribute)) or not isinstance(up, ast.Assign):
            continue
        dataset, loaders = dotted(data), {dotted(t) for t in up.targets}
        for loop in src.of_type(ast.For, ast.While):
            inner = src.inside(loop)
            if not any(isinstance(n, ast.For) and dotted(n.iter) in loaders for n in inner):
                continue
            for node in inner:
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, ast.AugAssign):
                    targets = [node.target]
                else:
                    continue
                if any(isinstance(t, ast.Attribute) and dotted(t.value) == dataset
                       for t in targets):
                    yield node, (
                        f"{dataset} changed in the main process while persistent workers "
                        "iterate it: each worker keeps the copy it made at the start and "
                        "never sees the change; pass it through the sampler, or drop "
                        "persistent_workers")
                    break


def _class_made(src: Source, expr: ast.AST | None, depth: int = 0) -> str:
    """The class whose instance ``expr`` is: ``Noisy(16)``, or a name bound to one."""
    if isinstance(expr, ast.Call):
        return tail(expr)
    if isinstance(expr, (ast.Name, ast.Attribute)) and depth < 3:
        values = src.bindings.get(dotted(expr), [])
        if len(values) == 1:
            return _class_made(src, values[0], depth + 1)
    return ""


def _is_generator(value: ast.AST) -> bool:
    if not isinstance(value, ast.Call):
        return False
    return tail(value) in {"default_rng", "RandomState"} or dotted(value.func) in GENERATORS


def _generator_holders(src: Source) -> set[str]:
    """Dataset classes that make a generator in ``__init__`` and draw from it later."""
    found = set()
    for cls in src.nodes:
        if not isinstance(cls, ast.ClassDef):
            continue
        methods = {m.name: m for m in cls.body if isinstance(m, FUNCTIONS)}
        if "__getitem__" not in methods or "__init__" not in methods:
            continue
        stored = set()
        for node in src.inside(methods["__init__"]):
            if isinstance(node, ast.Assign) and _is_generator(node.value):
                stored |= {dotted(t) for t in node.targets if dotted(t).startswith("self.")}
        others = [m for name, m in methods.items() if name != "__init__"]
        for name in stored:
            reset = any(isinstance(n, ast.Assign) and name in {dotted(t) for t in n.targets}
                        for m in others for n in src.inside(m))
            used = any(isinstance(n, ast.Attribute) and dotted(n) == name
                       for m in others for n in src.inside(m))
            if used and not reset:
                found.add(cls.name)
    return found
