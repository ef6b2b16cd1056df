"""Run a training script under ``torchrun`` from a notebook, and keep what it printed.

``torchrun`` (``python -m torch.distributed.run``) is PyTorch's own launcher: it starts
one process per rank, sets ``RANK``, ``LOCAL_RANK`` and ``WORLD_SIZE``, and stops every
rank when one fails. ``torchrun()`` below only starts it with the notebook's Python,
captures its output with what differs between machines (paths, host, times, process
ids, ports) replaced by placeholders, and makes sure no process of the job outlives it.

Taught in the Distributed chapter (``book/distributed.ipynb``); practised in its lab
(``labs/lab-distributed.ipynb``).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import _child, _prefixes
from ._args import check_int, check_number
from ._text import Report

__all__ = ["TorchrunResult", "torchrun"]

_GRACE = 30.0  # seconds torchrun has, after SIGTERM at the timeout, to stop its ranks


@dataclass
class TorchrunResult(Report):
    """What a ``torchrun`` job did: the command as you would type it, its exit code,
    its stdout and stderr (cleaned), whether it ran into the timeout, how many of its
    processes were still alive after it (then killed), and how long it took.
    Taught in the Distributed chapter (``book/distributed.ipynb``)."""

    command: str
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False
    leftover: int = 0
    seconds: float = 0.0
    gpus_hidden: bool = False

    @property
    def ok(self) -> bool:
        """True when the job exited with 0, in time, and left no process behind."""
        return self.returncode == 0 and not self.timed_out and self.leftover == 0

    def __str__(self) -> str:
        """One line without timings or process ids (stable in a notebook)."""
        if self.ok:
            return "ok: every process exited with 0"
        what = [f"exit code {self.returncode}"]
        if self.timed_out:
            what.append("ran into the timeout")
        if self.leftover:
            what.append(f"{self.leftover} process(es) still running afterwards, killed")
        cause = self.root_cause().splitlines()
        tail = f"; {cause[0].strip()}" if cause else ""
        return f"failed: {', '.join(what)}{tail}"

    def root_cause(self) -> str:
        """torchrun's report on the first rank that failed ("" if none failed).
        Taught in the Distributed chapter (``book/distributed.ipynb``)."""
        match = re.search(r"^Root Cause.*?(?=^=+$)", self.stderr, re.S | re.M)
        return match.group(0).rstrip() if match else ""


def _clean(text: str, cwd: Path) -> str:
    for folder, name in [
        (sysconfig.get_paths()["purelib"], "<site-packages>"),
        (str(cwd) + os.sep, ""),
        (tempfile.gettempdir(), "<tmp>"),
        (sys.prefix, "<python>"),
    ]:
        text = text.replace(folder, name)
    text = re.sub(r"<tmp>/(?:[^\s/\"']+/)*", "<tmp>/", text)  # keep the file name
    text = _prefixes.GLOG_LINE_STAMP.sub(r"\1 ", text)  # log stamps
    text = re.sub(r"(time\s+: ).*", r"\1<time>", text)
    text = re.sub(r"(host\s+: ).*", r"\1<host>", text)
    text = re.sub(r"(pid:? |process |PID )\d+", r"\1<pid>", text, flags=re.I)
    return re.sub(r"(\d+\.\d+\.\d+\.\d+\]?):\d+", r"\1:<port>", text)


def torchrun(
    script: str | os.PathLike,
    *args: str,
    nproc_per_node: int = 2,
    timeout: float = 300.0,
) -> TorchrunResult:
    """Run ``torchrun --standalone --nproc_per_node=N script args...`` and wait for it.

    The job runs with the notebook's Python and working directory, and with
    ``OMP_NUM_THREADS=1`` (torchrun's own choice, set here so that it prints no banner).
    A machine with GPUs but fewer than ``nproc_per_node`` of them (a one-GPU laptop or
    Colab runtime, two ranks) runs the job on the CPU: the ranks get
    ``CUDA_VISIBLE_DEVICES=""`` (``gpus_hidden`` is then True), so that a script that picks
    ``cuda:LOCAL_RANK`` when CUDA is available falls back to the CPU and ``gloo`` instead
    of asking for a GPU that does not exist. With one GPU per rank, the GPUs stay visible.
    After ``timeout`` seconds (five minutes by default: three Pythons importing torch on a
    busy laptop can take a minute before the script's first line) torchrun gets SIGTERM, which it passes on to every rank; 30
    seconds later whatever of the job still runs is killed. A process the job leaves
    running (one started in a session of its own, say) is killed and counted in
    ``leftover``. ``nproc_per_node`` is a whole number from 1 to 8 (one machine);
    ``timeout`` a positive number of seconds: a wrong type raises ``TypeError``, a value
    out of range ``ValueError``.
    Never raises for what the job does: read ``returncode``, ``stdout``, ``stderr`` and
    ``root_cause()`` of the returned ``TorchrunResult``.

    Taught in the Distributed chapter (``book/distributed.ipynb``).
    """
    if not Path(script).is_file():
        raise FileNotFoundError(
            f"torchrun: no script {str(script)!r} here ({os.getcwd()}); pass the path of "
            "a .py file relative to the notebook's folder, e.g. 'scripts/ddp_train.py'."
        )
    n = check_int("nproc_per_node", nproc_per_node, 1, maximum=8)  # GPUs of one machine
    timeout = check_number("timeout", timeout, positive=True, unit="seconds")
    flags = ["--standalone", f"--nproc_per_node={n}", str(script), *map(str, args)]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    gpus_hidden = 0 < _visible_gpus() < n
    if gpus_hidden:
        env["CUDA_VISIBLE_DEVICES"] = ""  # fewer GPUs than ranks: every rank on the CPU
    # On timeout torchrun gets SIGTERM and _GRACE seconds to stop its ranks; then the
    # job's whole process group is killed, and any process of it left is killed too.
    done = _child.run(
        [sys.executable, "-m", "torch.distributed.run", *flags],
        timeout=timeout, env=env, grace=_GRACE,
    )
    return TorchrunResult(
        command=shlex.join(["torchrun", *flags]),
        returncode=done.returncode,
        stdout=_clean(done.stdout, Path.cwd()),
        stderr=_clean(done.stderr, Path.cwd()),
        timed_out=done.timed_out,
        leftover=done.leftover,
        seconds=done.seconds,
        gpus_hidden=gpus_hidden,
    )


def _visible_gpus() -> int:
    """How many CUDA devices this process sees (0 without CUDA)."""
    import torch

    try:
        return int(torch.cuda.device_count())
    except Exception:  # a broken CUDA install counts as none
        return 0
