"""The catalogue: every failure ``explain`` recognises, as plain entries, one file per
chapter that teaches them.

Read a file top to bottom to see what that chapter's failures look like and what
``explain`` says about them. Order does not matter anywhere: the engine ranks matches by
phrasing over keyword, then ``priority`` (``ice_lab/explainer/engine.py`` says how), and a
test shuffles this list to prove it. To teach ``explain`` a new failure, add an entry to
the file of the chapter that teaches it and a test that provokes it for real.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

from ..entry import Entry
from . import (autograd, checkpoints, datasets, devices, export, numerics, tensors, tensors_dtypes,
               training)

__all__ = ["KINDS", "CATALOGUE"]

#: All entries, grouped by chapter (the grouping is for readers; the engine ignores order).
CATALOGUE: list[Entry] = [
    *tensors.ENTRIES,
    *tensors_dtypes.ENTRIES,
    *autograd.ENTRIES,
    *datasets.ENTRIES,
    *training.ENTRIES,
    *numerics.ENTRIES,
    *devices.ENTRIES,
    *checkpoints.ENTRIES,
    *export.ENTRIES,
]

#: Every kind ``explain`` can answer: the kinds the entries declare, in catalogue order,
#: then ``"unknown"`` (the answer when no entry matches).
KINDS: tuple[str, ...] = (*dict.fromkeys(e.kind for e in CATALOGUE), "unknown")
