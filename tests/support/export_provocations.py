"""The Export chapter's failures test_explain_export.py provokes, and its other wordings (data).

PROVOCATIONS: (function, kind, words its summary must hold; a word may be a tuple of
alternatives), each raising what the installed torch, torch.export or ONNX Runtime raises
(the ONNX model is built with onnx.helper, without an export); VARIANTS: (message, kind, a
word of the summary or fixes) for the two messages that need a full torch.onnx.export.
test_explain_export.py runs them; test_explain_catalogue.py and explain_wordings.py read
them. Data, not tests: no test module imports another.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


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
