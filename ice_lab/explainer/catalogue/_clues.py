"""Clues several chapters' entries read from a traceback (or, for a pasted message, its text).

Each is a plain function of the :class:`~ice_lab.explainer.entry.Clues`, used as an entry's
``when`` condition or inside its ``specifics``.
"""

from __future__ import annotations

import re
from typing import Optional

from ..entry import Clues

_LOSS_NAMES = ("loss", "cross_entropy", "nll")
# A quoted frame of torch's own loss code (a pasted traceback, plain or Jupyter style).
_LOSS_TEXT = re.compile(
    r"[/\\]nn[/\\]modules[/\\]loss\.py"
    r"|[/\\]nn[/\\]functional\.py\"?(?::\d+)?,? (?:line \d+, )?in \w*(?:loss|cross_entropy)\w*"
    r"|in call to _thnn_\w*(?:loss|nll)\w*",
    re.IGNORECASE,
)
#: torch's own loss functions, as a pasted traceback names the frame that raised.
_TORCH_LOSS_FRAMES = frozenset({
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "cross_entropy_loss",
    "nll_loss", "nll_loss2d", "nll_loss_nd", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "kl_div", "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss", "ctc_loss"})
#: A BCE loss named in the prose around a paste ("originate from BCE loss function"): the
#: loss whose float targets are most often given as integers. Prose naming CrossEntropyLoss
#: is no evidence: its own class weights or inputs may hold the other dtype.
_LOSS_PROSE = re.compile(r"\b(?:BCE(?:WithLogits)?(?:Loss)?|binary[ _]cross[ _-]?entropy)\b", re.IGNORECASE)
_LINEAR_TEXT = re.compile(r"modules[/\\]linear\.py|\bF\.linear\(|self\.(?:fc|linear|classifier)\w*\(")
_MATMUL_TEXT = re.compile(r"torch\.(?:mm|matmul|bmm|einsum)\(|\.(?:mm|matmul)\(| @ ")


def _torch_file(frame) -> str:
    return frame.f_code.co_filename.replace("\\", "/")


def raised_in_loss(clues: Clues) -> bool:
    """True if the error was raised inside a torch loss function, or the paste shows one: a
    frame of torch's loss code, one of torch's loss functions among the last frames it quotes,
    or a BCE loss named in the words around it ("BCE loss")."""
    for frame in clues.frames():
        name = frame.f_code.co_name
        if any(n in name for n in _LOSS_NAMES) and "torch" in _torch_file(frame):
            return True
    if clues.frames():
        return False
    if _TORCH_LOSS_FRAMES & set(clues.frame_names()[-3:]):
        return True
    return bool(_LOSS_TEXT.search(clues.text) or _LOSS_PROSE.search(clues.text))


def raised_in_linear(clues: Clues) -> bool:
    """True if an ``nn.Linear`` raised the error (or the paste quotes linear.py / F.linear)."""
    if clues.frames():
        return any(_torch_file(f).endswith("torch/nn/modules/linear.py") for f in clues.frames())
    return bool(_LINEAR_TEXT.search(clues.text))


def raised_in_matmul(clues: Clues) -> bool:
    """True if a plain matrix product raised it: a traceback without an ``nn.Linear``, or a
    paste that quotes ``torch.mm`` / ``matmul`` / ``@`` and no Linear."""
    if clues.frames():
        return not raised_in_linear(clues)
    return bool(_MATMUL_TEXT.search(clues.text)) and not raised_in_linear(clues)


def classes_from_traceback(clues: Clues) -> Optional[int]:
    """Number of classes of the logits handed to cross_entropy / nll_loss, if visible."""
    for frame in reversed(clues.frames()):
        if frame.f_code.co_name in ("cross_entropy", "nll_loss", "nll_loss2d", "nll_loss_nd"):
            shape = getattr(frame.f_locals.get("input"), "shape", None)
            if shape is not None and len(shape) >= 1:
                return int(shape[1] if len(shape) >= 2 else shape[0])
    return None


def embedding_lookup(clues: Clues) -> Optional[tuple[int, int]]:
    """(largest id, number of rows) of the ``nn.Embedding`` lookup that raised, if visible."""
    for frame in reversed(clues.frames()):
        if frame.f_code.co_name == "embedding":
            ids, weight = frame.f_locals.get("input"), frame.f_locals.get("weight")
            if (ids is not None and weight is not None and hasattr(ids, "numel")
                    and hasattr(weight, "shape") and 0 < ids.numel() <= 10**7):
                return int(ids.max()), int(weight.shape[0])
    return None


def plain_size(text: str) -> str:
    """``"torch.Size([2, 3])"`` or ``"[2, 3]"`` -> ``"[2, 3]"``."""
    inner = re.search(r"\[([^\]]*)\]", text)
    return f"[{' '.join(inner.group(1).split())}]" if inner else text.strip()
