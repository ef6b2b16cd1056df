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

__all__ = ["EnvReport", "report", "best_device", "set_seed"]

_MAX_SEED = 2**32 - 1


@dataclass
class EnvReport:
    """The facts ``report()`` gathers; ``str(report())`` formats them one per line."""

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
    Taught in the Tensors chapter and, in depth, in the Devices chapter.
    """
    if torch.cuda.is_available():
        return torch.device("cuda")
    if _mps_available():
        return torch.device("mps")
    return torch.device("cpu")


def set_seed(seed: int, deterministic: bool = False) -> torch.Generator:
    """Seed Python's ``random``, NumPy, torch (CPU and every CUDA device) and return a
    ``torch.Generator`` seeded the same way, to hand to a ``DataLoader``.

    ``deterministic=True`` also asks PyTorch for deterministic algorithms
    (``torch.use_deterministic_algorithms(True)``, cuDNN deterministic, no cuDNN
    benchmarking, and the cuBLAS workspace setting CUDA needs); an operation with no
    deterministic implementation then raises instead of silently varying.
    ``deterministic=False`` switches those settings back off.

    Taught in the Tensors chapter (a first seed) and the Training chapter
    (two runs, identical loss curves).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(
            f"set_seed expects an integer seed, got {type(seed).__name__} {seed!r}. "
            "Pass a whole number such as set_seed(0)."
        )
    if not 0 <= int(seed) <= _MAX_SEED:
        raise ValueError(
            f"set_seed expects a seed between 0 and 2**32 - 1 (NumPy's limit), got {seed}. "
            "Pick a smaller non-negative number."
        )
    if not isinstance(deterministic, bool):
        raise TypeError(
            f"deterministic must be True or False, got {type(deterministic).__name__} {deterministic!r}."
        )
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = deterministic
    if deterministic:
        # cuBLAS needs a fixed workspace to be deterministic (CUDA >= 10.2).
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(deterministic)
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator
