"""ice_lab.explain on the Export chapter's failures, provoked for real where it is cheap.

torch.jit.trace's warnings, torch.jit.script's refusal, torch.export's guards and
constraints, and ONNX Runtime's input checks are all provoked here with the installed
versions (the ONNX model is built with onnx.helper, without an export). Only the two
messages that need a full ``torch.onnx.export`` are tested as text (VARIANTS). Real pastes
of these messages from public issues are in explain_realworld.py.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn

from ice_lab.explainer import KINDS, explain
from ice_lab.explainer.catalogue import export as export_catalogue

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

CHAPTER = "book/export"


class Branch(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(len(x), -1)


class AddRange(nn.Module):
    def forward(self, x):
        return x + torch.arange(int(x.shape[0])).float()


SCALE = 2.0


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 2)

    def forward(self, input):
        return self.layer(input)


def _tracer_warning(model: nn.Module, example: torch.Tensor) -> Warning:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.jit.trace(model, example)
    found = [w.message for w in caught if type(w.message).__name__ == "TracerWarning"]
    assert found, f"torch {torch.__version__} gave no TracerWarning"
    return found[0]


def trace_branch():
    raise _tracer_warning(Branch(), torch.ones(3))


def trace_len():
    raise _tracer_warning(Flatten(), torch.ones(8, 2, 2))


def trace_baked_size():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(AddRange(), torch.ones(3))
    traced(torch.ones(5))


def script_global():
    class UsesGlobal(nn.Module):  # a new class each time: TorchScript caches a class it compiled
        def forward(self, x):
            return x * SCALE

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.script(UsesGlobal())


def export_branch():
    torch.export.export(Branch(), (torch.ones(3),))


def exported_called_with_other_batch():
    program = torch.export.export(Linear().eval(), (torch.ones(8, 4),))
    program.module()(torch.ones(3, 4))


def dynamic_batch_from_example_of_one():
    batch = torch.export.Dim("batch")
    torch.export.export(Linear().eval(), (torch.ones(1, 4),),
                        dynamic_shapes={"input": {0: batch}})


def dynamic_shapes_wrong_key():
    batch = torch.export.Dim("batch")
    torch.export.export(Linear().eval(), (torch.ones(2, 4),), dynamic_shapes={"x": {0: batch}})


def eval_on_program_exported_in_train_mode():
    program = torch.export.export(Linear().train(), (torch.ones(8, 4),))
    program.module().eval()


@functools.lru_cache(maxsize=1)
def _session():
    """An ONNX model with a fixed batch of 8 on its input 'pixels' (no export needed)."""
    from onnx import TensorProto, helper

    pixels = helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [8, 4])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [8, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["pixels"], ["out"])], "g", [pixels], [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def onnx_batch_of_one():
    _session().run(None, {"pixels": np.ones((1, 4), np.float32)})


def onnx_float64():
    _session().run(None, {"pixels": np.ones((8, 4))})


def onnx_wrong_feed_name():
    _session().run(None, {"image": np.ones((8, 4), np.float32)})


PROVOCATIONS = [
    # (function, kind, words that must appear in the summary)
    (trace_branch, "export_data_dependent", ["boolean", "frozen"]),
    (trace_len, "export_static_shape", ["len()"]),
    (trace_baked_size, "export_static_shape", ["size 5", "baked in 3"]),
    (script_global, "script_global", ["float"]),
    # torch 2.6 names neither the expression nor the input: a word may have alternatives
    (export_branch, "export_data_dependent", [("Eq(u0, 1)", "decision on tensor values")]),
    (exported_called_with_other_batch, "export_static_shape",
     ["size 8", ("'input'", "'args[0]'")]),
    (dynamic_batch_from_example_of_one, "export_static_shape", ["batch", "size of 1"]),
    (dynamic_shapes_wrong_key, "export_input_name", ["['x']", "['input']"]),
    (eval_on_program_exported_in_train_mode, "export_train_mode", ["eval()"]),
    (onnx_batch_of_one, "export_static_shape", ["batch size 8", "'pixels'", "got 1"]),
    (onnx_float64, "dtype_mismatch", ["float", "double"]),
    (onnx_wrong_feed_name, "export_input_name", ["['pixels']", "['image']"]),
]

# What a full torch.onnx.export prints (torch 2.14.1): too slow to provoke in a unit test.
ONNX_WRAPPED_KEYS = (
    "torch.onnx._internal.exporter._errors.TorchExportError: Failed to export the model with "
    "torch.export. \x1b[96mThis is step 1/3\x1b[0m of exporting the model to ONNX. Next steps:\n"
    "- Modify the model code for `torch.export.export` to succeed.\n"
    "\n## Exception summary\n\n"
    "<class 'torch._dynamo.exc.UserError'>: When `dynamic_shapes` is specified as a dict, its "
    "top-level keys must be the arg names ['input'] of `inputs`, but here they are ['x']. "
    "Alternatively, you could also ignore arg names entirely and specify `dynamic_shapes` as a "
    "list/tuple matching `inputs`."
)
VARIANTS = [
    (ONNX_WRAPPED_KEYS, "export_input_name", "['x']"),
    ("UserWarning: Exporting a model while it is in training mode. Please ensure that this is "
     "intended, as it may lead to different behavior during inference. Calling model.eval() "
     "before export is recommended.", "export_train_mode", "model.eval()"),
    ("torch._dynamo.exc.UserError: Constraints violated (batch)! For more information, run with "
     "TORCH_LOGS=\"+dynamic\".\n  - You marked batch as dynamic but your code specialized it to "
     "be a constant (4). If you're using mark_dynamic, either remove it", "export_static_shape",
     "fixed it to 4"),
    ("torch._dynamo.exc.UserError: Dynamic control flow is not supported at the moment. Please "
     "use functorch.experimental.control_flow.cond to explicitly capture the control flow.",
     "export_data_dependent", "torch.cond"),  # torch 2.6's wording
    ("RuntimeError: Expected input at *args[0].shape[0] to be equal to 5, but got 1",
     "export_static_shape", "size 5"),  # torch 2.6's wording
    ("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Got invalid dimensions for input: image for "
     "the following indices\n index: 2 Got: 320 Expected: 224\n Please fix either the "
     "inputs/outputs or the model.", "export_static_shape", "axis 2"),
]


def provoke(fn) -> BaseException:
    try:
        fn()
    except Exception as err:  # noqa: BLE001 - whatever torch or onnxruntime raises
        return err
    pytest.fail(f"{fn.__name__} did not raise with torch {torch.__version__}")


@pytest.mark.parametrize("fn, kind, words", PROVOCATIONS, ids=[p[0].__name__ for p in PROVOCATIONS])
def test_real_provocation(fn, kind, words):
    error = provoke(fn)
    d = explain(error)
    assert d.kind == kind, f"{fn.__name__}: {type(error).__name__}: {error} -> {d.kind} ({d.why})"
    assert d.chapter == CHAPTER and d.entry.startswith("export.")
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
    assert d.kind == kind and d.chapter == CHAPTER, (d.kind, d.why)
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
    assert all(e.chapter == CHAPTER for e in export_catalogue.ENTRIES)
