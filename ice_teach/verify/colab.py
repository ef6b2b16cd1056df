"""The book on Colab's own runtimes: install without breaking them, then run every notebook.

Colab is not this project's venv: each runtime brings its own Python, torch, IPython 7,
ipykernel 6 and ipywidgets 7 (its front end does not render ipywidgets 8). The package
lists of the runtimes are committed under ``reference/colab/`` (facts taken from Colab's
published lists; see reference/colab/README.md for how to refresh them). For each list:

1. **Install check.** A stand-in of the runtime (an empty venv holding one metadata-only
   ``.dist-info`` per package of the list, so pip sees what Colab has installed) asked,
   offline, to install ice_lab's dependencies as pyproject.toml declares them: pip must
   find every one already satisfied, so that the setup cell replaces nothing Colab ships.
   The unit tests run the same check (tests/teach/test_colab_runtime.py).
2. **A venv with the runtime's versions** (``.venv-colab/<runtime>``, Python 3.11 here:
   no other interpreter is on these machines), ice_lab installed into it the way the setup
   cell does (a non-editable install from source, dependencies included), and ``pip freeze``
   compared before and after: only ice_lab may appear.
3. **Every chapter, lab and solved student edition** executed alone in an empty folder in
   that venv, as on Colab: ``google.colab`` is importable, so the setup cell and the export
   notebooks' install cell take their Colab branch (ice_lab's source is the local checkout
   instead of the repository URL), and progress bars are on (ipywidgets 7 widgets). No
   error cell may remain; then ``pip freeze`` again: what the export cells installed may
   add packages, never change one Colab ships.

    ice-teach colab                     # every runtime under reference/colab/
    ice-teach colab 2025.07-gpu --jobs 2
    ice-teach colab --check-install     # step 1 only (seconds, offline)

Writes ``reference/colab.json`` (the status page shows it). Slow (a torch install per
runtime), so not part of `make test` or CI: `make test-colab` runs it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from ice_teach.notebooks import repository_url
from ice_teach.verify import bare as execute_bare

ROOT = Path(__file__).resolve().parents[2]
RUNTIMES = ROOT / "reference" / "colab"
RECORD = ROOT / "reference" / "colab.json"
VENVS = ROOT / ".venv-colab"

#: What the book's notebooks import or run with, installed at the runtime's versions (the
#: rest of the runtime's few hundred packages play no part in the book).
BOOK_PACKAGES = (
    "torch", "torchvision", "numpy", "ipython", "ipykernel", "ipywidgets",
    "widgetsnbextension", "jupyterlab_widgets", "jupyter_client", "jupyter_core",
    "traitlets", "tornado", "pyzmq", "nbclient", "nbformat", "matplotlib", "scikit-learn",
    "tqdm", "psutil", "pillow", "pyyaml", "packaging",
    # What the export notebooks' install cell (onnx, onnxscript, onnxruntime) depends on and
    # Colab already has: preinstalled here, so that a replacement would show.
    "protobuf", "ml-dtypes", "flatbuffers", "sympy", "typing-extensions", "coloredlogs",
)
#: The runtime's CUDA wheels come from PyTorch's own index (cu128 builds); PyPI's torch of
#: the same version asks for other CUDA packages. Their pins are left out of the venv's
#: constraints (the venv runs on the CPU anyway), and so is what pip cannot fetch.
NOT_CONSTRAINED = re.compile(r"^(nvidia-|cuda-|cupy|triton$|google-colab$|jax-cuda)")


def canonical(name: str) -> str:
    """PEP 503's normal form of a distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_runtime(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """A committed runtime list: (header fields from its ``# key: value`` lines,
    {canonical name: version}). Versions keep their local part (``2.11.0+cu128``)."""
    header: dict[str, str] = {}
    packages: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            if sep and key.strip().isidentifier():
                header[key.strip()] = value.strip()
            continue
        if line:
            name, sep, version = line.partition("==")
            if not sep or not version:
                raise ValueError(f"{path.name}: not a name==version line: {line!r}")
            packages[canonical(name)] = version.strip()
    return header, packages


def runtimes(names: list[str] | None = None) -> list[Path]:
    """The committed runtime lists (all, or those named, e.g. ``2025.07-gpu``)."""
    found = sorted(RUNTIMES.glob("*.txt"))
    if not names:
        return found
    by_name = {p.stem: p for p in found}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit(f"no runtime list {missing} under reference/colab/; "
                         f"there are: {', '.join(by_name)}")
    return [by_name[n] for n in names]


def freeze_to_list(text: str) -> tuple[list[str], list[str]]:
    """Colab's ``pip freeze`` as ``name==version`` lines, and the lines without a version
    to read (a VCS URL). ``name @ URL`` lines take the version in the file name."""
    lines, skipped = [], []
    for raw in text.splitlines():
        raw = raw.strip()
        if not raw or raw.startswith("#"):
            continue
        if "==" in raw:
            name, version = raw.split("==", 1)
        else:
            match = re.match(r"(\S+) @ \S*/[^/]+?-(\d[^-/]*?)(?:-[^/]*\.whl|\.tar\.gz|\.zip)$",
                             raw.split("#")[0].replace("%2B", "+"))
            if not match:
                skipped.append(raw)
                continue
            name, version = match.groups()
        lines.append(f"{name.strip()}=={version.strip()}")
    return sorted(lines, key=str.lower), skipped


def refresh(freeze_file: Path, source: str, name: str, python: str) -> int:
    """Write ``reference/colab/<name>.txt`` from one of Colab's pip-freeze files."""
    lines, skipped = freeze_to_list(freeze_file.read_text(encoding="utf-8"))
    header = [
        f"# Colab runtime {name}: the packages it has installed, as name==version.",
        f"# source: {source}",
        f"# python: {python}",
        f"# taken: {datetime.date.today().isoformat()} (ice-teach colab --refresh)",
    ] + [f"# no version to read, left out: {line}" for line in skipped]
    out = RUNTIMES / f"{name}.txt"
    out.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}: {len(lines)} packages, {len(skipped)} left out")
    return 0


# --------------------------------------------------------------------------- step 1
def declared_requirements(*extras: str) -> list[str]:
    """ice_lab's dependencies, as pyproject.toml declares them (what the setup cell's pip
    resolves), and those of the ``extras`` named."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    return [*project["dependencies"],
            *(req for extra in extras for req in project["optional-dependencies"][extra])]


def stand_in(packages: dict[str, str], folder: Path) -> Path:
    """An empty venv whose site-packages holds a metadata-only ``.dist-info`` for every
    package of a runtime list: to pip, the runtime's installed set. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    for name, version in packages.items():
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (info / "INSTALLER").write_text("reference/colab runtime list\n")
        (info / "RECORD").write_text("")
    return python


def install_check(runtime: Path, requirements: list[str] | None = None) -> list[str]:
    """What pip would do to the runtime to install ``requirements`` (default: ice_lab's
    dependencies): [] when every one is already satisfied there, else pip's complaint and
    what it would install. Offline: pip may use only what the runtime has."""
    _, packages = read_runtime(runtime)
    requirements = declared_requirements() if requirements is None else requirements
    with tempfile.TemporaryDirectory(prefix="ice-colab-") as tmp:
        python = stand_in(packages, Path(tmp) / "runtime")
        report = Path(tmp) / "report.json"
        out = subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(python), "install", "--dry-run",
             "--no-index", "--quiet", "--report", str(report),
             *requirements],
            capture_output=True, text=True,
            # No configuration: no machine-wide constraints, no find-links folder.
            env=dict(os.environ, PIP_CONFIG_FILE=os.devnull))
        if out.returncode != 0:
            errors = [line for line in out.stderr.splitlines() if line.startswith("ERROR")]
            return errors or [out.stderr.strip()[-500:]]
        planned = json.loads(report.read_text())["install"]
        return [f"would install {item['metadata']['name']} {item['metadata']['version']}"
                for item in planned]


# --------------------------------------------------------------------------- step 2
def _pip(python: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    cmd = [str(python), "-m", "pip", *args]
    print("$", " ".join(cmd), flush=True)
    # The machine-wide cap on torch (if any) is for CI's venv, not for a runtime's pins.
    env = dict(os.environ, PIP_CONSTRAINT="/dev/null")
    return subprocess.run(cmd, text=True, env=env, **kwargs)


def freeze(python: Path) -> dict[str, str]:
    out = _pip(python, "list", "--format=json", capture_output=True, check=True).stdout
    return {canonical(p["name"]): p["version"] for p in json.loads(out)}


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Packages of ``before`` that ``after`` has at another version, or not at all."""
    return [f"{name} {version} -> {after.get(name, 'removed')}"
            for name, version in sorted(before.items()) if after.get(name) != version]


def build_venv(runtime: Path, source: str) -> tuple[Path, list[str]]:
    """A venv with the runtime's versions of BOOK_PACKAGES, then ice_lab from ``source``
    (a wheel's URL) as the setup cell installs it, dependencies included. Returns its
    python and the preinstalled packages that installing ice_lab changed (none, when all
    is well)."""
    _, packages = read_runtime(runtime)
    venv = VENVS / runtime.stem
    python = venv / "bin" / "python"
    # A new venv every run: what an earlier run's notebooks installed (onnx...) is gone,
    # as on a fresh Colab runtime. pip's cache keeps the second install quick.
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    constraints = venv / "runtime-constraints.txt"
    constraints.write_text("".join(
        f"{name}=={version.split('+')[0]}\n" for name, version in packages.items()
        if not NOT_CONSTRAINED.match(name)))
    _pip(python, "install", "--quiet", "--upgrade", "pip", check=True)
    _pip(python, "install", "--quiet", "-c", str(constraints),
         *[name for name in BOOK_PACKAGES if canonical(name) in packages], check=True)
    _pip(python, "uninstall", "--quiet", "--yes", "ice_lab", check=True)
    before = freeze(python)
    # The setup cell: %pip install --quiet "ice_lab @ git+<repository>@<branch>".
    _pip(python, "install", "--quiet", f"ice_lab @ {source}", check=True)
    after = freeze(python)
    return python, changed(before, after) + [
        f"added {name} {after[name]}" for name in sorted(set(after) - set(before))
        if name != "ice-lab"]


# --------------------------------------------------------------------------- step 3
#: The IPython startup file of a Colab pass: ``google.colab`` importable, as on Colab.
COLAB_STARTUP = '''\
import sys, types
sys.modules.setdefault("google.colab", types.ModuleType("google.colab"))
'''

def colab_copy(folder: Path) -> tuple[Path, str]:
    """A scratch copy of the repository, and a wheel of ice_lab built from it, which the
    copy's setup cells install in place of the repository URL (not reachable from these
    machines). A wheel, not the folder: pip reinstalls a folder at every setup cell, two
    notebooks at once would reinstall the package under each other's kernels; a wheel of
    the installed version is left alone, as Colab's second setup cell leaves a git install
    of the same commit."""
    repo = folder / "repo"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(
        ".venv*", "_build", ".git", "__pycache__", ".pytest_cache", "node_modules"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                    str(folder / "wheel"), str(repo)], check=True)
    wheel = next((folder / "wheel").glob("ice_lab-*.whl")).as_uri()
    url = re.escape(f"git+{repository_url()}@")
    for path in [*repo.glob("book/*.ipynb"), *repo.glob("labs/*.ipynb"),
                 *repo.glob("student/*.ipynb")]:
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(url + r"[\w.-]+", wheel, text), encoding="utf-8")
    return repo, wheel


def notebooks(python: Path, repo: Path, workers: int, students: bool) -> tuple[str, list[str]]:
    """Every notebook (and solved student edition) in ``python``'s venv, as on Colab:
    ``google.colab`` importable and progress bars on. The export chapter runs first and
    alone: it installs onnx, onnxscript and onnxruntime, and two notebooks must not run pip
    in one venv at once."""
    ipython_dir = execute_bare.ipython_startup(repo.parent / "ipython", COLAB_STARTUP)
    return execute_bare.execute_in(
        python, repo,
        ["--jobs", str(workers), "--bars", "--first", "export.ipynb",
         *([] if students else ["--no-students"])],
        env={"IPYTHONDIR": str(ipython_dir), "PIP_CONSTRAINT": "/dev/null"})


def run(runtime: Path, workers: int, students: bool) -> dict:
    header, _ = read_runtime(runtime)
    row: dict = {"runtime": runtime.stem, "colab_python": header.get("python", "?"),
                 "install_check": install_check(runtime) or "nothing preinstalled changes"}
    with tempfile.TemporaryDirectory(prefix="ice-colab-") as tmp:
        repo, wheel = colab_copy(Path(tmp))
        python, install_changes = build_venv(runtime, wheel)
        row["setup_cell_changes"] = install_changes or "none"
        before = freeze(python)
        summary, failed = notebooks(python, repo, workers, students)
        after_run = freeze(python)
    row.update(
        python=subprocess.run([str(python), "-c", "import sys; print(sys.version.split()[0])"],
                              capture_output=True, text=True).stdout.strip(),
        versions={name: before.get(name) for name in map(canonical, BOOK_PACKAGES)},
        notebooks=summary, failed=failed,
        export_cells_changed=changed(before, after_run) or "none",
        export_cells_added=sorted(f"{n} {after_run[n]}" for n in set(after_run) - set(before)),
    )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runtimes", nargs="*", help="e.g. 2026.08-gpu (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at a time")
    parser.add_argument("--check-install", action="store_true",
                        help="only check that installing ice_lab changes nothing (offline)")
    parser.add_argument("--no-students", action="store_true",
                        help="skip the solved student editions")
    parser.add_argument("--refresh", nargs=2, metavar=("FREEZE", "SOURCE"),
                        help="write reference/colab/<runtime>.txt from a pip-freeze file of "
                             "Colab's backend-info; SOURCE says where it came from")
    parser.add_argument("--python", help="with --refresh: the runtime's Python version")
    args = parser.parse_args(argv)
    if args.refresh:
        if len(args.runtimes) != 1 or not args.python:
            parser.error("--refresh takes one runtime name and --python")
        return refresh(Path(args.refresh[0]), args.refresh[1], args.runtimes[0], args.python)
    paths = runtimes(args.runtimes)
    if args.check_install:
        bad = 0
        for path in paths:
            problems = install_check(path)
            bad += bool(problems)
            print(f"{path.stem}: " + ("; ".join(problems) or "nothing preinstalled changes"))
        return 1 if bad else 0
    rows = [run(path, args.jobs, not args.no_students) for path in paths]
    RECORD.write_text(json.dumps({"date": datetime.date.today().isoformat(), "runtimes": rows},
                                 indent=2) + "\n")
    print(f"\nColab runtimes (wrote {RECORD.relative_to(ROOT)}):")
    ok = True
    for row in rows:
        clean = (row["install_check"] == "nothing preinstalled changes"
                 and row["setup_cell_changes"] == "none" and not row["failed"]
                 and row["export_cells_changed"] == "none")
        ok &= clean
        print(f"  Colab runtime {row['runtime']} (here Python {row['python']}, "
              f"torch {row['versions']['torch']}): {row['notebooks']}")
        for line in row["failed"]:
            print("      ", line)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
