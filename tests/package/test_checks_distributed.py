"""ice_lab.checks.distributed and ice_lab.checks.ranks: the parts that run in this process
(playing every rank of other jobs); the torchrun runs are played by the lab itself in
tests/book/test_lab_answers.py."""

from __future__ import annotations

import os

import pytest
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from ice_lab.checks import distributed as check
from ice_lab.checks.ranks import as_rank, collectives_as_rank, on_machine


def sampled(dataset, batch_size, epochs, train_step):
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            train_step(epoch, batch)


def same_data(dataset, batch_size, epochs, train_step):
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)
    for epoch in range(epochs):
        for batch in loader:
            train_step(epoch, batch)


def test_share_problem_tells_the_usual_mistakes_apart():
    right = check.trained_as_ranks(sampled, 23, 5, 3, 4)
    assert check.share_problem(right, 23, 5, 3) == ""
    same = check.share_problem(check.trained_as_ranks(same_data, 16, 4, 2, 2), 16, 4, 2)
    assert "the ranks do the same work" in same


def by_local_rank():
    if torch.cuda.is_available():
        local = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local)
        return torch.device("cuda", local)
    return torch.device("cpu")


def by_rank():
    devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    return (devices or [torch.device("cpu")])[int(os.environ["RANK"])]


def test_device_problem_plays_machines_it_does_not_have():
    assert check.device_problem(by_local_rank, 2, 4, 4) == ""
    assert check.device_problem(by_local_rank, 2, 2, 0) == ""
    assert "RANK counts the processes of every machine" in check.device_problem(
        by_rank, 2, 4, 4)
    with on_machine(3):
        assert torch.cuda.device_count() == 3
    assert torch.cuda.device_count() == 0 or torch.cuda.is_available()


def rank0_only(loss, epoch):
    if dist.get_rank() == 0:
        dist.all_reduce(loss)
        print(f"epoch {epoch}: mean validation loss {loss.item():.3f}")


def every_rank(loss, epoch):
    dist.all_reduce(loss)
    if dist.get_rank() == 0:
        print(f"epoch {epoch}: mean validation loss {loss.item() / 2:.3f}")


def test_collectives_as_rank_sees_a_skipped_collective():
    assert collectives_as_rank(rank0_only, 0, 2, torch.tensor(1.0), 0)[0] == ["all_reduce"]
    assert collectives_as_rank(rank0_only, 1, 2, torch.tensor(1.0), 0) == ([], "")
    called, printed = collectives_as_rank(every_rank, 1, 2, torch.tensor(1.0), 3)
    assert called == ["all_reduce"] and printed == ""


def test_the_log_loss_check_refuses_a_hang_without_torchrun():
    with pytest.raises(AssertionError, match="the ranks call different collectives"):
        check.log_loss(rank0_only, "unused.py", seed=1)
    with pytest.raises(AssertionError, match="not over the example's 2"):
        check.log_loss(every_rank, "unused.py", seed=1)


def test_as_rank_restores_the_environment():
    before = os.environ.get("RANK")
    with as_rank(3, 4):
        assert os.environ["RANK"] == "3" and dist.get_rank() == 3
    assert os.environ.get("RANK") == before


def colleague_stopping(epochs, train_one_epoch, validate, patience=2):
    best, waited = float("inf"), 0
    for epoch in range(epochs):
        train_one_epoch(epoch)
        loss = validate(epoch)
        waited = 0 if loss < best else waited + 1
        best = min(best, loss)
        if waited >= patience:
            break
    return epoch


def job_stopping(epochs, train_one_epoch, validate, patience=2):
    best, waited = float("inf"), 0
    for epoch in range(epochs):
        train_one_epoch(epoch)
        total = torch.tensor(float(validate(epoch)))
        dist.all_reduce(total)
        loss = total.item() / dist.get_world_size()
        waited = 0 if loss < best else waited + 1
        best = min(best, loss)
        if waited >= patience:
            break
    return epoch


def test_play_job_runs_every_rank_at_once_and_names_a_hang():
    from ice_lab.checks.ranks import JobHang, play_job

    def summed():
        t = torch.tensor(float(dist.get_rank()))
        dist.all_reduce(t)
        return t.item()

    assert play_job(summed, 3) == [3.0, 3.0, 3.0]

    def rank0_only_reduce():
        if dist.get_rank() == 0:
            dist.all_reduce(torch.ones(1))

    with pytest.raises(JobHang, match="rank 0 waits in all_reduce; rank 1 returned"):
        play_job(rank0_only_reduce, 2, wait=0.5)


def test_early_stopping_decides_on_the_jobs_loss():
    check.early_stopping(job_stopping, seed=5)
    with pytest.raises(AssertionError, match="here the ranks parted ways"):
        check.early_stopping(colleague_stopping)
    assert check.stopping_epoch([[1.0, 0.9, 0.95, 0.97]], 2) == 3
    assert check.stopping_epoch([[1.0, 0.9, 0.95, 0.97, 0.5]], 2) == 3
