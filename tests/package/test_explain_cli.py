"""``ice-lab explain LOG``: the error of a log, a torchrun job's failing rank included.

The torchrun logs are real: two ranks on gloo (CPU) run under ``ice_lab.distributed``'s
``torchrun`` at test time, one script without ``@record`` (tests/package/explain_logs/ddp_shape.py)
and the Distributed chapter's ``scripts/ddp_fail.py`` (written from the chapter's
``%%writefile`` cell) with it.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ice_lab.distributed import torchrun
from ice_lab.explainer import cli
from ice_lab.explainer.logs import find_errors, root_cause
from notebook_scripts import write_scripts

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _job_log(script: Path) -> str:
    run = torchrun(str(script), nproc_per_node=2, timeout=120)
    assert run.returncode != 0, "the job was meant to fail"
    return run.stdout + run.stderr


@pytest.fixture(scope="module")
def shape_log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("logs") / "shape.log"
    path.write_text(_job_log(HERE / "explain_logs" / "ddp_shape.py"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def record_log(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    scripts = {p.name: p for p in write_scripts(ROOT / "book" / "distributed.ipynb", folder)}
    path = folder / "record.log"
    path.write_text(_job_log(scripts["ddp_fail.py"]), encoding="utf-8")
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.kernel
def test_torchrun_log_names_the_failing_ranks_root_cause(shape_log, capsys):
    text = shape_log.read_text(encoding="utf-8")
    # the launcher's own traceback is last; rank 0's consequence ("Connection closed by
    # peer") comes after rank 1's error when rank 0 reaches all_reduce before its SIGTERM
    assert "ChildFailedError" in text and text.rindex("ChildFailedError") > text.index("3x5")
    code, out, _ = _run(capsys, str(shape_log))
    assert code == 0
    assert "(rank 1, the root cause torchrun reports)" in out
    assert "[shape_mismatch]" in out and "(3x5 and 4x2)" in out and "Read: book/tensors" in out
    assert "Connection closed" not in out and "ChildFailedError" not in out


@pytest.mark.kernel
def test_record_log_names_rank_1s_error(record_log, capsys):
    code, out, _ = _run(capsys, str(record_log))
    assert "rank 1, the root cause torchrun reports" in out
    assert "ValueError: a batch with NaN reached the model" in out
    assert "[nonfinite]" in out and code == 0


@pytest.mark.kernel
def test_the_report_alone_is_enough_when_ranks_print_elsewhere(record_log):
    # keep only torchrun's own output (the ranks' lines went to other files)
    text = "\n".join(ln for ln in record_log.read_text(encoding="utf-8").splitlines()
                     if not ln.startswith("[rank"))
    chosen, rank = root_cause(text, find_errors(text))
    assert rank == 1 and chosen is not None and not chosen.launcher
    assert chosen.text.splitlines()[-1].startswith("ValueError: a batch with NaN")


@pytest.mark.kernel
def test_all_explains_each_distinct_error_and_marks_the_root(shape_log, capsys):
    code, out, _ = _run(capsys, "--all", str(shape_log))
    assert code == 0 and out.count("<- the root cause") == 1 and "[shape_mismatch]" in out
    if "Connection closed by peer" in shape_log.read_text(encoding="utf-8"):
        assert "Connection closed by peer" in out and out.count("-" * 60) == 1
    assert "ChildFailedError" not in out


@pytest.mark.kernel
def test_json_for_tools(shape_log, capsys):
    code, out, _ = _run(capsys, "--json", "--all", str(shape_log))
    data = json.loads(out)
    assert code == 0 and data["recognised"] is True and data["root_cause_rank"] == 1
    roots = [e for e in data["errors"] if e["root_cause"]]
    assert len(roots) == 1 and roots[0]["kind"] == "shape_mismatch" and roots[0]["rank"] == 1
    assert roots[0]["chapter"].startswith("book/tensors.ipynb#") and roots[0]["line"] >= 1


@pytest.mark.kernel
def test_standard_input_and_python_dash_m(tmp_path):
    log = "step 1 loss 0.7\nTraceback (most recent call last):\n  File \"t.py\", line 3\n" \
          "RuntimeError: Expected all tensors to be on the same device, but found at least " \
          "two devices, cuda:0 and cpu!\n"
    done = subprocess.run([sys.executable, "-m", "ice_lab", "explain", "-"], input=log,
                          capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "standard input, line 2" in done.stdout and "[device_mismatch]" in done.stdout


def test_the_last_traceback_of_a_plain_log_with_logger_prefixes(tmp_path, capsys):
    log = tmp_path / "train.log"
    log.write_text(
        "2025-01-17 13:06:33,428 - root - INFO - epoch 1\n"
        "2025-01-17 13:06:34,000 - root - ERROR - Traceback (most recent call last):\n"
        '  File "train.py", line 9, in <module>\n'
        "ValueError: Expected input batch_size (8) to match target batch_size (4).\n"
        "2025-01-17 13:06:35,000 - root - INFO - retrying\n"
        "2025-01-17 13:06:38,462 - root - ERROR - !!! Exception during processing !!! "
        "mat1 and mat2 shapes cannot be multiplied (9x3584 and 4096x5120)\n"
        "2025-01-17 13:06:39,000 - root - INFO - done\n", encoding="utf-8")
    code, out, _ = _run(capsys, str(log))
    assert code == 0 and "line 6" in out and "[shape_mismatch]" in out
    code, out, _ = _run(capsys, "--all", str(log))
    assert out.count("-" * 60) == 1 and "line 2" in out


def test_unrecognised_and_errorless_logs_exit_1(tmp_path, capsys):
    quiet = tmp_path / "quiet.log"
    quiet.write_text("epoch 1 loss 0.5\nepoch 2 loss 0.4\n", encoding="utf-8")
    code, out, _ = _run(capsys, str(quiet))
    assert code == 1 and "no traceback or error line found" in out
    odd = tmp_path / "odd.log"
    odd.write_text("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                   "KeyError: 'learning_rate'\n", encoding="utf-8")
    code, out, _ = _run(capsys, str(odd))
    assert code == 1 and "[unknown]" in out and "KeyError: 'learning_rate'" in out


@pytest.mark.parametrize("content, words", [
    (b"", "is empty"), (b"   \n\n", "is empty"),
    (b"PK\x03\x04\x00\x00binary\x00data", "not a text log"),
    (bytes(range(256)) * 8, "not a text log"),
])
def test_empty_or_binary_files_are_refused_clearly(tmp_path, capsys, content, words):
    path = tmp_path / "thing.log"
    path.write_bytes(content)
    code, out, err = _run(capsys, str(path))
    assert code == 2 and words in err and not out


def test_missing_file_folder_and_usage(tmp_path, capsys):
    code, _, err = _run(capsys, str(tmp_path / "nope.log"))
    assert code == 2 and "cannot read" in err
    code, _, err = _run(capsys, str(tmp_path))
    assert code == 2 and "folder" in err
    code, _, err = _run(capsys)
    assert code == 2 and "usage" in err


def test_never_crashes_on_random_logs(tmp_path, capsys):
    rng = random.Random(0)
    words = ["Traceback (most recent call last):", '  File "a.py", line 1', "[rank1]:",
             "[rank0]: ", "RuntimeError:", "Error", "!!!", "ChildFailedError:\n=====",
             "Root Cause (first observed failure):", "rank      : 7", "\n", "    ", "é",
             "2024-01-01 00:00:00,1 - root - ERROR - ", "mat1 and mat2 shapes", "(2x3"]
    for i in range(60):
        path = tmp_path / f"r{i}.log"
        path.write_text("x" + " ".join(rng.choice(words) for _ in range(rng.randint(1, 300))),
                        encoding="utf-8")
        assert cli.main([str(path)]) in (0, 1)
        assert cli.main(["--all", "--json", str(path)]) in (0, 1)
    capsys.readouterr()
