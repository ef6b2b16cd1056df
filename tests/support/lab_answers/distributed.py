"""Right and wrong answers to the exercises of labs/lab-distributed.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-distributed.ipynb"
DISTRIBUTED = LAB


def loop(make_loader: str, each_epoch: str = "", after_epoch: str = "") -> str:
    """A train_epochs body: `make_loader` (lines defining `loader`, maybe `sampler`), then
    the loop over the epochs with `each_epoch` before and `after_epoch` after the batches."""
    lines = [make_loader.strip("\n"), "for epoch in range(epochs):"]
    lines += [f"    {line}" for line in each_epoch.strip("\n").splitlines() if line]
    lines += ["    for batch in loader:", "        train_step(epoch, batch)"]
    lines += [f"    {line}" for line in after_epoch.strip("\n").splitlines() if line]
    return "\n".join(lines)


_SAMPLER = """
sampler = DistributedSampler(dataset{args})
loader = DataLoader(dataset, batch_size={batch}, sampler=sampler{loader_args})
"""


def sampler(args: str = "", batch: str = "batch_size", loader_args: str = "") -> str:
    return _SAMPLER.format(args=args, batch=batch, loader_args=loader_args)


SET_EPOCH = "sampler.set_epoch(epoch)"

_CHOOSE = """
if torch.cuda.is_available():
{gpu}
return torch.device("cpu")
"""


def choose(gpu: str) -> str:
    """A choose_device body: `gpu` (lines) where CUDA is available, else the CPU."""
    return _CHOOSE.format(gpu="\n".join(f"    {line}" for line in gpu.strip("\n").splitlines()))


EXERCISES: list[Exercise] = [
    # ================================================================== lab-distributed
    # The checks first play the answer as every rank of other jobs, in the notebook
    # (cheap), then run it once under torchrun (several seconds): a wrong answer that the
    # notebook part catches costs no torchrun job.
    Exercise(DISTRIBUTED, "ddp_train_epochs", right=(
        R("the sampler through loader.sampler, set_epoch(epoch + 1)",
          loop(sampler(), "loader.sampler.set_epoch(epoch + 1)")),
        R("a new DistributedSampler every epoch, seeded with the epoch", """
for epoch in range(epochs):
    sampler = DistributedSampler(dataset, seed=epoch)
    for batch in DataLoader(dataset, batch_size=batch_size, sampler=sampler):
        train_step(epoch, batch)
"""),
        R("one permutation per epoch, padded and dealt out by hand", """
rank, ranks = dist.get_rank(), dist.get_world_size()
for epoch in range(epochs):
    order = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(epoch))
    share = -(-len(order) // ranks)
    order = torch.cat([order, order[: share * ranks - len(order)]])
    mine = torch.utils.data.Subset(dataset, order[rank::ranks].tolist())
    for batch in DataLoader(mine, batch_size=batch_size):
        train_step(epoch, batch)
"""),
        R("one permutation per epoch (seeded with the epoch), cut into contiguous shares", """
rank, ranks = dist.get_rank(), dist.get_world_size()
for epoch in range(epochs):
    order = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(epoch))
    share = -(-len(order) // ranks)
    order = torch.cat([order, order[: share * ranks - len(order)]])
    mine = order[rank * share:(rank + 1) * share].tolist()
    for batch in DataLoader(torch.utils.data.Subset(dataset, mine), batch_size=batch_size):
        train_step(epoch, batch)
"""),
    ), wrong=(
        W("the one-process loop (the bug)",
          loop("loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)"),
          "in the same order: the ranks do the same work"),
        W("a different shuffle seed on each rank", loop(
            "generator = torch.Generator().manual_seed(dist.get_rank())\n"
            "loader = DataLoader(dataset, batch_size=batch_size, shuffle=True,"
            " generator=generator)"),
          "a seed per rank changes the order, not the items", hides=True),
        W("a DistributedSampler seeded with the rank", loop(
            sampler(", seed=dist.get_rank()"), SET_EPOCH),
          "the shares overlap. The ranks must cut their shares from one shuffle"),
        W("set_epoch forgotten (the chapter's sampler bug)", loop(sampler()),
          "the shuffle never changes. A sampler that shuffles does not know which epoch"),
        W("set_epoch at the end of each epoch, one epoch late",
          loop(sampler(), after_epoch=SET_EPOCH), "the shuffle never changes"),
        W("shuffle=False in the sampler", loop(sampler(", shuffle=False"), SET_EPOCH),
          "nothing shuffles them"),
        W("a sampler together with shuffle=True", loop(sampler(loader_args=", shuffle=True"),
                                                        SET_EPOCH),
          "leave shuffle out of the DataLoader"),
        W("a sampler made but not given to the DataLoader", loop(
            "sampler = DistributedSampler(dataset)\n"
            "loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)", SET_EPOCH),
          "every rank read all 16 items"),
        W("the example's 2 ranks hard-coded in the sampler", loop(
            sampler(", num_replicas=2, rank=dist.get_rank()"), SET_EPOCH),
          "another number of ranks than the job has"),
        W("the example's batch size (4) hard-coded", loop(sampler(batch="4"), SET_EPOCH),
          "batch by the batch_size given"),
        W("the example's 2 epochs hard-coded", loop(sampler(), SET_EPOCH).replace(
            "range(epochs)", "range(2)"), "train for the number of epochs you are given"),
        W("halves of 8 items cut by hand, each shuffled", loop(
            "rank = dist.get_rank()\n"
            "half = torch.utils.data.Subset(dataset, range(8 * rank, 8 * rank + 8))\n"
            "loader = DataLoader(half, batch_size=batch_size, shuffle=True)"),
          "its share never changes"),
        W("items dealt out by hand, without evening the shares out", """
rank, ranks = dist.get_rank(), dist.get_world_size()
for epoch in range(epochs):
    order = torch.randperm(len(dataset), generator=torch.Generator().manual_seed(epoch))
    mine = torch.utils.data.Subset(dataset, order[rank::ranks].tolist())
    for batch in DataLoader(mine, batch_size=batch_size):
        train_step(epoch, batch)
""", "every rank must get as many as the others"),
        W("drop_last=True in the sampler", loop(sampler(", drop_last=True"), SET_EPOCH),
          "the shares must cover the dataset"),
        W("only rank 0 trains: no item read twice, none missed", """
if dist.get_rank() == 0:
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)
    for epoch in range(epochs):
        for batch in loader:
            train_step(epoch, batch)
""", "rank 1 trained on nothing", hides=True),
        W("the batch unpacked before train_step", loop(sampler(), SET_EPOCH).replace(
            "for batch in loader:\n        train_step(epoch, batch)",
            "for (items,) in loader:\n        train_step(epoch, items)"),
          "as a DataLoader over the dataset yields it"),
    )),
    Exercise(DISTRIBUTED, "ddp_choose_device", right=(
        R("set_device(LOCAL_RANK), then plain 'cuda'", choose(
            'torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))\n'
            'return torch.device("cuda")')),
        R("cuda:LOCAL_RANK as a string, without set_device", choose(
            'return torch.device(f"cuda:{os.environ[\'LOCAL_RANK\']}")')),
        R("torch.accelerator, the device-generic API", """
if not torch.accelerator.is_available():
    return torch.device("cpu")
accelerator = torch.accelerator.current_accelerator()
return torch.device(accelerator.type, int(os.environ["LOCAL_RANK"]))
"""),
    ), wrong=(
        W("the list of this machine's devices indexed by RANK (the bug)", """
devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
devices = devices or [torch.device("cpu")]
return devices[int(os.environ["RANK"])]
""", "RANK counts the processes of every machine"),
        W("the same list indexed by LOCAL_RANK (no CPU for rank 1)", """
devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
devices = devices or [torch.device("cpu")]
return devices[int(os.environ["LOCAL_RANK"])]
""", "without a GPU every process takes the CPU"),
        W("cuda:RANK (the same number on one machine)", choose(
            'return torch.device("cuda", int(os.environ["RANK"]))'),
          "cuda:RANK. RANK counts the processes of every machine"),
        W("set_device(RANK), then plain 'cuda'", choose(
            'torch.cuda.set_device(int(os.environ["RANK"]))\nreturn torch.device("cuda")'),
          "RANK counts the processes of every machine"),
        W("cuda:0 on every rank", choose('return torch.device("cuda", 0)'),
          "No two processes of a machine may share a GPU"),
        W("cuda:1 hard-coded (the rank that crashed)", choose('return torch.device("cuda", 1)'),
          "No two processes of a machine may share a GPU"),
        W("plain 'cuda' without making the process's GPU current",
          choose('return torch.device("cuda")'), "A plain 'cuda' means GPU 0 in every process"),
        W("set_device(0), then cuda:LOCAL_RANK", choose(
            'torch.cuda.set_device(0)\nreturn torch.device("cuda", int(os.environ["LOCAL_RANK"]))'),
          "one GPU per process, the same in both"),
        W("no CPU fallback", 'return torch.device("cuda", int(os.environ["LOCAL_RANK"]))',
          "on a machine without a GPU: the CPU"),
        W("set_device even without a GPU", """
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
if torch.cuda.is_available():
    return torch.device("cuda", local_rank)
return torch.device("cpu")
""", "Make a GPU current only on a machine that has one"),
        W("the rank from the process group, before there is one", choose(
            "return torch.device('cuda', dist.get_rank() % torch.cuda.device_count())"),
          "choose_device runs before init_process_group"),
        W("LOCAL_RANK left a string", choose(
            'return torch.device("cuda", os.environ.get("LOCAL_RANK", 0))'),
          "Environment variables are strings"),
        W("torch.accelerator's compile-time accelerator, never checked", """
accelerator = torch.accelerator.current_accelerator()
return torch.device(accelerator.type, int(os.environ["LOCAL_RANK"]))
""", "on a machine without a GPU: the CPU"),
        W("the CPU everywhere: the crash is gone, the GPUs idle", 'return torch.device("cpu")',
          "each process trains on a GPU of its own", hides=True),
    )),
    Exercise(DISTRIBUTED, "ddp_log_loss", right=(
        R("all_gather on every rank, the mean on rank 0", """
losses = [torch.zeros_like(loss) for _ in range(dist.get_world_size())]
dist.all_gather(losses, loss)
if dist.get_rank() == 0:
    mean = torch.stack(losses).mean().item()
    print(f"epoch {epoch}: mean validation loss {mean:.3f}")
"""),
        R("reduce to rank 0 (every rank calls it), rank 0 divides", """
dist.reduce(loss, dst=0)
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {loss.item() / dist.get_world_size():.3f}")
"""),
        R("all_gather_object of Python numbers, the mean on rank 0", """
losses = [None] * dist.get_world_size()
dist.all_gather_object(losses, loss.item())
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {sum(losses) / len(losses):.3f}")
"""),
        R("a copy averaged with ReduceOp.SUM, printed with %-formatting", """
total = loss.detach().clone()
dist.all_reduce(total, op=dist.ReduceOp.SUM)
if dist.get_rank() == 0:
    mean = total.item() / dist.get_world_size()
    print("epoch %d: mean validation loss %.3f" % (epoch, mean))
"""),
    ), wrong=(
        W("a barrier for every rank, the all_reduce still on rank 0 only", """
dist.barrier()
if dist.get_rank() == 0:
    dist.all_reduce(loss)
    print(f"epoch {epoch}: mean validation loss {loss.item() / dist.get_world_size():.3f}")
""", "the ranks call different collectives"),
        W("all_reduce on rank 0 only (the bug)", """
if dist.get_rank() == 0:
    dist.all_reduce(loss)
    mean = loss.item() / dist.get_world_size()
    print(f"epoch {epoch}: mean validation loss {mean:.3f}")
""", "the ranks call different collectives"),
        W("every rank prints", """
dist.all_reduce(loss)
mean = loss.item() / dist.get_world_size()
print(f"epoch {epoch}: mean validation loss {mean:.3f}")
""", "one line per epoch, from rank 0 only"),
        W("no all_reduce: rank 0 prints its own loss", """
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {loss.item():.3f}")
""", "it is rank 0's own loss", hides=True),
        W("the sum printed, not the mean", """
dist.all_reduce(loss)
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {loss.item():.3f}")
""", "it is the sum, not the mean"),
        W("the example's 2 ranks hard-coded in the mean", """
dist.all_reduce(loss)
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {loss.item() / 2:.3f}")
""", "not over the example's 2"),
        W("the mean printed unrounded", """
dist.all_reduce(loss)
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {loss.item() / dist.get_world_size()}")
""", "the mean with 3 decimals"),
    )),
]

_STOP = """
best, waited = float("inf"), 0
for epoch in range(epochs):
    train_one_epoch(epoch)
{decide}
    if loss < best:
        best, waited = loss, 0
    else:
        waited += 1
    if waited >= patience:
        break
return epoch
"""


def stop(decide: str) -> str:
    """A train_with_early_stopping body whose loss comes from ``decide`` (lines)."""
    return _STOP.format(decide="\n".join(f"    {line}" for line in decide.strip("\n").splitlines()))


EXERCISES.append(Exercise(DISTRIBUTED, "ddp_early_stopping", right=(
    R("the shard losses gathered as objects, their mean", stop("""
losses = [None] * dist.get_world_size()
dist.all_gather_object(losses, validate(epoch))
loss = sum(losses) / len(losses)""")),
    R("the sum reduced as a float64 tensor", stop("""
total = torch.tensor([validate(epoch)], dtype=torch.float64)
dist.all_reduce(total, op=dist.ReduceOp.SUM)
loss = total.item() / dist.get_world_size()""")),
), wrong=(
    W("the colleague's function (each rank its own shard)", stop("loss = validate(epoch)"),
      "here the ranks parted ways"),
    W("rank 0's decision broadcast to every rank", """
best, waited = float("inf"), 0
for epoch in range(epochs):
    train_one_epoch(epoch)
    loss = validate(epoch)
    if loss < best:
        best, waited = loss, 0
    else:
        waited += 1
    decision = torch.tensor(float(waited >= patience))
    dist.broadcast(decision, src=0)
    if decision.item():
        break
return epoch
""", "says to stop: the job's validation loss is the mean over every shard", hides=True),
    W("the largest shard loss (MAX)", stop("""
worst = torch.tensor(float(validate(epoch)))
dist.all_reduce(worst, op=dist.ReduceOp.MAX)
loss = worst.item()"""), "the largest shard loss says to stop"),
    W("the sum, reduced on rank 0 only", stop("""
loss = torch.tensor(float(validate(epoch)))
if dist.get_rank() == 0:
    dist.all_reduce(loss)
loss = loss.item() / dist.get_world_size()"""), "here the ranks parted ways"),
    W("no early stopping at all: every epoch", """
for epoch in range(epochs):
    train_one_epoch(epoch)
    validate(epoch)
return epoch
""", "its validation loss (the mean over the shards) says", hides=True),
)))
