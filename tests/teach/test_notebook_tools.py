"""ice_teach/notebooks.py, the authors' tools: _toc.yml's pages and parts, the setup
cell, and the execution environment and nbval options make's recipes run with
(ice_teach/settings.py)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from ice_teach import notebooks, settings

ROOT = Path(__file__).resolve().parents[2]


def test_toc_entries_give_each_page_its_part():
    """One walker of _toc.yml (the status page's parts and the file list read it)."""
    entries = notebooks.toc_entries()
    assert [page for page, _ in entries] == notebooks.toc_files()
    assert entries[0] == ("book/intro", "")  # the root is in no part
    parts = dict(entries)
    assert parts["book/tensors"] == parts["labs/lab-tensors"] == "Tensors"
    assert all(parts[page] for page in parts if page.startswith("labs/"))


def test_setup_cell_uses_the_configured_repository():
    assert notebooks.repository_url() in notebooks.setup_cell_source()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# T")]
    assert notebooks.sync_setup_cell(nb) is True
    assert nb.cells[0].source == notebooks.setup_cell_source()
    assert notebooks.sync_setup_cell(nb) is False


@pytest.mark.kernel  # runs make
def test_make_runs_with_the_one_execution_environment_and_nbval_options():
    """What make's recipes see: ice_teach/settings.py's environment and nbval
    options."""
    if shutil.which("make") is None:
        pytest.skip("no make")
    shown = subprocess.run(
        ["make", "-s", "--eval", "ice-show-settings: ; @env; echo NBVAL=$(NBVAL)",
         "ice-show-settings"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        check=True).stdout.splitlines()
    env = dict(line.split("=", 1) for line in shown if "=" in line)
    shown_env = {name: env.get(name) for name in settings.EXECUTION_ENV}
    assert shown_env == settings.EXECUTION_ENV
    assert shlex.split(env["NBVAL"]) == settings.nbval_options()
