"""Rank 1 feeds 5 features to a Linear(4, 2); rank 0 then waits for it in all_reduce."""

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
layer = torch.nn.Linear(4, 2)
x = torch.ones(3, 4 if rank == 0 else 5)
print("rank", rank, "step 0", flush=True)
y = layer(x)
dist.all_reduce(y)
dist.destroy_process_group()
