"""ice_lab.checks.distributed_job: a job of ranks played here gives each rank what the
collectives give together, so log_loss's check sees the mean rank 0 prints (found by
held-out answers: rank 0's own loss passed the in-process part; all_gather_object, a
right answer, crashed it)."""

from __future__ import annotations

import pytest
import torch
import torch.distributed as dist

from ice_lab.checks import distributed as check
from ice_lab.checks.distributed_job import job_of_ranks


def test_collectives_combine_the_ranks_contributions():
    def fn(value):
        total = torch.tensor(value)
        dist.all_reduce(total)
        gathered = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, value * 10)
        print(total.item(), gathered)

    played = job_of_ranks(fn, 3, lambda rank: (float(rank + 1),))
    assert [called for called, _ in played] == [["all_reduce", "all_gather_object"]] * 3
    assert played[2][1].strip() == "6.0 [10.0, 20.0, 30.0]"


def own_loss(loss, epoch):
    if dist.get_rank() == 0:
        print(f"epoch {epoch}: mean validation loss {loss.item():.3f}")


def gathered_mean(loss, epoch):
    losses = [None] * dist.get_world_size()
    dist.all_gather_object(losses, loss.item())
    if dist.get_rank() == 0:
        print(f"epoch {epoch}: mean validation loss {sum(losses) / len(losses):.3f}")


def test_log_loss_in_process_sees_the_mean(capsys):
    check.log_loss(gathered_mean, "unused.py", seed=5)
    assert "Check passed" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="it is rank 0's own loss"):
        check.log_loss(own_loss, "unused.py", seed=5)
