"""Two processes train one model with DistributedDataParallel (DDP); check the result.

    torchrun --standalone --nproc_per_node=2 scripts/ddp_train.py OUT_DIR

Each rank trains on its half of every global batch; DDP averages the gradients, so the
model must end exactly where one process training on the whole batch ends.
"""

import datetime
import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

STEPS, LR, GLOBAL_BATCH = 3, 0.1, 8


def make_data() -> TensorDataset:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(GLOBAL_BATCH, 4, generator=g)
    w = torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    y = x @ w + 0.1 * torch.randn(GLOBAL_BATCH, 1, generator=g)
    return TensorDataset(x, y)


def make_model() -> nn.Module:
    torch.manual_seed(0)  # DDP would copy rank 0's weights to every rank anyway
    return nn.Linear(4, 1)


def choose_device() -> torch.device:
    local_rank = int(os.environ["LOCAL_RANK"])  # this process's number on this machine
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)  # one GPU per process
        return torch.device("cuda", local_rank)
    return torch.device("cpu")  # no GPU: every rank shares the CPU


def main() -> None:
    out_dir = sys.argv[1]
    device = choose_device()
    backend = "nccl" if device.type == "cuda" else "gloo"
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=60))
    rank, world_size = dist.get_rank(), dist.get_world_size()

    data = make_data()
    sampler = DistributedSampler(data, shuffle=False)  # rank r: items r, r + 2, ...
    loader = DataLoader(data, batch_size=GLOBAL_BATCH // world_size, sampler=sampler)
    model = DDP(make_model().to(device))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    grads, seen = [], []
    for epoch in range(STEPS):  # one batch per epoch
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()  # DDP averages the gradients
            grads.append(model.module.weight.grad.detach().cpu().clone())
            optimizer.step()
        seen = list(sampler)

    # The same training in one process, on the whole batch: the reference.
    ref = make_model()
    ref_optimizer = torch.optim.SGD(ref.parameters(), lr=LR)
    x_all, y_all = data.tensors
    ref_grads = []
    for _ in range(STEPS):
        ref_optimizer.zero_grad()
        nn.functional.mse_loss(ref(x_all), y_all).backward()
        ref_grads.append(ref.weight.grad.clone())
        ref_optimizer.step()
    same_grads = all(torch.allclose(g, r, atol=1e-6) for g, r in zip(grads, ref_grads))
    same_weights = torch.allclose(model.module.weight.cpu(), ref.weight, atol=1e-6)
    assert same_grads and same_weights, "DDP must match one process on the global batch"

    # Every rank reports to rank 0; only rank 0 prints and saves.
    report = {"rank": rank, "local_rank": os.environ["LOCAL_RANK"],
              "device": str(device), "samples": seen}
    reports = [None] * world_size
    dist.all_gather_object(reports, report)
    if rank == 0:
        for r in reports:
            print(f"rank {r['rank']}: LOCAL_RANK={r['local_rank']}, "
                  f"device {r['device']}, samples {r['samples']}")
        print("gradients allclose to one process on the global batch:", same_grads)
        print("weights allclose after", STEPS, "steps:", same_weights)
        torch.save(model.state_dict(), os.path.join(out_dir, "ddp_state.pt"))
        torch.save(model.module.state_dict(), os.path.join(out_dir, "model_state.pt"))
        print("rank 0 saved:", sorted(os.listdir(out_dir)))
    dist.barrier()  # no rank moves on (or reads the files) before rank 0 has saved
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
