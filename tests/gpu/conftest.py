"""The GPU suite: tests of the CUDA behaviour the book quotes
(reference/gpu-probe-h200.log).

Every test here is marked ``gpu`` and skipped where ``torch.cuda.is_available()`` is
False, so CI (no GPU) collects and skips them. On a CUDA machine,
``python tools/gpu_verify.py`` (ice_teach/verify/gpu.py) runs them with
``pytest tests/gpu -m gpu --junitxml ...`` after executing the notebooks, and counts the
report. Each test prints one line of figures, which gpu_verify puts in its log.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "gpu: needs a CUDA GPU (tests/gpu; run by tools/gpu_verify.py, skipped without "
        "CUDA)",
    )


@pytest.fixture(autouse=True)
def _empty_the_cuda_cache() -> Iterator[None]:
    """After each test, give the cached blocks back, so that one test's memory never
    counts in the next one's figures."""
    yield
    with contextlib.suppress(Exception):
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
