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
    ), wrong=(
        W(".detach() on total_loss only",
          "total_loss += loss.detach()\nval_history.append(F.cross_entropy(model(Xv), Yv))",
          "keep loss.item() (or compute the validation loss under torch.no_grad())"),
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
    ), wrong=(
        W("doubling only, no bisection", search("""best, size = 0, 1
while fits(size):
    best, size = size, size * 2
return best"""), "Doubling alone only brackets the answer"),
        W("off by one: the first size that failed", search(_BISECT.format(result="bad")),
          "off by one"),
        W("a safe size, hard-coded", "return 64", "64 is not the largest", hides=True),
        W("searched under twice the limit", search().replace("memory_limit(limit_mib)",
                                                             "memory_limit(2 * limit_mib)"),
          "Try each size under memory_limit(limit_mib) itself"),
        W("the OOM not caught", search(catch="ValueError"),
          "catch torch.OutOfMemoryError around each try"),
        W("the answer for this limit hard-coded", "return 777",
          "a number found once and hard-coded is not a search", hides=True),
    )),
    Exercise(OOM, "oom_eval", right=(
        R("torch.no_grad()", "with torch.no_grad():\n" + indent(_EVAL)),
        R("torch.set_grad_enabled(False) as a block", "with torch.set_grad_enabled(False):\n" + indent(_EVAL)),
        R("a no_grad-decorated helper", "@torch.no_grad()\ndef forward_only(x):\n    return model(x)\n\n"
          "logits = forward_only(x)\nloss = F.cross_entropy(logits, y)\n"
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
    )),
]
