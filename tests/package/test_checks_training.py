"""The checks of labs/lab-training.ipynb (ice_lab.checks.training), without a kernel: each
accepts the lab's answer, on the lab's cases and on a seed's; refuses the stub and the
usual wrong answers with the hint that names them."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset

from check_answers import stub
from ice_lab.checks import training as check
from ice_lab.train import evaluate


def mse(pred, target):
    return F.mse_loss(pred.squeeze(1), target)


# ------------------------------------------------------------------ the lab's answers
def train_epoch(model, loader, optimizer, clear=True, scale=1.0):
    total = 0.0
    for xb, yb in loader:
        if clear:
            optimizer.zero_grad()
        loss = scale * mse(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def validate(model, loader, loss_fn, restore="previous", evaluation=True):
    was_training = model.training
    if evaluation:
        model.eval()
    total, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            total += loss_fn(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    if restore == "previous":
        model.train(was_training)
    elif restore == "train":
        model.train()
    return total / n, correct / n


def run_epochs(model, train_loader, val_loader, loss_fn, optimizer, scheduler, epochs,
               per_batch=False, metric_to_all=False, clear=True):
    lrs, val_losses = [], []
    for _ in range(epochs):
        model.train()
        lrs.append(optimizer.param_groups[0]["lr"])
        for xb, yb in train_loader:
            if clear:
                optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
            if per_batch:
                scheduler.step()
        val_loss = evaluate(model, val_loader, loss_fn)[0]
        val_losses.append(val_loss)
        if per_batch:
            continue
        if metric_to_all or isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            scheduler.step(val_loss)
        else:
            scheduler.step()
    return {"lr": lrs, "val_loss": val_losses}


def accumulate_gradients(model, micro_batches, loss_fn, divide=True):
    model.zero_grad()
    for xb, yb in micro_batches:
        loss = loss_fn(model(xb), yb)
        (loss / len(micro_batches) if divide else loss).backward()


def make_loaders(data, val_fraction=0.2, batch_size=64, same_order=True, ordered=False,
                 shuffle=True):
    n_val = int(len(data) * val_fraction)
    if ordered:
        train, val = list(range(len(data) - n_val)), list(range(len(data) - n_val, len(data)))
    else:
        order = torch.randperm(len(data))
        train = order[n_val:].tolist()
        val = (order if same_order else torch.randperm(len(data)))[:n_val].tolist()
    return (DataLoader(Subset(data, train), batch_size=batch_size, shuffle=shuffle),
            DataLoader(Subset(data, val), batch_size=256))


def chosen_layers(model, loader, loss_fn):
    kinds = (torch.nn.modules.batchnorm._BatchNorm, torch.nn.modules.dropout._DropoutNd)
    saved = {m: m.training for m in model.modules() if isinstance(m, kinds)}
    for m in saved:
        m.eval()
    try:
        return validate(model, loader, loss_fn, evaluation=False, restore=None)
    finally:
        for m, training in saved.items():
            m.train(training)


def reseeding(data, val_fraction=0.2, batch_size=64):
    torch.manual_seed(0)
    return make_loaders(data, val_fraction, batch_size)


def dropping(data, val_fraction=0.2, batch_size=64):
    n_val = int(len(data) * val_fraction)
    train = set(torch.randperm(len(data))[n_val:].tolist())
    val = torch.randperm(len(data))[:n_val].tolist()
    return (DataLoader(Subset(data, sorted(train - set(val))), batch_size=batch_size),
            DataLoader(Subset(data, val), batch_size=256))


CASES = {  # check -> (the lab's answer, [(wrong answer, the hint it must get)])
    "train_epoch": (train_epoch, [
        (lambda m, loader, o: train_epoch(m, loader, o, clear=False), "cleared on every batch"),
        (lambda m, loader, o: train_epoch(m, loader, o, scale=0.5), "the loss is scaled"),
        (lambda m, loader, o: train_epoch(m, loader, o) * len(loader), "not their sum"),
    ]),
    "validate": (validate, [
        (lambda m, loader, f: validate(m, loader, f, evaluation=False), "does not change the mode"),
        (lambda m, loader, f: validate(m, loader, f, restore="train"), "must stay in eval mode"),
        (lambda m, loader, f: validate(m, loader, f, restore=None), "back in train mode"),
        (chosen_layers, "GaussianNoise ran in training mode"),
    ]),
    "run_epochs": (run_epochs, [
        (lambda *a: run_epochs(*a, per_batch=True), "once per epoch, after the batches"),
        (lambda *a: run_epochs(*a, metric_to_all=True), "StepLR.step() takes no metric"),
        (lambda *a: run_epochs(*a, clear=False), "the training between the scheduler steps"),
    ]),
    "accumulate_gradients": (accumulate_gradients, [
        (lambda m, b, f: accumulate_gradients(m, b, f, divide=False), "4 times the whole"),
        (lambda m, b, f: [(f(m(x), y) / 4).backward() for x, y in b], "plus the old one"),
        (lambda m, b, f: [(m.zero_grad(), (f(m(x), y) / len(b)).backward()) for x, y in b],
         "only the last micro-batch's gradient"),
    ]),
    "make_loaders": (make_loaders, [
        (lambda d, f, b: make_loaders(d, f, b, same_order=False), "training rows too"),
        (lambda d, f, b: make_loaders(d, f, b, ordered=True), "stored order"),
        (reseeding, "reseeds PyTorch's global random generator"),
        (dropping, "in neither split"),
        (lambda d, f, b: make_loaders(d, f, 64), "take the batch_size make_loaders is given"),
        (lambda d, f, b: make_loaders(d, f, b, shuffle=False), "in the same order in every pass"),
    ]),
}


@pytest.mark.parametrize("name", CASES)
def test_the_labs_answer_passes(name, capsys):
    getattr(check, name)(CASES[name][0])
    assert capsys.readouterr().out.startswith("Check passed")


@pytest.mark.parametrize("name", CASES)
def test_a_seed_draws_other_cases_and_still_passes(name, capsys):
    getattr(check, name)(CASES[name][0], seed=123)
    assert capsys.readouterr().out.startswith("Check passed")


@pytest.mark.parametrize("name", CASES)
def test_the_stub_fails_with_the_error_quoted(name):
    with pytest.raises(AssertionError, match="NotImplementedError"):
        getattr(check, name)(stub)


@pytest.mark.parametrize("name, index", [(n, i) for n in CASES for i in range(len(CASES[n][1]))])
def test_a_wrong_answer_gets_its_hint(name, index):
    wrong, hint = CASES[name][1][index]
    with pytest.raises(AssertionError) as failure:
        getattr(check, name)(wrong)
    assert hint in str(failure.value)


def test_a_second_failure_of_the_same_kind_says_more():
    wrong = CASES["make_loaders"][1][0][0]
    for _ in range(2):
        with pytest.raises(AssertionError) as failure:
            check.make_loaders(wrong)
    assert "Still stuck" in str(failure.value)


def test_a_check_without_the_function_says_which_cell_to_run():
    with pytest.raises(TypeError, match="make_loaders"):
        check.make_loaders(None)
