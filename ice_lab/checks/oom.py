"""Checks of ``labs/lab-oom.ipynb`` (chapter: Devices, ``book/devices.ipynb``): memory
that grows every step, the largest batch that fits, an evaluation pass that does not fit,
and a colleague's training loop whose memory grows.

Every check runs the learner's code under the lab's ``memory_limit`` (a simulated
``MemoryBudget`` on a CPU, a real cap on a GPU) and with a ``memory_trace``, and compares
what it returns with a reference computed here.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ..memory import MemoryBudget, MemoryTrace, memory_trace
from ._core import Hints, need_callable, passed, quote, rng

_leak = Hints("train_and_monitor_fixed")
_search = Hints("largest_batch")
_eval = Hints("evaluate_fixed")
_colleague = Hints("colleague_train_fixed")

Batch = Callable[[int], tuple[torch.Tensor, torch.Tensor]]
Limit = Callable[[float], Any]
OPTIMIZERS = {"SGD": torch.optim.SGD, "Adam": torch.optim.Adam, "RMSprop": torch.optim.RMSprop}
#: Growth per step (bytes) that counts as flat.
FLAT = 1024


def _run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, BaseException | None]:
    """``fn(...)``, or ``(None, the exception)``: an OOM is an answer here, not a crash."""
    try:
        return fn(*args, **kwargs), None
    except Exception as error:  # the checks name the mistake from what came back
        return None, error


def _quoted(error: BaseException | None) -> str:
    """``quote(error)`` of what ``_run`` caught, "" if nothing was raised (a hint's text
    is built before ``require`` decides, so it also meets the cases that pass)."""
    return "" if error is None else quote(error)


@contextlib.contextmanager
def _traced(memory_limit: Limit | None, mib: float | None) -> Iterator[MemoryTrace]:
    """A memory_trace, under ``memory_limit(mib)`` when a limit is given."""
    if mib is not None and memory_limit is not None:
        with memory_limit(mib) as limit:
            yield memory_trace(limit if isinstance(limit, MemoryBudget) else None)
    elif torch.cuda.is_available():
        yield memory_trace()
    else:
        with MemoryBudget(None) as budget:
            yield memory_trace(budget)


def _growth(trace: MemoryTrace) -> float:
    return trace.growth_per_step() if len(set(trace.steps)) > 1 else float("inf")


def _has_graph(values: list[Any]) -> bool:
    return any(torch.is_tensor(v) and v.requires_grad for v in values)


def _optimizer_cases(seed: int | None, default: int,
                     visible: list[tuple[str, int, float]]) -> list[tuple[str, int, float]]:
    """(optimizer, steps, learning rate): the lab's cases, or three drawn from ``seed``."""
    if seed is None:
        return visible
    gen = rng(seed, default)
    return [(kind, gen.randint(2, 7), 10 ** (-3 + gen.random())) for kind in OPTIMIZERS]


# --------------------------------------------------------------------------- exercise 1
def leak(fn: Callable, make_model: Callable[[], nn.Module], batch: Batch,
         validation: tuple[torch.Tensor, torch.Tensor], memory_limit: Limit, *,
         limit_mib: float = 6, seed: int | None = None) -> None:
    """``fn(model, optimizer, steps, trace)`` trains as ``train_and_monitor`` does and
    returns the same mean training loss and validation curve, as numbers, with memory
    flat from step to step under ``memory_limit(limit_mib)``, for any optimizer and
    number of steps."""
    need_callable(fn, "train_and_monitor_fixed")
    xv, yv = validation
    cases = _optimizer_cases(seed, 41, [("SGD", 10, 0.05), ("Adam", 4, 1e-3)])
    h = _leak.require
    for kind, steps, lr in cases:
        name = f"{kind}, lr {lr:.2g}, {steps} steps"
        model = make_model()  # the reference: the same loop, keeping numbers
        opt = OPTIMIZERS[kind](model.parameters(), lr=lr)
        train, val = [], []
        for step in range(steps):
            x, y = batch(step)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            train.append(loss.item())
            with torch.no_grad():
                val.append(F.cross_entropy(model(xv), yv).item())
        model = make_model()
        opt = OPTIMIZERS[kind](model.parameters(), lr=lr)
        seen: list[tuple[bool, bool]] = []  # (training?, grad on?) per validation pass
        hook = model.register_forward_hook(
            lambda module, inputs, output: seen.append(
                (module.training, torch.is_grad_enabled()))
            if inputs[0].shape[0] == xv.shape[0] else None)
        try:
            with _traced(memory_limit, limit_mib) as trace:
                result, error = _run(fn, model, opt, steps=steps, trace=trace)
        finally:
            hook.remove()
        grad_off = not torch.is_grad_enabled()
        torch.set_grad_enabled(True)  # what the learner's code switched off stays on here
        h(not grad_off and "does not require grad" not in str(error),
          f"training stopped working ({quote(error) if error else 'autograd is off'}): "
          "torch.set_grad_enabled(False) switched autograd off for the rest of the loop, "
          "the next backward() included, and left it off after the loop.", kind="grad",
          more="the Devices chapter shows how to switch autograd off for one block only.")
        oom = isinstance(error, torch.OutOfMemoryError)
        h(error is None or oom,
          f"{name} under the {limit_mib:g} MiB limit fail with {_quoted(error)}. The "
          "check could not tell what went wrong: the loop must run as before.")
        growth = _growth(trace) if not oom else float("inf")
        grows = oom or abs(growth) >= FLAT
        probe: Any = None  # when memory grows: what 3 steps without a limit return
        if grows:
            probe_model = make_model()
            probe_opt = OPTIMIZERS[kind](probe_model.parameters(), lr=lr)
            with _traced(None, None):
                probe, _ = _run(fn, probe_model, probe_opt, steps=3)
        graphs = probe is not None and _has_graph([probe[0], *probe[1]])
        h(not grows or not any(not training and grad for training, grad in seen),
          f"{name}: memory still grows (or runs out under {limit_mib:g} MiB), and the "
          "validation pass runs under model.eval(): model.eval() changes dropout and "
          "batch norm, it does not switch autograd off, and every validation loss kept "
          "still holds its graph.", kind="eval",
          more="1.3 Diagnose: what does one validation loss hold, and why?")
        leak_hint = ("What the loop returns still holds graphs (1.3 Diagnose: the bytes "
                     "one validation loss holds). gc.collect() and torch.cuda.empty_cache() "
                     "free nothing that is still referenced, and detaching total_loss alone "
                     "leaves the graphs kept in val_history.")
        h(not oom or not graphs,
          f"{steps} steps under the {limit_mib:g} MiB limit fail: {_quoted(error)}. "
          + leak_hint, kind="graphs",
          more="print type(v) and v.grad_fn for what val_history holds.")
        h(not oom,
          f"{steps} steps under the {limit_mib:g} MiB limit fail: {_quoted(error)}. "
          "What the loop returns holds no graph, but the graphs live while it runs: "
          "turned into numbers too late (after the loop, or every few steps).")
        h(len(trace.allocated) == steps,
          "keep the trace.record(step) call at the end of every step: the check reads "
          "the memory curve from it.")
        h(abs(growth) < FLAT,
          f"memory still grows by {growth:,.0f} bytes per step ({name}). "
          + (leak_hint if graphs else "What the loop returns holds no graph, but "
             "something kept across steps does."))
        mean, curve = result
        h(not _has_graph([mean, *curve]),
          "the results still carry graphs (requires_grad=True): total_loss += loss "
          "keeps a tensor with a graph.")
        expected_mean = sum(train) / steps
        h(abs(float(mean) - expected_mean) < 1e-5,
          f"the mean training loss is {float(mean):.6f} after {name}, expected "
          f"{expected_mean:.6f}: it must be the same as before the fix, the sum of every "
          "step's loss over the number of steps.")
        h(len(curve) == steps,
          f"val_history holds {len(curve)} values for {steps} steps: keep one validation "
          "loss per step (the whole curve, not only the last value).")
        floats = [float(v) for v in curve]
        off = [i for i, (a, b) in enumerate(zip(floats, val)) if abs(a - b) > 1e-5]
        like_train = all(abs(a - b) < 1e-5 for a, b in zip(floats, train))
        h(not off,
          f"the validation curve must be the same as before the fix ({name}): at step "
          f"{off[0] if off else 0} it holds {floats[off[0]] if off else 0:.5f}, expected "
          f"{val[off[0]] if off else 0:.5f}. "
          + ("Those are the training losses, not the validation set's." if like_train
             else "The model never saw the whole validation set in one pass: the loss of "
             "all of Xv, Yv, not of a part." if not seen
             else "The check could not tell what went wrong: after each step, the loss of "
             "the whole validation set."))
    what = ", ".join(f"{kind} for {steps} steps" for kind, steps, _ in cases)
    passed(f"memory flat under {limit_mib:g} MiB, the same losses and curve as a loop that "
           f"keeps numbers, with {what}; no graphs.")


# --------------------------------------------------------------------------- exercise 2
@contextlib.contextmanager
def _swapped(fn: Callable, swaps: list[tuple[object, object]]) -> Iterator[None]:
    """Inside the block, every global of ``fn``'s module bound to an original of ``swaps``
    is bound to its replacement (the lab's names, as the learner's code reads them)."""
    names = fn.__globals__ if hasattr(fn, "__globals__") else {}
    found = {key: value for key, value in names.items()
             for original, _ in swaps if value is original}
    try:
        for key, value in found.items():
            names[key] = next(new for original, new in swaps if original is value)
        yield
    finally:
        names.update(found)


def _limit_used(args: tuple, kwargs: dict) -> Any:
    return (args or (*kwargs.values(), None))[0]


def batch_search(fn: Callable[[float], int], training_step: Callable[[int], None],
                 memory_limit: Limit, limit_mib: float, *, seed: int | None = None) -> None:
    """``fn(limit_mib)`` returns the largest batch size whose ``training_step`` fits under
    ``memory_limit(limit_mib)`` (0 if none), found by trying sizes under that limit, in
    about twice log2 of the answer tries, for any limit; errors other than an OOM pass
    through."""
    need_callable(fn, "largest_batch")
    h = _search.require
    if seed is None:
        limits = [limit_mib, limit_mib / 2, limit_mib * 2, 0.05]
    else:
        gen = rng(seed, 43)
        limits = [limit_mib] + [round(0.3 + 6.7 * gen.random(), 2) for _ in range(3)]

    def fits(size: int, mib: float) -> BaseException | None:
        with contextlib.suppress(torch.OutOfMemoryError):
            with memory_limit(mib):
                training_step(size)
            return None
        return torch.OutOfMemoryError()

    runs = {}  # limit -> (answer, the error, sizes tried, limits used)
    for mib in limits:
        tried: list[int] = []
        used: list[Any] = []

        def step_spy(size: int, *args: Any, **kwargs: Any) -> None:
            tried.append(size)
            return training_step(size, *args, **kwargs)

        def limit_spy(*args: Any, **kwargs: Any) -> Any:
            used.append(_limit_used(args, kwargs))
            return memory_limit(*args, **kwargs)

        with _swapped(fn, [(training_step, step_spy), (memory_limit, limit_spy)]):
            answer, error = _run(fn, mib)
        runs[mib] = (answer, error, tried, used)
        if mib == limit_mib and len(tried) > 100:
            break  # a search one size at a time: the first limit tells it
    best, error, tried, used = runs[limit_mib]
    h(error is None,
      f"largest_batch fails ({quote(error) if error else ''}): a try that does not fit "
      "ended the search. A failed try is an answer, not a crash (2.4 Fix says which error "
      "a try raises).", kind="uncaught",
      more="2.2 Observe shows the error a try raises; catch that one, and only that one.")
    h(isinstance(best, int) and not isinstance(best, bool) and best > 0,
      f"largest_batch should return a positive int, got {best!r}.")
    h(tried,
      f"largest_batch({limit_mib:g}) returned {best} without trying a single batch size: "
      "a number found once and hard-coded is not a search.")
    h(used,
      f"largest_batch({limit_mib:g}) never ran a try under memory_limit: a peak measured "
      "with peak_bytes, or extrapolated from two sizes, is an estimate (on a GPU the "
      "allocator rounds every block). Only a try under the limit tells.")
    h(set(used) == {limit_mib},
      f"largest_batch({limit_mib:g}) tried sizes under memory_limit({set(used)}). Try "
      "each size under memory_limit(limit_mib) itself, the limit you were given.")
    fits_best, fits_below = fits(best, limit_mib), fits(best - 1, limit_mib)
    h(fits_best is None or fits_below is not None,
      f"batch {best} does not fit under {limit_mib:g} MiB, but {best - 1} does: off by "
      "one. Return the last size that fit, not the first that failed.")
    h(fits_best is None,
      f"batch {best} does not fit under {limit_mib:g} MiB. The check could not tell what "
      "went wrong: return the largest size whose try under memory_limit(limit_mib) fit.")
    power_of_two = best & (best - 1) == 0
    h(fits(best + 1, limit_mib) is not None,
      f"batch {best + 1} fits too, so {best} is not the largest."
      + (" Doubling alone only brackets the answer (a power of two): the answer lies "
         "between the last size that fit and the first that did not." if power_of_two
         else " Search, do not guess."))
    bound = 3 * math.ceil(math.log2(best + 2)) + 6
    h(len(tried) <= bound,
      f"largest_batch tried {len(tried)} sizes to find {best}: one size at a time is a "
      "search, but a slow one (each try is a training step). About "
      f"{2 * math.ceil(math.log2(best + 2))} tries are enough.")
    for mib, (answer, error, tried, used) in runs.items():
        h(error is None,
          f"largest_batch fails under {mib:g} MiB ({quote(error) if error else ''}): a "
          "try that does not fit ended the search, for this limit.", kind="uncaught")
        h(isinstance(answer, int) and not isinstance(answer, bool) and answer >= 0,
          f"largest_batch({mib:g}) returns {answer!r}: an int, 0 if no size fits.")
        h(fits(max(answer, 1), mib) is None or answer == 0,
          f"under {mib:g} MiB largest_batch returns {answer}, which does not fit"
          + (": not even a batch of 1 fits there, and then the answer is 0."
             if answer == 1 else
             ": the search must use limit_mib, for any limit (a number found once and "
             "hard-coded is not a search)."))
        h(answer > 0 or fits(1, mib) is not None,
          f"under {mib:g} MiB a batch of 1 fits, but largest_batch returns 0.")
        capped = answer & (answer + 1) == 0  # 1023: below a bound of 1024
        h(fits(answer + 1, mib) is not None,
          f"under {mib:g} MiB largest_batch returns {answer}, but {answer + 1} fits too: "
          + ("the search stops below a bound of its own, whatever the limit."
             if capped and answer > 1 else
             "the search must use limit_mib, for any limit (a number found once and "
             "hard-coded is not a search)."))

    def buggy_step(size: int, *args: Any, **kwargs: Any) -> None:
        raise ValueError("a bug in the step, not memory")

    with _swapped(fn, [(training_step, buggy_step)]):
        swallowed, error = _run(fn, limit_mib)
    h(isinstance(error, ValueError),
      f"When training_step raises a ValueError (a bug, not memory), largest_batch "
      f"{'returns ' + repr(swallowed) if error is None else 'raises ' + quote(error)} "
      "instead of letting it through: catching every exception (except Exception, or a "
      "bare except) reads every error as 'does not fit'.")
    passed(f"{best} fits under {limit_mib:g} MiB, {best + 1} does not; the search holds "
           f"for {', '.join(f'{m:g}' for m in limits[1:])} MiB too.")


# --------------------------------------------------------------------------- exercise 3
def _reference(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """(accuracy, mean loss) of one pass without autograd, the model's mode left as it was."""
    was = model.training
    model.eval()
    with torch.no_grad():
        logits = model(x)
        result = ((logits.argmax(dim=1) == y).float().mean().item(),
                  F.cross_entropy(logits, y).item())
    model.train(was)
    return result


def _other_model(model: nn.Module, gen: torch.Generator, frozen: list[bool]) -> nn.Module:
    """A copy of ``model`` with other weights, the parameters of ``frozen`` layers frozen."""
    other = copy.deepcopy(model)
    with torch.no_grad():
        for p in other.parameters():
            p.add_(torch.randn(p.shape, generator=gen).to(p.device) * 0.05)
    layers = [m for m in other.modules() if isinstance(m, nn.Linear)]
    for layer, freeze in zip(layers, frozen):
        layer.requires_grad_(not freeze)
    return other


def evaluation(fn: Callable, model: nn.Module, data: tuple[torch.Tensor, torch.Tensor],
               memory_limit: Limit, limit_mib: float, *, seed: int | None = None) -> None:
    """``fn(model, x, y)`` returns the (accuracy, mean loss) of one pass without a graph,
    fits under ``memory_limit(limit_mib)``, works for any model, data and caller, and
    leaves the model (weights, which parameters require grad, mode) and autograd's mode
    as it found them."""
    need_callable(fn, "evaluate_fixed")
    h = _eval.require
    x, y = data
    gen = torch.Generator().manual_seed(47 if seed is None else seed)
    cases = []  # (name, model, x, y, caller under no_grad?, limit, model in eval mode?)
    if seed is None:
        cases += [
            ("the lab's model", model, x, y, False, limit_mib, False),
            ("another model, 700 rows", _other_model(model, gen, [True]), x[:700], y[:700],
             False, None, False),
            ("a caller under no_grad", _other_model(model, gen, [True]), x[:300], y[:300],
             True, None, False),
            ("a model already in eval mode", _other_model(model, gen, []), x[:200],
             y[:200], False, None, True),
        ]
    else:
        for k in range(3):  # random weights, frozen layers, sizes, and the caller's mode
            frozen = (torch.rand(4, generator=gen) < 0.5).tolist()
            n = int(torch.randint(50, len(x), (1,), generator=gen))
            cases.append((f"{n} rows of another model", _other_model(model, gen, frozen),
                          x[-n:], y[-n:], k == 2, None, k == 1))
    for name, net, xs, ys, caller_off, mib, in_eval in cases:
        net.train(not in_eval)
        expected = _reference(net, xs, ys)
        state = {k: v.clone() for k, v in net.state_dict().items()}
        flags = [p.requires_grad for p in net.parameters()]
        seen: list[bool] = []  # requires_grad of the output of every layer
        rows: list[int] = []  # rows of every batch the whole model received
        hooks = [net.register_forward_pre_hook(
            lambda module, inputs: rows.append(len(inputs[0])))]
        hooks += [layer.register_forward_hook(
            lambda module, inputs, output: seen.append(output.requires_grad))
            for layer in net.children()]
        try:
            with torch.no_grad() if caller_off else contextlib.nullcontext():
                if mib is None:
                    result, error = _run(fn, net, xs, ys)
                else:
                    with memory_limit(mib):
                        result, error = _run(fn, net, xs, ys)
                grad_after = torch.is_grad_enabled()
        finally:
            for hook in hooks:
                hook.remove()
        grad_now = torch.is_grad_enabled()
        torch.set_grad_enabled(True)
        changed = [k for k, v in net.state_dict().items()
                   if v.dtype != state[k].dtype or not torch.equal(v, state[k])]
        flips = [(f, p.requires_grad) for p, f in zip(net.parameters(), flags)
                 if p.requires_grad != f]
        mode_after = net.training
        for p, f in zip(net.parameters(), flags):  # the lab's model as it was, for later
            p.requires_grad_(f)
        if changed:
            net.to(dtype=next(iter(state.values())).dtype).load_state_dict(state)
        h(grad_now and grad_after != caller_off,
          "autograd is still off after evaluate_fixed: torch.set_grad_enabled(False) "
          "switches it off for everything that follows." if not caller_off else
          "called under torch.no_grad(), evaluate_fixed switches autograd back on for "
          "its caller: torch.set_grad_enabled(True) at the end sets it whatever it was "
          "before.", kind="grad",
          more="the Devices chapter shows a way to switch autograd off for one block.")
        h((True, False) not in flips,
          f"{name}: the model's parameters no longer require grad: requires_grad_(False) "
          "freezes the model for training too.")
        h(not flips,
          f"{name}: evaluate_fixed changed which parameters require grad (a layer was "
          "frozen on purpose, and is trainable after the pass): requires_grad_(False) "
          "then requires_grad_(True) unfreezes everything.")
        h(not changed,
          f"{name}: evaluate_fixed changed the model's weights ({changed[:2]}): "
          "model.half() (or .to(...)) converts the model itself, in place, for training "
          "too. The weights must stay as they are.")
        h(error is None or isinstance(error, torch.OutOfMemoryError),
          f"evaluate_fixed fails ({name}): {_quoted(error)}.")
        h(rows,
          f"{name}: evaluate_fixed never ran the model it was given: use its arguments "
          "model, x, y (not eval_model, X_eval, Y_eval).")
        h(error is None,
          f"the evaluation still fails ({name}"
          + (f", under {mib:g} MiB" if mib is not None else "")
          + f"): {_quoted(error)}. "
          "model.eval() does not switch autograd off, and .detach() after the forward "
          "pass is too late: the activations were saved during it.", kind="oom",
          more="3.3 Diagnose: the logits have a grad_fn, so every layer's input was "
          "saved for a backward pass. What stops autograd from recording?")
        h(seen and not any(seen),
          f"{name}: the forward pass still records a graph (its outputs require grad): "
          "splitting it into chunks fits the budget but keeps autograd on.")
        acc_ok = abs(result[0] - expected[0]) < 1e-6
        loss_ok = abs(result[1] - expected[1]) < 1e-5
        chunks = len(rows) > 1 and len(set(rows)) > 1
        h(acc_ok and loss_ok,
          f"evaluate_fixed returned {result} on {name}, expected {expected}: "
          + ("the accuracy agrees, the loss does not, and the model saw chunks of "
             f"{sorted(set(rows), reverse=True)} rows: a mean of the chunks' means weighs "
             "the short last chunk like a full one." if acc_ok and chunks else
             "same model, same data (all of it), same numbers."))
        h(mode_after == (not in_eval),
          f"{name}: the model was in {'eval' if in_eval else 'training'} mode before "
          f"evaluate_fixed and in {'training' if mode_after else 'eval'} mode after it: "
          "leave it in the mode it was in.")
    passed(f"one pass under {limit_mib:g} MiB without a graph, the same numbers, for "
           f"{len(cases)} models and data sets; the caller's state left as it was.")


# --------------------------------------------------------------------------- exercise 4
def _colleague_reference(model: nn.Module, opt: torch.optim.Optimizer, steps: int,
                         batch: Batch) -> tuple[list[float], dict[str, list[float]],
                                                dict[str, torch.Tensor]]:
    average = {name: p.detach().clone() for name, p in model.named_parameters()}
    losses: list[float] = []
    norms: dict[str, list[float]] = {name: [] for name in average}
    for step in range(steps):
        x, y = batch(step)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        for name, p in model.named_parameters():
            assert p.grad is not None  # every weight is in the loss: backward filled it
            norms[name].append(p.grad.norm().item())
        opt.step()
        with torch.no_grad():
            for name, p in model.named_parameters():
                average[name] = 0.9 * average[name] + 0.1 * p
        losses.append(loss.item())
    return losses, norms, average


def colleague(fn: Callable, make_model: Callable[[], nn.Module], batch: Batch,
              memory_limit: Limit, *, limit_mib: float = 4, seed: int | None = None) -> None:
    """``fn(model, optimizer, steps, trace)`` returns what the colleague's loop returns
    (the loss of every step, every parameter's gradient norm at every step, the average
    of the weights), with memory flat from step to step under ``memory_limit(limit_mib)``,
    for any optimizer and number of steps."""
    need_callable(fn, "colleague_train_fixed")
    h = _colleague.require
    cases = _optimizer_cases(seed, 53, [("SGD", 10, 0.05), ("Adam", 6, 1e-3)])
    for kind, steps, lr in cases:
        name = f"{kind}, lr {lr:.2g}, {steps} steps"
        model = make_model()
        losses, norms, average = _colleague_reference(
            model, OPTIMIZERS[kind](model.parameters(), lr=lr), steps, batch)
        model = make_model()
        opt = OPTIMIZERS[kind](model.parameters(), lr=lr)
        with _traced(memory_limit, limit_mib) as trace:
            result, error = _run(fn, model, opt, steps, trace=trace)
        torch.set_grad_enabled(True)
        oom = isinstance(error, torch.OutOfMemoryError)
        h(error is None or oom,
          f"colleague_train_fixed fails ({name}): {_quoted(error)}.")
        h(not oom and abs(_growth(trace)) < FLAT,
          f"memory still grows ({name}, under {limit_mib:g} MiB): "
          + (f"{_quoted(error)}." if oom else f"{_growth(trace):,.0f} bytes per step.")
          + " Something the loop keeps from step to step holds tensors. Compare the "
          "growth per step with the sizes of what one step makes (4.3).", kind="grows",
          more="each step of the colleague's loop creates new tensors; which of them "
          "does a list keep? zero_grad() does not reuse the old gradient tensors.")
        h(len(trace.allocated) == steps,
          "keep the trace.record(step) call at the end of every step: the check reads "
          "the memory curve from it.")
        h(isinstance(result, tuple) and len(result) == 3,
          "return what the colleague's loop returns: (losses, norms, average).")
        got_losses, got_norms, got_average = result
        h(len(got_losses) == steps
          and all(abs(float(a) - b) < 1e-5 for a, b in zip(got_losses, losses)),
          f"the losses differ from the colleague's loop ({name}): the training must stay "
          "as it was.")
        h(isinstance(got_norms, dict) and set(got_norms) == set(norms)
          and all(len(got_norms[k]) == steps for k in norms),
          f"the report is incomplete ({name}): one gradient norm per parameter and per "
          f"step, {steps} for each of {len(norms)} parameters, as the colleague's loop "
          "returns them.")
        flat_norms = [[float(v) for v in got_norms[k]] for k in norms]
        expected = [norms[k] for k in norms]
        same_every_step = all(len(set(v)) == 1 for v in flat_norms) and steps > 1
        h(not same_every_step,
          f"every parameter's gradient norm is the same at every step ({name}): the "
          "report holds one gradient, read at the end, not one per step. "
          "zero_grad(set_to_none=False) zeroes one tensor in place, and every entry of a "
          "list that refers to it sees its last value.", kind="alias")
        h(all(abs(a - b) <= 1e-4 * max(1.0, abs(b))
              for got, want in zip(flat_norms, expected) for a, b in zip(got, want)),
          f"the gradient norms differ from the colleague's loop ({name}): the norm of "
          "each parameter's gradient, after backward() and before the optimizer's step.")
        h(isinstance(got_average, dict) and set(got_average) == set(average)
          and all(torch.allclose(torch.as_tensor(got_average[k]).float(),
                                 average[k], atol=1e-6) for k in average),
          f"the averaged weights differ from the colleague's loop ({name}).")
    what = ", ".join(f"{kind} for {steps} steps" for kind, steps, _ in cases)
    passed(f"memory flat under {limit_mib:g} MiB with {what}; the same losses, gradient "
           "norms and averaged weights as the colleague's loop.")
