"""A job of ranks played here, for the checks of ``labs/lab-distributed.ipynb`` (chapter:
Distributed, ``book/distributed.ipynb``): every rank of a job runs the learner's function
in turn, and the collectives give each rank what the ranks' contributions give together,
so that a check sees the values a rank computes, not only which collectives it calls
(``ranks.collectives_as_rank`` makes every collective a no-op)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any
from unittest import mock

import torch
import torch.distributed as dist

from .ranks import COLLECTIVES, as_rank


def _reduced(values: list[torch.Tensor], op: Any) -> torch.Tensor:
    """What a reduction of the ranks' ``values`` gives, for ``op`` (SUM by default)."""
    stack = torch.stack(values)
    ops = {dist.ReduceOp.SUM: lambda: stack.sum(0), dist.ReduceOp.MAX: lambda: stack.amax(0),
           dist.ReduceOp.MIN: lambda: stack.amin(0), dist.ReduceOp.PRODUCT: lambda: stack.prod(0)}
    avg = getattr(dist.ReduceOp, "AVG", None)
    if avg is not None and op == avg:
        return stack.mean(0)
    return next((make() for key, make in ops.items() if op == key), stack.sum(0))


def job_of_ranks(fn: Callable, world_size: int, args_of: Callable[[int], tuple],
                 ) -> list[tuple[list[str], str]]:
    """Play ``fn(*args_of(rank))`` as every rank of a job, here, rank after rank: the
    collectives (all_reduce, reduce, all_gather, all_gather_object, broadcast, ...)
    give each rank what the ranks' contributions give together. A rank's contribution
    to its k-th collective depends only on the results of the ones before, so a few
    rounds settle it. For each rank: (the collectives it called, what it printed)."""
    sent: dict[tuple[int, int], Any] = {}  # (call, rank) -> what the rank contributed

    def play(rank: int) -> tuple[list[str], str]:
        called: list[str] = []

        def fake(name: str, *a: Any, **k: Any) -> None:
            call = len(called)
            called.append(name)
            # the other ranks' contributions (None: not yet played); what a collective
            # receives is whatever the learner's code passes, hence Any
            others: list[Any] = [sent.get((call, r)) for r in range(world_size)]
            if name in ("all_reduce", "reduce"):
                tensor: Any = k.get("tensor", a[0] if a else None)
                sent[(call, rank)] = tensor.detach().clone()
                dst = k.get("dst", a[1] if name == "reduce" and len(a) > 1 else 0)
                op = k.get("op", a[1] if name == "all_reduce" and len(a) > 1 else
                           a[2] if name == "reduce" and len(a) > 2 else dist.ReduceOp.SUM)
                if all(o is not None for o in others) and (name == "all_reduce"
                                                           or rank == dst):
                    with torch.no_grad():
                        tensor.copy_(_reduced(others, op))
            elif name in ("all_gather", "all_gather_object"):
                out: Any = k.get("tensor_list",
                                 k.get("object_list", a[0] if a else None))
                mine: Any = k.get("tensor", k.get("obj", a[1] if len(a) > 1 else None))
                sent[(call, rank)] = mine.detach().clone() if torch.is_tensor(mine) else mine
                for r, value in enumerate(others):
                    value = mine if value is None else value
                    if torch.is_tensor(out[r]):
                        with torch.no_grad():
                            out[r].copy_(value)
                    else:
                        out[r] = value
            elif name == "broadcast":
                tensor = k.get("tensor", a[0] if a else None)
                src = k.get("src", a[1] if len(a) > 1 else 0)
                sent[(call, rank)] = tensor.detach().clone()
                if others[src] is not None:
                    with torch.no_grad():
                        tensor.copy_(others[src])

        printed = io.StringIO()
        with contextlib.ExitStack() as stack:
            stack.enter_context(as_rank(rank, world_size))
            for name in COLLECTIVES:
                if hasattr(dist, name):
                    stack.enter_context(mock.patch(
                        f"torch.distributed.{name}",
                        side_effect=lambda *a, _name=name, **k: fake(_name, *a, **k)))
            stack.enter_context(contextlib.redirect_stdout(printed))
            fn(*args_of(rank))
        return called, printed.getvalue()

    results: list[tuple[list[str], str]] = []
    for _ in range(4):  # each round settles one more collective (log_loss needs 2)
        results = [play(rank) for rank in range(world_size)]
    return results
