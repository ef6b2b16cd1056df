"""Each rank picks its device, trains one DDP step there, and reports to rank 0.

    torchrun --standalone --nproc_per_node=2 scripts/device_choice.py
"""

import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP


def choose_device() -> torch.device:
    """The device of this process: one GPU per process, or the CPU without GPUs."""
    devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    devices = devices or [torch.device("cpu")]
    return devices[int(os.environ["RANK"])]


@record
def main() -> None:
    device = choose_device()
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1).to(device))
    x, y = torch.randn(8, 4, device=device), torch.randn(8, 1, device=device)
    nn.functional.mse_loss(model(x), y).backward()
    where = str(next(model.parameters()).device)  # where the weights really are
    everyone = [None] * world_size
    dist.all_gather_object(everyone, (os.environ["LOCAL_RANK"], where))
    if rank == 0:
        for r, (local_rank, name) in enumerate(everyone):
            print(f"rank {r} (LOCAL_RANK={local_rank}) trained on {name}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
