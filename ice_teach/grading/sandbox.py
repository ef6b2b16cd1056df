"""The grading sandbox: each submission's kernel under bubblewrap (ice_teach/grading/cli.py).

Inside it the filesystem holds only what the kernel needs, read-only (the system's /usr,
the Python environment, the installed `ice_lab`), an empty /tmp and home, the kernel's
sockets and, writable, the submission's own folder (its notebook reads as an empty
file).
Everything the course owns is named a *secret*: the repository (labs with solutions),
the lab's folder, the submissions folder (other students), the output folder and the
throw-away course directories (the gradebook, other students' graded copies).

Where the course lives does not matter (home, /tmp, /srv, a path with spaces): bwrap
applies its arguments in order, so they are sorted by depth, parents first. A bind can
then never be hidden by a mount made after it on a folder above it (the old order put
`--tmpfs /tmp` after the venv, and a venv under /tmp vanished), and a secret that lies
inside something bound (a checkout under /usr/src) is covered by an empty tmpfs before
what is needed inside it (its .venv) is bound again on top.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ice_teach import settings

PACKAGE = Path(__file__).resolve().parents[1]  # ice_teach/
ROOT = PACKAGE.parent
INSTALL = ("bwrap (bubblewrap) is needed to grade safely: `apt-get install bubblewrap` "
           "(Debian/Ubuntu), `dnf install bubblewrap` (Fedora)")
OPT_OUT = ("or grade trusted submissions without a sandbox: "
           "`make grade ... UNSANDBOXED=1` (ice-teach grade --no-sandbox)")


class SandboxError(RuntimeError):
    """The sandbox cannot start here; the message says why and what to do."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def needed_dirs() -> list[Path]:
    """What a kernel reads: the venv, the Python install, site-packages, `ice_lab`."""
    dirs = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    spec = importlib.util.find_spec("ice_lab")
    if spec and spec.submodule_search_locations:
        dirs |= {Path(p) for p in spec.submodule_search_locations}
    here = Path.cwd().resolve()  # on sys.path under `python -m`: the teacher's folder, not needed
    for entry in sys.path:  # site-packages, and what .pth files add (read, never edited)
        if entry and Path(entry).is_dir() and Path(entry).resolve() != here:
            dirs.add(Path(entry))
    resolved = {d.resolve() for d in dirs}
    # Never the repository or ice_teach (ice_lab is bound on its own), never /.
    resolved -= {ROOT, PACKAGE, Path("/")}
    return sorted(d for d in resolved
                  if not any(o != d and _inside(d, o) for o in resolved))


def bwrap_prefix(secrets: list[Path], rw: list[Path] = (),
                 threads: int = 1) -> list[str]:
    """The bwrap command up to the program; rw: extra folders to bind writable.

    Raises SandboxError when something the kernel needs is itself a secret."""
    secrets = [Path(s).resolve() for s in secrets]
    ops: list[tuple[int, int, list[str]]] = []  # (depth, order, arguments)

    def add(path: Path | str, args: list[str]) -> None:
        ops.append((len(Path(path).parts), len(ops), args))

    add("/tmp", ["--tmpfs", "/tmp"])
    add("/tmp/home", ["--dir", "/tmp/home"])
    add("/proc", ["--proc", "/proc"])
    add("/dev", ["--dev", "/dev"])
    bound = [Path("/usr")]
    add("/usr", ["--ro-bind", "/usr", "/usr"])
    for link in ("bin", "sbin", "lib", "lib64", "lib32"):
        target = Path("/") / link
        if target.is_symlink():
            add(target, ["--symlink", os.readlink(target), str(target)])
        elif target.is_dir():
            add(target, ["--ro-bind", str(target), str(target)])
            bound.append(target)
    for d in needed_dirs():
        if _inside(d, Path("/usr")):
            continue
        if d in secrets:
            raise SandboxError(f"the Python environment {d} is also a course folder; "
                               "keep the venv and the course apart")
        add(d, ["--ro-bind", str(d), str(d)])
        bound.append(d)
    for s in secrets:  # a secret inside something bound: cover it
        if any(_inside(s, b) and s != b for b in bound) and s.exists():
            if s.is_dir():
                add(s, ["--tmpfs", str(s)])
            else:
                add(s, ["--ro-bind", "/dev/null", str(s)])
    for p in rw:
        add(p, ["--bind", str(p), str(p)])
    ops.sort(key=lambda op: (op[0], op[1]))
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--clearenv"]
    for _, _, args in ops:
        cmd += args
    env = {"HOME": "/tmp/home", "MPLCONFIGDIR": "/tmp/home", "TMPDIR": "/tmp",
           "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
           "LANG": "C.UTF-8", **settings.EXECUTION_ENV, "OMP_NUM_THREADS": str(threads),
           "MKL_NUM_THREADS": str(threads)}
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    return cmd


def write_launcher(path: Path, prefix: list[str] | None) -> None:
    """kernel.sh: the kernel in the sandbox (prefix) or, with prefix None, without one.

    It binds the folder the kernel starts in (the submission's) writable, with every
    notebook in it replaced by an empty file, and the connection file read-only."""
    kernel = f'{shlex.quote(sys.executable)} -m ipykernel_launcher -f "$conn"'
    lines = ["#!/bin/sh", 'conn="$1"']
    if prefix is None:
        lines.append(f"exec {kernel}")
    else:
        lines += [
            'here="$(pwd -P)"',
            'set -- --bind "$here" "$here"',
            'for f in "$here"/*.ipynb; do',
            '  if [ -e "$f" ]; then set -- "$@" --ro-bind /dev/null "$f"; fi',
            "done",
            f"exec {shlex.join(prefix)} \\",
            f'  "$@" --ro-bind "$conn" "$conn" --chdir "$here" {kernel}',
        ]
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o755)


PROBE = """\
import json, os, sys
import ipykernel, nbformat
secrets, allowed = json.loads(sys.argv[1])
seen = []
for secret in secrets:
    for root, dirs, files in os.walk(secret):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in allowed]
        seen += [os.path.join(root, f) for f in files][:3]
    if os.path.isfile(secret):
        seen.append(secret)
print("visible:", seen[:5])
sys.exit(1 if seen else 0)
"""


def check(secrets: list[Path]) -> None:
    """Start the real sandbox once; raise SandboxError saying why and what to do."""
    if not sys.platform.startswith("linux"):
        raise SandboxError(f"the grading sandbox needs Linux (this is {sys.platform}); "
                           f"{OPT_OUT}")
    if shutil.which("bwrap") is None:
        raise SandboxError(f"bwrap is not installed. {INSTALL}; {OPT_OUT}")
    with tempfile.TemporaryDirectory(prefix="ice-grade-probe-") as d:
        prefix = bwrap_prefix(secrets, rw=[Path(d)])
        paths = json.dumps([[str(s) for s in secrets], [str(n) for n in needed_dirs()]])
        probe = prefix + ["--chdir", d, sys.executable, "-c", PROBE, paths]
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=120,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise SandboxError(
                f"bwrap did not start a Python within 120 s; {OPT_OUT}") from None
    if done.returncode == 0:
        return
    err = " ".join((done.stderr or done.stdout).split())[:300]
    if "visible:" in done.stdout:
        raise SandboxError(
            f"the sandbox started but shows course files ({done.stdout.strip()})")
    hint = ""
    if any(w in err for w in ("namespace", "uid map", "Operation not permitted",
                              "Permission denied")):
        hint = (" User namespaces look disabled: "
                "`sysctl kernel.unprivileged_userns_clone=1` (Debian), "
                "`sysctl kernel.apparmor_restrict_unprivileged_userns=0` "
                "(Ubuntu 24.04), "
                "or in Docker run with `--security-opt seccomp=unconfined`.")
    raise SandboxError(f"bwrap cannot start the sandbox here: {err}.{hint} {OPT_OUT}")


def banner(why: str) -> str:
    bar = "!" * 78
    return (f"{bar}\n!! NO SANDBOX: {why}\n"
            "!! Submissions run with this user's rights: they can read every file\n"
            "!! it can"
            " (the solutions, the gradebook, other students) and reach the network.\n"
            f"{bar}")
