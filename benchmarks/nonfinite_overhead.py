"""Step-time overhead of ice_lab's diagnostics on a small MLP, against detect_anomaly.

    python benchmarks/nonfinite_overhead.py            # about a minute
    python benchmarks/nonfinite_overhead.py --quick    # a few seconds, noisier

One training step (zero_grad, forward, cross-entropy, backward, SGD step) is timed with
no tool, then inside each tool. The tools take turns in rounds; in each round, a tool's
median step time is divided by the plain median of the same round (so that changes in
machine load cancel), and the figure printed is the median of these ratios over the rounds,
e.g. ``watch_nonfinite         1.10x``. The targets: ``watch_nonfinite`` <= 1.10x,
``watch_nonfinite_ops`` <= 1.30x. ``dispatch_mode_floor`` is a dispatch mode that only
calls each op, checking nothing: the least any watcher that sees every op can cost, since
every op then goes through Python. ``torch.autograd.detect_anomaly`` is the anchor,
measured in the same run. Steps are timed
with this process's CPU time (``time.process_time``), which other processes on a busy
machine disturb far less than the wall clock (``--wall`` for the wall clock).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
import warnings

import torch
from torch import nn

import ice_lab
from ice_lab._torch_compat import UnwrappedDispatchMode, op_caller


class DispatchModeFloor(UnwrappedDispatchMode):
    """Calls each op the way watch_nonfinite_ops does, and checks nothing."""

    def __init__(self) -> None:
        super().__init__()
        self._call: dict[int, object] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        call = self._call.get(id(func))
        if call is None:
            call = self._call[id(func)] = op_caller(func)
        return call(*args, **kwargs) if kwargs else call(*args)


def make_step(hidden: int, batch: int, features: int = 784):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10)
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(batch, features)
    y = torch.randint(0, 10, (batch,))
    loss_fn = nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return model, step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--steps", type=int, default=15, help="timed steps per tool per round")
    parser.add_argument("--features", type=int, default=784, help="input size (784: an MNIST image)")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: steadier figures)")
    parser.add_argument("--quick", action="store_true", help="8 rounds of 10 steps")
    parser.add_argument("--only", nargs="*", default=None, help="measure only these tools (plain is always in)")
    parser.add_argument(
        "--wall", action="store_true",
        help="time with the wall clock instead of this process's CPU time (CPU time is steadier on a busy machine)",
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steps = 8, 10
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message=".*[Aa]nomaly.*")
    model, step = make_step(args.hidden, args.batch, args.features)
    clock = time.perf_counter if args.wall else time.process_time

    tools = {
        "plain": lambda: contextlib.nullcontext(),
        "watch_nonfinite": lambda: ice_lab.watch_nonfinite(model),
        "watch_nonfinite_ops": lambda: ice_lab.watch_nonfinite_ops(),
        "dispatch_mode_floor": DispatchModeFloor,
        "detect_anomaly": lambda: torch.autograd.detect_anomaly(),
        "MemoryBudget": lambda: ice_lab.MemoryBudget(None),
    }
    if args.only:
        unknown = set(args.only) - set(tools)
        if unknown:
            parser.error(f"unknown tool(s) {sorted(unknown)}; choose from {list(tools)[1:]}")
        tools = {name: make for name, make in tools.items() if name == "plain" or name in args.only}
    ratios: dict[str, list[float]] = {name: [] for name in tools}
    plain_times: list[float] = []
    for _ in range(10):  # warm-up
        step()
    for _ in range(args.rounds):
        medians = {}
        for name, make in tools.items():
            with make():
                step()  # one untimed step inside the tool
                ts = []
                for _ in range(args.steps):
                    t0 = clock()
                    step()
                    ts.append(clock() - t0)
            medians[name] = statistics.median(ts)
        plain_times.append(medians["plain"])
        for name in tools:  # paired with the plain steps of the same round: load drifts cancel
            ratios[name].append(medians[name] / medians["plain"])
    print(
        f"small MLP {args.features}-{args.hidden}-{args.hidden}-10, batch {args.batch}, SGD; torch {torch.__version__}, "
        f"{args.threads} thread(s); {'wall-clock' if args.wall else 'process CPU'} time; "
        f"{args.rounds} rounds of {args.steps} steps per tool; "
        "ratio = median over rounds of (median step with the tool / median plain step)"
    )
    print(f"{'plain':<22}{1:>6.2f}x   ({statistics.median(plain_times) * 1e3:.3f} ms/step)")
    for name in list(tools)[1:]:
        print(f"{name:<22}{statistics.median(ratios[name]):>6.2f}x")


if __name__ == "__main__":
    main()
