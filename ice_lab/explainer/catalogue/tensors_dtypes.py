"""Catalogue entries taught in the Tensors chapter (``book/tensors``): dtypes, and moving
values between tensors, NumPy and Python.

A dtype error whose target is the wrong dtype (named in the message, or raised inside a
loss) is ``target_dtype``, in ``training.py``.
"""

from __future__ import annotations

from ..entry import Entry

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
FLOAT64 = "book/tensors.ipynb#numpy-interop-shared-memory-and-float64"
INT_AND_BOOL = "book/tensors.ipynb#dtypes-of-labels-and-masks"
NUMBERS_OUT = "book/devices.ipynb#getting-numbers-out-item-numpy-detachcpunumpy"

#: Two dtypes met in one operation; ``training.py`` reuses these for losses.
TWO_DTYPES = [
    r"(?:mat1 and mat2|expected m1 and m2|expected both vectors) (?:must )?(?:to )?have (?:the )?same "
    r"dtype,? but (?:got|found):? (?P<a>\w+)(?: and | != )(?P<b>\w+)",
    r"expected scalar type (?P<b>\w+) but found (?P<a>\w+)",
    r"Expected object of scalar type (?P<b>\w+) but got scalar type (?P<a>\w+)",
    r"result type (?P<a>\w+) can'?t be cast to the desired output type (?P<b>\w+)",
    r"Input type \((?P<a>[\w.]+)\) and (?:weight|bias) type \((?P<b>[\w.]+)\) should be the same",
    # cuDNN's wording ("torch.cuda.HalfTensor does not equal torch.cuda.FloatTensor")
    r"(?:torch\.(?:cuda\.)?)?(?P<a>(?:Half|Float|Double|BFloat16|Long|Int|Byte)Tensor) does not "
    r"equal (?:torch\.(?:cuda\.)?)?(?P<b>(?:Half|Float|Double|BFloat16|Long|Int|Byte)Tensor)",
    r"Expected object of type (?:Variable\[)?(?P<b>torch\.\w+)\]? but found t\s*ype (?:Variable\[)?(?P<a>torch\.\w+)",
    r"mat1 and mat2 must have the same dtype",
    # 0.x: "expected Double tensor (got Float tensor)"
    r"expected (?P<b>Half|Float|Double|Long|Int|Byte) tensor \(got (?P<a>Half|Float|Double|Long|Int|Byte) tensor\)",
]
DTYPE_CAUSES = [
    "NumPy data is float64 by default; torch.from_numpy keeps float64 while layers are float32",
    "one tensor was created with an explicit dtype (double, half, long) and the other was not",
    "the model was cast (.half(), .double()) but the input was not, or the other way round",
]
DTYPE_FIXES = [
    "convert the input to the model's dtype: x = x.float() (or x.to(next(model.parameters()).dtype))",
    "convert once where the data enters: torch.as_tensor(array, dtype=torch.float32)",
]

ENTRIES = [
    Entry(
        name="tensors.two_dtypes",
        kind="dtype_mismatch",
        patterns=TWO_DTYPES,
        summary="two dtypes met where one is needed: {a} and {b}",
        fallback="tensors of different dtypes met in one operation",
        causes=DTYPE_CAUSES,
        fixes=DTYPE_FIXES,
        chapter=FLOAT64,
    ),
    Entry(
        name="tensors.index_dtype",
        kind="dtype_mismatch",
        patterns=[
            r"Expected tensor for argument #\d+ '(?P<arg>\w+)' to have (?:scalar type|one of the following "
            r"scalar types:?) (?P<expected>[\w, ]+?); but got (?P<dtype>[\w.]+)",
            r"Expected object of scalar type (?P<expected>Long|Int) but got scalar type (?P<dtype>\w+) for "
            r"argument #\d+ '(?P<arg>index|indices|input)'",
            r"tensors used as indices must be long, int, byte or bool",
            r"only applicable to index tensor of type LongTensor",
            r"Expected dtype (?P<expected>\w+) for index",
        ],
        priority=1,  # more precise than the two-dtypes wording it contains
        summary="the {arg} must be integers ({expected}), but they are {dtype}",
        fallback="indices (token ids, gather / scatter indices) must be an integer dtype",
        causes=["token ids or indices stored as float (read from a CSV or NumPy, or made by a division)",
                "int32 ids from NumPy where an older PyTorch needs int64 (Long)"],
        fixes=["convert the ids once where they enter: ids = ids.long()",
               "build them as integers: torch.as_tensor(array, dtype=torch.long)"],
        chapter=INT_AND_BOOL,
    ),
    Entry(
        name="tensors.unsupported_dtype",
        kind="dtype_mismatch",
        patterns=[
            r"(?<![\w\"])\"?(?P<op>\w+)\"? not implemented for '?(?P<dtype>[A-Za-z]\w*)'?",
            # Apple mps has no float64
            r"Cannot convert a MPS Tensor to (?P<dtype>float64) dtype",
            r"Trying to convert (?P<dtype>\w+) to the MPS backend but it does not have support",
            r"Integral inputs not supported",
            r"Expected a floating point (?:or complex )?tensor as input\. Got (?P<dtype>\w+)",
            r"to have one of the following scalar types: (?P<allowed>[\w, ]+); but got (?P<dtype>[\w.]+)",
            r"Only Tensors of floating point (?:and complex )?dtype can require gradients",
            r"could not infer output dtype.{0,80}Got: (?P<dtype>\w+)",
            r"value cannot be converted to type \w+ without overflow",
        ],
        keywords=[r"must have the same dtype|dtype mismatch|same dtype|expected scalar type"],
        summary="this operation does not accept dtype {dtype}",
        fallback="a tensor has a dtype this operation does not accept",
        causes=["integer data (e.g. token ids or raw pixels) fed where floats are needed, "
                "or floats where indices must be integers",
                "half / bfloat16 on a CPU op that only supports float32"],
        fixes=["convert explicitly: x.float() for maths, idx.long() for indexing and embeddings",
               "print x.dtype before the failing line"],
        chapter=INT_AND_BOOL,
    ),
    # ---- values leaving PyTorch
    Entry(
        name="tensors.numpy_conversion",
        kind="numpy_conversion",
        patterns=[
            r"can'?t convert np\.ndarray of type (?P<what>[\w.]+)",
            r"Got unsupported ScalarType (?P<what>\w+)",
            r"expected np\.ndarray \(got (?P<what>\w+)\)",
            r"Numpy is not available",
            r"(?:only one element tensors|a Tensor with \d+ elements) can(?:not|'t)? be converted to Python scalars?",
            r"a Tensor with (?P<what>\d+ elements) cannot be converted to Scalar",
            r"Boolean value of Tensor with more than one value is ambiguous",
            r"negative strides",
        ],
        summary="a conversion between tensors and NumPy / Python values failed ({what})",
        fallback="a conversion between tensors and NumPy / Python values failed",
        causes=["a multi-element tensor used where one number is expected (.item(), float(), if t:)",
                "a NumPy array of a dtype PyTorch does not support (object arrays, ragged lists)",
                "a NumPy view with negative strides (a[::-1]) given to torch.from_numpy",
                "bfloat16 tensors, which NumPy has no dtype for"],
        fixes=["reduce first: loss.mean().item(), bool((pred == y).all())",
               "np.ascontiguousarray(a) or a.copy() before torch.from_numpy; np.stack ragged data after padding",
               "t.float().numpy() for bfloat16"],
        chapter=NUMBERS_OUT,
    ),
]
