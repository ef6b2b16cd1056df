"""GPU-only behaviour the revised early chapters teach: bf16 autocast without a scaler,
clipping after ``unscale_``, the CUDA memory snapshot and ``memory_summary``,
``expandable_segments`` set before CUDA starts, and a ``non_blocking`` copy to the host
read after a synchronize.

Run on a CUDA machine by ``python tools/gpu_verify.py`` (or
``pytest tests/gpu -m gpu``); skipped elsewhere. Each test prints its figures for the
log.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]


def _regression(device: str) -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor]:
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    x = torch.randn(256, 32, device=device)
    return model, x, x[:, :1] * 2 + 1


def test_bf16_autocast_without_gradscaler() -> None:
    """Numerics: on Ampere and later, bf16 autocast trains without a GradScaler."""
    import torch.nn.functional as F

    if not torch.cuda.is_bf16_supported():
        pytest.skip("this GPU has no bf16 (pre-Ampere): fp16 + GradScaler is its path")
    model, x, y = _regression("cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(40):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(x)
            assert out.dtype == torch.bfloat16, f"autocast output {out.dtype}"
        loss = F.mse_loss(out.float(), y)
        loss.backward()
        assert model[0].weight.grad.dtype == torch.float32, "grads must stay float32"
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] / 2, (
        f"did not learn: {losses[0]:.4f} -> {losses[-1]:.4f}")
    print(f"bf16, no scaler: loss {losses[0]:.4f} -> {losses[-1]:.4f}")


def test_gradscaler_clip_after_unscale() -> None:
    """Numerics: clip_grad_norm_ after scaler.unscale_ sees the true gradient norm."""
    import torch.nn.functional as F

    model, x, y = _regression("cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    scaled = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
    scaler.unscale_(opt)
    true = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
    ratio = scaled / true
    assert abs(ratio / scaler.get_scale() - 1) < 1e-2, (
        f"scaled/true norm {ratio:.1f}, scale {scaler.get_scale():.0f}")
    scaler.step(opt)
    scaler.update()
    print(f"norm before unscale_ = {ratio:.0f} x the true norm (the scale)")


def test_memory_snapshot_and_memory_summary() -> None:
    """Devices: _record_memory_history -> _dump_snapshot writes a file memory_viz opens;
    memory_summary reports the allocated bytes."""
    import pickle

    torch.cuda.memory._record_memory_history(max_entries=10_000)
    try:
        model, x, y = _regression("cuda")
        kept = []
        for _ in range(4):
            # a leak: graphs kept
            kept.append(torch.nn.functional.mse_loss(model(x), y))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "snapshot.pickle"
            torch.cuda.memory._dump_snapshot(str(path))
            size = path.stat().st_size
            snapshot = pickle.loads(path.read_bytes())
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    assert size > 0 and "segments" in snapshot, f"snapshot keys {list(snapshot)[:5]}"
    summary = torch.cuda.memory_summary()
    assert "Allocated memory" in summary, "memory_summary has no 'Allocated memory' row"
    del kept
    print(f"snapshot {size:,} bytes, {len(snapshot['segments'])} segments")


_EXPANDABLE = """
import torch
x = torch.ones(2**20, device="cuda")
print(torch.cuda.memory.get_allocator_backend(), x.sum().item())
"""


@pytest.mark.kernel
def test_expandable_segments_set_before_cuda_starts() -> None:
    """Devices: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, set before CUDA starts
    (here: in a child's environment), is accepted and the child computes."""
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
    done = subprocess.run([sys.executable, "-c", _EXPANDABLE], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"child failed: {done.stderr[-500:]}"
    assert done.stdout.split()[-1] == "1048576.0", f"child printed {done.stdout!r}"
    print(f"child with expandable_segments: {done.stdout.strip()}")


def test_non_blocking_copy_to_the_host_then_synchronize() -> None:
    """Devices: a non_blocking copy to pinned host memory is read after a
    synchronize."""
    x = torch.arange(2**22, device="cuda", dtype=torch.float32)
    host = torch.empty(x.shape, dtype=x.dtype, pin_memory=True)
    host.copy_(x, non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(host, x.cpu()), "the synchronised copy differs"
    print("pinned non_blocking copy equal after synchronize")
