"""ice_lab.distributed: real torchrun jobs, and nothing of them left running afterwards.

Every job runs scripts copied into the test's own temporary folder, so the check that no
process is left looks only for processes of this test (a notebook running the chapter's
scripts at the same time is not mistaken for a leftover). No assertion on elapsed time:
waits are bounded by ``timeout=`` only.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import psutil
import pytest
import torch
import torch.distributed as dist

from ice_lab import distributed
from ice_lab.distributed import TorchrunResult, torchrun
from notebook_scripts import write_scripts

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(
        not (dist.is_available() and dist.is_gloo_available()),
        reason="no gloo backend in this torch build",
    ),
]


def processes_mentioning(text: str) -> list[str]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmdline = " ".join(proc.info["cmdline"] or [])
        except psutil.Error:
            continue
        if text in cmdline and proc.pid != psutil.Process().pid:
            found.append(cmdline)
    return found


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder with the chapter's scripts in scripts/ (as its %%writefile cells write
    them), as the working directory; after the test, no process started from it may be
    alive."""
    assert len(write_scripts(ROOT / "book" / "distributed.ipynb", tmp_path)) == 5
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    left = processes_mentioning(str(tmp_path))
    assert not left, f"processes of the job outlived it: {left}"


def write(path: Path, source: str) -> str:
    path.write_text(textwrap.dedent(source))
    return path.name


def test_ddp_matches_one_process_and_only_rank_zero_prints_and_saves(workdir):
    out = workdir / "out"
    out.mkdir()
    run = torchrun("scripts/ddp_train.py", str(out), timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.command == f"torchrun --standalone --nproc_per_node=2 scripts/ddp_train.py {out}"
    lines = run.stdout.splitlines()
    assert lines[:2] == [
        "rank 0: LOCAL_RANK=0, device cpu, samples [0, 2, 4, 6]",
        "rank 1: LOCAL_RANK=1, device cpu, samples [1, 3, 5, 7]",
    ]
    assert "gradients allclose to one process on the global batch: True" in lines
    assert "weights allclose after 3 steps: True" in lines
    assert len(lines) == len(set(lines)), "every line once: only rank 0 prints"
    assert sorted(p.name for p in out.iterdir()) == ["ddp_state.pt", "model_state.pt"]
    assert sorted(torch.load(out / "ddp_state.pt")) == ["module.bias", "module.weight"]
    assert sorted(torch.load(out / "model_state.pt")) == ["bias", "weight"]
    assert run.root_cause() == "" and not run.timed_out and run.leftover == 0


def test_a_failing_rank_is_the_root_cause_and_the_other_rank_is_stopped(workdir):
    run = torchrun("scripts/ddp_fail.py", timeout=120)
    assert run.returncode != 0 and not run.timed_out
    cause = run.root_cause()
    assert "rank      : 1 (local_rank: 1)" in cause
    assert "ValueError: a batch with NaN reached the model" in cause
    assert 'File "scripts/ddp_fail.py"' in cause, "@record put the traceback in the report"
    assert "rank 0 finished" not in run.stdout
    assert run.leftover == 0


def test_a_timeout_stops_torchrun_and_every_rank(workdir):
    name = write(workdir / "sleeper.py", """
        import time
        print("started", flush=True)
        time.sleep(600)
    """)
    run = torchrun(name, timeout=5)
    assert run.timed_out
    assert run.returncode != 0
    assert run.leftover == 0, "torchrun stops its ranks when it gets SIGTERM"


def test_a_process_the_job_leaves_behind_is_found_and_killed(workdir):
    name = write(workdir / "orphan.py", f"""
        import os, subprocess
        if os.environ["RANK"] == "0":  # a helper in its own session: torchrun misses it
            subprocess.Popen([{sys.executable!r}, "-c", "import time; time.sleep(600)"],
                             start_new_session=True)
    """)
    run = torchrun(name, nproc_per_node=2, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.leftover == 1


def test_output_is_cleaned_of_what_differs_between_machines(workdir):
    # What torchrun's report and the ranks print that differs between machines and runs:
    # printed by a real job, read back from the result torchrun() returns.
    name = write(workdir / "noisy.py", """
        import os, sys, sysconfig, tempfile
        site, here = sysconfig.get_paths()["purelib"], os.getcwd()
        text = "\\n".join([
            f'  File "{site}/torch/distributed/run.py", line 3',
            f'  File "{here}/scripts/x.py", line 9',
            "  time      : 2026-12-01_01:04:50",
            "  host      : node-17.example.org",
            "  exitcode  : 1 (pid: 6949)",
            f"  error_file: {tempfile.gettempdir()}/torchelastic_ab/none_x/attempt_0/1/error.json",
            "W1201 01:05:23.184000 7238 torch/api.py:1028] Sending process 7252 closing signal",
            "Connection closed by peer [127.0.0.1]:63909.",
        ])
        print(text, flush=True)
        print(text, file=sys.stderr, flush=True)
    """)
    run = torchrun(name, nproc_per_node=1, timeout=120)
    assert run.returncode == 0, run.stderr
    cleaned = [
        '  File "<site-packages>/torch/distributed/run.py", line 3',
        '  File "scripts/x.py", line 9',
        "  time      : <time>",
        "  host      : <host>",
        "  exitcode  : 1 (pid: <pid>)",
        "  error_file: <tmp>/error.json",
        "W torch/api.py:1028] Sending process <pid> closing signal",
        "Connection closed by peer [127.0.0.1]:<port>.",
    ]
    for out in (run.stdout, run.stderr):  # both are cleaned
        assert [line for line in out.splitlines() if line in cleaned] == cleaned, out
        for raw in (str(workdir), "6949", "7252", "node-17", "63909", "2026-12-01"):
            assert raw not in out


def test_root_cause_is_the_block_after_its_heading():
    stderr = "noise\n====\nFailures:\n  <NO_OTHER_FAILURES>\n----\nRoot Cause (first observed failure):\n[0]:\n  rank : 1\n====\n"
    result = TorchrunResult(command="", returncode=1, stdout="", stderr=stderr)
    assert result.root_cause() == "Root Cause (first observed failure):\n[0]:\n  rank : 1"


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"script": "no_such_script.py"}, FileNotFoundError, "no script 'no_such_script.py'"),
        ({"nproc_per_node": 0}, ValueError, "nproc_per_node must be"),
        ({"nproc_per_node": 2.0}, TypeError, "nproc_per_node must be a whole number"),
        ({"nproc_per_node": True}, TypeError, "nproc_per_node must be a whole number"),
        ({"nproc_per_node": 9}, ValueError, "nproc_per_node must be at most 8, got 9"),
        ({"timeout": 0}, ValueError, "timeout must be a positive"),
        ({"timeout": -1.0}, ValueError, "timeout must be a positive"),
        ({"timeout": float("inf")}, ValueError, "timeout must be a finite number"),
        ({"timeout": "2"}, TypeError, "timeout must be a number of seconds"),
        ({"timeout": True}, TypeError, "timeout must be a number of seconds"),
    ],
)
def test_bad_arguments_are_refused_before_anything_starts(workdir, kwargs, error, match):
    kwargs = {"script": "scripts/ddp_sampler.py", **kwargs}
    with pytest.raises(error, match=match):
        torchrun(kwargs.pop("script"), **kwargs)


@pytest.mark.parametrize("gpus, hidden", [(0, False), (1, True), (2, False), (4, False)])
def test_fewer_gpus_than_ranks_runs_the_job_on_the_cpu(workdir, monkeypatch, gpus, hidden):
    """One GPU and two ranks: the job gets CUDA_VISIBLE_DEVICES="" instead of a rank
    asking for cuda:1; with none, or one per rank, the environment is left alone."""
    monkeypatch.setattr(distributed, "_visible_gpus", lambda: gpus)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "kept")
    script = write(workdir / "env.py", """
        import os
        import sys
        # one write per line: the ranks share stdout, unbuffered (print() writes each
        # argument, the space and the newline separately, and two ranks interleave)
        rank, visible = os.environ["LOCAL_RANK"], os.environ.get("CUDA_VISIBLE_DEVICES")
        sys.stdout.write(f"{rank} {visible!r}\\n")
    """)
    run = torchrun(script, timeout=120)
    assert run.ok, run.stderr
    assert run.gpus_hidden is hidden
    expected = "''" if hidden else "'kept'"
    assert sorted(run.stdout.split("\n"))[-2:] == [f"0 {expected}", f"1 {expected}"]
