"""Explain a PyTorch error the way an experienced engineer would.

``explain(error)`` takes an exception (or its message, or anything at all) and returns a
:class:`Diagnosis`: the *kind* of failure, a one-line summary that uses the specifics of
*your* message ("your input has 3 features but the layer expects 4"), the likely causes,
the fixes, and the chapter of the book that teaches it.

    >>> from ice_lab import explain
    >>> d = explain("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    >>> d.kind
    'shape_mismatch'

The function is ``ice_lab.explain`` (chapters write ``ice_lab.explain(err)``); this package,
``ice_lab.explainer``, holds it and what it knows (``ice_lab.explainer.KINDS``,
``CATALOGUE``). Importing it needs neither torch nor NumPy (the book's "Explain an error"
page runs it in the browser).

The package has these parts:

* ``entry.py``: what a catalogue entry is (:class:`~ice_lab.explainer.entry.Entry`,
  :class:`~ice_lab.explainer.entry.Clues`);
* ``catalogue/``: what ``explain`` knows, as plain entries, one file per chapter;
* ``engine.py``: how an error is unwrapped, matched against the catalogue and the best
  match chosen (phrasing over keyword, then priority; the order of entries never matters);
* ``render.py``: the :class:`Diagnosis` and its text and HTML forms;
* ``logs.py`` and ``cli.py``: the errors in a training or ``torchrun`` log, and the
  ``ice-lab explain LOG`` command.

``explain(error, verbose=True)`` says which entry matched and on what words.

Taught in the ice_lab toolkit chapter (``book/toolkit.ipynb``); every lab's "Diagnose"
step uses it.
"""

from __future__ import annotations

from .catalogue import CATALOGUE, KINDS
from .engine import explain
from .entry import Entry
from .render import Diagnosis

__all__ = ["Diagnosis", "explain", "KINDS", "CATALOGUE", "Entry"]
