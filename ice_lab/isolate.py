"""Run a provocation in a child process, so that what it breaks stays broken over there.

Some failures poison the process that meets them: after a CUDA device-side assert the
CUDA context is unusable until the process exits (``../reference/gpu-probe-h200.log``
shows every later CUDA call failing the same way), a hard crash (``os.abort()``, a
segfault in an extension) kills the Jupyter kernel, and a hang blocks it. ``run_isolated``
runs the code in a fresh Python child process instead and hands back what happened:
exception type and message, ``ice_lab.explain``'s diagnosis, the tails of stdout and
stderr, the exit status, and whether it timed out.

    >>> from ice_lab import run_isolated
    >>> print(run_isolated("import os; os.abort()"))
    died: exit code -6 (SIGABRT) without a Python exception

The child is started with ``subprocess`` (never ``fork``: safe after CUDA was initialised
and inside Jupyter) by ``ice_lab``'s one child runner (``_child.py``, which ``torchrun``
uses too): in its own process group, killed as a whole on timeout; whatever it leaves
running is killed when it ends; the temporary files are always removed. It imports only
what the code imports: a child that does not use torch starts in a fraction of a second.

Taught in the Devices chapter (``book/devices.ipynb``); shown on the toolkit page
(``book/toolkit.ipynb``).
"""

from __future__ import annotations

import builtins
import importlib
import json
import os
import signal
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Union

from . import _child
from ._args import check_number
from ._text import Report, first_line

__all__ = ["IsolatedResult", "NotImportableError", "importable_name", "run_isolated"]

_TAIL = 4000  # characters of stdout / stderr / traceback kept

# The child's program. It reads the job (code or an importable function, and the parent's
# sys.path) from a JSON file and writes its result atomically to another.
_RUNNER = r"""
import json, os, sys, traceback
job_path, result_path = sys.argv[1], sys.argv[2]
code = 0
with open(job_path, encoding="utf-8") as f:
    job = json.load(f)
sys.path[:] = job["path"]

def report(data):
    tmp = result_path + ".part"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, result_path)

try:
    if job["kind"] == "source":
        import linecache
        source = job["source"]
        linecache.cache["<run_isolated>"] = (len(source), None, source.splitlines(True), "<run_isolated>")
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(compile(source, "<run_isolated>", "exec"), namespace)
    else:
        import importlib
        obj = importlib.import_module(job["module"])
        for part in job["qualname"].split("."):
            obj = getattr(obj, part)
        obj()
    outcome = {"ok": True}
except BaseException as err:
    code = 1  # like python itself after an uncaught exception
    if isinstance(err, SystemExit):
        code = err.code if isinstance(err.code, int) else (0 if err.code is None else 1)
    if isinstance(err, SystemExit) and code == 0:
        outcome = {"ok": True}
    else:
        outcome = {
            "ok": False,
            "type": type(err).__name__,
            "module": type(err).__module__,
            "qualname": type(err).__qualname__,
            "mro": [c.__name__ for c in type(err).__mro__],
            "message": str(err),
            "traceback": "".join(traceback.format_exception(type(err), err, err.__traceback__.tb_next)),
        }
sys.stdout.flush()
sys.stderr.flush()
report(outcome)
sys.exit(code)
"""


def _tail(text: str, limit: int = _TAIL) -> str:
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def _signal_name(code: int | None) -> str:
    if code is None or code >= 0:
        return ""
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


@dataclass
class IsolatedResult(Report):
    """What happened in the child process of ``run_isolated``.

    Attributes:
        ok: the code ran to the end (or called ``sys.exit(0)``).
        exception_type: the class name of the exception it raised (``"OutOfMemoryError"``),
            None if it raised none (success, hard death or timeout).
        message: the exception's message (None if none).
        diagnosis: ``ice_lab.explain``'s ``Diagnosis`` of that exception, None if none.
        stdout, stderr: the last few thousand characters the child printed.
        exitcode: the child's exit status; negative for a signal (-6: SIGABRT, -9: killed);
            None if it could not be started.
        timed_out: the child was still running at the timeout and was killed.
        traceback: the child's formatted traceback (tail), "" if none.

    ``str(result)`` is a short report without process ids or timings (stable in notebooks).
    Taught in the Devices chapter (``book/devices.ipynb``).
    """

    ok: bool
    exception_type: str | None = None
    message: str | None = None
    diagnosis: Any = None
    stdout: str = ""
    stderr: str = ""
    exitcode: int | None = None
    timed_out: bool = False
    traceback: str = field(default="", repr=False)
    timeout: float | None = field(default=None, repr=False)

    def __str__(self) -> str:
        if self.timed_out:
            limit = f" after {self.timeout:g} s" if self.timeout is not None else ""
            return f"timed out{limit}: the child process was killed"
        if self.ok:
            return "ok: finished without an exception"
        if self.exception_type is not None:
            first = first_line(self.message)
            lines = [f"raised {self.exception_type}: {first}"]
            d = self.diagnosis
            if d is not None and getattr(d, "kind", "unknown") != "unknown":
                lines.append(f"diagnosis: {d.kind}: {getattr(d, 'summary', '')}")
            return "\n".join(lines)
        if self.exitcode is None:
            return "failed: the child process could not be started"
        sig = _signal_name(self.exitcode)
        how = f"exit code {self.exitcode}" + (f" ({sig})" if sig else "")
        return f"died: {how} without a Python exception"


class NotImportableError(TypeError):
    """A function that a child process cannot import was given to run in one.

    A child process is a fresh Python: it can run a function only by importing it by
    module and name. That rules out a function defined in a notebook cell or in the script
    being run (both live in ``__main__``, which the child does not have), a lambda, and a
    function nested in another. What to do instead: pass the code as a source string,
    ``run_isolated('''...''')``, or move the function to module level in a ``.py``
    file and import it from there. A ``TypeError``: the argument is the wrong kind of
    function. Taught with ``run_isolated`` in the Devices chapter (``book/devices.ipynb``).
    """


def importable_name(fn: Callable[..., Any], caller: str = "run_isolated()") -> tuple[str, str]:
    """``(module, qualname)`` by which a child process can import ``fn``, or
    :class:`NotImportableError` saying why it cannot and what to pass instead.

    The one rule for every ``ice_lab`` child process: a function crosses only if
    ``importlib.import_module(module)`` followed by ``qualname`` gives back the very same
    object, and its module is not ``__main__`` (a notebook or the running script).
    Taught with ``run_isolated`` in the Devices chapter (``book/devices.ipynb``).
    """
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    shown = qualname or repr(fn)
    advice = (
        "A child process can only run a function it can import by module and name. "
        "Pass the code as a source string instead, run_isolated('''...'''), or put the "
        "function at module level in a .py file and import it from there."
    )
    if module == "__main__":
        raise NotImportableError(
            f"{caller} cannot send {shown} to a child process: it is defined in a notebook or "
            "in the script being run (__main__), which the child does not have. " + advice
        )
    if not module or not qualname or "<" in qualname:
        raise NotImportableError(
            f"{caller} cannot send {shown} to a child process: it is defined in a local scope "
            "or is a lambda, so it has no importable name. " + advice
        )
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except Exception:
        obj = None
    if obj is not fn:
        raise NotImportableError(
            f"{caller} cannot import {module}.{qualname} again in a child process: that name does "
            "not lead back to this function. " + advice
        )
    return module, qualname


def _job_for(fn_or_source: Union[Callable[[], Any], str]) -> dict[str, Any]:
    if isinstance(fn_or_source, str):
        source = textwrap.dedent(fn_or_source)
        try:
            compile(source, "<run_isolated>", "exec")
        except SyntaxError as err:
            raise SyntaxError(f"run_isolated(): the source string does not compile: {err.msg} (line {err.lineno})") from None
        return {"kind": "source", "source": source}
    if not callable(fn_or_source):
        raise TypeError(
            "run_isolated() takes a source string (the normal notebook use) or an importable "
            f"function with no arguments, got {type(fn_or_source).__name__}."
        )
    module, qualname = importable_name(fn_or_source)
    return {"kind": "callable", "module": module, "qualname": qualname}


def _rebuild_exception(data: dict[str, Any]) -> BaseException | None:
    """The child's exception, rebuilt in the parent for ``explain`` (class and message)."""
    message = data.get("message") or ""
    mod = sys.modules.get(data.get("module") or "")
    cls: Any = mod
    if mod is not None:
        for part in (data.get("qualname") or "").split("."):
            cls = getattr(cls, part, None)
    if isinstance(cls, type) and issubclass(cls, BaseException):
        try:
            return cls(message)
        except Exception:
            pass
    # A stand-in with the same class name and the nearest built-in base.
    base: type = Exception
    for name in data.get("mro", [])[1:]:
        candidate = getattr(builtins, name, None)
        if isinstance(candidate, type) and issubclass(candidate, Exception):
            base = candidate
            break
    try:
        return type(str(data.get("type") or "Error"), (base,), {})(message)
    except Exception:
        return None


def _diagnose(data: dict[str, Any]) -> Any:
    try:
        from .explainer import explain  # lazily: isolate works without it
    except Exception:
        return None
    try:
        error = _rebuild_exception(data)
        return explain(error if error is not None else f"{data.get('type')}: {data.get('message')}")
    except Exception:
        return None


def run_isolated(fn_or_source: Union[Callable[[], Any], str], timeout: float = 60.0) -> IsolatedResult:
    """Run code in a fresh child Python process and return its outcome as an ``IsolatedResult``.

    Args:
        fn_or_source: a string of Python source (the normal notebook use: a function
            defined in a notebook cannot be imported by another process), or a function
            with no arguments that the child can import by module and name.
        timeout: seconds before the child — and every process it started — is killed.

    Returns:
        an :class:`IsolatedResult`: ``ok``, ``exception_type``, ``message``, ``diagnosis``
        (from ``ice_lab.explain``), ``stdout``/``stderr`` tails, ``exitcode``,
        ``timed_out``. Never raises for what happens in the child: a crash, an abort, a
        hang or an exception is reported. Bad arguments raise ``TypeError`` /
        ``ValueError`` / ``SyntaxError`` (a source string that does not compile); a
        function the child cannot import (defined in a notebook cell or the running
        script, a lambda, a nested function) raises :class:`NotImportableError`, a
        ``TypeError`` that says to pass the code as a source string instead.

    The child runs ``sys.executable`` with the parent's ``sys.path``, working directory and
    environment (plus ``PYTHONUNBUFFERED=1`` so its last prints survive a crash, and
    ``PYTHONFAULTHANDLER=1`` so a crash prints the Python stack to stderr). Its exception
    crosses over as type name and message; ``explain`` sees an exception of the same class
    (or a stand-in with the same name).

    Taught in the Devices chapter (``book/devices.ipynb``), where it contains the CUDA
    device-side assert that would ruin the kernel's CUDA context; shown on the toolkit page
    (``book/toolkit.ipynb``).
    """
    timeout = check_number("timeout", timeout, positive=True, unit="seconds")
    job = _job_for(fn_or_source)
    job["path"] = [p for p in sys.path if isinstance(p, str)]
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")

    with tempfile.TemporaryDirectory(prefix="ice_lab_isolated_") as tmp:
        job_path = os.path.join(tmp, "job.json")
        result_path = os.path.join(tmp, "result.json")
        with open(job_path, "w", encoding="utf-8") as f:
            json.dump(job, f)
        try:
            done = _child.run(
                [sys.executable, "-c", _RUNNER, job_path, result_path], timeout=timeout, env=env
            )
        except OSError as err:
            return IsolatedResult(
                ok=False, stderr=f"could not start {sys.executable}: {err}", timeout=timeout
            )
        data: dict[str, Any] | None = None
        if os.path.exists(result_path):
            try:
                with open(result_path, encoding="utf-8") as f:
                    data = json.load(f)
            except (OSError, ValueError):
                data = None

    result = IsolatedResult(
        ok=False,
        stdout=_tail(done.stdout),
        stderr=_tail(done.stderr),
        exitcode=done.returncode,
        timed_out=done.timed_out,
        timeout=timeout,
    )
    if data is not None and not done.timed_out:
        if data.get("ok"):
            result.ok = True
        else:
            result.exception_type = data.get("type")
            result.message = data.get("message")
            result.traceback = _tail(data.get("traceback", ""))
            result.diagnosis = _diagnose(data)
    return result
