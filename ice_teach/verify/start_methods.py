"""Run the notebooks that start processes under every start method a learner's machine has.

A DataLoader worker, or any ``multiprocessing`` child, starts by ``fork`` on Linux up to
Python 3.13, by ``spawn`` on macOS and Windows (Windows has no ``fork`` at all), and by
``forkserver`` on Linux from Python 3.14. Under ``spawn`` and ``forkserver`` a worker
imports what it runs by name, so a function or class typed into a notebook cannot reach it.
The executed notebooks of the book were made under ``fork``; this script executes every
notebook that starts workers or child processes (and the solved student edition of each
such lab) once per start method below, each alone in an empty folder, with an IPython
startup file (in a temporary IPYTHONDIR) that sets the method before the first cell:

- ``spawn-only``: as on Windows: ``spawn`` is the default and the only method;
  ``multiprocessing.get_context("fork")`` raises ``ValueError`` as it does there;
- ``forkserver``: the default of Python 3.14 on Linux.

Outputs are not compared (a start method changes what some cells print, e.g. the name of the
method); a notebook passes when no cell ended in an error.

    ice-teach start-methods                 # both methods, every such notebook
    ice-teach start-methods spawn-only --jobs 2
    ice-teach start-methods --list          # which notebooks, and why

Writes ``reference/start-methods.json`` (the status page shows it). `make test-start-methods`
runs it; it is not part of `make test`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from ice_teach import notebooks, settings
from ice_teach.verify import bare as execute_bare
from ice_teach.verify import gpu as gpu_verify

ROOT = Path(__file__).resolve().parents[2]

RECORD = ROOT / "reference" / "start-methods.json"

#: What makes a notebook start processes: DataLoader workers, multiprocessing, a child
#: process through ice_lab (run_isolated, torchrun) or subprocess.
STARTS_PROCESSES = re.compile(
    r"num_workers\s*=\s*(?!0\b)\w|multiprocessing|run_isolated|torchrun|subprocess")

#: The startup file of each pass, run by IPython before the notebook's first cell.
STARTUP = {
    "spawn-only": '''\
def _as_on_windows():
    """spawn is the default and the only start method, as on Windows."""
    import multiprocessing
    import multiprocessing.context as context

    multiprocessing.set_start_method("spawn", force=True)
    for name in ("fork", "forkserver"):
        context._concrete_contexts.pop(name, None)  # get_context(name): ValueError
    context.DefaultContext.get_all_start_methods = lambda self: ["spawn"]
    multiprocessing.get_all_start_methods = lambda: ["spawn"]


_as_on_windows()
del _as_on_windows
''',
    "forkserver": '''\
import multiprocessing as _multiprocessing

_multiprocessing.set_start_method("forkserver", force=True)  # Python 3.14's Linux default
del _multiprocessing
''',
}


def starts_processes(path: Path) -> list[str]:
    """The distinct reasons (matched words) why ``path``'s code cells start processes."""
    nb = notebooks.read(path)
    found = {m.group(0).split("=")[0].strip() for c in nb.cells if c.cell_type == "code"
             for m in STARTS_PROCESSES.finditer(c.source)}
    return sorted(found)


def chosen() -> list[Path]:
    return [p for p in notebooks.notebooks() if starts_processes(p)]


PROBE = ("import multiprocessing\n"
         "print(multiprocessing.get_start_method(), multiprocessing.get_all_start_methods())")
EXPECTED = {"spawn-only": "spawn ['spawn']", "forkserver": "forkserver"}


def probe() -> str:
    """What a kernel started now says of its start method (the startup file must have
    taken effect, or the pass would prove nothing)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE)])
    with tempfile.TemporaryDirectory() as folder:
        NotebookClient(nb, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": folder}}).execute()
    return "".join(o.get("text", "") for o in nb.cells[0].outputs).strip()


def run_pass(method: str, jobs: int) -> dict:
    """Execute the chosen notebooks (and solved student editions) under ``method``."""
    with tempfile.TemporaryDirectory(prefix="ice-start-method-") as tmp:
        execute_bare.ipython_startup(Path(tmp), STARTUP[method])
        saved = {k: os.environ.get(k) for k in ("IPYTHONDIR", *settings.EXECUTION_ENV)}
        os.environ.update(settings.EXECUTION_ENV, IPYTHONDIR=tmp)
        print(f"== start method {method}", flush=True)
        try:
            said = probe()
            print(f"a kernel of this pass says: {said}", flush=True)
            if not said.startswith(EXPECTED[method]):
                raise SystemExit(f"the startup file did not take effect: {said!r}")
            failures: list[str] = []
            jobs_ = gpu_verify.notebook_jobs(chosen(), students=True)
            passed, failed = gpu_verify.run_notebooks(jobs_, timeout=900, workers=jobs,
                                                      failures=failures)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    return {"method": method, "kernel_says": said, "passed": passed, "failed": failed,
            "notebooks": f"{passed} of {passed + failed} ran with no error cell",
            "failures": failures}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("methods", nargs="*", metavar="METHOD",
                        help=f"start methods to run: {', '.join(STARTUP)} (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at a time")
    parser.add_argument("--list", action="store_true",
                        help="list the notebooks that start processes, and why")
    args = parser.parse_args(argv)
    if args.list:
        for path in chosen():
            print(f"{path}: {', '.join(starts_processes(path))}")
        return 0
    unknown = [m for m in args.methods if m not in STARTUP]
    if unknown:
        parser.error(f"unknown start method {unknown}; choose from {', '.join(STARTUP)}")
    import torch

    rows = [run_pass(method, args.jobs) for method in args.methods or list(STARTUP)]
    RECORD.write_text(json.dumps({
        "date": datetime.date.today().isoformat(),
        "python": sys.version.split()[0], "torch": torch.__version__,
        "notebooks": [str(p) for p in chosen()], "passes": rows,
    }, indent=2) + "\n")
    print(f"\nstart methods (wrote {RECORD.relative_to(ROOT)}):")
    for row in rows:
        print(f"  {row['method']:<11} {row['notebooks']}")
        for line in row["failures"]:
            print("      ", line)
    return 0 if all(row["failed"] == 0 for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
