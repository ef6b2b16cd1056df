"""How long ice_lab.explain takes on real messages (a benchmark, not a test: no assertion).

Times ``explain`` on every real message of the tests (tests/support/explain_realworld.py and its
wrapped and pasted rounds; each timed several times,
its fastest run kept, so that a busy machine does not inflate one message), then on a few
hard inputs: a 1 MB message, binary junk, and a message built to make a careless regular
expression backtrack. Prints the median and the worst time, and the worst as a multiple of
the median (the ratio holds across machines better than the milliseconds do).

    python benchmarks/explain_speed.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

from ice_lab import explain

TESTS = Path(__file__).resolve().parents[1] / "tests" / "support"


def _messages(name: str) -> list:
    """MESSAGES of the tests' data module tests/support/<name>.py, read from its file (a
    checkout older than a round simply lacks it: no messages)."""
    path = TESTS / f"{name}.py"
    if not path.exists():
        return []
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MESSAGES


FIRST = _messages("explain_realworld")
WRAPPED = _messages("explain_realworld_wrapped")  # the later rounds
PASTED = _messages("explain_realworld_pasted")
MESSAGES = FIRST + WRAPPED + PASTED

HARD = {
    "1 MB message": "RuntimeError: " + "x" * 1_000_000 + "\nCUDA error: out of memory",
    "binary junk (1 MB)": bytes(range(256)) * 4096,
    "backtracking bait": "mat1 and mat2 shapes cannot be multiplied (" + "1x" * 50_000,
    "20k frames of a worker traceback": "Caught RuntimeError in DataLoader worker process 0.\n"
    + 'Traceback (most recent call last):\n' + '  File "x.py", line 1, in f\n    f()\n' * 20_000
    + "RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1",
}


def fastest(thing: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        explain(thing)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="runs per message (the fastest is kept)")
    args = parser.parse_args()
    explain("warm up: compile the catalogue's patterns")
    times = sorted((fastest(m.message, args.repeat), m.source) for m in MESSAGES)
    seconds = [t for t, _ in times]
    median, worst = statistics.median(seconds), seconds[-1]
    p95 = seconds[int(0.95 * (len(seconds) - 1))]
    print(f"explain on {len(MESSAGES)} real messages (fastest of {args.repeat} runs each):")
    print(f"  median {median * 1e3:.2f} ms, 95th percentile {p95 * 1e3:.2f} ms, worst {worst * 1e3:.2f} ms "
          f"({worst / median:.1f}x the median)")
    print(f"  slowest: {times[-1][1]}")
    for label, subset in (("first rounds", FIRST), ("wrapped", WRAPPED), ("pasted", PASTED)):
        if subset:
            own = sorted(fastest(m.message, args.repeat) for m in subset)
            print(f"  {label:<12} {len(own):>3} messages: median {statistics.median(own) * 1e3:.2f} ms, "
                  f"worst {own[-1] * 1e3:.2f} ms")
    print("hard inputs:")
    for label, thing in HARD.items():
        t = fastest(thing, args.repeat)
        print(f"  {label:<34} {t * 1e3:8.2f} ms ({t / median:.0f}x the median real message)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
