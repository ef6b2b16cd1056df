"""Checks of ``labs/lab-training.ipynb``, exercise 5, the open exercise (chapter: The
training loop, ``book/training.ipynb``): a train/validation split without shared rows,
reproducible, that leaves PyTorch's random state to the caller and keeps what the
colleague's ``prepare`` promises (the batch size, a training order drawn each epoch).

Re-exported by ``ice_lab.checks.training``, the module the lab imports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import TensorDataset

from ice_lab import set_seed

from ._core import Hints, attempt, need_callable, passed, rng

_split = Hints("make_loaders")


# ------------------------------------------------------------------ 5. the split
def _rows(loader: Any, what: str) -> tuple[list[int], str]:
    """The row ids one pass over ``loader`` yields (feature 0 of each row is its id), or
    what is wrong with the pairs it yields."""
    ids: list[int] = []
    try:
        for batch in loader:
            xb, yb = batch
            ids += [int(v) for v in xb[:, 0].tolist()]
            if not torch.equal(yb, (xb[:, 0] % 10).long()):
                return ids, f"the {what} loader pairs rows with labels that are not theirs"
    except Exception as error:  # quoted in the hint
        return ids, f"iterating the {what} loader fails ({' '.join(str(error).split())[:150]})"
    return ids, ""


def _batch_sizes(loader: Any) -> tuple[list[int], str]:
    """The size of each batch one pass over ``loader`` yields, or why it could not tell."""
    try:
        return [len(xb) for xb, _ in loader], ""
    except Exception as error:  # quoted in the hint
        return [], " ".join(str(error).split())[:150]


def _ordered_data(n: int) -> TensorDataset:
    """``n`` rows, row ``i`` holding ``i`` in feature 0 and label ``i % 10``."""
    ids = torch.arange(n, dtype=torch.float32)
    return TensorDataset(torch.stack([ids, torch.randn(n)], dim=1), torch.arange(n) % 10)


def make_loaders(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(data, val_fraction, batch_size)`` -> ``(train_loader, val_loader)``: a
    random split, each row in exactly one of the two, about ``val_fraction`` of them in
    validation, the same split after the same ``set_seed``, PyTorch's own random state
    left to the caller. Exercise 5 (open) of labs/lab-training.ipynb."""
    need_callable(fn, "make_loaders")
    gen = rng(seed, 55)
    h = _split.require
    cases = [(500, 0.2, 64), (103, 0.3, 10)] if seed is None else [
        (gen.randint(40, 900), gen.choice([0.1, 0.15, 0.25, 0.5]), gen.randint(4, 100))
        for _ in range(3)]
    for n, fraction, batch in cases:
        what = f"{n} rows, val_fraction={fraction}"
        data = _ordered_data(n)
        set_seed(gen.randrange(1000))
        loaders, error = attempt(fn, data, fraction, batch)
        h(not error, f"make_loaders fails on {what} ({error})")
        h(isinstance(loaders, tuple | list) and len(loaders) == 2,
          "make_loaders returns two loaders: (train_loader, val_loader)")
        train, problem = _rows(loaders[0], "training")
        val, problem2 = _rows(loaders[1], "validation")
        h(not (problem or problem2), f"On {what}: {problem or problem2}.")
        shared = set(train) & set(val)
        h(not shared,
          f"On {what}, {len(shared)} of the {len(set(val))} validation rows are training "
          "rows too: the validation loss measures rows the model trained on.",
          kind="shared",
          more="the two splits must come from one shuffle of the rows: count the shared "
          "rows after each change, as 5. Diagnose does.")
        h(len(val) == len(set(val)) and len(train) == len(set(train)),
          f"On {what} a row comes twice in one pass of a loader: each row belongs to one "
          "split, once.")
        missing = n - len(set(train) | set(val))
        h(not missing,
          f"On {what}, {missing} rows are in neither split: removing the shared rows "
          "from one side hides the overlap and throws data away.")
        h(abs(len(val) - n * fraction) <= 1,
          f"On {what} validation holds {len(val)} rows, about {n * fraction:g} expected.")
        h(len(val) < 2 or max(val) - min(val) + 1 != len(val),
          f"On {what} validation holds one run of consecutive rows: the split takes the "
          "rows in their stored order. A dataset sorted (by class, by date) would give "
          "validation one end of it.")
        sizes, problem = _batch_sizes(loaders[0])
        h(not problem and sizes and sizes[0] == min(batch, len(train)),
          f"On {what}, batch_size={batch}, the training loader's first batch holds "
          f"{sizes[0] if sizes else 0} rows: the training batches take the batch_size "
          "make_loaders is given, as prepare's do.")
        again, _ = _rows(loaders[0], "training")
        h(len(train) < 8 or again != train,
          f"On {what} the training loader yields its rows in the same order in every "
          "pass: prepare's training loader draws a new order each epoch, and "
          "make_loaders keeps what prepare promises.")
    data = _ordered_data(200)
    draws, splits = [], []
    for s in (11, 11, 12):  # the same seed twice, then another
        set_seed(s)
        loaders, error = attempt(fn, data, 0.25, 50)
        h(not error, f"make_loaders fails on 200 rows ({error})")
        splits.append(sorted(_rows(loaders[1], "validation")[0]))
        draws.append(torch.rand(3))
    h(splits[0] == splits[1],
      "Two calls after the same set_seed give two different splits: the split is not "
      "reproducible.")
    h(not torch.equal(draws[1], draws[2]),
      "make_loaders reseeds PyTorch's global random generator: whatever set_seed the caller "
      "chose, everything random after it (initial weights, shuffles, dropout) "
      "repeats the same numbers. Keep the split's randomness to itself.")
    passed(f"no row in both splits, none lost, a shuffled split of about val_fraction, "
           f"reproducible, on {len(cases) + 1} datasets.")
