"""`make test` is strict: a changed printed value or a provocation that stops failing fails it.

Each case copies a small notebook to a temporary folder, alters it, and runs the same
nbval options as the Makefile (ice_teach/settings.py) in a child pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from ice_teach import settings

pytestmark = pytest.mark.kernel  # every test here starts a kernel or a child process

ROOT = Path(__file__).resolve().parents[2]



def run_nbval(path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, **settings.EXECUTION_ENV}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path), *settings.nbval_options()],
        capture_output=True, text=True, timeout=300, cwd=path.parent, env=env,
    )


def small_notebook(source: str, output: str | None) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cell = nbformat.v4.new_code_cell(source, execution_count=1)
    if output is not None:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=output)]
    nb.cells = [cell]
    return nb


def test_unchanged_notebook_passes(tmp_path):
    path = tmp_path / "ok.ipynb"
    nbformat.write(small_notebook("print(6 * 7)", "42\n"), path)
    result = run_nbval(path)
    assert result.returncode == 0, result.stdout


def test_a_changed_printed_value_fails(tmp_path):
    path = tmp_path / "changed.ipynb"
    nbformat.write(small_notebook("print(6 * 7)", "41\n"), path)
    result = run_nbval(path)
    assert result.returncode != 0 and "Cell outputs differ" in result.stdout


def test_a_provocation_that_stops_failing_fails(tmp_path):
    line = "Provoked as expected (a dtype error) -> RuntimeError: mat1 and mat2 must have the same dtype\n"
    source = (
        "import torch\nfrom ice_lab import expect\n"
        "with expect(RuntimeError, match='same dtype', what='a dtype error'):\n"
        "    torch.nn.Linear(3, 1)(torch.zeros(2, 3))  # float32 now: nothing fails\n"
    )
    path = tmp_path / "stopped.ipynb"
    nbformat.write(small_notebook(source, line), path)
    result = run_nbval(path)
    assert result.returncode != 0 and "ran without error" in result.stdout
