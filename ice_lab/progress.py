"""Progress bars for anything that runs longer than a couple of seconds.

``from ice_lab.progress import tqdm`` is ``tqdm.auto.tqdm`` (a widget in Jupyter, text in
a terminal) that also honours ``TQDM_DISABLE=1`` in Jupyter, which ``tqdm.notebook``
ignores. The book's build sets that variable so executed outputs hold no bars (they would
show a frozen "0%" in the HTML book); learners running a notebook see them. Used from the
Datasets chapter (``book/datasets.ipynb``) on, and by ``ice_lab.train.fit``.
"""

from __future__ import annotations

import os
from typing import Any

from tqdm.auto import tqdm as _auto_tqdm

__all__ = ["tqdm", "bars_disabled"]


def bars_disabled() -> bool:
    """True when the environment asks for no progress bars (``TQDM_DISABLE`` set, not "0")."""
    return os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false", "no")


def tqdm(*args: Any, **kwargs: Any) -> _auto_tqdm:
    """A ``tqdm.auto.tqdm`` progress bar; pass ``disable=...`` to override the environment."""
    if kwargs.get("disable") is None:
        kwargs["disable"] = bars_disabled()
    return _auto_tqdm(*args, **kwargs)
