"""Explain a PyTorch error the way an experienced engineer would.

``explain(error)`` takes an exception (or its message, or anything at all) and returns a
:class:`Diagnosis`: the *kind* of failure, a one-line summary that uses the specifics of
*your* message ("your input has 3 features but the layer expects 4"), the likely causes,
the fixes, and the chapter of the book that teaches it.

    >>> from ice_lab import explain
    >>> d = explain("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    >>> d.kind
    'shape_mismatch'
    >>> d.summary
    'your input has 3 features but the layer expects 4 (a 2x3 batch met a 4x5 weight)'

The knowledge lives in ``CATALOGUE`` below: a plain list of entries, read top to bottom,
first match wins. Each entry has loose regular expressions (they must survive wording
changes between PyTorch 2.4 and 2.15, and some 1.x phrasings), a summary template filled
from the named groups of the match, causes, fixes and a chapter. To teach ``explain`` a new
failure, add an entry and a test in ``tests/test_explain.py`` that provokes it for real.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``); every lab's "Diagnose"
step uses it.
"""

from __future__ import annotations

import html
import re
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .memory import format_bytes

__all__ = ["Diagnosis", "explain", "KINDS", "CATALOGUE", "Entry"]

# Messages are matched on at most this many characters from each end (a 100 kB message is
# still preserved whole in Diagnosis.message).
_MATCH_WINDOW = 20_000
# How far explain follows __cause__ / __context__.
_CHAIN_LIMIT = 8

KINDS = (
    "shape_mismatch",
    "conv_channels",
    "broadcast_mismatch",
    "dtype_mismatch",
    "target_dtype",
    "target_out_of_range",
    "device_mismatch",
    "numpy_conversion",
    "no_grad_fn",
    "backward_twice",
    "inplace_modified",
    "leaf_inplace",
    "out_of_memory",
    "device_side_assert",
    "state_dict_mismatch",
    "unsafe_unpickling",
    "dataloader_pickling",
    "view_non_contiguous",
    "cuda_unavailable",
    "nonfinite",
    "unknown",
)


@dataclass
class Diagnosis:
    """What ``explain`` found out about one error.

    Attributes:
        kind: one of ``KINDS`` ("unknown" when the catalogue has no entry for it).
        summary: one sentence in the learner's terms, with the specifics of the message.
        causes: likely causes in the learner's code, most likely first.
        fixes: what to do, in the same order.
        chapter: the book page that teaches it, e.g. ``"book/devices"``.
        message: the original error text (never shortened).
        details: specifics parsed from the message (shapes, devices, dtypes, keys, ...).
        error_type: the exception's class name, or "" when a plain string was given.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).
    """

    kind: str
    summary: str
    causes: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    chapter: str = ""
    message: str = ""
    details: dict[str, object] = field(default_factory=dict)
    error_type: str = ""

    def __str__(self) -> str:
        lines = [f"[{self.kind}] {self.summary}"]
        if self.causes:
            lines.append("Likely causes:")
            lines += [f"  - {c}" for c in self.causes]
        if self.fixes:
            lines.append("Fixes:")
            lines += [f"  - {f}" for f in self.fixes]
        if self.chapter:
            lines.append(f"Read: {self.chapter}")
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's text form is the short text, not the dataclass repr."""
        printer.text(str(self))

    def _repr_html_(self) -> str:
        esc = html.escape
        parts = [
            '<div style="border-left:4px solid #3b82c4;padding:4px 10px;margin:4px 0;'
            'font-family:sans-serif;font-size:0.9em">',
            f'<div><code style="font-weight:bold">{esc(self.kind)}</code> '
            f"&mdash; {esc(self.summary)}</div>",
        ]
        for title, items in (("Likely causes", self.causes), ("Fixes", self.fixes)):
            if items:
                parts.append(f'<div style="margin-top:4px"><b>{title}</b><ul style="margin:0">')
                parts += [f"<li>{esc(i)}</li>" for i in items]
                parts.append("</ul></div>")
        if self.chapter:
            parts.append(f'<div style="margin-top:4px">Read: <code>{esc(self.chapter)}</code></div>')
        parts.append("</div>")
        return "".join(parts)


# ---------------------------------------------------------------------------------------
# The catalogue
# ---------------------------------------------------------------------------------------

Specifics = Callable[["re.Match[str]", str, Optional[BaseException]], dict]


@dataclass
class Entry:
    """One recognisable failure: how to spot it and what to say about it.

    The catalogue (``CATALOGUE``) is a list of these; add one to teach ``explain`` a new
    failure. Taught in the ice_lab toolkit chapter (book/toolkit.ipynb).

    ``summary`` is a ``str.format`` template over ``details`` (the named groups of the
    match plus whatever ``specifics`` adds); ``fallback`` is used when a name is missing.
    """

    kind: str
    patterns: list[str]
    summary: str
    causes: list[str]
    fixes: list[str]
    chapter: str
    fallback: str = ""
    specifics: Optional[Specifics] = None
    compiled: list["re.Pattern[str]"] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.compiled = [re.compile(p, re.IGNORECASE | re.DOTALL) for p in self.patterns]
        if not self.fallback:
            self.fallback = re.sub(r"\{[^}]*\}", "?", self.summary)


# -- specifics helpers -------------------------------------------------------------------


def _frames(error: Optional[BaseException]) -> list[types.FrameType]:
    """The frames of the error's traceback, outermost first (empty for strings)."""
    frames = []
    tb = getattr(error, "__traceback__", None)
    while tb is not None and len(frames) < 200:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _in_loss(error: Optional[BaseException]) -> bool:
    """True if the error was raised inside a torch loss function."""
    for frame in _frames(error):
        name = frame.f_code.co_name
        if "loss" in name or "cross_entropy" in name or "nll" in name:
            if "torch" in frame.f_code.co_filename:
                return True
    return False


def _classes_from_traceback(error: Optional[BaseException]) -> Optional[int]:
    """Number of classes of the logits handed to cross_entropy / nll_loss, if visible."""
    for frame in reversed(_frames(error)):
        if frame.f_code.co_name in ("cross_entropy", "nll_loss", "nll_loss2d", "nll_loss_nd"):
            logits = frame.f_locals.get("input")
            shape = getattr(logits, "shape", None)
            if shape is not None and len(shape) >= 1:
                return int(shape[1] if len(shape) >= 2 else shape[0])
    return None


def _target_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    out: dict = {}
    n = _classes_from_traceback(error)
    if n is not None:
        out["n_classes"] = n
        out["valid"] = f"0..{n - 1}"
    return out


def _index_specifics(m: "re.Match[str]", error: Optional[BaseException]) -> dict:
    """For nn.Embedding: the largest id and the table size, read from the traceback."""
    if m.groupdict().get("size"):
        return {"last": int(m.group("size")) - 1}
    for frame in reversed(_frames(error)):
        if frame.f_code.co_name == "embedding":
            ids, weight = frame.f_locals.get("input"), frame.f_locals.get("weight")
            if hasattr(ids, "numel") and hasattr(weight, "shape") and 0 < ids.numel() <= 10**7:
                rows = int(weight.shape[0])
                return {"summary": f"token id {int(ids.max())} is out of range for an Embedding with "
                        f"{rows} rows (valid ids 0..{rows - 1})", "index": int(ids.max()), "size": rows}
    return {}


def _keys(block: str) -> list[str]:
    return re.findall(r'"([^"]+)"', block)


def _state_dict_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    out: dict = {}
    missing = re.search(r"Missing key\(s\) in state_dict:(.*?)(?:\n|$)", text)
    unexpected = re.search(r"Unexpected key\(s\) in state_dict:(.*?)(?:\n|$)", text)
    out["missing"] = _keys(missing.group(1)) if missing else []
    out["unexpected"] = _keys(unexpected.group(1)) if unexpected else []
    sizes = re.findall(
        r"size mismatch for ([\w.]+): copying a param with shape (torch\.Size\(\[[^\]]*\]\)|\[[^\]]*\]) "
        r"from checkpoint, the shape in current model is (torch\.Size\(\[[^\]]*\]\)|\[[^\]]*\])",
        text,
    )
    out["size_mismatch"] = [
        {"key": k, "checkpoint": _plain_size(a), "model": _plain_size(b)} for k, a, b in sizes
    ]
    parts = []
    if out["missing"]:
        parts.append(f"{len(out['missing'])} missing ({_short_list(out['missing'])})")
    if out["unexpected"]:
        parts.append(f"{len(out['unexpected'])} unexpected ({_short_list(out['unexpected'])})")
    if sizes:
        k = out["size_mismatch"][0]
        parts.append(
            f"{len(sizes)} with the wrong shape (e.g. {k['key']}: checkpoint {k['checkpoint']}, "
            f"model {k['model']})"
        )
    if re.search(r"parameter group", text):
        parts.append("the optimizer's parameter groups differ from the saved ones "
                     "(the model changed, or the state belongs to another optimizer)")
    out["problems"] = "; ".join(parts) or "keys or shapes differ"
    keys = out["unexpected"] + out["missing"]
    prefixes = [p for p in ("module.", "_orig_mod.") if any(k.startswith(p) for k in keys)]
    if prefixes:
        out["prefix"] = prefixes[0]
    return out


def _plain_size(text: str) -> str:
    inner = re.search(r"\[([^\]]*)\]", text)
    return f"[{inner.group(1)}]" if inner else text


def _short_list(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", ... (+{len(items) - limit})" if len(items) > limit else "")


def _devices_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    d = m.groupdict()
    # "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)": name devices.
    for key in ("dev_a", "dev_b"):
        value = d.get(key)
        if value and ("Tensor" in value or "Type" in value):
            low = value.lower()
            d[key] = "cuda" if "cuda" in low else "mps" if "mps" in low else "cpu"
    return {k: v for k, v in d.items() if v}


def _view_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    shape = m.group("shape")
    numbers = [int(n) for n in re.findall(r"-?\d+", shape)]
    out: dict = {}
    if numbers and all(n > 0 for n in numbers):
        total = 1
        for n in numbers:
            total *= n
        out["asked"] = total
    return out


def _unpickling_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    found = re.search(r"Unsupported (?:global: GLOBAL|class) ([\w.]+)", text)
    return {"global_name": found.group(1)} if found else {}


def _assert_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    out: dict = {}
    found = re.search(r"Assertion `([^`]+)` failed", text)
    if found:
        out["assertion"] = found.group(1)
        if "n_classes" in found.group(1):
            out["hint"] = "a class label is outside 0..n_classes-1"
        elif "srcIndex" in found.group(1) or "index" in found.group(1).lower():
            out["hint"] = "an index (e.g. a token id into an Embedding) is outside the table"
    return out


def _oom_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    out = {k: v for k, v in m.groupdict().items() if v}
    if "bytes" in out:
        out["request"] = format_bytes(int(out["bytes"]))
        out.setdefault("device", "CPU")
    out["simulated"] = bool(re.search(r"simulated", text, re.IGNORECASE))
    if out["simulated"]:
        where = "a simulated budget (ice_lab.MemoryBudget)"
    else:
        where = f"{out['device']} memory" if "device" in out else "memory"
    if "request" in out:
        out["summary"] = f"an allocation of {out['request']} did not fit in {where}"
        if "live" in out and "limit" in out:
            out["summary"] += f": {out['live']} already live, limit {out['limit']}"
    else:
        out["summary"] = f"a tensor allocation did not fit in {where}"
    return out


def _nonfinite_specifics(m: "re.Match[str]", text: str, error: Optional[BaseException]) -> dict:
    out = {k: v for k, v in m.groupdict().items() if v}
    for attr in ("where", "phase"):
        value = getattr(error, attr, None)
        if isinstance(value, str) and value:
            out[attr] = value
    if "where" not in out and "function" in out:
        out["where"] = f"{out['function']} (a backward function, found by anomaly mode)"
    if "where" not in out and re.search(r"norm .{0,80}non-finite", text):
        out["where"] = "the gradient norm (clip_grad_norm_ with error_if_nonfinite=True)"
    return out


# -- shared advice -----------------------------------------------------------------------

_LINEAR_CAUSES = [
    "the layer's in_features does not match the last dimension of the input",
    "a flatten before the first Linear produces a different size than you computed "
    "(e.g. after a change of image size or of the conv stack)",
    "the batch is transposed, or a weight is used as x @ W instead of x @ W.T",
]
_LINEAR_FIXES = [
    "print x.shape right before the layer and set in_features to x.shape[-1]",
    "use nn.LazyLinear(out_features) to infer in_features on the first call",
]
_DTYPE_CAUSES = [
    "NumPy data is float64 by default; torch.from_numpy keeps float64 while layers are float32",
    "one tensor was created with an explicit dtype (double, half, long) and the other was not",
    "the model was cast (.half(), .double()) but the input was not, or the other way round",
]
_DTYPE_FIXES = [
    "convert the input to the model's dtype: x = x.float() (or x.to(next(model.parameters()).dtype))",
    "convert once where the data enters: torch.as_tensor(array, dtype=torch.float32)",
]
_TARGET_DTYPE_CAUSES = [
    "class labels stored as float (e.g. read from a CSV or NumPy) for CrossEntropyLoss / NLLLoss",
    "integer targets given to a regression or BCE loss, which needs float targets",
    "one-hot or probability targets of an integer dtype",
]
_TARGET_DTYPE_FIXES = [
    "CrossEntropyLoss / NLLLoss: class indices as torch.long: target = target.long()",
    "MSELoss / BCEWithLogitsLoss: float targets with the prediction's shape: target = target.float()",
]
_DEVICE_CAUSES = [
    "the model was moved with model.to(device) but the batch was not (or the other way round)",
    "a tensor created inside forward() or the loss (torch.zeros, a mask, class weights) "
    "lives on the CPU by default",
    "a checkpoint or an optimizer state was loaded onto another device",
]
_DEVICE_FIXES = [
    "move each batch where the model is: x, y = x.to(device), y.to(device)",
    "create new tensors on the right device: torch.zeros(n, device=x.device)",
    "pick the device once (ice_lab.best_device()) and use it everywhere",
]

# -- the list ----------------------------------------------------------------------------

CATALOGUE: list[Entry] = [
    # ---- memory first: OOM texts mention CUDA and allocation, nothing else should claim them
    Entry(
        kind="out_of_memory",
        patterns=[
            r"simulated.{0,200}?(?:requested|tried to allocate)\s*(?P<request>[\d.,]+\s*(?:[KMGTP]i?B|bytes))(?:[;,]\s*(?P<live>[\d.,]+\s*(?:[KMGTP]i?B|bytes)) live[;,]\s*limit (?P<limit>[\d.,]+\s*(?:[KMGTP]i?B|bytes)))?",
            r"(?P<device>CUDA|HIP|MPS|XPU)(?: backend)? out of memory.{0,300}?Tried to allocate (?P<request>[\d.]+ ?[KMGT]?i?B)",
            r"(?P<device>CUDA|HIP|MPS|XPU)(?: backend)?(?: error:)? out of memory",
            r"DefaultCPUAllocator: can'?t allocate memory: you tried to allocate (?P<bytes>\d+) bytes",
            r"(?P<device>CPU)Allocator.{0,40}can'?t allocate",
            r"CUBLAS_STATUS_ALLOC_FAILED|cuDNN error: CUDNN_STATUS_(?:NOT_INITIALIZED|ALLOC_FAILED)",
            r"Storage size calculation overflowed",
            r"\bout of (?:shared )?memory\b|memory budget|cannot allocate memory",
        ],
        summary="the allocation of {request} did not fit in memory",
        fallback="a tensor allocation did not fit in the available memory",
        causes=[
            "the batch (or the image / sequence size) is too large for the device",
            "tensors kept alive across steps: a list of losses, total_loss += loss without "
            ".item(), stored activations or outputs still attached to the graph",
            "evaluation without torch.no_grad(), so every activation is kept for a backward "
            "that never comes",
            "an accidental huge tensor: an outer product or broadcast that made N x N elements",
        ],
        fixes=[
            "halve the batch size; use gradient accumulation to keep the effective batch",
            "log loss.item() instead of loss; wrap evaluation in torch.no_grad()",
            "measure: ice_lab.memory_trace() per step (a rising line is a leak), "
            "ice_lab.estimate_peak() before running",
            "on CUDA, after an OOM: del the big tensors, gc.collect(), torch.cuda.empty_cache()",
        ],
        chapter="book/devices",
        specifics=_oom_specifics,
    ),
    # ---- CUDA availability and asynchronous kernel errors
    Entry(
        kind="cuda_unavailable",
        patterns=[
            r"Torch not compiled with (?P<backend>CUDA|MPS|XPU) enabled",
            r"Attempting to deserialize object on (?:a )?(?P<backend>CUDA) device but torch\.cuda\.is_available\(\) is False",
            r"Found no NVIDIA driver",
            r"No (?P<backend>CUDA) GPUs are available",
            r"(?P<backend>CUDA) driver version is insufficient|NVIDIA driver on your system is too old",
            r"invalid device ordinal",
            r"there is no (?P<backend>CUDA) device|no (?P<backend2>CUDA) devices? (?:is |are )?(?:available|found)",
            r"no kernel image is available for execution on the device",
            r"(?P<backend>CUDA|MPS) (?:is not available|not available|backend is not available)",
        ],
        summary="the code asks for {backend}, which this machine or this PyTorch build cannot provide",
        fallback="the code asks for a GPU that this machine or this PyTorch build cannot provide",
        causes=[
            "device='cuda' (or .cuda()) hard-coded, running on a machine without a usable GPU",
            "a checkpoint saved on a GPU loaded on a CPU-only machine without map_location",
            "a CPU-only PyTorch wheel, or a driver older than the wheel's CUDA version",
        ],
        fixes=[
            "choose the device at run time: device = ice_lab.best_device() "
            "(or 'cuda' if torch.cuda.is_available() else 'cpu')",
            "torch.load(path, map_location='cpu') (or map_location=device)",
            "check the install: python -m ice_lab doctor; torch.version.cuda and nvidia-smi",
        ],
        chapter="book/devices",
    ),
    Entry(
        kind="device_side_assert",
        patterns=[
            r"device-side assert(?:ion)? triggered",
            r"cudaErrorAssert",
            r"an illegal memory access was encountered",
            r"Assertion `[^`]*(?:n_classes|srcIndex|index)[^`]*` failed",
        ],
        summary="a CUDA kernel hit an assertion (usually an index or label out of range); "
        "the CUDA context is now unusable",
        causes=[
            "a class label outside 0..C-1 given to cross_entropy / nll_loss",
            "a token id >= num_embeddings given to nn.Embedding, or an index out of range in "
            "gather / index_select / advanced indexing",
            "the error is reported asynchronously: the line in the traceback may not be the culprit",
        ],
        fixes=[
            "restart the kernel (every later CUDA call fails the same way)",
            "reproduce on the CPU, where the same bug raises a clear IndexError at the right line",
            "or rerun with CUDA_LAUNCH_BLOCKING=1 to get the real line; check "
            "target.min(), target.max() against the number of classes",
            "run such provocations in a child process: ice_lab.run_isolated(...)",
        ],
        chapter="book/devices",
        specifics=_assert_specifics,
    ),
    # ---- numbers that went bad
    Entry(
        kind="nonfinite",
        patterns=[
            r"^\s*(?:\w+Error: )?non-finite values \(NaN/Inf\)",
            r"Function '(?P<function>\w+)' returned (?P<what>nan|inf) values in its (?P<index>\d+)\w* output",
            r"non-finite values|returned nan values|is non-finite, so it cannot be clipped",
            r"probability tensor contains either `inf`, `nan` or element < 0",
            r"found invalid values:?\s*\n?\s*tensor\(\[[^\]]*\b(?:nan|inf)\b",
            r"loss is (?:nan|inf)|nan loss|Detected (?:NaN|Inf)|contains? (?:NaN|Inf)",
        ],
        summary="NaN/Inf values appeared, first in {where}",
        fallback="NaN/Inf values appeared in the computation",
        causes=[
            "log or sqrt of 0 or of a negative number, division by ~0 (e.g. a variance, a norm)",
            "a learning rate that is too high, so weights and activations blow up",
            "float16 overflow (max 65504) or exp() of a large logit in a hand-written softmax",
            "NaN already present in the input data",
        ],
        fixes=[
            "locate it: ice_lab.watch_nonfinite(model) names the first module and pass, "
            "ice_lab.watch_nonfinite_ops() the first aten op",
            "use the stable forms: F.log_softmax / F.cross_entropy, torch.logsumexp, "
            "BCEWithLogitsLoss; add an epsilon in log/sqrt/divisions",
            "lower the learning rate or clip gradients (clip_grad_norm_)",
            "check the data: torch.isfinite(x).all()",
        ],
        chapter="book/numerics",
        specifics=_nonfinite_specifics,
    ),
    # ---- checkpoints
    Entry(
        kind="state_dict_mismatch",
        patterns=[
            r"Error\(s\) in loading state_dict for (?P<model>\w+)",
            r"Missing key\(s\) in state_dict|Unexpected key\(s\) in state_dict",
            r"size mismatch for [\w.]+: copying a param with shape",
            r"loaded state dict (?:contains a parameter group that doesn't match|has a different number of parameter groups)",
        ],
        summary="the checkpoint does not fit this model: {problems}",
        fallback="the checkpoint's keys or shapes do not fit this model",
        causes=[
            "the model definition changed since the checkpoint was saved (layer sizes, names)",
            "the checkpoint was saved from a wrapped model: keys start with 'module.' "
            "(DataParallel/DDP) or '_orig_mod.' (torch.compile)",
            "the file holds a whole training checkpoint ({'model': ..., 'optimizer': ...}) "
            "and the outer dict was passed to load_state_dict",
        ],
        fixes=[
            "rebuild the model with the same arguments as when it was saved",
            "strip a prefix: {k.removeprefix('module.'): v for k, v in sd.items()}",
            "load the right part: model.load_state_dict(ckpt['model'])",
            "strict=False only when you really mean to load a subset (check what it returns)",
        ],
        chapter="book/checkpoints",
        specifics=_state_dict_specifics,
    ),
    Entry(
        kind="unsafe_unpickling",
        patterns=[
            r"Weights only load failed",
            r"WeightsUnpickler error",
            r"Unsupported global: GLOBAL|Unsupported class [\w.]+",
            r"weights_only",
        ],
        summary="torch.load(weights_only=True) refused to unpickle {global_name}",
        fallback="torch.load(weights_only=True) refused to unpickle something in the file",
        causes=[
            "since PyTorch 2.6 torch.load defaults to weights_only=True and only accepts "
            "tensors, dicts, lists, numbers and allowlisted classes",
            "the checkpoint holds a whole pickled model or custom objects "
            "(argparse.Namespace, NumPy scalars, your own classes)",
        ],
        fixes=[
            "save and load state_dicts, not whole models: torch.save(model.state_dict(), path)",
            "allowlist a class you trust: torch.serialization.add_safe_globals([TheClass])",
            "only for files you trust: torch.load(path, weights_only=False)",
        ],
        chapter="book/checkpoints",
        specifics=_unpickling_specifics,
    ),
    # ---- DataLoader workers and pickling
    Entry(
        kind="dataloader_pickling",
        patterns=[
            r"Can'?t (?:pickle|get) local object '?(?:<(?:function|class) )?(?P<obj>[\w.<>]+)",
            r"Can'?t get attribute '(?P<obj>\w+)' on <module '__main__'",
            r"Can'?t pickle <(?:function|class) '?(?P<obj>[\w.<>]+)",
            r"attribute lookup (?P<obj>[\w.<>]+) on __main__ failed",
            r"cannot pickle '(?P<obj>[\w.]+)' object",
            r"DataLoader worker \(pids?[^)]*\) exited unexpectedly",
            r"(?:un)?pickl\w*.{0,80}(?:lambda|<locals>)",
        ],
        summary="{obj} cannot be pickled, so it cannot be sent to a DataLoader worker process",
        fallback="an object could not be pickled to be sent to a worker process",
        causes=[
            "with num_workers > 0 on Windows / macOS (and with the 'spawn' start method) the "
            "dataset, transforms and collate_fn are pickled: lambdas and local functions cannot be",
            "a Dataset class defined in a notebook (__main__) cannot be imported by spawned workers",
            "the dataset holds an open file, lock, generator or database connection",
        ],
        fixes=[
            "replace lambdas and nested functions with top-level functions in a .py module",
            "put the Dataset class in a module and import it in the notebook",
            "debug with num_workers=0 first; open files lazily in __getitem__ (per worker)",
        ],
        chapter="book/datasets",
    ),
    # ---- autograd
    Entry(
        kind="no_grad_fn",
        patterns=[
            r"Inference tensors cannot be saved for backward",
            r"Inplace update to inference tensor outside InferenceMode",
        ],
        summary="a tensor created under torch.inference_mode() was used in code that autograd tracks",
        causes=[
            "a batch, a buffer or a cached result computed under torch.inference_mode() reused "
            "for training",
        ],
        fixes=[
            "compute it outside inference_mode, or make a normal tensor from it: t = t.clone()",
            "use torch.no_grad() instead of inference_mode() for results that training reuses",
        ],
        chapter="book/autograd",
    ),
    Entry(
        kind="backward_twice",
        patterns=[
            r"Trying to backward through the graph a second time",
            r"saved (?:intermediate (?:values|results)|tensors?|buffers?) .{0,60}(?:already been freed|have been freed)",
        ],
        summary="backward() ran a second time through a graph whose saved tensors were already freed",
        causes=[
            "loss.backward() called twice on the same loss, or on a loss that reuses a graph "
            "from a previous step (e.g. a hidden state carried between batches without detach())",
            "a tensor computed once outside the loop (a running total, an embedding lookup) used "
            "in every step's loss",
        ],
        fixes=[
            "recompute the forward pass every step",
            "detach state carried across steps: hidden = hidden.detach()",
            "retain_graph=True only if you really need two backward passes through one graph",
        ],
        chapter="book/autograd",
    ),
    Entry(
        kind="inplace_modified",
        patterns=[
            r"modified by an inplace operation: \[(?P<tensor_type>[\w.]+) \[(?P<shape>[^\]]*)\]\], which is output (?P<output>\d+) of (?P<op>\w+), is at version (?P<version>\d+); expected version (?P<expected>\d+)",
            r"one of the variables needed for gradient computation has been modified by an inplace operation",
            r"is a view and (?:is being|its base or another view of its base has been) modified inplace",
        ],
        summary="the output of {op} (shape [{shape}]) was changed in place after autograd saved it "
        "(version {version}, expected {expected})",
        fallback="a tensor that autograd saved for the backward pass was changed in place",
        causes=[
            "an in-place op (x += ..., x.add_(...), relu(inplace=True), x[idx] = ...) on a tensor "
            "that an earlier op needs for its gradient",
            "an optimizer.step() between the forward pass and backward()",
        ],
        fixes=[
            "use the out-of-place form: x = x + y, x = torch.relu(x), x = x.clone() before editing",
            "the op named in the message (…Backward / 'output 0 of X') tells which tensor; "
            "torch.autograd.set_detect_anomaly(True) shows the forward line that created it",
        ],
        chapter="book/autograd",
    ),
    Entry(
        kind="leaf_inplace",
        patterns=[
            r"a (?P<view>view of a )?leaf Variable that requires grad (?:is being|has been) used in an in-place operation",
            r"leaf (?:Variable|tensor).{0,40}in-?place",
        ],
        summary="an in-place change to a leaf tensor that requires grad (a parameter or an input "
        "with requires_grad=True)",
        causes=[
            "updating weights by hand (w -= lr * w.grad) outside torch.no_grad()",
            "initialising or clipping a parameter in place (w.fill_, w[0] = ...) while grad is tracked",
        ],
        fixes=[
            "wrap manual updates in with torch.no_grad(): w -= lr * w.grad",
            "use the nn.init functions, or do the edit under torch.no_grad()",
        ],
        chapter="book/autograd",
    ),
    Entry(
        kind="no_grad_fn",
        patterns=[
            r"element (?P<index>\d+) of tensors does not require grad and does not have a grad_fn",
            r"does not require grad and does not have a grad_fn",
            r"One of the differentiated Tensors does not require grad",
            r"does not have a grad_fn|doesn'?t require grad",
        ],
        summary="backward() was called on a tensor that is not connected to anything that requires grad",
        causes=[
            "the loss was computed under torch.no_grad() or torch.inference_mode()",
            "the graph was cut: .detach(), .item(), .numpy() or torch.tensor(...) on an "
            "intermediate result",
            "the parameters were frozen (requires_grad=False) or never registered",
        ],
        fixes=[
            "compute the training loss outside torch.no_grad()",
            "keep the loss a tensor built from the model's output with torch ops",
            "check: print(loss.requires_grad, loss.grad_fn)",
        ],
        chapter="book/autograd",
    ),
    # ---- data moving between libraries
    Entry(
        kind="numpy_conversion",
        patterns=[r"Can'?t call numpy\(\) on Tensor that requires grad"],
        summary="the tensor requires grad, so .numpy() refuses it: detach it from the graph first",
        causes=["a model output, a loss or a parameter passed to NumPy / matplotlib / sklearn"],
        fixes=[
            "t.detach().cpu().numpy() (in that order)",
            "or compute it under torch.no_grad() when no gradient is needed (evaluation, plotting)",
        ],
        chapter="book/autograd",
    ),
    Entry(
        kind="numpy_conversion",
        patterns=[r"can'?t convert (?P<device>[\w:]+) device type tensor to numpy"],
        summary="the tensor lives on {device}; NumPy can only read CPU memory",
        causes=["a tensor on the GPU (or the meta device) passed to NumPy, matplotlib or sklearn"],
        fixes=["t.detach().cpu().numpy()", "move results to the CPU once, at the end of the step"],
        chapter="book/devices",
    ),
    Entry(
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
        causes=[
            "a multi-element tensor used where one number is expected (.item(), float(), if t:)",
            "a NumPy array of a dtype PyTorch does not support (object arrays, ragged lists)",
            "a NumPy view with negative strides (a[::-1]) given to torch.from_numpy",
            "bfloat16 tensors, which NumPy has no dtype for",
        ],
        fixes=[
            "reduce first: loss.mean().item(), bool((pred == y).all())",
            "np.ascontiguousarray(a) or a.copy() before torch.from_numpy; "
            "np.stack ragged data after padding",
            "t.float().numpy() for bfloat16",
        ],
        chapter="book/tensors",
    ),
    # ---- devices (after numpy: "can't convert cuda:0 device type tensor" is a numpy error)
    Entry(
        kind="device_mismatch",
        patterns=[
            r"found at least two devices,? (?P<dev_a>[\w:]+) and (?P<dev_b>[\w:]+?)!?(?:\s|$)",
            r"but got (?P<arg>\w+) is on (?P<dev_a>[\w:]+), different from other tensors on (?P<dev_b>[\w:]+?)(?: \(|$|\s)",
            r"Tensor on device (?P<dev_a>[\w:]+) is not on the expected device (?P<dev_b>[\w:]+?)!",
            r"Expected object of device type (?P<dev_b>\w+) but got device type (?P<dev_a>\w+)",
            r"Input type \((?P<dev_a>[^)]*(?:cuda|CUDA|mps|MPS)[^)]*)\) and weight type \((?P<dev_b>(?:torch\.|CPU)\w+)\)",
            r"Input type \((?P<dev_a>(?:torch\.|CPU)\w+)\) and weight type \((?P<dev_b>[^)]*(?:cuda|CUDA|mps|MPS)[^)]*)\)",
            r"to have the same device as tensor for argument",
            r"Expected all tensors to be on the same device",
            r"should be either on cpu or on the same device|expected device (?P<dev_b>[\w:]+) but got device (?P<dev_a>[\w:]+)",
            r"Expected a '(?P<dev_b>\w+)' device type for generator but found '(?P<dev_a>\w+)'",
        ],
        summary="tensors on two devices met in one operation: {dev_a} and {dev_b}",
        fallback="tensors on two different devices met in one operation",
        causes=_DEVICE_CAUSES,
        fixes=_DEVICE_FIXES,
        chapter="book/devices",
        specifics=_devices_specifics,
    ),
    # ---- targets of losses (before the general dtype entries)
    Entry(
        kind="target_out_of_range",
        patterns=[r"Target (?P<target>-?\d+) is out of bounds"],
        summary="a label is out of range: target {target}, but the model outputs {n_classes} classes "
        "(valid labels {valid})",
        fallback="a label is out of range: target {target} is not in 0..C-1, where C is the size of "
        "the logits' class dimension",
        causes=[
            "labels numbered from 1 (1..C) instead of 0 (0..C-1)",
            "the output layer has fewer units than there are classes",
            "a special label such as -1 or 255 for 'ignore' without ignore_index",
        ],
        fixes=[
            "check: print(target.min().item(), target.max().item(), logits.shape[1])",
            "remap labels to 0..C-1 (e.g. target - 1), or make the last layer output C classes",
            "cross_entropy(..., ignore_index=-100) for labels that must be skipped",
        ],
        chapter="book/training",
        specifics=_target_specifics,
    ),
    Entry(
        kind="target_out_of_range",
        patterns=[
            r"index out of range in self",
            r"Class values must be (?:smaller than num_classes|non-negative)",
            r"index (?P<index>-?\d+) is out of bounds for dimension (?P<dim>\d+) with size (?P<size>\d+)",
            r"out of bounds for dimension|(?<!list )(?<!tuple )(?<!string )(?<!str )index out of (?:range|bounds)",
        ],
        summary="an index value is out of range: {index} for a dimension of size {size} "
        "(valid 0..{last})",
        fallback="an index value (a label, a token id, a gather index) is larger than the table it "
        "indexes (for nn.Embedding: an id >= num_embeddings)",
        causes=[
            "token ids or category ids >= num_embeddings (vocabulary built on other data, "
            "padding id not counted)",
            "labels or indices computed off by one (1-based data)",
            "negative indices where only 0..n-1 is allowed",
        ],
        fixes=[
            "check: print(idx.min().item(), idx.max().item()) against the table size",
            "size the table from the data: nn.Embedding(int(ids.max()) + 1, dim)",
            "remap ids to 0..n-1 (or map unknown ids to an <unk> id)",
        ],
        chapter="book/tensors",
        specifics=lambda m, t, e: _index_specifics(m, e),
    ),
    Entry(
        kind="target_dtype",
        patterns=[
            r"expected target dtype to be (?P<expected>[\w ]+?), but got (?P<got>\w+)",
            r"Expected floating point type for target with class probabilities, got (?P<got>\w+)",
            r"expected scalar type (?P<expected>Long|Int) but found (?P<got>Float|Double|Half|BFloat16)",
            r"Found dtype (?P<got>\w+) but expected (?P<expected>\w+)",
            r"nll_loss.{0,40}not implemented for '(?P<got>\w+)'",
        ],
        summary="the loss got targets of dtype {got} but needs {expected}",
        fallback="the loss got targets of the wrong dtype",
        causes=_TARGET_DTYPE_CAUSES,
        fixes=_TARGET_DTYPE_FIXES,
        chapter="book/training",
    ),
    # ---- shapes
    Entry(
        kind="conv_channels",
        patterns=[
            r"weight of size \[(?P<weight>[^\]]*)\], expected input\[(?P<input>[^\]]*)\] to have (?P<expected>\d+) channels, but got (?P<got>\d+) channels",
            r"Expected (?P<want>\d+)D \(unbatched\) or (?P<want_b>\d+)D \(batched\) input to (?P<op>conv\w*), but got input of size:? \[(?P<input>[^\]]*)\]",
            r"Expected (?P<want>\d+)-dimensional input for \d+-dimensional weight \[(?P<weight>[^\]]*)\], but got (?P<got_dims>\d+)-dimensional input of size \[(?P<input>[^\]]*)\]",
            r"Kernel size can'?t be greater than actual input size|Output size is too small",
            r"running_mean should contain (?P<got>\d+) elements not (?P<expected>\d+)",
            r"expected (?P<want>\d)D input \(got (?P<got_dims>\d)D input\)",
            r"Expected \d+D or \d+D \(batch mode\) tensor|non-empty \d+D or \d+D \(batch mode\) tensor expected",
            r"Expected number of channels in input to be divisible by num_groups",
        ],
        summary="the layer expects {expected} input channels but your input (shape [{input}]) has {got}",
        fallback="the input's layout does not fit the convolution / normalisation layer",
        causes=[
            "images are (N, H, W, C) or (H, W, C) instead of PyTorch's (N, C, H, W)",
            "grayscale vs RGB: 1 channel where the layer was built for 3, or the reverse",
            "in_channels of a conv (or num_features of a BatchNorm) does not match the previous "
            "layer's out_channels",
            "a single image without the batch dimension, or a conv of the wrong rank "
            "(Conv1d on images)",
            "the image is too small for the stack of kernels and poolings",
        ],
        fixes=[
            "permute to channels-first: x = x.permute(0, 3, 1, 2) (torchvision's ToTensor does it)",
            "set in_channels to x.shape[1]; add a batch dimension with x.unsqueeze(0)",
            "print the shape after every layer (a forward hook, or ice_lab.summary)",
        ],
        chapter="book/tensors",
        specifics=lambda m, t, e: _conv_specifics(m),
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[
            r"mat1 and mat2 shapes cannot be multiplied \((?P<a_rows>\d+)x(?P<a_cols>\d+) and (?P<b_rows>\d+)x(?P<b_cols>\d+)\)",
            r"size mismatch, m1: \[(?P<a_rows>\d+) x (?P<a_cols>\d+)\], m2: \[(?P<b_rows>\d+) x (?P<b_cols>\d+)\]",
        ],
        summary="your input has {a_cols} features but the layer expects {b_rows} "
        "(a {a_rows}x{a_cols} batch met a {b_rows}x{b_cols} weight)",
        causes=_LINEAR_CAUSES,
        fixes=_LINEAR_FIXES,
        chapter="book/tensors",
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[r"shape '\[(?P<shape>[^\]]*)\]' is invalid for input of size (?P<size>\d+)"],
        summary="view/reshape to [{shape}] needs {asked} elements but the tensor has {size}",
        fallback="view/reshape to [{shape}] does not fit a tensor of {size} elements",
        causes=[
            "a hard-coded size (e.g. x.view(64, -1) with the batch size, or 28*28 for other images)",
            "the last batch of an epoch is smaller than batch_size",
        ],
        fixes=[
            "use x.flatten(1) or x.view(x.size(0), -1) instead of hard-coded sizes",
            "print x.shape and x.numel() before the reshape",
        ],
        chapter="book/tensors",
        specifics=_view_specifics,
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[
            r"Expected input batch_size \((?P<inputs>\d+)\) to match target batch_size \((?P<targets>\d+)\)",
        ],
        summary="the model produced {inputs} predictions but there are {targets} targets",
        causes=[
            "a reshape/view in forward() merged the batch with another dimension",
            "sequence outputs (N, T, C) flattened differently from the targets (N, T)",
        ],
        fixes=[
            "logits of shape (N, C) and targets of shape (N,); for sequences: "
            "logits.reshape(-1, C) with target.reshape(-1)",
            "use x.flatten(1) rather than x.view(-1, k) inside forward()",
        ],
        chapter="book/training",
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[r"expected sequence of length (?P<expected>\d+) at dim (?P<dim>\d+) \(got (?P<got>\d+)\)"],
        summary="torch.tensor got a ragged list: sequences of length {expected} and {got} at dim {dim}; "
        "a tensor must be rectangular",
        causes=["variable-length samples (sentences, lists of boxes) turned into one tensor"],
        fixes=[
            "pad to a common length (torch.nn.utils.rnn.pad_sequence) or keep a list of tensors",
        ],
        chapter="book/tensors",
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[r"grad can be implicitly created only for scalar outputs"],
        summary="backward() was called on a tensor with more than one element",
        causes=["the loss was not reduced to a single number (reduction='none', or a per-sample loss)"],
        fixes=["reduce it: loss.mean().backward() (or pass gradient=torch.ones_like(loss))"],
        chapter="book/autograd",
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[
            r"stack expects each tensor to be equal size, but got \[(?P<a>[^\]]*)\] at entry (?P<i>\d+) and \[(?P<b>[^\]]*)\] at entry (?P<j>\d+)",
        ],
        summary="torch.stack got [{a}] at entry {i} and [{b}] at entry {j}; in a DataLoader this "
        "means the samples of a batch have different shapes",
        causes=[
            "variable-length samples (sentences, images of different sizes) batched by the "
            "default collate",
            "a transform that does not resize every sample to the same shape",
        ],
        fixes=[
            "resize / crop in the transform; pad sequences in a collate_fn "
            "(torch.nn.utils.rnn.pad_sequence)",
        ],
        chapter="book/datasets",
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[
            r"einsum\(\): subscript (?P<subscript>\w) has size (?P<got>\d+) for operand (?P<operand>\d+) which does not broadcast with previously seen size (?P<expected>\d+)",
            r"contracted dimensions need to match, but first has size (?P<expected>\d+) in dim \d+ and second has size (?P<got>\d+)",
        ],
        summary="the dimensions being summed over differ: {expected} vs {got}",
        causes=["the two operands of einsum / tensordot come from different configurations or are transposed"],
        fixes=["print both shapes; the contracted dimensions (the repeated letter in einsum) must be equal"],
        chapter="book/tensors",
    ),
    # ---- broadcasting
    Entry(
        kind="broadcast_mismatch",
        patterns=[
            r"The size of tensor a \((?P<a>\d+)\) must match the size of tensor b \((?P<b>\d+)\) at non-singleton dimension (?P<dim>-?\d+)",
            r"The expanded size of the tensor \((?P<a>-?\d+)\) must match the existing size \((?P<b>\d+)\) at non-singleton dimension (?P<dim>\d+)",
            r"output with shape \[(?P<out>[^\]]*)\] doesn'?t match the broadcast shape \[(?P<bshape>[^\]]*)\]",
            r"shape mismatch: value tensor of shape \[[^\]]*\] cannot be broadcast",
            r"operands could not be broadcast together|cannot be broadcast|not broadcastable|broadcast shape",
        ],
        summary="sizes {a} and {b} cannot be broadcast together at dimension {dim}",
        fallback="two shapes cannot be broadcast together",
        causes=[
            "predictions of shape (N, 1) against targets (N,) (or the reverse) somewhere upstream",
            "a per-feature vector (mean, weight) of the wrong length, or aligned to the wrong axis",
            "an in-place op (x += y) where the result would need a bigger shape than x",
        ],
        fixes=[
            "print both shapes; broadcasting aligns dimensions from the right",
            "add the missing axis explicitly: v[:, None] or v.unsqueeze(0)",
            "make prediction and target shapes identical: pred.squeeze(1) or target.unsqueeze(1)",
        ],
        chapter="book/tensors",
    ),
    Entry(
        kind="shape_mismatch",
        patterns=[
            r"Sizes of tensors must match except in dimension (?P<dim>\d+)\. (?:Expected|Got) size (?P<expected>\d+) (?:but got|and) size (?P<got>\d+)",
            r"Target size \((?P<target>[^)]*\)?)\) must be the same as input size \((?P<input>[^)]*\)?)\)",
            r"Given normalized_shape=\[(?P<normalized>[^\]]*)\], expected input with shape \[\*, (?P<expected>[^\]]*)\], but got input of size ?\[(?P<input>[^\]]*)\]",
            r"input\.size\(-1\) must be equal to input_size\. Expected (?P<expected>\d+), got (?P<got>\d+)",
            r"Expected size for first two dimensions of batch2 tensor to be: \[(?P<expected>[^\]]*)\] but got: \[(?P<got>[^\]]*)\]",
            r"Expected target size \[(?P<expected>[^\]]*)\], got \[(?P<got>[^\]]*)\]",
            r"Dimension out of range \(expected to be in range of \[(?P<lo>-?\d+), (?P<hi>-?\d+)\], but got (?P<got>-?\d+)\)",
            r"size mismatch|shapes? (?:mismatch|cannot be multiplied)|must have the same shape|"
            r"same number of dimensions|number of dims don'?t match|inconsistent tensor size|"
            r"too many indices for tensor|Expected hidden(?:\[\d\])? size|input must have \d+ dimensions|"
            r"\d+D or \d+D tensors? expected|\d+D tensors? expected|must match the size|"
            r"target tensor expected|multi-target not supported|is invalid for input of size|"
            r"expected (?:input|tensor) .{0,40}to have .{0,20}(?:size|shape|dimensions)|"
            r"batch1 and batch2|both arguments to \w+ need to be at least 1D|mismatch in shape|"
            r"expected sequence of length \d+ at dim \d+|length of the desired ordering of dimensions|"
            r"expecting embedding dimension of \d+|Only \dD, \dD and \dD input Tensors supported|"
            r"contracted dimensions need to match|einsum\(\).{0,120}(?:does not broadcast|do not broadcast)",
        ],
        summary="two shapes that must agree do not: {detail}",
        fallback="tensor shapes do not fit this operation",
        causes=[
            "a dimension is missing or extra (a batch or channel dimension, a squeeze/unsqueeze)",
            "the sizes of two tensors (or of a tensor and a layer) come from different configs",
            "targets shaped differently from the predictions ((N, 1) vs (N,), one-hot vs indices)",
        ],
        fixes=[
            "print the shapes of every operand right before the failing line",
            "add/remove the dimension explicitly (unsqueeze, squeeze(dim), flatten(1))",
            "derive sizes from the data (x.shape[-1]) instead of hard-coding them",
        ],
        chapter="book/tensors",
        specifics=lambda m, t, e: _generic_shape_specifics(m),
    ),
    # ---- dtypes (after target_dtype)
    Entry(
        kind="dtype_mismatch",
        patterns=[
            r"(?:mat1 and mat2|expected m1 and m2|expected both vectors) (?:must )?(?:to )?have (?:the )?same dtype,? but (?:got|found):? (?P<a>\w+)(?: and | != )(?P<b>\w+)",
            r"expected scalar type (?P<b>\w+) but found (?P<a>\w+)",
            r"Expected object of scalar type (?P<b>\w+) but got scalar type (?P<a>\w+)",
            r"result type (?P<a>\w+) can'?t be cast to the desired output type (?P<b>\w+)",
            r"Input type \((?P<a>[\w.]+)\) and (?:weight|bias) type \((?P<b>[\w.]+)\) should be the same",
        ],
        summary="two dtypes met where one is needed: {a} and {b}",
        fallback="tensors of different dtypes met in one operation",
        causes=_DTYPE_CAUSES,
        fixes=_DTYPE_FIXES,
        chapter="book/tensors",
        specifics=lambda m, t, e: _dtype_specifics(m, e),
    ),
    Entry(
        kind="dtype_mismatch",
        patterns=[
            r"\"(?P<op>\w+)\" not implemented for '(?P<dtype>\w+)'",
            r"tensors used as indices must be long, int, byte or bool",
            r"only applicable to index tensor of type LongTensor",
            r"Integral inputs not supported",
            r"Expected a floating point (?:or complex )?tensor as input\. Got (?P<dtype>\w+)",
            r"to have one of the following scalar types: (?P<allowed>[\w, ]+); but got (?P<dtype>[\w.]+)",
            r"Only Tensors of floating point (?:and complex )?dtype can require gradients",
            r"could not infer output dtype.{0,80}Got: (?P<dtype>\w+)",
            r"Expected dtype (?P<expected>\w+) for index",
            r"value cannot be converted to type \w+ without overflow",
            r"must have the same dtype|dtype mismatch|same dtype|expected scalar type",
        ],
        summary="this operation does not accept dtype {dtype}",
        fallback="a tensor has a dtype this operation does not accept",
        causes=[
            "integer data (e.g. token ids or raw pixels) fed where floats are needed, "
            "or floats where indices must be integers",
            "half / bfloat16 on a CPU op that only supports float32",
        ],
        fixes=[
            "convert explicitly: x.float() for maths, idx.long() for indexing and embeddings",
            "print x.dtype before the failing line",
        ],
        chapter="book/tensors",
    ),
    # ---- memory layout
    Entry(
        kind="view_non_contiguous",
        patterns=[
            r"view size is not compatible with input tensor's size and stride",
            r"(?:input|tensor) is not contiguous|must be contiguous|non-contiguous",
            r"Use \.reshape\(\.\.\.\) instead",
        ],
        summary="view() needs memory laid out contiguously, and this tensor (a transpose, permute "
        "or slice) is not",
        causes=[".view() after .t(), .transpose(), .permute() or a strided slice"],
        fixes=[
            "use .reshape(...) (copies only when needed) or .contiguous().view(...)",
            "flatten(1) works on any layout",
        ],
        chapter="book/tensors",
    ),
]


def _conv_specifics(m: "re.Match[str]") -> dict:
    d = m.groupdict()
    out: dict = {}
    if d.get("want") and d.get("input"):
        out["summary"] = (
            f"{d.get('op') or 'this layer'} expects {d['want']}-D (unbatched) or "
            f"{d.get('want_b') or int(d['want']) + 1}-D (batched) input, but got shape [{d['input']}]"
        )
    elif d.get("want") and d.get("got_dims"):
        out["summary"] = f"the layer expects {d['want']}-D input but got {d['got_dims']}-D input"
    elif d.get("got") and not d.get("input"):
        out["summary"] = (
            f"a normalisation layer was built for {d['got']} channels but the input has {d.get('expected')}"
        )
    return out


def _generic_shape_specifics(m: "re.Match[str]") -> dict:
    d = {k: v for k, v in m.groupdict().items() if v is not None}
    if "normalized" in d:
        d["detail"] = f"LayerNorm normalises over [{d['normalized']}] but the input has shape [{d['input']}]"
    elif "lo" in d:
        d["detail"] = f"dimension {d['got']} does not exist (valid {d['lo']}..{d['hi']}): the tensor has fewer dimensions than the code assumes"
    elif "target" in d:
        d["detail"] = f"target shape ({d['target']}) vs input shape ({d['input']})"
    elif "dim" in d:
        d["detail"] = f"torch.cat needs equal sizes outside dimension {d['dim']}: expected {d['expected']}, got {d['got']}"
    elif "expected" in d and "got" in d:
        show = (lambda v: f"[{v}]" if "," in v else v)
        d["detail"] = f"expected {show(d['expected'])}, got {show(d['got'])}"
    return d


def _dtype_specifics(m: "re.Match[str]", error: Optional[BaseException]) -> dict:
    return {"in_loss": True} if _in_loss(error) else {}


# ---------------------------------------------------------------------------------------
# explain
# ---------------------------------------------------------------------------------------


def _safe_text(obj: object) -> str:
    """Text of anything, never raising."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).decode("utf-8", errors="replace")
    try:
        text = str(obj)
        if isinstance(text, str):
            return text
    except Exception:
        pass
    try:
        args = getattr(obj, "args", ())
        if args:
            return " ".join(_safe_text(a) for a in args if not isinstance(a, BaseException))
    except Exception:
        pass
    try:
        return f"<unprintable {type(obj).__name__}>"
    except Exception:  # pragma: no cover - type() always works
        return "<unprintable object>"


def _window(text: str) -> str:
    if len(text) <= 2 * _MATCH_WINDOW:
        return text
    return text[:_MATCH_WINDOW] + "\n...\n" + text[-_MATCH_WINDOW:]


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _format(template: str, details: dict) -> Optional[str]:
    try:
        return template.format(**details)
    except (KeyError, IndexError, ValueError, AttributeError):
        return None


def _by_type(error: BaseException) -> Optional[str]:
    """Kinds recognisable from the exception class alone."""
    names = {c.__name__ for c in type(error).__mro__}
    if "OutOfMemoryError" in names or "MemoryError" in names:
        return "out_of_memory"
    if "NonFiniteError" in names:
        return "nonfinite"
    return None


def _final_exception(text: str) -> Optional[str]:
    """The last exception line(s) of a traceback quoted inside a message, if any.

    A DataLoader worker re-raises "Caught RuntimeError in DataLoader worker process 0.
    Original Traceback (most recent call last): ... RuntimeError: <the real message>";
    the quoted code lines above the real message must not decide the kind.
    """
    if "Traceback (most recent call last)" not in text:
        return None
    lines = text.splitlines()
    frames = [i for i, line in enumerate(lines) if line.lstrip().startswith('File "')]
    if not frames:
        return None
    j = frames[-1] + 1
    while j < len(lines) and (not lines[j].strip() or lines[j][:1] in (" ", "\t")):
        j += 1
    tail = "\n".join(lines[j:]).strip()
    return tail or None


def _diagnose_one(error: Optional[BaseException], text: str) -> Diagnosis:
    window = _strip_ansi(_window(text))
    error_type = type(error).__name__ if error is not None else ""
    type_kind = _by_type(error) if error is not None else None
    tail = _final_exception(window)
    windows = [tail, window] if tail else [window]
    candidates = ((w, e, p) for w in windows for e in CATALOGUE for p in e.compiled)
    for window, entry, pattern in candidates:
        if type_kind is not None and entry.kind != type_kind:
            continue
        match = pattern.search(window)
        if match is None:
            continue
        details: dict = {k: v for k, v in match.groupdict().items() if v is not None}
        if entry.specifics is not None:
            try:
                details.update(entry.specifics(match, window, error) or {})
            except Exception:
                pass
        summary = details.pop("summary", None) if isinstance(details.get("summary"), str) else None
        summary = summary or _format(entry.summary, details) or _format(entry.fallback, details)
        kind = entry.kind
        causes, fixes, chapter = list(entry.causes), list(entry.fixes), entry.chapter
        if kind == "dtype_mismatch" and details.pop("in_loss", False):
            # The same words come from a loss given targets of the wrong dtype.
            kind, chapter = "target_dtype", "book/training"
            causes, fixes = list(_TARGET_DTYPE_CAUSES), list(_TARGET_DTYPE_FIXES)
            summary = f"the loss got a target of the wrong dtype ({summary})"
        if kind == "state_dict_mismatch" and details.get("prefix"):
            summary += f" (the keys differ by a '{details['prefix']}' prefix)"
        return Diagnosis(
            kind=kind,
            summary=summary or entry.fallback,
            causes=causes,
            fixes=fixes,
            chapter=chapter,
            message=text,
            details=details,
            error_type=error_type,
        )
    if type_kind == "out_of_memory":  # an OOM whose text the catalogue does not know
        entry = next(e for e in CATALOGUE if e.kind == "out_of_memory")
        return Diagnosis(
            "out_of_memory", entry.fallback, list(entry.causes), list(entry.fixes), entry.chapter,
            text, {}, error_type,
        )
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(first) > 200:
        first = first[:199] + "…"
    return Diagnosis(
        kind="unknown",
        summary=f"not in the catalogue: {error_type + ': ' if error_type else ''}{first}".rstrip(": "),
        causes=[],
        fixes=["read the last line of the traceback and the line of your code just above it",
               "print the shapes, dtypes and devices of the tensors on that line (ice_lab.summary)"],
        chapter="book/toolkit",
        message=text,
        details={},
        error_type=error_type,
    )


def _chain(error: BaseException) -> list[BaseException]:
    """The error, then its __cause__ / __context__ chain (cycle-safe, bounded)."""
    seen: list[BaseException] = []
    current: Optional[BaseException] = error
    while current is not None and len(seen) < _CHAIN_LIMIT and all(current is not s for s in seen):
        seen.append(current)
        try:
            nxt = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
        except Exception:
            nxt = None
        current = nxt if isinstance(nxt, BaseException) else None
    return seen


def explain(error: object) -> Diagnosis:
    """Diagnose a PyTorch error: kind, summary with your specifics, causes, fixes, chapter.

    Args:
        error: an exception (best: its traceback is used for details such as the number of
            classes of the logits), the record ``expect`` returns, an error message
            string, or anything else.

    Returns:
        a :class:`Diagnosis`; ``kind == "unknown"`` when the catalogue has no entry, with
        the message preserved. ``explain`` never raises.

    When the error is a generic wrapper (e.g. ``raise ValueError("bad batch") from err``),
    the chained ``__cause__`` / ``__context__`` is diagnosed instead and
    ``details["chained_from"]`` names the outer error.

    Taught in the ice_lab toolkit chapter (book/toolkit.ipynb); used in every lab's
    "Diagnose" step.
    """
    try:
        if not isinstance(error, (BaseException, str, bytes, bytearray)):
            # The record that ``expect`` returns: explain what it caught.
            try:
                caught = getattr(error, "error", None)
            except Exception:
                caught = None
            if isinstance(caught, BaseException):
                error = caught
        if isinstance(error, BaseException):
            chain = _chain(error)
            outer = _diagnose_one(error, _safe_text(error))
            if outer.kind != "unknown":
                return outer
            for inner in chain[1:]:
                found = _diagnose_one(inner, _safe_text(inner))
                if found.kind != "unknown":
                    found.details["chained_from"] = f"{outer.error_type}: {outer.message[:200]}"
                    return found
            return outer
        return _diagnose_one(None, _safe_text(error))
    except Exception as failure:  # explain must never raise
        try:
            text = _safe_text(error)
        except Exception:
            text = "<unprintable>"
        return Diagnosis(
            kind="unknown",
            summary=f"explain could not analyse this error ({type(failure).__name__})",
            message=text,
            chapter="book/toolkit",
        )
