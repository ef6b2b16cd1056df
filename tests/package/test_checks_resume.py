"""ice_lab.checks.resume, the checks of labs/lab-resume.ipynb: each accepts a right answer
with one "Check passed" line, refuses the stub and the usual wrong answers with the hint
that names them, and with a seed tries other cases and still accepts the right answer.

The lab's setting is rebuilt here as the lab has it: the digits, make_parts (a network with
dropout, Adam, a LambdaLR, a ResumableSampler), make_classifier, the colleague's Trainer.
The atomic_save check starts child processes (the kill): those tests are kernel tests."""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader

import ice_lab
import ice_lab.data
from check_answers import fails, passes, stub
from ice_lab.checks import resume as check
from ice_lab.resume import ResumableSampler, capture_rng, restore_rng

train_ds, _, _ = ice_lab.data.digits_datasets()
loss_fn = nn.CrossEntropyLoss()


def cosine_decay(step):
    return 0.05 + 0.95 * (1 + math.cos(math.pi * min(step, 500) / 500)) / 2


def make_parts(seed=0):
    _ = ice_lab.set_seed(seed)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.1),
                          nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, cosine_decay)
    sampler = ResumableSampler(len(train_ds), seed=seed)
    loader = DataLoader(train_ds, batch_size=64, sampler=sampler,
                        generator=torch.Generator())
    return SimpleNamespace(model=model, optimizer=optimizer, scheduler=scheduler,
                           sampler=sampler, loader=loader, lrs=[], batch_losses=[],
                           losses=[])


# ------------------------------------------------------------------ exercise 1
def save_all(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict(),
            "scheduler": parts.scheduler.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.scheduler.load_state_dict(ckpt["scheduler"])
    return parts, ckpt["step"]


def save_weights(parts, step):
    return {"step": step, "model": parts.model.state_dict()}


def resume_weights(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]


def save_no_schedule(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume_no_schedule(ckpt):
    parts, step = resume_weights(ckpt)
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    return parts, step


def resume_replayed(ckpt):
    parts, step = resume_no_schedule(ckpt)
    for _ in range(step):
        parts.scheduler.step()
    return parts, step


def save_object(parts, step):
    return {**save_all(parts, step), "optimizer": parts.optimizer}


@pytest.mark.filterwarnings("ignore:Detected call of")  # the scheduler replayed in resume
def test_make_checkpoint(capsys):
    passes(lambda: check.make_checkpoint(save_all, resume, make_parts), capsys)
    fails(lambda: check.make_checkpoint(stub, stub, make_parts), "make_checkpoint fails")
    fails(lambda: check.make_checkpoint(save_object, resume, make_parts),
          "Your checkpoint holds an object")
    fails(lambda: check.make_checkpoint(save_weights, resume_weights, make_parts),
          "Adam should continue at step 400")
    fails(lambda: check.make_checkpoint(save_no_schedule, resume_no_schedule, make_parts),
          "the learning rate jumps back to the top of the schedule")
    fails(lambda: check.make_checkpoint(save_no_schedule, resume_replayed, make_parts),
          "applies its decays twice")


def test_make_checkpoint_with_a_seed(capsys):
    passes(lambda: check.make_checkpoint(save_all, resume, make_parts, seed=17), capsys)
    fails(lambda: check.make_checkpoint(save_no_schedule, resume_no_schedule, make_parts,
                                        seed=17), "the learning rates differ")


# ------------------------------------------------------------------ exercise 2
def save_exact(parts, step):
    return {**save_all(parts, step), "rng": capture_rng(parts.sampler)}


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"], parts.sampler)
    return parts, step


def save_rng_only(parts, step):
    return {**save_all(parts, step), "rng": capture_rng()}


def resume_rng_only(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    return parts, step


def resume_too_early(ckpt):
    restore_rng(ckpt["rng"])
    parts, step = resume(ckpt)
    parts.sampler.load_state_dict(ckpt["rng"]["sampler"])
    return parts, step


def save_sampler_only(parts, step):
    return {**save_all(parts, step), "sampler": parts.sampler.state_dict()}


def resume_sampler_only(ckpt):
    parts, step = resume(ckpt)
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step


def test_exact_resume(capsys):
    passes(lambda: check.exact_resume(save_exact, resume_exact, make_parts), capsys)
    fails(lambda: check.exact_resume(stub, stub, make_parts), "could not resume it")
    fails(lambda: check.exact_resume(save_rng_only, resume_rng_only, make_parts),
          "starts the first epoch again")
    fails(lambda: check.exact_resume(save_exact, resume_too_early, make_parts),
          "it was put back too early")
    fails(lambda: check.exact_resume(save_sampler_only, resume_sampler_only, make_parts),
          "does not hold where that generator stood")


def test_exact_resume_with_a_seed(capsys):
    passes(lambda: check.exact_resume(save_exact, resume_exact, make_parts, seed=5), capsys)
    fails(lambda: check.exact_resume(save_sampler_only, resume_sampler_only, make_parts,
                                     seed=5), "the losses differ")


# ------------------------------------------------------------------ exercise 3
def make_classifier():
    return nn.Sequential(OrderedDict(
        features=nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU()),
        head_module=nn.Linear(32, 10)))


def load_right(path, model):
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
    return model


def load_no_map(path, model):
    state = torch.load(path, weights_only=True)
    model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
    return model


def load_replace(path, model):
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict({k.replace("module.", ""): v for k, v in state.items()})
    return model


def load_lenient(path, model):
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()},
                          strict=False)
    return model


def load_filtered(path, model):
    state = torch.load(path, map_location="cpu", weights_only=True)
    known = model.state_dict()
    model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()
                           if k.removeprefix("module.") in known})
    return model


def load_lstrip(path, model):
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict({k.lstrip("module").lstrip("."): v for k, v in state.items()})
    return model


def test_load_colleague(capsys):
    passes(lambda: check.load_colleague(load_right, make_classifier), capsys)
    fails(lambda: check.load_colleague(stub, make_classifier), "load_colleague fails")
    fails(lambda: check.load_colleague(load_no_map, make_classifier),
          "the file's tensors are tagged cuda:0")
    fails(lambda: check.load_colleague(load_replace, make_classifier),
          "str.replace('module.', '') renames it")
    fails(lambda: check.load_colleague(load_lstrip, make_classifier),
          "strips a set of characters, not a prefix")
    fails(lambda: check.load_colleague(load_lenient, make_classifier),
          "The exercise asks for a strict load")
    fails(lambda: check.load_colleague(load_filtered, make_classifier),
          "The exercise asks for a strict load")


def test_load_colleague_with_a_seed(capsys):
    passes(lambda: check.load_colleague(load_right, make_classifier, seed=3), capsys)
    fails(lambda: check.load_colleague(load_lenient, make_classifier, seed=3),
          "The exercise asks for a strict load")


def test_the_colleague_file_is_a_gpu_file(tmp_path, monkeypatch):
    check_files = pytest.importorskip("ice_lab.checks.resume_files")
    check_files.gpu_file({"w": torch.ones(2)}, tmp_path / "g.pt")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="CUDA"):
        torch.load(tmp_path / "g.pt", weights_only=True)
    assert torch.equal(torch.load(tmp_path / "g.pt", map_location="cpu",
                                  weights_only=True)["w"], torch.ones(2))


# ------------------------------------------------------------------ exercise 4
def atomic_right(state, path):
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def atomic_plain(state, path):
    torch.save(state, path)


def atomic_no_fsync(state, path):
    tmp = str(path) + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
    os.replace(tmp, path)


def atomic_no_folder_sync(state, path):
    tmp = Path(path).with_suffix(".partial")
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@pytest.mark.kernel
def test_atomic_save(capsys):
    def atomic_save(state, path):  # the student edition's stub
        raise NotImplementedError("write your fix here")

    passes(lambda: check.atomic_save(atomic_right), capsys)
    fails(lambda: check.atomic_save(atomic_save), "fails in the training script")
    fails(lambda: check.atomic_save(atomic_plain), "empties path before writing")
    fails(lambda: check.atomic_save(atomic_no_fsync), "bytes were fsync-ed")
    fails(lambda: check.atomic_save(atomic_no_folder_sync), "fsyncs of the folder after one")


@pytest.mark.kernel
def test_atomic_save_with_a_seed(capsys):
    passes(lambda: check.atomic_save(atomic_right, seed=9), capsys)


# ------------------------------------------------------------------ exercise 5
class Trainer:
    """The lab's colleague's trainer: resume checks the weights with a forward pass in
    train mode, after the random state was put back (dropout draws)."""

    def __init__(self, seed=0):
        self.seed, self.steps, self.losses = seed, 0, []
        _ = ice_lab.set_seed(seed)
        self.model = nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(),
                                   nn.Dropout(0.2), nn.Linear(64, 10))
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=2e-3)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / 20))
        self.sampler = ResumableSampler(len(train_ds), seed=seed)
        self.loader = DataLoader(train_ds, batch_size=50, sampler=self.sampler,
                                 generator=torch.Generator())

    def fit(self, until):
        self.model.train()
        while self.steps < until:
            for xb, yb in self.loader:
                loss = loss_fn(self.model(xb), yb)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.scheduler.step()
                self.losses.append(loss.item())
                self.steps += 1
                if self.steps == until:
                    break

    def state(self):
        return {"seed": self.seed, "steps": self.steps, "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(), "rng": capture_rng(self.sampler)}

    @classmethod
    def resume(cls, state):
        trainer = cls(state["seed"])
        trainer.steps = state["steps"]
        trainer.optimizer.load_state_dict(state["optimizer"])
        trainer.scheduler.load_state_dict(state["scheduler"])
        restore_rng(state["rng"], trainer.sampler)
        trainer.model.load_state_dict(state["model"])
        with torch.no_grad():
            ok = trainer.model(train_ds.tensors[0][:8]).isfinite().all()
        if not ok:
            raise ValueError("the checkpoint's weights give NaN or inf")
        return trainer


class Repaired(Trainer):
    @classmethod
    def resume(cls, checkpoint):
        resumed = super().resume(checkpoint)
        restore_rng(checkpoint["rng"], resumed.sampler)
        return resumed


class Reseeded(Trainer):  # deterministic, and another run
    @classmethod
    def resume(cls, checkpoint):
        resumed = super().resume(checkpoint)
        torch.manual_seed(checkpoint["seed"] + checkpoint["steps"])
        return resumed


class NoDropout(Trainer):  # the symptom gone, the colleague's runs too
    def __init__(self, seed=0):
        super().__init__(seed)
        self.model[3].p = 0.0


class Stashed(Trainer):  # the state put back at every fit: right once, wrong twice
    @classmethod
    def resume(cls, checkpoint):
        resumed = super().resume(checkpoint)
        resumed.stash = checkpoint["rng"]
        return resumed

    def fit(self, until):
        if getattr(self, "stash", None):
            restore_rng(self.stash, self.sampler)
        super().fit(until)


def test_colleague_trainer(capsys):
    passes(lambda: check.colleague_trainer(lambda: Repaired, Trainer), capsys)
    fails(lambda: check.colleague_trainer(stub, Trainer), "repaired_trainer() fails")
    fails(lambda: check.colleague_trainer(lambda: Trainer, Trainer), "other dropout masks")
    fails(lambda: check.colleague_trainer(lambda: Reseeded, Trainer), "other dropout masks")
    fails(lambda: check.colleague_trainer(lambda: NoDropout, Trainer),
          "no longer computes what the colleague's computed")
    fails(lambda: check.colleague_trainer(lambda: Stashed, Trainer), "a second fit call")


def test_colleague_trainer_with_a_seed(capsys):
    passes(lambda: check.colleague_trainer(lambda: Repaired, Trainer, seed=11), capsys)
    fails(lambda: check.colleague_trainer(lambda: Trainer, Trainer, seed=11),
          "other dropout masks")
