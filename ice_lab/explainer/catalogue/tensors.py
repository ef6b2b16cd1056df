"""Catalogue entries taught in the Tensors chapter (``book/tensors``): shapes and products,
convolution layouts, broadcasting, views, indices.

Dtypes and NumPy conversions, also taught there, are in ``tensors_dtypes.py``.
"""

from __future__ import annotations

import re

from ..entry import Clues, Entry
from ._clues import embedding_lookup, raised_in_linear, raised_in_matmul

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
SHAPES = "book/tensors.ipynb#shape-debugging-with-a-dummy-input"
VIEWS = "book/tensors.ipynb#views-and-copies"
BROADCASTING = "book/tensors.ipynb#the-broadcasting-trap-n-1---n-is-n-n"
RAGGED = "book/datasets.ipynb#collate_fn-batching-sequences-of-different-lengths"
CHANNELS = "book/datasets.ipynb#totensor-hwc-bytes-to-chw-floats"
BAD_INDEX = "book/devices.ipynb#3-device-side-asserts-a-bad-index-on-the-gpu"

_MATMUL = [
    r"mat1 and mat2 shapes cannot be multiplied \((?P<a_rows>\d+)x(?P<a_cols>\d+) and (?P<b_rows>\d+)x(?P<b_cols>\d+)\)",
    r"size mismatch, m1: \[(?P<a_rows>\d+) x (?P<a_cols>\d+)\], m2: \[(?P<b_rows>\d+) x (?P<b_cols>\d+)\]",
    r"mat1 and mat2 shapes cannot be multiplied",
]
_LINEAR_CAUSES = [
    "the layer's in_features does not match the last dimension of the input",
    "a flatten before the first Linear produces a different size than you computed "
    "(e.g. after changing the image size or the conv layers)",
    "the input is transposed: (features, batch) instead of (batch, features)",
]
_LINEAR_FIXES = [
    "print x.shape right before the layer and set in_features to x.shape[-1]",
    "use nn.LazyLinear(out_features) to infer in_features on the first call",
]
_MATMUL_CAUSES = [
    "the operands are in the wrong order, or one of them needs a transpose (B.T, or .mT for batches)",
    "the two tensors come from different configurations (hidden sizes that disagree)",
]
_MATMUL_FIXES = [
    "print both shapes: for A @ B the last size of A must equal the first size of B "
    "(for batched products, B's second-to-last size)",
    "transpose the operand that is the wrong way round: A @ B.T",
]


def _conv_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    d = m.groupdict()
    if d.get("want") and d.get("input"):
        return {"summary": f"{d.get('op') or 'this layer'} expects {d['want']}-D (unbatched) or "
                f"{d.get('want_b') or int(d['want']) + 1}-D (batched) input, but got shape [{d['input']}]"}
    if d.get("want") and d.get("got_dims"):
        return {"summary": f"the layer expects {d['want']}-D input but got {d['got_dims']}-D input"}
    if d.get("got") and d.get("norm_expected"):
        return {"summary": f"a normalisation layer was built for {d['got']} channels but the "
                f"input has {d['norm_expected']}"}
    return {}


def _view_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    numbers = [int(n) for n in re.findall(r"-?\d+", m.group("shape"))]
    if numbers and all(n > 0 for n in numbers):
        total = 1
        for n in numbers:
            total *= n
        return {"asked": total}
    return {}


def _generic_shape_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    d = {k: v for k, v in m.groupdict().items() if v is not None}
    if "normalized" in d:
        d["detail"] = f"LayerNorm normalises over [{d['normalized']}] but the input has shape [{d['input']}]"
    elif "lo" in d:
        d["detail"] = (f"dimension {d['got']} does not exist (valid {d['lo']}..{d['hi']}): the "
                       "tensor has fewer dimensions than the code assumes")
    elif "dim" in d:
        d["detail"] = (f"torch.cat needs equal sizes outside dimension {d['dim']}: "
                       f"expected {d['expected']}, got {d['got']}")
    elif "expected" in d and "got" in d:
        show = (lambda v: f"[{v}]" if "," in v else v)
        d["detail"] = f"expected {show(d['expected'])}, got {show(d['got'])}"
    return d


def _index_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    if m.groupdict().get("size"):
        return {"last": int(m.group("size")) - 1}
    lookup = embedding_lookup(clues)
    if lookup is not None:
        largest, rows = lookup
        return {"summary": f"token id {largest} is out of range for an Embedding with {rows} rows "
                f"(valid ids 0..{rows - 1})", "index": largest, "size": rows}
    return {}


ENTRIES = [
    # ---- matrix products: the same words from nn.Linear, F.linear, torch.mm and @
    Entry(
        name="tensors.linear_in_features",
        kind="shape_mismatch",
        patterns=_MATMUL,
        priority=2,  # raised inside an nn.Linear: say it in the layer's terms
        when=raised_in_linear,
        summary="your input has {a_cols} features but the layer expects {b_rows} "
        "(a {a_rows}x{a_cols} batch met a {b_rows}x{b_cols} weight)",
        fallback="the input's last dimension does not match the Linear layer's in_features",
        causes=_LINEAR_CAUSES,
        fixes=_LINEAR_FIXES,
        chapter=SHAPES,
    ),
    Entry(
        name="tensors.matmul_inner_sizes",
        kind="shape_mismatch",
        patterns=_MATMUL,
        priority=1,  # raised by a product in your code (torch.mm, @, F.linear): no layer
        when=raised_in_matmul,
        summary="a matrix product needs equal inner sizes: {a_rows}x{a_cols} @ {b_rows}x{b_cols} "
        "has {a_cols} columns on the left but {b_rows} rows on the right",
        fallback="the inner sizes of a matrix product differ",
        causes=_MATMUL_CAUSES,
        fixes=_MATMUL_FIXES,
        chapter=SHAPES,
    ),
    Entry(
        name="tensors.product_shapes",
        kind="shape_mismatch",
        patterns=_MATMUL,
        summary="the inner sizes of a matrix product differ: {a_rows}x{a_cols} @ {b_rows}x{b_cols} "
        "needs {a_cols} == {b_rows} (in an nn.Linear: the input has {a_cols} features, the "
        "layer expects {b_rows})",
        fallback="the inner sizes of a matrix product differ (in an nn.Linear: the input's last "
        "dimension is not the layer's in_features)",
        causes=[_LINEAR_CAUSES[0], _LINEAR_CAUSES[1], _MATMUL_CAUSES[0]],
        fixes=[_LINEAR_FIXES[0], _MATMUL_FIXES[0], _LINEAR_FIXES[1]],
        chapter=SHAPES,
    ),
    Entry(
        name="tensors.bmm_sizes",
        kind="shape_mismatch",
        patterns=[
            r"Expected size for first two dimensions of batch2 tensor to be: \[(?P<expected>[^\]]*)\] "
            r"but got: \[(?P<got>[^\]]*)\]",
            r"batch1 and batch2 must have same number of dimensions|batch1 must be a 3D tensor",
        ],
        summary="torch.bmm multiplies batches of matrices: batch2 must start with [{expected}] "
        "(the batch size, then batch1's last size) but starts with [{got}]",
        fallback="the two batches of matrices given to torch.bmm do not fit together",
        causes=["the second operand is transposed, or comes from another batch size",
                "a head or sequence dimension was merged differently in the two operands"],
        fixes=["print both shapes: (b, n, m) @ (b, m, p) -> (b, n, p)",
               "transpose the second operand: b2.transpose(1, 2)"],
        chapter=SHAPES,
    ),
    Entry(
        name="tensors.view_size",
        kind="shape_mismatch",
        patterns=[r"shape '\[(?P<shape>[^\]]*)\]' is invalid for input of size (?P<size>\d+)"],
        summary="view/reshape to [{shape}] needs {asked} elements but the tensor has {size}",
        fallback="view/reshape to [{shape}] does not fit a tensor of {size} elements",
        causes=["a hard-coded size (e.g. x.view(64, -1) with the batch size, or 28*28 for other images)",
                "the last batch of an epoch is smaller than batch_size"],
        fixes=["use x.flatten(1) or x.view(x.size(0), -1) instead of hard-coded sizes",
               "print x.shape and x.numel() before the reshape"],
        chapter=SHAPES,
        specifics=_view_specifics,
    ),
    Entry(
        name="tensors.ragged_list",
        kind="shape_mismatch",
        patterns=[r"expected sequence of length (?P<expected>\d+) at dim (?P<dim>\d+) \(got (?P<got>\d+)\)"],
        summary="torch.tensor got a ragged list: sequences of length {expected} and {got} at dim "
        "{dim}; a tensor must be rectangular",
        fallback="torch.tensor got a ragged list (sequences of different lengths); a tensor must be rectangular",
        causes=["variable-length samples (sentences, lists of boxes) turned into one tensor"],
        fixes=["pad to a common length (torch.nn.utils.rnn.pad_sequence) or keep a list of tensors"],
        chapter=RAGGED,
    ),
    Entry(
        name="tensors.contraction_sizes",
        kind="shape_mismatch",
        patterns=[
            r"einsum\(\): subscript (?P<subscript>\w) has size (?P<got>\d+) for operand (?P<operand>\d+) "
            r"which does not broadcast with previously seen size (?P<expected>\d+)",
            r"contracted dimensions need to match, but first has size (?P<expected>\d+) in dim \d+ "
            r"and second has size (?P<got>\d+)",
        ],
        summary="the dimensions being summed over differ: {expected} vs {got}",
        fallback="the dimensions being summed over (einsum, tensordot) differ",
        causes=["the two operands of einsum / tensordot come from different configurations or are transposed"],
        fixes=["print both shapes; the contracted dimensions (the repeated letter in einsum) must be equal"],
        chapter=SHAPES,
    ),
    Entry(
        name="tensors.shapes",
        kind="shape_mismatch",
        patterns=[
            r"Sizes of tensors must match except in dimension (?P<dim>\d+)\. (?:Expected|Got) size "
            r"(?P<expected>\d+) (?:but got|and) size (?P<got>\d+)",
            r"Sizes of tensors must match except in dimension (?P<dim>\d+)(?:\. Got (?P<expected>\d+) and "
            r"(?P<got>\d+) in dimension (?P<at>\d+))?",
            r"Given normalized_shape=\[(?P<normalized>[^\]]*)\], expected input with shape \[\*, "
            r"(?P<expected>[^\]]*)\], but got input of size ?\[(?P<input>[^\]]*)\]",
            r"input\.size\(-1\) must be equal to input_size\. Expected (?P<expected>\d+), got (?P<got>\d+)",
            r"Dimension out of range \(expected to be in range of \[(?P<lo>-?\d+), (?P<hi>-?\d+)\], "
            r"but got (?P<got>-?\d+)\)",
            r"inconsistent tensor size, expected tensor \[(?P<expected>[^\]]*)\] and src \[(?P<got>[^\]]*)\]",
            r"too many indices for tensor of dimension \d+",
            r"Expected hidden(?:\[\d\])? size \((?P<expected>[^)]*)\), got \[(?P<got>[^\]]*)\]",
            r"both arguments to \w+ need to be at least 1D",
            r"Expected target size \[(?P<expected>[^\]]*)\], got \[(?P<got>[^\]]*)\]",
            r"expecting embedding dimension of (?P<expected>\d+), but got (?P<got>\d+)",
        ],
        keywords=[
            r"size mismatch|shapes? (?:mismatch|cannot be multiplied)|must have the same shape|"
            r"same number of dimensions|number of dims don'?t match|inconsistent tensor size|"
            r"input must have \d+ dimensions|\d+D (?:or \d+D )?tensors? expected|must match the size|"
            r"is invalid for input of size|expected (?:input|tensor) .{0,40}to have .{0,20}(?:size|shape|dimensions)|"
            r"mismatch in shape|length of the desired ordering of dimensions|"
            r"Only \dD, \dD and \dD input Tensors supported|einsum\(\).{0,120}do(?:es)? not broadcast",
        ],
        summary="two shapes that must agree do not: {detail}",
        fallback="tensor shapes do not fit this operation",
        causes=["a dimension is missing or extra (a batch or channel dimension, a squeeze/unsqueeze)",
                "the sizes of two tensors (or of a tensor and a layer) come from different configs",
                "targets shaped differently from the predictions ((N, 1) vs (N,), one-hot vs indices)"],
        fixes=["print the shapes of every operand right before the failing line",
               "add/remove the dimension explicitly (unsqueeze, squeeze(dim), flatten(1))",
               "derive sizes from the data (x.shape[-1]) instead of hard-coding them"],
        chapter=SHAPES,
        specifics=_generic_shape_specifics,
    ),
    # ---- convolution and normalisation layouts
    Entry(
        name="tensors.conv_channels",
        kind="conv_channels",
        patterns=[
            r"weight of size \[(?P<weight>[^\]]*)\], expected input\[(?P<input>[^\]]*)\] to have "
            r"(?P<expected>\d+) channels?, but got (?P<got>\d+) channels?",
            r"expected input\[(?P<input>[^\]]*)\] to have (?P<expected>\d+) channels?, but got "
            r"(?P<got>\d+) channels?",
            r"Expected (?P<want>\d+)D \(unbatched\) or (?P<want_b>\d+)D \(batched\) input to\s+(?P<op>conv\w*),"
            r"\s+but got input of size:?\s*\[(?P<input>[^\]]*)\]",
            r"(?P<want>\d)D or (?P<want_b>\d)D input tensor expected but got:? \[(?P<input>[^\]]*)\]",
            r"Expected (?P<want>\d+)-dimensional input for \d+-dimensional weight \[(?P<weight>[^\]]*)\], "
            r"but got (?P<got_dims>\d+)-dimensional input of size \[(?P<input>[^\]]*)\]",
            r"Kernel size can'?t be greater than actual input size|Output size is too small",
            r"running_mean should contain (?P<got>\d+) elements not (?P<norm_expected>\d+)",
            r"expected (?P<want>\d)D input \(got (?P<got_dims>\d)D input\)",
            r"Expected \d+D or \d+D \(batch mode\) tensor|non-empty \d+D or \d+D \(batch mode\) tensor expected",
            r"Expected number of channels in input to be divisible by num_groups",
        ],
        summary="the layer expects {expected} input channels but your input (shape [{input}]) has {got}",
        fallback="the input's layout does not fit the convolution / normalisation layer",
        causes=["images are (N, H, W, C) or (H, W, C) instead of PyTorch's (N, C, H, W)",
                "grayscale vs RGB: 1 channel where the layer was built for 3, or the reverse",
                "in_channels of a conv (or num_features of a BatchNorm) does not match the "
                "previous layer's out_channels",
                "a single image without the batch dimension, or a conv of the wrong rank (Conv1d on images)",
                "the image is too small for the stack of kernels and poolings"],
        fixes=["permute to channels-first: x = x.permute(0, 3, 1, 2) (torchvision's ToTensor does it)",
               "set in_channels to x.shape[1]; add a batch dimension with x.unsqueeze(0)",
               "print the shape after every layer (a forward hook, or ice_lab.summary)"],
        chapter=CHANNELS,
        specifics=_conv_specifics,
    ),
    # ---- broadcasting
    Entry(
        name="tensors.broadcast",
        kind="broadcast_mismatch",
        patterns=[
            r"The size of tensor a \((?P<a>\d+)\) must match the size of tensor b \((?P<b>\d+)\)"
            r"(?: at non-singleton dimension (?P<dim>-?\d+))?",
            r"The expanded size of the tensor \((?P<a>-?\d+)\) must match the existing size \((?P<b>\d+)\) "
            r"at non-singleton dimension (?P<dim>\d+)",
            r"output with shape \[(?P<out>[^\]]*)\] doesn'?t match the broadcast shape \[(?P<bshape>[^\]]*)\]",
            r"shape mismatch: value tensor of shape \[[^\]]*\] cannot be broadcast",
            # the meta / fake-tensor wording (torch.compile, torch.export, dynamo)
            r"Attempting to broadcast a dimension of length (?P<a>\d+) at (?P<dim>-?\d+)",
        ],
        keywords=[r"operands could not be broadcast together|cannot be broadcast|not broadcastable|broadcast shape"],
        summary="sizes {a} and {b} cannot be broadcast together at dimension {dim}",
        fallback="two shapes cannot be broadcast together",
        specifics=lambda m, c: {} if m.groupdict().get("dim") or not m.groupdict().get("a") else
        {"summary": f"sizes {m.group('a')} and {m.group('b')} cannot be broadcast together"},
        causes=["predictions of shape (N, 1) against targets (N,) (or the reverse) somewhere upstream",
                "a per-feature vector (mean, weight) of the wrong length, or aligned to the wrong axis",
                "an in-place op (x += y) where the result would need a bigger shape than x"],
        fixes=["print both shapes; broadcasting aligns dimensions from the right",
               "add the missing axis explicitly: v[:, None] or v.unsqueeze(0)",
               "make prediction and target shapes identical: pred.squeeze(1) or target.unsqueeze(1)"],
        chapter=BROADCASTING,
    ),
    # ---- memory layout
    Entry(
        name="tensors.view_layout",
        kind="view_non_contiguous",
        patterns=[r"view size is not compatible with input tensor's size and",
                  r"(?:input|tensor) is not contiguous|must be contiguous|non-contiguous",
                  r"Use \.reshape\(\.\.\.\) instead"],
        summary="view() needs memory laid out contiguously, and this tensor (a transpose, permute "
        "or slice) is not",
        causes=[".view() after .t(), .transpose(), .permute() or a strided slice"],
        fixes=["use .reshape(...) (copies only when needed) or .contiguous().view(...)",
               "flatten(1) works on any layout"],
        chapter=VIEWS,
    ),
    # ---- indices into a table
    Entry(
        name="tensors.index_range",
        kind="target_out_of_range",
        patterns=[
            r"index out of range in self",
            r"Class values must be (?:smaller than num_classes|non-negative)",
            r"index (?P<index>-?\d+) is out of bounds for dimension (?P<dim>\d+) with size (?P<size>\d+)",
        ],
        keywords=[r"out of bounds for dimension|(?<!list )(?<!tuple )(?<!string )(?<!str )index out of (?:range|bounds)"],
        summary="an index value is out of range: {index} for a dimension of size {size} (valid 0..{last})",
        fallback="an index value (a label, a token id, a gather index) is larger than the table it "
        "indexes (for nn.Embedding: an id >= num_embeddings)",
        causes=["token ids or category ids >= num_embeddings (vocabulary built on other data, "
                "padding id not counted)",
                "labels or indices computed off by one (1-based data)",
                "negative indices where only 0..n-1 is allowed"],
        fixes=["check: print(idx.min().item(), idx.max().item()) against the table size",
               "size the table from the data: nn.Embedding(int(ids.max()) + 1, dim)",
               "remap ids to 0..n-1 (or map unknown ids to an <unk> id)"],
        chapter=BAD_INDEX,
        specifics=_index_specifics,
    ),
]
