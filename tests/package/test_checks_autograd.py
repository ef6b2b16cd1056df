"""The checks of labs/lab-autograd.ipynb (ice_lab/checks/autograd.py), without a kernel:
each accepts a right answer, refuses the student edition's stub and typical wrong answers
with the hint that names them, and draws other cases with ``seed=``."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ice_lab.checks import autograd as check


def stub(*args, **kwargs):
    raise NotImplementedError


def fails(call, *args, hint: str, **kwargs) -> str:
    with pytest.raises(AssertionError) as error:
        call(*args, **kwargs)
    assert hint in str(error.value), str(error.value)
    return str(error.value)


def passes(call, *args, capsys, **kwargs) -> None:
    call(*args, **kwargs)
    assert capsys.readouterr().out.startswith("Check passed: ")


# --------------------------------------------------------------------- exercise 1
class TabularNet(nn.Module):
    """The colleague's model, as the lab gives it (log_gain computed under no_grad)."""

    def __init__(self):
        super().__init__()
        self.log_gain = nn.Parameter(torch.zeros(6))
        self.bias = nn.Parameter(torch.zeros(6))
        self.mlp = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))

    def forward(self, x):
        with torch.no_grad():
            mean = x.mean(dim=0)
            std = x.std(dim=0) + 1e-5
            gain = self.log_gain.exp()
        z = (x - mean) / std * gain + self.bias
        return self.mlp(z)


class Repaired(TabularNet):
    def forward(self, x):
        with torch.no_grad():
            mean, std = x.mean(dim=0), x.std(dim=0) + 1e-5
        return self.mlp((x - mean) / std * self.log_gain.exp() + self.bias)


class ZeroTerm(TabularNet):
    def forward(self, x):
        return super().forward(x) + 0 * self.log_gain.sum()


class NoGain(TabularNet):
    def forward(self, x):
        return self.mlp((x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5) + self.bias)


def frozen():
    model = TabularNet()
    model.log_gain.requires_grad_(False)
    return model


def test_tabular_net(capsys):
    passes(check.tabular_net, Repaired, capsys=capsys)
    passes(check.tabular_net, Repaired, seed=41, capsys=capsys)
    passes(check.tabular_net, Repaired, seed=3, capsys=capsys)
    fails(check.tabular_net, stub, hint="make_tabular_net() fails (NotImplementedError")
    fails(check.tabular_net, TabularNet, hint="No gradient reaches log_gain")
    fails(check.tabular_net, frozen, hint="no longer require grad")
    fails(check.tabular_net, ZeroTerm, hint="a term added only to make a gradient appear")
    fails(check.tabular_net, NoGain, hint="the scores differ from what the docstring says")


def test_tabular_net_says_more_the_second_time():
    fails(check.tabular_net, TabularNet, hint="No gradient reaches")
    fails(check.tabular_net, TabularNet, hint="Still stuck:")


# --------------------------------------------------------------------- exercise 2
def chunks(detach_at: str = "start", zero: bool = True, retain: bool = False):
    def train_chunks(cell, head, optimizer, inputs, targets):
        h = torch.zeros(inputs.shape[2], cell.hidden_size)
        losses = []
        for x_chunk, y_chunk in zip(inputs, targets):
            if detach_at == "start":
                h = h.detach()
            elif detach_at == "reset":
                h = torch.zeros(inputs.shape[2], cell.hidden_size)
            preds = []
            for x in x_chunk:
                if detach_at == "every step":
                    h = h.detach()
                h = cell(x, h)
                preds.append(head(h))
            loss = F.mse_loss(torch.stack(preds), y_chunk)
            if zero:
                optimizer.zero_grad()
            loss.backward(retain_graph=retain)
            optimizer.step()
            losses.append(loss.item())
        return losses, h

    return train_chunks


def test_train_chunks(capsys):
    for seed in (None, 1, 7):
        passes(check.train_chunks, chunks(), seed=seed, capsys=capsys)
        passes(check.train_chunks_carry, chunks(), seed=seed, capsys=capsys)
    fails(check.train_chunks, stub, hint="train_chunks fails (NotImplementedError")
    fails(check.train_chunks_carry, stub, hint="train_chunks fails (NotImplementedError")
    fails(check.train_chunks, chunks("never"),
          hint="still carries the previous chunk's graph")
    fails(check.train_chunks, chunks("never", retain=True),
          hint="retain_graph=True is not a fix")
    fails(check.train_chunks, chunks("every step"), hint="The graph is too short")
    fails(check.train_chunks_carry, chunks("reset"), hint="The hidden state was not carried")
    fails(check.train_chunks_carry, chunks(zero=False),
          hint="the gradients of earlier chunks must not pile up")


# --------------------------------------------------------------------- exercise 3
class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.sigmoid(self.fc1(x))
        h[:, :4] += x
        return self.fc2(h)


class Padded(Gate):
    def forward(self, x):
        return self.fc2(torch.sigmoid(self.fc1(x)) + F.pad(x, (0, 4)))


class Detached(Gate):
    def forward(self, x):
        h = torch.sigmoid(self.fc1(x)).detach()
        h[:, :4] += x
        return self.fc2(h)


class ThroughData(Gate):
    def forward(self, x):
        h = torch.sigmoid(self.fc1(x))
        h.data[:, :4] += x
        return self.fc2(h)


class StubGate(Gate):
    def forward(self, x):
        raise NotImplementedError


def test_fixed_gate(capsys):
    for seed in (None, 37, 2):
        passes(check.fixed_gate, Padded, seed=seed, capsys=capsys)
    fails(check.fixed_gate, StubGate, hint="FixedGate fails on a batch of 6")
    fails(check.fixed_gate, Gate, hint="is still modified in place")
    fails(check.fixed_gate, Detached, hint="Some weights get no gradient")
    fails(check.fixed_gate, ThroughData, hint="a change made through .data escapes")


# --------------------------------------------------------------------- exercise 4
@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad")
def test_combine(capsys):
    for seed in (None, 50, 4):
        passes(check.combine, lambda losses: torch.stack(losses).mean(), seed=seed,
               capsys=capsys)
        passes(check.combine, lambda losses: sum(losses) / len(losses), seed=seed,
               capsys=capsys)
    fails(check.combine, stub, hint="combine fails on 2 losses (NotImplementedError")
    fails(check.combine, lambda losses: torch.tensor(losses).mean(),
          hint="combine must return a tensor with a grad_fn")
    fails(check.combine,
          lambda losses: torch.tensor([v.item() for v in losses]).requires_grad_().mean(),
          hint=".requires_grad_() on a new tensor only")
    fails(check.combine, lambda losses: torch.stack(losses).sum(),
          hint="the MEAN (not the sum)")
    fails(check.combine, lambda losses: (losses[0] + losses[1]) / 2,
          hint="(not just two)")
    fails(check.combine, lambda losses: torch.stack(losses), hint="the mean is one number")
