"""Two ranks go through a dataset of 16 items for 2 epochs. Which items does each see?

    torchrun --standalone --nproc_per_node=2 scripts/same_data.py
"""

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset  # noqa: F401


def make_loader(dataset: TensorDataset, batch_size: int) -> DataLoader:
    """The loader of this rank: its share of the dataset, shuffled every epoch."""
    generator = torch.Generator().manual_seed(0)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=generator)


@record
def main() -> None:
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    dataset = TensorDataset(torch.arange(16))
    loader = make_loader(dataset, batch_size=4)
    orders = []
    for epoch in range(2):
        if hasattr(loader.sampler, "set_epoch"):
            loader.sampler.set_epoch(epoch)  # a DistributedSampler must know the epoch
        order = [int(i) for (batch,) in loader for i in batch]
        orders.append(order)
        everyone = [None] * world_size
        dist.all_gather_object(everyone, order)  # what every rank saw, to rank 0
        if rank == 0:
            seen = [set(items) for items in everyone]
            both = set.intersection(*seen)
            nobody = set(range(len(dataset))) - set.union(*seen)
            print(f"epoch {epoch}: " + "; ".join(
                f"rank {r} saw {len(items)} items" for r, items in enumerate(everyone)))
            print(f"  seen by every rank: {len(both)} items, by no rank: {len(nobody)}")
    if rank == 0:
        print("rank 0's order changed between epochs:", orders[0] != orders[1])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
