"""Will this file save and load safely? Save atomically, load safely, find the latest.

Taught in the Checkpoints chapter (``book/checkpoints.ipynb``) and its lab
(``labs/lab-resume.ipynb``)::

    save_checkpoint(folder / f"step-{step:06d}.pt", keep=3, is_best=improved,
                    step=step, model=model.state_dict(), optimizer=opt.state_dict(),
                    rng=capture_rng(sampler))  # capture_rng: ice_lab.resume
    ckpt = load_checkpoint(latest_checkpoint(folder), map_location="cpu", model=model)

* ``save_checkpoint`` writes a temporary file in the same folder, flushes it, calls
  ``fsync``, then renames it onto the final name with ``os.replace``: a crash leaves the
  old file or the new one, never half of one. It keeps the newest ``keep`` numbered files, plus ``best.pt``.
* ``load_checkpoint`` uses ``torch.load(weights_only=True)`` (it never runs code from the
  file), checks the zip's CRCs first (``torch.load`` does not: a flipped byte in a tensor
  loads silently), and turns every failure into a ``CheckpointError`` that names the file,
  what is wrong with it and what to do.

The two neighbouring questions have their own modules: ``capture_rng``, ``restore_rng``
and ``ResumableSampler`` ("will my resume be exact?") live in ``ice_lab.resume``;
``diff_state_dict`` ("why won't this state_dict fit my model?", which ``load_checkpoint``
asks when given a model) in ``ice_lab.state_dict_diff``.
"""

from __future__ import annotations

import os
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any, Mapping

import torch
from torch import nn

from . import state_dict_diff  # the module, not its names: one import path per name
from ._args import check_int
from ._text import error_line, first_line

__all__ = ["CheckpointError", "save_checkpoint", "load_checkpoint", "latest_checkpoint"]

_TMP = re.compile(r"^\.(?P<name>.+)\.tmp-(?P<pid>\d+)$")
_NUMBERED = re.compile(r"^(?P<prefix>.*?)(?P<number>\d+)(?P<suffix>\.[A-Za-z0-9]+)$")


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be used; the message names the file and what to do.

    ``reason`` is one of ``"missing"``, ``"empty"``, ``"truncated"``, ``"corrupt"``,
    ``"not_a_checkpoint"``, ``"unsafe"``, ``"device"``, ``"mismatch"``; ``path`` is the file.
    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """

    def __init__(self, path: str | os.PathLike[str], reason: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = str(path)
        self.reason = reason


# --------------------------------------------------------------------------- saving
def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows cannot open a folder
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _atomic_write(obj: Any, target: Path) -> None:
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)  # atomic: readers see the old file or the new one
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _remove_stale_temporaries(folder: Path) -> None:
    """Temporary files left by a save that was killed (its process is gone)."""
    for entry in folder.iterdir():
        m = _TMP.match(entry.name)
        if m and int(m["pid"]) != os.getpid() and not _pid_alive(int(m["pid"])):
            entry.unlink(missing_ok=True)


def _numbered_siblings(path: Path) -> list[tuple[int, Path]]:
    m = _NUMBERED.match(path.name)
    if m is None:
        return []
    pattern = re.compile(re.escape(m["prefix"]) + r"(\d+)" + re.escape(m["suffix"]) + "$")
    found = []
    for entry in path.parent.iterdir():
        hit = pattern.match(entry.name)
        if hit and entry.is_file():
            found.append((int(hit[1]), entry))
    return sorted(found)


def save_checkpoint(
    path: str | os.PathLike[str],
    *,
    keep: int | None = 3,
    is_best: bool = False,
    best_name: str = "best.pt",
    **state: Any,
) -> Path:
    """Save ``state`` (a dict of your choosing) to ``path`` atomically; return the path.

    ``save_checkpoint(folder / "step-000120.pt", step=120, model=model.state_dict(),
    optimizer=opt.state_dict(), rng=capture_rng(sampler))``

    The dict is written to a temporary file in the same folder (``.NAME.tmp-PID``), flushed
    and ``fsync``-ed, then renamed onto ``path`` with ``os.replace``: whatever kills the
    process, ``path`` holds either the previous complete file or the new complete one.

    Args:
        path: the file; the folder is created if needed. A number in the name
            (``step-000120.pt``) makes it one of a series.
        keep: how many files of the series to keep (the highest numbers); older ones are
            deleted after the new file is in place. ``None`` keeps all.
        is_best: also write the same state to ``best_name`` in the same folder (atomically).
        **state: what to save: tensors, state_dicts, numbers, strings, lists, dicts (what
            ``torch.load(weights_only=True)`` can read back; no model objects).

    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """
    if not state:
        raise ValueError(
            "save_checkpoint() got nothing to save: pass the state as keywords, e.g. "
            "save_checkpoint(path, step=step, model=model.state_dict(), "
            "optimizer=optimizer.state_dict())."
        )
    for key, value in state.items():
        if isinstance(value, (nn.Module, torch.optim.Optimizer)):
            raise TypeError(
                f"save_checkpoint(): {key}= is a {type(value).__name__} object; save its "
                f"state instead ({key}={key}.state_dict()): a pickled object needs its class "
                "to load, and torch.load(weights_only=True) refuses it."
            )
    if keep is not None:
        keep = check_int("keep", keep, 1)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(target.parent)
    _atomic_write(state, target)
    if is_best:
        _atomic_write(state, target.with_name(best_name))
    if keep is not None:
        for _, old in _numbered_siblings(target)[:-keep]:
            if old != target:
                old.unlink(missing_ok=True)
    return target


def latest_checkpoint(folder: str | os.PathLike[str], pattern: str = "*.pt") -> Path | None:
    """The numbered checkpoint with the highest number in ``folder`` (``None`` if there is
    none). Temporary files of an interrupted save and ``best.pt`` are never returned.

    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """
    folder = Path(folder)
    if not folder.is_dir():
        return None
    numbered = []
    for entry in folder.glob(pattern):
        m = _NUMBERED.match(entry.name)
        if m and not entry.name.startswith(".") and entry.is_file():
            numbered.append((int(m["number"]), entry.name, entry))
    return max(numbered)[2] if numbered else None


# --------------------------------------------------------------------------- loading
def _check_file(path: Path) -> None:
    if not path.exists():
        near = sorted(p.name for p in path.parent.glob("*")) if path.parent.is_dir() else []
        listing = f" The folder holds: {', '.join(near[:8])}." if near else ""
        raise CheckpointError(path, "missing", "no such checkpoint file." + listing)
    size = path.stat().st_size
    if size == 0:
        raise CheckpointError(
            path, "empty", "the file is empty (0 bytes): a save without a temporary file "
            "was interrupted before it wrote anything, or a copy failed. Load the previous "
            "checkpoint."
        )
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"PK\x03\x04":
        if head[:1] == b"\x80":  # a pickle: the legacy format of torch < 1.6
            return
        text = head.decode("ascii", "replace")
        raise CheckpointError(
            path, "not_a_checkpoint", f"this is not a PyTorch checkpoint (it starts with "
            f"{text!r}, not the zip header of torch.save). Check the file name: is it the "
            "CSV log, a config, or a file from another library?"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()  # reads every record and checks its CRC-32
            names = archive.namelist()
    except zipfile.BadZipFile as err:
        raise CheckpointError(
            path, "truncated", f"the file is truncated ({size} bytes; {err}): a save was "
            "interrupted, or a copy did not finish. Load the previous checkpoint."
        ) from None
    except (OSError, EOFError) as err:
        raise CheckpointError(path, "truncated", f"cannot be read to the end ({err}).") from None
    if bad is None and not any(n.endswith("data.pkl") for n in names):
        raise CheckpointError(
            path, "not_a_checkpoint", "this is a zip file, but not one torch.save wrote "
            "(no data.pkl inside). Check the file name."
        )
    if bad is not None:
        raise CheckpointError(
            path, "corrupt", f"the file is corrupt: record {bad!r} fails its CRC check "
            "(bytes changed on disk or in transfer). torch.load would load the wrong "
            "numbers without a word. Load the previous checkpoint or copy the file again."
        )


def _model_state(ckpt: Any) -> Mapping[str, Any] | None:
    if isinstance(ckpt, Mapping):
        if "model" in ckpt and isinstance(ckpt["model"], Mapping):
            return ckpt["model"]
        if ckpt and all(isinstance(v, torch.Tensor) for v in ckpt.values()):
            return ckpt  # a bare state_dict
    return None


def load_checkpoint(
    path: str | os.PathLike[str],
    map_location: Any = None,
    *,
    model: nn.Module | None = None,
    weights_only: bool = True,
) -> Any:
    """Load what ``save_checkpoint`` (or ``torch.save``) wrote, safely.

    Args:
        path: the file.
        map_location: where tensors go, as in ``torch.load`` (``"cpu"`` to load a GPU
            checkpoint on a machine without one).
        model: optional; when given, the checkpoint's model state (``ckpt["model"]``, or
            the whole file if it is a bare state_dict) is compared with ``model``'s keys
            and shapes first, and a mismatch is an error with the table of differences.
            The model is not modified: call ``model.load_state_dict(ckpt["model"])``.
        weights_only: passed to ``torch.load``; keep ``True``: the file can then hold only
            tensors and plain containers, and no code in it runs.

    Raises ``CheckpointError`` (``.reason``, ``.path``) for a missing, empty, truncated,
    corrupt, unsafe, wrong-device or not-a-checkpoint file and for a different model.
    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """
    path = Path(path)
    _check_file(path)
    try:
        ckpt = torch.load(path, map_location=map_location, weights_only=weights_only)
    except pickle.UnpicklingError as err:
        if "GLOBAL" not in str(err) and not zipfile.is_zipfile(path):
            raise CheckpointError(
                path, "not_a_checkpoint", "this is a pickle, but not one torch.save wrote "
                "(a file from pickle.dump or another library?). Check the file name."
            ) from err
        raise CheckpointError(
            path, "unsafe", "torch.load(weights_only=True) refused it: the file holds "
            f"pickled objects, not only tensors ({_refused_global(err)}). If you wrote the "
            "file yourself, allow your class with torch.serialization.add_safe_globals; "
            "never pass weights_only=False for a file you did not make."
        ) from err
    except RuntimeError as err:
        if "torch.cuda.is_available() is False" in str(err):
            raise CheckpointError(
                path, "device", "it was saved from a GPU and this machine has no CUDA: "
                "pass map_location='cpu'."
            ) from err
        if "magic number" in str(err):
            raise CheckpointError(
                path, "not_a_checkpoint", "this is a pickle, but not one torch.save wrote "
                f"({first_line(err)})."
            ) from err
        raise CheckpointError(path, "corrupt", f"torch.load failed: {first_line(err)}") from err
    except (EOFError, IndexError, KeyError, ValueError) as err:
        raise CheckpointError(
            path, "not_a_checkpoint", "this pickle is not a PyTorch checkpoint "
            f"({error_line(err)})."
        ) from err
    if model is not None:
        state = _model_state(ckpt)
        if state is None:
            raise CheckpointError(
                path, "mismatch", "no model state in it: expected a dict with a 'model' "
                f"state_dict or a bare state_dict, found {_describe(ckpt)}."
            )
        diff = state_dict_diff.diff_state_dict(state, model)
        if not diff.ok:
            raise CheckpointError(
                path, "mismatch", f"it is not a checkpoint of this model "
                f"({type(model).__name__}):\n{diff}"
            )
    return ckpt


def _refused_global(err: BaseException) -> str:
    m = re.search(r"GLOBAL (\S+)", str(err))
    return f"it refused {m[1]}" if m else first_line(err, 120)


def _describe(obj: Any) -> str:
    if isinstance(obj, Mapping):
        return f"a dict with keys {sorted(map(str, obj))[:6]}"
    return f"a {type(obj).__name__}"
