"""ice_lab.summary (ice_lab/describe.py): one honest line for any tensor, statistics over
finite values only."""

from __future__ import annotations

import math
import re

import pytest
import torch

from ice_lab import describe as summary_mod
from ice_lab import summary

NAN, INF = float("nan"), float("inf")


def stat(line: str, name: str) -> float:
    m = re.search(rf"\b{re.escape(name)}=(\S+)", line)
    assert m, f"{name}= missing in {line!r}"
    return float(m.group(1).rstrip("!"))


def test_counts_are_shouted_and_stats_ignore_nonfinite():
    line = summary(torch.tensor([1.0, NAN, 3.0, INF, -INF, -INF]))
    assert line.startswith("tensor[6] float32 cpu no-grad ")
    assert "finite=2/6" in line
    assert "NaN=1!" in line and "+Inf=1!" in line and "-Inf=2!" in line
    assert stat(line, "min") == 1 and stat(line, "max") == 3 and stat(line, "mean") == 2
    assert stat(line, "std") == pytest.approx(math.sqrt(2), rel=1e-3)


def test_all_finite_says_zero_quietly():
    line = summary(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert "tensor[2, 2]" in line and "finite=" not in line
    assert "nan=0 +inf=0 -inf=0" in line
    assert stat(line, "mean") == 2.5


def test_matches_torch_statistics():
    t = torch.randn(1000, generator=torch.Generator().manual_seed(0)) * 3 + 1
    line = summary(t)
    assert stat(line, "mean") == pytest.approx(t.mean().item(), rel=1e-3)
    assert stat(line, "std") == pytest.approx(t.std().item(), rel=1e-3)
    assert stat(line, "min") == pytest.approx(t.min().item(), rel=1e-3)


def test_grad_state():
    leaf = torch.ones(2, requires_grad=True)
    assert "requires_grad (leaf)" in summary(leaf)
    assert "grad_fn=MulBackward0" in summary(leaf * 2)
    assert "no-grad" in summary(torch.ones(2))


def test_chunked_and_non_contiguous_give_the_same_line(monkeypatch):
    t = torch.randn(5, 6, 7, generator=torch.Generator().manual_seed(1)).transpose(0, 2)
    t[0, 0, 0] = NAN
    t[1, 2, 3] = -INF
    whole = summary(t)
    monkeypatch.setattr(summary_mod, "_CHUNK", 7)
    chunked = summary(t)
    assert stat(chunked, "mean") == pytest.approx(stat(whole, "mean"), rel=1e-4)
    assert stat(chunked, "std") == pytest.approx(stat(whole, "std"), rel=1e-4)
    assert "NaN=1!" in chunked and "-Inf=1!" in chunked and "finite=208/210" in chunked


def test_large_tensor_does_not_copy_it(monkeypatch):
    # A 4M-element tensor in 1M-element chunks: every piece handed to the reductions is small.
    seen = []
    real = summary_mod._blocks

    def spy(t, limit):
        for b in real(t, limit):
            seen.append(b.numel())
            yield b

    monkeypatch.setattr(summary_mod, "_blocks", spy)
    monkeypatch.setattr(summary_mod, "_CHUNK", 1 << 20)
    line = summary(torch.ones(4 << 20))
    assert max(seen) <= 1 << 20 and stat(line, "mean") == 1


@pytest.mark.parametrize(
    "t, expected",
    [
        (torch.arange(10), "int64 cpu no-grad min=0 max=9 mean=4.5"),
        (torch.tensor([True, False, True, True]), "bool cpu no-grad min=0 max=1 mean=0.75"),
        (torch.tensor([3 + 4j, complex(NAN, 0)]), "|z|: finite=1/2 value=5"),
        (torch.empty(0, 3), "tensor[0, 3] float32 cpu no-grad empty"),
        (torch.empty(2, 3, device="meta"), "meta (shape only, no values)"),
        (torch.eye(3).to_sparse(), "sparse_coo nnz=3 stored values: min=1 max=1"),
        (torch.tensor(2.5), "tensor[] float32 cpu no-grad value=2.5"),
        (torch.tensor([1.0, 2.0], dtype=torch.float16), "float16 cpu no-grad min=1 max=2"),
        (torch.tensor([1.0, 2.0], dtype=torch.bfloat16), "bfloat16 cpu no-grad min=1 max=2"),
        (torch.full((3,), NAN), "finite=0/3 no finite values NaN=3!"),
    ],
)
def test_every_kind_of_tensor(t, expected):
    assert expected in summary(t)


def test_never_raises_for_a_tensor(monkeypatch):
    def broken(t):
        raise RuntimeError("kaboom\nsecond line")

    monkeypatch.setattr(summary_mod, "_stats", broken)
    line = summary(torch.ones(3))
    assert line.startswith("tensor[3] float32 cpu no-grad (statistics unavailable: RuntimeError: kaboom")


@pytest.mark.parametrize("bad", [[1.0, 2.0], None, 3.0, "tensor"])
def test_non_tensors_get_a_clear_type_error(bad):
    with pytest.raises(TypeError, match="needs a torch.Tensor.*torch.as_tensor"):
        summary(bad)


def test_inside_the_diagnostic_modes():
    """summary's own temporaries neither trip watch_nonfinite_ops nor count in a budget."""
    from ice_lab import MemoryBudget, watch_nonfinite_ops

    x = torch.tensor([1.0, NAN, 3.0])
    with watch_nonfinite_ops():
        line = summary(x)
    assert "NaN=1!" in line and "unavailable" not in line
    big = torch.zeros(1 << 16).view(256, 256).t()  # made outside the budget; non-contiguous
    budget = MemoryBudget("1KiB")
    with budget:
        line = summary(big)
    assert "mean=0" in line and budget.peak == 0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_tensor_is_summarised_on_the_device():  # pragma: no cover - GPU machines only
    t = torch.randn(1000, device="cuda")
    t[3] = NAN
    line = summary(t)
    assert "cuda:0" in line and "NaN=1!" in line


def test_a_single_finite_value_is_shown_as_its_value_not_a_nan_std():
    import torch
    from ice_lab import summary

    line = summary(torch.tensor([1.0, float("inf")]))
    assert "value=1" in line and "std" not in line and "finite=1/2" in line
    assert "std" not in summary(torch.tensor(2.5)) and "value=2.5" in summary(torch.tensor(2.5))
