"""Catalogue entries taught in the Export chapter (``book/export``): ``torch.jit.trace``,
``torch.jit.script``, ``torch.export`` and ONNX Runtime.

Five kinds are the Export chapter's own, because their causes and fixes are nowhere else:

* ``export_data_dependent``: a Python ``if`` on tensor values; the tracer froze the branch
  of the example (a TracerWarning) or ``torch.export`` refused to guess it;
* ``export_static_shape``: a size of the example was baked into the program (a trace, an
  ``ExportedProgram`` without ``dynamic_shapes``, an ONNX file without a dynamic axis);
* ``export_input_name``: a name that must be the input's name is not (a ``dynamic_shapes``
  key, an ONNX Runtime feed);
* ``export_train_mode``: the model was exported in training mode;
* ``script_global``: ``torch.jit.script`` met a Python global it cannot read.

A float64 array fed to a float32 ONNX model is the ``dtype_mismatch`` of the Tensors
chapter, answered here in ONNX Runtime's terms.
"""

from __future__ import annotations

import re

from ..entry import Clues, Entry

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
ONE_PATH = "book/export.ipynb#the-trace-records-one-path"
TORCH_EXPORT = "book/export.ipynb#torchexport-the-current-path"
FIXED_SHAPES = "book/export.ipynb#shapes-are-fixed-unless-you-say-otherwise"
PYTHON_STATE = "book/export.ipynb#python-side-state-is-frozen-too"
ONNX = "book/export.ipynb#onnx-run-by-onnxruntime"
NO_BATCH_AXIS = "book/export.ipynb#provoked-no-dynamic-batch-axis"
TRAIN_MODE = "book/export.ipynb#provoked-exported-in-train-mode"


def _static_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    details = {k: v for k, v in m.groupdict().items() if v is not None}
    if details.get("index") not in (None, "0"):
        details["summary"] = (
            f"the ONNX model has a fixed size {details['expected']} on axis {details['index']} "
            f"of input '{details['input']}' and got {details['got']}: export that axis as "
            f"dynamic, or resize the input to {details['expected']}")
    return details


def _constraint_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    details = {k: v for k, v in m.groupdict().items() if v is not None}
    if details.get("value") not in (None, "1"):
        details["summary"] = (
            f"you marked {details['dim']} as dynamic but the code fixed it to {details['value']} "
            "(a hard-coded size: a view or reshape with a number, an int() of a size)")
    return details


ENTRIES = [
    Entry(
        name="export.trace_python_bool",
        kind="export_data_dependent",
        patterns=[r"Converting a tensor to a Python (?P<what>boolean|index|integer|number|float)"
                  r" might cause the trace to be incorrect"],
        summary="torch.jit.trace turned a tensor into a Python {what}: the branch your example "
                "took is frozen into the trace, and every other input takes it too",
        fallback="torch.jit.trace turned a tensor into a Python value: the branch your example "
                 "took is frozen into the trace",
        causes=["a Python `if` (or `assert`, `and`, `or`) on tensor values inside forward: the "
                "tracer records operations, not Python decisions",
                "re-tracing with another example does not fix it: it only freezes the other "
                "branch"],
        fixes=["write the decision as an operation: torch.where(cond, a, b), or torch.cond "
               "and export with torch.export",
               "keep the Python control flow with torch.jit.script instead of trace",
               "if the condition only checks input (an assert), move it out of the model"],
        chapter=ONE_PATH,
    ),
    Entry(
        name="export.data_dependent_guard",
        kind="export_data_dependent",
        patterns=[r"Could not guard on data-dependent expression (?P<expr>[^\n]+?)"
                  r"(?: \(unhinted|\.?\s*$)",
                  r"GuardOnDataDependentSymNode",
                  r"Could not extract specialized integer from data-dependent expression",
                  # torch 2.6's wording for a Python `if` on tensor values
                  r"Dynamic control flow is not supported at the moment"],
        keywords=[r"data-dependent expression"],
        summary="torch.export met a Python decision on tensor values ({expr}) and cannot "
                "record it in a graph",
        fallback="torch.export met a Python decision on tensor values and cannot record it "
                 "in a graph",
        causes=["a Python `if` on a tensor's values (x.sum() > 0, x.item(), mask.any()) inside "
                "forward: the program would hold one branch only",
                "a size computed from values (nonzero, unique, boolean masking) then compared "
                "in Python"],
        fixes=["write the decision as an operation: torch.where(cond, a, b), or torch.cond("
               "cond, true_fn, false_fn, (x,)) for two real branches",
               "move the decision out of the model: decide before calling it",
               "for a size from values, torch._check(n >= 0) tells export what holds"],
        chapter=TORCH_EXPORT,
    ),
    Entry(
        name="export.trace_len",
        kind="export_static_shape",
        patterns=[r"Using len to get tensor shape might cause the trace to be incorrect",
                  r"Converting a tensor to a Python index might cause the trace"],
        summary="torch.jit.trace recorded a size of the example as a constant (len() of a "
                "tensor): another batch size will fail or give wrong results",
        causes=["len(x) or int(x.shape[0]) inside forward turns a size into a Python number, "
                "and the trace keeps the number of the example"],
        fixes=["use x.shape[0] (or x.size(0)) without int(): the trace then follows the size",
               "export with torch.export and a dynamic dimension: dynamic_shapes={'x': {0: "
               "Dim('batch')}}"],
        chapter=ONE_PATH,
    ),
    Entry(
        name="export.trace_baked_size",
        kind="export_static_shape",
        patterns=[r"The following operation failed in the TorchScript interpreter\..*"
                  r"The size of tensor a \((?P<a>\d+)\) must match the size of tensor b "
                  r"\((?P<b>\d+)\)"],
        priority=2,  # the broadcast error inside a traced program: the trace baked a size in
        summary="a traced program received size {a} where the trace baked in {b}: the example's "
                "batch size became a constant",
        fallback="a traced program received another size than the one the trace baked in",
        causes=["the model was traced with torch.jit.trace, and a size of the example (len(x), "
                "int(x.shape[0]), torch.arange(n)) was recorded as a number"],
        fixes=["use x.shape[0] without int() or len(), and trace again",
               "export with torch.export and dynamic_shapes={'x': {0: Dim('batch')}}: export "
               "fails loudly where trace was silent"],
        chapter=ONE_PATH,
    ),
    Entry(
        name="export.guard_failed",
        kind="export_static_shape",
        patterns=[r"Guard failed: (?P<input>\w+)\.size\(\)\[(?P<dim>\d+)\] == (?P<size>\d+)",
                  r"Expected input at \*?(?P<input>[\w\[\].*]+?)\.shape\[(?P<dim>\d+)\] to be "
                  r"equal to (?P<size>\d+), but got (?P<got>\d+)"],
        summary="the exported program was specialised to size {size} on dimension {dim} of "
                "'{input}' and was called with another size",
        fallback="the exported program was specialised to the example's sizes and was called "
                 "with another size",
        causes=["torch.export.export was called without dynamic_shapes: every size of the "
                "example becomes a constant and is checked at each call"],
        fixes=["export again with a dynamic dimension, keyed by forward's argument name: "
               "dynamic_shapes={'input': {0: Dim('batch')}}",
               "or call the program with exactly the example's shape"],
        chapter=FIXED_SHAPES,
    ),
    Entry(
        name="export.constraints_violated",
        kind="export_static_shape",
        patterns=[r"You marked (?P<dim>\w+) as dynamic but your code specialized it to be a "
                  r"constant \((?P<value>\d+)\)",
                  r"Constraints violated \((?P<dim>\w+)\)",
                  # aot_compile and newer releases print the reason without the header
                  r"\b(?P<dim>\w{1,64}) was inferred to be a constant \((?P<value>\d+)\)"],
        summary="you marked {dim} as dynamic, but an example size of 1 makes export treat it "
                "as the constant 1 (size 1 broadcasts, so export specialises it)",
        fallback="you marked a dimension as dynamic, but export fixed it to a constant",
        causes=["the example batch has size 1: export specialises sizes 0 and 1",
                "the code fixes the size: a view/reshape with a number, an int() of a size"],
        fixes=["export from an example batch of 2 or more (torch.randn(2, ...)); the program "
               "still accepts batch 1",
               "replace hard-coded sizes with x.shape[0] or -1",
               "Dim('batch', min=1) keeps 1 allowed at call time"],
        chapter=FIXED_SHAPES,
        specifics=_constraint_specifics,
    ),
    Entry(
        name="export.onnx_fixed_dimension",
        kind="export_static_shape",
        patterns=[r"Got invalid dimensions for input: (?P<input>\S+) for the following "
                  r"indices\s+index: (?P<index>\d+) Got: (?P<got>\d+) Expected: (?P<expected>\d+)"],
        summary="the ONNX model has a fixed batch size {expected} for input '{input}' and got "
                "{got}: it was exported without a dynamic batch axis",
        fallback="the ONNX model has a fixed size where the input differs: it was exported "
                 "without a dynamic axis",
        causes=["torch.onnx.export was called without dynamic_shapes (or dynamic_axes): the "
                "example's sizes are fixed in the .onnx file"],
        fixes=["export again with a dynamic batch: torch.onnx.export(model, (x,), path, "
               "dynamo=True, dynamic_shapes={'x': {0: Dim('batch')}})",
               "check what the file expects: session.get_inputs()[0].shape"],
        chapter=NO_BATCH_AXIS,
        specifics=_static_specifics,
    ),
    Entry(
        name="export.dynamic_shapes_keys",
        kind="export_input_name",
        patterns=[r"its top-level keys must be the arg names (?P<expected>\[[^\]]*\]) of "
                  r"`?inputs`?, but here they are (?P<given>\[[^\]]*\])"],
        summary="dynamic_shapes uses the keys {given}, but forward's arguments are named "
                "{expected}",
        fallback="the keys of dynamic_shapes are not forward's argument names",
        causes=["the keys of dynamic_shapes must be the parameter names of forward (not the "
                "names you give the inputs elsewhere)"],
        fixes=["use forward's argument names as the keys: for forward(self, input), "
               "dynamic_shapes={'input': {0: Dim('batch')}}",
               "or give dynamic_shapes as a tuple in the order of the inputs"],
        chapter=FIXED_SHAPES,
    ),
    Entry(
        name="export.onnx_feed_names",
        kind="export_input_name",
        patterns=[r"Required inputs \((?P<required>\[[^\]]*\])\) are missing from input feed "
                  r"\((?P<given>\[[^\]]*\])\)",
                  r"Invalid Feed Input Name:\s*(?P<given>\S+)"],
        summary="the ONNX model's inputs are named {required}, but the feed gives {given}",
        fallback="a feed name is not one of the ONNX model's input names",
        causes=["the feed dictionary's keys must be the names given at export (input_names, "
                "or forward's argument names), not any name you like"],
        fixes=["feed by the model's own names: {s.get_inputs()[0].name: x} for s an "
               "InferenceSession",
               "name the inputs at export: torch.onnx.export(..., input_names=['pixels'])"],
        chapter=ONNX,
    ),
    Entry(
        name="export.program_eval",
        kind="export_train_mode",
        patterns=[r"Calling (?P<call>eval|train)\(\) is not supported yet"],
        summary="an exported program cannot switch modes ({call}()): it runs in the mode it "
                "was exported in",
        fallback="an exported program cannot switch between training and evaluation modes",
        causes=["torch.export records one graph: Dropout and BatchNorm are frozen in the mode "
                "of the model at export time",
                "the model was exported in training mode and .eval() was called on "
                "ep.module() afterwards"],
        fixes=["call model.eval() before torch.export.export, then export again",
               "export one program per mode if you need both"],
        chapter=TRAIN_MODE,
    ),
    Entry(
        name="export.onnx_training_mode",
        kind="export_train_mode",
        patterns=[r"Exporting a model while it is in training mode"],
        summary="the model was exported to ONNX in training mode: Dropout stays active and "
                "BatchNorm uses the batch's statistics in the file",
        causes=["torch.onnx.export records the model as it is: model.train() is the default "
                "after training"],
        fixes=["call model.eval() before torch.onnx.export, and export again"],
        chapter=TRAIN_MODE,
    ),
    Entry(
        name="export.script_global",
        kind="script_global",
        patterns=[r"python value of type '(?P<type>[\w.]+)' cannot be used as a value"],
        summary="torch.jit.script cannot read a Python {type} defined outside the model (a "
                "global or a closed-over variable)",
        fallback="torch.jit.script cannot read a Python value defined outside the model",
        causes=["TorchScript compiles forward on its own: it cannot see module-level "
                "variables or closures"],
        fixes=["store the value on the module: self.scale = 2.0 in __init__ (or "
               "self.register_buffer('scale', torch.tensor(2.0)) for a tensor)",
               "pass it in as an argument, or make it a typing.Final constant attribute",
               "or leave TorchScript: torch.export records the value as a constant"],
        chapter=PYTHON_STATE,
    ),
    Entry(
        name="export.onnx_dtype",
        kind="dtype_mismatch",
        patterns=[r"Unexpected input data type\. Actual: \(tensor\((?P<actual>\w+)\)\) , "
                  r"expected: \(tensor\((?P<expected>\w+)\)\)"],
        summary="the ONNX model expects {expected} and received {actual}",
        fallback="the ONNX model received an input of another dtype than it expects",
        causes=["NumPy arrays are float64 by default; a model exported from float32 "
                "weights expects float32"],
        fixes=["convert the array before feeding it: x.astype(np.float32)",
               "check what the model expects: session.get_inputs()[0].type"],
        chapter=ONNX,
    ),
]
