"""The one child-process runner of ``ice_lab``: start, capture, stop, clean up.

``run_isolated`` (``isolate.py``) and ``torchrun`` (``distributed.py``) both start a
command through :func:`run`, which

* starts it in a process group of its own (a new session), with a mark in its
  environment that every process it starts inherits;
* sends its stdout and stderr to anonymous temporary files, not pipes: a process the
  child leaves behind could hold a pipe open, and reading it would wait for that process
  instead of for the child; the files vanish when closed, whatever happens;
* after ``timeout`` seconds kills the whole group, or first sends SIGTERM to the child
  alone and allows it ``grace`` seconds to stop its own processes (torchrun stops its
  ranks so); an interrupt (Ctrl-C in a notebook) kills the group too;
* once the child is gone, finds every process of its group or carrying its mark (one
  started in a session of its own escapes the group, not the mark), kills them and
  counts them as ``leftover``.

Private: learners meet it through ``run_isolated`` (the Devices chapter,
``book/devices.ipynb``) and ``torchrun`` (the Distributed chapter,
``book/distributed.ipynb``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from typing import IO, Mapping, Sequence

__all__ = ["Finished", "run", "MARK_PREFIX"]

#: The environment variable ``ICE_LAB_CHILD_<hex>=1`` marks every process of one run
#: (one variable per run, so that a run inside a run keeps both marks).
MARK_PREFIX = "ICE_LAB_CHILD_"

_OWN_GROUP = hasattr(os, "killpg")  # POSIX: a session and process group of its own


@dataclass(frozen=True)
class Finished:
    """What :func:`run` saw: the child's exit status (negative: killed by that signal),
    its output, whether the timeout struck, how many of its processes outlived it (then
    killed) and the seconds from start to the end of the clean-up."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    leftover: int
    seconds: float


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    grace: float | None = None,
) -> Finished:
    """Run ``argv`` to its end or to ``timeout`` seconds, then leave nothing of it running.

    ``env`` is the child's whole environment (default: this process's); ``grace``: on
    timeout, SIGTERM to the child alone and this many seconds to exit before the group is
    killed (None: the group is killed at once). Raises ``OSError`` if the command cannot
    be started (the temporary files are removed all the same).
    """
    mark = f"{MARK_PREFIX}{uuid.uuid4().hex}"
    child_env = dict(os.environ if env is None else env)
    child_env[mark] = "1"
    start = time.perf_counter()
    timed_out = killed = False
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=child_env,
            start_new_session=_OWN_GROUP,
        )
        try:
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                if grace is not None:
                    proc.send_signal(signal.SIGTERM)
                    try:
                        proc.wait(timeout=grace)
                    except subprocess.TimeoutExpired:
                        pass
        finally:
            if proc.poll() is None:  # past the timeout (and grace), or interrupted
                killed = True
                _kill_group(proc)
            proc.wait()
            leftover = _kill_leftovers(proc.pid, mark, group_killed=killed)
        seconds = time.perf_counter() - start
        stdout, stderr = (_read(f) for f in (out, err))
    return Finished(
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        timed_out=timed_out,
        leftover=leftover,
        seconds=seconds,
    )


def _read(file: IO[bytes]) -> str:
    file.seek(0)
    return file.read().decode("utf-8", errors="replace")


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL to the child's whole process group (the child alone where there is none)."""
    try:
        if _OWN_GROUP:
            os.killpg(proc.pid, signal.SIGKILL)
            return
    except OSError:  # the group is gone already, or not ours
        pass
    try:
        proc.kill()
    except OSError:
        pass


def _kill_leftovers(pgid: int, mark: str, group_killed: bool, rounds: int = 3) -> int:
    """Kill every live process of the run (in group ``pgid`` or carrying ``mark``); return
    how many there were. After a group kill the group's members died with the child and
    are not counted: only those that escaped it (a new session) are leftovers. A few
    rounds, for a leftover that started another process before it was killed."""
    try:
        import psutil  # installed with Jupyter (ipykernel needs it)
    except ImportError:  # pragma: no cover - the group is killed, escapees are not found
        _kill_pgid(pgid)
        return 0
    counted: set[int] = set()
    for _ in range(rounds):
        found = []
        for proc in psutil.process_iter():
            try:
                if proc.pid == os.getpid() or proc.status() == psutil.STATUS_ZOMBIE:
                    continue
                in_group = _OWN_GROUP and os.getpgid(proc.pid) == pgid
                if in_group or mark in proc.environ():
                    found.append(proc)
                    if not (in_group and group_killed):
                        counted.add(proc.pid)
            except (psutil.Error, OSError):
                continue  # gone already, or not ours to read
        if not found:
            break
        _kill_pgid(pgid)
        for proc in found:
            try:
                proc.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(found, timeout=10)
    return len(counted)


def _kill_pgid(pgid: int) -> None:
    if _OWN_GROUP:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:  # no process left in it
            pass
