"""Which Pythons and systems a learner can install the book's packages on, without running them.

Only Python 3.11 is installed on the project's machines, so Colab's Python 3.13 and the
next Python (3.14) are checked the one way available: every package a learner installs —
ice_lab's dependencies as pyproject.toml declares them, and the export extra (onnx,
onnxscript, onnxruntime) — is resolved from binary wheels only (nothing would have to be
compiled on the learner's machine), for each Python and each system below, downloading no
wheel. uv resolves (``uv pip compile --python-version --python-platform``): pip's
``--platform`` evaluates markers such as ``platform_system == "Linux"`` for the machine it
runs on, so it asks for Linux's CUDA wheels on a Mac. A row that resolves says which torch,
numpy and onnxruntime a learner there gets today; one that does not says why.

    ice-teach python-support            # writes reference/python-support.json

Whether the book then *runs* on that Python is another question: reference/status.json
(Python 3.11 here) and reference/colab.json answer it for the Pythons that were executed.
It needs the package index (PyPI) and uv (the test extra installs it), so it is not part
of `make test`:
`make test-python-support` runs it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ice_teach.verify import colab

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "reference" / "python-support.json"

PYTHONS = ("3.11", "3.12", "3.13", "3.14")
#: uv's --python-platform per system, and the environment it reads (macOS: the oldest
#: release the wheels must support; uv's default, 12.0, finds no onnxruntime for 3.14).
SYSTEMS = {
    "Linux x86_64": ("x86_64-manylinux_2_28", {}),
    "macOS 14 arm64": ("aarch64-apple-darwin", {"MACOSX_DEPLOYMENT_TARGET": "14.0"}),
    "Windows x86_64": ("x86_64-pc-windows-msvc", {}),
}
INDEX = "https://pypi.org/simple"
SHOWN = ("torch", "torchvision", "numpy", "ipywidgets", "onnxruntime", "onnxscript")


def learner_requirements() -> list[str]:
    """What a learner installs: ice_lab's dependencies and the export extra."""
    return colab.declared_requirements("export")


def resolve(python: str, system: str) -> dict:
    """uv's resolution of the learner's packages for one Python and system, wheels only."""
    platform, env = SYSTEMS[system]
    with tempfile.TemporaryDirectory() as tmp:
        wanted = Path(tmp) / "requirements.in"
        wanted.write_text("\n".join(learner_requirements()) + "\n")
        pinned = Path(tmp) / "requirements.txt"
        out = subprocess.run(
            [sys.executable, "-m", "uv", "pip", "compile", "--quiet", "--no-config",
             "--index-url", INDEX, "--python-version", python, "--python-platform", platform,
             "--only-binary", ":all:", str(wanted), "-o", str(pinned)],
            capture_output=True, text=True, env=dict(os.environ, **env))
        if out.returncode != 0:
            said = [l.strip() for l in out.stderr.splitlines() if l.strip()]
            return {"python": python, "system": system, "resolves": False, "why": said[-3:]}
        installed = dict(line.split("==", 1) for line in pinned.read_text().splitlines()
                         if "==" in line and not line.startswith((" ", "#")))
    return {"python": python, "system": system, "resolves": True,
            "packages": len(installed), "versions": {n: installed.get(n) for n in SHOWN}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", nargs="*", default=list(PYTHONS))
    parser.add_argument("--system", nargs="*", default=list(SYSTEMS), choices=list(SYSTEMS))
    args = parser.parse_args(argv)
    rows = []
    for python in args.python:
        for system in args.system:
            row = resolve(python, system)
            rows.append(row)
            said = (", ".join(f"{k} {v}" for k, v in row["versions"].items() if v)
                    if row["resolves"] else "does not resolve: " + " ".join(row["why"]))
            print(f"Python {python:<5} {system:<15} {said}", flush=True)
    RECORD.write_text(json.dumps({
        "date": datetime.date.today().isoformat(),
        "requirements": learner_requirements(),
        "executed_here": sys.version.split()[0],
        "rows": rows,
    }, indent=2) + "\n")
    print(f"wrote {RECORD.relative_to(ROOT)}")
    return 0 if all(row["resolves"] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
