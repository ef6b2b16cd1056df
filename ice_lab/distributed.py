"""Run a small ``torch.distributed`` job on one machine, from a notebook.

A notebook cannot define the function a spawned process runs: a spawned child starts a
fresh Python and imports its target by name, and a function typed into a notebook cell
lives in no importable module. So the workers live here, at module level, and ``launch``
starts them: one process per rank, the gloo backend (CPU), ``MASTER_ADDR=127.0.0.1`` and a
free port chosen at run time. Each rank's return value comes back to the parent through a
temporary folder; every process is stopped when one fails or the time runs out.

Taught in the Devices chapter, section "Distributed training" (``book/devices.ipynb``).

    >>> from ice_lab import distributed
    >>> results = distributed.launch(distributed.sampler_worker, world_size=2, args=(8, 2, True))
    >>> sorted(results[0])
    ['epochs', 'rank']
"""

from __future__ import annotations

import datetime
import os
import pickle
import shutil
import socket
import sys
import tempfile
import time
import traceback
from typing import Any, Callable

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn

__all__ = [
    "DistributedWorkerError",
    "free_port",
    "launch",
    "seeding_worker",
    "sampler_worker",
    "ddp_worker",
    "chapter_worker",
    "failing_worker",
    "sleeping_worker",
    "tiny_model",
    "global_batch",
    "train_single",
]

_POLL_S = 0.05


class DistributedWorkerError(RuntimeError):
    """A rank raised inside ``launch``: carries the rank and the child's traceback text.
    Taught in the Devices chapter (``book/devices.ipynb``)."""

    def __init__(self, rank: int, type_name: str, message: str, child_traceback: str) -> None:
        self.rank = rank
        self.type_name = type_name
        self.child_message = message
        self.child_traceback = child_traceback
        super().__init__(
            f"rank {rank} failed with {type_name}: {message}\n"
            f"--- traceback in the child process ---\n{child_traceback}"
        )


# --------------------------------------------------------------------------- launching
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (the OS picks it).

    Taught in the Devices chapter (``book/devices.ipynb``): never hard-code a port,
    two notebooks running at once would collide.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _check_importable(worker: Callable[..., Any]) -> None:
    if not callable(worker):
        raise TypeError(
            f"launch needs a worker function, got {type(worker).__name__} {worker!r}. "
            "Pass e.g. ice_lab.distributed.ddp_worker."
        )
    module = getattr(worker, "__module__", None)
    qualname = getattr(worker, "__qualname__", "") or repr(worker)
    main = sys.modules.get("__main__")
    interactive_main = module == "__main__" and getattr(main, "__file__", None) is None
    if module is None or interactive_main or "<" in qualname:
        raise ValueError(
            f"the worker {qualname!r} (module {module!r}) cannot be imported by a spawned "
            "process: a function defined in a notebook cell, a lambda or a nested function has no "
            "importable name. Put the worker at module level in a .py file (as in "
            "ice_lab/distributed.py) and pass that function."
        )


def _failure(err: BaseException) -> dict[str, Any]:
    text = str(err).strip()
    return {
        "ok": False,
        "when": time.time(),
        "type": type(err).__name__,
        "message": text.splitlines()[0] if text else "",
        "traceback": traceback.format_exc(limit=8),
    }


def _entry(
    rank: int,
    world_size: int,
    port: int,
    worker: Callable[..., Any],
    args: tuple,
    out_dir: str,
    pg_timeout_s: float,
) -> None:
    """What each spawned process runs: join the group, call the worker, write the result."""
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    os.environ["RANK"] = str(rank)
    os.environ["WORLD_SIZE"] = str(world_size)
    torch.set_num_threads(1)  # ranks share the machine's cores
    record: dict[str, Any] | None = None
    try:
        dist.init_process_group(
            "gloo",
            rank=rank,
            world_size=world_size,
            timeout=datetime.timedelta(seconds=pg_timeout_s),
        )
        try:
            started = time.perf_counter()
            value = worker(rank, world_size, *args)
            record = {"ok": True, "value": value, "seconds": time.perf_counter() - started}
        except BaseException as err:
            record = _failure(err)  # timestamped now, before the group is torn down
        finally:
            dist.destroy_process_group()
    except BaseException as err:  # joining or leaving the group failed
        if record is None or record["ok"]:
            record = _failure(err)
    tmp = os.path.join(out_dir, f"rank{rank}.tmp")
    with open(tmp, "wb") as f:
        pickle.dump(record, f)
    os.replace(tmp, os.path.join(out_dir, f"rank{rank}.pkl"))  # appears complete or not at all


def _stop(processes: list) -> None:
    for p in processes:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + 5.0
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)


def _raise_first_failure(records: dict[int, dict], processes: list, out_dir: str) -> None:
    """One rank failed. Its partners usually fail next ("connection reset by peer"):
    wait a moment for their reports, then raise the earliest failure, the root cause."""
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and len(records) < len(processes):
        for rank in range(len(processes)):
            path = os.path.join(out_dir, f"rank{rank}.pkl")
            if rank not in records and os.path.exists(path):
                with open(path, "rb") as f:
                    records[rank] = pickle.load(f)
        time.sleep(_POLL_S)
    failed = sorted((r["when"], rank) for rank, r in records.items() if not r["ok"])
    rank = failed[0][1]
    r = records[rank]
    raise DistributedWorkerError(rank, r["type"], r["message"], r["traceback"])


def launch(
    worker: Callable[..., Any],
    world_size: int = 2,
    args: tuple = (),
    timeout: float = 60.0,
) -> list[Any]:
    """Run ``worker(rank, world_size, *args)`` in ``world_size`` spawned processes joined in
    one gloo process group, and return the ranks' return values as a list (index = rank).

    ``worker`` must be a module-level function of an importable module (a notebook cannot
    define spawn targets) and must return something picklable. The port is chosen at run
    time. If a rank raises, the other ranks are stopped and ``DistributedWorkerError`` is
    raised with the child's traceback; after ``timeout`` seconds every rank is stopped and
    ``TimeoutError`` is raised. No process outlives the call.

    Taught in the Devices chapter, section "Distributed training" (``book/devices.ipynb``).
    """
    _check_importable(worker)
    if isinstance(world_size, bool) or not isinstance(world_size, int) or not 1 <= world_size <= 8:
        raise ValueError(
            f"world_size must be a whole number of processes from 1 to 8, got {world_size!r}. "
            "Two are enough to see everything distributed training does."
        )
    if not isinstance(args, tuple):
        raise TypeError(f"args must be a tuple of extra arguments for the worker, got {type(args).__name__}.")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}.")
    if not dist.is_available() or not dist.is_gloo_available():
        raise RuntimeError(
            "this PyTorch build has no torch.distributed gloo backend; "
            "install the standard PyTorch wheel from pytorch.org."
        )

    for attempt in (1, 2):
        try:
            return _launch_once(worker, world_size, args, float(timeout))
        except DistributedWorkerError as err:
            # free_port() can race with another program grabbing the port: one retry.
            clash = "address already in use" in err.child_message.lower() or "eaddrinuse" in err.child_message.lower()
            if attempt == 2 or not clash:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _launch_once(worker: Callable[..., Any], world_size: int, args: tuple, timeout: float) -> list[Any]:
    ctx = mp.get_context("spawn")
    out_dir = tempfile.mkdtemp(prefix="ice_lab_dist_")
    port = free_port()
    processes = []
    try:
        for rank in range(world_size):
            p = ctx.Process(
                target=_entry,
                args=(rank, world_size, port, worker, args, out_dir, timeout),
                daemon=True,
            )
            p.start()
            processes.append(p)
        deadline = time.monotonic() + timeout
        records: dict[int, dict] = {}
        while len(records) < world_size:
            for rank in range(world_size):
                path = os.path.join(out_dir, f"rank{rank}.pkl")
                if rank not in records and os.path.exists(path):
                    with open(path, "rb") as f:
                        records[rank] = pickle.load(f)
                    if not records[rank]["ok"]:
                        _raise_first_failure(records, processes, out_dir)
            if len(records) == world_size:
                break
            for rank, p in enumerate(processes):
                if rank not in records and not p.is_alive() and p.exitcode is not None:
                    # give a just-finished writer a moment, then report the silent death
                    time.sleep(0.2)
                    if not os.path.exists(os.path.join(out_dir, f"rank{rank}.pkl")):
                        raise DistributedWorkerError(
                            rank, "ProcessDied", f"exit code {p.exitcode} before reporting a result", ""
                        )
            if time.monotonic() > deadline:
                missing = [r for r in range(world_size) if r not in records]
                raise TimeoutError(
                    f"distributed job did not finish within {timeout:g} s (ranks {missing} still "
                    "running); every process was stopped. A rank waiting in a collective that "
                    "another rank never reaches hangs: check that all ranks call the same collectives."
                )
            time.sleep(_POLL_S)
        for p in processes:
            p.join(5.0)
        return [records[r]["value"] for r in range(world_size)]
    finally:
        _stop(processes)
        shutil.rmtree(out_dir, ignore_errors=True)


# --------------------------------------------------------------------------- workers
def seeding_worker(rank: int, world_size: int, base_seed: int = 0) -> dict[str, Any]:
    """Per-rank seeding: same seed on every rank vs ``base_seed + rank``; and DDP's broadcast
    of rank 0's weights at construction.

    Returns plain numbers so a notebook can print them. Taught in the Devices chapter.
    """
    from .env import set_seed

    set_seed(base_seed)
    same_seed_noise = torch.rand(3).tolist()  # e.g. dropout masks, augmentations
    set_seed(base_seed + rank)
    rank_seed_noise = torch.rand(3).tolist()

    # Each rank builds its model from a different seed: the weights disagree...
    set_seed(base_seed + rank)
    model = tiny_model()
    before = model.weight.detach().clone()
    # ...until DDP's constructor broadcasts rank 0's parameters and buffers to every rank.
    ddp = nn.parallel.DistributedDataParallel(model)
    after = ddp.module.weight.detach().clone()
    gathered_before = [torch.empty_like(before) for _ in range(world_size)]
    gathered_after = [torch.empty_like(after) for _ in range(world_size)]
    dist.all_gather(gathered_before, before)
    dist.all_gather(gathered_after, after)
    return {
        "rank": rank,
        "same_seed_noise": [round(v, 4) for v in same_seed_noise],
        "rank_seed_noise": [round(v, 4) for v in rank_seed_noise],
        "weights_equal_before_ddp": all(torch.equal(gathered_before[0], g) for g in gathered_before),
        "weights_equal_after_ddp": all(torch.equal(gathered_after[0], g) for g in gathered_after),
    }


def sampler_worker(rank: int, world_size: int, n: int = 8, epochs: int = 3, set_epoch: bool = True) -> dict[str, Any]:
    """The indices ``DistributedSampler`` gives this rank in each epoch, with or without
    ``sampler.set_epoch(epoch)``. Taught in the Devices chapter."""
    from torch.utils.data import DistributedSampler

    dataset = list(range(n))
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    per_epoch = []
    for epoch in range(epochs):
        if set_epoch:
            sampler.set_epoch(epoch)
        per_epoch.append(list(iter(sampler)))
    return {"rank": rank, "epochs": per_epoch}


def tiny_model() -> nn.Linear:
    """The model of the distributed section: one linear layer, 4 inputs, 1 output.
    Taught in the Devices chapter (``book/devices.ipynb``)."""
    return nn.Linear(4, 1)


def global_batch(size: int = 8, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """The same (inputs, targets) global batch on every process, from a fixed seed.
    Taught in the Devices chapter (``book/devices.ipynb``)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(size, 4, generator=g)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.1 * torch.randn(size, 1, generator=g)
    return x, y


def train_single(steps: int = 3, lr: float = 0.1, size: int = 8) -> dict[str, torch.Tensor]:
    """Plain single-process SGD on the whole global batch: the reference DDP must match.
    Taught in the Devices chapter."""
    torch.manual_seed(0)
    model = tiny_model()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    x, y = global_batch(size)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def ddp_worker(
    rank: int,
    world_size: int,
    checkpoint_dir: str,
    steps: int = 3,
    lr: float = 0.1,
    size: int = 8,
) -> dict[str, Any]:
    """DDP on the global batch split across ranks; rank 0 alone saves two checkpoints
    (``ddp.state_dict()`` with its ``module.`` prefix, and ``ddp.module.state_dict()``).

    Returns this rank's final weights, its share of the batch and what it saved.
    Taught in the Devices chapter.
    """
    if size % world_size:
        raise ValueError(f"the global batch ({size}) must split evenly over {world_size} ranks")
    torch.manual_seed(0)  # same start as train_single (DDP would broadcast rank 0's anyway)
    model = tiny_model()
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=lr)
    x, y = global_batch(size)
    per_rank = size // world_size
    mine = slice(rank * per_rank, (rank + 1) * per_rank)  # a DistributedSampler's job in a DataLoader
    for _ in range(steps):
        opt.zero_grad()
        # mean over this rank's 4 samples; DDP averages the gradients over ranks in backward()
        nn.functional.mse_loss(ddp(x[mine]), y[mine]).backward()
        opt.step()
    saved: list[str] = []
    if rank == 0:  # one writer: every rank holds the same weights
        torch.save(ddp.state_dict(), os.path.join(checkpoint_dir, "ddp_state.pt"))
        torch.save(ddp.module.state_dict(), os.path.join(checkpoint_dir, "module_state.pt"))
        saved = ["ddp_state.pt", "module_state.pt"]
    dist.barrier()  # nobody reads the checkpoint before rank 0 has written it
    return {
        "rank": rank,
        "samples": list(range(size))[mine],
        "state": {k: v.detach().clone() for k, v in ddp.module.state_dict().items()},
        "saved": saved,
    }


def chapter_worker(rank: int, world_size: int, checkpoint_dir: str) -> dict[str, Any]:
    """Everything the Devices chapter shows, in one launch (starting processes is the slow
    part): ``seeding_worker``, ``sampler_worker`` with and without ``set_epoch``, then
    ``ddp_worker``. Taught in the Devices chapter."""
    return {
        "seeding": seeding_worker(rank, world_size),
        "sampler_set_epoch": sampler_worker(rank, world_size, 8, 3, True),
        "sampler_no_set_epoch": sampler_worker(rank, world_size, 8, 3, False),
        "ddp": ddp_worker(rank, world_size, checkpoint_dir),
    }


def failing_worker(rank: int, world_size: int, bad_rank: int = 1) -> int:
    """A worker whose rank ``bad_rank`` raises: shows how ``launch`` reports a failed rank.
    Used by the tests of the Devices chapter's distributed section (``book/devices.ipynb``)."""
    if rank == bad_rank:
        raise ValueError(f"rank {rank} was told to fail")
    dist.barrier()  # the healthy rank waits here for a partner that never comes
    return rank


def sleeping_worker(rank: int, world_size: int, seconds: float = 30.0) -> int:
    """A worker that sleeps: shows ``launch``'s timeout stopping every process.
    Used by the tests of the Devices chapter's distributed section (``book/devices.ipynb``)."""
    time.sleep(seconds)
    return rank
