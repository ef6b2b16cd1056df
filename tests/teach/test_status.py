"""The book's status data (ice_teach/status.py, tests/support/status_plugin.py): it describes the
committed notebooks, it is merged pass by pass, and the GPU and compat states are read
from the files those runs leave, never typed."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
import status_plugin

from ice_teach import notebooks, status

ROOT = Path(__file__).resolve().parents[2]

GPU_LOG = """GPU: NVIDIA H200, torch 2.14.1+cu130
PASS  notebook book/numerics.ipynb: executed in 12.0 s
FAIL  notebook labs/lab-oom.ipynb: NotebookFailed: 1 error cell(s): cell 12: OutOfMemoryError: ...
PASS  device mismatch texts: 3 texts
GPU verification: 2 passed, 1 failed
"""


def _notebook(path: Path, cells: int = 3) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    code = {"cell_type": "code", "source": "1", "metadata": {}, "outputs": []}
    text = {"cell_type": "markdown", "source": "# T", "metadata": {}}
    nb = {
        "cells": [text] + [code] * (cells - 1),
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _ran(seconds: float, result: str = "passed") -> dict:
    return {
        "result": result,
        "seconds": seconds,
        "failed_cells": int(result != "passed"),
    }


# ----------------------------------------------------------------- the committed data
@pytest.mark.skipif(
    bool(os.environ.get("ICE_STATUS_FILE")),
    reason="this run is writing the status data (make test): checked on the next run",
)
def test_status_data_describes_the_committed_notebooks():
    """Fails when a notebook was edited after the `make test` that the committed
    reference/status.json records, or was never tested: run `make test` again (or
    `make test-nb NB=...`, which updates that notebook's entry) and commit the file
    with the notebooks it describes."""
    data = status.load()
    stale = status.changed(data, [str(p) for p in notebooks.notebooks()])
    listing = "\n  ".join(f"{name}: {why}" for name, why in stale.items())
    assert not stale, (
        f"{len(stale)} notebook(s) not described by {status.STATUS_FILE.name}:\n  "
        f"{listing}\nrun make test and commit reference/status.json with them"
    )


def test_status_data_has_a_time_and_a_result_for_every_pass_it_lists():
    data = status.load()
    for name, entry in data["notebooks"].items():
        assert entry["cells"] >= entry["code_cells"] > 0, name
        for pass_id, run in entry["passes"].items():
            assert pass_id in status.PASSES, f"{name}: unknown pass {pass_id}"
            assert run["result"] in ("passed", "failed"), f"{name}: {run['result']}"
            assert run["seconds"] > 0, f"{name}, pass {pass_id}: no time recorded"
            assert len(run["sha256"]) == 64 and run["torch"] and run["date"], name
    for pass_id, run in data["passes"].items():
        assert run["versions"]["torch"] and run["versions"]["python"], pass_id


# --------------------------------------------------------------------- merging passes
def test_passes_merge_and_a_changed_notebook_is_no_longer_current(tmp_path):
    a = _notebook(tmp_path / "book" / "a.ipynb", cells=4)
    b = _notebook(tmp_path / "labs" / "b.ipynb")
    data = status.empty()
    run = {"versions": {"torch": "2.14.1", "python": "3.11.7"}, "device": "CPU"}
    status.record_pass(
        data,
        "1",
        {"book/a.ipynb": _ran(3.04), "labs/b.ipynb": _ran(9)},
        root=tmp_path,
        run=run,
    )
    names = ["book/a.ipynb", "labs/b.ipynb"]
    assert status.changed(data, names, root=tmp_path) == {
        "book/a.ipynb": "pass 2 never ran it",
        "labs/b.ipynb": "pass 2 never ran it",
    }
    # Pass 2 runs only one of them: the other keeps its pass-1 entry.
    status.record_pass(
        data, "2", {"book/a.ipynb": _ran(5, "failed")}, root=tmp_path, run=run
    )
    entry = data["notebooks"]["book/a.ipynb"]
    assert (entry["cells"], entry["code_cells"]) == (4, 3)
    assert (
        entry["passes"]["1"]["seconds"] == 3.0
        and entry["passes"]["1"]["torch"] == "2.14.1"
    )
    assert status.result(entry) == "failed"
    assert status.result(data["notebooks"]["labs/b.ipynb"]) == "not run"
    status.record_pass(data, "2", {"labs/b.ipynb": _ran(4)}, root=tmp_path, run=run)
    assert status.changed(data, names, root=tmp_path) == {}

    a.write_text(a.read_text().replace('"1"', '"2"'))
    assert status.changed(data, names, root=tmp_path) == {
        "book/a.ipynb": f"changed since pass 1 on {status.today()}"
    }
    assert status.changed(data, ["labs/new.ipynb"], root=tmp_path) == {
        "labs/new.ipynb": "never tested"
    }
    assert b.exists()


def test_a_round_trip_through_the_file_and_bad_files_are_named(tmp_path):
    path = tmp_path / "status.json"
    assert status.load(path) == status.empty()
    data = status.empty()
    status.write(data, path)
    assert status.load(path) == data
    path.write_text("{not json")
    with pytest.raises(ValueError, match="status.json is not valid JSON"):
        status.load(path)
    path.write_text('{"schema": 99}')
    with pytest.raises(ValueError, match="not status data of schema"):
        status.load(path)
    with pytest.raises(ValueError, match="ICE_STATUS_PASS"):
        status.record_pass(status.empty(), "3", {}, root=tmp_path)


# --------------------------------------------------------------------------- the plugin
def _report(nodeid: str, when: str, outcome: str, duration: float) -> SimpleNamespace:
    return SimpleNamespace(
        nodeid=nodeid,
        when=when,
        outcome=outcome,
        duration=duration,
        passed=outcome == "passed",
        failed=outcome == "failed",
    )


@pytest.mark.kernel
def test_the_plugin_sums_each_notebooks_cells_and_writes_the_file(tmp_path):
    _notebook(tmp_path / "book" / "a.ipynb")
    _notebook(tmp_path / "labs" / "b.ipynb")
    recorder = status_plugin.StatusRecorder(tmp_path / "status.json", "1", tmp_path)
    for report in [
        _report("book/a.ipynb::Cell 0", "setup", "passed", 1.5),  # the kernel starts
        _report("book/a.ipynb::Cell 0", "call", "passed", 0.5),
        _report("book/a.ipynb::Cell 1", "call", "passed", 1.0),
        _report("labs/b.ipynb::Cell 0", "call", "passed", 2.0),
        _report("labs/b.ipynb::Cell 1", "call", "failed", 0.25),
        _report("tests/test_x.py::test_one", "call", "passed", 0.1),
        _report("tests/test_x.py::test_two", "setup", "skipped", 0.0),
        _report("tests/test_x.py::test_two", "teardown", "passed", 0.0),
    ]:
        recorder.pytest_runtest_logreport(report)
    recorder.pytest_sessionfinish(SimpleNamespace(), 1)
    data = status.load(tmp_path / "status.json")
    a, b = data["notebooks"]["book/a.ipynb"], data["notebooks"]["labs/b.ipynb"]
    assert a["passes"]["1"]["seconds"] == 3.0 and a["passes"]["1"]["result"] == "passed"
    assert (
        b["passes"]["1"]["result"] == "failed" and b["passes"]["1"]["failed_cells"] == 1
    )
    assert data["passes"]["1"]["unit_tests"] == {"passed": 1, "failed": 0, "skipped": 1}
    assert data["passes"]["1"]["versions"]["torch"] != "not installed"
    assert status.changed(data, ["book/a.ipynb"], root=tmp_path) == {
        "book/a.ipynb": "pass 2 never ran it"
    }


def test_a_bare_copy_counts_as_its_notebook(tmp_path):
    """notebooks.bare_copies puts book/a.ipynb at <dest>/book-a/book/a.ipynb, outside
    the root directory: it is recorded as book/a.ipynb, with the copy's hash."""
    copy = _notebook(tmp_path / "bare" / "book-a" / "book" / "a.ipynb")
    recorder = status_plugin.StatusRecorder(
        tmp_path / "status.json", "2", ROOT, started_in=tmp_path / "bare"
    )
    recorder.pytest_runtest_logreport(
        _report("book-a/book/a.ipynb::Cell 0", "call", "passed", 2.0)
    )
    results = recorder.results()
    assert list(results) == ["book/a.ipynb"]
    assert results["book/a.ipynb"]["sha256"] == status.notebook_hash(copy)
    assert results["book/a.ipynb"]["cells"] == 3


def test_the_plugin_refuses_an_unknown_pass(tmp_path):
    with pytest.raises(pytest.UsageError, match="ICE_STATUS_PASS='portable'"):
        status_plugin.StatusRecorder(tmp_path / "s.json", "portable", tmp_path)


# --------------------------------------------------------------------- GPU and compat
def test_gpu_state_comes_from_a_saved_log(tmp_path):
    assert status.gpu_verification(tmp_path) is None
    (tmp_path / "gpu-verify-2026-11-30.log").write_text("GPU: old\n")
    (tmp_path / "gpu-verify-2026-12-01.log").write_text(GPU_LOG)
    found = status.gpu_verification(tmp_path)
    assert found["date"] == "2026-12-01" and found["gpu"] == "NVIDIA H200"
    assert found["torch"] == "2.14.1+cu130" and (found["passed"], found["failed"]) == (
        2,
        1,
    )
    assert found["notebooks_passed"] == ["book/numerics.ipynb"]


def test_compat_results_are_read_when_committed(tmp_path):
    path = tmp_path / "compat.json"
    assert status.compat(path) is None
    path.write_text(
        json.dumps(
            {
                "date": "2026-12-01",
                "versions": [
                    {
                        "torch": "2.6.0",
                        "unit_tests": "1012 passed, 0 failed",
                        "notebooks": "23 of 23",
                        "failed": [],
                    }
                ],
            }
        )
    )
    assert status.compat(path)["versions"][0]["torch"] == "2.6.0"
    path.write_text(json.dumps({"date": "2026-12-01", "versions": {}}))
    with pytest.raises(ValueError, match="'versions' must be a list"):
        status.compat(path)


# ---------------------------------------------------------------- what the build says
@pytest.fixture
def book_status():
    pytest.importorskip("sphinx", reason="the book extra builds the book")
    spec = importlib.util.spec_from_file_location("book_status", ROOT / "_ext" / "book_status.py")
    book_status = importlib.util.module_from_spec(spec)  # Sphinx loads it from _ext/ too
    spec.loader.exec_module(book_status)

    return book_status


def test_the_status_page_says_never_run_on_a_gpu_until_a_log_exists(
    book_status, tmp_path
):
    data = {"status": status.empty(), "gpu": None, "compat": None}
    page = book_status.status_markdown(data)
    assert "**Never run on a GPU.**" in page
    assert "Not run: no result of `make test-compat` is committed." in page
    assert "No `make test` has been recorded yet." in page
    (tmp_path / "gpu-verify-2026-12-01.log").write_text(GPU_LOG)
    data["gpu"] = status.gpu_verification(tmp_path)
    page = book_status.status_markdown(data)
    assert "Never run" not in page
    assert "Last run 2026-12-01 on NVIDIA H200 with PyTorch 2.14.1+cu130" in page
    assert "GPU verification: 2 passed, 1 failed" in page


def test_the_status_page_lists_every_notebook_of_the_toc(book_status):
    data = {"status": status.load(), "gpu": None, "compat": None}
    page = book_status.status_markdown(data)
    for name in notebooks.toc_files():
        if (ROOT / f"{name}.ipynb").exists():
            assert f"{{doc}}`/{name}`" in page, f"{name} missing from the status page"


def test_the_stamp_says_when_where_and_whether_on_a_gpu(book_status, tmp_path):
    page = "book/numerics"
    digest = status.notebook_hash(ROOT / f"{page}.ipynb")
    run = {
        "result": "passed",
        "seconds": 20.0,
        "failed_cells": 0,
        "date": "2026-12-01",
        "sha256": digest,
        "torch": "2.14.1",
        "device": "CPU",
    }
    entry = {"cells": 9, "code_cells": 4, "passes": {"1": run, "2": dict(run)}}
    data = {
        "status": {**status.empty(), "notebooks": {f"{page}.ipynb": entry}},
        "gpu": None,
        "compat": None,
    }
    assert book_status.stamp_text(page, data) == (
        "Executed with PyTorch 2.14.1 on CPU, 2026-12-01",
        "GPU: not yet verified",
    )
    (tmp_path / "gpu-verify-2026-12-02.log").write_text(GPU_LOG)
    data["gpu"] = status.gpu_verification(tmp_path)
    assert book_status.stamp_text(page, data)[1] == "GPU: verified 2026-12-02"
    assert book_status.stamp_text("labs/lab-oom", data) == (
        "Not yet tested by make test",
        "GPU: not yet verified",
    )
    run["sha256"] = "0" * 64
    assert book_status.stamp_text(page, data)[0].endswith(
        "(changed since, not yet tested again)"
    )


def test_the_status_page_shows_colab_start_methods_and_pythons(book_status):
    data = {"status": status.empty(), "gpu": None, "compat": None}
    page = book_status.status_markdown(data)
    for target in ("test-colab", "test-start-methods", "test-python-support"):
        assert f"Not run: no result of `make {target}` is committed." in page
    data["colab"] = {"date": "2026-12-05", "runtimes": [{
        "runtime": "2026.08-gpu", "colab_python": "3.13.15",
        "versions": {"torch": "2.11.0", "ipython": "7.34.0", "ipywidgets": "7.7.1"},
        "setup_cell_changes": "none", "export_cells_changed": ["protobuf 5.29.6 -> 7.0"],
        "notebooks": "notebooks: 33 of 34 ran with no error cell",
        "failed": ["FAIL  notebook labs/lab-x.ipynb: 1 error cell"]}]}
    data["start_methods"] = {"date": "2026-12-05", "python": "3.11.7", "torch": "2.14.1",
                             "notebooks": ["labs/lab-datasets.ipynb"],
                             "passes": [{"method": "spawn-only", "notebooks": "2 of 2"}]}
    data["python_support"] = {"date": "2026-12-05", "executed_here": "3.11.7", "rows": [
        {"python": "3.14", "system": "Windows x86_64", "resolves": True,
         "versions": {"torch": "2.15.0", "numpy": "2.5.5", "onnxruntime": "1.32.0"}},
        {"python": "3.14", "system": "macOS 14 arm64", "resolves": False,
         "why": ["no wheel for onnxruntime"]}]}
    page = book_status.status_markdown(data)
    assert ("| 2026.08-gpu | 3.13.15 | 2.11.0, 7.34.0, 7.7.1 | protobuf 5.29.6 -> 7.0 "
            "| 33 of 34 ran with no error cell |") in page
    assert "failed: FAIL  notebook labs/lab-x.ipynb" in page
    assert "| spawn-only | 2 of 2 |" in page
    assert "| 3.14 | Windows x86_64 | yes | 2.15.0 | 5.5 |" not in page
    assert "| 3.14 | Windows x86_64 | yes | 2.15.0 | 2.5.5 | 1.32.0 |" in page
    assert "| 3.14 | macOS 14 arm64 | no: no wheel for onnxruntime |" in page


def test_the_committed_records_are_read(tmp_path):
    for name in status.RECORDS:
        found = status.record(name)
        assert found is None or isinstance(found["date"], str)
