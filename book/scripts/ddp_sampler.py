"""Which items each rank gets from DistributedSampler, epoch after epoch.

    torchrun --standalone --nproc_per_node=2 scripts/ddp_sampler.py

The loop runs twice: as it should be written, and with sampler.set_epoch forgotten.
"""

import torch.distributed as dist
from torch.utils.data import DistributedSampler


def orders(call_set_epoch: bool, epochs: int = 3) -> list[list[int]]:
    sampler = DistributedSampler(range(8), shuffle=True, seed=0)
    per_epoch = []
    for epoch in range(epochs):
        if call_set_epoch:
            sampler.set_epoch(epoch)  # the shuffle's seed is seed + epoch
        per_epoch.append(list(sampler))
    return per_epoch


def main() -> None:
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    for call_set_epoch in (True, False):
        mine = orders(call_set_epoch)
        everyone = [None] * world_size
        dist.all_gather_object(everyone, mine)  # rank 0 prints what every rank got
        if rank == 0:
            print("with set_epoch(epoch):" if call_set_epoch else "without set_epoch:")
            for epoch in range(len(mine)):
                row = "   ".join(
                    f"rank {r}: {everyone[r][epoch]}" for r in range(world_size)
                )
                print(f"  epoch {epoch}: {row}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
