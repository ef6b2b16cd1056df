"""Copy every notebook into a folder of its own, out of the repository's reach.

    python tests/bare_folders.py DEST [NOTEBOOK ...]

`make test`'s last pass runs the copies: each notebook in DEST/<folder>-<name>/<folder>/
holding only itself, as a learner's Colab runtime or empty folder does, so a notebook that reads a file
of the repository (a script, a data file, `../reference/...`) fails there. DEST gets this
repository's root `conftest.py` (what nbval compares) and nothing else. Prints DEST.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def notebooks(args: list[str]) -> list[Path]:
    if args:
        found: list[Path] = []
        for arg in args:
            path = Path(arg)
            found += sorted(path.rglob("*.ipynb")) if path.is_dir() else [path]
    else:
        found = sorted((ROOT / "book").glob("*.ipynb")) + sorted((ROOT / "labs").glob("*.ipynb"))
    # hidden files (an editor's or a tool's scratch copies) are not notebooks of the book
    return [p for p in found if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")]


def copy(dest: Path, paths: list[Path]) -> list[Path]:
    dest = dest.resolve()
    if ROOT == dest or ROOT in dest.parents:
        raise SystemExit(f"bare_folders: {dest} is inside the repository; use a temporary folder")
    copies = []
    for nb in paths:
        # DEST/book-numerics/book/numerics.ipynb: the notebook's folder keeps its name (a
        # cell may print it), and holds only the notebook; its parent holds only that folder.
        folder = dest / f"{nb.parent.name}-{nb.stem}" / nb.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        copies.append(Path(shutil.copy2(nb, folder / nb.name)))
    shutil.copy2(ROOT / "conftest.py", dest / "conftest.py")
    return copies


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    copy(Path(sys.argv[1]), notebooks(sys.argv[2:]))
    print(Path(sys.argv[1]).resolve())
