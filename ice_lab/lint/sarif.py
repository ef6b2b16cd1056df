"""``ice-lab lint --format sarif``: findings as SARIF 2.1.0, the format code hosts read
(book/debugging.ipynb, 'Lint before you run').

A course's or a team's CI uploads the file (GitHub: ``github/codeql-action/upload-sarif``)
and the findings appear on the lines of the diff. Every rule is listed under
``runs[0].tool.driver.rules`` with the chapter section that teaches it (``help``, and
``properties.chapter`` / ``properties.anchor``: the notebook and its heading's anchor; no
``helpUri``, which SARIF wants absolute, and the package does not know where the book is
published); each result has its ``ruleId``, message and location. A finding in a
notebook names its cell in the message and in ``properties.cell`` (its line is the
cell's line).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .. import __version__
from .engine import RULES, Finding

__all__ = ["SARIF_SCHEMA", "to_sarif"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str) -> str:
    """The path relative to the working folder when it lies inside it, with ``/``."""
    try:
        path = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        pass
    return Path(path).as_posix()


def _rule(code: str) -> dict:
    text, chapter = RULES[code].summary, RULES[code].chapter
    notebook, _, anchor = chapter.partition("#")
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": text},
        "help": {"text": f"Taught in {chapter}."},
        "defaultConfiguration": {"level": "error" if code == "ICE100" else "warning"},
        "properties": {"chapter": notebook, "anchor": anchor},
    }


def to_sarif(findings: Iterable[Finding]) -> dict:
    """One SARIF 2.1.0 log (a dict ready for ``json.dump``) holding ``findings``
    (book/debugging.ipynb)."""
    codes = list(RULES)
    results = []
    for f in findings:
        text = f.message if f.cell is None else f"cell {f.cell}: {f.message}"
        result = {
            "ruleId": f.code,
            "ruleIndex": codes.index(f.code),
            "level": "error" if f.code == "ICE100" else "warning",
            "message": {"text": text},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.path)},
                "region": {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)},
            }}],
        }
        if f.cell is not None:
            result["properties"] = {"cell": f.cell}
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ice-lab lint",
                "version": __version__,
                "rules": [_rule(code) for code in codes],
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
