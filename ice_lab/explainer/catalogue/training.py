"""Catalogue entries taught in the Training chapter (``book/training``): what a loss needs
from its targets (values, dtype, shape).
"""

from __future__ import annotations

import re

from ..entry import Clues, Entry
from ._clues import classes_from_traceback, plain_size, raised_in_loss
from .tensors_dtypes import TWO_DTYPES

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
LABELS = "book/devices.ipynb#3-device-side-asserts-a-bad-index-on-the-gpu"
LABEL_DTYPE = "book/tensors.ipynb#dtypes-of-labels-and-masks"
SQUEEZE = "book/training.ipynb#the-squeeze-trap"
SHAPES = "book/tensors.ipynb#shape-debugging-with-a-dummy-input"

_TARGET_DTYPE_CAUSES = [
    "class labels stored as float (e.g. read from a CSV or NumPy) for CrossEntropyLoss / NLLLoss",
    "integer targets given to a regression or BCE loss, which needs float targets",
    "one-hot or probability targets of an integer dtype",
]
_TARGET_DTYPE_FIXES = [
    "CrossEntropyLoss / NLLLoss: class indices as torch.long: target = target.long()",
    "MSELoss / BCEWithLogitsLoss: float targets with the prediction's shape: target = target.float()",
]
_TARGET_SHAPE_CAUSES = [
    "predictions of shape (N, 1) against targets of shape (N,) (or the reverse)",
    "the last batch, or a reshape in forward(), gives predictions and targets different batch sizes",
    "targets of another resolution or number of classes than the predictions",
]
_TARGET_SHAPE_FIXES = [
    "make both shapes identical before the loss: pred.squeeze(1) or target.unsqueeze(1)",
    "print pred.shape and target.shape right before the loss",
]


def _target_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    n = classes_from_traceback(clues)
    return {"n_classes": n, "valid": f"0..{n - 1}"} if n is not None else {}


def _sizes_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    d = m.groupdict()
    return {k: plain_size(v) for k, v in d.items() if k in ("target", "input") and v}


ENTRIES = [
    Entry(
        name="training.target_out_of_range",
        kind="target_out_of_range",
        patterns=[r"Target (?P<target>-?\d+) (?:is )?out of bounds"],
        priority=1,  # names the loss's target: more precise than an index out of range
        summary="a label is out of range: target {target}, but the model outputs {n_classes} classes "
        "(valid labels {valid})",
        fallback="a label is out of range: target {target} is not in 0..C-1, where C is the size of "
        "the logits' class dimension",
        causes=["labels numbered from 1 (1..C) instead of 0 (0..C-1)",
                "the output layer has fewer units than there are classes",
                "a special label such as -1 or 255 for 'ignore' without ignore_index"],
        fixes=["check: print(target.min().item(), target.max().item(), logits.shape[1])",
               "remap labels to 0..C-1 (e.g. target - 1), or make the last layer output C classes",
               "cross_entropy(..., ignore_index=-100) for labels that must be skipped"],
        chapter=LABELS,
        specifics=_target_specifics,
    ),
    Entry(
        name="training.target_dtype",
        kind="target_dtype",
        patterns=[
            r"expected target dtype to be (?P<expected>[\w ]+?), but got (?P<got>\w+)",
            r"Expected floating point type for target with class probabilities, got (?P<got>\w+)",
            r"Found dtype (?P<got>\w+) but expected (?P<expected>\w+)",
            r"nll_loss.{0,40}not implemented for '(?P<got>\w+)'",
            r"Expected object of (?:scalar )?type (?:torch\.)?(?P<expected>\w+) but (?:got|found) "
            r"(?:scalar )?type (?:torch\.)?(?P<got>\w+) for argument #\d+ '\s*target'",
            r"expected scalar type (?P<expected>Long|Int) but found (?P<got>Float|Double|Half|BFloat16)",
            # a paste cut right before the argument's name ('target' in the losses' old wording)
            r"Expected object of (?:scalar )?type (?:torch\.)?(?P<expected>Long)\w* but (?:got|found) "
            r"(?:scalar )?type (?:torch\.)?(?P<got>Float|Double|Half)\w* for argument #2 ?'?\s*\Z",
        ],
        priority=2,  # names the target (or Long expected for Float): beats the in-loss reading
        summary="the loss got targets of dtype {got} but needs {expected}",
        fallback="the loss got targets of the wrong dtype",
        causes=_TARGET_DTYPE_CAUSES,
        fixes=_TARGET_DTYPE_FIXES,
        chapter=LABEL_DTYPE,
    ),
    Entry(
        name="training.dtype_in_loss",
        kind="target_dtype",
        patterns=TWO_DTYPES,
        priority=1,  # the two-dtypes wording, raised inside a loss: the target's dtype
        when=raised_in_loss,
        summary="the loss got a target of the wrong dtype (two dtypes met: {a} and {b})",
        fallback="the loss got a target of the wrong dtype",
        causes=_TARGET_DTYPE_CAUSES,
        fixes=_TARGET_DTYPE_FIXES,
        chapter=LABEL_DTYPE,
    ),
    Entry(
        name="training.target_shape",
        kind="shape_mismatch",
        patterns=[
            r"Using a target size \((?P<target>[^)]*\)?)\)\s*that is different to the\s+input size "
            r"\((?P<input>[^)]*\)?)\)",
            r"Target size \((?P<target>[^)]*\)?)\) must be the same as input size \((?P<input>[^)]*\)?)\)",
        ],
        keywords=[r"multi-target not supported|target tensor expected"],
        priority=1,  # the broadcast error that often follows is a consequence of this
        summary="the loss got targets of shape {target} for predictions of shape {input}; they "
        "must match (broadcasting them silently computes the wrong loss)",
        fallback="the loss got targets shaped differently from the predictions",
        causes=_TARGET_SHAPE_CAUSES,
        fixes=_TARGET_SHAPE_FIXES,
        chapter=SQUEEZE,
        specifics=_sizes_specifics,
    ),
    Entry(
        name="training.segmentation_target",
        kind="shape_mismatch",
        patterns=[r"only batches of spatial targets supported \((?:non-empty )?3D tensors\) but got "
                  r"targets of (?:dimension|size):?[ :]*(?P<got>\[[^\]]*\]|\d+)"],
        summary="a per-pixel loss needs class maps of shape (N, H, W) holding class ids; the "
        "targets have {what}",
        fallback="a per-pixel loss needs class maps of shape (N, H, W) holding class ids",
        causes=["masks loaded as RGB images (N, H, W, 3) or one-hot (N, C, H, W) instead of class ids",
                "an extra channel dimension: (N, 1, H, W)",
                "one label per image given to a loss that expects one label per pixel"],
        fixes=["drop the channel dimension: target = target.squeeze(1)",
               "turn one-hot masks into ids: target = target.argmax(1); map colours to class ids",
               "for one label per image, pool the logits to (N, C) first"],
        chapter=SQUEEZE,
        specifics=lambda m, c: {"what": f"shape {m.group('got')}" if "[" in m.group("got")
                                else f"{m.group('got')} dimensions"},
    ),
    Entry(
        name="training.batch_sizes",
        kind="shape_mismatch",
        patterns=[r"Expected input batch_size \((?P<inputs>\d+)\) to match target batch_size \((?P<targets>\d+)\)"],
        summary="the model produced {inputs} predictions but there are {targets} targets",
        fallback="the model produced a different number of predictions than there are targets",
        causes=["a reshape/view in forward() merged the batch with another dimension",
                "sequence outputs (N, T, C) flattened differently from the targets (N, T)"],
        fixes=["logits of shape (N, C) and targets of shape (N,); for sequences: "
               "logits.reshape(-1, C) with target.reshape(-1)",
               "use x.flatten(1) rather than x.view(-1, k) inside forward()"],
        chapter=SHAPES,
    ),
]
