"""ice_lab.explain on every wording each supported torch printed for the provoked failures.

reference/explain-wordings.json is written by tests/support/explain_wordings.py: it provokes every
failure of test_explain.py and test_explain_export.py with each torch the book supports
(make test-compat's oldest, 2.6.0, and the newest) and records each one's message and the
paste a learner would make of it. Here, without torch, explain must name the recorded kind
for every wording of every version, from the paste and from the bare message where the
message alone names the failure.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ice_lab.explainer import KINDS, explain

ROOT = Path(__file__).resolve().parents[2]
TABLE = json.loads((ROOT / "reference" / "explain-wordings.json").read_text(encoding="utf-8"))
#: Oldest torch the book supports (pyproject: torch>=2.6).
OLDEST = "2.6.0"

#: Failures whose bare message does not say its kind: the paste's frames do (a BCE loss
#: raising a generic two-dtypes message), or the message is a warning's text.
NEEDS_THE_TRACEBACK = {"target_long_for_bce"}

WORDINGS = [(cid, version, case["kind"], w)
            for cid, case in TABLE["cases"].items()
            for version, w in case["wordings"].items() if w["message"] is not None]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def test_the_table_covers_the_oldest_and_a_newer_torch():
    versions = sorted(TABLE["versions"], key=_key)
    assert versions[0] == OLDEST and _key(versions[-1]) >= (2, 14), versions
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"torch>={OLDEST.rsplit(".", 1)[0]}"' in pyproject


def test_every_failure_is_recorded_for_every_version():
    for cid, case in TABLE["cases"].items():
        assert case["kind"] in KINDS, cid
        missing = set(TABLE["versions"]) - set(case["wordings"])
        assert not missing, f"{cid}: no wording recorded for torch {sorted(missing)}"
        for version, w in case["wordings"].items():
            assert w["message"] is not None, f"{cid} did not raise with torch {version}"


def test_the_table_holds_the_provocations_of_the_explain_tests():
    assert len(TABLE["cases"]) >= 30
    assert {"linear_features", "target_long_for_bce", "weights_only", "dataloader_worker_killed",
            "dynamic_batch_from_example_of_one"} <= set(TABLE["cases"])


@pytest.mark.parametrize("cid, version, kind, wording", WORDINGS, ids=lambda v: v if isinstance(v, str) else "")
def test_explain_names_the_same_kind_for_every_recorded_wording(cid, version, kind, wording):
    d = explain(wording["paste"])
    assert d.kind == kind, f"torch {version}, {cid}: {wording['paste']!r} -> {d.kind} ({d.why})"
    if cid not in NEEDS_THE_TRACEBACK:
        bare = f"{wording['error_type']}: {wording['message']}"
        assert explain(bare).kind == kind, f"torch {version}, {cid}: {bare!r}"
