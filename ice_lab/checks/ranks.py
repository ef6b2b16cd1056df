"""Play a process of a torchrun job here, in one Python process: the tools the checks of
``labs/lab-distributed.ipynb`` use (chapter: Distributed, ``book/distributed.ipynb``), and
that the lab lends the learner for the Diagnose steps.

- ``as_rank(rank, world_size, ...)``: inside the block, the environment and
  ``torch.distributed`` answer as in that process of the job (no process group is made);
- ``on_machine(gpus)``: inside the block, ``torch.cuda`` says the machine has ``gpus``
  GPUs (nothing runs on a GPU);
- ``collectives_as_rank(fn, rank, world_size)``: which collectives a function calls as
  that rank, in order (each one a no-op), so that two ranks can be compared: a
  collective returns only when every rank calls it;
- ``logged_as_one_rank(fn, ...)``: what a function prints in a real job of one rank;
- ``script_with(script, function)``: a copy of a script with one function replaced.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import torch
import torch.distributed as dist

#: What a training script may call that every rank must call too.
COLLECTIVES = ("all_reduce", "reduce", "all_gather", "gather", "broadcast", "barrier",
               "all_gather_object", "gather_object", "broadcast_object_list",
               "reduce_scatter", "all_to_all", "scatter")


@contextlib.contextmanager
def as_rank(rank: int, world_size: int, local_rank: int | None = None,
            local_world_size: int | None = None, joined: bool = True) -> Iterator[None]:
    """Play process ``rank`` of a torchrun job of ``world_size`` processes. Inside the
    block the environment holds what torchrun sets (RANK, LOCAL_RANK, WORLD_SIZE,
    LOCAL_WORLD_SIZE); once the process has ``joined`` the process group,
    ``dist.get_rank()`` and ``dist.get_world_size()`` answer as in that process too."""
    local_rank = rank if local_rank is None else local_rank
    per_machine = world_size if local_world_size is None else local_world_size
    env = {"RANK": rank, "LOCAL_RANK": local_rank, "WORLD_SIZE": world_size,
           "LOCAL_WORLD_SIZE": per_machine, "GROUP_RANK": rank // per_machine}
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.dict(
            os.environ, {name: str(value) for name, value in env.items()}))
        if joined:
            for name, answer in [("is_initialized", True), ("get_rank", rank),
                                 ("get_world_size", world_size)]:
                stack.enter_context(mock.patch(f"torch.distributed.{name}",
                                               return_value=answer))
        yield


@contextlib.contextmanager
def on_machine(gpus: int) -> Iterator[list[int]]:
    """Inside the block, torch.cuda (and torch.accelerator) say this machine has ``gpus``
    GPUs (0: none). Nothing runs on a GPU: set_device only notes the GPU made current,
    in the list the block gets."""
    current: list[int] = []

    def set_device(device: Any) -> None:
        index = device if isinstance(device, int) else torch.device(device).index
        if gpus == 0:
            raise RuntimeError("set_device: this machine has no GPU")
        if index is None or not 0 <= index < gpus:
            raise RuntimeError(f"set_device({device!r}): the GPUs are 0 to {gpus - 1}")
        current.append(index)

    def current_device() -> int:
        return current[-1] if current else 0

    fakes = {
        "cuda.is_available": lambda: gpus > 0,
        "cuda.device_count": lambda: gpus,
        "cuda.set_device": set_device,
        "cuda.current_device": current_device,
        "backends.mps.is_available": lambda: False,
        "accelerator.is_available": lambda: gpus > 0,
        "accelerator.device_count": lambda: gpus,
        # a CUDA build names CUDA, with or without a GPU, unless asked to check
        "accelerator.current_accelerator": lambda check_available=False: (
            torch.device("cuda") if gpus or not check_available else None),
        "accelerator.set_device_index": set_device,
        "accelerator.set_device_idx": set_device,
        "accelerator.current_device_index": current_device,
        "accelerator.current_device_idx": current_device,
    }
    with contextlib.ExitStack() as stack:
        for name, fake in fakes.items():
            with contextlib.suppress(AttributeError, ImportError):  # not in every torch
                stack.enter_context(mock.patch(f"torch.{name}", side_effect=fake))
        yield current


def collectives_as_rank(fn: Callable, rank: int, world_size: int, *args: Any,
                        **kwargs: Any) -> tuple[list[str], str]:
    """Call ``fn(*args, **kwargs)`` as process ``rank``, every collective of
    ``torch.distributed`` replaced by a no-op that notes its name: (the names in order,
    what it printed)."""
    called: list[str] = []
    printed = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(as_rank(rank, world_size))
        for name in COLLECTIVES:
            if hasattr(dist, name):
                stack.enter_context(mock.patch(
                    f"torch.distributed.{name}",
                    side_effect=lambda *a, _name=name, **k: called.append(_name)))
        stack.enter_context(contextlib.redirect_stdout(printed))
        fn(*args, **kwargs)
    return called, printed.getvalue()


def logged_as_one_rank(fn: Callable, *args: Any) -> tuple[list[str], BaseException | None]:
    """What ``fn(*args)`` prints in a job of one rank, this process's own (a real gloo
    process group of one): (the lines printed, the exception raised or None)."""
    printed = io.StringIO()
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        with contextlib.redirect_stdout(printed):
            fn(*args)
        return printed.getvalue().splitlines(), None
    except Exception as error:  # the check quotes it
        return printed.getvalue().splitlines(), error
    finally:
        dist.destroy_process_group()


def script_with(script: str | Path, function: Callable,
                replace: dict[str, str] | None = None) -> str:
    """A copy of ``script`` (in a temporary folder) in which the function of the same
    name is replaced by ``function``, as written in the notebook; ``replace`` changes
    other text of the copy (old -> new)."""
    import ast

    code = Path(script).read_text(encoding="utf-8")
    node = next(n for n in ast.parse(code).body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.name == function.__name__)
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    lines = code.splitlines(keepends=True)
    mine = textwrap.dedent(inspect.getsource(function))
    before, after = "".join(lines[: first - 1]), "".join(lines[node.end_lineno:])
    text = before + mine + after
    for old, new in (replace or {}).items():
        text = re.sub(old, new, text)
    path = Path(tempfile.mkdtemp(prefix="lab-ddp-")) / Path(script).name
    path.write_text(text, encoding="utf-8")
    return str(path)


class JobHang(RuntimeError):
    """A played job in which a rank waited in a collective that another rank never
    called (``play_job``)."""


def play_job(fn: Callable, world_size: int, *args: Any, wait: float = 5.0,
             **kwargs: Any) -> list[Any]:
    """Run ``fn(*args, **kwargs)`` as every rank of a job of ``world_size`` processes at
    once, one thread each, and return what each rank returned. ``dist.get_rank()`` and
    ``dist.get_world_size()`` answer per thread; ``all_reduce`` (SUM, AVG, MAX, MIN),
    ``broadcast``, ``barrier`` and ``all_gather_object`` work across the threads as in a
    real job. A rank that waits in a collective longer than ``wait`` seconds, because
    another rank called another collective or none, makes it raise :class:`JobHang`,
    saying what each rank was doing."""
    import threading

    local = threading.local()
    meeting = threading.Barrier(world_size, timeout=wait)
    posted: dict[int, tuple[str, Any]] = {}
    doing = ["running" for _ in range(world_size)]
    results: list[Any] = [None] * world_size
    errors: list[BaseException | None] = [None] * world_size

    def meet(name: str, value: Any) -> dict[int, tuple[str, Any]]:
        rank = local.rank
        doing[rank] = f"waits in {name}"
        posted[rank] = (name, value)
        try:
            meeting.wait()
        except threading.BrokenBarrierError:
            raise JobHang(f"rank {rank} waited in {name}") from None
        names = {posted[r][0] for r in range(world_size)}
        seen = dict(posted)
        try:
            meeting.wait()  # everyone has read before the next collective writes
        except threading.BrokenBarrierError:
            raise JobHang(f"rank {rank} waited in {name}") from None
        doing[rank] = "running"
        if len(names) > 1:
            doing[rank] = f"calls {name} where another rank calls {sorted(names - {name})}"
            meeting.abort()
            raise JobHang(f"ranks met in different collectives: "
                          f"{[seen[r][0] for r in range(world_size)]}")
        return seen

    def all_reduce(tensor: torch.Tensor, op: Any = dist.ReduceOp.SUM, **_: Any) -> None:
        seen = meet("all_reduce", tensor.clone())
        shapes = [tuple(seen[r][1].shape) for r in range(world_size)]
        if len(set(shapes)) > 1:  # two different all_reduce calls met
            doing[local.rank] = f"calls all_reduce on shape {tuple(tensor.shape)}"
            meeting.abort()
            raise JobHang(f"ranks met in all_reduce with shapes {shapes}")
        stacked = torch.stack([seen[r][1] for r in range(world_size)])
        if op == dist.ReduceOp.SUM:
            tensor.copy_(stacked.sum(0))
        elif op == dist.ReduceOp.MAX:
            tensor.copy_(stacked.amax(0))
        elif op == dist.ReduceOp.MIN:
            tensor.copy_(stacked.amin(0))
        elif op == dist.ReduceOp.AVG:
            tensor.copy_(stacked.mean(0))
        else:
            raise NotImplementedError(f"play_job does not play all_reduce with {op}")

    def broadcast(tensor: torch.Tensor, src: int = 0, **_: Any) -> None:
        tensor.copy_(meet("broadcast", tensor.clone())[src][1])

    def barrier(**_: Any) -> None:
        meet("barrier", None)

    def all_gather_object(out: list, obj: Any, **_: Any) -> None:
        seen = meet("all_gather_object", obj)
        out[:] = [seen[r][1] for r in range(world_size)]

    def broadcast_object_list(objects: list, src: int = 0, **_: Any) -> None:
        objects[:] = list(meet("broadcast_object_list", list(objects))[src][1])

    played = {"all_reduce": all_reduce, "broadcast": broadcast, "barrier": barrier,
              "all_gather_object": all_gather_object,
              "broadcast_object_list": broadcast_object_list}

    def unplayed(name: str) -> Callable:
        def refuse(*a: Any, **k: Any) -> None:
            raise NotImplementedError(f"play_job does not play {name}: use all_reduce, "
                                      "broadcast, barrier or all_gather_object")
        return refuse

    def run(rank: int) -> None:
        local.rank = rank
        try:
            results[rank] = fn(*args, **kwargs)
            doing[rank] = "returned"
        except BaseException as error:  # reported to the caller below
            errors[rank] = error
            if not isinstance(error, JobHang):  # a hung rank is still where it waited
                doing[rank] = f"raised {type(error).__name__}"
            meeting.abort()

    with contextlib.ExitStack() as stack:
        patches = {"get_rank": lambda *a, **k: local.rank,
                   "get_world_size": lambda *a, **k: world_size,
                   "is_initialized": lambda: True, **played}
        for name in COLLECTIVES:
            patches.setdefault(name, unplayed(name))
        for name, fake in patches.items():
            if hasattr(dist, name):
                stack.enter_context(mock.patch(f"torch.distributed.{name}", fake))
        threads = [threading.Thread(target=run, args=(r,), daemon=True)
                   for r in range(world_size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=4 * wait + 10)
    hung = [e for e in errors if isinstance(e, JobHang)]
    if hung or any(t.is_alive() for t in threads):
        raise JobHang("the job hangs: " + "; ".join(
            f"rank {r} {doing[r]}" for r in range(world_size)))
    for error in errors:
        if error is not None:
            raise error
    return results
