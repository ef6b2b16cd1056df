"""ice_lab: the helper package of the Tensor of Ice book.

Every chapter and lab imports it. Each public function's docstring names the chapter
that teaches it; the book's "ice_lab toolkit" page shows them all at work.
"""

from __future__ import annotations

__version__ = "0.1.0"

from . import env
from .env import best_device, report, set_seed
from .expect import Provoked, expect
from .explain import Diagnosis, explain
from .magic import load_ipython_extension, unload_ipython_extension
from .summary import summary
from .nonfinite import NonFiniteError, watch_nonfinite, watch_nonfinite_ops
from .memory import MemoryBudget, MemoryTrace, cap_gpu_memory, estimate_peak, memory_trace
from .isolate import IsolatedResult, run_isolated

__all__ = [
    "__version__",
    "env",
    "best_device",
    "report",
    "set_seed",
    "expect",
    "Provoked",
    "explain",
    "Diagnosis",
    "load_ipython_extension",
    "unload_ipython_extension",
    "summary",
    "NonFiniteError",
    "watch_nonfinite",
    "watch_nonfinite_ops",
    "MemoryBudget",
    "MemoryTrace",
    "memory_trace",
    "estimate_peak",
    "cap_gpu_memory",
    "run_isolated",
    "IsolatedResult",
]
