"""mypy over ice_lab, configured in pyproject.toml (``[tool.mypy]``): a function annotated
to return two values that returns three fails the unit stage, not a reader.

mypy runs in this process (``mypy.api``), with its cache in ``.mypy_cache/`` at the
repository's root, so that a warm run takes seconds.
"""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]


def test_ice_lab_type_checks():
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"),
                                "--cache-dir", str(ROOT / ".mypy_cache"), str(ROOT / "ice_lab")])
    assert status == 0, f"mypy over ice_lab:\n{out}{err}"
    assert "Success" in out
