"""ice_lab.explain on the Export chapter's failures, provoked for real where it is cheap.

torch.jit.trace's warnings, torch.jit.script's refusal, torch.export's guards and
constraints, and ONNX Runtime's input checks are all provoked here with the installed
versions (the ONNX model is built with onnx.helper, without an export; the provocations are
data, in export_provocations.py). Only the two messages that need a full
``torch.onnx.export`` are tested as text (VARIANTS). Real pastes of these messages from
public issues are in explain_realworld.py.
"""

from __future__ import annotations

import pytest

from ice_lab.explainer import KINDS, explain
from ice_lab.explainer.catalogue import export as export_catalogue

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from export_provocations import PROVOCATIONS, VARIANTS, provoke  # noqa: E402  (data)

CHAPTER = "book/export.ipynb#"  # a section of the Export chapter


@pytest.mark.parametrize("fn, kind, words", PROVOCATIONS, ids=[p[0].__name__ for p in PROVOCATIONS])
def test_real_provocation(fn, kind, words):
    error = provoke(fn)
    d = explain(error)
    assert d.kind == kind, f"{fn.__name__}: {type(error).__name__}: {error} -> {d.kind} ({d.why})"
    assert d.chapter.startswith(CHAPTER) and d.entry.startswith("export.")
    for word in words:
        either = (word,) if isinstance(word, str) else word
        assert any(w.lower() in d.summary.lower() for w in either), (
            f"{word!r} missing from {d.summary!r}")
    assert d.causes and d.fixes
    # The message alone (pasted, no traceback) gets the same answer.
    assert explain(str(error)).kind == kind
    assert explain(f"{type(error).__name__}: {error}").kind == kind


@pytest.mark.parametrize("text, kind, word", VARIANTS, ids=[v[0][:40] for v in VARIANTS])
def test_variant_wordings(text, kind, word):
    d = explain(text)
    assert d.kind == kind and d.chapter.startswith(CHAPTER), (d.kind, d.why)
    assert word.lower() in (d.summary + " " + " ".join(d.fixes)).lower(), d.summary


def test_the_fix_of_each_failure_is_named():
    fixes = {fn.__name__: " ".join(explain(provoke(fn)).fixes) for fn, _, _ in PROVOCATIONS}
    assert "torch.where" in fixes["trace_branch"] and "torch.cond" in fixes["export_branch"]
    assert "x.shape[0]" in fixes["trace_len"]
    assert "dynamic_shapes" in fixes["exported_called_with_other_batch"]
    assert "2 or more" in fixes["dynamic_batch_from_example_of_one"]
    assert "register_buffer" in fixes["script_global"]
    assert "model.eval()" in fixes["eval_on_program_exported_in_train_mode"]
    assert "get_inputs()[0].name" in fixes["onnx_wrong_feed_name"]
    assert "np.float32" in fixes["onnx_float64"]


def test_every_export_kind_is_provoked():
    own = {e.kind for e in export_catalogue.ENTRIES} - {"dtype_mismatch"}
    provoked = {kind for _, kind, _ in PROVOCATIONS}
    assert own <= provoked
    assert own | {"dtype_mismatch"} == provoked | {v[1] for v in VARIANTS}
    assert own <= set(KINDS)
    assert all(e.chapter.startswith(CHAPTER) for e in export_catalogue.ENTRIES)
