"""ice_lab.distributed: launching gloo workers from a notebook, and what they show."""

from __future__ import annotations

import os
import socket
import tempfile
import time

import pytest
import torch
import torch.distributed as dist

from ice_lab import distributed
from ice_lab.distributed import DistributedWorkerError, launch

pytestmark = pytest.mark.skipif(
    not (dist.is_available() and dist.is_gloo_available()), reason="no gloo backend in this torch build"
)


def not_a_spawn_target(rank, world_size):  # importable (module level) and valid
    return rank * 10 + world_size


def test_free_port_is_bindable():
    port = distributed.free_port()
    assert 1024 <= port <= 65535
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", port))  # nothing holds it


@pytest.fixture(scope="module")
def chapter_results():
    with tempfile.TemporaryDirectory() as tmp:
        results = launch(distributed.chapter_worker, world_size=2, args=(tmp,), timeout=120)
        files = sorted(os.listdir(tmp))
        plain = torch.load(os.path.join(tmp, "module_state.pt"))
        wrapped = torch.load(os.path.join(tmp, "ddp_state.pt"))
    return results, files, plain, wrapped


def test_results_come_back_in_rank_order(chapter_results):
    results, _, _, _ = chapter_results
    assert [r["seeding"]["rank"] for r in results] == [0, 1]
    assert [r["ddp"]["rank"] for r in results] == [0, 1]


def test_per_rank_seeding(chapter_results):
    results, _, _, _ = chapter_results
    r0, r1 = results[0]["seeding"], results[1]["seeding"]
    assert r0["same_seed_noise"] == r1["same_seed_noise"], "the same seed gives every rank the same noise"
    assert r0["rank_seed_noise"] != r1["rank_seed_noise"], "seed + rank gives each rank its own noise"
    assert not r0["weights_equal_before_ddp"] and r0["weights_equal_after_ddp"], "DDP broadcasts rank 0's weights"


def test_distributed_sampler_and_set_epoch(chapter_results):
    results, _, _, _ = chapter_results
    with_epoch = [r["sampler_set_epoch"]["epochs"] for r in results]
    without = [r["sampler_no_set_epoch"]["epochs"] for r in results]
    for epoch in range(3):  # the two ranks split the 8 indices between them, no overlap
        assert sorted(with_epoch[0][epoch] + with_epoch[1][epoch]) == list(range(8))
    assert with_epoch[0][0] != with_epoch[0][1], "set_epoch reshuffles every epoch"
    assert without[0][0] == without[0][1] == without[0][2], "without set_epoch: the same order every epoch"
    assert without[0][0] == with_epoch[0][0], "epoch 0 is the same either way"


def test_ddp_matches_single_process_training(chapter_results):
    results, _, _, _ = chapter_results
    reference = distributed.train_single()
    for r in results:
        for name, value in reference.items():
            assert torch.allclose(value, r["ddp"]["state"][name], atol=1e-6)
    assert results[0]["ddp"]["samples"] == [0, 1, 2, 3] and results[1]["ddp"]["samples"] == [4, 5, 6, 7]


def test_only_rank_zero_saves_and_the_module_prefix(chapter_results):
    results, files, plain, wrapped = chapter_results
    assert results[0]["ddp"]["saved"] == ["ddp_state.pt", "module_state.pt"]
    assert results[1]["ddp"]["saved"] == []
    assert files == ["ddp_state.pt", "module_state.pt"]
    assert sorted(plain) == ["bias", "weight"]
    assert sorted(wrapped) == ["module.bias", "module.weight"]
    model = distributed.tiny_model()
    with pytest.raises(RuntimeError, match="Missing key"):
        model.load_state_dict(wrapped)
    model.load_state_dict(plain)


def test_a_failing_rank_is_reported_and_nothing_is_left_running():
    start = time.monotonic()
    with pytest.raises(DistributedWorkerError, match="rank 1 failed with ValueError: rank 1 was told to fail") as info:
        launch(distributed.failing_worker, world_size=2, timeout=60)
    assert info.value.rank == 1
    assert "Traceback" in info.value.child_traceback
    assert time.monotonic() - start < 30, "the healthy rank must be stopped, not waited for"
    import multiprocessing

    assert multiprocessing.active_children() == []


def test_timeout_stops_every_rank():
    with pytest.raises(TimeoutError, match="did not finish within 2 s"):
        launch(distributed.sleeping_worker, world_size=2, args=(60.0,), timeout=2)
    import multiprocessing

    assert multiprocessing.active_children() == []


def test_one_process_world_works():
    assert launch(not_a_spawn_target, world_size=1, timeout=60) == [1]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"worker": lambda rank, ws: rank}, ValueError, "cannot be imported by a spawned process"),
        ({"worker": "ddp_worker"}, TypeError, "needs a worker function"),
        ({"worker": not_a_spawn_target, "world_size": 0}, ValueError, "world_size must be"),
        ({"worker": not_a_spawn_target, "world_size": 2.0}, ValueError, "world_size must be"),
        ({"worker": not_a_spawn_target, "world_size": True}, ValueError, "world_size must be"),
        ({"worker": not_a_spawn_target, "args": [1]}, TypeError, "args must be a tuple"),
        ({"worker": not_a_spawn_target, "timeout": 0}, ValueError, "timeout must be a positive"),
        ({"worker": not_a_spawn_target, "timeout": -1.0}, ValueError, "timeout must be a positive"),
    ],
)
def test_bad_arguments_are_refused_before_anything_starts(kwargs, error, match):
    with pytest.raises(error, match=match):
        launch(**kwargs)


def test_nested_function_is_refused():
    def inner(rank, world_size):
        return rank

    with pytest.raises(ValueError, match="module level"):
        launch(inner)


def test_ddp_worker_refuses_an_uneven_split():
    with pytest.raises(ValueError, match="split evenly"):
        distributed.ddp_worker(0, 3, "/nonexistent")


def test_a_port_clash_is_retried_once(monkeypatch):
    calls = []

    def clashing(worker, world_size, args, timeout):
        calls.append(1)
        if len(calls) == 1:
            raise DistributedWorkerError(0, "RuntimeError", "The server socket has failed to listen: address already in use", "")
        return ["ok"]

    monkeypatch.setattr(distributed, "_launch_once", clashing)
    assert launch(not_a_spawn_target, world_size=1) == ["ok"]
    assert len(calls) == 2


def test_other_failures_are_not_retried(monkeypatch):
    calls = []

    def failing(worker, world_size, args, timeout):
        calls.append(1)
        raise DistributedWorkerError(1, "ValueError", "bad", "")

    monkeypatch.setattr(distributed, "_launch_once", failing)
    with pytest.raises(DistributedWorkerError, match="bad"):
        launch(not_a_spawn_target, world_size=1)
    assert len(calls) == 1


def test_a_script_main_function_is_accepted_but_an_interactive_one_is_not(monkeypatch):
    import sys
    import types

    def worker(rank, world_size):
        return rank

    worker.__module__ = "__main__"
    worker.__qualname__ = "worker"
    fake_main = types.ModuleType("__main__")  # no __file__: a notebook or a REPL
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    with pytest.raises(ValueError, match="notebook cell"):
        distributed._check_importable(worker)
    fake_main.__file__ = "/tmp/train.py"  # a script: spawn re-imports it, the worker is found
    distributed._check_importable(worker)
