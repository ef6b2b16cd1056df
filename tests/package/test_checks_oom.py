"""ice_lab.checks.oom, the checks of labs/lab-oom.ipynb: each accepts a right answer with
one "Check passed" line, refuses the stub and the usual wrong answers with the hint that
names them, and with a seed tries other cases and still accepts the right answer.

The lab's setting is rebuilt here, small: a 64 -> 256 -> 256 -> 256 -> 10 classifier,
random digit-sized batches, the lab's memory_limit (a MemoryBudget on a CPU)."""

from __future__ import annotations

import functools

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from check_answers import fails, stub
from ice_lab.checks import oom as check
from ice_lab.memory import memory_limit as _memory_limit

memory_limit = functools.partial(_memory_limit, gpu_scale=16)
pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU budget's numbers")

gen = torch.Generator().manual_seed(0)
X = torch.randn(1257, 64, generator=gen)
Y = torch.randint(0, 10, (1257,), generator=gen)
Xv, Yv = X[:270] + 0.1, Y[:270]


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))


def batch(step: int, size: int = 64):
    start = (step * size) % (len(X) - size)
    return X[start:start + size], Y[start:start + size]


# --------------------------------------------------------------------------- exercise 1
def monitor(keep):
    """train_and_monitor with its last lines written by ``keep(total, loss, model)``."""
    def fixed(model, optimizer, steps, trace=None):
        total, history = 0.0, []
        for step in range(steps):
            x, y = batch(step)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total, value = keep(total, loss, model)
            history.append(value)
            if trace is not None:
                trace.record(step)
        return total / steps, history
    return fixed


def numbers(total, loss, model):
    with torch.no_grad():
        return total + loss.item(), F.cross_entropy(model(Xv), Yv).item()


def leak(fn, **kw):
    return check.leak(fn, make_model, batch, (Xv, Yv), memory_limit, **kw)


def test_leak_accepts_numbers_and_draws_other_cases(capsys):
    leak(monitor(numbers))
    leak(monitor(numbers), seed=7)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(line.startswith("Check passed") for line in out)
    assert out[0] != out[1]  # other optimizers and step counts


@pytest.mark.parametrize("keep, hint", [
    (lambda t, loss, m: (t + loss.detach(), F.cross_entropy(m(Xv), Yv)),
     "detaching total_loss alone"),
    (lambda t, loss, m: (t + loss, numbers(0.0, loss, m)[1]),
     "total_loss += loss keeps a tensor with a graph"),
    (lambda t, loss, m: (t + loss.item(), loss.item()), "Those are the training losses"),
])
def test_leak_names_the_mistake(keep, hint):
    fails(lambda: leak(monitor(keep)), hint)


def test_leak_refuses_the_stub_and_autograd_left_off():
    fails(lambda: leak(stub), "The check could not tell what went wrong")

    def switched_off(total, loss, model):
        torch.set_grad_enabled(False)
        return total + loss.item(), F.cross_entropy(model(Xv), Yv).item()

    try:
        fails(lambda: leak(monitor(switched_off)), "switched autograd off")
    finally:
        torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()


# --------------------------------------------------------------------------- exercise 2
search_model = make_model()


def training_step(batch_size: int) -> None:
    search_model.zero_grad(set_to_none=True)
    x = torch.randn(batch_size, 64)
    y = torch.randint(0, 10, (batch_size,))
    F.cross_entropy(search_model(x), y).backward()


def fits(batch_size, limit_mib):
    try:
        with memory_limit(limit_mib):
            training_step(batch_size)
        return True
    except torch.OutOfMemoryError:
        return False


def largest_batch(limit_mib):
    if not fits(1, limit_mib):
        return 0
    good, bad = 1, 2
    while fits(bad, limit_mib):
        good, bad = bad, bad * 2
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if fits(middle, limit_mib) else (good, middle)
    return good


def search(fn, **kw):
    return check.batch_search(fn, training_step, memory_limit, 4, **kw)


def test_batch_search_accepts_doubling_then_bisecting(capsys):
    search(largest_batch)
    search(largest_batch, seed=3)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(line.startswith("Check passed") for line in out)
    assert out[0] != out[1]  # other limits


def doubling_only(limit_mib):
    best, size = 0, 1
    while fits(size, limit_mib):
        best, size = size, size * 2
    return best


def catch_all(limit_mib):
    try:
        return largest_batch(limit_mib)
    except Exception:
        return 0


def uncaught(limit_mib):
    size = 1
    while True:
        with memory_limit(limit_mib):
            training_step(size)
        size *= 2


@pytest.mark.parametrize("fn, hint", [
    (stub, "largest_batch fails"),
    (uncaught, "a try that does not fit ended the search"),
    (doubling_only, "Doubling alone only brackets the answer"),
    (lambda limit_mib: 777, "without trying a single batch size"),
    (lambda limit_mib: largest_batch(2 * limit_mib), "the limit you were given"),
])
def test_batch_search_names_the_mistake(fn, hint):
    fails(lambda: search(fn), hint)


def test_batch_search_lets_other_errors_through():
    def every_error(limit_mib):
        def ok(size):
            try:
                with memory_limit(limit_mib):
                    training_step(size)
                return True
            except Exception:
                return False
        if not ok(1):
            return 0
        good, bad = 1, 2
        while ok(bad):
            good, bad = bad, bad * 2
        while bad - good > 1:
            middle = (good + bad) // 2
            good, bad = (middle, bad) if ok(middle) else (good, middle)
        return good

    fails(lambda: search(every_error), "reads every error as 'does not fit'")


# --------------------------------------------------------------------------- exercise 3
eval_model = make_model()
X_eval, Y_eval = X, Y


def evaluator(forward):
    def evaluate_fixed(model, x, y):
        was = model.training
        model.eval()
        logits = forward(model, x)
        loss = F.cross_entropy(logits, y)
        accuracy = (logits.argmax(dim=1) == y).float().mean()
        model.train(was)
        return accuracy.item(), loss.item()
    return evaluate_fixed


def no_grad_forward(model, x):
    with torch.no_grad():
        return model(x)


def evaluation(fn, **kw):
    return check.evaluation(fn, eval_model, (X_eval, Y_eval), memory_limit, 4, **kw)


def test_evaluation_accepts_a_pass_without_autograd(capsys):
    evaluation(evaluator(no_grad_forward))
    evaluation(evaluator(no_grad_forward), seed=11)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(line.startswith("Check passed") for line in out)


def frozen_forward(model, x):
    model.requires_grad_(False)
    return model(x)


@pytest.mark.parametrize("fn, hint", [
    (stub, "evaluate_fixed fails"),
    (evaluator(lambda model, x: model(x)), "model.eval() does not switch autograd off"),
    (evaluator(lambda model, x: model(x).detach()), "too late"),
    (evaluator(frozen_forward), "freezes the model for training too"),
])
def test_evaluation_names_the_mistake(fn, hint):
    fails(lambda: evaluation(fn), hint)
    assert torch.is_grad_enabled() and all(p.requires_grad for p in eval_model.parameters())


def test_evaluation_wants_the_mode_restored():
    def always_train(model, x, y):
        model.eval()
        with torch.no_grad():
            logits = model(x)
        model.train()
        return ((logits.argmax(dim=1) == y).float().mean().item(),
                F.cross_entropy(logits, y).item())

    fails(lambda: evaluation(always_train), "leave it in the mode it was in")


# --------------------------------------------------------------------------- exercise 4
def colleague(record):
    """The colleague's loop, with its gradient report written by ``record``."""
    def train(model, optimizer, steps, trace=None):
        average = {name: p.detach().clone() for name, p in model.named_parameters()}
        losses, kept = [], []
        for step in range(steps):
            x, y = batch(step)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            kept.append(record(model))
            optimizer.step()
            with torch.no_grad():
                for name, p in model.named_parameters():
                    average[name] = 0.9 * average[name] + 0.1 * p
            losses.append(loss.item())
            if trace is not None:
                trace.record(step)
        norms = {name: [float(torch.as_tensor(g[name]).norm()) for g in kept]
                 for name in average}
        return losses, norms, average
    return train


def the_norms(model):
    return {name: p.grad.norm().item() for name, p in model.named_parameters()}


def the_grads(model):
    return {name: p.grad for name, p in model.named_parameters()}


def colleague_check(fn, **kw):
    return check.colleague(fn, make_model, batch, memory_limit, **kw)


def test_colleague_accepts_norms_per_step(capsys):
    colleague_check(colleague(the_norms))
    colleague_check(colleague(the_norms), seed=5)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(line.startswith("Check passed") for line in out)


def aliased(steps_fn):
    def train(model, optimizer, steps, trace=None):
        zero_grad = optimizer.zero_grad
        optimizer.zero_grad = lambda: zero_grad(set_to_none=False)
        return steps_fn(model, optimizer, steps, trace)
    return train


@pytest.mark.parametrize("fn, hint", [
    (stub, "colleague_train_fixed fails"),
    (colleague(the_grads), "memory still grows"),
    (colleague(lambda m: {n: p.grad.clone() for n, p in m.named_parameters()}),
     "memory still grows"),
    (aliased(colleague(the_grads)), "the same at every step"),
])
def test_colleague_names_the_mistake(fn, hint):
    fails(lambda: colleague_check(fn), hint)


def test_a_second_failure_says_more():
    first = fails(lambda: colleague_check(colleague(the_grads)), "memory still grows")
    second = fails(lambda: colleague_check(colleague(the_grads)), "memory still grows")
    assert "Still stuck" in second and len(second) > len(first) - len("Still stuck")
