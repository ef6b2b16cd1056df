"""ice_lab.checks.export: the scanner check refuses a decision taken image by image (a
batch mixing both kinds of image tells it apart), and the open exercise's check refuses
a program with the example's scale baked in. Exports take seconds: a few cases only;
tests/book/test_lab_answers.py plays every recorded answer in the lab itself."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.export import Dim

from ice_lab.checks import export as check


def digits_net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 10)).eval()


class Scanner(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        if x.max() > 1:
            x = x / 16
        return self.net(x)


def exported(module: nn.Module) -> torch.export.ExportedProgram:
    return torch.export.export(module.eval(), (torch.rand(8, 1, 8, 8),),
                               dynamic_shapes=({0: Dim("batch")},))


class PerBatch(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x / torch.where(x.max() > 1, 16.0, 1.0))


class PerImage(PerBatch):
    def forward(self, x):
        bright = x.amax(dim=(1, 2, 3), keepdim=True) > 1
        return self.net(torch.where(bright, x / 16, x))


def test_export_scanner_refuses_a_decision_per_image(capsys):
    scanner = Scanner(digits_net()).eval()
    check.export_scanner(lambda s: exported(PerBatch(s.net)), scanner)
    assert "Check passed" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="It decides image by image"):
        check.export_scanner(lambda s: exported(PerImage(s.net)), scanner)
    with pytest.raises(AssertionError, match="returned a model"):
        check.export_scanner(lambda s: s, scanner)


class Brightness(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = x.clamp(min=0)
        return self.net(x / max(float(x.amax()), 1e-6))


class TensorScale(Brightness):
    def forward(self, x):
        x = x.clamp(min=0)
        return self.net(x / x.amax().clamp(min=1e-6))


def test_export_brightness_refuses_a_baked_scale():
    model = Brightness(digits_net()).eval()
    check.export_brightness(lambda m: exported(TensorScale(m.net)), model, seed=3)
    with pytest.raises(AssertionError, match="written into the program as a constant"):
        check.export_brightness(lambda m: exported(m.net), model)
    with pytest.raises(AssertionError, match="refuses to turn a tensor into a Python"):
        check.export_brightness(exported, model)


def test_export_brightness_compares_with_the_wrapper_as_written():
    """Found by held-out answers: negative pixels kept, a scale per image hidden in the
    wrapper's own (patched) forward, the notebook's network."""
    import types

    model = Brightness(digits_net()).eval()

    class NoClamp(Brightness):
        def forward(self, x):
            return self.net(x / x.amax().clamp(min=1e-6))

    with pytest.raises(AssertionError, match="negative pixels: the wrapper sets them to 0"):
        check.export_brightness(lambda m: exported(NoClamp(m.net)), model)

    def patched(m):
        def forward(self, x):
            x = x.clamp(min=0)
            return self.net(x / x.amax(dim=(1, 2, 3), keepdim=True).clamp(min=1e-6))

        m.forward = types.MethodType(forward, m)
        return exported(m)

    with pytest.raises(AssertionError, match="it rescales image by image"):
        check.export_brightness(patched, Brightness(digits_net()).eval())
    net = model.net
    with pytest.raises(AssertionError, match="export the network of the model it is given"):
        check.export_brightness(lambda m: exported(TensorScale(net)), model)
