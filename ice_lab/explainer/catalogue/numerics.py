"""Catalogue entries for NaN and Inf: their causes are taught in ``book/numerics`` (formats and
stable formulas), locating them in ``book/nonfinite`` (Finding where NaN starts), where
``Read:`` sends the reader."""

from __future__ import annotations

import re

from ..entry import Clues, Entry

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
FINDING = "book/nonfinite.ipynb#finding-the-source"


def _nonfinite_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    out = {k: v for k, v in m.groupdict().items() if v}
    for attr in ("where", "phase"):
        value = getattr(clues.error, attr, None)
        if isinstance(value, str) and value:
            out[attr] = value
    if "where" not in out and "function" in out:
        out["where"] = f"{out['function']} (a backward function, found by anomaly mode)"
    if "where" not in out and re.search(r"norm .{0,80}non-finite", clues.text):
        out["where"] = "the gradient norm (clip_grad_norm_ with error_if_nonfinite=True)"
    return out


ENTRIES = [
    Entry(
        name="numerics.nonfinite",
        kind="nonfinite",
        patterns=[
            r"^\s*(?:\w+Error: )?non-finite values \(NaN/Inf\)",
            r"Function '(?P<function>\w+)' returned (?P<what>nan|inf) values in its (?P<index>\d+)\w* output",
            r"non-finite values|returned nan values|is non-finite, so it cannot be clipped",
            r"probability tensor contains either `?inf`?, `?nan`? or element < 0",
            r"found invalid values:?\s*\n?\s*tensor\(\[[^\]]*\b(?:nan|inf)\b",
            r"Loss became infinite or NaN",
            # torch.distributions: the only values a Real() constraint refuses are NaN
            r"Expected (?:parameter|value argument) (?P<param>\w+)?.{0,600}?(?:constraint|support) "
            r"\(?(?:IndependentConstraint\()?Real\(\)",
        ],
        keywords=[r"loss is (?:nan|inf)|nan loss|Detected (?:NaN|Inf)|contains? (?:NaN|Inf)",
                  r"\b(?:NaN|Inf)s?\b"],  # any message that names NaN/Inf values
        error_types=("NonFiniteError",),
        summary="NaN/Inf values appeared, first in {where}",
        fallback="NaN/Inf values appeared in the computation",
        causes=["log or sqrt of 0 or of a negative number, division by ~0 (e.g. a variance, a norm)",
                "a learning rate that is too high, so weights and activations blow up",
                "float16 overflow (max 65504) or exp() of a large logit in a hand-written softmax",
                "NaN already present in the input data"],
        fixes=["locate it: ice_lab.watch_nonfinite(model) names the first module and pass, "
               "ice_lab.watch_nonfinite_ops() the first aten op",
               "use the stable forms: F.log_softmax / F.cross_entropy, torch.logsumexp, "
               "BCEWithLogitsLoss; add an epsilon in log/sqrt/divisions",
               "lower the learning rate or clip gradients (clip_grad_norm_)",
               "check the data: torch.isfinite(x).all()"],
        chapter=FINDING,
        specifics=_nonfinite_specifics,
    ),
]
