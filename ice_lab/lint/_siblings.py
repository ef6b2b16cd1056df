"""What a script imports from the files beside it (book/debugging.ipynb, 'Lint before you
run').

``from model import Net`` in ``train.py``: when ``model.py`` (or ``pkg/model.py`` for
``from pkg.model import Net``) lies in the same folder, the data-flow model of
``train.py`` learns what ``Net`` is (a module, and what its ``forward`` returns) from that
file's own data-flow model. Only names a script imports explicitly are followed, one
level deep; the sibling files are parsed once per run.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from ._ast import Source
from .flow import Flow

__all__ = ["attach_siblings"]

_FLOWS: dict[tuple[Path, float], Flow | None] = {}
#: Packages a script imports that are never a file beside it.
LIBRARIES = set(sys.stdlib_module_names) | {
    "torch", "torchvision", "torchaudio", "torchtext", "numpy", "scipy", "sklearn",
    "pandas", "matplotlib", "seaborn", "tqdm", "PIL", "cv2", "transformers", "datasets",
    "lightning", "pytorch_lightning", "timm", "wandb", "ice_lab"}


def attach_siblings(src: Source, folder: Path) -> None:
    """Record on ``src`` the classes and functions it imports from files in ``folder``
    (book/debugging.ipynb)."""
    found: dict[str, tuple[Flow, str]] = {}
    for node in src.of_type(ast.ImportFrom):
        if not node.module or node.level > 1 or node.level == 0 and node.module.split(
                ".")[0] in LIBRARIES:
            continue
        flow = _flow_of_file(folder / (node.module.replace(".", "/") + ".py"))
        if flow is None:
            continue
        for alias in node.names:
            if alias.name in flow.classes or alias.name in flow.src.functions:
                found[alias.asname or alias.name] = (flow, alias.name)
    src.siblings = found


def _flow_of_file(path: Path) -> Flow | None:
    """The data-flow model of one sibling file, or None when it is absent or not Python."""
    try:
        key = (path.resolve(), path.stat().st_mtime)  # an edited file is read again
    except OSError:
        return None
    if key not in _FLOWS:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError):
            _FLOWS[key] = None
        else:
            _FLOWS[key] = Flow(Source.parse(tree))
    return _FLOWS[key]
