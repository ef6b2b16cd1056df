"""ice_lab: the helper package of the Tensor of Ice book.

Every chapter and lab imports it. Each public function's docstring names the chapter
that teaches it; the book's "ice_lab toolkit" page shows them all at work.

The names below are imported when first used (PEP 562), so that ``import ice_lab.explain``
needs no torch: the explainer also runs where torch cannot (the book's "Explain an error"
page, in the browser).
"""

from __future__ import annotations

import importlib
import types
from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_WHERE = {
    "env": "env",
    "best_device": "env", "report": "env", "set_seed": "env",
    "expect": "expect", "Provoked": "expect",
    "explain": "explain", "Diagnosis": "explain",
    "load_ipython_extension": "magic", "unload_ipython_extension": "magic",
    "summary": "summary",
    "NonFiniteError": "nonfinite", "watch_nonfinite": "nonfinite",
    "watch_nonfinite_ops": "nonfinite",
    "MemoryBudget": "memory", "MemoryTrace": "memory", "memory_trace": "memory",
    "estimate_peak": "gpu_memory", "cap_gpu_memory": "gpu_memory",
    "run_isolated": "isolate", "IsolatedResult": "isolate",
}
#: Functions named like the module that defines them: importing the module (``from
#: ice_lab.summary import ...``) must not replace the function ``ice_lab.summary``.
#: (``ice_lab.explain`` is the package itself, and calling it explains.)
_FUNCTION_OVER_MODULE = {"expect", "summary"}

__all__ = ["__version__", *_WHERE]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'ice_lab' has no attribute {name!r}")
    module = importlib.import_module(f".{_WHERE[name]}", __name__)
    value = module if name in ("env", "explain") else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FUNCTION_OVER_MODULE and isinstance(value, types.ModuleType):
            return  # the import system binding a submodule: keep the function
        super().__setattr__(name, value)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _Package
