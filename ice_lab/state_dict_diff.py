"""Why won't this state_dict fit my model? ``diff_state_dict``.

Missing, unexpected and wrongly shaped keys in one table, with the ``module.`` (DDP) and
``_orig_mod.`` (``torch.compile``) prefix problems named. ``load_checkpoint(model=...)``
refuses a checkpoint with this table. Taught in the Checkpoints chapter
(``book/checkpoints.ipynb``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import torch
from torch import nn

from ._text import Report

__all__ = ["StateDictDiff", "diff_state_dict"]


@dataclass
class StateDictDiff(Report):
    """What ``diff_state_dict`` found. ``diff.ok`` is True when nothing differs (same keys,
    same shapes); ``str(diff)`` is the table. Like a list of differences, ``bool(diff)`` is
    True when there is any (``if diff: print(diff)``), so ``bool(diff) == (not diff.ok)``.
    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``)."""

    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    mismatched: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    prefix_hint: str = ""
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.unexpected or self.mismatched)

    def __bool__(self) -> bool:
        return not self.ok

    def __str__(self) -> str:
        if self.ok:
            return "state_dicts match: same keys, same shapes"
        rows = [("key", "checkpoint", "model")]
        shape = lambda k: str(list(self.shapes[k])) if k in self.shapes else "?"  # noqa: E731
        rows += [(k, "missing", shape(k)) for k in self.missing]
        rows += [(k, shape(k), "not in model") for k in self.unexpected]
        rows += [(k, str(list(a)), str(list(b))) for k, a, b in self.mismatched]
        width = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in width))
        lines.append(
            f"{len(self.missing)} missing, {len(self.unexpected)} unexpected, "
            f"{len(self.mismatched)} with another shape"
        )
        if self.prefix_hint:
            lines.append(self.prefix_hint)
        return "\n".join(lines)


def _state(obj: Any, name: str) -> Mapping[str, Any]:
    if isinstance(obj, nn.Module):
        return obj.state_dict()
    if isinstance(obj, Mapping):
        return obj
    raise TypeError(f"diff_state_dict: {name} must be a state_dict or an nn.Module, got {type(obj).__name__}.")


def _prefix_hint(ckpt_keys: set[str], model_keys: set[str]) -> str:
    for prefix in ("module.", "_orig_mod."):
        if ckpt_keys and all(k.startswith(prefix) for k in ckpt_keys):
            if {k[len(prefix):] for k in ckpt_keys} & model_keys:
                return (
                    f"every checkpoint key starts with {prefix!r} (a model wrapped in "
                    f"{'DataParallel/DDP' if prefix == 'module.' else 'torch.compile'}): "
                    f"strip it, or load into the wrapped model's .module"
                )
        if model_keys and all(k.startswith(prefix) for k in model_keys):
            if {k[len(prefix):] for k in model_keys} & ckpt_keys:
                return (
                    f"every model key starts with {prefix!r}: load into model.module "
                    "(the model inside the wrapper), or add the prefix to the checkpoint"
                )
    return ""


def diff_state_dict(checkpoint: Any, model: Any) -> StateDictDiff:
    """Compare a checkpoint's state_dict with a model's (either may be an ``nn.Module``).

    ``missing``: keys the model has and the checkpoint lacks; ``unexpected``: keys only in
    the checkpoint; ``mismatched``: ``(key, checkpoint shape, model shape)``; and a hint
    when every key differs by a ``module.`` (DataParallel/DDP) or ``_orig_mod.``
    (``torch.compile``) prefix. Compares names and shapes, not values.

    Taught in the Checkpoints chapter (``book/checkpoints.ipynb``).
    """
    a, b = _state(checkpoint, "checkpoint"), _state(model, "model")
    diff = StateDictDiff(
        missing=[k for k in b if k not in a],
        unexpected=[k for k in a if k not in b],
    )
    for key in diff.missing:
        if isinstance(b[key], torch.Tensor):
            diff.shapes[key] = tuple(b[key].shape)
    for key in diff.unexpected:
        if isinstance(a[key], torch.Tensor):
            diff.shapes[key] = tuple(a[key].shape)
    for key in a:
        if key in b and isinstance(a[key], torch.Tensor) and isinstance(b[key], torch.Tensor):
            if a[key].shape != b[key].shape:
                diff.mismatched.append((key, tuple(a[key].shape), tuple(b[key].shape)))
    if diff.missing and diff.unexpected:
        diff.prefix_hint = _prefix_hint(set(a), set(b))
    return diff
