"""Right and wrong answers to the exercises of labs/lab-oom.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-oom.ipynb"
OOM = LAB

_SEARCH = """
def fits(batch_size: int) -> bool:
    try:
        with memory_limit(limit_mib):
            training_step(batch_size)
        return True
    except {catch}:
        return False
    finally:
        search_model.zero_grad(set_to_none=True)

{search}
"""
_BISECT = """good, bad = 0, 1
while fits(bad):
    good, bad = bad, bad * 2
while bad - good > 1:
    middle = (good + bad) // 2
    if fits(middle):
        good = middle
    else:
        bad = middle
return {result}"""


def search(search: str = _BISECT.format(result="good"), catch: str = "torch.OutOfMemoryError") -> str:
    return _SEARCH.format(search=search, catch=catch)


_EVAL = "logits = model(x)\nloss = F.cross_entropy(logits, y)\naccuracy = (logits.argmax(dim=1) == y).float().mean()"


def indent(code: str) -> str:
    return "\n".join("    " + line for line in code.splitlines())


# After an answer that converts eval_model (model.half()): the lab's trained model, rebuilt
# exactly (.float() would keep the weights rounded to half precision).
_EVAL_MODEL = """eval_model = make_model()
eval_optimizer = torch.optim.Adam(eval_model.parameters(), lr=1e-3)
for step in range(40):
    x, y = batch(step)
    eval_optimizer.zero_grad()
    F.cross_entropy(eval_model(x), y).backward()
    eval_optimizer.step()"""
_FITS = """def fits(batch_size):
    try:
        with memory_limit(limit_mib):
            training_step(batch_size)
        return True
    except {catch}:
        return False
    finally:
        search_model.zero_grad(set_to_none=True)

"""
_FROM_ONE = """if not fits(1):
    return 0
good, bad = 1, 2
while fits(bad):
    good, bad = bad, bad * 2
while bad - good > 1:
    middle = (good + bad) // 2
    if fits(middle):
        good = middle
    else:
        bad = middle
return good"""


_COLLEAGUE = """average = {name: p.detach().clone() for name, p in model.named_parameters()}
losses, grads = [], []
for step in range(steps):
    x, y = batch(step)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    grads.append({name: p.grad for name, p in model.named_parameters()})
    optimizer.step()
    with torch.no_grad():
        for name, p in model.named_parameters():
            average[name] = 0.9 * average[name] + 0.1 * p
    losses.append(loss.item())
    if trace is not None:
        trace.record(step)
norms = {name: [g[name].norm().item() for g in grads] for name in average}
return losses, norms, average"""


def colleague(old: str = "", new: str = "") -> str:
    """The colleague's loop (exercise 4) with one piece replaced."""
    assert old in _COLLEAGUE
    return _COLLEAGUE.replace(old, new)


_GRADS = "grads.append({name: p.grad for name, p in model.named_parameters()})"
_NORMS = "norms = {name: [g[name].norm().item() for g in grads] for name in average}"


EXERCISES: list[Exercise] = [
    # ================================================================== lab-oom
    Exercise(OOM, "oom_leak", right=(
        R(".item() without no_grad",
          "total_loss += loss.item()\nval_history.append(F.cross_entropy(model(Xv), Yv).item())"),
        R(".detach() on both",
          "total_loss += loss.detach()\n"
          "with torch.no_grad():\n    val_history.append(F.cross_entropy(model(Xv), Yv).detach())"),
        R("float() and inference_mode",
          "total_loss += float(loss)\n"
          "with torch.inference_mode():\n    val_history.append(float(F.cross_entropy(model(Xv), Yv)))"),
        R(".detach().item() without no_grad",
          "total_loss += loss.detach().item()\n"
          "val_history.append(F.cross_entropy(model(Xv), Yv).detach().item())"),
        R("0-d tensors without a graph (no_grad around both lines)",
          "with torch.no_grad():\n    total_loss += loss\n"
          "    val_history.append(F.cross_entropy(model(Xv), Yv))"),
        R("model.eval() and no_grad, then model.train()",
          "total_loss += loss.item()\nmodel.eval()\nwith torch.no_grad():\n"
          "    val_history.append(F.cross_entropy(model(Xv), Yv).item())\nmodel.train()"),
    ), wrong=(
        W(".detach() on total_loss only",
          "total_loss += loss.detach()\nval_history.append(F.cross_entropy(model(Xv), Yv))",
          "detaching total_loss alone leaves the graphs"),
        W("gc.collect() after each step",
          "import gc\ntotal_loss += loss.item()\n"
          "val_history.append(F.cross_entropy(model(Xv), Yv))\ngc.collect()",
          "gc.collect() and torch.cuda.empty_cache() free nothing", hides=True),
        W("total_loss += loss kept",
          "total_loss += loss\nwith torch.no_grad():\n"
          "    val_history.append(F.cross_entropy(model(Xv), Yv).item())",
          "total_loss += loss keeps a tensor with a graph"),
        W("only the last validation loss kept",
          "total_loss += loss.item()\nwith torch.no_grad():\n"
          "    val_history = [F.cross_entropy(model(Xv), Yv).item()]",
          "keep one validation loss per step", hides=True),
        W("torch.set_grad_enabled(False) for the validation loss, never undone",
          "total_loss += loss.item()\ntorch.set_grad_enabled(False)\n"
          "val_history.append(F.cross_entropy(model(Xv), Yv).item())",
          "torch.set_grad_enabled(False) switched autograd off", hides=True,
          cleanup="torch.set_grad_enabled(True)"),
        # Found by the mutation round (before it, the check named another
        # mistake for each, or only said the curve differs).
        W("model.eval() around the validation pass, autograd still on",
          "total_loss += loss.item()\nmodel.eval()\n"
          "val_history.append(F.cross_entropy(model(Xv), Yv))\nmodel.train()",
          "it does not switch autograd off"),
        W("the training loss logged as the validation loss",
          "total_loss += loss.item()\nval_history.append(loss.item())",
          "Those are the training losses", hides=True),
        W("requires_grad_(False) on the validation loss (refused: not a leaf)",
          "total_loss += loss.item()\n"
          "val_history.append(F.cross_entropy(model(Xv), Yv).requires_grad_(False))",
          "The check could not tell what went wrong"),
        W("graphs kept, turned into numbers after the last step",
          "total_loss += loss.item()\nval_history.append(F.cross_entropy(model(Xv), Yv))\n"
          "if step == steps - 1:\n    val_history = [v.item() for v in val_history]",
          "turned into numbers too late"),
        W("the validation loss of the first 64 images, to save memory",
          "total_loss += loss.item()\nwith torch.no_grad():\n"
          "    val_history.append(F.cross_entropy(model(Xv[:64]), Yv[:64]).item())",
          "never saw the whole validation set", hides=True),
    )),
    Exercise(OOM, "oom_batch_search", right=(
        R("bisection from 0 to a bound that fails", search("""good, bad = 0, 4096
while not fits(bad):
    if bad - good <= 1:
        return good
    middle = (good + bad) // 2
    if fits(middle):
        good = middle
    else:
        bad = middle
return bad""")),
        R("catching RuntimeError (its base class) too", search(catch="(torch.OutOfMemoryError, RuntimeError)")),
        R("torch.cuda.OutOfMemoryError", search(catch="torch.cuda.OutOfMemoryError")),
        R("lo/hi bisection with a rounded-up middle", _FITS.format(catch="torch.OutOfMemoryError") + """lo, hi = 0, 1
while fits(hi):
    lo, hi = hi, hi * 2
while lo + 1 < hi:
    mid = (lo + hi + 1) // 2
    if fits(mid):
        lo = mid
    else:
        hi = mid
return lo"""),
        R("the try inline, recovering only after an OOM", """def ok(n):
    try:
        with memory_limit(limit_mib):
            training_step(n)
    except torch.cuda.OutOfMemoryError:
        search_model.zero_grad(set_to_none=True)
        return False
    return True

if not ok(1):
    return 0
low = 1
while ok(low * 2):
    low *= 2
high = low * 2
while high - low > 1:
    mid = (low + high) // 2
    low, high = (mid, high) if ok(mid) else (low, mid)
return low"""),
    ), wrong=(
        W("doubling only, no bisection", search("""best, size = 0, 1
while fits(size):
    best, size = size, size * 2
return best"""), "Doubling alone only brackets the answer"),
        W("off by one: the first size that failed", search(_BISECT.format(result="bad")),
          "off by one"),
        W("a safe size, hard-coded", "return 64", "without trying a single batch size", hides=True),
        W("searched under twice the limit", search().replace("memory_limit(limit_mib)",
                                                             "memory_limit(2 * limit_mib)"),
          "Try each size under memory_limit(limit_mib) itself"),
        W("the OOM not caught", search(catch="ValueError"),
          "a try that does not fit ended the search"),
        W("the answer for this limit hard-coded", "return 777",
          "a number found once and hard-coded is not a search", hides=True),
        W("a linear search from 1", _FITS.format(catch="torch.OutOfMemoryError")
          + "size = 0\nwhile fits(size + 1):\n    size += 1\nreturn size",
          "one size at a time is a search, but a slow one"),
        W("bisection between fixed bounds 0 and 1024 (no doubling)",
          _FITS.format(catch="torch.OutOfMemoryError") + """good, bad = 0, 1024
while bad - good > 1:
    middle = (good + bad) // 2
    if fits(middle):
        good = middle
    else:
        bad = middle
return good""", "the search stops below a bound of its own", hides=True),
        W("batch 1 assumed to fit", _FITS.format(catch="torch.OutOfMemoryError")
          + _FROM_ONE.replace("if not fits(1):\n    return 0\n", ""),
          "not even a batch of 1 fits there"),
        W("every exception caught (except Exception)",
          _FITS.format(catch="Exception") + _FROM_ONE,
          "reads every error as 'does not fit'", hides=True),
        W("the peak measured with peak_bytes, never tried under the limit", """def fits(batch_size):
    return peak_bytes(lambda: training_step(batch_size)) <= limit_mib * MiB

""" + _FROM_ONE, "never ran a try under memory_limit", hides=True),
        W("extrapolated from two measured sizes", """p64 = peak_bytes(lambda: training_step(64))
p128 = peak_bytes(lambda: training_step(128))
per_sample = (p128 - p64) / 64
return int(64 + (limit_mib * MiB - p64) / per_sample)""", "or extrapolated from two sizes, is an estimate"),
    )),
    Exercise(OOM, "oom_eval", right=(
        R("torch.no_grad()", "with torch.no_grad():\n" + indent(_EVAL)),
        R("torch.set_grad_enabled(False) as a block", "with torch.set_grad_enabled(False):\n" + indent(_EVAL)),
        R("a no_grad-decorated helper", "@torch.no_grad()\ndef forward_only(x):\n    return model(x)\n\n"
          "logits = forward_only(x)\nloss = F.cross_entropy(logits, y)\n"
          "accuracy = (logits.argmax(dim=1) == y).float().mean()"),
        R("chunks of 1000 under no_grad, losses summed", """with torch.no_grad():
    total, correct = 0.0, 0
    for xc, yc in zip(x.split(1000), y.split(1000)):
        out = model(xc)
        total += F.cross_entropy(out, yc, reduction="sum").item()
        correct += (out.argmax(dim=1) == yc).sum().item()
loss = torch.tensor(total / len(y))
accuracy = torch.tensor(correct / len(y))"""),
        R("inference_mode for the forward pass only",
          "with torch.inference_mode():\n    logits = model(x)\nloss = F.cross_entropy(logits, y)\n"
          "accuracy = (logits.argmax(dim=1) == y).float().mean()"),
    ), wrong=(
        W("model.eval() alone (the bug)", _EVAL, "model.eval() does not switch autograd off"),
        W(".detach() after the forward pass",
          "logits = model(x).detach()\nloss = F.cross_entropy(logits, y)\n"
          "accuracy = (logits.argmax(dim=1) == y).float().mean()",
          ".detach() after the forward pass is too late"),
        W("torch.set_grad_enabled(False) left switched off",
          "torch.set_grad_enabled(False)\n" + _EVAL,
          "autograd is still off after evaluate_fixed", hides=True,
          cleanup="torch.set_grad_enabled(True)"),
        W("model.requires_grad_(False), never undone",
          "model.requires_grad_(False)\n" + _EVAL,
          "requires_grad_(False) freezes the model for training too", hides=True,
          cleanup="_ = eval_model.requires_grad_(True)"),
        W("chunks with autograd still recording", """total, correct = 0.0, 0
for xc, yc in zip(x.split(1024), y.split(1024)):
    out = model(xc)
    total += F.cross_entropy(out, yc, reduction="sum").item()
    correct += (out.argmax(dim=1) == yc).sum().item()
loss = torch.tensor(total / len(y))
accuracy = torch.tensor(correct / len(y))""", "splitting it into chunks fits the budget", hides=True),
        W("a subset of the data", "with torch.no_grad():\n" + indent(_EVAL.replace("model(x)", "model(x[:1000])").replace(
            "cross_entropy(logits, y)", "cross_entropy(logits, y[:1000])").replace("== y)", "== y[:1000])")),
          "same model, same data", hides=True),
        W("the lab's eval_model and X_eval instead of the arguments",
          "with torch.no_grad():\n" + indent(_EVAL.replace("model(x)", "eval_model(X_eval)")
                                            .replace("== y)", "== Y_eval)")
                                            .replace("cross_entropy(logits, y)", "cross_entropy(logits, Y_eval)")),
          "never ran the model it was given"),
        W("requires_grad_(False), then requires_grad_(True) for every parameter",
          "model.requires_grad_(False)\n" + _EVAL + "\nmodel.requires_grad_(True)",
          "unfreezes everything", hides=True),
        W("set_grad_enabled(False), then set_grad_enabled(True) whatever it was",
          "torch.set_grad_enabled(False)\n" + _EVAL + "\ntorch.set_grad_enabled(True)",
          "switches autograd back on for its caller", hides=True),
        W("model.half() to halve the memory",
          "with torch.no_grad():\n    logits = model.half()(x.half()).float()\n"
          "    loss = F.cross_entropy(logits, y)\n    accuracy = (logits.argmax(dim=1) == y).float().mean()",
          "converts the model itself, in place", hides=True, cleanup=_EVAL_MODEL),
        W("the mean of the chunks' means", """with torch.no_grad():
    means, correct = [], 0
    for xc, yc in zip(x.split(500), y.split(500)):
        out = model(xc)
        means.append(F.cross_entropy(out, yc))
        correct += (out.argmax(dim=1) == yc).sum()
loss = torch.stack(means).mean()
accuracy = correct / len(y)""", "a mean of the chunks' means"),
    )),
    Exercise(OOM, "oom_colleague", right=(
        R("the norms taken at every step, as numbers",
          colleague(_GRADS, "grads.append({name: p.grad.norm().item() "
                    "for name, p in model.named_parameters()})")
          .replace(_NORMS, "norms = {name: [g[name] for g in grads] for name in average}")),
        R("float(torch.linalg.vector_norm(...)) per parameter, lists filled in the loop",
          colleague(_GRADS, "for name, p in model.named_parameters():\n"
                    "        norms.setdefault(name, []).append("
                    "float(torch.linalg.vector_norm(p.grad)))")
          .replace("losses, grads = [], []", "losses, norms = [], {}").replace(_NORMS, "")),
        R("0-d norm tensors kept (4 bytes each, no graph)",
          colleague(_GRADS, "grads.append({name: p.grad.norm() "
                    "for name, p in model.named_parameters()})")
          .replace("g[name].norm().item()", "g[name]")),
        R("the average updated in place, norms as numbers",
          colleague(_GRADS, "grads.append({name: p.grad.norm().item() "
                    "for name, p in model.named_parameters()})")
          .replace(_NORMS, "norms = {name: [g[name] for g in grads] for name in average}")
          .replace("average[name] = 0.9 * average[name] + 0.1 * p",
                   "average[name].mul_(0.9).add_(0.1 * p)")),
    ), wrong=(
        W("the colleague's loop as it is", colleague(), "memory still grows"),
        W("the gradients cloned before they are kept",
          colleague("p.grad for name", "p.grad.clone() for name"), "memory still grows"),
        W("the gradients detached before they are kept",
          colleague("p.grad for name", "p.grad.detach() for name"), "memory still grows"),
        W("gc.collect() after every step",
          colleague("losses.append(loss.item())",
                    "losses.append(loss.item())\n    import gc\n    gc.collect()"),
          "memory still grows"),
        W("zero_grad(set_to_none=False): one gradient tensor, zeroed in place",
          colleague("optimizer.zero_grad()", "optimizer.zero_grad(set_to_none=False)"),
          "the same at every step", hides=True),
        W("only the last step's gradients kept",
          colleague(_GRADS, "grads = [{name: p.grad for name, p in "
                    "model.named_parameters()}]"),
          "the report is incomplete", hides=True),
        W("the report dropped", colleague(_GRADS, "pass").replace(_NORMS, "norms = {}"),
          "the report is incomplete", hides=True),
        W("the norms of the weights, not of their gradients",
          colleague(_GRADS, "grads.append({name: p.norm().item() "
                    "for name, p in model.named_parameters()})")
          .replace(_NORMS, "norms = {name: [g[name] for g in grads] for name in average}"),
          "the gradient norms differ from the colleague's loop"),
    )),
]
