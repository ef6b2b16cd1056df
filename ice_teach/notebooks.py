"""The book's notebooks: the list (book/, labs/, _toc.yml), read and write, the canonical
setup cell and kernelspec, the header-cell markers, bare copies and execution.

Used by the Makefile (`make execute`, `make test`'s bare pass), by tests/book/test_notebooks.py,
and by authors:

    ice-teach new labs/lab-foo.ipynb "Lab: Foo"   # a notebook with the setup cell
    ice-teach sync-setup                          # rewrite every setup cell
    ice-teach execute book/tensors.ipynb ...      # execute in place

The exercise conventions are ice_teach/exercises.py; the lab and chapter headers
ice_teach/editions.py; the solution and hidden-test regions ice_teach/solutions.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
import yaml

from ice_teach.settings import EXECUTION_ENV  # the one execution environment (settings.py)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIRS = ("book", "labs")
NBFORMAT_VERSION = 4


# --------------------------------------------------------------------------- config
def book_config() -> dict:
    with open(ROOT / "_config.yml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def repository_url() -> str:
    return book_config()["repository"]["url"].rstrip("/")


def setup_cell_source() -> str:
    """The first cell of every notebook. Derived from the repository URL in _config.yml."""
    branch = book_config()["repository"].get("branch", "main")
    return (
        "# Setup: on Colab, install this book's helper package, ice_lab.\n"
        "# Elsewhere this cell does nothing.\n"
        "import sys\n"
        "\n"
        f'ICE_LAB = "git+{repository_url()}@{branch}"\n'
        'if "google.colab" in sys.modules:\n'
        '    %pip install --quiet "ice_lab @ {ICE_LAB}"'
    )


SETUP_CELL_TAGS = ["hide-cell"]


# --------------------------------------------------------------------------- listing
def notebooks() -> list[Path]:
    """Every notebook of the book and the labs, as paths relative to the repository root."""
    found: list[Path] = []
    for d in NOTEBOOK_DIRS:
        found += sorted(
            p.relative_to(ROOT)
            for p in (ROOT / d).rglob("*.ipynb")
            if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")
        )
    return found


def toc_entries() -> list[tuple[str, str]]:
    """Every file named in _toc.yml, without its extension and in its order, with the
    caption of its part ("" for the root and for chapters outside parts)."""
    with open(ROOT / "_toc.yml", encoding="utf-8") as f:
        toc = yaml.safe_load(f)
    found: list[tuple[str, str]] = [(toc["root"], "")]

    def walk(node: object, caption: str) -> None:
        if isinstance(node, dict):
            if "file" in node:
                found.append((node["file"], caption))
            for value in node.values():
                walk(value, caption)
        elif isinstance(node, list):
            for item in node:
                walk(item, caption)

    for part in toc.get("parts", []):
        walk(part, part.get("caption", ""))
    walk(toc.get("chapters", []), "")
    return [(str(Path(file).with_suffix("")), caption) for file, caption in found]


def toc_files() -> list[str]:
    """Every file named in _toc.yml, without its extension."""
    return [file for file, _ in toc_entries()]


def read(path: Path | str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / path, as_version=NBFORMAT_VERSION)


def write(nb: nbformat.NotebookNode, path: Path | str) -> None:
    nbformat.write(nb, ROOT / path)


# --------------------------------------------------------------------------- setup cell
def make_setup_cell() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(setup_cell_source())
    cell.metadata["tags"] = list(SETUP_CELL_TAGS)
    return cell


# What JupyterLab writes for the venv's kernel: a notebook that says the same is not marked
# modified the moment it opens.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def sync_kernelspec(nb: nbformat.NotebookNode) -> bool:
    """Give the notebook the canonical kernelspec; return True if anything changed."""
    changed = dict(nb.metadata.get("kernelspec", {})) != KERNELSPEC
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    return changed


def sync_setup_cell(nb: nbformat.NotebookNode) -> bool:
    """Make the first cell the canonical setup cell; return True if anything changed."""
    first = nb.cells[0] if nb.cells else None
    if first is not None and first.cell_type == "code" and first.source.startswith("# Setup: on Colab"):
        changed = first.source != setup_cell_source() or first.metadata.get("tags") != SETUP_CELL_TAGS
        first.source = setup_cell_source()
        first.metadata["tags"] = list(SETUP_CELL_TAGS)
        return changed
    nb.cells.insert(0, make_setup_cell())
    return True


def new_notebook(path: Path | str, title: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [make_setup_cell(), nbformat.v4.new_markdown_cell(f"# {title}")]
    write(nb, path)


# --------------------------------------------------------------------------- header cells
#: Cell metadata marking the header cell `editions.sync_lab_header` writes under a lab's title.
LAB_HEADER = {"ice_lab": "lab-header"}
#: ... and the one `editions.sync_chapter_header` writes under a chapter's title (its reading time).
CHAPTER_HEADER = {"ice_lab": "chapter-header"}
_HEADERS = (LAB_HEADER["ice_lab"], CHAPTER_HEADER["ice_lab"])


# --------------------------------------------------------------------------- execution


def bare_copies(dest: Path | str, paths: list[Path]) -> list[Path]:
    """Copy each notebook into a folder of its own under ``dest``, out of the repository's
    reach, as a learner's Colab runtime or an empty folder holds it:
    ``dest/book-numerics/book/numerics.ipynb``. The notebook's folder keeps its name (a
    cell may print it) and holds only the notebook; its parent holds only that folder.
    ``dest`` also gets the root ``conftest.py`` (what nbval compares) and nothing else, so
    that `make test`'s bare pass (the Makefile's BARE_PASS) runs nbval there."""
    import shutil

    dest = Path(dest).resolve()
    if ROOT == dest or ROOT in dest.parents:
        raise SystemExit(f"bare copies: {dest} is inside the repository; use a temporary folder")
    copies = []
    for nb in paths:
        folder = dest / f"{nb.parent.name}-{nb.stem}" / nb.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        copies.append(Path(shutil.copy2(nb, folder / nb.name)))
    shutil.copy2(ROOT / "conftest.py", dest / "conftest.py")
    return copies


def execute(path: Path | str, timeout: int = 600, allow_errors: bool = False, *,
            bare: bool = False, nb: nbformat.NotebookNode | None = None) -> nbformat.NotebookNode:
    """Execute a notebook and return it with its outputs (the file is not written).

    In place (the default): the notebook ``path`` (from the repository root), with its own
    folder as working directory, as nbval does, in settings.EXECUTION_ENV.
    ``bare``: a copy alone in a temporary folder (the layout of ``bare_copies``), as a
    learner's Colab or an empty folder holds it, in the caller's environment (the
    verification runs set it; ``ice_teach.verify.bare --bars`` leaves progress bars on);
    ``nb``, if given, is executed instead of the file ``path`` names (a filled-in student
    edition)."""
    import tempfile

    from nbclient import NotebookClient

    if nb is None:
        nb = nbformat.read(ROOT / path, as_version=NBFORMAT_VERSION)
    with tempfile.TemporaryDirectory(prefix="ice-bare-") as scratch:
        if bare:
            parent = Path(path).parent.name  # a bare name: the temporary folder itself
            folder = Path(scratch) / f"{parent}-{Path(path).stem}" / parent if parent else Path(scratch)
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, folder / Path(path).name)
        else:
            os.environ.update(EXECUTION_ENV)
            folder = (ROOT / path).parent
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=allow_errors,
            record_timing=False,  # no per-cell timestamps: re-executing leaves unchanged cells unchanged
            resources={"metadata": {"path": str(folder)}},
        )
        client.execute()
    return nb


def _cmd_execute(paths: list[str]) -> int:
    targets = [Path(p) for p in paths] or notebooks()
    for p in targets:
        nb = read(p)
        if sync_setup_cell(nb) | sync_kernelspec(nb):
            write(nb, p)
        start = time.perf_counter()
        nb = execute(p)
        write(nb, p)
        print(f"executed {p} in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_new = sub.add_parser("new", help="create a notebook that starts with the setup cell")
    p_new.add_argument("path")
    p_new.add_argument("title")
    sub.add_parser("sync-setup", help="rewrite the setup cell (from _config.yml) and the "
                   "kernelspec of every notebook")
    p_head = sub.add_parser("sync-lab-headers", help="insert/refresh the Colab button, points "
                            "and learner time of every lab (or of the labs named)")
    p_head.add_argument("paths", nargs="*")
    p_chap = sub.add_parser("sync-chapter-headers", help="insert/refresh the reading time "
                            "under the title of every chapter (or of the chapters named)")
    p_chap.add_argument("paths", nargs="*")
    p_exe = sub.add_parser("execute", help="execute notebooks in place (all when none is named)")
    p_exe.add_argument("paths", nargs="*")
    p_bare = sub.add_parser("bare-copies", help="copy every notebook (or those named, or "
                            "under the folders named) into a folder of its own under DEST, "
                            "out of the repository's reach; print DEST")
    p_bare.add_argument("dest")
    p_bare.add_argument("paths", nargs="*")
    args = parser.parse_args(argv)
    # editions builds on this module (and exercises): imported here, not at the top
    from ice_teach.editions import sync_chapter_header, sync_lab_header

    if args.cmd == "new":
        new_notebook(args.path, args.title)
    elif args.cmd == "sync-setup":
        for p in notebooks():
            nb = read(p)
            if sync_setup_cell(nb) | sync_kernelspec(nb):
                write(nb, p)
                print(f"updated {p}")
    elif args.cmd == "sync-lab-headers":
        named = {Path(p).as_posix() for p in args.paths}
        for p in notebooks():
            if p.parts[0] == "labs" and (not named or p.as_posix() in named):
                nb = read(p)
                if sync_lab_header(nb, p):
                    write(nb, p)
                    print(f"updated {p}")
    elif args.cmd == "sync-chapter-headers":
        named = {Path(p).as_posix() for p in args.paths}
        for p in notebooks():
            if p.parts[0] == "book" and (not named or p.as_posix() in named):
                nb = read(p)
                if sync_chapter_header(nb):
                    write(nb, p)
                    print(f"updated {p}")
    elif args.cmd == "execute":
        return _cmd_execute(args.paths)
    elif args.cmd == "bare-copies":
        found: list[Path] = []
        for arg in args.paths:
            path = Path(arg)
            found += sorted(path.rglob("*.ipynb")) if path.is_dir() else [path]
        # hidden files (an editor's or a tool's scratch copies) are not notebooks of the book
        found = [p for p in found if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")]
        bare_copies(args.dest, found if args.paths else [ROOT / p for p in notebooks()])
        print(Path(args.dest).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
