"""The scripts a notebook writes beside itself (cells that begin ``%%writefile PATH``).

The Distributed chapter and lab keep their torchrun scripts in such cells, so that each
notebook runs from a folder that holds only itself. Tests that need the scripts take them
from the notebook, never from a second copy.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from ice_lab.lint import writefile_cells  # the one reader of %%writefile cells


def write_scripts(notebook: str | Path, folder: Path) -> list[Path]:
    """Write the notebook's ``%%writefile`` scripts under ``folder``, as the notebook
    would in its own folder; return their paths."""
    written = []
    for rel, source in writefile_cells(nbformat.read(str(notebook), as_version=4)).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        written.append(path)
    return written
