"""ice_lab.checks.tensors: each check accepts right answers, refuses the stub and the usual
wrong answers with the hint that names them, and draws other cases from a seed."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from check_answers import refused, stub
from ice_lab.checks import tensors as check


def test_forward_numpy(capsys):
    def right(model, array):
        return model(torch.as_tensor(array, dtype=torch.float32))

    check.forward_numpy(right)
    check.forward_numpy(right, seed=7)
    assert capsys.readouterr().out.count("Check passed") == 2
    refused(check.forward_numpy, stub, hint="fails on float64 NumPy features")

    def doubled(model, array):
        model.double()
        return model(torch.as_tensor(array))

    refused(check.forward_numpy, doubled, hint="model.double\\(\\) hides the error")

    def floats_only(model, array):
        x = torch.from_numpy(array)
        return model(x.float() if x.dtype == torch.float64 else x)

    refused(check.forward_numpy, floats_only, hint="Integer arrays")


def test_forward_numpy_may_predict_without_the_graph(capsys):
    """The exercise is the dtype: a forward under torch.no_grad(), the right habit for
    predictions, passes (the review of the early chapters, finding 11)."""
    def no_grad(model, array):
        with torch.no_grad():
            return model(torch.as_tensor(array, dtype=torch.float32))

    def detached(model, array):
        return model(torch.as_tensor(array, dtype=torch.float32)).detach()

    for answer in (no_grad, detached):
        check.forward_numpy(answer)
        check.forward_numpy(answer, seed=7)
    assert capsys.readouterr().out.count("Check passed") == 4


def test_residual_and_its_second_hint():
    def mse(pred, target):
        return (residual(pred, target) ** 2).mean()

    def residual(pred, target):
        return pred[:, 0] - target

    check.residual(residual, mse)
    check.residual(residual, mse, seed=3)

    def broadcast(pred, target):
        return pred - target

    def broadcast_mse(pred, target):
        return (broadcast(pred, target) ** 2).mean()

    with pytest.raises(AssertionError) as first:
        check.residual(broadcast, broadcast_mse)
    with pytest.raises(AssertionError) as second:
        check.residual(broadcast, broadcast_mse)
    assert "broadcast bug" in str(first.value) and "Still stuck" not in str(first.value)
    assert "Still stuck" in str(second.value)
    refused(check.residual, stub, mse, hint="fails on 6 predictions")

    def all_axes(pred, target):
        return pred.squeeze() - target

    def all_axes_mse(pred, target):
        return (all_axes(pred, target) ** 2).mean()

    check.residual(all_axes, all_axes_mse)  # a (1,) target broadcasts: right


def test_per_step():
    check.per_step(lambda x: x.transpose(1, 2).reshape(-1, x.shape[1]))
    check.per_step(lambda x: x.permute(0, 2, 1).flatten(0, 1), seed=11)
    refused(check.per_step, lambda x: x.transpose(1, 2).view(-1, x.shape[1]),
            hint="view never copies")
    refused(check.per_step, lambda x: x.reshape(-1, x.shape[1]),
            hint="without transposing first")
    refused(check.per_step, lambda x: x.transpose(1, 2).reshape(-1, 3),
            hint="Take the sizes from x")


class Colleague(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 8, kernel_size=3, padding=1)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).mean(dim=1))


def test_signal_net():
    class Right(Colleague):
        def forward(self, x):
            return self.head(torch.relu(self.conv(x)).mean(dim=-1))

    check.signal_net(Right)
    check.signal_net(Right, seed=2)
    refused(check.signal_net, Colleague, hint="every shape happened to fit")
    refused(check.signal_net, stub, hint="make_signal_net\\(\\) fails")

    def resized():
        model = Colleague()
        model.head = nn.Linear(12, 2)
        return model

    refused(check.signal_net, resized, hint="resizing the head")

    class Summed(Colleague):
        def forward(self, x):
            return self.head(torch.relu(self.conv(x)).sum(dim=-1))

    refused(check.signal_net, Summed, hint="summed over time")


def test_a_check_says_what_to_run_when_the_function_is_missing():
    with pytest.raises(TypeError, match="run the cell that defines forward_numpy"):
        check.forward_numpy(np.zeros(3))


def test_what_the_example_cannot_see():
    """Found by held-out answers: a forward that switches the model's mode, a per_step or
    a classifier that cuts the graph."""
    def eval_mode(model, array):
        model.eval()
        return model(torch.as_tensor(array, dtype=torch.float32))

    refused(check.forward_numpy, eval_mode, hint="between training and evaluation mode")

    def numpy_round_trip(x):
        flat = x.detach().numpy().transpose(0, 2, 1).reshape(-1, x.shape[1])
        return torch.from_numpy(flat.copy())

    refused(check.per_step, numpy_round_trip, hint="per_step breaks the graph")

    class Detached(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(3, 8, kernel_size=3, padding=1)
            self.head = nn.Linear(8, 2)

        def forward(self, x):
            return self.head(torch.relu(self.conv(x)).mean(dim=2).detach())

    refused(check.signal_net, Detached, hint="conv's weights get no gradient")
