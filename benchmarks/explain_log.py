"""How long ``ice-lab explain LOG`` takes on a 100 MB training log (a benchmark, not a test).

Writes a log of the size asked (default 100 MB) to a temporary file: progress lines of a
long training run from two ranks (``[rank0]:`` / ``[rank1]:``), a warning every 5,000 lines,
a recovered traceback every 200,000 lines, and at the end rank 1's real error followed by
torchrun's report. Then runs the command's own steps once each, timed: reading the file,
finding every error, choosing the root cause, explaining it, and ``cli.main`` end to end.
Prints the seconds of each step and the throughput in MB/s (the ratio to the file size
holds across machines better than the seconds do).

    python benchmarks/explain_log.py [--mb 100]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time

from ice_lab.explainer import cli, explain
from ice_lab.explainer.logs import find_errors, root_cause

RECOVERED = ("[rank0]: Traceback (most recent call last):\n"
             '[rank0]:   File "train.py", line 40, in <module>\n'
             "[rank0]:     batch = next(it)\n"
             "[rank0]: StopIteration: epoch ended\n")
FAILURE = ("[rank1]: Traceback (most recent call last):\n"
           '[rank1]:   File "train.py", line 52, in <module>\n'
           "[rank1]:     out = model(x)\n"
           "[rank1]: RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x513 and 512x10)\n"
           "E1201 10:00:00.000000 15136 torch/distributed/elastic/multiprocessing/api.py:1002] "
           "failed (exitcode: 1) local_rank: 1 (pid: 15210) of binary: python\n"
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
           + "=" * 60 + "\ntrain.py FAILED\n" + "-" * 60 + "\nRoot Cause (first observed failure):\n"
           "[0]:\n  time      : 2026-12-01_10:00:00\n  host      : localhost\n"
           "  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 15210)\n" + "=" * 60 + "\n")


def write_log(path: str, megabytes: int) -> int:
    target = megabytes * 1_000_000
    written = line = 0
    with open(path, "w", encoding="utf-8") as out:
        chunk: list[str] = []
        while written < target:
            line += 1
            rank = line % 2
            text = f"[rank{rank}]: step {line:>9} loss {1 / (1 + line % 977):.6f} lr 3.0e-04\n"
            if line % 5_000 == 0:
                text += f"[rank{rank}]: UserWarning: step {line} took longer than usual\n"
            if line % 200_000 == 0:
                text += RECOVERED
            chunk.append(text)
            written += len(text)
            if len(chunk) == 10_000:
                out.write("".join(chunk))
                chunk = []
        out.write("".join(chunk) + FAILURE)
    return os.path.getsize(path)


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=100, help="size of the log in MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "train.log")
        size = write_log(path, args.mb)
        text, t_read = timed(lambda: cli.read_log(path))
        errors, t_find = timed(lambda: find_errors(text))
        (chosen, rank), t_root = timed(lambda: root_cause(text, errors))
        diagnosis, t_explain = timed(lambda: explain(chosen.text))
        with contextlib.redirect_stdout(io.StringIO()):
            code, t_cli = timed(lambda: cli.main([path]))
    mb = size / 1e6
    print(f"log: {mb:.1f} MB, {text.count(chr(10)):,} lines, {len(errors)} errors found")
    print(f"root cause: line {chosen.line}, rank {rank}, kind {diagnosis.kind}; exit status {code}")
    for label, seconds in (("read", t_read), ("find errors", t_find), ("root cause", t_root),
                           ("explain", t_explain), ("ice-lab explain, end to end", t_cli)):
        print(f"  {label:<28} {seconds:7.2f} s")
    print(f"throughput end to end: {mb / t_cli:.0f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
