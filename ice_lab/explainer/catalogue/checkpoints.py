"""Catalogue entries taught in the Checkpoints chapter (``book/checkpoints``): loading a
state_dict, and ``torch.load``'s ``weights_only``.
"""

from __future__ import annotations

import re

from ..entry import Clues, Entry
from ._clues import plain_size

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
STATE_DICT = ("book/checkpoints.ipynb"
              "#load_state_dict-missing-keys-unexpected-keys-shapes")
WEIGHTS_ONLY = "book/checkpoints.ipynb#why-weights_only-exists"


def _keys(block: str) -> list[str]:
    return re.findall(r'"([^"]+)"', block)


def _short_list(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", ... (+{len(items) - limit})" if len(items) > limit else "")


def _state_dict_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    text = clues.text
    missing = re.search(r"Missing key\(s\) in state_dict:(.*?)(?:\n|$)", text)
    unexpected = re.search(r"Unexpected key\(s\) in state_dict:(.*?)(?:\n|$)", text)
    out: dict = {"missing": _keys(missing.group(1)) if missing else [],
                 "unexpected": _keys(unexpected.group(1)) if unexpected else []}
    sizes = re.findall(
        r"size mismatch for ([\w.]+): copying a param with shape (torch\.Size\(\[[^\]]*\]\)|\[[^\]]*\]) "
        r"from checkpoint, the shape in current model is (torch\.Size\(\[[^\]]*\]\)|\[[^\]]*\])",
        text,
    )
    out["size_mismatch"] = [{"key": k, "checkpoint": plain_size(a), "model": plain_size(b)} for k, a, b in sizes]
    parts = []
    if out["missing"]:
        parts.append(f"{len(out['missing'])} missing ({_short_list(out['missing'])})")
    if out["unexpected"]:
        parts.append(f"{len(out['unexpected'])} unexpected ({_short_list(out['unexpected'])})")
    if sizes:
        k = out["size_mismatch"][0]
        parts.append(f"{len(sizes)} with the wrong shape (e.g. {k['key']}: checkpoint {k['checkpoint']}, "
                     f"model {k['model']})")
    if re.search(r"parameter group", text):
        parts.append("the optimizer's parameter groups differ from the saved ones "
                     "(the model changed, or the state belongs to another optimizer)")
    out["problems"] = "; ".join(parts) or "keys or shapes differ"
    out["summary"] = f"the checkpoint does not fit this model: {out['problems']}"
    keys = out["unexpected"] + out["missing"]
    prefixes = [p for p in ("module.", "_orig_mod.") if any(k.startswith(p) for k in keys)]
    if prefixes:
        out["prefix"] = prefixes[0]
        out["summary"] += f" (the keys differ by a '{prefixes[0]}' prefix)"
    return out


def _unpickling_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    found = re.search(r"Unsupported (?:global: GLOBAL|class) ([\w.]+)", clues.text)
    if found:
        return {"global_name": found.group(1)}
    operand = re.search(r"Unsupported operand (\d+)", clues.text)
    if operand:
        return {"summary": "torch.load(weights_only=True) could not read the file (unsupported pickle "
                f"operand {operand.group(1)}): it may not be a PyTorch checkpoint at all (a truncated "
                "download, a Git LFS pointer, an HTML page) or it was saved by a very old PyTorch"}
    return {}


ENTRIES = [
    Entry(
        name="checkpoints.state_dict",
        kind="state_dict_mismatch",
        patterns=[
            r"Error\(s\) in loading state_dict for (?P<model>\w+)",
            r"Missing key\(s\) in state_dict|Unexpected key\(s\) in state_dict",
            r"(?:unexpected|missing) keys? \"[^\"]+\" in state_dict",
            r"size mismatch for [\w.]+: copying a param with shape",
            r"^\s*size mismatch for [\w.]+\s*$",  # a title cut after the parameter's name
            r"loaded state dict (?:contains a parameter group that doesn't match|has a different number "
            r"of parameter groups)",
        ],
        summary="the checkpoint does not fit this model: {problems}",
        fallback="the checkpoint's keys or shapes do not fit this model",
        causes=["the model definition changed since the checkpoint was saved (layer sizes, names)",
                "the checkpoint was saved from a wrapped model: keys start with 'module.' "
                "(DataParallel/DDP) or '_orig_mod.' (torch.compile)",
                "the file holds a whole training checkpoint ({'model': ..., 'optimizer': ...}) "
                "and the outer dict was passed to load_state_dict"],
        fixes=["rebuild the model with the same arguments as when it was saved",
               "strip a prefix: {k.removeprefix('module.'): v for k, v in sd.items()}",
               "load the right part: model.load_state_dict(ckpt['model'])",
               "strict=False only when you really mean to load a subset (check what it returns)"],
        chapter=STATE_DICT,
        specifics=_state_dict_specifics,
    ),
    Entry(
        name="checkpoints.weights_only",
        kind="unsafe_unpickling",
        patterns=[r"Weights only load failed", r"WeightsUnpickler error",
                  r"Unsupported global: GLOBAL|Unsupported class [\w.]+"],
        keywords=[r"weights_only"],
        summary="torch.load(weights_only=True) refused to unpickle {global_name}",
        fallback="torch.load(weights_only=True) refused to unpickle something in the file",
        causes=["since PyTorch 2.6 torch.load defaults to weights_only=True and only accepts "
                "tensors, dicts, lists, numbers and allowlisted classes",
                "the checkpoint holds a whole pickled model or custom objects "
                "(argparse.Namespace, NumPy scalars, your own classes)"],
        fixes=["save and load state_dicts, not whole models: torch.save(model.state_dict(), path)",
               "allowlist a class you trust: torch.serialization.add_safe_globals([TheClass])",
               "only for files you trust: torch.load(path, weights_only=False)"],
        chapter=WEIGHTS_ONLY,
        specifics=_unpickling_specifics,
    ),
]
