"""Catalogue entries taught in the Devices chapter (``book/devices``): memory, GPUs that are
missing, tensors on two devices, and CUDA kernels that failed.

An illegal memory access is its own kind, ``illegal_memory_access``, not a device-side
assert: an assert is a check PyTorch wrote (an index or label out of range, caught by the
kernel), an illegal access is a kernel reading or writing memory it does not own (most
often in a custom CUDA extension, or a tensor freed or resized under a running kernel).
Both are reported asynchronously, so both need ``CUDA_LAUNCH_BLOCKING=1`` to find the line;
the causes and fixes differ.
"""

from __future__ import annotations

import re

from ..._text import format_bytes
from ..entry import Clues, Entry

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
OOM = ("book/devices.ipynb"
       "#out-of-memory-a-growing-batch-recovery-the-largest-batch-that-fits")
ONE_DEVICE = "book/devices.ipynb#1-one-device-chosen-once"
MISMATCH = "book/devices.ipynb#2-device-mismatch-provoked-for-real"
ASSERTS = "book/devices.ipynb#3-device-side-asserts-a-bad-index-on-the-gpu"
NUMBERS_OUT = "book/devices.ipynb#getting-numbers-out-item-numpy-detachcpunumpy"
_SIZE = r"[\d.,]+\s*(?:[KMGTP]i?B|bytes)"


def _oom_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    out = {k: v for k, v in m.groupdict().items() if v}
    if "bytes" in out:
        out["request"] = format_bytes(int(out["bytes"]))
        out.setdefault("device", "CPU")
    out["simulated"] = bool(re.search(r"simulated", clues.text, re.IGNORECASE))
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


def _assert_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    found = re.search(r"Assertion (.+?) failed", clues.text)
    if not found:
        return {}
    out = {"assertion": found.group(1)}
    if "n_classes" in found.group(1):
        out["hint"] = "a class label is outside 0..n_classes-1"
    elif "srcIndex" in found.group(1) or "idx" in found.group(1) or "index" in found.group(1).lower():
        out["hint"] = "an index (e.g. a token id into an Embedding) is outside the table"
    return out


def _device_name(value: str) -> str:
    """``torch.cuda.FloatTensor`` -> ``cuda``; ``CPU`` -> ``cpu``; ``cuda:0`` stays."""
    low = value.lower()
    if "tensor" in low or "type" in low:
        return "cuda" if "cuda" in low else "mps" if "mps" in low else "cpu"
    if value.isupper():  # the 0.4-1.x backends: CPU, CUDA, GPU
        return "cuda" if low == "gpu" else low
    return value


def _devices_specifics(m: "re.Match[str]", clues: Clues) -> dict:
    d = {k: v for k, v in m.groupdict().items() if v}
    for key in ("dev_a", "dev_b"):
        if key in d:
            d[key] = _device_name(d[key])
    return d


ENTRIES = [
    Entry(
        name="devices.out_of_memory",
        kind="out_of_memory",
        patterns=[
            rf"simulated.{{0,200}}?(?:requested|tried to allocate)\s*(?P<request>{_SIZE})"
            rf"(?:[;,]\s*(?P<live>{_SIZE}) live[;,]\s*limit (?P<limit>{_SIZE}))?",
            r"(?P<device>CUDA|HIP|MPS|XPU)(?: backend)? out of memory.{0,300}?Tried to allocate "
            r"(?P<request>[\d.]+ ?[KMGT]?i?B)",
            r"(?P<device>CUDA|HIP|MPS|XPU)(?: backend)?(?: error:?)? ?out of memory",
            r"DefaultCPUAllocator: (?:can'?t allocate memory|not enough memory)(?:: you tried to "
            r"allocate (?P<bytes>\d+) bytes)?",
            r"cuda runtime error ?\(2\) ?: ?out of memory|error=2 : out of memory",
            r"(?P<device>CPU)Allocator.{0,40}can'?t allocate",
            r"CUBLAS_STATUS_ALLOC_FAILED|cuDNN error: CUDNN_STATUS_(?:NOT_INITIALIZED|ALLOC_FAILED)",
            r"Storage size calculation overflowed",
            r"\bOutOfMemoryError\b",
            # the CUDA caching allocator's cudaMallocAsync backend: "Allocation on device 0
            # would exceed allowed memory", often cut by UIs after "device"
            r"\bAllocation on device\b",
            # a paste cut before "CUDA out of memory": the caching allocator's own sentence
            r"Tried to allocate (?P<request>[\d.]+ ?[KMGT]?i?B)[.;]? \(?GPU \d+(?:;| has a total capac)",
        ],
        keywords=[r"\bout of (?:shared )?memory\b|memory budget|cannot allocate memory"],
        error_types=("OutOfMemoryError", "MemoryError"),
        summary="the allocation of {request} did not fit in memory",
        fallback="a tensor allocation did not fit in the available memory",
        causes=["the batch (or the image / sequence size) is too large for the device",
                "tensors kept alive across steps: a list of losses, total_loss += loss without "
                ".item(), stored activations or outputs still attached to the graph",
                "evaluation without torch.no_grad(), so every activation is kept for a backward "
                "that never comes",
                "an accidental huge tensor: an outer product or broadcast that made N x N elements"],
        fixes=["halve the batch size; use gradient accumulation to keep the effective batch",
               "log loss.item() instead of loss; wrap evaluation in torch.no_grad()",
               "measure: ice_lab.memory_trace() per step (a rising line is a leak), "
               "ice_lab.estimate_peak() before running",
               "on CUDA, after an OOM: del the big tensors, gc.collect(), torch.cuda.empty_cache()"],
        chapter=OOM,
        specifics=_oom_specifics,
    ),
    Entry(
        name="devices.cuda_unavailable",
        kind="cuda_unavailable",
        # a title: "torch.cuda.is_available() is False", "CUDA is not available"
        terms=["is_available false", "cuda not available|unavailable"],
        patterns=[
            r"Torch not compiled with (?P<backend>CUDA|MPS|XPU) enabled",
            r"Attempting ?to ?deserialize object on (?:a )?(?P<backend>CUDA) device",
            r"Found no NVIDIA driver",
            r"No (?P<backend>CUDA) GPUs are available",
            r"(?P<backend>CUDA) driver version is insufficient|NVIDIA driver on your system is too old",
            r"invalid device ordinal",
            r"there is no (?P<backend>CUDA) device|no (?P<backend2>CUDA) devices? (?:is |are )?(?:available|found)",
            r"no kernel image is available for execution on the device",
            # a Rich box that shows only the loader's frame that raised
            r"\bin (?:validate_cuda_device|_cuda_deserialize)\b.{0,400}validate_cuda_device\(",
            r"(?P<backend>CUDA|MPS) (?:is not available|not available|backend is not available)",
        ],
        summary="the code asks for {backend}, which this machine or this PyTorch build cannot provide",
        fallback="the code asks for a GPU that this machine or this PyTorch build cannot provide",
        causes=["device='cuda' (or .cuda()) hard-coded, running on a machine without a usable GPU",
                "a checkpoint saved on a GPU loaded on a CPU-only machine without map_location",
                "a CPU-only PyTorch wheel, or a driver older than the wheel's CUDA version"],
        fixes=["choose the device at run time: device = ice_lab.best_device() "
               "(or 'cuda' if torch.cuda.is_available() else 'cpu')",
               "torch.load(path, map_location='cpu') (or map_location=device)",
               "check the install: python -m ice_lab doctor; torch.version.cuda and nvidia-smi"],
        chapter=ONE_DEVICE,
    ),
    Entry(
        name="devices.device_side_assert",
        kind="device_side_assert",
        patterns=[
            r"device-side assert(?:ion)? triggered",
            r"cudaErrorAssert",
            r"Assertion [^\n]*?(?:n_classes|srcIndex|index|idx)[^\n]*? failed",
        ],
        summary="a CUDA kernel hit an assertion (usually an index or label out of range); "
        "the CUDA context is now unusable",
        causes=["a class label outside 0..C-1 given to cross_entropy / nll_loss",
                "a token id >= num_embeddings given to nn.Embedding, or an index out of range in "
                "gather / index_select / advanced indexing",
                "the error is reported asynchronously: the line in the traceback may not be the culprit"],
        fixes=["restart the kernel (every later CUDA call fails the same way)",
               "reproduce on the CPU, where the same bug raises a clear IndexError at the right line",
               "or rerun with CUDA_LAUNCH_BLOCKING=1 to get the real line; check "
               "target.min(), target.max() against the number of classes",
               "run such provocations in a child process: ice_lab.run_isolated(...)"],
        chapter=ASSERTS,
        specifics=_assert_specifics,
    ),
    Entry(
        name="devices.illegal_memory_access",
        kind="illegal_memory_access",
        patterns=[
            r"an illegal memory access was encountered",
            r"cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS",
            r"cuda runtime error ?\(77\)|error=77\b",
            r"misaligned address",
        ],
        summary="a CUDA kernel read or wrote memory it does not own (an illegal memory access); "
        "the CUDA context is now unusable",
        causes=["a custom CUDA extension (or a library's kernel) indexing past the end of a tensor, "
                "often because it assumes a contiguous tensor, a dtype or a size it did not check",
                "a tensor freed, resized or moved while a kernel still used it (streams, "
                "non_blocking copies, pinned memory reused too early)",
                "rarely a bug in PyTorch or the driver for one GPU / CUDA version",
                "the error is reported asynchronously: the line in the traceback may not be the culprit"],
        fixes=["restart the kernel (every later CUDA call fails the same way)",
               "rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel that failed; compute-sanitizer "
               "python script.py names the bad access",
               "give custom ops contiguous inputs of the dtype they expect (x.contiguous().float())",
               "update the extension, PyTorch and the driver; try the same code on the CPU"],
        chapter=ASSERTS,
    ),
    Entry(
        name="devices.two_devices",
        kind="device_mismatch",
        patterns=[
            r"found at least two devices,? (?P<dev_a>[\w:]+) and (?P<dev_b>[\w:]+?)!?(?:\s|$)",
            r"but got (?P<arg>\w+) is on (?P<dev_a>[\w:]+), different from other tensors on (?P<dev_b>[\w:]+?)(?: \(|$|\s)",
            r"Tensor on device (?P<dev_a>[\w:]+) is not on the expected device (?P<dev_b>[\w:]+?)!",
            r"Expected object of device type (?P<dev_b>\w+) but got device type (?P<dev_a>\w+)",
            r"Expected object of backend (?P<dev_b>\w+) but got backend (?P<dev_a>\w+)",
            r"Tensor for argument #\d+ '(?P<arg>\w+)' is on (?P<dev_a>\w+), but expected (?:it|them) to be on (?P<dev_b>\w+)",
            r"Expected object of type (?:Variable\[)?(?P<dev_b>torch\.cuda\.\w+)\]? but found t\s*ype "
            r"(?:Variable\[)?(?P<dev_a>torch\.(?!cuda)\w+)",
            r"Expected object of type (?:Variable\[)?(?P<dev_b>torch\.(?!cuda)\w+)\]? but found t\s*ype "
            r"(?:Variable\[)?(?P<dev_a>torch\.cuda\.\w+)",
            r"Input type \((?P<dev_a>[^)]*(?:cuda|CUDA|mps|MPS)[^)]*)\) and weight type \((?P<dev_b>(?:torch\.|CPU)\w+)\)",
            r"Input type \((?P<dev_a>(?:torch\.|CPU)\w+)\) and weight type \((?P<dev_b>[^)]*(?:cuda|CUDA|mps|MPS)[^)]*)\)",
            r"to have the same device as tensor for argument",
            # cuDNN's own wording: the same tensor type on two devices
            r"but type (?P<dev_a>torch\.cuda\.\w+) does not equal (?P<dev_b>torch\.(?!cuda)\w+)",
            r"but type (?P<dev_a>torch\.(?!cuda)\w+) does not equal (?P<dev_b>torch\.cuda\.\w+)",
            # Apple mps: an operand still on the CPU
            r"Placeholder storage has not been allocated on (?P<dev_b>MPS) device",
            r"Expected all tensors to be on the same device",
            r"Input,\s*output and indices must be on the current device",
            r"should be either on cpu or on the same device|expected device (?P<dev_b>[\w:]+) but got device (?P<dev_a>[\w:]+)",
            r"Expected a '(?P<dev_b>\w+)' device type for generator but found '(?P<dev_a>\w+)'",
        ],
        priority=3,  # "Input type (cuda) and weight type (cpu)" or "... for argument 'target'" with
        # torch.cuda.* on one side only also read as dtype errors: the device is the cause
        summary="tensors on two devices met in one operation: {dev_a} and {dev_b}",
        fallback="tensors on two different devices met in one operation",
        causes=["the model was moved with model.to(device) but the batch was not (or the other way round)",
                "a tensor created inside forward() or the loss (torch.zeros, a mask, class weights) "
                "lives on the CPU by default",
                "a checkpoint or an optimizer state was loaded onto another device"],
        fixes=["move each batch where the model is: x, y = x.to(device), y.to(device)",
               "create new tensors on the right device: torch.zeros(n, device=x.device)",
               "pick the device once (ice_lab.best_device()) and use it everywhere"],
        chapter=MISMATCH,
        specifics=_devices_specifics,
    ),
    Entry(
        name="devices.numpy_of_gpu_tensor",
        kind="numpy_conversion",
        patterns=[r"can'?(?:no)?t convert (?P<device>[\w:]+)(?: device type)? tensor to numpy",
                  r"(?P<device>(?:cuda|mps|xpu)(?::\d+)?) device type tensor to numpy"],
        summary="the tensor lives on {device}; NumPy can only read CPU memory",
        fallback="the tensor lives on a GPU (or another device); NumPy can only read CPU memory",
        causes=["a tensor on the GPU (or the meta device) passed to NumPy, matplotlib or sklearn"],
        fixes=["t.detach().cpu().numpy()", "move results to the CPU once, at the end of the step"],
        chapter=NUMBERS_OUT,
    ),
]
