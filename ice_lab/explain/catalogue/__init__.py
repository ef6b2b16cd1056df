"""The catalogue: every failure ``explain`` recognises, as plain entries, one file per
chapter that teaches them.

Read a file top to bottom to see what that chapter's failures look like and what
``explain`` says about them. Order does not matter anywhere: the engine ranks matches by
phrasing over keyword, then ``priority`` (``ice_lab/explain/engine.py`` says how), and a
test shuffles this list to prove it. To teach ``explain`` a new failure, add an entry to
the file of the chapter that teaches it and a test that provokes it for real.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``).
"""

from __future__ import annotations

from ..entry import Entry
from . import (autograd, checkpoints, datasets, devices, export, numerics, tensors, tensors_dtypes,
               training)

__all__ = ["KINDS", "CATALOGUE"]

#: Every kind ``explain`` can answer. The first twenty are the ones the labs were written
#: against; ``illegal_memory_access`` (a kernel touched memory it does not own: not a
#: device-side assert) and ``dataloader_worker_crash`` (a worker killed or crashed outside
#: Python: not a pickling error) have causes and fixes of their own.
#: The last five before ``unknown`` are the Export chapter's (``catalogue/export.py`` says
#: why each needs a kind of its own).
KINDS = (
    "shape_mismatch",
    "conv_channels",
    "broadcast_mismatch",
    "dtype_mismatch",
    "target_dtype",
    "target_out_of_range",
    "device_mismatch",
    "numpy_conversion",
    "no_grad_fn",
    "backward_twice",
    "inplace_modified",
    "leaf_inplace",
    "out_of_memory",
    "device_side_assert",
    "state_dict_mismatch",
    "unsafe_unpickling",
    "dataloader_pickling",
    "view_non_contiguous",
    "cuda_unavailable",
    "nonfinite",
    "illegal_memory_access",
    "dataloader_worker_crash",
    "export_data_dependent",
    "export_static_shape",
    "export_input_name",
    "export_train_mode",
    "script_global",
    "unknown",
)

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
