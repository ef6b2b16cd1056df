"""The flake8 plugin: ``flake8 --select ICE`` runs ice_lab's lint rules (book/debugging.ipynb).

Registered as the ``ICE`` entry point of ``flake8.extension``; flake8 hands it the
parsed tree and does ``--select``, ``--ignore`` and ``# noqa`` itself.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

from .. import __version__
from .engine import check_tree


class Plugin:
    """flake8's view of ``ice_lab.lint`` (book/debugging.ipynb): a tree in, findings out."""

    name = "ice-lab-lint"
    version = __version__

    def __init__(self, tree: ast.Module, filename: str = "") -> None:
        self.tree = tree
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        folder = Path(self.filename).parent if self.filename not in {"", "-", "stdin"} else None
        if folder is not None and not folder.is_dir():
            folder = None
        for line, col, code, message in check_tree(self.tree, folder):
            if code != "ICE100":
                yield line, col, f"{code} {message}", type(self)
