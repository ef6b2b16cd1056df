"""Where did the first NaN or Inf come from: which layer, which pass, which aten op?

Two context managers that raise :class:`NonFiniteError` at the *first* place a NaN/Inf
shows up, instead of letting it spread until the loss prints ``nan``:

* ``watch_nonfinite(model)`` (``modules.py``) hooks every submodule: forward outputs, and
  the gradients flowing back through them and into the parameters. It names the module,
  e.g. ``net.2 (Linear)``, and the pass.
* ``watch_nonfinite_ops()`` (``ops.py``) checks the output of every aten op, inside
  modules or not, forward and backward, and names the op (``aten.log.default``).

Taught in the chapter Finding where NaN starts (``book/nonfinite.ipynb``); shown on the
toolkit page (``book/toolkit.ipynb``).
"""

from __future__ import annotations

from .error import NonFiniteError
from .modules import watch_nonfinite
from .ops import watch_nonfinite_ops

__all__ = ["NonFiniteError", "watch_nonfinite", "watch_nonfinite_ops"]
