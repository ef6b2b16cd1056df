"""Checks of ``labs/lab-resume.ipynb`` (chapter: Checkpoints) that read and write files:
a colleague's GPU checkpoint of a wrapped model, an atomic save that survives a kill.
The lab calls them through ``ice_lab.checks.resume``.

Every file lives in a temporary folder of the check's own, removed afterwards. The
colleague's file is written here as a GPU machine writes it (every tensor tagged
``cuda:0``), and the learner's loader runs with CUDA hidden from ``torch.load``, so it
fails the same way on a laptop and on a GPU machine.
"""

from __future__ import annotations

import inspect
import io
import os
import shutil
import tempfile
import textwrap
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import torch
from torch import nn

import ice_lab
from ice_lab.checkpoint import CheckpointError, load_checkpoint
from ice_lab.isolate import run_isolated

from ._core import Hints, attempt, need_callable, passed, quote, rng

_colleague = Hints("load_colleague")
_atomic = Hints("atomic_save")


# --------------------------------------------------------------------------- exercise 3
def gpu_file(state: dict[str, torch.Tensor], path: str | os.PathLike[str]) -> None:
    """Save ``state`` as a GPU machine would: every tensor tagged ``cuda:0`` in the file
    (``torch.save``'s zip, with the location in its ``data.pkl`` rewritten)."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    cpu, cuda = b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0"  # pickled strings
    with zipfile.ZipFile(buffer) as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename.endswith("/data.pkl"):
                data = data.replace(cpu, cuda)
            target.writestr(info.filename, data)


@contextmanager
def _no_gpu() -> Iterator[None]:
    """``torch.load`` sees a machine without CUDA, whatever this one has."""
    with mock.patch.object(torch.cuda, "is_available", lambda: False):
        yield


def _call(fn: Callable, path: str, model: nn.Module) -> tuple[Any, str, str]:
    """``fn(path, model)`` without CUDA: (its result, its error's whole message (the key
    names are at its end), the error quoted on one line)."""
    with _no_gpu():
        try:
            return fn(path, model), "", ""
        except Exception as err:  # the learner's error is quoted in the hint
            return None, str(err), quote(err)


def _classifier() -> nn.Module:  # the lab's make_classifier, for the drawn cases
    return nn.Sequential(OrderedDict(
        features=nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU()),
        head_module=nn.Linear(32, 10)))


def _same(model: nn.Module, state: dict[str, torch.Tensor]) -> bool:
    mine = model.state_dict()
    return mine.keys() == state.keys() and all(torch.equal(mine[k], v)
                                               for k, v in state.items())


def load_colleague(fn: Callable, make_classifier: Callable[[], nn.Module], *,
                   seed: int | None = None) -> None:
    """``fn(path, model)`` loads a colleague's GPU checkpoint of a wrapped model (keys
    ``module.``...) into ``model`` on a CPU machine, strictly, and returns ``model``: it
    removes the prefix only where a key starts with it, loads a file without the prefix
    unchanged, and refuses a file whose keys, once stripped, do not match the model."""
    need_callable(fn, "load_colleague")
    h = _colleague.require
    gen = rng(seed, 7)
    with tempfile.TemporaryDirectory(prefix="check_colleague_") as folder:
        def path(name: str) -> str:
            return os.path.join(folder, name)

        _ = ice_lab.set_seed(gen.randrange(2**31) if seed is not None else 7)
        build = make_classifier if seed is None else _classifier
        theirs = build().state_dict()
        gpu_file({"module." + k: v for k, v in theirs.items()}, path("colleague.pt"))
        model = build()
        before = model.get_parameter("head_module.weight").clone()
        loaded, raw, error = _call(fn, path("colleague.pt"), model)
        h(not error or "CUDA" not in error,
          "load_colleague fails on a machine without a GPU: the file's tensors are "
          f"tagged cuda:0, and torch.load puts them there ({error}). 3.1 Provoke showed "
          "what PyTorch's message says to do.", kind="cuda")
        h(not error,
          "load_state_dict refused the keys: 'head_module' contains 'module.' too, so "
          "str.replace('module.', '') renames it to 'head_weight'. Remove the prefix "
          f"only at the start of each key. ({error[:110]})" if "head_weight" in raw
          else f"load_colleague fails on the colleague's file ({error}).")
        h(loaded is model, "Return the model you loaded the weights into.")
        h(not torch.equal(model.get_parameter("head_module.weight"), before),
          "The weights did not change: nothing was loaded. load_state_dict(..., "
          "strict=False) skips every key that does not match, here all, and says "
          "nothing.", kind="nothing")
        h(_same(model, theirs), "Some weights differ from the colleague's model.")
        h(all(t.device.type == "cpu" for t in model.state_dict().values()),
          "The model's weights left the CPU.")
        _key_names(fn, path, gen)
        _refused(fn, path, build, theirs)
    passed("the colleague's weights load on the CPU, prefixed or not; keys that do not "
           "match are refused.")


def _key_names(fn: Callable, path: Callable[[str], str], gen: Any) -> None:
    """A prefix-free key that starts with letters of "module." must survive."""
    h = _colleague.require
    _ = ice_lab.set_seed(gen.randrange(2**31))
    names = ["encoder", "decoder", "ln_module"] + gen.sample(
        ["modules", "mod", "embed", "unet", "m_head", "submodule"], 2)

    def arch() -> nn.Module:
        return nn.ModuleDict({n: (nn.LayerNorm(3) if n.startswith("ln") else
                                  nn.Linear(3, 3)) for n in names})

    theirs = arch().state_dict()
    torch.save({"module." + k: v for k, v in theirs.items()}, path("wrapped_keys.pt"))
    torch.save(theirs, path("plain_keys.pt"))
    for name in ("wrapped_keys.pt", "plain_keys.pt"):
        fresh = arch()
        _, raw, error = _call(fn, path(name), fresh)
        hint = ("strips a set of characters, not a prefix: 'module.encoder.weight' loses "
                "the e of encoder. Remove the prefix only where a key starts with it."
                if "'ncoder." in raw or '"ncoder.' in raw else
                "A file without the prefix must load unchanged: strip 'module.' only at "
                "the start of a key that has it, not 7 characters or the first "
                "'module.' anywhere." if name == "plain_keys.pt" else
                "The check could not tell what went wrong: strip 'module.' only at the "
                "start of each key that has it.")
        shown = ", ".join(f"'{k}'" for k in list(theirs)[:3])
        h(not error, f"load_colleague fails on {name}, keys like {shown} ({error}). "
          + hint, kind=hint[:20])
        h(_same(fresh, theirs),
          f"After load_colleague on {name} some weights differ from the file's.")


def _refused(fn: Callable, path: Callable[[str], str], build: Callable,
             theirs: dict[str, torch.Tensor]) -> None:
    """Files whose keys, once stripped, do not fit: one key too many, one missing."""
    h = _colleague.require
    keys = list(theirs)
    extra = {**theirs, "head_module.temperature": torch.ones(1)}
    lacking = {k: v for k, v in theirs.items() if k != keys[-1]}
    for name, state, what in (
            ("extra_key.pt", extra, "one key the model does not have "
             "('head_module.temperature', an unexpected key)"),
            ("missing_key.pt", lacking, f"one of the model's keys missing ('{keys[-1]}')")):
        gpu_file({"module." + k: v for k, v in state.items()}, path(name))
        _, _, error = _call(fn, path(name), build())
        h(error,
          f"load_colleague loaded a file with {what} without a word. The exercise asks "
          "for a strict load: a non-strict one (strict=False), or keys filtered to the "
          "model's, hides every mismatch, a renamed layer's and a missing weight's too, "
          "and the model trains on from weights nobody loaded.", kind="strict",
          more="3.3 Diagnose: diff_state_dict shows what a strict load_state_dict would "
          "refuse.")


# --------------------------------------------------------------------------- exercise 4
#: A child process whose ``torch.save`` writes half of its bytes at save ``KILL_AT``
#: and then kills its own process, as a ``kill -9`` arriving at that instant would.
KILL_ON_SAVE = '''
import io, os, signal, torch
real_save, saves = torch.save, [0]

def save_half_then_die(obj, f, *args, **kwargs):
    saves[0] += 1
    if saves[0] < KILL_AT or BEFORE_RENAME:
        return real_save(obj, f, *args, **kwargs)
    if isinstance(f, (str, os.PathLike)):
        f = open(f, "wb")
    buffer = io.BytesIO()
    real_save(obj, buffer)
    f.write(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    f.flush()
    os.kill(os.getpid(), signal.SIGKILL)

torch.save = save_half_then_die
'''
#: Records every fsync and rename; with BEFORE_RENAME, kills at the rename of save KILL_AT.
FSYNC_WATCH = '''
import stat
real_fsync, real_replace, real_rename = os.fsync, os.replace, os.rename
synced, renamed = [], []

def fsync_watched(fd):
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        if renamed:
            renamed.clear()
            os.write(1, b"folder fsync after the rename\\n")
    else:
        synced.append(fd)
    return real_fsync(fd)

def rename_watched(src, dst, real, name):
    if not str(dst).endswith("last.pt"):  # not a checkpoint (run_isolated's own files)
        return real(src, dst)
    folders = {os.path.dirname(os.path.abspath(p)) for p in (src, dst)}
    os.write(1, f"{name}; fsync before it: {bool(synced)}; "
                f"same folder: {len(folders) == 1}\\n".encode())
    if BEFORE_RENAME and saves[0] >= KILL_AT:
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)
    synced.clear()
    renamed.append(dst)
    os.write(1, b"renamed onto last.pt\\n")

os.fsync = fsync_watched
os.replace = lambda src, dst: rename_watched(src, dst, real_replace, "os.replace")
os.rename = lambda src, dst: rename_watched(src, dst, real_rename, "os.rename")
'''
#: The training script: one "step" adds 1 to w; a save every 5 steps, onto ex4/last.pt.
TRAINING = '''
os.makedirs("ex4", exist_ok=True)
w = torch.zeros(1000)
for step in range(1, 31):
    w += 1.0
    if step % 5 == 0:
        save({"step": step, "w": w.clone()}, "ex4/last.pt")
'''
_IMPORTS = "import os\nimport shutil\nimport tempfile\nfrom pathlib import Path\n"


def atomic_save(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(state, path)`` replaces ``path`` atomically: a process killed during the save,
    or just before the rename, leaves the last complete checkpoint; the bytes are
    fsync-ed before the rename, the temporary file sits beside ``path``, the folder is
    fsync-ed after it; ``str`` or ``Path``; nothing left behind, even when a save fails."""
    need_callable(fn, "atomic_save")
    h = _atomic.require
    source, error = attempt(inspect.getsource, fn)
    h(not error, f"The check cannot read the source of atomic_save ({error}): define it "
      "with def in the cell under 4.4 Fix.")
    gen = rng(seed, 4)
    kills = [4] if seed is None else [gen.randint(2, 6)]
    with tempfile.TemporaryDirectory(prefix="check_atomic_") as folder:
        for kill_at in kills:
            for before_rename in (False, True):
                _killed(textwrap.dedent(source), fn.__name__, folder, kill_at,
                        before_rename)
        _in_process(fn, folder, gen)
    passed("last.pt survives a kill during the save and before the rename; nothing "
           "left behind.")


def _killed(source: str, name: str, folder: str, kill_at: int,
            before_rename: bool) -> None:
    h = _atomic.require
    shutil.rmtree(Path(folder, "ex4"), ignore_errors=True)
    result = run_isolated(
        f"import os\nos.chdir({folder!r})\nKILL_AT = {kill_at}\n"
        f"BEFORE_RENAME = {before_rename}\n" + KILL_ON_SAVE + FSYNC_WATCH + _IMPORTS
        + source + f"\nsave = {name}\n" + TRAINING, timeout=120)
    out = result.stdout
    h("os.rename;" not in out,
      "atomic_save renames with os.rename: it replaces path on Linux and macOS but "
      "fails on Windows when path exists. Which rename replaces a file everywhere?")
    h("same folder: False" not in out,
      "The temporary file is not in path's folder (the system's temp folder?): there it "
      "can sit on another filesystem, where a rename is a copy and not atomic.")
    h(not result.exception_type,
      f"atomic_save fails in the training script ({result.exception_type}: "
      f"{' '.join(str(result.message).split())[:150]}).")
    h(result.exitcode == -9,
      "atomic_save never renames a temporary file onto path: writing a temporary file "
      "and then copying it onto path is not atomic." if "os.replace;" not in out else
      f"The training script was not killed as planned: {result}")
    try:
        ckpt = load_checkpoint(Path(folder, "ex4", "last.pt"))
    except CheckpointError as err:
        ckpt = {"step": None, "error": err.reason}
    good = (kill_at - 1) * 5
    h(ckpt["step"] == good and torch.equal(ckpt["w"], torch.full((1000,), float(good))),
      f"After the kill, last.pt must still hold the whole checkpoint of step {good}; it "
      f"holds {ckpt.get('error', ckpt['step'])}. torch.save(state, path) empties path "
      "before writing: the old checkpoint is gone before the new one exists.",
      kind="kill", more="the chapter's section on saving safely: which file operation "
      "is atomic?")
    h("fsync before it: False" not in out,
      "os.replace ran before the temporary file's bytes were fsync-ed: after a power cut "
      "the renamed file can be empty (a flush moves them to the system, not the disk).")
    h("os.replace;" in out,
      "atomic_save must end with an atomic rename of a complete file onto path: writing "
      "a temporary file and then copying it, or saving onto path directly, is not "
      "atomic.")
    renames = out.count("renamed onto last.pt")
    syncs = out.count("folder fsync after the rename")
    h(os.name != "posix" or syncs == renames,
      f"{renames} renames onto last.pt, {syncs} fsyncs of the folder after one: the new "
      "name lives in the folder, and until the folder is fsync-ed a power cut can bring "
      "back the old file, or none.")


def _in_process(fn: Callable, folder: str, gen: Any) -> None:
    """A str and a Path, onto an old file; a save that fails keeps the old file and
    leaves no temporary file."""
    h = _atomic.require
    sub = Path(folder, "sub")
    sub.mkdir()
    name = f"x{gen.randrange(100)}.pt"
    target = sub / name
    _, error = attempt(fn, {"step": 1}, str(target))
    if not error:
        _, error = attempt(fn, {"step": 2}, target)  # a Path, onto an old file
    h(not error, f"atomic_save fails on a str or a Path ({error}).")
    left = sorted(p.name for p in sub.iterdir())
    h(left == [name], f"Temporary files left behind: {left}.")
    h(torch.load(target, weights_only=True)["step"] == 2,
      "A second save onto the same path did not replace the file.")
    _, error = attempt(fn, {"step": 3, "bad": lambda: 0}, target)  # cannot be pickled
    left = sorted(p.name for p in sub.iterdir())
    h(error, "A save that cannot be pickled must raise.")
    h(left == [name], f"A failed save left temporary files behind: {left}. Nothing of a "
      "failed save may stay in the folder.")
    h(torch.load(target, weights_only=True)["step"] == 2, "A failed save must keep the old file.")
