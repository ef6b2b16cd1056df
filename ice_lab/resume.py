"""Will my resume be exact? The random state and the shuffle position a resumed run needs.

* ``capture_rng`` / ``restore_rng``: Python, NumPy and torch (CPU and CUDA) generators,
  a DataLoader's own generator, and the shuffle position of a ``ResumableSampler``;
* ``ResumableSampler``: a shuffling sampler whose order can be saved and resumed mid-epoch.

Saved with ``save_checkpoint(..., rng=capture_rng(sampler))`` (``checkpoint.py``). Taught
in the Checkpoints chapter (``book/checkpoints.ipynb``) and its lab
(``labs/lab-resume.ipynb``).
"""

from __future__ import annotations

import random
from typing import Any, Iterator, Mapping

import numpy as np
import torch
from torch.utils.data import Sampler

from ._args import check_int

__all__ = ["ResumableSampler", "capture_rng", "restore_rng"]


class ResumableSampler(Sampler[int]):
    """A shuffling sampler whose order can be saved and resumed mid-epoch.

    Epoch ``e`` visits ``torch.randperm(n)`` drawn from a generator seeded ``seed + e``
    (like ``DistributedSampler``), so the order depends on nothing else. It counts the
    indices it has handed out; ``state_dict()`` holds ``seed``, ``epoch`` and ``position``,
    and after ``load_state_dict`` the next pass continues that epoch from ``position``.
    Passes after that move on to the next epochs. The count is exact with
    ``num_workers=0``; worker processes fetch ahead, so then save the number of samples
    your loop consumed: ``state["position"] = batches_done * batch_size``.

    Use it as ``DataLoader(dataset, batch_size=..., sampler=ResumableSampler(len(dataset)))``.
    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """

    def __init__(self, n: int, seed: int = 0) -> None:
        self.n = check_int("n", n, 1)
        self.seed = check_int("seed", seed, 0)
        self.epoch = 0
        self.position = 0

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[int]:
        generator = torch.Generator().manual_seed(self.seed + self.epoch)
        order = torch.randperm(self.n, generator=generator).tolist()
        while self.position < self.n:
            index = order[self.position]
            self.position += 1
            yield index
        self.epoch += 1
        self.position = 0

    def state_dict(self) -> dict[str, int]:
        return {"seed": self.seed, "epoch": self.epoch, "position": self.position}

    def load_state_dict(self, state: Mapping[str, int]) -> None:
        for key in ("seed", "epoch", "position"):
            if key not in state:
                raise KeyError(f"ResumableSampler state needs {key!r}; got {sorted(state)}.")
        self.seed = check_int("seed", state["seed"], 0)
        self.epoch = check_int("epoch", state["epoch"], 0)
        self.position = check_int("position", state["position"], 0)
        if self.position > self.n:
            raise ValueError(f"position {self.position} is past the {self.n} samples.")


def capture_rng(
    sampler: ResumableSampler | None = None, *, generator: torch.Generator | None = None
) -> dict[str, Any]:
    """Every random state a resumed run needs, as a dict ``torch.load(weights_only=True)``
    reads back: Python's ``random``, NumPy's global generator, torch's CPU generator,
    every CUDA device's generator (when CUDA is available), ``sampler``'s position, and
    the state of ``generator``, the one handed to ``DataLoader(generator=...)``: each
    ``iter(loader)`` draws the workers' base seed from it, so with ``num_workers > 0`` and
    random augmentation in the workers a resume is exact only if it is restored too.

    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """
    np_state = np.random.get_state(legacy=False)
    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": {
            "key": torch.from_numpy(np_state["state"]["key"].astype(np.int64)),
            "pos": int(np_state["state"]["pos"]),
            "has_gauss": int(np_state["has_gauss"]),
            "gauss": float(np_state["gauss"]),
        },
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    if sampler is not None:
        state["sampler"] = sampler.state_dict()
    if generator is not None:
        if not isinstance(generator, torch.Generator):
            raise TypeError(
                f"capture_rng: generator must be the torch.Generator given to the DataLoader, "
                f"got {type(generator).__name__}."
            )
        state["loader_generator"] = generator.get_state()
    return state


def restore_rng(
    state: Mapping[str, Any],
    sampler: ResumableSampler | None = None,
    *,
    generator: torch.Generator | None = None,
) -> None:
    """Put back what ``capture_rng`` saved (and ``sampler``'s position, and the loader's
    ``generator``, if given).

    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """
    missing = [k for k in ("python", "numpy", "torch") if k not in state]
    if missing:
        raise KeyError(f"restore_rng: the state lacks {missing}; pass what capture_rng() returned.")
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    np_state = state["numpy"]
    key = np.asarray(np_state["key"].numpy(), dtype=np.int64).astype(np.uint32)
    np.random.set_state(
        ("MT19937", key, int(np_state["pos"]), int(np_state["has_gauss"]), float(np_state["gauss"]))
    )
    torch.set_rng_state(state["torch"].cpu())
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda"]])
    if sampler is not None:
        if "sampler" not in state:
            raise KeyError("restore_rng: no sampler state saved; call capture_rng(sampler).")
        sampler.load_state_dict(state["sampler"])
    if generator is not None:
        if "loader_generator" not in state:
            raise KeyError(
                "restore_rng: no loader generator saved; call capture_rng(generator=...)."
            )
        generator.set_state(state["loader_generator"].cpu())
