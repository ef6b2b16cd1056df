"""Rank 1 fails in the middle of training; rank 0 is waiting for it in a collective.

    torchrun --standalone --nproc_per_node=2 scripts/ddp_fail.py

@record writes the failing rank's traceback to a file that torchrun reads, so the
job's report names the root cause instead of only an exit code.
"""

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def check_batch(batch: torch.Tensor) -> None:
    if not torch.isfinite(batch).all():
        raise ValueError("a batch with NaN reached the model")


@record
def main() -> None:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    batch = torch.ones(4)
    if rank == 1:
        batch[2] = float("nan")  # rank 1's shard holds a broken sample
    check_batch(batch)
    dist.all_reduce(batch)  # rank 0 waits here for a partner that has died
    print("rank", rank, "finished")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
