"""Checks of ``labs/lab-distributed.ipynb`` (chapter: Distributed,
``book/distributed.ipynb``): both ranks on the same data, a device chosen by RANK, a
collective that one rank skips.

Each check plays the learner's function as every process of other jobs, here in this
process (``ice_lab.checks.ranks``, ``distributed_job``): that decides, and it does not
depend on how busy the machine is. The lab then runs its script with the function under
``torchrun`` (``in_script``), ungraded, to show the fix at work; a check given a script
does that too, and a job that fails for a reason that is not the learner's function (its
root cause does not name the function) is run once more before the check says so.
"""

from __future__ import annotations

import ast
import contextlib
import io
import random
import re
import runpy
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from ..distributed import TorchrunResult, torchrun
from ._core import Hints, need_callable, passed, quote
from .distributed_job import job_of_ranks
from .ranks import as_rank, logged_as_one_rank, on_machine, script_with

#: Seconds a job that should finish may take (three Pythons start torch on a busy machine).
JOB_TIMEOUT = 300

_share = Hints("train_epochs")
_device = Hints("choose_device")
_log = Hints("log_loss")
_stop = Hints("train_with_early_stopping")


def _run(script: str | Path, fn: Callable, replace: dict[str, str] | None = None,
         ) -> TorchrunResult:
    """The script with ``fn`` in it, under torchrun; once more if the job failed for a
    reason outside ``fn`` (a busy machine, a port taken by another job)."""
    result = torchrun(script_with(script, fn, replace), timeout=JOB_TIMEOUT)
    cause = result.root_cause() or result.stderr[-2000:]
    if result.returncode != 0 and fn.__name__ not in cause:
        result = torchrun(script_with(script, fn, replace), timeout=JOB_TIMEOUT)
    return result


def in_script(fn: Callable, script: str | Path) -> TorchrunResult:
    """Run ``script`` with the learner's ``fn`` in place of the function of that name,
    under torchrun (2 processes), the way the lab's Provoke ran it: what the lab shows
    after each Verify, not graded (the checks decide in this process, whatever the
    machine's load). A 5-second collective timeout in the script is lengthened to 120 s."""
    return _run(script, fn, replace={r"timedelta\(seconds=5\)": "timedelta(seconds=120)"})


# --------------------------------------------------------------------------- exercise 1
def trained_as_ranks(fn: Callable, items: int, batch_size: int, epochs: int,
                     world_size: int) -> list[dict[int, list[list[int]]]]:
    """What each rank of a job trains on, played here rank after rank (from the
    script's seed): for each rank, epoch -> its batches, as lists of items."""
    trained = []
    for rank in range(world_size):
        mine: dict[int, list[list[int]]] = {}

        def train_step(epoch: int, batch: list, mine: dict = mine) -> None:
            (batch_items,) = batch  # as in same_data.py
            mine.setdefault(epoch, []).append(batch_items.tolist())

        torch.manual_seed(0)
        with as_rank(rank, world_size):
            fn(TensorDataset(torch.arange(items)), batch_size, epochs, train_step)
        trained.append(mine)
    return trained


def trained_in(stdout: str, world_size: int) -> list[dict[int, list[list[int]]]]:
    """The same, read from what same_data.py printed."""
    trained: list[dict[int, list[list[int]]]] = [{} for _ in range(world_size)]
    for epoch, rank, batches in re.findall(r"^epoch (\d+), rank (\d+): (.*)$", stdout,
                                           re.M):
        trained[int(rank)][int(epoch)] = ast.literal_eval(batches)
    return trained


def share_problem(trained: list[dict[int, list[list[int]]]], items: int,
                  batch_size: int, epochs: int) -> str:
    """What is wrong with what the ranks trained on, in words ("" if nothing is)."""
    ranks = len(trained)
    for rank, by_epoch in enumerate(trained):
        if not by_epoch:
            return (f"rank {rank} trained on nothing: every rank trains, each on its "
                    "own share")
        if sorted(by_epoch) != list(range(epochs)):
            return (f"rank {rank} trained in epochs {sorted(by_epoch)}, not 0 to "
                    f"{epochs - 1}: train for the number of epochs you are given")
        for epoch, batches in by_epoch.items():
            sizes = [len(batch) for batch in batches]
            short = [size for size in sizes[:-1] if size < batch_size]
            if max(sizes + [0]) > batch_size or short:
                return (f"rank {rank}'s batches of epoch {epoch} hold {sizes} items, "
                        f"for batch_size={batch_size}: batch by the batch_size given")
    share = -(-items // ranks)  # items / ranks, rounded up: a share, evened out
    for epoch in range(epochs):
        read = [sum(trained[rank][epoch], []) for rank in range(ranks)]
        if all(sorted(set(mine)) == list(range(items)) for mine in read):
            same = all(mine == read[0] for mine in read)
            return (f"in epoch {epoch} every rank read all {items} items" + (
                ", in the same order: the ranks do the same work. " if same else
                ", each in its own order: a seed per rank changes the order, not the "
                "items. ") + "Each rank must train on its own share.")
        counts = [len(mine) for mine in read]
        if len(set(counts)) > 1:
            return (f"in epoch {epoch} the ranks read {counts} items: every rank must "
                    "get as many as the others (with DDP, a rank that runs out of "
                    "batches leaves the others waiting in backward())")
        everything = sum(read, [])
        nobody = items - len(set(everything))
        repeats = len(everything) - len(set(everything))
        if repeats > share * ranks - items:
            return (f"in epoch {epoch} some items were read twice ({repeats} repeats) "
                    f"and {nobody} by no rank: the shares overlap. The ranks must cut "
                    "their shares from one shuffle that they all agree on")
        if nobody:
            return (f"in epoch {epoch} no rank read {nobody} of the {items} items: the "
                    "shares must cover the dataset (dropping the remainder does not)")
    for rank in range(ranks):
        orders = [sum(trained[rank][epoch], []) for epoch in range(epochs)]
        for epoch in range(1, epochs):
            if orders[epoch] == orders[epoch - 1]:
                if orders[epoch] == sorted(orders[epoch]):
                    return (f"rank {rank} reads its items in the dataset's order, "
                            "every epoch: nothing shuffles them")
                return (f"rank {rank} trained on the same batches in epochs "
                        f"{epoch - 1} and {epoch}: the shuffle never changes. A "
                        "sampler that shuffles does not know which epoch it is unless "
                        "it is told, at the start of every epoch")
    # A new shuffle may, by chance, deal one rank the same items twice (10 items, 3
    # ranks: 1 in 210): a share that never changes is one that never does, for any rank.
    shares = [[sorted(sum(trained[rank][epoch], [])) for epoch in range(epochs)]
              for rank in range(ranks)]
    if epochs > 1 and all(len({tuple(s) for s in mine}) == 1 for mine in shares):
        return ("rank 0 trained on the same items in epochs 0 and 1, only in another "
                "order: its share never changes. Shuffle the whole dataset every epoch, "
                "then deal it out")
    return ""


def _why_train_epochs_raised(error: BaseException) -> str:
    if "Invalid rank" in str(error):
        return ("The sampler was told another number of ranks than the job has (the "
                "example's 2?): the process group knows the job's.")
    if "mutually exclusive" in str(error):
        return ("The sampler does the shuffling: leave shuffle out of the DataLoader "
                "that takes it.")
    if "unpack" in str(error):
        return ("Give train_step each batch as a DataLoader over the dataset yields it "
                "(here a list holding one tensor of items).")
    return "The check could not tell what went wrong."


def train_epochs(fn: Callable, script: str | Path | None = None, *,
                 seed: int | None = None) -> None:
    """``fn(dataset, batch_size, epochs, train_step)`` gives each rank of any job its own
    share of a new shuffle every epoch; then ``script`` (same_data.py) with it, under
    torchrun."""
    need_callable(fn, "train_epochs")
    jobs = [(16, 4, 2, 2), (10, 3, 3, 3), (23, 5, 3, 4)]  # (items, batch, epochs, ranks)
    if seed is not None:
        gen = random.Random(seed)
        jobs = []
        for _ in range(4):
            ranks = gen.randint(2, 6)
            jobs.append((gen.randint(4 * ranks, 40), gen.randint(1, 7), gen.randint(2, 4),
                         ranks))
    for items, batch, epochs, ranks in jobs:
        try:
            problem = share_problem(trained_as_ranks(fn, items, batch, epochs, ranks),
                                    items, batch, epochs)
        except Exception as error:  # quoted in the hint, on one line
            problem = f"train_epochs raised {quote(error)}. {_why_train_epochs_raised(error)}"
        _share.require(not problem, f"As {ranks} ranks over {items} items, "
                       f"batch_size={batch}, {epochs} epochs: {problem}", kind="share",
                       more="the Distributed chapter's section on samplers has the tool.")
    if seed is None and script is not None:
        job = _run(script, fn)
        _share.require(job.returncode == 0, f"{Path(script).name} fails under torchrun "
                       f"with your train_epochs:\n{job.root_cause() or job.stderr[-600:]}")
        problem = share_problem(trained_in(job.stdout, 2), 16, 4, 2)
        _share.require(not problem, f"Under torchrun: {problem}\n{job.stdout}")
    passed("every rank its own share, a new shuffle every epoch, in jobs of "
           f"{', '.join(str(j[3]) for j in jobs)} ranks"
           + (", and under torchrun." if seed is None and script else "."))


# --------------------------------------------------------------------------- exercise 2
def _why_choose_device_raised(error: BaseException, rank: int) -> str:
    text = str(error)
    if "process group" in text:
        return ("choose_device runs before init_process_group: there is no process "
                "group to ask yet. torchrun's environment variables are there.")
    if isinstance(error, KeyError):
        return ("torchrun sets RANK, LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE, not "
                f"{text}.")
    if isinstance(error, TypeError) and "str" in text:
        return "Environment variables are strings, not numbers."
    if isinstance(error, IndexError):
        return ("An index past the end of a list of this machine's devices: RANK "
                "counts the processes of every machine, and without a GPU every "
                "process takes the CPU.")
    if "has no GPU" in text:
        return "Make a GPU current only on a machine that has one."
    if "the GPUs are 0 to" in text:
        return "Each machine numbers its GPUs from 0" + (
            ": RANK counts the processes of every machine." if f"({rank})" in text
            else ".")
    return "The check could not tell what went wrong."


def device_problem(fn: Callable, machines: int, per_machine: int, gpus: int) -> str:
    """Call ``fn`` as every process of a job of ``machines`` machines, each with
    ``per_machine`` processes and ``gpus`` GPUs. What is wrong, in words ("" if nothing)."""
    for machine in range(machines):
        taken: dict[int, int] = {}  # GPU -> the LOCAL_RANK that chose it, on this machine
        for local_rank in range(per_machine):
            rank = machine * per_machine + local_rank
            who = (f"As RANK={rank}, LOCAL_RANK={local_rank} (machine {machine} of "
                   f"{machines}, each with {per_machine} processes and {gpus} GPUs)")
            try:
                with as_rank(rank, machines * per_machine, local_rank, per_machine,
                             joined=False), on_machine(gpus) as current:
                    returned = fn()
            except Exception as error:  # quoted in the hint, on one line
                return (f"{who}, choose_device raised {quote(error)}. "
                        + _why_choose_device_raised(error, rank))
            if not isinstance(returned, (torch.device, str)):
                return f"{who}, choose_device returned {returned!r}, not a device"
            chosen = torch.device(returned)
            if gpus == 0:
                if chosen.type != "cpu":
                    return f"{who}: {chosen} on a machine without a GPU: the CPU"
                continue
            if chosen.type != "cuda":
                return (f"{who}: {chosen}, on a machine with {gpus} GPUs: each process "
                        "trains on a GPU of its own")
            if chosen.index is not None and current and current[-1] != chosen.index:
                return (f"{who}: GPU {current[-1]} made current, {chosen} returned: "
                        "one GPU per process, the same in both")
            gpu = chosen.index if chosen.index is not None else (current or [0])[-1]
            if gpu >= gpus:
                return (f"{who}: cuda:{gpu}, which this machine does not have (0 to "
                        f"{gpus - 1})" + (": cuda:RANK. RANK counts the processes of "
                                          "every machine" if gpu == rank else ""))
            if gpu in taken:
                plain = chosen.index is None and not current
                return (f"{who}: GPU {gpu}, which LOCAL_RANK={taken[gpu]} has already. "
                        + ("A plain 'cuda' means GPU 0 in every process, unless the "
                           "process makes its own GPU the current one." if plain else
                           "No two processes of a machine may share a GPU."))
            taken[gpu] = local_rank
    return ""


def choose_device(fn: Callable, script: str | Path | None = None, *,
                  seed: int | None = None) -> None:
    """``fn()`` picks a device of this process's own machine, one GPU per process or the
    CPU, in jobs of several machines; then ``script`` (device_choice.py) under torchrun."""
    need_callable(fn, "choose_device")
    jobs = [(2, 4, 4), (3, 2, 2), (2, 2, 0)]  # (machines, processes each, GPUs each)
    if seed is not None:
        gen = random.Random(seed)
        jobs = []
        for _ in range(4):
            gpus = gen.choice([1, 2, 3, 8])
            jobs.append((gen.randint(1, 4), gen.randint(1, gpus), gpus))
        jobs.append((3, 3, 0))
    for job in jobs:
        problem = device_problem(fn, *job)
        _device.require(not problem, problem, kind="device",
                        more="print RANK and LOCAL_RANK of every process of a job of "
                        "two machines (2.3 Diagnose): which one is per machine?")
    if seed is None and script is not None:
        run = _run(script, fn)
        _device.require(run.returncode == 0, f"{Path(script).name} fails under torchrun "
                        f"with your choose_device:\n{run.root_cause() or run.stderr[-600:]}")
        places = re.findall(r"\(LOCAL_RANK=\d\) trained on (\S+)", run.stdout)
        _device.require(len(places) == 2 and (set(places) == {"cpu"} or len(set(places)) == 2),
                        f"Two ranks of this machine must not share a GPU:\n{run.stdout}")
    passed("a device of its own machine for every process, GPU or CPU, in jobs of "
           f"{', '.join(str(m) for m, _, _ in jobs)} machines"
           + (", and under torchrun." if seed is None and script else "."))


# --------------------------------------------------------------------------- exercise 3
def log_loss(fn: Callable, script: str | Path | None = None, *,
             seed: int | None = None) -> None:
    """``fn(loss, epoch)``: every rank takes part in the same collectives, rank 0 alone
    prints ``epoch E: mean validation loss M`` (3 decimals), the mean over all ranks, in
    a job of any size; then ``script`` (log_loss.py) under torchrun, its means compared
    with the script's own ``shard_loss(rank, epoch)``."""
    need_callable(fn, "log_loss")
    h = _log.require
    gen = random.Random(7 if seed is None else seed)
    cases = [(0.8137, 7)] if seed is None else [
        (round(gen.uniform(0.05, 9.0), 3) + 0.0002, gen.randint(0, 99)) for _ in range(3)]
    for value, epoch in cases:
        loss = torch.tensor(value)
        expected = f"epoch {epoch}: mean validation loss {loss.item():.3f}"
        lines, error = logged_as_one_rank(fn, loss.clone(), epoch)
        h(error is None, f"log_loss fails in a job of one rank: "
          f"{quote(error) if error else ''}. " + (
              "gloo has no ReduceOp.AVG in every PyTorch." if "AVG" in str(error) else
              "The check could not tell what went wrong."))
        h(lines == [expected], f"In a job of one rank, log_loss(loss={loss.item():.4f}, "
          f"epoch={epoch}) printed {lines}, not {[expected]}. " + (
              "That is the loss divided by 2: the mean is over the ranks the job has, "
              "not over the example's 2." if f"{loss.item() / 2:.3f}" in str(lines) else
              "The epoch you are given, the mean with 3 decimals, on rank 0."))
    for ranks in (2, 3) if seed is None else (gen.randint(2, 8),):
        shards = [round(gen.uniform(0.05, 9.0), 3) for _ in range(ranks)]
        while (len({f"{v:.3f}" for v in (shards[0], sum(shards), sum(shards) / ranks)}) < 3
               or abs(sum(shards) / ranks * 1000 % 1 - 0.5) < 0.1):  # far from a tie
            shards = [round(gen.uniform(0.05, 9.0), 3) for _ in range(ranks)]
        epoch = gen.randint(0, 99)
        try:
            calls = job_of_ranks(fn, ranks, lambda r: (torch.tensor(shards[r]), epoch))
        except Exception as error:  # quoted in the hint, on one line
            h(False, f"In a job of {ranks} ranks log_loss raised {quote(error)}. The "
              "check could not tell what went wrong.")
        sequences = [called for called, _ in calls]
        h(all(s == sequences[0] for s in sequences),
          f"In a job of {ranks} ranks the ranks call different collectives: "
          + "; ".join(f"rank {r}: {s or 'none'}" for r, s in enumerate(sequences))
          + ". A collective returns only when every rank calls it, so this job hangs "
          "(3.1) until the timeout.", kind="hang",
          more="read log_loss as rank 1 would (3.3 Diagnose): which line does it skip?")
        printing = [r for r, (_, out) in enumerate(calls) if out.strip()]
        h(printing == [0], f"In a job of {ranks} ranks, ranks {printing} printed: "
          "one line per epoch, from rank 0 only." if printing else
          f"In a job of {ranks} ranks nobody printed.")
        mean = sum(shards) / ranks
        said = calls[0][1].strip()
        h(said == f"epoch {epoch}: mean validation loss {mean:.3f}",
          f"In a job of {ranks} ranks with shard losses {shards}, rank 0 printed "
          f"{said!r}, not the mean over the ranks ({mean:.3f})" + (
              ": it is rank 0's own loss. Every rank's loss goes into the mean."
              if f"{shards[0]:.3f}" in said else
              ": it is the sum, not the mean." if f"{sum(shards):.3f}" in said else
              "."))
    if seed is None and script is not None:
        # A 5-second collective timeout shows the hang; the simulation above has found
        # it already, so the job here gets a timeout that allows for a busy machine.
        run = _run(script, fn, replace={r"timedelta\(seconds=5\)": "timedelta(seconds=120)"})
        h(run.returncode == 0, f"{Path(script).name} fails under torchrun with your "
          f"log_loss:\n{run.root_cause() or run.stderr[-600:]}")
        logged = re.findall(r"epoch (\d+): mean validation loss (\d+\.\d+)", run.stdout)
        h(len(logged) == 2, f"expected one line per epoch (2), got {len(logged)}"
          + (": every rank printed; one line per epoch, from rank 0 only."
             if len(logged) == 4 else "."))
        shard_loss = runpy.run_path(str(script))["shard_loss"]  # main() does not run
        for epoch, printed in logged:
            means = [shard_loss(r, int(epoch)).item() for r in range(2)]
            h(f"{sum(means) / 2:.3f}" == printed,
              f"epoch {epoch}: {printed} is not the mean over both ranks "
              f"({sum(means) / 2:.3f})" + (
                  ": it is rank 0's own loss. Every rank's loss goes into the mean."
                  if printed == f"{means[0]:.3f}" else
                  ": it is the sum, not the mean." if printed == f"{sum(means):.3f}"
                  else "."))
    passed("every rank in the same collectives, rank 0 prints the mean, in jobs of any "
           "size" + (", and under torchrun." if seed is None and script else "."))


# --------------------------------------------------------------------------- exercise 4
def stopping_epoch(losses: list[list[float]], patience: int) -> int:
    """The epoch a job stops after, deciding on its validation loss: the mean of the
    ranks' shard losses, ``losses[rank][epoch]``; the last epoch if it never stops."""
    best, waited = float("inf"), 0
    epochs = len(losses[0])
    for epoch in range(epochs):
        loss = sum(rank[epoch] for rank in losses) / len(losses)
        if loss < best:
            best, waited = loss, 0
        else:
            waited += 1
        if waited >= patience:
            return epoch
    return epochs - 1


def _decided(losses: list[list[float]], patience: int, pick: Callable) -> int:
    """Where a job stops if it decides on ``pick`` (max, min) of the shard losses."""
    return stopping_epoch([[pick(rank[e] for rank in losses)
                            for e in range(len(losses[0]))]], patience)


def _explain_stop(losses: list[list[float]], patience: int, stopped: int | None) -> str:
    """Which wrong decision stops where the job stopped, in words."""
    seen = [f"rank {r}'s own shard" for r, mine in enumerate(losses)
            if stopping_epoch([mine], patience) == stopped]
    seen += [f"the {word} shard loss" for word, pick in (("largest", max), ("smallest", min))
             if _decided(losses, patience, pick) == stopped]
    if not seen:
        return "The check could not tell what went wrong."
    return (f"That is where {' or '.join(seen)} says to stop: the job's validation loss is "
            "the mean over every shard.")


def early_stopping(fn: Callable, script: str | Path | None = None, *,
                   seed: int | None = None) -> None:
    """``fn(epochs, train_one_epoch, validate, patience)``: every rank of a job stops
    after the same epoch, the one the job's validation loss (over every rank's shard)
    says, and returns it; played as every rank at once (``ranks.play_job``), then
    ``script`` (early_stop.py) under torchrun."""
    from .ranks import JobHang, play_job

    need_callable(fn, "train_with_early_stopping")
    h = _stop.require
    gen = random.Random(11 if seed is None else seed)
    jobs = [([[1.0, 0.8, 0.7, 0.75, 0.72, 0.74], [1.1, 0.9, 0.85, 0.8, 0.82, 0.83]], 2),
            # two jobs where deciding on one rank, on the largest or on the smallest
            # shard loss, or never, all stop after another epoch than the job's loss
            ([[1.17, 1.2, 1.98, 0.54, 1.61, 1.62], [1.72, 1.55, 0.48, 1.39, 1.86, 1.21],
              [0.85, 1.91, 1.21, 0.94, 1.31, 1.65]], 2),
            ([[0.88, 0.48, 1.19, 0.46, 0.51], [1.86, 1.35, 0.64, 1.78, 1.32]], 2)]
    for _ in range(1 if seed is None else 5):
        ranks, epochs = gen.randint(2, 4), gen.randint(4, 9)
        while True:  # epoch means at least 0.001 apart: no decision rests on rounding
            losses = [[round(gen.uniform(0.2, 2.0), 3) for _ in range(epochs)]
                      for _ in range(ranks)]
            means = sorted(sum(rank[e] for rank in losses) / ranks for e in range(epochs))
            if all(b - a > 1e-3 for a, b in zip(means, means[1:])):
                break
        jobs.append((losses, gen.randint(1, 3)))
    for losses, patience in jobs:
        ranks = len(losses)
        trained: list[list[int]] = [[] for _ in range(ranks)]

        def train_one_epoch(epoch: int) -> None:  # DDP averages gradients: a collective
            trained[dist.get_rank()].append(epoch)
            dist.all_reduce(torch.ones(3))

        def validate(epoch: int) -> float:  # this rank's shard of the validation set
            return losses[dist.get_rank()][epoch]

        where = f"As {ranks} ranks, patience={patience}, shard losses {losses}"
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # what rank 0 logs
                returned = play_job(fn, ranks, len(losses[0]), train_one_epoch, validate,
                                    patience, wait=3.0)
        except JobHang as hang:
            h(False, f"{where}: {hang}. A collective returns only when every rank calls "
              "it, the same one: here the ranks parted ways (4.3).",
              kind="hang", more="print, for each rank, the loss it decides on: is it "
              "the job's validation loss?")
        except Exception as error:  # quoted in the hint, on one line
            h(False, f"{where}: train_with_early_stopping raised {quote(error)}.")
        expected = stopping_epoch(losses, patience)
        stops = [epochs[-1] if epochs else None for epochs in trained]
        h(len(set(stops)) == 1, f"{where}: the ranks trained up to epochs {stops}.")
        h(returned == [expected] * ranks or stops == [expected] * ranks,
          f"{where}: the job trained up to epoch {stops[0]}; its validation loss (the "
          f"mean over the shards) says {expected}. " + (
              _explain_stop(losses, patience, stops[0])), kind="epoch")
        h(returned == [expected] * ranks, f"{where}: it returned {returned}; the last "
          f"epoch trained, {expected}, on every rank.")
    if seed is None and script is not None:
        run = _run(script, fn, replace={r"timedelta\(seconds=5\)": "timedelta(seconds=120)"})
        h(run.returncode == 0, f"{Path(script).name} fails under torchrun with your "
          f"train_with_early_stopping:\n{run.root_cause() or run.stderr[-600:]}")
    passed(f"every rank stops after the epoch the job's validation loss says, in jobs of "
           f"{', '.join(str(len(losses)) for losses, _ in jobs)} ranks"
           + (", and under torchrun." if seed is None and script is not None else "."))
