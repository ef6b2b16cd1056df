"""ice_lab.run_isolated: whatever the child does, the parent gets a report and stays healthy."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import pytest

from ice_lab import IsolatedResult, run_isolated
from ice_lab.isolate import NotImportableError, importable_name

pytestmark = pytest.mark.kernel  # every test here starts a kernel or a child process


def child_prints() -> None:
    """An importable function (module test_isolate): the child can run it."""
    print("from an importable function")


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch):
    """Every temporary file goes to tmp_path, so the tests can see that none is left."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield tmp_path
    assert list(tmp_path.iterdir()) == [], "run_isolated left temporary files behind"


def test_success_with_stdout():
    result = run_isolated("print('hello from the child')\nx = 1 + 1")
    assert isinstance(result, IsolatedResult)
    assert result.ok and not result.timed_out and result.exitcode == 0
    assert result.exception_type is None and result.message is None and result.diagnosis is None
    assert result.stdout == "hello from the child\n"
    assert str(result) == "ok: finished without an exception"


def test_indented_source_and_no_torch_unless_asked():
    result = run_isolated(
        """
        import sys
        print('torch' in sys.modules)
        """
    )
    assert result.ok and result.stdout == "False\n"


def test_hard_death_by_abort():
    result = run_isolated("import os\nprint('about to abort')\nos.abort()")
    assert not result.ok and not result.timed_out
    assert result.exitcode == -6
    assert result.exception_type is None and result.message is None
    assert result.stdout == "about to abort\n"  # unbuffered: the last print survives the crash
    assert "Fatal Python error: Aborted" in result.stderr  # faulthandler's report
    assert str(result) == "died: exit code -6 (SIGABRT) without a Python exception"


def _wait_until_dead(pid: int, bound: float = 30.0) -> str:
    """Poll /proc until ``pid`` is a zombie or gone; the bound only stops a broken test
    from hanging (the answer does not depend on how fast the machine is)."""
    deadline = time.monotonic() + bound
    state = ""
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as f:
                state = next(line for line in f if line.startswith("State:"))
        except FileNotFoundError:
            return "gone"
        if "Z" in state or "X" in state:
            return state
        time.sleep(0.01)
    return state


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process states from /proc")
def test_hang_past_the_timeout_kills_the_whole_group():
    result = run_isolated(
        """
        import subprocess, sys, time
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(grandchild.pid, flush=True)
        time.sleep(600)
        """,
        timeout=5,  # bounds the wait; generous, so that a busy machine still starts the grandchild
    )
    assert result.timed_out and not result.ok
    assert result.exitcode == -9
    assert str(result) == "timed out after 5 s: the child process was killed"
    assert result.stdout.strip(), "the child did not start its grandchild within the timeout"
    pid = int(result.stdout.split()[0])
    # Killed with its group, it dies (a zombie until reaped, or gone) instead of sleeping
    # on for 600 s: a survivor is still asleep when the bounded poll gives up.
    state = _wait_until_dead(pid)
    assert state == "gone" or "Z" in state or "X" in state, f"grandchild {pid} still running: {state}"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process states from /proc")
def test_what_the_child_leaves_running_is_killed_when_it_ends():
    """A process started in a session of its own leaves the child's group, not its mark."""
    result = run_isolated(
        f"""
        import subprocess
        sleeper = [{sys.executable!r}, "-c", "import time; time.sleep(600)"]
        print(subprocess.Popen(sleeper, start_new_session=True).pid)
        """
    )
    assert result.ok, result.stderr
    pid = int(result.stdout)
    state = _wait_until_dead(pid)
    assert state == "gone" or "Z" in state or "X" in state, f"leftover {pid} still running: {state}"


def test_torch_error_is_reported_with_a_diagnosis():
    result = run_isolated(
        """
        import torch
        torch.nn.Linear(3, 4)(torch.zeros(2, 5))
        """
    )
    assert not result.ok and result.exitcode == 1 and not result.timed_out
    assert result.exception_type == "RuntimeError"
    assert "2x5 and 3x4" in result.message
    assert "<run_isolated>" in result.traceback and "torch.nn.Linear(3, 4)" in result.traceback
    assert result.diagnosis is not None and result.diagnosis.kind == "shape_mismatch"
    # Compared by meaning: torch's wording moves between versions (2.15 prefixes "addmm: ").
    first, second = str(result).splitlines()
    assert first.startswith("raised RuntimeError: ")
    assert "shapes cannot be multiplied" in first and "(2x5 and 3x4)" in first
    assert second == f"diagnosis: shape_mismatch: {result.diagnosis.summary}"


def test_simulated_oom_in_the_child_keeps_its_class_for_explain():
    result = run_isolated(
        """
        import torch, ice_lab
        with ice_lab.MemoryBudget("1MiB"):
            big = torch.zeros(10**6)
        """
    )
    assert result.exception_type == "OutOfMemoryError"
    assert result.message.startswith("Simulated out of memory (ice_lab.MemoryBudget)")
    assert result.diagnosis.kind == "out_of_memory"


def test_plain_python_exception_and_exit_codes():
    result = run_isolated("raise ValueError('nope')")
    assert (result.exception_type, result.message, result.exitcode) == ("ValueError", "nope", 1)
    assert str(result).startswith("raised ValueError: nope")
    failed_exit = run_isolated("import sys; sys.exit(3)")
    assert (failed_exit.ok, failed_exit.exception_type, failed_exit.exitcode) == (False, "SystemExit", 3)
    clean_exit = run_isolated("import sys; sys.exit(0)")
    assert clean_exit.ok and clean_exit.exitcode == 0


def test_importable_function():
    result = run_isolated(child_prints, timeout=30)
    assert result.ok and result.stdout == "from an importable function\n"
    died = run_isolated(os.abort)  # a builtin is importable too
    assert died.exitcode == -6


def test_functions_a_child_cannot_import_get_one_clear_error():
    def local():
        pass

    with pytest.raises(NotImportableError, match="local scope or is a lambda.*source string"):
        run_isolated(local)
    with pytest.raises(NotImportableError, match="source string"):
        run_isolated(lambda: None)

    def notebook_function():
        pass

    notebook_function.__module__ = "__main__"
    notebook_function.__qualname__ = "notebook_function"
    with pytest.raises(NotImportableError, match=r"notebook or in the script being run \(__main__\)") as info:
        run_isolated(notebook_function)
    assert "run_isolated('''...''')" in str(info.value)
    assert "module level in a .py file" in str(info.value)
    assert isinstance(info.value, TypeError)  # the wrong kind of argument


def test_a_renamed_function_is_refused():
    def renamed():
        pass

    renamed.__module__ = __name__
    renamed.__qualname__ = "child_prints"  # that name leads to another function
    with pytest.raises(NotImportableError, match="does not lead back to this function"):
        run_isolated(renamed)


def test_importable_name_is_the_one_rule():
    assert importable_name(child_prints) == (__name__, "child_prints")
    with pytest.raises(NotImportableError, match=r"^launch\(\) cannot send"):
        importable_name(lambda: None, caller="launch()")


SCRIPT = """
import ice_lab.isolate

def work():
    print("never runs")

try:
    ice_lab.run_isolated(work)
except ice_lab.isolate.NotImportableError as err:
    print("refused:", err)
"""


def test_a_script_main_function_is_refused_too(tmp_path):
    """The same rule in a real script: its functions live in __main__, which a child lacks."""
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    try:
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    finally:
        script.unlink()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: run_isolated() cannot send work to a child process")
    assert "(__main__)" in done.stdout and "never runs" not in done.stdout


@pytest.mark.parametrize("timeout, err", [(0, ValueError), (-1, ValueError), (float("inf"), ValueError), ("2", TypeError), (True, TypeError)])
def test_bad_timeouts(timeout, err):
    with pytest.raises(err, match="timeout must be"):
        run_isolated("pass", timeout=timeout)


def test_bad_code_arguments():
    with pytest.raises(TypeError, match="source string .* or an importable"):
        run_isolated(42)
    with pytest.raises(SyntaxError, match="does not compile"):
        run_isolated("def broken(:\n    pass")
