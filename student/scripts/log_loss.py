"""Each rank evaluates its shard of the validation set; rank 0 logs the mean loss.

    torchrun --standalone --nproc_per_node=2 scripts/log_loss.py
"""

import datetime

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record


def shard_loss(rank: int, epoch: int) -> torch.Tensor:
    """The validation loss of one rank's shard after `epoch` epochs (a stand-in)."""
    g = torch.Generator().manual_seed(100 * epoch + rank)
    x, y = torch.randn(32, 4, generator=g), torch.randn(32, 1, generator=g)
    torch.manual_seed(epoch)
    with torch.no_grad():
        return nn.functional.mse_loss(nn.Linear(4, 1)(x), y)


def log_loss(loss: torch.Tensor, epoch: int) -> None:
    """Print the validation loss averaged over all ranks, once per epoch."""
    if dist.get_rank() == 0:  # one line per epoch, so only rank 0...
        dist.all_reduce(loss)  # ...sums the ranks' losses
        mean = loss.item() / dist.get_world_size()
        print(f"epoch {epoch}: mean validation loss {mean:.3f}")


@record
def main() -> None:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank = dist.get_rank()
    for epoch in range(2):
        log_loss(shard_loss(rank, epoch), epoch)
    dist.barrier()  # wait for everyone before the end
    if rank == 0:
        print("all ranks finished")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
