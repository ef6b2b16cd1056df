"""ice_lab._child: the one child runner that run_isolated and torchrun share.

Real child processes; no assertion on elapsed time: waits are bounded by the runner's
``timeout`` and by bounded polls, which only stop a broken test from hanging.
"""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
import time

import psutil
import pytest

from ice_lab import _child

pytestmark = pytest.mark.kernel  # every test here starts child processes


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch):
    """Every temporary file goes to tmp_path, so the tests can see that none is left."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield tmp_path
    assert list(tmp_path.iterdir()) == [], "the runner left temporary files behind"


def python(source: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(source)]


def dead(pid: int, bound: float = 30.0) -> bool:
    """Poll until ``pid`` is gone or a zombie; the bound only stops a broken test."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.01)
    return False


SLEEPER = f"[{sys.executable!r}, '-c', 'import time; time.sleep(600)']"


def test_exit_status_and_both_outputs():
    done = _child.run(python("""
        import sys
        print("to stdout")
        print("to stderr", file=sys.stderr)
        sys.exit(3)
    """), timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (3, "to stdout\n", "to stderr\n")
    assert not done.timed_out and done.leftover == 0


def test_the_environment_given_is_the_whole_environment_plus_one_mark(monkeypatch):
    monkeypatch.setenv("ICE_LAB_TEST_PARENT", "only in the parent")
    done = _child.run(python("""
        import json, os
        print(json.dumps(dict(os.environ)))
    """), timeout=120, env={"ONLY": "this"})
    env = json.loads(done.stdout)
    marks = [name for name in env if name.startswith(_child.MARK_PREFIX)]
    assert len(marks) == 1 and env[marks[0]] == "1"
    assert env["ONLY"] == "this" and "ICE_LAB_TEST_PARENT" not in env


def test_leftovers_in_the_group_and_in_a_session_of_their_own_are_killed_and_counted():
    """The child exits, leaving two sleepers: one in its group (which also holds the
    child's stdout file open), one in a new session (out of the group, not of the mark)."""
    done = _child.run(python(f"""
        import subprocess
        stay = subprocess.Popen({SLEEPER})
        escape = subprocess.Popen({SLEEPER}, start_new_session=True)
        print(stay.pid, escape.pid)
    """), timeout=120)
    assert done.returncode == 0 and not done.timed_out, done.stderr
    assert done.leftover == 2
    for pid in map(int, done.stdout.split()):
        assert dead(pid), f"leftover {pid} still running"


def test_at_the_timeout_the_whole_group_is_killed():
    """Killed with the child, the grandchild is no leftover: it did not outlive a child
    that exited by itself."""
    done = _child.run(python(f"""
        import subprocess, time
        print(subprocess.Popen({SLEEPER}).pid, flush=True)
        time.sleep(600)
    """), timeout=5)  # generous, so that a busy machine still starts the grandchild
    assert done.timed_out and done.returncode == -9 and done.leftover == 0
    assert done.stdout.strip(), "the child did not start its grandchild within the timeout"
    assert dead(int(done.stdout)), "the grandchild outlived the timeout"


def test_with_grace_the_child_gets_sigterm_first_and_may_clean_up():
    done = _child.run(python("""
        import signal, sys, time
        def stop(signum, frame):
            print("stopping my processes", flush=True)
            sys.exit(5)
        signal.signal(signal.SIGTERM, stop)
        print("ready", flush=True)
        time.sleep(600)
    """), timeout=5, grace=60)
    assert done.stdout.startswith("ready"), "the child was not ready within the timeout"
    assert done.timed_out and done.returncode == 5
    assert done.stdout == "ready\nstopping my processes\n"


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace():
    done = _child.run(python("""
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ready", flush=True)
        time.sleep(600)
    """), timeout=5, grace=1)
    assert done.stdout == "ready\n", "the child was not ready within the timeout"
    assert done.timed_out and done.returncode == -9


def test_a_command_that_cannot_start_raises_and_leaves_no_file():
    with pytest.raises(OSError):
        _child.run(["/no/such/program"], timeout=5)
