"""The first look at a model that will not train, as the Debugging chapter imports it.

``from ice_lab.debug import preflight, trace_shapes``: ``trace_shapes`` lives in
``shapes.py`` ("what shape goes in and out of every layer?"), ``preflight`` in
``preflight.py`` ("will one training step work?"). Taught in the Debugging chapter
(``book/debugging.ipynb``), used in the capstone lab (``labs/lab-capstone.ipynb``).
"""

from __future__ import annotations

from .preflight import CHAPTERS, SEVERITIES, Finding, PreflightReport, preflight
from .shapes import ShapeRow, ShapeTrace, trace_shapes

__all__ = [
    "CHAPTERS", "SEVERITIES", "Finding", "PreflightReport", "preflight",
    "ShapeRow", "ShapeTrace", "trace_shapes",
]
