"""Installing ice_lab into Colab's runtimes changes nothing Colab ships (ice_teach/verify/colab.py).

The runtimes' package lists are committed under reference/colab/. The setup cell of every
notebook runs ``pip install "ice_lab @ git+..."`` there: pip leaves a preinstalled package
alone only when it already satisfies what ice_lab asks for, so each range in pyproject.toml
must accept every committed runtime's version (ipywidgets 7.7.1: Colab's front end draws no
ipywidgets 8 widget).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.version import Version

from ice_teach import notebooks
from ice_teach.verify import colab
from ice_teach.verify import start_methods

ROOT = Path(__file__).resolve().parents[2]

RUNTIMES = colab.runtimes()


def test_the_current_and_the_oldest_runtime_are_committed():
    names = [p.stem for p in RUNTIMES]
    assert len(names) >= 2, names
    for path in RUNTIMES:
        header, packages = colab.read_runtime(path)
        assert header.get("source") and header.get("python"), f"{path.name}: header"
        for name in ("torch", "ipywidgets", "ipython", "ipykernel", "numpy"):
            assert name in packages, f"{path.name} lists no {name}"


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda p: p.stem)
def test_every_requirement_is_met_by_what_the_runtime_ships(runtime):
    header, packages = colab.read_runtime(runtime)
    env = dict(default_environment(), python_version=".".join(header["python"].split(".")[:2]),
               python_full_version=header["python"])
    unmet = []
    for line in colab.declared_requirements():
        req = Requirement(line)
        if req.marker and not req.marker.evaluate(env):
            continue
        have = packages.get(colab.canonical(req.name))
        if have is None or not req.specifier.contains(Version(have), prereleases=True):
            unmet.append(f"{line} (the runtime has {have or 'none'})")
    assert not unmet, (f"pip would install or replace on Colab {runtime.stem}: {unmet}; "
                       "widen the range in pyproject.toml")


@pytest.mark.kernel
@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda p: p.stem)
def test_pip_finds_nothing_to_install_in_the_runtime(runtime):
    """pip itself, offline, against a stand-in of the runtime's installed packages."""
    assert colab.install_check(runtime) == []


@pytest.mark.kernel
def test_the_pip_check_sees_a_package_it_would_replace():
    runtime = next(p for p in RUNTIMES if p.stem.startswith("2025.07"))
    problems = colab.install_check(runtime, ["ipywidgets>=8", "tqdm>=4.60"])
    assert problems and "ipywidgets>=8" in " ".join(problems), problems


def test_the_setup_cell_never_pins_or_upgrades_torch():
    source = notebooks.setup_cell_source()
    assert "%pip install" in source and "google.colab" in source
    for word in ("torch", "--upgrade", " -U", "--force-reinstall", "==", "--no-deps"):
        assert word not in source.replace("tensor-of-ice", ""), word


def test_a_freeze_list_keeps_versions_from_file_names():
    lines, skipped = colab.freeze_to_list(
        "# comment\n"
        "torch @ https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp311-cp311-"
        "linux_x86_64.whl\n"
        "google-colab @ file:///colabtools/dist/google_colab-1.0.0.tar.gz\n"
        "en_core_web_sm @ https://example.org/en_core_web_sm-3.8.0-py3-none-any.whl"
        "#sha256=00\n"
        "jupyter_kernel_gateway @ git+https://example.org/kernel_gateway@b134e99\n"
        "ipywidgets==7.7.1\n")
    assert lines == ["en_core_web_sm==3.8.0", "google-colab==1.0.0", "ipywidgets==7.7.1",
                     "torch==2.6.0+cu124"]
    assert skipped == ["jupyter_kernel_gateway @ git+https://example.org/kernel_gateway@b134e99"]


def test_a_runtime_list_with_a_bad_line_is_refused(tmp_path):
    bad = tmp_path / "x.txt"
    bad.write_text("# python: 3.11\ntorch>=2\n")
    with pytest.raises(ValueError, match="name==version"):
        colab.read_runtime(bad)


def test_an_unknown_runtime_name_says_which_exist():
    with pytest.raises(SystemExit, match="2025.07-gpu"):
        colab.runtimes(["1999.01"])


@pytest.mark.kernel
def test_the_windows_startup_file_leaves_spawn_alone():
    code = start_methods.STARTUP["spawn-only"] + (
        "import multiprocessing\n"
        "assert multiprocessing.get_start_method() == 'spawn'\n"
        "assert multiprocessing.get_all_start_methods() == ['spawn']\n"
        "try:\n    multiprocessing.get_context('fork')\n"
        "except ValueError as e:\n    print(e)\n"
        "import torch.multiprocessing\n"
        "assert torch.multiprocessing.get_all_start_methods() == ['spawn']\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "cannot find context for 'fork'"


def test_the_notebooks_that_start_processes_are_found():
    chosen = {str(p) for p in start_methods.chosen()}
    assert {"book/datasets.ipynb", "labs/lab-datasets.ipynb",
            "labs/lab-distributed.ipynb", "book/toolkit.ipynb"} <= chosen
    assert "labs/lab-nan.ipynb" not in chosen


@pytest.mark.kernel
def test_the_bare_runner_runs_each_notebook_with_the_startup_file(tmp_path):
    """ice_teach.verify.bare, as make test-colab and make test-compat start it: from a
    checkout, in a venv's Python, every kernel running the IPython startup file first."""
    import nbformat

    from ice_teach.verify import bare as execute_bare

    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "ice_teach", repo / "ice_teach",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "labs").mkdir()
    (repo / "book").mkdir()
    cells = {"colab_seen": "import sys\nassert 'google.colab' in sys.modules",
             "fails": "raise ValueError('on purpose')"}
    for name, code in cells.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
        nbformat.write(nb, repo / "book" / f"{name}.ipynb")
    ipython = execute_bare.ipython_startup(tmp_path / "ipython", colab.COLAB_STARTUP)
    summary, failed = execute_bare.execute_in(
        Path(sys.executable), repo, ["--first", "colab_seen.ipynb"],
        env={"IPYTHONDIR": str(ipython)})
    assert summary == "notebooks: 1 of 2 ran with no error cell", summary
    assert len(failed) == 1 and "book/fails.ipynb" in failed[0]
    assert "ValueError: on purpose" in failed[0]
