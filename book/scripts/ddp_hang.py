"""Each rank decides on its own when to stop training: a collective that one rank skips.

    torchrun --standalone --nproc_per_node=2 scripts/ddp_hang.py [--agree | --join]

Rank 1's shard is easy, so its loss reaches the target first and it leaves the loop.
Rank 0 trains on and waits, in backward(), for gradients rank 1 will never send. The
timeout given to init_process_group turns that silent hang into an error in seconds.
With --agree the ranks decide together (an all_reduce of the stop flag); with --join
each rank stops on its own, and torch.distributed.algorithms.Join covers for the ranks
that have left.
"""

import contextlib
import datetime
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms import Join
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP

TARGET = 0.5


@record
def main() -> None:
    agree = "--agree" in sys.argv
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(16, 4, generator=g)
    noise = 2.0 if rank == 0 else 0.0  # rank 0's shard is noisy: its loss stays high
    y = x.sum(dim=1, keepdim=True) + noise * torch.randn(16, 1, generator=g)
    join = Join([model]) if "--join" in sys.argv else contextlib.nullcontext()
    with join:  # Join: a rank that has left the loop shadows the others' all-reduces
        for step in range(1, 21):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()  # DDP all-reduces the gradients: every rank must be here
            optimizer.step()
            stop = torch.tensor(float(loss.item() < TARGET))
            if agree:
                dist.all_reduce(stop, op=dist.ReduceOp.MAX)  # stop when any is done
            if stop.item():
                # each rank says when it stops, in one write, so that lines do not mix
                print(f"rank {rank}: stopping after step {step}\n", end="", flush=True)
                break
        else:
            print(f"rank {rank}: trained all {step} steps\n", end="", flush=True)
    dist.barrier()  # wait for everyone before saving
    if rank == 0:
        print("all ranks reached the barrier")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
