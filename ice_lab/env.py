"""What machine am I on, and how do I make a run repeatable?

Taught in the front matter ("Your environment", ``book/environment.ipynb``) and in the
Tensors chapter (``book/tensors.ipynb``); ``set_seed`` comes back in the Training chapter.
"""

from __future__ import annotations

import os
import platform
import random
import sys
from dataclasses import dataclass, field

import numpy as np
import torch

from ._args import check_int

__all__ = ["EnvReport", "report", "best_device", "set_seed"]

_MAX_SEED = 2**32 - 1


@dataclass
class EnvReport:
    """The facts ``report()`` gathers; ``str(report())`` formats them one per line.
    Taught in "Your environment" (``book/environment.ipynb``)."""

    python: str
    platform: str
    ice_lab: str
    torch: str
    numpy: str
    cuda_available: bool
    cuda_version: str | None
    cudnn_version: int | None
    mps_available: bool
    cpu_threads: int
    best_device: str
    gpus: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [
            f"python       {self.python}",
            f"platform     {self.platform}",
            f"ice_lab      {self.ice_lab}",
            f"torch        {self.torch}",
            f"numpy        {self.numpy}",
            f"cpu threads  {self.cpu_threads}",
            f"CUDA         {'available, CUDA ' + str(self.cuda_version) if self.cuda_available else 'not available'}",
            f"cuDNN        {self.cudnn_version if self.cudnn_version is not None else '-'}",
            f"MPS          {'available' if self.mps_available else 'not available'}",
        ]
        lines += [f"GPU {i}        {name}" for i, name in enumerate(self.gpus)]
        lines.append(f"best device  {self.best_device}")
        return "\n".join(lines)


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def report() -> EnvReport:
    """Gather torch / CUDA / cuDNN / MPS availability and versions, GPU names and memory,
    and the Python, NumPy and ``ice_lab`` versions.

    ``print(report())`` is the first thing to paste into a bug report. Taught in
    "Your environment" (``book/environment.ipynb``). ``python -m ice_lab doctor`` prints it.
    """
    from . import __version__

    gpus: list[str] = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            gpus.append(
                f"{props.name}, {props.total_memory / 2**30:.1f} GiB, "
                f"compute capability {props.major}.{props.minor}"
            )
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return EnvReport(
        python=sys.version.split()[0],
        platform=platform.platform(),
        ice_lab=__version__,
        torch=torch.__version__,
        numpy=np.__version__,
        cuda_available=torch.cuda.is_available(),
        cuda_version=torch.version.cuda,
        cudnn_version=cudnn,
        mps_available=_mps_available(),
        cpu_threads=torch.get_num_threads(),
        best_device=str(best_device()),
        gpus=gpus,
    )


def best_device() -> torch.device:
    """The fastest device this machine offers: ``cuda``, then Apple's ``mps``, then ``cpu``.

    Define ``device = best_device()`` once and move model, inputs and labels to it.
    Taught in the Tensors chapter (``book/tensors.ipynb``) and, in depth, in the Devices
    chapter (``book/devices.ipynb``).
    """
    if torch.cuda.is_available():
        return torch.device("cuda")
    if _mps_available():
        return torch.device("mps")
    return torch.device("cpu")


# What set_seed(..., deterministic=True) changed, so that deterministic=False can put it back.
_SAVED: dict[str, object] = {}
_CUBLAS = "CUBLAS_WORKSPACE_CONFIG"
_CUBLAS_VALUE = ":4096:8"


def set_seed(seed: int, deterministic: bool | None = None) -> torch.Generator:
    """Seed Python's ``random``, NumPy, torch (CPU and every CUDA device) and return a
    ``torch.Generator`` seeded the same way, to hand to a ``DataLoader``.

    ``deterministic=True`` also asks PyTorch for deterministic algorithms: it calls
    ``torch.use_deterministic_algorithms(True)``, sets ``torch.backends.cudnn.deterministic
    = True`` and ``torch.backends.cudnn.benchmark = False`` (benchmarking picks kernels by
    speed, run by run), and sets the environment variable ``CUBLAS_WORKSPACE_CONFIG`` to
    ``":4096:8"`` if it is unset (cuBLAS needs a fixed workspace to be deterministic; a
    value you set yourself is kept). An operation with no deterministic implementation
    then raises instead of silently varying.

    ``deterministic=None`` (the default) leaves those switches as they are: a caller who
    turned determinism on keeps it. ``deterministic=False`` turns deterministic algorithms
    and cuDNN's deterministic mode off, and undoes what an earlier ``deterministic=True``
    changed: ``cudnn.benchmark`` gets back the value it had before, and
    ``CUBLAS_WORKSPACE_CONFIG`` is removed if ``set_seed`` was the one that set it.

    A caveat on CUDA: PyTorch reads ``CUBLAS_WORKSPACE_CONFIG`` once, when cuBLAS makes
    its first workspace (the first matrix multiply on the GPU). Set after that, it comes
    too late for this process, and removing it later does not shrink the workspace. For a
    deterministic GPU run, call ``set_seed(seed, deterministic=True)`` before any CUDA
    work, or set the variable before Python starts.

    Taught in the Tensors chapter (``book/tensors.ipynb``, a first seed) and the Schedules
    chapter (``book/schedules.ipynb``, two runs, identical loss curves).
    """
    seed = check_int("seed", seed, 0)  # an int or a NumPy integer, not negative
    if seed > _MAX_SEED:
        raise ValueError(
            f"seed must be at most 2**32 - 1 (NumPy's limit), got {seed}. Pick a smaller number."
        )
    if deterministic is not None and not isinstance(deterministic, bool):
        raise TypeError(
            "deterministic must be True, False or None (leave the switches as they are), "
            f"got {type(deterministic).__name__} {deterministic!r}."
        )
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device
    if deterministic is None:
        pass  # the caller's switches stay as they are
    elif deterministic:
        _SAVED.setdefault("benchmark", torch.backends.cudnn.benchmark)
        torch.backends.cudnn.benchmark = False
        if _CUBLAS not in os.environ:
            os.environ[_CUBLAS] = _CUBLAS_VALUE
            _SAVED["cublas"] = _CUBLAS_VALUE
    else:
        if "benchmark" in _SAVED:
            torch.backends.cudnn.benchmark = bool(_SAVED.pop("benchmark"))
        if _SAVED.pop("cublas", None) is not None and os.environ.get(_CUBLAS) == _CUBLAS_VALUE:
            del os.environ[_CUBLAS]
    if deterministic is not None:
        torch.backends.cudnn.deterministic = deterministic
        torch.use_deterministic_algorithms(deterministic)
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator
