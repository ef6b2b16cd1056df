"""ice_lab.checks.nan: each check accepts right answers, refuses the stub and the usual
wrong answers with the hint that names them, and draws other cases from a seed."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from check_answers import refused
from ice_lab.checks import nan as check


def stub(*args, **kwargs):
    """The student edition's answer, defined here: fixed_run's check finds the lab's
    train_steps through the learner function's globals, this module's."""
    raise NotImplementedError("Exercise: write your fix here.")


def passes(capsys, call, *args, times: int = 1, **kwargs) -> None:
    call(*args, **kwargs)
    assert capsys.readouterr().out.count("Check passed") == times


# ------------------------------------------------------------------ exercise 1
def test_stable_cross_entropy(capsys):
    def right(logits, labels):
        log_p = logits - torch.logsumexp(logits, dim=1, keepdim=True)
        return -log_p[torch.arange(len(labels)), labels].mean()

    passes(capsys, check.stable_cross_entropy, right)
    passes(capsys, check.stable_cross_entropy, right, seed=19)
    refused(check.stable_cross_entropy, stub, hint="stable_cross_entropy fails")

    def handmade(logits, labels):
        e = torch.exp(logits)
        probs = e / e.sum(dim=1, keepdim=True)
        return -torch.log(probs[torch.arange(len(labels)), labels]).mean()

    refused(check.stable_cross_entropy, handmade, hint="exp overflowed")

    def library(logits, labels):
        return F.cross_entropy(logits, labels)

    refused(check.stable_cross_entropy, library, hint="calls F.cross_entropy")

    def summed(logits, labels):
        return right(logits, labels) * len(labels)

    refused(check.stable_cross_entropy, summed, hint="the sum over the batch")

    def one_shift(logits, labels):
        shifted = logits - logits.max()
        log_p = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
        return -log_p[torch.arange(len(labels)), labels].mean()

    refused(check.stable_cross_entropy, one_shift, hint="each row needs its own shift")


# ------------------------------------------------------------------ exercise 2
def test_msle(capsys):
    def right(pred, target):
        return ((torch.log1p(pred) - torch.log1p(target)) ** 2).mean()

    passes(capsys, check.msle, right)
    passes(capsys, check.msle, right, seed=23)
    refused(check.msle, stub, hint="msle fails")

    def plain_log(pred, target):
        return ((torch.log(pred) - torch.log(target)) ** 2).mean()

    refused(check.msle, plain_log, hint="Still not finite when a count is 0")

    def epsilon(pred, target):
        return ((torch.log(pred + 1e-8) - torch.log(target + 1e-8)) ** 2).mean()

    refused(check.msle, epsilon, hint="makes every 0 count a huge error")

    def root(pred, target):
        return right(pred, target).sqrt()

    refused(check.msle, root, hint="no root")


# ------------------------------------------------------------------ exercise 3
def train_steps(model, X, y, loss_fn, *, lr, steps, batch_size=None, clip=None,
                record=None, norms=None):
    """The lab's train_steps (fixed_run finds it among its globals, as in the lab)."""
    losses = [] if record is None else record
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for step in range(steps):
        loss = loss_fn(model(X), y)
        losses.append(loss.item())
        if not math.isfinite(losses[-1]):
            raise FloatingPointError(f"loss is {losses[-1]} at step {step}")
        optimizer.zero_grad()
        loss.backward()
        if norms is not None:
            norms.append(math.sqrt(sum(p.grad.double().pow(2).sum().item()
                                       for p in model.parameters())))
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=clip)
        optimizer.step()
    return losses


def test_fixed_run(capsys):
    def right(model, X, y):
        return train_steps(model, X, y, F.mse_loss, lr=0.02, steps=100)

    def belted(model, X, y):
        return train_steps(model, X, y, F.mse_loss, lr=0.02, steps=100, clip=5.0)

    passes(capsys, check.fixed_run, right)
    passes(capsys, check.fixed_run, right, seed=31)
    passes(capsys, check.fixed_run, belted)
    refused(check.fixed_run, stub, hint="fixed_run fails")

    def unchanged(model, X, y):
        return train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100)

    refused(check.fixed_run, unchanged, hint="still stop being finite")

    def steering(model, X, y):
        return train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100, clip=1.0)

    refused(check.fixed_run, steering, hint="the clip is doing the steering")

    def too_slow(model, X, y):
        return train_steps(model, X, y, F.mse_loss, lr=0.001, steps=100)

    refused(check.fixed_run, too_slow, hint="too slowly for 100 steps")

    def rescaled(model, X, y):
        return train_steps(model, X / 4, y, F.mse_loss, lr=0.05, steps=100)

    refused(check.fixed_run, rescaled, hint="did not train on X as given")


# ------------------------------------------------------------------ exercise 4
def test_clean(capsys):
    def right(X, y):
        keep = ~torch.isnan(X).any(dim=1)
        return X[keep], y[keep]

    def filled(X, y):
        return torch.nan_to_num(X, nan=0.0), y

    passes(capsys, check.clean, right)
    passes(capsys, check.clean, right, seed=29)
    passes(capsys, check.clean, filled)
    refused(check.clean, stub, hint="clean fails")

    def sentinel(X, y):
        return torch.nan_to_num(X, nan=-1.0), y

    refused(check.clean, sentinel, hint="a sentinel like -1 or -999")

    def rows_from_X_only(X, y):
        return X[~torch.isnan(X).any(dim=1)], y

    refused(check.clean, rows_from_X_only, hint="drop the same rows from both")

    def in_place(X, y):
        return X.nan_to_num_(0.0), y

    refused(check.clean, in_place, hint="clean changed its inputs in place")


# ------------------------------------------------------------------ exercise 5 (open)
class ScanNet(nn.Module):
    """The colleague's model, as the lab gives it."""

    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(64, 32)
        self.out = nn.Linear(32, 10)

    def standardise(self, x):
        centred = x - x.mean(dim=1, keepdim=True)
        return centred / centred.std(dim=1, keepdim=True)  # noqa: ICE108 (the bug)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(self.standardise(x))))


@pytest.mark.filterwarnings("ignore:std:UserWarning")
def test_scan_net(capsys):
    class Epsilon(ScanNet):
        def standardise(self, x):
            centred = x - x.mean(dim=1, keepdim=True)
            return centred / (centred.std(dim=1, keepdim=True) + 1e-6)

    class LayerNorm(ScanNet):
        def standardise(self, x):
            return F.layer_norm(x, (64,), eps=1e-12)

    passes(capsys, check.scan_net, Epsilon)
    passes(capsys, check.scan_net, Epsilon, seed=53)
    passes(capsys, check.scan_net, LayerNorm)
    refused(check.scan_net, stub, hint="make_scan_net\\(\\) fails")
    refused(check.scan_net, ScanNet, hint="On a blank scan")

    class Hidden(ScanNet):
        def forward(self, x):
            return torch.nan_to_num(super().forward(x))

    refused(check.scan_net, Hidden, hint="Replacing the NaN after the fact")

    class Loose(ScanNet):
        def standardise(self, x):
            centred = x - x.mean(dim=1, keepdim=True)
            return centred / (centred.std(dim=1, keepdim=True) + 1.0)

    refused(check.scan_net, Loose, hint="changes ordinary scans too")

    class DefaultLayerNorm(ScanNet):  # eps=1e-5 on the variance flattens faint scans
        def standardise(self, x):
            return F.layer_norm(x, (64,))

    refused(check.scan_net, DefaultLayerNorm, hint="On faint digits")

    class Dropped(ScanNet):
        def forward(self, x):
            return super().forward(x[x.std(dim=1) > 0])

    refused(check.scan_net, Dropped, hint="one row of\\s+scores per scan")
