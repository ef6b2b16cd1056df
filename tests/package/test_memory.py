"""ice_lab.memory: the simulated budget, the per-step trace, the dry-run peak, the GPU cap."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch
from torch import nn

from ice_lab import MemoryBudget, cap_gpu_memory, estimate_peak, memory_trace
from ice_lab._text import format_bytes
from ice_lab.memory import parse_bytes

MiB = 2**20


# -- limits --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        (4096, 4096),
        ("64MiB", 64 * MiB),
        ("64 MiB", 64 * MiB),
        ("1.5GiB", 3 * 2**29),
        ("1.5 gib", 3 * 2**29),
        ("512KB", 512_000),
        ("2GB", 2 * 10**9),
        ("100", 100),
        ("10 B", 10),
    ],
)
def test_parse_bytes(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("bad", ["lots", "64 MB/s", "12 M", "", "MiB", "1e"])
def test_parse_bytes_rejects_unreadable_sizes(bad):
    with pytest.raises(ValueError, match="cannot read the memory size.*64MiB"):
        parse_bytes(bad)


@pytest.mark.parametrize("bad", [0, -5, "0MiB"])
def test_parse_bytes_rejects_non_positive(bad):
    with pytest.raises(ValueError, match="must be positive"):
        parse_bytes(bad)


@pytest.mark.parametrize("bad", [True, 1.5, None, [64]])
def test_parse_bytes_rejects_other_types(bad):
    with pytest.raises(TypeError, match="number of bytes"):
        parse_bytes(bad)


def test_format_bytes():
    assert format_bytes(3 * MiB // 2) == "1.50 MiB"
    assert format_bytes(512) == "512 bytes"
    assert format_bytes(2**31) == "2.00 GiB"


# -- counting ------------------------------------------------------------------------------
def test_new_storage_counted_and_freed_storage_credited():
    budget = MemoryBudget()
    with budget:
        x = torch.zeros(256, 1024)  # exactly 1 MiB
        assert budget.live == MiB
        view = x[10:]
        assert budget.live == MiB  # a view shares the storage
        del x
        assert budget.live == MiB  # ... and keeps it alive
        del view
        assert budget.live == 0
        kept = [torch.zeros(256, 1024) for _ in range(3)]
        assert budget.live == 3 * MiB  # referenced by a Python list: counted
        kept.clear()
        assert budget.live == 0
        small = torch.tensor([1.0, 2.0])  # torch.tensor(...) data counts too
        assert budget.live == 8
    assert budget.peak == 3 * MiB
    del small
    assert budget.live == 0  # credited after the block too


def test_tensors_saved_by_the_graph_stay_counted():
    budget = MemoryBudget()
    w = torch.ones(256, 1024, requires_grad=True)  # made outside: not counted
    with budget:
        y = w.exp()  # exp saves its output for backward
        z = y.sum()
        del y
        assert budget.live >= MiB  # the graph keeps y's storage alive
        del z
        assert budget.live == 0
        assert budget.peak >= MiB


def test_in_place_updates_of_outside_storage_are_free():
    p = torch.zeros(256, 1024)
    budget = MemoryBudget("1KiB")
    with budget:
        p.add_(1.0)
        p.mul_(2.0)
        v = p.view(-1)
    assert budget.live == 0 and budget.peak == 0 and v.shape == (256 * 1024,)


def make_mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))


def data():
    g = torch.Generator().manual_seed(0)
    return torch.randn(64, 256, generator=g), torch.randint(0, 10, (64,), generator=g)


def param_bytes(model: nn.Module) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def test_leak_grows_linearly_and_item_fix_stays_flat():
    """``total += loss`` keeps each step's graph (with its saved activations) alive."""
    model, (x, y), loss_fn = make_mlp(), data(), nn.CrossEntropyLoss()
    slopes = {}
    for fixed in (False, True):
        budget = MemoryBudget()
        trace = memory_trace(budget)
        total = 0.0
        with budget:
            for _ in range(6):
                loss = loss_fn(model(x), y)  # an evaluation loop without torch.no_grad()
                total = total + (loss.item() if fixed else loss)
                trace.record()
        slopes[fixed] = trace.growth_per_step()
        steps = [b - a for a, b in zip(trace.allocated, trace.allocated[1:])]
        if fixed:
            assert steps == [0] * 5, trace.allocated
        else:
            assert len(set(steps)) == 1 and steps[0] > 64 * 512 * 4, trace.allocated  # same growth each step
        del total, loss
    assert slopes[True] == 0
    assert slopes[False] > 100_000  # ~ the activations of one batch per step


def test_with_backward_each_step_the_saved_activations_are_freed():
    """The nuance behind the classic leak: backward() frees what the graph saved."""
    model, (x, y), loss_fn = make_mlp(), data(), nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    budget = MemoryBudget()
    trace = memory_trace(budget)
    total = 0.0
    with budget:
        for _ in range(6):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            total = total + loss  # chains the graphs, but their saved tensors are gone
            trace.record()
    assert trace.growth_per_step() < 64  # a few bytes per step, not a batch of activations


def test_backward_and_optimizer_state_are_counted():
    model, (x, y), loss_fn = make_mlp(), data(), nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters())
    budget = MemoryBudget()
    with budget:
        loss_fn(model(x), y).backward()
        after_backward = budget.live
        opt.step()  # first step: Adam creates exp_avg and exp_avg_sq
        after_step = budget.live
    assert after_backward >= param_bytes(model)  # the gradients
    assert after_step - after_backward >= 2 * param_bytes(model)
    opt.zero_grad()  # set_to_none: the gradients are freed and credited
    assert budget.live == pytest.approx(after_step - param_bytes(model), abs=64)


def test_limit_raises_a_simulated_oom_and_the_budget_recovers():
    budget = MemoryBudget("1MiB")
    with budget:
        a = torch.zeros(200_000)  # 781.25 KiB
    with pytest.raises(torch.OutOfMemoryError) as info:
        with budget:
            b = torch.zeros(100_000)  # 390.62 KiB more: over 1 MiB
    msg = str(info.value)
    assert msg.startswith(
        "Simulated out of memory (ice_lab.MemoryBudget): tried to allocate 390.62 KiB; "
        "781.25 KiB live; limit 1.00 MiB."
    )
    assert "simulated budget" in msg and "not a real allocator failure" in msg
    assert budget.requested == 400_000 and budget.live == 800_000 and budget.limit == MiB
    del a  # recovery: free, then carry on with the same budget
    assert budget.live == 0
    with budget:
        b = torch.zeros(100_000)
    assert budget.live == 400_000 and b.numel() == 100_000


def test_oom_in_the_backward_pass():
    model = nn.Linear(256, 256)
    x = torch.randn(64, 256, requires_grad=True)
    budget = MemoryBudget("300KiB")
    with budget:
        out = model(x).sum()
    with pytest.raises(torch.OutOfMemoryError, match="tried to allocate 256.00 KiB"):
        with budget:
            out.backward()  # dW is 256 KiB on top of dx (64 KiB)
    assert budget.live < 1024  # what the failed backward made was freed and credited


def test_entering_twice_at_once_is_refused_but_reentry_after_exit_works():
    budget = MemoryBudget()
    with budget:
        with pytest.raises(RuntimeError, match="already active"):
            budget.__enter__()
        x = torch.zeros(10)
    with budget:
        y = torch.zeros(10)
    assert budget.live == 80 and x.numel() + y.numel() == 20
    with MemoryBudget() as outer:
        with MemoryBudget() as inner:
            z = torch.zeros(10)
    assert inner.live == outer.live == 40 and z.numel() == 10


def test_reset_peak_and_repr():
    budget = MemoryBudget("2MiB")
    with budget:
        tmp = torch.zeros(256, 1024)
        del tmp
    assert budget.peak == MiB
    budget.reset_peak()
    assert budget.peak == 0
    assert repr(budget) == "MemoryBudget(limit=2.00 MiB, live=0 bytes, peak=0 bytes)"


# -- memory_trace --------------------------------------------------------------------------
@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the CPU-only error")
def test_trace_without_budget_needs_cuda():
    with pytest.raises(RuntimeError, match="no CUDA device here.*MemoryBudget"):
        memory_trace()


def test_trace_arguments_and_plot():
    with pytest.raises(TypeError, match="MemoryBudget"):
        memory_trace("64MiB")
    budget = MemoryBudget()
    trace = memory_trace(budget)
    with pytest.raises(ValueError, match="at least two records"):
        trace.growth_per_step()
    kept = []
    with budget:
        for step in range(0, 10, 2):
            kept.append(torch.zeros(256))  # 1 KiB per record, records every second step
            trace.record(step)
    assert trace.steps == [0, 2, 4, 6, 8] and trace.reserved is None
    assert trace.growth_per_step() == pytest.approx(512.0)
    ax = trace.plot(title="leak")
    assert ax.get_title() == "leak" and len(ax.lines) == 1
    with pytest.raises(TypeError, match="step must be a whole number"):
        trace.record("3")
    trace.record(np.int64(10))  # the one integer check: NumPy integers count
    assert trace.steps[-1] == 10 and type(trace.steps[-1]) is int


# -- estimate_peak -------------------------------------------------------------------------
def measured_peak(model, batch, loss_fn, opt) -> int:
    """Resident bytes before the step + MemoryBudget's peak during it (same accounting)."""
    x, y = batch
    before = param_bytes(model) + x.numel() * x.element_size() + y.numel() * y.element_size()
    before += sum(b.numel() * b.element_size() for b in model.buffers())
    before += sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    before += sum(
        v.numel() * v.element_size() for s in opt.state.values() for v in s.values() if isinstance(v, torch.Tensor)
    )
    budget = MemoryBudget()
    with budget:
        out = model(x)  # output and loss referenced until the step ends, as estimate_peak assumes
        loss = loss_fn(out, y)
        loss.backward()
        opt.step()
    del out, loss
    return before + budget.peak


def make_cnn() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.2),
        nn.Flatten(), nn.Linear(8 * 8 * 8, 10),
    )


@pytest.mark.parametrize("opt_cls", [torch.optim.SGD, torch.optim.Adam])
@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_estimate_peak_agrees_with_the_measured_peak(opt_cls, kind):
    if kind == "mlp":
        model, batch = make_mlp(), data()
    else:
        g = torch.Generator().manual_seed(0)
        model, batch = make_cnn(), (torch.randn(16, 3, 16, 16, generator=g), torch.randint(0, 10, (16,), generator=g))
    loss_fn = nn.CrossEntropyLoss()
    opt = opt_cls(model.parameters(), lr=0.01)
    for _ in range(2):  # first step (grads and state created), then a step with both present
        budget = MemoryBudget()
        with budget:
            estimate = estimate_peak(model, batch, loss_fn, opt)
        assert budget.peak < 1024  # nothing real was allocated
        measured = measured_peak(model, batch, loss_fn, opt)
        assert estimate == pytest.approx(measured, rel=1e-3), (estimate, measured)  # observed: equal (torch 2.14)


def test_estimate_peak_leaves_the_model_alone_and_handles_item():
    model, batch = make_mlp(), data()
    opt = torch.optim.Adam(model.parameters())
    before = [p.detach().clone() for p in model.parameters()]

    def loss_fn(out, y):
        loss = nn.functional.cross_entropy(out, y)
        print(f"loss {loss.item():.3f}")  # a value-dependent line: 0 on the meta device
        return loss

    peak = estimate_peak(model, batch, loss_fn, opt)
    assert peak > 3 * param_bytes(model)  # params + grads + two Adam moments, at least
    assert all(torch.equal(a, p) for a, p in zip(before, model.parameters()))
    assert all(p.grad is None for p in model.parameters()) and not opt.state
    single = estimate_peak(model, batch[0], lambda out: out.pow(2).mean(), None)
    assert 0 < single < peak


def test_estimate_peak_bad_arguments():
    model, batch, loss_fn = make_mlp(), data(), nn.CrossEntropyLoss()
    with pytest.raises(TypeError, match="nn.Module"):
        estimate_peak(lambda x: x, batch, loss_fn, None)
    with pytest.raises(TypeError, match="loss_fn must be callable"):
        estimate_peak(model, batch, "mse", None)
    with pytest.raises(TypeError, match="torch.optim.Optimizer"):
        estimate_peak(model, batch, loss_fn, "adam")
    with pytest.raises(TypeError, match="pair \\(inputs, targets\\)"):
        estimate_peak(model, (1, 2, 3), loss_fn, None)
    with pytest.raises(TypeError, match="scalar tensor"):
        estimate_peak(model, batch[0], lambda out: out, None)


def test_estimate_peak_explains_what_the_meta_device_cannot_do():
    model, batch = make_mlp(), data()

    def value_dependent_loss(out, y):
        return out[out > 0].sum()  # boolean-mask indexing: the output size depends on values

    with pytest.raises(RuntimeError, match="could not run the forward pass or the loss on the meta device.*MemoryBudget"):
        estimate_peak(model, batch, value_dependent_loss, None)


# -- cap_gpu_memory ------------------------------------------------------------------------
@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the CPU-only error")
def test_cap_gpu_memory_without_cuda():
    with pytest.raises(RuntimeError, match="no CUDA device here; on CPU use ice_lab.MemoryBudget"):
        cap_gpu_memory(2)


@pytest.mark.parametrize("bad, err", [(0, ValueError), (-1, ValueError), (float("inf"), ValueError), ("2", TypeError), (True, TypeError)])
def test_cap_gpu_memory_bad_sizes(bad, err):
    with pytest.raises(err, match="gib must be"):
        cap_gpu_memory(bad)


def test_cap_gpu_memory_sets_and_restores_the_fraction(monkeypatch):
    """A fake 80 GiB card: the cap is 2/80 of it inside, and the old setting comes back."""
    calls = []

    class Props:
        total_memory = 80 * 2**30

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: Props())
    monkeypatch.setattr(torch.cuda, "get_per_process_memory_fraction", lambda d: 0.5, raising=False)
    monkeypatch.setattr(torch.cuda, "set_per_process_memory_fraction", lambda f, d: calls.append(f))
    with pytest.raises(ValueError, match="80.00 GiB in total"):
        cap_gpu_memory(100)
    with pytest.raises(KeyError):
        with cap_gpu_memory(2) as cap:
            assert calls == [2 / 80]
            raise KeyError("boom")
    assert calls == [2 / 80, 0.5]  # restored, also after an error
    assert repr(cap) == "cap_gpu_memory(2 GiB = 0.0250 of 80.00 GiB)"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cap_gpu_memory_real_oom():  # pragma: no cover - runs on GPU machines only
    torch.cuda.empty_cache()
    with cap_gpu_memory(1):
        with pytest.raises(torch.OutOfMemoryError):
            torch.empty(2 * 2**30, dtype=torch.uint8, device="cuda")
    x = torch.empty(2 * 2**30, dtype=torch.uint8, device="cuda")  # fine again after the block
    del x


def test_estimate_peak_and_cap_gpu_memory_live_in_gpu_memory():
    import ice_lab.gpu_memory

    for name in ("estimate_peak", "cap_gpu_memory"):
        assert getattr(ice_lab, name) is getattr(ice_lab.gpu_memory, name)
        assert getattr(ice_lab, name).__module__ == "ice_lab.gpu_memory"


def test_trace_on_cuda_reads_the_allocator(monkeypatch):
    """The CUDA path, with the allocator's counters faked: allocated and reserved per step."""
    allocated = iter([1000, 3000, 5000])
    reserved = iter([2**21, 2**21, 2**22])
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda *a, **k: next(allocated))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda *a, **k: next(reserved))
    trace = memory_trace()
    for _ in range(3):
        trace.record()
    assert trace.steps == [0, 1, 2]
    assert trace.allocated == [1000, 3000, 5000] and trace.reserved == [2**21, 2**21, 2**22]
    assert trace.growth_per_step() == pytest.approx(2000.0)
    ax = trace.plot()
    assert len(ax.lines) == 2 and "1.95 KiB/step" in ax.get_title()
    assert repr(trace) == "MemoryTrace(3 records from torch.cuda.memory_allocated)"


# -- memory_limit, traced, peak_bytes (labs/lab-oom.ipynb) ------------------------------------
needs_cpu = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU path: a budget")


@needs_cpu
def test_memory_limit_is_a_budget_on_cpu():
    from ice_lab.memory import memory_limit

    with memory_limit(1) as budget:
        small = torch.zeros(2**16)  # 256 KiB: fits
        assert isinstance(budget, MemoryBudget) and budget.limit == MiB
        assert budget.live == small.numel() * 4
    with pytest.raises(torch.OutOfMemoryError, match="Simulated"):
        with memory_limit(0.5, gpu_scale=16):  # the scale is for GPUs only
            torch.zeros(2**18)  # 1 MiB


@needs_cpu
def test_traced_records_live_bytes_per_step_under_an_optional_limit():
    from ice_lab.memory import traced

    kept = []
    with traced() as trace:
        for step in range(3):
            kept.append(torch.zeros(1024))  # 4 KiB kept per step
            trace.record(step)
    assert trace.growth_per_step() == 4096
    with pytest.raises(torch.OutOfMemoryError):
        with traced(limit_mib=0.01) as trace:
            for step in range(10):
                kept.append(torch.zeros(1024))
                trace.record(step)
    assert 1 <= len(trace.allocated) < 10


@needs_cpu
def test_peak_bytes_counts_what_lived_at_once():
    from ice_lab.memory import peak_bytes

    def two_then_one():
        a = torch.zeros(1024)
        b = torch.zeros(1024)
        del a, b
        torch.zeros(512)

    assert peak_bytes(two_then_one) == 2 * 4096


def test_memory_limit_on_cuda_caps_what_is_reserved_plus_the_scaled_limit(monkeypatch):
    """The CUDA path, with the allocator faked: a cap at reserved + mib * gpu_scale MiB."""
    import ice_lab.gpu_memory
    from ice_lab.memory import memory_limit

    caps = []

    class FakeCap:
        def __init__(self, gib):
            caps.append(gib)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a, **k: None)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda *a, **k: None)
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda *a, **k: 2**30)
    monkeypatch.setattr(ice_lab.gpu_memory, "cap_gpu_memory", FakeCap)
    with memory_limit(4, gpu_scale=16) as cap:
        assert isinstance(cap, FakeCap)
    assert caps == [1 + 4 * 16 / 1024]
