"""Put what the book's "Explain an error" page needs into the built site (``make book``).

* Pyodide, from this folder's ``node_modules`` (``npm ci --prefix tools/pyodide`` fetches
  the version pinned in ``package-lock.json`` from the npm registry; nothing of it is
  committed), into ``_build/html/_static/pyodide/``;
* the real ``ice_lab.explainer`` source (with the three modules it imports,
  ``ice_lab/__init__.py``, ``ice_lab/_text.py`` and ``ice_lab/_prefixes.py``) as ``_static/ice_lab_explain.zip``,
  which the page unpacks into Pyodide's file system and imports.

    python tools/pyodide/build_site.py [_build/html]
"""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: The Pyodide files the page loads (the core interpreter and the standard library only).
FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
         "pyodide-lock.json", "package.json")


def package_files() -> list[Path]:
    """The sources the page runs: ice_lab.explainer and what it imports, nothing else."""
    package = ROOT / "ice_lab"
    files = [package / "__init__.py", package / "_text.py", package / "_prefixes.py"]
    files += sorted(p for p in (package / "explainer").rglob("*.py") if "__pycache__" not in p.parts)
    return files


def main(argv: list[str]) -> int:
    html = Path(argv[0]) if argv else ROOT / "_build" / "html"
    if not (html / "index.html").exists():
        print(f"build_site: no built book in {html}; run jupyter-book build first", file=sys.stderr)
        return 2
    source = HERE / "node_modules" / "pyodide"
    missing = [name for name in FILES if not (source / name).exists()]
    if missing:
        print(f"build_site: {', '.join(missing)} missing in {source}; run "
              "`npm ci --prefix tools/pyodide` (it fetches Pyodide from the npm registry)",
              file=sys.stderr)
        return 2
    target = html / "_static" / "pyodide"
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copy2(source / name, target / name)
    archive = html / "_static" / "ice_lab_explain.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for path in package_files():
            out.write(path, path.relative_to(ROOT).as_posix())
    print(f"explain page: Pyodide in {target.relative_to(html)}, "
          f"{len(package_files())} ice_lab files in {archive.relative_to(html)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
