"""ice_lab: the helper package of the Tensor of Ice book.

Every chapter and lab imports it. Each public function's docstring names the chapter
that teaches it; the book's "ice_lab toolkit" page shows them all at work.

The names below are imported when first used (PEP 562), so that ``ice_lab.explain`` (and
``import ice_lab.explainer``) needs no torch: the explainer also runs where torch cannot (the
book's "Explain an error" page, in the browser).

Each name comes from its own module, and no function shares its module's name:
``ice_lab.expect`` is defined in ``provoke.py``, ``ice_lab.summary`` in ``describe.py`` and
``ice_lab.explain`` in the ``explainer`` package, so importing a module never replaces a
function of the package.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_WHERE = {
    "env": "env",
    "best_device": "env", "report": "env", "set_seed": "env",
    "expect": "provoke", "Provoked": "provoke",
    "explain": "explainer", "Diagnosis": "explainer",
    "load_ipython_extension": "magic", "unload_ipython_extension": "magic",
    "summary": "describe",
    "NonFiniteError": "nonfinite", "watch_nonfinite": "nonfinite",
    "watch_nonfinite_ops": "nonfinite",
    "MemoryBudget": "memory", "MemoryTrace": "memory", "memory_trace": "memory",
    "estimate_peak": "gpu_memory", "cap_gpu_memory": "gpu_memory",
    "run_isolated": "isolate", "IsolatedResult": "isolate",
}
__all__ = ["__version__", *_WHERE]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'ice_lab' has no attribute {name!r}")
    module = importlib.import_module(f".{_WHERE[name]}", __name__)
    value = module if name == "env" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))

