"""Check of exercise 4 of ``labs/lab-datasets.ipynb`` (chapter: Datasets and DataLoader,
``book/datasets.ipynb``), the open one: a colleague's training set that drops its faint
digits and keeps every label. ``ice_lab.checks.datasets`` imports it, so the lab calls
``check.train_set``."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..data import digits_arrays, digits_split_indices
from ._core import Hints, attempt, need_callable, passed, rng

_train_set = Hints("make_train_set")


def colleague_reference(min_ink: float) -> tuple[torch.Tensor, torch.Tensor, int]:
    """What the colleague's training set should hold for ``min_ink``: its normalised
    images, their labels, and how many training digits there are before the cleaning."""
    images, labels = digits_arrays()
    train_idx, _, _ = digits_split_indices(seed=0)
    pixels = torch.tensor(images[train_idx] / 16.0, dtype=torch.float32).unsqueeze(1)
    keep = pixels.mean(dim=(1, 2, 3)) > min_ink
    kept = pixels[keep]
    normalised = (kept - kept.mean()) / kept.std()
    return normalised, torch.from_numpy(labels[train_idx])[keep], len(train_idx)


def train_set(make: Callable, *, seed: int | None = None) -> None:
    """``make(min_ink)`` returns the colleague's training set, repaired: the training
    digits without those whose mean ink is at most ``min_ink``, normalised with the kept
    images' statistics, each with its own label."""
    need_callable(make, "make_train_set")
    h = _train_set.require
    gen = rng(seed, 4)
    inks = (0.25, 0.3) if seed is None else (round(gen.uniform(0.2, 0.33), 3),
                                             round(gen.uniform(0.2, 0.33), 3))
    for min_ink in inks:
        data, error = attempt(make, min_ink)
        h(not error, f"make_train_set({min_ink}) fails ({error}).")
        want_x, want_y, before = colleague_reference(min_ink)
        size, error = attempt(len, data)
        h(not error, f"make_train_set({min_ink}) should return a Dataset, got "
          f"{type(data).__name__} ({error}).")
        h(size != before or len(want_y) == before,
          f"With min_ink={min_ink} the set holds all {before} training digits: the "
          "colleague drops the faint ones on purpose (the docstring); the bug is "
          "elsewhere.", kind="cleaning")
        h(size == len(want_y),
          f"With min_ink={min_ink} the set holds {size} images, expected {len(want_y)}: "
          "the digits whose mean ink is at most min_ink are dropped, whatever min_ink "
          "is.")
        items, error = attempt(lambda: [data[i] for i in range(size)])
        h(not error, f"Reading the samples of make_train_set({min_ink}) fails ({error}).")
        x = torch.stack([torch.as_tensor(item[0]).float() for item in items])
        y = [int(item[1]) for item in items]
        h(tuple(x.shape[1:]) == (1, 8, 8),
          f"the images should stay (1, 8, 8), got {tuple(x.shape[1:])}.")
        h(abs(float(x.mean())) < 1e-3 and abs(float(x.std()) - 1) < 1e-3,
          f"the images are not normalised (mean {float(x.mean()):.3f}, std "
          f"{float(x.std()):.3f}): keep the colleague's normalisation, with the "
          "statistics of the images it keeps.")
        h(torch.allclose(x, want_x, atol=1e-4),
          f"With min_ink={min_ink} the images are not the colleague's kept digits in "
          "their order: the repair changes which label goes with an image, not the "
          "images.")
        wrong = [i for i in range(size) if y[i] != int(want_y[i])]
        first = wrong[0] if wrong else 0
        h(not wrong,
          f"With min_ink={min_ink}, {len(wrong)} of {size} samples carry another "
          f"image's label (sample {first} shows a {int(want_y[first])}, labelled "
          f"{y[first]}): each label must belong to its image. Look at a batch beside "
          "its labels (4.2).", kind="labels",
          more="compare the first samples with the later ones: from which sample on "
          "do the labels go wrong, and what happened to the images there?")
    passed(f"every label belongs to its image, faint digits dropped for min_ink = "
           f"{', '.join(map(str, inks))}, images normalised.")
