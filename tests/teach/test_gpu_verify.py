"""tools/gpu_verify.py: it cannot run here (no GPU in CI), but it must load, list its
checks, and refuse a machine without CUDA at once, with a clear message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from ice_teach.verify import gpu as gpu_verify

ROOT = Path(__file__).resolve().parents[2]


def test_every_gpu_only_path_has_a_check():
    names = " | ".join(name for name, _ in gpu_verify.GPU_CHECKS)
    for topic in ("device mismatch", "cap_gpu_memory", "memory_trace", "run_isolated", "GradScaler", "estimate_peak",
                  "map_location", "GradScaler state", "bf16 autocast without GradScaler",
                  "unscale_", "memory snapshot", "expandable_segments", "non_blocking"):
        assert topic in names, f"no GPU check for {topic}"
    assert all(callable(fn) for _, fn in gpu_verify.GPU_CHECKS)


def test_list_runs_nothing_and_works_anywhere(capsys):
    assert gpu_verify.main(["--list"]) == 0
    assert capsys.readouterr().out.count("\n") == len(gpu_verify.GPU_CHECKS)


def test_summary_line_counts_passes_and_failures(capsys):
    def ok():
        return "fine"

    def broken():
        gpu_verify.require(False, "broken on purpose")

    assert gpu_verify.run_checks([("a", ok), ("b", broken), ("c", ok)]) == (2, 1)
    out = capsys.readouterr().out
    assert "PASS  a: fine" in out and "FAIL  b: CheckFailed: broken on purpose" in out


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
@pytest.mark.kernel
def test_refuses_a_machine_without_cuda_at_once():
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gpu_verify.py")],
        capture_output=True, text=True, timeout=120, env=env, cwd=ROOT,
    )
    assert proc.returncode == 2
    assert "CUDA is not available" in proc.stderr
    assert "GPU verification:" not in proc.stdout, "nothing may run without CUDA"


def test_student_editions_get_every_solution_back():
    """The solved student edition holds the lab's solution in every solution cell."""
    import nbformat

    for lab in sorted((ROOT / "labs").glob("lab-*.ipynb")):
        student = Path("student") / lab.name
        nb = gpu_verify.filled_student_edition(Path("labs") / lab.name, student)
        solved = nbformat.read(lab, as_version=4)
        answers = [c.source for c in solved.cells if c.metadata.get("nbgrader", {}).get("solution")]
        mine = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
        assert mine == answers and answers, lab.name
        assert not any("raise NotImplementedError" in s for s in mine), lab.name


@pytest.mark.kernel
def test_a_notebook_runs_in_a_folder_of_its_own_and_every_error_cell_is_named():
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import os\nprint(sorted(os.listdir('.')))"),
        nbformat.v4.new_code_cell("open('../../README.md').read()"),
        nbformat.v4.new_code_cell("1 / 0"),
        nbformat.v4.new_code_cell("print('still runs')"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    with pytest.raises(gpu_verify.CheckFailed, match="2 error cell") as info:
        gpu_verify.execute_bare("probe.ipynb", nb, timeout=60)
    assert "cell 1: FileNotFoundError" in str(info.value)
    assert "cell 2: ZeroDivisionError: division by zero" in str(info.value)
    assert nb.cells[0].outputs[0]["text"] == "['probe.ipynb']\n"
    assert nb.cells[3].outputs[0]["text"] == "still runs\n"
