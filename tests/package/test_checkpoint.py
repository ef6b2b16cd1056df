"""ice_lab.checkpoint: atomic saves, every way a load can fail, RNG and loader resume,
state_dict diffs; SIGKILL in the middle of a save; a few kill-and-resume trials."""

from __future__ import annotations

import os
import pickle
import random
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from ice_lab import run_isolated
from ice_lab.checkpoint import (
    CheckpointError,
    latest_checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from ice_lab.resume import ResumableSampler, capture_rng, restore_rng
from ice_lab.state_dict_diff import diff_state_dict

ROOT = Path(__file__).resolve().parents[2]


def small_state(fill: float = 1.0) -> dict:
    return {"step": 1, "model": {"w": torch.full((64, 64), fill)}}


def reason(path, **kwargs) -> CheckpointError:
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path, **kwargs)
    assert str(path) in str(info.value), "the error must name the file"
    return info.value


# --------------------------------------------------------------------------- saving
def test_round_trip_and_keep_last_k_plus_best(tmp_path):
    for step in range(1, 6):
        save_checkpoint(tmp_path / f"step-{step:03d}.pt", keep=2, is_best=step == 2,
                        step=step, model={"w": torch.tensor([float(step)])})
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["best.pt", "step-004.pt", "step-005.pt"]
    assert latest_checkpoint(tmp_path).name == "step-005.pt"
    assert load_checkpoint(tmp_path / "best.pt")["step"] == 2
    assert torch.equal(load_checkpoint(tmp_path / "step-005.pt")["model"]["w"], torch.tensor([5.0]))


def test_save_refuses_objects_and_nothing(tmp_path):
    with pytest.raises(TypeError, match=r"model.state_dict\(\)"):
        save_checkpoint(tmp_path / "a.pt", model=nn.Linear(2, 2))
    with pytest.raises(ValueError, match="nothing to save"):
        save_checkpoint(tmp_path / "a.pt")
    with pytest.raises(ValueError, match="keep"):
        save_checkpoint(tmp_path / "a.pt", keep=0, step=1)


def test_latest_ignores_temporaries_and_best(tmp_path):
    assert latest_checkpoint(tmp_path / "nowhere") is None
    save_checkpoint(tmp_path / "step-001.pt", is_best=True, step=1)
    (tmp_path / ".step-002.pt.tmp-999999").write_bytes(b"PK\x03\x04half")
    assert latest_checkpoint(tmp_path).name == "step-001.pt"


# --------------------------------------------------------------------------- load failures
def test_missing(tmp_path):
    assert reason(tmp_path / "nope.pt").reason == "missing"


def test_empty(tmp_path):
    (tmp_path / "e.pt").write_bytes(b"")
    assert reason(tmp_path / "e.pt").reason == "empty"


def test_truncated(tmp_path):
    torch.save(small_state(), tmp_path / "full.pt")
    data = (tmp_path / "full.pt").read_bytes()
    (tmp_path / "t.pt").write_bytes(data[: len(data) // 2])
    assert reason(tmp_path / "t.pt").reason == "truncated"


def test_corrupt_byte_is_caught_although_torch_load_accepts_it(tmp_path):
    path = tmp_path / "c.pt"
    torch.save(small_state(), path)
    with zipfile.ZipFile(path) as z:
        info = next(i for i in z.infolist() if i.filename.endswith("data/0"))
    data = bytearray(path.read_bytes())
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 1000] ^= 0xFF
    path.write_bytes(bytes(data))
    silently = torch.load(path, weights_only=True)["model"]["w"]
    assert not torch.equal(silently, small_state()["model"]["w"])  # torch.load: wrong numbers
    assert reason(path).reason == "corrupt"


@pytest.mark.parametrize("kind", ["text", "pickle", "zip"])
def test_not_a_checkpoint(tmp_path, kind):
    path = tmp_path / "x.pt"
    if kind == "text":
        path.write_text("epoch,train_loss\n1,0.5\n")
    elif kind == "pickle":
        path.write_bytes(pickle.dumps([1, 2, 3], protocol=2))
    else:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("notes.txt", "hello")
    err = reason(path)
    assert err.reason == "not_a_checkpoint" and "not" in str(err)


def test_pickled_module_is_refused(tmp_path):
    torch.save(nn.Linear(2, 2), tmp_path / "m.pt")
    err = reason(tmp_path / "m.pt")
    assert err.reason == "unsafe" and "torch.nn.modules.linear.Linear" in str(err)
    assert "add_safe_globals" in str(err)


class _Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))  # unpickling would create the marker file


def test_malicious_payload_refused_and_never_runs(tmp_path):
    marker = tmp_path / "marker"
    torch.save({"model": {"w": torch.ones(1)}, "x": _Payload(str(marker))}, tmp_path / "p.pt")
    assert reason(tmp_path / "p.pt").reason == "unsafe"
    assert not marker.exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
@pytest.mark.kernel
def test_gpu_checkpoint_on_cpu_machine(tmp_path):
    path = tmp_path / "gpu.pt"
    # In a child: storages tagged "cuda:0", the bytes a GPU save writes.
    writer = run_isolated(textwrap.dedent(f"""
        import torch
        torch.serialization.register_package(1, lambda s: "cuda:0", lambda o, loc: None)
        torch.save({{"model": {{"w": torch.ones(3)}}}}, {str(path)!r})
    """))
    assert writer.ok, writer
    err = reason(path)
    assert err.reason == "device" and "map_location='cpu'" in str(err)
    assert torch.equal(load_checkpoint(path, map_location="cpu")["model"]["w"], torch.ones(3))


def test_different_model(tmp_path):
    save_checkpoint(tmp_path / "a.pt", model=nn.Linear(4, 3).state_dict())
    err = reason(tmp_path / "a.pt", model=nn.Linear(4, 5))
    assert err.reason == "mismatch" and "weight" in str(err) and "[3, 4]" in str(err)
    assert load_checkpoint(tmp_path / "a.pt", model=nn.Linear(4, 3))["model"]
    torch.save(nn.Linear(4, 3).state_dict(), tmp_path / "bare.pt")  # a bare state_dict
    assert reason(tmp_path / "bare.pt", model=nn.Linear(3, 3)).reason == "mismatch"
    save_checkpoint(tmp_path / "b.pt", step=1)
    assert "no model state" in str(reason(tmp_path / "b.pt", model=nn.Linear(3, 3)))


# --------------------------------------------------------------------------- RNG and loader
def draws():
    return (random.random(), float(np.random.rand()), torch.rand(3))


def test_capture_restore_rng_through_a_file(tmp_path):
    random.seed(1), np.random.seed(1), torch.manual_seed(1)
    np.random.standard_normal()  # leaves a cached Gaussian in NumPy's state
    save_checkpoint(tmp_path / "r.pt", rng=capture_rng())
    first = draws()
    restore_rng(load_checkpoint(tmp_path / "r.pt")["rng"])
    again = draws()
    assert first[:2] == again[:2] and torch.equal(first[2], again[2])
    with pytest.raises(KeyError, match="capture_rng"):
        restore_rng({"python": random.getstate()})


def test_sampler_resumes_mid_epoch(tmp_path):
    data = TensorDataset(torch.arange(10))

    def loader(sampler):
        return DataLoader(data, batch_size=3, sampler=sampler, generator=torch.Generator())

    whole = ResumableSampler(10, seed=3)
    order = [b[0].tolist() for _ in range(2) for b in loader(whole)]
    assert sorted(sum(order[:4], [])) == list(range(10))  # epoch 1 is a permutation
    assert order[:4] != order[4:]  # epoch 2 is another one

    first = ResumableSampler(10, seed=3)
    it = iter(loader(first))
    seen = [next(it)[0].tolist() for _ in range(2)]
    save_checkpoint(tmp_path / "s.pt", rng=capture_rng(first))
    resumed = ResumableSampler(10, seed=0)
    restore_rng(load_checkpoint(tmp_path / "s.pt")["rng"], resumed)
    rest = [b[0].tolist() for b in loader(resumed)] + [b[0].tolist() for b in loader(resumed)]
    assert seen + rest == order
    with pytest.raises(KeyError, match="position"):
        resumed.load_state_dict({"seed": 0, "epoch": 0})


class _Jitter(torch.utils.data.Dataset):
    """Random augmentation drawn in the worker, from the seed the loader gave it."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        return i + torch.rand(())


@pytest.mark.kernel
def test_loader_generator_resumes_worker_randomness(tmp_path):
    def epoch(generator):
        loader = DataLoader(_Jitter(), batch_size=2, num_workers=1, generator=generator)
        return torch.cat(list(loader))

    g = torch.Generator().manual_seed(0)
    epoch(g)  # epoch 1 draws the workers' seed from g
    save_checkpoint(tmp_path / "g.pt", rng=capture_rng(generator=g))
    second = epoch(g)
    assert not torch.equal(second, epoch(torch.Generator().manual_seed(0)))
    fresh = torch.Generator()
    restore_rng(load_checkpoint(tmp_path / "g.pt")["rng"], generator=fresh)
    assert torch.equal(epoch(fresh), second)  # the same augmentation after the resume
    with pytest.raises(KeyError, match="generator"):
        restore_rng(capture_rng(), generator=torch.Generator())
    with pytest.raises(TypeError, match="torch.Generator"):
        capture_rng(generator=0)


# --------------------------------------------------------------------------- state_dict diff
def test_diff_state_dict_table_and_prefix():
    bare = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    assert not diff_state_dict(bare, bare.state_dict())
    assert "match" in str(diff_state_dict(bare, bare))
    wrapped = nn.DataParallel(nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1)))
    diff = diff_state_dict(wrapped.state_dict(), bare)
    assert diff.missing == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert diff.unexpected[0] == "module.0.weight"
    assert "'module.'" in diff.prefix_hint and "module." in str(diff)
    head = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 5))
    diff = diff_state_dict(bare, head)
    assert diff.mismatched == [("1.weight", (1, 3), (5, 3)), ("1.bias", (1,), (5,))]
    assert "2 with another shape" in str(diff)
    with pytest.raises(TypeError, match="state_dict or an nn.Module"):
        diff_state_dict([1], bare)


# --------------------------------------------------------------------------- SIGKILL mid-save
# The child saves a good checkpoint, then starts a second save of the same file and stops
# at the chosen point, says so on its stdout and waits; the test reads that line and only
# then sends SIGKILL. No sleeps, no timing.
_CHILD = r"""
import io, os, sys, torch
from ice_lab.checkpoint import save_checkpoint
path, phase = sys.argv[1], sys.argv[2]
save_checkpoint(path, step=1, model={"w": torch.full((256, 256), 1.0)})
real_save, real_replace = torch.save, os.replace

def wait_here():
    print("inside the save", flush=True)
    sys.stdin.read()  # blocks until killed

def save(obj, f, *args, **kwargs):
    if phase != "mid-write":
        return real_save(obj, f, *args, **kwargs)
    buffer = io.BytesIO()
    real_save(obj, buffer)
    f.write(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    f.flush()
    wait_here()

def replace(src, dst):
    wait_here()

torch.save, os.replace = save, replace
save_checkpoint(path, step=2, model={"w": torch.full((256, 256), 2.0)})
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
@pytest.mark.parametrize("phase", ["mid-write", "before-replace"])
@pytest.mark.kernel
def test_sigkill_mid_save_leaves_previous_checkpoint_intact(tmp_path, phase):
    path = tmp_path / "step-001.pt"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), phase],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )
    try:
        assert child.stdout.readline().strip() == "inside the save"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill() if child.poll() is None else None
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    leftovers = [p for p in tmp_path.iterdir() if ".tmp-" in p.name]
    assert len(leftovers) == 1 and leftovers[0].stat().st_size > 0  # the half-written file
    ckpt = load_checkpoint(path)
    assert ckpt["step"] == 1 and torch.equal(ckpt["model"]["w"], torch.full((256, 256), 1.0))
    assert latest_checkpoint(tmp_path) == path
    save_checkpoint(tmp_path / "step-002.pt", step=2)  # the next save clears the leftover
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


# --------------------------------------------------------------------------- the harness
@pytest.mark.kernel
def test_resume_trials_bit_exact(tmp_path):
    import resume_trials

    reference = resume_trials.reference_run(tmp_path / "reference")
    kills = [
        {"phase": "mid-write", "save": 2, "fraction": 0.5},
        {"phase": "before-replace", "save": 3, "fraction": 0.5},
        {"phase": "step", "step": 30},
    ]
    exact, corrupt, story = resume_trials.trial(tmp_path / "trial", reference, kills)
    assert story.count("killed") == 3, story
    assert exact and corrupt == 0, story
