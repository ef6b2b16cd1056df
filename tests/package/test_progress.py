"""ice_lab.progress: bars for learners, none in executed outputs."""

from __future__ import annotations

import pytest

from ice_lab.progress import bars_disabled, tqdm

pytestmark = pytest.mark.kernel  # every test here starts a kernel or a child process


def test_environment_disables_bars(monkeypatch):
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert bars_disabled()
    assert tqdm(range(3)).disable
    assert list(tqdm(range(3))) == [0, 1, 2]


def test_bars_shown_by_default(monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    assert not bars_disabled()
    bar = tqdm(range(3))
    assert not bar.disable
    bar.close()


def test_explicit_argument_wins(monkeypatch):
    monkeypatch.setenv("TQDM_DISABLE", "1")
    bar = tqdm(range(3), disable=False)
    assert not bar.disable
    bar.close()
    monkeypatch.setenv("TQDM_DISABLE", "0")
    assert not bars_disabled()


class CountingLoader:
    """An iterable that counts how often iteration starts, like a DataLoader drawing a shuffle."""

    def __init__(self) -> None:
        self.starts = 0

    def __len__(self) -> int:
        return 3

    def __iter__(self):
        self.starts += 1
        return iter([1, 2, 3])


def test_wrapped_iterable_is_iterated_once(monkeypatch):
    for value in ("1", "0"):
        monkeypatch.setenv("TQDM_DISABLE", value)
        loader = CountingLoader()
        assert list(tqdm(loader)) == [1, 2, 3]
        assert loader.starts == 1


def test_outside_a_notebook_the_bar_is_text():
    from ice_lab.progress import in_notebook

    assert not in_notebook()


# ------------------------------------------------------------------ in a real Jupyter kernel
# The two reasons ice_lab.progress exists only show in Jupyter, where tqdm draws a widget:
# tqdm.notebook ignores TQDM_DISABLE, and a bar may iterate what it wraps twice. So these
# run in the venv's own python3 kernel (nbclient), one kernel for all the checks.

KERNEL_CELLS = [
    # 0: in a kernel, with TQDM_DISABLE=1 set by the parent (as `make execute` does)
    """
import os
from ice_lab.progress import bars_disabled, in_notebook, tqdm
assert os.environ["TQDM_DISABLE"] == "1"
assert in_notebook(), "a Jupyter kernel must count as a notebook"
total = 0
for i in tqdm(range(5), desc="hidden"):
    total += i
assert total == 10
""",
    # 1: bars on: a widget bar is drawn (the check above would see one if it were shown)
    """
os.environ["TQDM_DISABLE"] = "0"
bar = tqdm(range(3), desc="shown")
for _ in bar:
    pass
print(type(bar).__module__)
""",
    # 2: a DataLoader is iterated once per loop, bars on and off
    """
import torch
from torch.utils.data import DataLoader, Sampler


class CountingSampler(Sampler):
    def __init__(self, n):
        self.n, self.starts = n, 0
    def __iter__(self):
        self.starts += 1
        return iter(torch.randperm(self.n).tolist())
    def __len__(self):
        return self.n

class CountingLoader(DataLoader):
    def __iter__(self):
        self.starts = getattr(self, "starts", 0) + 1
        return super().__iter__()

starts = {}
for flag in ("0", "1"):
    os.environ["TQDM_DISABLE"] = flag
    sampler = CountingSampler(8)
    loader = CountingLoader(list(range(8)), batch_size=2, sampler=sampler)
    seen = [int(x) for batch in tqdm(loader) for x in batch]
    assert sorted(seen) == list(range(8))
    starts[flag] = (loader.starts, sampler.starts)
print("starts", starts)
""",
]

WIDGET = "application/vnd.jupyter.widget-view+json"


def _has_widget(cell) -> bool:
    return any(WIDGET in o.get("data", {}) for o in cell.outputs if o.output_type == "display_data")


def test_in_a_real_kernel_tqdm_disable_is_honoured_and_a_loader_is_iterated_once(monkeypatch, tmp_path):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("TQDM_DISABLE", "1")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src.strip()) for src in KERNEL_CELLS]
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()  # raises CellExecutionError if an assert inside the kernel fails
    hidden, shown, loader = nb.cells
    assert not _has_widget(hidden), "TQDM_DISABLE=1 must hide the bar in Jupyter"
    assert not [o for o in hidden.outputs if o.output_type == "stream"], "nothing printed either"
    assert _has_widget(shown), "with bars on, Jupyter gets a widget bar"
    assert "tqdm.notebook" in "".join(o.get("text", "") for o in shown.outputs)
    text = "".join(o.get("text", "") for o in loader.outputs if o.output_type == "stream")
    # (loader iterations, sampler iterations) with bars on ("0") and off ("1")
    assert "starts {'0': (1, 1), '1': (1, 1)}" in text, f"each loop must iterate the loader once: {text}"
