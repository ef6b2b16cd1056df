"""Right and wrong answers to the exercises of labs/lab-distributed.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-distributed.ipynb"
DISTRIBUTED = LAB

EXERCISES: list[Exercise] = [
    # ================================================================== lab-distributed
    # Each answer is run under torchrun by its check (about 7 s a run on 2 cores).
    Exercise(DISTRIBUTED, "ddp_make_loader", right=(
        R("DistributedSampler with its defaults (shuffle=True, seed 0)",
          "return DataLoader(dataset, batch_size=batch_size,\n"
          "                  sampler=DistributedSampler(dataset))"),
    ), wrong=(
        W("a different shuffle seed on each rank", """
generator = torch.Generator().manual_seed(dist.get_rank())
return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=generator)
""", "A different seed per rank only changes the order", hides=True),
        W("a sampler together with shuffle=True", """
sampler = DistributedSampler(dataset, shuffle=True, seed=0)
return DataLoader(dataset, batch_size=batch_size, sampler=sampler, shuffle=True)
""", "leave out shuffle=True"),
        W("a sampler made but not given to the DataLoader", """
sampler = DistributedSampler(dataset, shuffle=True, seed=0)
return DataLoader(dataset, batch_size=batch_size, shuffle=True)
""", "Pass a DistributedSampler as sampler="),
    )),
    Exercise(DISTRIBUTED, "ddp_choose_device", right=(
        R("cuda:LOCAL_RANK with set_device, as the chapter's script", """
if torch.cuda.is_available():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return torch.device(f"cuda:{local_rank}")
return torch.device("cpu")
"""),
        R("set_device(LOCAL_RANK), then plain 'cuda'", """
if torch.cuda.is_available():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    return torch.device("cuda")
return torch.device("cpu")
"""),
    ), wrong=(
        W("cuda:1 hard-coded (the check's first LOCAL_RANK)", """
if torch.cuda.is_available():
    return torch.device("cuda", 1)
return torch.device("cpu")
""", "expected cuda:2 (LOCAL_RANK=2)"),
        W("cuda:RANK (the same number on one machine)", """
if torch.cuda.is_available():
    return torch.device("cuda", int(os.environ["RANK"]))
return torch.device("cpu")
""", "cuda:5 is cuda:RANK", hides=True),
        W("cuda:0 on every rank", """
if torch.cuda.is_available():
    return torch.device("cuda", 0)
return torch.device("cpu")
""", "cuda:0 on every rank puts all processes on the first GPU"),
        W("the list of devices indexed by LOCAL_RANK", """
devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
devices = devices or [torch.device("cpu")]
return devices[int(os.environ["LOCAL_RANK"])]
""", "the script still fails under torchrun"),
    )),
    Exercise(DISTRIBUTED, "ddp_log_loss", right=(
        R("all_gather on every rank, the mean on rank 0", """
losses = [torch.zeros_like(loss) for _ in range(dist.get_world_size())]
dist.all_gather(losses, loss)
if dist.get_rank() == 0:
    mean = torch.stack(losses).mean().item()
    print(f"epoch {epoch}: mean validation loss {mean:.3f}")
"""),
    ), wrong=(
        W("all_reduce on rank 0 only (the bug)", """
if dist.get_rank() == 0:
    dist.all_reduce(loss)
    mean = loss.item() / dist.get_world_size()
    print(f"epoch {epoch}: mean validation loss {mean:.3f}")
""", "every rank must call all_reduce"),
        W("every rank prints", """
dist.all_reduce(loss)
mean = loss.item() / dist.get_world_size()
print(f"epoch {epoch}: mean validation loss {mean:.3f}")
""", "print on rank 0 only"),
        W("no all_reduce: rank 0 prints its own loss", """
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {loss.item():.3f}")
""", "is not the mean over both ranks", hides=True),
    )),
]
