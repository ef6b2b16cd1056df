"""ice_lab.run_isolated: whatever the child does, the parent gets a report and stays healthy."""

from __future__ import annotations

import os
import tempfile
import time

import pytest

from ice_lab import IsolatedResult, run_isolated


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


def test_hang_past_the_timeout_kills_the_whole_group():
    start = time.monotonic()
    result = run_isolated(
        """
        import subprocess, sys, time
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(grandchild.pid, flush=True)
        time.sleep(60)
        """,
        timeout=2,
    )
    elapsed = time.monotonic() - start
    assert result.timed_out and not result.ok
    assert result.exitcode == -9
    assert 1.9 < elapsed < 20
    assert str(result) == "timed out after 2 s: the child process was killed"
    pid = int(result.stdout.split()[0])
    time.sleep(0.2)
    try:
        with open(f"/proc/{pid}/status") as f:
            state = next(line for line in f if line.startswith("State:"))
        assert "Z" in state, f"grandchild {pid} still running: {state}"
    except FileNotFoundError:
        pass  # gone entirely


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
    assert str(result).splitlines() == [
        "raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x5 and 3x4)",
        f"diagnosis: shape_mismatch: {result.diagnosis.summary}",
    ]


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


def test_functions_a_child_cannot_import_get_a_clear_error():
    def local():
        pass

    with pytest.raises(TypeError, match="local scope or a lambda.*source string"):
        run_isolated(local)
    with pytest.raises(TypeError, match="source string"):
        run_isolated(lambda: None)

    def notebook_function():
        pass

    notebook_function.__module__ = "__main__"
    notebook_function.__qualname__ = "notebook_function"
    with pytest.raises(TypeError, match="notebook or script \\(__main__\\).*run_isolated\\('''...'''\\)"):
        run_isolated(notebook_function)


@pytest.mark.parametrize("timeout, err", [(0, ValueError), (-1, ValueError), (float("inf"), ValueError), ("2", TypeError), (True, TypeError)])
def test_bad_timeouts(timeout, err):
    with pytest.raises(err, match="timeout must be"):
        run_isolated("pass", timeout=timeout)


def test_bad_code_arguments():
    with pytest.raises(TypeError, match="source string .* or an importable"):
        run_isolated(42)
    with pytest.raises(SyntaxError, match="does not compile"):
        run_isolated("def broken(:\n    pass")


@pytest.mark.parametrize("obj", [run_isolated, IsolatedResult])
def test_docstrings_name_the_chapter(obj):
    assert "Devices chapter (``book/devices.ipynb``)" in " ".join(obj.__doc__.split())
