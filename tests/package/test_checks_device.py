"""ice_lab.checks.device, the checks of labs/lab-device.ipynb: each accepts a right answer
with one "Check passed" line, refuses the stub and the usual wrong answers with the hint
that names them, and with a seed tries other cases and still accepts the right answer.

The lab's pieces are rebuilt here, small: the buggy PositionalPool, the colleague's
SmoothedWeightedLoss. "The other device" is whatever the check picks (meta without a GPU)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from check_answers import fails, passes, stub
from ice_lab.checks import device as check

OTHER = check.other_device()


# --------------------------------------------------------------------------- exercise 1
def step_with(move):
    """train_step_fixed whose first lines are ``move(model, x, y, device) -> (x, y)``."""
    def fixed(model, optimizer, x, y, device):
        x, y = move(model, x, y, device)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.detach()
    return fixed


def _right(model, x, y, device):
    model.to(device)
    return x.to(device), y.to(device)


def _unassigned(model, x, y, device):
    model.to(device)
    x.to(device)
    y.to(device)
    return x, y


def _labels_left(model, x, y, device):
    model.to(device)
    return x.to(device), y


def _model_left(model, x, y, device):
    return x.to(device), y.to(device)


def _everything_cpu(model, x, y, device):
    model.to("cpu")
    return x.cpu(), y.cpu()


def test_train_step_accepts_the_fix(capsys):
    assert "CPU, then" in passes(lambda: check.train_step(step_with(_right)), capsys)
    passes(lambda: check.train_step(step_with(_right), seed=5), capsys)


@pytest.mark.parametrize("move, hint", [
    (_unassigned, "x.to(device) returns a moved copy"),
    (_labels_left, "The labels stay where they were"),
    (_model_left, "The model stays where it was"),
    (_everything_cpu, "hides the error"),
])
def test_train_step_names_what_stayed(move, hint):
    message = fails(lambda: check.train_step(step_with(move)), hint)
    assert "x = x.to" not in message  # the hint names the mistake, not the code


def test_train_step_refuses_the_stub():
    fails(lambda: check.train_step(stub), "under 1.4 Fix")


# --------------------------------------------------------------------------- exercise 2
class BrokenPositionalPool(nn.Module):
    def __init__(self, features: int = 8, classes: int = 3):
        super().__init__()
        self.proj = nn.Linear(features + 1, 16)
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        batch, length, _ = x.shape
        position = self.make(length, x) / length
        position = position.expand(batch, length).unsqueeze(-1)
        h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
        return self.head(h.mean(dim=1))

    def make(self, length, x):
        return torch.arange(length)


class RightPool(BrokenPositionalPool):
    def make(self, length, x):
        return torch.arange(length, device=x.device)


class OtherPool(BrokenPositionalPool):
    def make(self, length, x):
        return torch.arange(length, device=OTHER)


class Float64Pool(BrokenPositionalPool):
    def make(self, length, x):
        return torch.arange(length, device=x.device, dtype=torch.float64)


class PlaceholderPool(BrokenPositionalPool):
    def forward(self, x):
        try:
            return super().forward(x)
        except RuntimeError:
            return torch.zeros(x.shape[0], 3, device=x.device)


class StubPool(BrokenPositionalPool):
    forward = stub


def test_positional_pool_accepts_the_fix(capsys):
    passes(lambda: check.positional_pool(RightPool), capsys)
    passes(lambda: check.positional_pool(RightPool, seed=8), capsys)


@pytest.mark.parametrize("cls, hint", [
    (BrokenPositionalPool, "is still born on the CPU, whatever device x is on"),
    (OtherPool, "is not the input's device"),
    (Float64Pool, "A dtype mismatch"),
    (PlaceholderPool, "hides the bug"),
    (StubPool, "under 2.4 Fix"),
])
def test_positional_pool_names_the_mistake(cls, hint):
    if OTHER.type == "cpu":
        pytest.skip("no other device")
    message = fails(lambda: check.positional_pool(cls), hint)
    assert "device=x.device" not in message


# --------------------------------------------------------------------------- exercise 3
def validate(labels, num_classes):
    if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype == torch.bool:
        raise TypeError(f"labels must be integers, got {labels.dtype}")
    bad = labels[(labels < 0) | (labels >= num_classes)]
    if bad.numel():
        raise ValueError(f"labels {sorted(set(bad.tolist()))} not in 0..{num_classes - 1}")


def max_only(labels, num_classes):
    if labels.max() >= num_classes:
        raise ValueError(f"label {labels.max().item()} is not a class")


def off_by_one(labels, num_classes):
    validate(labels, num_classes + 1)


def clamps(labels, num_classes):
    labels.clamp_(0, num_classes - 1)


def test_validate_labels_accepts_the_fix(capsys):
    passes(lambda: check.validate_labels(validate), capsys)
    passes(lambda: check.validate_labels(validate, seed=3), capsys)


@pytest.mark.parametrize("fn, hint", [
    (max_only, "are out of range too"),
    (off_by_one, "not only > num_classes"),
    (clamps, "do not clamp or repair them"),
    (stub, "under 3.4 Fix"),
])
def test_validate_labels_names_the_mistake(fn, hint):
    fails(lambda: check.validate_labels(fn), hint)


# --------------------------------------------------------------------------- exercise 4
class SmoothedWeightedLoss:
    def __init__(self, class_counts, smoothing=0.1):
        counts = torch.tensor(class_counts, dtype=torch.float32)
        self.weights = counts.sum() / (len(counts) * counts)
        self.smoothing = smoothing

    def target(self, logits):
        return torch.full(logits.shape, self.smoothing / (logits.shape[1] - 1))

    def weights_for(self, logits, labels):
        return self.weights[labels]

    def __call__(self, logits, labels):
        target = self.target(logits)
        target[torch.arange(len(labels)), labels] = 1 - self.smoothing
        per_sample = -(target * F.log_softmax(logits, dim=1)).sum(dim=1)
        return (per_sample * self.weights_for(logits, labels)).mean()


class TargetFixed(SmoothedWeightedLoss):
    def target(self, logits):
        return logits.new_full(logits.shape, self.smoothing / (logits.shape[1] - 1))


class Repaired(TargetFixed):
    def weights_for(self, logits, labels):
        return self.weights.to(logits.device)[labels]


class WeightsFixed(SmoothedWeightedLoss):
    def weights_for(self, logits, labels):
        return self.weights.to(logits.device)[labels]


class Unweighted(TargetFixed):
    def weights_for(self, logits, labels):
        return 1.0


class Placeholder(SmoothedWeightedLoss):
    def __call__(self, logits, labels):
        try:
            return super().__call__(logits, labels)
        except RuntimeError:
            return (logits * 0).sum()


def test_smoothed_loss_accepts_the_fix(capsys):
    passes(lambda: check.smoothed_loss(Repaired), capsys)
    passes(lambda: check.smoothed_loss(Repaired, seed=4), capsys)


@pytest.mark.parametrize("cls, hint", [
    (SmoothedWeightedLoss, "A tensor created inside the call is born on the CPU"),
    (TargetFixed, "The loss's own tensor weights, made when the loss was built"),
    (WeightsFixed, "A tensor created inside the call is born on the CPU"),
    (Unweighted, "the loss differs from the colleague's"),
    (Placeholder, "a placeholder returned where the real loss fails"),
    (stub, "under 4.4 Fix"),
])
def test_smoothed_loss_names_the_mistake(cls, hint):
    if OTHER.type == "cpu":
        pytest.skip("no other device")
    fails(lambda: check.smoothed_loss(cls), hint)


def test_a_second_failure_says_more():
    if OTHER.type == "cpu":
        pytest.skip("no other device")
    fails(lambda: check.smoothed_loss(SmoothedWeightedLoss), "born on the CPU")
    fails(lambda: check.smoothed_loss(SmoothedWeightedLoss), "Still stuck: where_is")
