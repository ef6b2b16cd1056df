"""ice_lab.env: report, best_device, set_seed, and `python -m ice_lab doctor`."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest
import torch

import ice_lab
from ice_lab import best_device, env, report, set_seed


@pytest.fixture(autouse=True)
def restore_determinism(monkeypatch):
    """Each test starts from PyTorch's defaults and no CUBLAS_WORKSPACE_CONFIG, and leaves
    the process as it found it."""
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    benchmark = torch.backends.cudnn.benchmark
    env._SAVED.clear()
    yield
    env._SAVED.clear()
    torch.use_deterministic_algorithms(False)
    torch.backends.cudnn.deterministic = False
    torch.backends.cudnn.benchmark = benchmark


@pytest.mark.kernel
def test_report_fields_and_text():
    r = report()
    assert r.torch == torch.__version__
    assert r.ice_lab == ice_lab.__version__
    assert r.cuda_available == torch.cuda.is_available()
    assert r.best_device == str(best_device())
    text = str(r)
    for label in ("python", "torch", "CUDA", "cuDNN", "MPS", "best device"):
        assert label in text
    assert len(r.gpus) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)


def test_best_device_is_a_device_that_works():
    d = best_device()
    assert isinstance(d, torch.device)
    assert torch.ones(2, device=d).sum().item() == 2.0
    if not torch.cuda.is_available():
        assert d.type in ("cpu", "mps")


def test_set_seed_repeats_every_generator():
    def draw(gen):
        return (random.random(), np.random.rand(), torch.rand(1).item(), torch.rand(1, generator=gen).item())

    first = draw(set_seed(123))
    second = draw(set_seed(123))
    assert first == second
    assert draw(set_seed(124)) != first


def test_set_seed_generator_drives_a_dataloader_shuffle():
    data = list(range(20))
    orders = [
        [int(x) for batch in torch.utils.data.DataLoader(data, batch_size=5, shuffle=True, generator=set_seed(7)) for x in batch]
        for _ in range(2)
    ]
    assert orders[0] == orders[1] and orders[0] != data


def test_set_seed_deterministic_switches_on_and_off():
    set_seed(0, deterministic=True)
    assert torch.are_deterministic_algorithms_enabled()
    assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    set_seed(0, deterministic=False)
    assert not torch.are_deterministic_algorithms_enabled()
    assert not torch.backends.cudnn.deterministic
    assert "CUBLAS_WORKSPACE_CONFIG" not in os.environ  # set_seed set it, set_seed removes it


def test_set_seed_leaves_the_callers_determinism_alone_by_default():
    set_seed(0, deterministic=True)
    set_seed(1)  # the default: reseed only
    assert torch.are_deterministic_algorithms_enabled()
    assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
    set_seed(1, deterministic=False)
    torch.use_deterministic_algorithms(True)  # turned on by hand, not through set_seed
    set_seed(2)
    assert torch.are_deterministic_algorithms_enabled()
    set_seed(2, deterministic=False)
    assert not torch.are_deterministic_algorithms_enabled()


def test_set_seed_gives_back_the_benchmark_setting_it_switched_off():
    torch.backends.cudnn.benchmark = True  # the user's choice
    set_seed(0)
    assert torch.backends.cudnn.benchmark, "the default must leave benchmark alone"
    set_seed(0, deterministic=True)
    assert not torch.backends.cudnn.benchmark
    set_seed(1, deterministic=True)  # twice on: the value to restore is still the user's
    set_seed(0, deterministic=False)
    assert torch.backends.cudnn.benchmark, "deterministic=False must restore benchmark"
    torch.backends.cudnn.benchmark = False
    set_seed(0, deterministic=True)
    set_seed(0, deterministic=False)
    assert not torch.backends.cudnn.benchmark


def test_set_seed_keeps_a_cublas_setting_the_user_made(monkeypatch):
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8")
    set_seed(0)
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
    set_seed(0, deterministic=True)
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
    set_seed(0, deterministic=False)
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"


@pytest.mark.parametrize(
    "seed, kwargs, error, needle",
    [
        ("0", {}, TypeError, "seed must be a whole number"),
        (1.5, {}, TypeError, "seed must be a whole number"),
        (True, {}, TypeError, "seed must be a whole number"),
        (-1, {}, ValueError, "seed must be at least 0, got -1"),
        (2**32, {}, ValueError, "seed must be at most 2\\*\\*32 - 1"),
        (0, {"deterministic": "yes"}, TypeError, "True, False or None"),
    ],
)
def test_set_seed_bad_arguments(seed, kwargs, error, needle):
    with pytest.raises(error, match=needle):
        set_seed(seed, **kwargs)


def test_numpy_integer_seed_is_accepted():
    gen = set_seed(np.int64(5))
    assert gen.initial_seed() == 5 and torch.initial_seed() == 5
    first = (random.random(), torch.rand(1).item())
    set_seed(5)
    assert (random.random(), torch.rand(1).item()) == first


@pytest.mark.kernel
def test_doctor_prints_the_report():
    out = subprocess.run(
        [sys.executable, "-m", "ice_lab", "doctor"], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert f"torch        {torch.__version__}" in out
    assert "best device" in out


@pytest.mark.kernel
def test_doctor_needs_a_command():
    result = subprocess.run([sys.executable, "-m", "ice_lab"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "doctor" in result.stderr
