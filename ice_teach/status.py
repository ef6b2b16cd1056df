"""The book's status data: what the last `make test` ran, on which versions, and whether
the GPU paths and other torch versions were ever checked.

Three committed files under reference/, each written by the run it describes:

- ``status.json``: per notebook, its cell counts, the SHA-256 of the file as tested, and
  per pass of `make test` (1 = this machine's CPU kernels, 2 = the portable kernels) the
  result, the seconds its cells took and the date; plus the versions and the machine of
  each pass. Written by tests/support/status_plugin.py when ``ICE_STATUS_FILE`` is set.
- ``compat.json``: the last `make test-compat`, one row per torch version (schema:
  ``COMPAT_SCHEMA`` below). Absent until it has been run and committed.
- ``colab.json``: the last `make test-colab` (ice_teach/verify/colab.py), one row per Colab runtime;
  ``start-methods.json``: the last `make test-start-methods` (ice_teach/verify/start_methods.py);
  ``python-support.json``: the last `make test-python-support` (ice_teach/verify/python_support.py).
  Each absent until it has been run and committed.
- ``gpu-verify-YYYY-MM-DD.log``: the output of ``python tools/gpu_verify.py`` on a GPU,
  saved as is:
  ``python tools/gpu_verify.py 2>&1 | tee reference/gpu-verify-$(date +%F).log``.
  None yet means the GPU paths were never run.

The book's build reads them (_ext/book_status.py: the status page, the stamp under every
chapter's title, the minutes in the landing page's lab table); nothing there is typed by
hand. A notebook edited after its last `make test` no longer matches its hash: the
status page says so, and tests/teach/test_status.py fails until `make test` has run it again
(or any pytest run with the plugin on: ICE_STATUS_FILE and ICE_STATUS_PASS set).

    ice-teach status            # the table, and which notebooks changed since
    ice-teach status --check    # exit 1 when a notebook is missing or changed
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STATUS_FILE = ROOT / "reference" / "status.json"
COMPAT_FILE = ROOT / "reference" / "compat.json"
#: The other runs' records, by the key the status page reads them under.
RECORDS = {
    "colab": ROOT / "reference" / "colab.json",
    "start_methods": ROOT / "reference" / "start-methods.json",
    "python_support": ROOT / "reference" / "python-support.json",
}
GPU_LOG_GLOB = "gpu-verify-*.log"
SCHEMA = 1

#: The passes of `make test`, as the status page names them.
PASSES = {
    "1": "this machine's CPU kernels",
    "2": "portable CPU kernels (ATEN_CPU_CAPABILITY=default, one thread)",
}
#: The environment variables that set a pass apart, recorded with it.
PASS_ENV = ("ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_CBWR")
#: The packages whose versions the status page shows, in this order.
PACKAGES = (
    "torch",
    "torchvision",
    "numpy",
    "jupyter-book",
    "myst-nb",
    "sphinx",
    "nbval",
)

#: reference/compat.json, as ice_teach/verify/compat.py would write it:
#: {"date": "YYYY-MM-DD", "versions": [{"torch": "2.6.0", "unit_tests": "1012 passed,
#:  0 failed", "notebooks": "22 of 22", "failed": ["labs/lab-x.ipynb -> ..."]}, ...]}
COMPAT_SCHEMA = {"date": str, "versions": list}


# --------------------------------------------------------------------------- facts
def notebook_hash(path: Path) -> str:
    """SHA-256 of a notebook file as it is on disk."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cell_counts(path: Path) -> dict[str, int]:
    """{"cells": all cells, "code_cells": code cells} of a notebook."""
    cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
    code = sum(1 for cell in cells if cell.get("cell_type") == "code")
    return {"cells": len(cells), "code_cells": code}


def versions() -> dict[str, str]:
    """Python and the versions of PACKAGES installed here ("not installed" if
    absent)."""
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def machine() -> dict[str, Any]:
    """The CPU that ran a pass: model name, logical cores, OS."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.M)
        if found:
            model = found.group(1).strip()
    return {
        "cpu": re.sub(r"\s+", " ", model),
        "cores": os.cpu_count() or 0,
        "os": f"{platform.system()} {platform.machine()}",
    }


def today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


# ------------------------------------------------------------------------ status.json
def empty() -> dict[str, Any]:
    return {"schema": SCHEMA, "passes": {}, "notebooks": {}}


def load(path: Path = STATUS_FILE) -> dict[str, Any]:
    """The status data, or an empty record if the file does not exist yet.

    A file that is not this schema raises ValueError naming the file: delete it and run
    `make test` to write it again.
    """
    path = Path(path)
    if not path.exists():
        return empty()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path} is not valid JSON ({err}): delete it and run make test"
        ) from err
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(
            f"{path} is not status data of schema {SCHEMA}: delete it and run make test"
        )
    data.setdefault("passes", {})
    data.setdefault("notebooks", {})
    return data


def record_pass(
    data: dict[str, Any],
    pass_id: str,
    results: dict[str, dict[str, Any]],
    root: Path = ROOT,
    run: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Merge one pass into ``data`` and return it.

    ``results`` maps a notebook path (relative to ``root``) to ``{"result": "passed" |
    "failed", "seconds": float, "failed_cells": int, "sha256": str, "cells": int,
    "code_cells": int}`` (the hash and counts of the file as tested; read from
    ``root`` now when absent). Notebooks this pass did not run
    keep what an earlier run recorded. ``run`` describes the pass (versions, machine).
    """
    if pass_id not in PASSES:
        raise ValueError(
            f"pass {pass_id!r} is not one of {sorted(PASSES)}: set ICE_STATUS_PASS"
        )
    date = today()
    info = dict(run or {})
    info.setdefault("date", date)
    info["label"] = PASSES[pass_id]
    data["passes"][pass_id] = info
    for name, result in sorted(results.items()):
        path = Path(root) / name
        entry = data["notebooks"].setdefault(name, {"passes": {}})
        if "cells" in result:
            entry.update(cells=result["cells"], code_cells=result["code_cells"])
        else:
            entry.update(cell_counts(path))
        entry["passes"][pass_id] = {
            "result": result["result"],
            "seconds": round(float(result["seconds"]), 1),
            "failed_cells": int(result.get("failed_cells", 0)),
            "date": date,
            "sha256": result.get("sha256") or notebook_hash(path),
            "torch": info.get("versions", {}).get("torch", "unknown"),
            "device": info.get("device", "CPU"),
        }
    data["notebooks"] = dict(sorted(data["notebooks"].items()))
    return data


def write(data: dict[str, Any], path: Path = STATUS_FILE) -> None:
    Path(path).write_text(
        json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )


def changed(
    data: dict[str, Any], notebooks: list[str], root: Path = ROOT
) -> dict[str, str]:
    """Notebooks whose status is not current: {path: why} ("never tested", "changed
    since pass 1 on <date>", ...). Empty when every notebook matches its data."""
    found: dict[str, str] = {}
    for name in notebooks:
        entry = data["notebooks"].get(name)
        if entry is None:
            found[name] = "never tested"
            continue
        current = notebook_hash(Path(root) / name)
        for pass_id in PASSES:
            tested = entry["passes"].get(pass_id)
            if tested is None:
                found[name] = f"pass {pass_id} never ran it"
                break
            if tested["sha256"] != current:
                found[name] = f"changed since pass {pass_id} on {tested['date']}"
                break
    return found


def result(entry: dict[str, Any]) -> str:
    """ "passed" when every pass passed, else "failed" or "not run"."""
    outcomes = [entry["passes"].get(p, {}).get("result") for p in PASSES]
    if None in outcomes:
        return "not run"
    return "passed" if all(o == "passed" for o in outcomes) else "failed"


# ------------------------------------------------------------------------ GPU, compat
def gpu_verification(folder: Path = ROOT / "reference") -> dict[str, Any] | None:
    """The newest reference/gpu-verify-YYYY-MM-DD.log, read: its date, GPU, torch,
    summary line and the notebooks that passed. None when no GPU run was ever saved."""
    logs = sorted(Path(folder).glob(GPU_LOG_GLOB))
    if not logs:
        return None
    log = logs[-1]
    text = log.read_text(encoding="utf-8", errors="replace")
    date = re.search(r"(\d{4}-\d{2}-\d{2})", log.name)
    gpu = re.search(r"^GPU: (.+), torch (\S+)$", text, re.M)
    summary = re.search(r"^GPU verification: (\d+) passed, (\d+) failed$", text, re.M)
    return {
        "file": log.name,
        "date": date.group(1) if date else "unknown date",
        "gpu": gpu.group(1) if gpu else "unknown GPU",
        "torch": gpu.group(2) if gpu else "unknown",
        "summary": (
            summary.group(0) if summary else "no summary line (the run did not finish)"
        ),
        "passed": int(summary.group(1)) if summary else 0,
        "failed": int(summary.group(2)) if summary else 0,
        "notebooks_passed": re.findall(r"^PASS  notebook (\S+):", text, re.M),
    }


def compat(path: Path = COMPAT_FILE) -> dict[str, Any] | None:
    """reference/compat.json (the last `make test-compat`), or None if never
    committed."""
    path = Path(path)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, kind in COMPAT_SCHEMA.items():
        if not isinstance(data.get(key), kind):
            raise ValueError(
                f"{path}: {key!r} must be a {kind.__name__} (see COMPAT_SCHEMA)"
            )
    return data


def record(name: str) -> dict[str, Any] | None:
    """One of RECORDS (``colab``, ``start_methods``, ``python_support``), read; None if
    never committed."""
    path = RECORDS[name]
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("date"), str):
        raise ValueError(f"{path}: not a record of {name} (no 'date')")
    return data


# ----------------------------------------------------------------------- command line
def _notebooks() -> list[str]:
    from ice_teach import notebooks

    return [str(p) for p in notebooks.notebooks()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if any is not current"
    )
    args = parser.parse_args(argv)
    data = load()
    names = _notebooks()
    print(f"{'notebook':<32} {'cells':>5} {'pass 1':>12} {'pass 2':>12}")
    for name in names:
        entry = data["notebooks"].get(name, {"passes": {}})
        cols = []
        for pass_id in PASSES:
            run = entry["passes"].get(pass_id)
            cols.append(f"{run['result']} {run['seconds']:.0f}s" if run else "not run")
        print(f"{name:<32} {entry.get('cells', '?'):>5} {cols[0]:>12} {cols[1]:>12}")
    stale = changed(data, names)
    for name, why in stale.items():
        print(f"not current: {name}: {why}")
    gpu = gpu_verification()
    print("GPU:", f"{gpu['date']}, {gpu['summary']}" if gpu else "never run on a GPU")
    if args.check and stale:
        print(
            f"{len(stale)} notebook(s) not current: run make test, commit "
            f"{STATUS_FILE.name}"
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
