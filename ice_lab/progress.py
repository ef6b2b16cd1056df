"""Progress bars for anything that runs longer than a couple of seconds.

``from ice_lab.progress import tqdm`` gives a widget bar in Jupyter and a text bar in a
terminal, like ``tqdm.auto``, with two differences a learner would otherwise trip on:

- it honours ``TQDM_DISABLE=1`` in Jupyter too (``tqdm.notebook`` ignores it). The book's
  build sets that variable so executed outputs hold no bars — they would show a frozen
  "0%" in the HTML book — while learners running a notebook see them;
- it iterates what it wraps exactly once. ``tqdm.auto``'s bar calls ``iter()`` on its
  iterable when it is created and again when the loop starts: for a ``DataLoader`` that
  draws the shuffle twice (changing the data order) and starts workers for nothing.

Used from the Datasets chapter (``book/datasets.ipynb``) on.
"""

from __future__ import annotations

import os
from typing import Any

from tqdm.std import tqdm as _text_tqdm

__all__ = ["tqdm", "bars_disabled", "in_notebook"]


def bars_disabled() -> bool:
    """True when the environment asks for no progress bars (``TQDM_DISABLE`` set, not "0").
    Used from the Datasets chapter (``book/datasets.ipynb``) on."""
    return os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false", "no")


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where a widget bar can be drawn). Used from the
    Datasets chapter (``book/datasets.ipynb``) on."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def tqdm(*args: Any, **kwargs: Any) -> _text_tqdm:
    """A progress bar (widget in Jupyter, text elsewhere); ``disable=...`` overrides the
    environment. Used from the Datasets chapter (``book/datasets.ipynb``) on."""
    if kwargs.get("disable") is None:
        kwargs["disable"] = bars_disabled()
    if in_notebook():
        try:
            from tqdm.notebook import tqdm as _widget_tqdm

            return _widget_tqdm(*args, **kwargs)
        except ImportError:  # ipywidgets missing: fall back to text
            pass
    return _text_tqdm(*args, **kwargs)
