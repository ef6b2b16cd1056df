"""Checks of ``labs/lab-nan.ipynb`` (chapters ``book/numerics.ipynb`` and
``book/nonfinite.ipynb``): a cross-entropy that overflows, a log error that meets
``log(0)``, a learning rate that explodes, NaN in the data, and a colleague's model that
makes NaN from clean scans.

This module holds the checks of exercises 1 and 2; the others live beside it, one module
per part (``nan_run``: exercise 3; ``nan_data``: the lab's data and loop, exercise 4;
``nan_scan``: the open exercise 5), and are imported here, so that the lab imports one
module as ``check``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from unittest import mock

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import ice_lab

from ._core import Hints, attempt, need_callable, passed, rng
from .nan_data import accuracy, digits, train
# The checks of exercises 3 to 5, offered here so that the lab calls check.<exercise>:
from .nan_data import clean  # noqa: F401
from .nan_run import fixed_run  # noqa: F401
from .nan_scan import scan_net  # noqa: F401

__all__ = ["msle", "stable_cross_entropy"]

_ce = Hints("stable_cross_entropy")
_msle = Hints("msle")


def _quote_all(errors: dict[str, str]) -> str:
    return "; ".join(f"{name}: {err}" for name, err in errors.items())


# ------------------------------------------------------------------ exercise 1
def _ce_cases(seed: int | None) -> tuple[dict, tuple[str, ...]]:
    gen = rng(seed, 1)
    torch.manual_seed(gen.randrange(2**31))
    cases: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
    sizes = ((8, 5), (1, 3), (13, 10), (4, 2)) if seed is None else [
        (gen.randint(1, 16), gen.randint(2, 12)) for _ in range(4)]
    for n, c in sizes:  # rows of several scales; N and C differ from the lab's 1257 x 10
        scale = torch.logspace(-1, 0.8, n)[:, None]
        cases[f"{n} x {c}"] = (torch.randn(n, c) * scale, torch.randint(0, c, (n,)))
    cases["big"] = (torch.tensor([[1000.0, 1001.0, 1002.0]]), torch.tensor([2]))
    cases["far"] = (torch.tensor([[0.0, 100.0, 200.0]]), torch.tensor([0]))
    cases["mixed"] = (torch.tensor([[1000.0, 1001.0, 1002.0], [0.0, 1.0, 2.0]]),
                      torch.tensor([2, 0]))
    levels = (torch.tensor([-900.0, 0.0, 500.0, 1000.0, -50.0, 300.0]) if seed is None
              else (torch.rand(6) - 0.5) * 6000)[:, None]
    cases["levels"] = (torch.randn(6, 4) * 3 + levels, torch.tensor([0, 3, 1, 2, 2, 0]))
    return cases, ("big", "far", "mixed", "levels")


def stable_cross_entropy(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(logits, labels)`` is the mean cross-entropy of ``(N, C)`` logits and ``(N,)``
    labels, exact and finite for any finite logits, with its gradient, written by hand;
    a linear classifier trained with it on normalised pixels learns the digits.

    Exercise 1 of ``labs/lab-nan.ipynb`` (chapter ``book/numerics.ipynb``)."""
    need_callable(fn, "stable_cross_entropy")
    h = _ce.require
    cases, special = _ce_cases(seed)
    values, errors = {}, {}
    with mock.patch.object(F, "cross_entropy", wraps=F.cross_entropy) as spy:
        for name, (logits, labels) in cases.items():
            value, error = attempt(fn, logits, labels)
            if error:
                errors[name] = error
            else:
                values[name] = value
    said = _quote_all(errors)
    h(not errors or len(errors) == len(cases),
      f"stable_cross_entropy works on some batches but fails on {sorted(errors)} "
      f"({said}): take N and C from logits and labels; do not hard-code the sizes of the "
      "lab's data (1257 rows, 10 classes).")
    h(not errors,
      f"stable_cross_entropy fails ({said}). It takes logits (N, C) and integer labels "
      "(N,), and returns one number: the mean loss.")
    h(not spy.called,
      "stable_cross_entropy calls F.cross_entropy (or nn.CrossEntropyLoss): right in "
      "production, but the exercise is to write it, in the log domain (1.3 Diagnose "
      "named the op that overflowed; the chapter's softmax section).")
    kinds = {type(v).__name__ for v in values.values()} - {"Tensor"}
    h(not kinds,
      f"stable_cross_entropy returns a {sorted(kinds)[0] if kinds else ''}, not a "
      "tensor: .item() or float() takes the loss out of the graph, and backward() has "
      "nothing to train.")
    shapes = {n: tuple(v.shape) for n, v in values.items() if v.shape != ()}
    h(not shapes,
      f"The loss must be one number (shape ()), got shapes {shapes}: the mean over the "
      "batch of each row's loss.")
    refs = {n: F.cross_entropy(lg.double(), lb) for n, (lg, lb) in cases.items()}
    tols = {n: 1e-4 * max(1.0, abs(refs[n].item())) + 4e-7 * lg.abs().max().item()
            for n, (lg, lb) in cases.items()}
    wrong = [n for n in cases if not abs(values[n].item() - refs[n].item()) <= tols[n]]
    ordinary = [n for n in wrong if n not in special]
    if ordinary:
        name = ordinary[0]
        logits, labels = cases[name]
        n = len(labels)
        rows_ok = True  # is each row right alone?
        for i in range(n):
            row, row_error = attempt(fn, logits[i:i + 1], labels[i:i + 1])
            rows_ok &= not row_error and bool(torch.allclose(
                torch.as_tensor(row).detach().double(),
                F.cross_entropy(logits[i:i + 1].double(), labels[i:i + 1]), atol=1e-4))
        ratio = values[name].item() / refs[name].item()
        h(False,
          f"On a batch of {name} the loss is {values[name].item():.4f}, F.cross_entropy "
          f"gives {refs[name].item():.4f}. "
          + ("That is N times the right value, the sum over the batch: it must be the "
             "mean over the batch." if n > 1 and abs(ratio - n) < 1e-3
             else "Each row alone is right, the batch is not: one label per row (indexing "
             "every row with the whole label vector mixes the rows), and it must be the "
             "mean over the batch." if rows_ok
             else "A row alone is already wrong: the max and the sum go over the classes, "
             "dim=1, one row at a time."))
    watched = {}  # case -> the aten op that made the first non-finite value
    for name in ("big", "far"):
        try:
            with ice_lab.watch_nonfinite_ops():
                fn(*cases[name])
        except ice_lab.NonFiniteError as caught:
            watched[name] = caught.where
        except Exception as caught:  # named in the hint below
            watched[name] = type(caught).__name__
    log0 = ("log(softmax) still meets log(0) when the right class's probability "
            "underflows to 0: never log of a probability, stay in the log domain.")
    nonfinite = {
        "aten.exp.default": "exp overflowed (the op watcher saw aten.exp make the first "
        "inf): exp is inf above 88.7 in float32 and above 709.8 in float64, so float64 "
        "does not save it. No exponent may be positive and large.",
        "aten.log.default": log0 + " (The op watcher saw aten.log make -inf.)",
    }
    for name, text in (("big", "Logits 1000, 1001, 1002 with label 2"),
                       ("far", "Logits 0, 100, 200 with label 0")):
        where = watched.get(name, "no op")
        h(torch.isfinite(values[name]),
          f"{text} give {values[name].item()}. " + nonfinite.get(
              where, f"The check could not tell what went wrong (the op watcher named "
              f"{where}): work in the log domain (1.3 Diagnose)."), kind=name,
          more="the chapter's section 'Softmax: the classic overflow' shows how a "
          "stable softmax keeps every exponent at most 0.")
    h("big" not in wrong,
      f"Logits 1000, 1001, 1002 give {values['big'].item()}, expected 0.4076. Clamping "
      "the logits (e.g. clamp(max=80)) or replacing nan (nan_to_num) keeps it finite but "
      "changes the answer: only the differences between logits matter.")
    h("far" not in wrong,
      f"Logits 0, 100, 200 with label 0 give {values['far'].item()}, expected 200. "
      + log0 + " Clamping a probability away from 0 changes the loss.")
    h("mixed" not in wrong and "levels" not in wrong,
      f"A batch of a row near 1000 and a row near 0 gives {values['mixed'].item()}, "
      f"expected 1.4076 (rows around other levels: {values['levels'].item():.4f}, "
      f"expected {refs['levels'].item():.4f}): each row needs its own shift; one shift "
      "for the whole batch sends the small rows' exp to 0.")
    logits = cases["levels"][0].clone().requires_grad_(True)
    (ref_grad,) = torch.autograd.grad(F.cross_entropy(logits, cases["levels"][1]), logits)
    loss, error = attempt(fn, logits, cases["levels"][1])
    grad = None
    if not error:
        grads, error = attempt(torch.autograd.grad, loss, logits)
        grad = grads[0] if grads else None
    h(grad is not None and torch.allclose(grad.double(), ref_grad.double(),
                                          atol=1e-5 + tols["levels"]),
      "The gradient of the loss with respect to the logits is wrong or missing "
      f"({error or 'it differs'}): keep the loss in the graph (no .detach(), no "
      "torch.tensor(...) of a result).")
    X, y, X_val, y_val = digits()
    X_bytes, X_val_bytes = torch.round(X * 255 / 16), torch.round(X_val * 255 / 16)
    # normalised as the Datasets chapter does (one std over every pixel: never 0 here)
    mean, std = X_bytes.mean(), X_bytes.std()
    X_scaled, X_val_scaled = (X_bytes - mean) / std, (X_val_bytes - mean) / std  # noqa: ICE108
    torch.manual_seed(rng(seed, 0).randrange(2**31) if seed is not None else 0)
    classifier = nn.Linear(64, 10)
    losses = train(classifier, X_scaled, y, fn, lr=0.3, steps=60)
    h(all(map(math.isfinite, losses)),
      "Training a classifier with your loss on normalised pixels produced a non-finite "
      "loss.")
    h(losses[-1] < 0.2 * losses[0],
      f"Trained on normalised pixels, the loss went from {losses[0]:.3f} to "
      f"{losses[-1]:.3f}: it must fall to under a fifth. A loss that is finite but "
      "constant (e.g. nan_to_num, or returning 0) does not train the model.")
    h(accuracy(classifier, X_val_scaled, y_val) > 0.9,
      "The classifier trained with your loss should reach over 90% validation accuracy.")
    passed("exact for any sizes and logits up to "
           f"{max(lg.abs().max().item() for lg, _ in cases.values()):.0f}, row by row, "
           "with its gradient; it trains on normalised pixels.")


# ------------------------------------------------------------------ exercise 2
class CountModel(nn.Module):
    """The lab's count model: ``exp`` of a linear function of 4 features."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.exp(self.linear(x)).squeeze(1)


def visitor_counts() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The lab's visitor counts: training features, counts, validation features, counts."""
    gen = torch.Generator().manual_seed(0)
    features = torch.randn(800, 4, generator=gen)
    rate = torch.exp(features @ torch.tensor([0.8, -0.5, 0.3, 0.0]) + 0.5)
    visitors = torch.poisson(rate, generator=gen)
    return features[:600], visitors[:600], features[600:], visitors[600:]


def _msle_ref(pred: torch.Tensor, target: torch.Tensor) -> float:
    p, t = pred.detach().double().numpy(), target.double().numpy()
    return float(np.mean((np.log1p(p) - np.log1p(t)) ** 2))


def msle(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(pred, target)`` is the standard mean squared log error (scikit-learn's), for
    any non-negative counts, 0 included, with its gradient; a count model learns with it.

    Exercise 2 of ``labs/lab-nan.ipynb`` (chapter ``book/numerics.ipynb``)."""
    need_callable(fn, "msle")
    h = _msle.require
    gen = rng(seed, 2)
    torch.manual_seed(gen.randrange(2**31))
    cases = {  # zero counts, large counts, other lengths
        "the example": (torch.tensor([0.5, 2.0, 10.0, 0.0, 150.0, 0.01]),
                        torch.tensor([0.0, 3.0, 8.0, 0.0, 120.0, 0.0])),
        "one quiet hour": (torch.tensor([4.0]), torch.tensor([0.0])),
        "large counts": (torch.tensor([2e4, 3.0, 5e5, 0.2]),
                         torch.tensor([3e4, 0.0, 4e5, 7.0])),
        "17 random hours": (torch.rand(17) * 8, torch.poisson(torch.rand(17) * 3)),
    }
    if seed is not None:
        for k in range(4):
            n, scale = gen.randint(1, 40), 10.0 ** gen.randint(0, 4)
            cases[f"{n} counts up to {scale:g}"] = (
                torch.rand(n) * 2 * scale, torch.poisson(torch.rand(n) * scale))
    values, errors, changed = {}, {}, []
    for name, (pred, target) in cases.items():
        p, t = pred.clone(), target.clone()  # msle gets copies
        value, error = attempt(fn, p, t)
        if error:
            errors[name] = error
        else:
            values[name] = value
        if not (torch.equal(p, pred) and torch.equal(t, target)):
            changed.append(name)
    h(not errors, f"msle fails ({_quote_all(errors)}): msle(pred, target) returns one "
      "number.")
    h(not changed,
      f"msle changed its inputs in place ({', '.join(changed)}): clamp_, an in-place log or "
      "target[...] = ... edit the caller's tensors, here the counts themselves, which "
      "then differ at every step. A loss leaves pred and target as they are.")
    kinds = {type(v).__name__ for v in values.values()} - {"Tensor"}
    h(not kinds,
      f"msle returns a {sorted(kinds)[0] if kinds else ''}, not a tensor: .item(), "
      "float() or numpy take the loss out of the graph, and the model cannot learn "
      "from it.")
    shapes = {n: tuple(v.shape) for n, v in values.items() if v.shape != ()}
    h(not shapes, f"msle must return one number (shape ()), got shapes {shapes}: the "
      "mean over all samples.")
    infinite = [n for n, v in values.items() if torch.isinf(v)]
    h(not infinite,
      f"Still not finite when a count is 0 ({', '.join(infinite)}): the op watcher in "
      "2.3 named the op and its input; the standard log error is defined for a count "
      "of 0 (see scikit-learn's mean_squared_log_error).", kind="inf",
      more="what is the standard log error's value for a prediction of 0 and a count "
      "of 0? Its formula in scikit-learn's documentation says.")
    nans = [n for n, v in values.items() if torch.isnan(v)]
    h(not nans,
      f"msle gives nan on {', '.join(nans)}: dropping the zero counts or nan_to_num "
      "hides them (an hour of 0 visitors alone leaves nothing to average). Every count "
      "has its error, 0 too.")
    refs = {n: _msle_ref(p, t) for n, (p, t) in cases.items()}
    wrong = [n for n, v in values.items()
             if not abs(v.item() - refs[n]) <= 1e-5 * max(1.0, refs[n])]
    if wrong:
        name = wrong[0]
        pairs = []  # the pairs of that batch that are wrong alone
        pred, target = cases[name]
        for i in range(len(pred)):
            p, t = pred[i:i + 1], target[i:i + 1]
            value, error = attempt(fn, p, t)
            v = float("nan") if error else float(value)
            ref = _msle_ref(p, t)
            if not abs(v - ref) <= 1e-5 * max(1.0, ref):
                pairs.append((p.item(), t.item(), v, ref))
        zero = [c for c in pairs if c[1] == 0]
        plain = [c for c in pairs if c[1] > 0 and max(c[:2]) <= 1000]
        pair = ([c for c in zero if not c[2] <= 10 * c[3] + 1] + plain + pairs
                + [None])[0]
        text = (f"msle gives {values[name].item():.5f} on {name}, scikit-learn "
                f"{refs[name]:.5f}. The standard log error is a mean over ALL samples. ")
        if pair is None:
            text += ("Each pair alone is right, the batch is not: the mean of the squared "
                     "errors, with no root (RMSLE) and no sum.")
        else:
            guess, count, v, ref = pair
            text += f"For a prediction of {guess:g} and a count of {count:g}, msle " \
                    f"gives {v:.4g}, expected {ref:.4g}: "
            text += (
                "log(x + 1e-8) is finite but makes every 0 count a huge error (log 1e-8 "
                "= -18.4)." if count == 0 and v > 10 * ref + 1
                else "dropping the zero counts or nan_to_num hides them (alone, the hour "
                "has no error left to average)." if count == 0 and not v == v
                else "a count of 0 is an ordinary count for the standard log error; "
                "replacing it (clamp(min=1), an epsilon, nan_to_num) changes its error."
                if count == 0
                else "that pair has no zero and nothing large: compare your error of one "
                "sample with scikit-learn's formula, term by term, with no root."
                if max(guess, count) <= 1000
                else "large counts have their error too: a clamp on the predictions or "
                "the counts changes it.")
        h(False, text)
    name = "17 random hours"
    p = cases[name][0].clone().requires_grad_(True)
    loss, error = attempt(fn, p, cases[name][1])
    grad = None
    if not error:
        grads, error = attempt(torch.autograd.grad, loss, p)
        grad = grads[0] if grads else None
    ref_p = cases[name][0].clone().requires_grad_(True)
    ref_loss = ((torch.log1p(ref_p) - torch.log1p(cases[name][1])) ** 2).mean()
    (ref_grad,) = torch.autograd.grad(ref_loss, ref_p)
    h(grad is not None and torch.allclose(grad.float(), ref_grad, atol=1e-7),
      "The gradient of msle with respect to pred is wrong or missing "
      f"({error or 'it differs'}): build the loss from torch operations on pred "
      "(scikit-learn on numpy copies, .detach() or torch.tensor(...) leave no graph to "
      "train).")
    X, y, X_val, y_val = visitor_counts()
    torch.manual_seed(0 if seed is None else gen.randrange(2**31))
    model = CountModel()
    losses = train(model, X, y.clone(), fn, lr=0.3, steps=60)
    h(all(map(math.isfinite, losses)),
      "Training with your loss still produced a non-finite loss.")
    with torch.no_grad():
        val_error = _msle_ref(model(X_val), y_val)
    h(val_error < 0.3,
      f"Validation log error {val_error:.3f}, expected under 0.3: the model did not learn "
      "the counts. Dropping the zero counts, or an epsilon inside the log, changes what "
      "the model learns.")
    passed(f"the standard log error on {len(cases)} batches of counts, 0 included, with "
           "its gradient; the model learns.")
