"""tools/gpu_verify.py (ice_teach/verify/gpu.py) and the GPU tests in tests/gpu: they
cannot run here (no GPU in CI), but the script must load, list the GPU tests, refuse a
machine without CUDA at once with a clear message, and count pytest's JUnit report
right; here the GPU tests are collected and skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from ice_teach.verify import compat
from ice_teach.verify import gpu as gpu_verify
from ice_teach.verify import junit

ROOT = Path(__file__).resolve().parents[2]

#: What CUDA does that the book quotes: each needs a GPU test (named by its test).
TOPICS = ("device_mismatch", "cap_gpu_memory", "memory_trace", "run_isolated",
          "gradscaler", "estimate_peak", "matmul", "map_location",
          "gradscaler_state", "export_on_cuda", "bf16_autocast_without_gradscaler",
          "unscale", "memory_snapshot", "expandable_segments", "non_blocking")

#: A report as pytest writes it (``--junitxml``, ``-o junit_logging=system-out``): a
#: pass that printed its figures, a failed assert, an error in a fixture, a skip, and a
#: test that failed and then errored at teardown (pytest writes it twice).
REPORT = """<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">
<testsuite name="pytest" errors="2" failures="2" skipped="1" tests="6">
<testcase classname="tests.gpu.test_gpu_behaviour" name="test_ok" time="0.1">
<system-out>---------------- Captured Out ----------------
fp32 50.1, TF32 400.2, bf16 700.3 TFLOP/s

</system-out></testcase>
<testcase classname="tests.gpu.test_gpu_behaviour" name="test_broken" time="0.1">
<failure
 message="AssertionError: estimate 10.0 vs 20.0 MiB&#10;assert 0.5 &lt;= 0.05">
traceback</failure></testcase>
<testcase classname="tests.gpu.test_gpu_memory" name="test_fixture" time="0.0">
<error
 message="failed on setup with &quot;RuntimeError: no device&quot;">traceback</error>
</testcase>
<testcase classname="tests.gpu.test_gpu_memory" name="test_old_gpu" time="0.0">
<skipped type="pytest.skip" message="this GPU has no bf16">reason</skipped></testcase>
<testcase classname="tests.gpu.test_gpu_memory" name="test_twice" time="0.0">
<failure message="AssertionError: first">traceback</failure></testcase>
<testcase classname="tests.gpu.test_gpu_memory" name="test_twice" time="0.0">
<error message="failed on teardown with &quot;RuntimeError: then&quot;">tb</error>
</testcase>
</testsuite></testsuites>
"""


def test_a_junit_report_is_counted_by_test(tmp_path, capsys):
    path = tmp_path / "report.xml"
    path.write_text(REPORT, encoding="utf-8")
    cases = junit.read_junit(path)
    assert [c.name for c in cases] == [
        "test_gpu_behaviour::test_ok", "test_gpu_behaviour::test_broken",
        "test_gpu_memory::test_fixture", "test_gpu_memory::test_old_gpu",
        "test_gpu_memory::test_twice"]
    assert junit.count(cases) == {"passed": 1, "failed": 2, "error": 1, "skipped": 1}
    assert cases[0].output == "fp32 50.1, TF32 400.2, bf16 700.3 TFLOP/s"
    assert gpu_verify.report_cases(cases) == (1, 3)  # an error fails; a skip is neither
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "PASS  test_gpu_behaviour::test_ok: fp32 50.1, TF32 400.2, bf16 700.3 TFLOP/s",
        "FAIL  test_gpu_behaviour::test_broken: AssertionError: estimate 10.0 vs "
        "20.0 MiB",
        'FAIL  error in test_gpu_memory::test_fixture: failed on setup with '
        '"RuntimeError: no device"',
        "SKIP  test_gpu_memory::test_old_gpu: this GPU has no bf16",
        "FAIL  test_gpu_memory::test_twice: AssertionError: first",
    ]


def test_compat_counts_the_unit_tests_from_the_junit_report(monkeypatch):
    """compat.unit_tests reads pytest's report, not its text: here a stand-in for the
    other venv's pytest writes the report above, and a summary line that says
    otherwise."""
    def fake_run(cmd, **kwargs):
        Path(cmd[cmd.index("--junitxml") + 1]).write_text(REPORT, encoding="utf-8")
        return subprocess.CompletedProcess(cmd, 1, stdout="= 99 passed in 1.0s =\n")

    monkeypatch.setattr(compat, "_run", fake_run)
    assert compat.unit_tests(Path("python")) == "1 passed, 3 failed"

    def no_report(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 4, stdout="ERROR: file not found: x\n")

    monkeypatch.setattr(compat, "_run", no_report)
    assert compat.unit_tests(Path("python")) == "did not run: ERROR: file not found: x"


@pytest.mark.kernel
def test_list_names_every_gpu_test_and_runs_none(capsys):
    assert gpu_verify.main(["--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed and all(
        line.startswith("tests/gpu/test_") and "::test_" in line for line in listed
    ), listed
    names = " ".join(listed).lower()
    for topic in TOPICS:
        assert topic in names, f"no GPU test for {topic}"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
@pytest.mark.kernel
def test_the_gpu_tests_are_collected_and_skipped_without_cuda(capfd):
    """What gpu_verify runs after the notebooks: pytest over tests/gpu with a JUnit
    report; without CUDA every test is there, and skipped."""
    code, listed = gpu_verify.list_gpu_tests()
    assert code == 0 and listed
    capfd.readouterr()
    assert gpu_verify.run_gpu_tests() == (0, 0)
    out = capfd.readouterr().out
    skipped = [line for line in out.splitlines() if line.startswith("SKIP  ")]
    expected = [f"SKIP  {Path(node.split('::')[0]).stem}::{node.split('::')[1]}: "
                "needs a CUDA GPU" for node in listed]
    assert skipped == expected, out[-3000:]
    assert "PASS  " not in out and "FAIL  " not in out


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
        answers = [c.source for c in solved.cells
                   if c.metadata.get("nbgrader", {}).get("solution")]
        mine = [c.source for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("solution")]
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
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    with pytest.raises(gpu_verify.NotebookFailed, match="2 error cell") as info:
        gpu_verify.execute_bare("probe.ipynb", nb, timeout=60)
    assert "cell 1: FileNotFoundError" in str(info.value)
    assert "cell 2: ZeroDivisionError: division by zero" in str(info.value)
    assert nb.cells[0].outputs[0]["text"] == "['probe.ipynb']\n"
    assert nb.cells[3].outputs[0]["text"] == "still runs\n"
