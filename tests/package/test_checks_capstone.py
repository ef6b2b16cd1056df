"""The checks of labs/lab-capstone.ipynb (ice_lab.checks.capstone and its three sibling
modules), in process, without a kernel: each check accepts a right answer on the lab's
cases and on a seed's, refuses the stub with its error quoted and typical wrong answers
with the hint that names them, and says more on a second failure.

The whole answer table (tests/support/lab_answers/capstone.py) is replayed in the lab by
tests/book/test_lab_answers.py; here only enough of it to test the check functions.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import ice_lab
import ice_lab.data
from check_answers import stub
from ice_lab.checks import capstone as check

ROOT = Path(__file__).resolve().parents[2]
images, labels = ice_lab.data.digits_arrays()


# ------------------------------------------------------------------ right answers
def make_model(head=32 * 4 * 4, softmax=False):
    layers = [
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(head, 10),
    ]
    return nn.Sequential(*layers, *([nn.Softmax(dim=1)] if softmax else []))


def normalise(X, mean, std, eps=None):
    if eps is not None:
        return (X - mean) / (std + eps)
    return (X - mean) / torch.where(std == 0, torch.ones_like(std), std)


def load_digits(together=True, reseed=False):
    if reseed:
        ice_lab.set_seed(0)
    X = torch.from_numpy(images).float().unsqueeze(1) / 16
    y = torch.from_numpy(labels)
    order = (torch.randperm(len(X)) if reseed
             else torch.randperm(len(X), generator=torch.Generator().manual_seed(0)))
    return X[order], (y[order] if together else y)


def setup(seed=0, none_seeds=False):
    if seed is not None or none_seeds:
        ice_lab.set_seed(0 if seed is None else seed)
    model = make_model()
    return model, torch.optim.AdamW(model.parameters(), lr=3e-3)


def compute_loss(logits, labels):
    return F.cross_entropy(logits, labels)


def train_step(model, xb, yb, optimizer, clear=True):
    if clear:
        optimizer.zero_grad()
    loss = compute_loss(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss.item()


def evaluate(model, loader, mode=True, item=True, move=True):
    device = next(model.parameters()).device
    was_training = model.training
    if mode:
        model.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad() if item else torch.enable_grad():
        for xb, yb in loader:
            if move:
                xb, yb = xb.to(device), yb.to(device)
            logits = model(xb)
            loss = compute_loss(logits, yb)
            total_loss += (loss.item() if item else loss) * len(yb)
            correct += (logits.argmax(dim=1) == yb).sum().item()
    model.train(was_training)
    n = len(loader.dataset)
    return total_loss / n, correct / n


class AddCoords(nn.Module):
    def forward(self, x):
        n, _, h, w = x.shape
        rows = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(n, 1, h, w)
        cols = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(n, 1, h, w)
        return torch.cat([x, rows, cols], dim=1)


class CpuCoords(nn.Module):  # the colleague's: made on the CPU
    def forward(self, x):
        n, _, h, w = x.shape
        rows = torch.linspace(-1, 1, h).view(1, 1, h, 1).expand(n, 1, h, w)
        cols = torch.linspace(-1, 1, w).view(1, 1, 1, w).expand(n, 1, h, w)
        return torch.cat([x, rows, cols], dim=1)


class Residual(nn.Module):
    def __init__(self, channels, skip="out of place"):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.skip = skip

    def forward(self, x):
        h = self.relu(self.bn(self.conv(x)))
        if self.skip == "in place":
            h += x
            return h
        if self.skip == "detached":
            return h + x.detach()
        return h + x


def residual(skip):
    return lambda channels: Residual(channels, skip)


def evaluate_chosen_layers(model, loader):
    kinds = (nn.modules.batchnorm._BatchNorm, nn.modules.dropout._DropoutNd)
    saved = {m: m.training for m in model.modules() if isinstance(m, kinds)}
    for m in saved:
        m.eval()
    try:
        return evaluate(model, loader, mode=False)
    finally:
        for m, training in saved.items():
            m.train(training)


META = torch.device("meta")
CASES: dict[str, tuple[Callable, Callable, list[tuple[Callable, str]]]] = {
    # check -> (how to call it, the right answer, [(wrong answer, the hint it must get)])
    "model": (lambda fn, s: check.model(fn, seed=s), make_model, [
        (lambda: make_model(32 * 14 * 14), "the head is not sized for what reaches it"),
        (lambda: make_model(softmax=True), "The last layer is Softmax"),
    ]),
    "normalise": (lambda fn, s: check.normalise(fn, seed=s), normalise, [
        (lambda X, m, s: normalise(X, m, s, eps=1e-8), "Ink in a pixel that never varied"),
        (lambda X, m, s: (X - m) / s.mean(), "Pixels that vary must be standardised"),
    ]),
    "load_digits": (lambda fn, s: check.load_digits(fn, images, labels, seed=s), load_digits, [
        (lambda: load_digits(together=False), "labels do not belong to their image"),
        (lambda: load_digits(reseed=True), "reseeds a global random generator"),
    ]),
    "setup": (lambda fn, s: check.setup(fn, seed=s), setup, [
        (lambda seed=0: (make_model(), torch.optim.AdamW(make_model().parameters(), lr=3e-3)),
         "the optimizer does not hold"),
        (lambda seed=0: setup(seed, none_seeds=True), 'seed=None means "do not seed"'),
    ]),
    "compute_loss": (lambda fn, s: check.compute_loss(fn, seed=s), compute_loss, [
        (lambda z, y: F.cross_entropy(F.softmax(z, dim=1), y), "the script's bug, is still"),
        (lambda z, y: F.cross_entropy(z, y, reduction="sum"), "changes with the batch size"),
        (lambda z, y: F.cross_entropy(z, y).item(), "0-d tensor with its graph"),
    ]),
    "train_step": (lambda fn, s: check.train_step(fn, compute_loss, seed=s), train_step, [
        (lambda m, x, y, o: train_step(m, x, y, o, clear=False), ".grad accumulates"),
        (lambda m, x, y, o: train_step(m, x, y, o) * 0 + compute_loss(m(x), y),
         "returns the loss as a Python float"),
    ]),
    "evaluate_memory": (lambda fn, s: check.evaluate_memory(fn, seed=s), evaluate, [
        (lambda m, loader: evaluate(m, loader, item=False), "Live memory still grows"),
        (lambda m, loader: evaluate(m, loader, move=False),
         "batches where the loader made them"),
    ]),
    "evaluate_mode": (lambda fn, s: check.evaluate_mode(fn, seed=s), evaluate, [
        (lambda m, loader: evaluate(m, loader, mode=False), "dropout is still active"),
        (evaluate_chosen_layers, "Switching chosen layers misses the others"),
    ]),
    "add_coords": (lambda fn, s: check.add_coords(fn, META, seed=s), AddCoords, [
        (CpuCoords, "AddCoords still fails on meta"),
    ]),
    "residual": (lambda fn, s: check.residual(fn, seed=s), residual("out of place"), [
        (residual("in place"), "backward still fails"),
        (residual("detached"), "the skip must carry the gradient back to x"),
    ]),
}


@pytest.mark.parametrize("name", CASES)
def test_a_right_answer_passes_visible_and_seeded(name, capsys):
    call, right, _ = CASES[name]
    for seed in (None, 2026):
        call(right, seed)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(line.startswith("Check passed: ") for line in lines)


@pytest.mark.parametrize("name", CASES)
def test_the_stub_fails_with_its_error_quoted(name):
    call, _, _ = CASES[name]
    stubbed = stub if name not in ("add_coords", "residual") else type(
        "Stub", (nn.Module,), {"__init__": lambda self, *a: nn.Module.__init__(self),
                               "forward": stub})
    with pytest.raises(AssertionError, match="NotImplementedError"):
        call(stubbed, None)


@pytest.mark.parametrize(("name", "k"), [(n, k) for n in CASES for k in range(len(CASES[n][2]))])
def test_a_wrong_answer_fails_with_its_hint(name, k):
    call, _, wrong = CASES[name]
    answer, hint = wrong[k]
    with pytest.raises(AssertionError) as failed:
        call(answer, None)
    assert hint in str(failed.value)


def test_seeds_draw_other_cases(capsys):
    for seed in (None, 5, 2026):
        check.load_digits(load_digits, images, labels, seed=seed)
        check.compute_loss(compute_loss, seed=seed)
    lines = capsys.readouterr().out.splitlines()
    assert len(set(lines[0::2])) == 3 and len(set(lines[1::2])) == 3, lines


def test_a_second_failure_says_more():
    messages = []
    for _ in range(2):
        with pytest.raises(AssertionError) as failed:
            check.train_step(lambda m, x, y, o: train_step(m, x, y, o, clear=False),
                             compute_loss)
        messages.append(str(failed.value))
    assert "Still stuck" in messages[1]  # the first may be a second already


def test_the_final_check_reads_the_history(capsys):
    check.final({"test_accuracy": 0.975})
    assert capsys.readouterr().out.startswith("Check passed")
    with pytest.raises(AssertionError, match="the target is 97%"):
        check.final({"test_accuracy": 0.9})
    with pytest.raises(AssertionError, match="did not finish"):
        check.final({})


def test_a_check_without_the_function_says_which_cell_to_run():
    with pytest.raises(TypeError, match="setup"):
        check.setup(None)


def test_no_hint_spells_a_fix():
    """The fixes' own code never stands in a check's messages (its string literals)."""
    texts = []
    for name in ("capstone", "capstone_training", "capstone_eval", "capstone_colleague"):
        tree = ast.parse((ROOT / "ice_lab" / "checks" / f"{name}.py").read_text())
        texts += [node.value for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    sources = " ".join(" ".join(texts).split())
    for fix in ("optimizer.zero_grad()", "model.zero_grad()", "torch.no_grad():",
                "model.eval()", "model.train(was", "xb.to(device)",
                "device=x.device", "h = h + x", "y[order]", "std > 0",
                "F.cross_entropy(logits, labels)", "len(loader.dataset)", "32 * 4 * 4"):
        assert fix not in sources, fix

