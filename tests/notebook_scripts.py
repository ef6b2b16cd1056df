"""The scripts a notebook writes beside itself (cells that begin ``%%writefile PATH``).

The Distributed chapter and lab keep their torchrun scripts in such cells, so that each
notebook runs from a folder that holds only itself. Tests that need the scripts take them
from the notebook, never from a second copy.
"""

from __future__ import annotations

from pathlib import Path

import nbformat


def writefile_cells(notebook: str | Path) -> dict[str, str]:
    """``{path as written: source}`` for every ``%%writefile`` cell of ``notebook``."""
    nb = nbformat.read(str(notebook), as_version=4)
    found: dict[str, str] = {}
    for cell in nb.cells:
        first, _, body = cell.source.partition("\n")
        if cell.cell_type == "code" and first.startswith("%%writefile "):
            found[first.split(maxsplit=1)[1].strip()] = body + "\n"
    return found


def write_scripts(notebook: str | Path, folder: Path) -> list[Path]:
    """Write the notebook's ``%%writefile`` scripts under ``folder``, as the notebook
    would in its own folder; return their paths."""
    written = []
    for rel, source in writefile_cells(notebook).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        written.append(path)
    return written
