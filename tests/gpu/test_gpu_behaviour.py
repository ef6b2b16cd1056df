"""What CUDA does that the book quotes from reference/gpu-probe-h200.log: the device
mismatch texts, allocated vs reserved memory, an OOM and the recovery from it, memory
growth per step, a device-side assert in a child, fp16 with GradScaler, estimate_peak
against the measured peak, matmul throughput by format, checkpoints across devices,
GradScaler state in a checkpoint, and export on CUDA.

Run on a CUDA machine by ``python tools/gpu_verify.py`` (or
``pytest tests/gpu -m gpu``); skipped elsewhere. Each test prints its figures for the
log.
"""

from __future__ import annotations

import time

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

MiB = 2**20


def test_device_mismatch_and_numpy_texts() -> None:
    from torch import nn

    import ice_lab

    texts = []
    cases = [
        ("cuda+cpu add", lambda: torch.ones(2, device="cuda") + torch.ones(2),
         "found at least two devices"),
        ("Linear(cuda)(cpu)", lambda: nn.Linear(3, 2).cuda()(torch.ones(4, 3)),
         "mat1 is on cpu"),
        (
            "cross_entropy cuda/cpu",
            lambda: nn.functional.cross_entropy(torch.zeros(4, 3, device="cuda"),
                                                torch.tensor([0, 1, 2, 0])),
            "target is on cpu",
        ),
    ]
    for name, fn, words in cases:
        try:
            fn()
        except RuntimeError as err:
            msg = str(err)
            assert "Expected all tensors to be on the same device" in msg, (
                f"{name}: unexpected text {msg!r}")
            assert words in msg, (
                f"{name}: the message no longer contains {words!r}: {msg!r}")
            kind = ice_lab.explain(err).kind
            assert kind == "device_mismatch", f"{name}: explain() said {kind!r}"
            texts.append(name)
        else:
            pytest.fail(f"{name}: no error")
    # a 0-dim CPU tensor may join a CUDA tensor
    (torch.ones(2, device="cuda") + torch.tensor(1.0)).sum().item()
    try:
        torch.ones(3, device="cuda").numpy()
    except TypeError as err:
        assert "can't convert cuda:0 device type tensor to numpy" in str(err), (
            f"numpy(): {err}")
    else:
        pytest.fail(".numpy() on a CUDA tensor did not raise")
    print(", ".join(texts) + ", .numpy() text")


def test_cap_gpu_memory_oom_and_recovery() -> None:
    import ice_lab

    torch.cuda.empty_cache()
    blocks = []
    caught = None
    with ice_lab.cap_gpu_memory(1.0):
        try:
            for _ in range(64):
                blocks.append(torch.empty(128 * MiB, dtype=torch.uint8, device="cuda"))
        except torch.OutOfMemoryError as err:
            caught = err
    assert caught is not None, "no OutOfMemoryError under a 1 GiB cap"
    kind = ice_lab.explain(caught).kind
    assert kind == "out_of_memory", f"explain() said {kind!r}"
    got = len(blocks)
    del blocks, caught
    torch.cuda.empty_cache()
    after = torch.empty(512 * MiB, dtype=torch.uint8, device="cuda")
    ok = after.numel() == 512 * MiB
    del after
    torch.cuda.empty_cache()
    assert ok, "could not allocate after the OOM"
    print(f"OOM after {got} x 128 MiB under a 1 GiB cap; 512 MiB allocated afterwards")


def test_allocated_vs_reserved_and_empty_cache() -> None:
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    blocks = [torch.empty(256 * MiB, dtype=torch.uint8, device="cuda")
              for _ in range(4)]
    alloc, reserved = torch.cuda.memory_allocated() - base, torch.cuda.memory_reserved()
    del blocks
    alloc_after = torch.cuda.memory_allocated() - base
    reserved_after = torch.cuda.memory_reserved()
    torch.cuda.empty_cache()
    reserved_empty = torch.cuda.memory_reserved()
    assert alloc == 1024 * MiB and reserved >= alloc, (
        f"allocated {alloc}, reserved {reserved}")
    assert alloc_after == 0 and reserved_after >= 1024 * MiB, (
        "del should keep the cache reserved")
    assert reserved_empty < 64 * MiB, (
        f"empty_cache left {reserved_empty / MiB:.0f} MiB reserved")
    print(f"reserved {reserved / MiB:.0f} -> {reserved_after / MiB:.0f} -> "
          f"{reserved_empty / MiB:.0f} MiB")


def test_memory_trace_growth() -> None:
    import torch.nn.functional as F
    from torch import nn

    import ice_lab

    ice_lab.set_seed(0)
    net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                        nn.Linear(512, 10)).cuda()
    batches = [(torch.randn(64, 256, device="cuda"),
                torch.randint(0, 10, (64,), device="cuda")) for _ in range(12)]

    def run(keep_tensor: bool) -> float:
        trace = ice_lab.memory_trace()
        total = 0.0
        for step, (xb, yb) in enumerate(batches):
            loss = F.cross_entropy(net(xb), yb)
            total = total + loss if keep_tensor else total + loss.item()
            trace.record(step)
        assert trace.reserved is not None, (
            "memory_trace on CUDA should record reserved bytes too")
        del total
        return trace.growth_per_step()

    leak, clean = run(True), run(False)
    assert leak > 64 * 1024, f"the leak grows only {leak:.0f} bytes/step"
    assert abs(clean) < 4096, f"loss.item() still grows {clean:.0f} bytes/step"
    print(f"total_loss += loss: {leak:,.0f} bytes/step; "
          f"+= loss.item(): {clean:,.0f} bytes/step")


@pytest.mark.kernel
def test_run_isolated_device_side_assert() -> None:
    import ice_lab

    source = (
        "import torch\n"
        "table = torch.nn.Embedding(10, 4).cuda()\n"
        "out = table(torch.tensor([1, 2, 12], device='cuda'))\n"
        "print('returned')\n"
        "out.sum().item()\n"
    )
    result = ice_lab.run_isolated(source, timeout=180)
    assert not result.ok, "the child did not fail"
    assert "device-side assert" in (result.message or ""), (
        f"child message: {result.message!r}")
    assert "returned" in result.stdout, (
        "the asynchronous error was expected after the launch returned")
    kind = result.diagnosis.kind if result.diagnosis is not None else None
    assert kind == "device_side_assert", f"diagnosis {kind!r}"
    blocking = ice_lab.run_isolated(
        "import os\nos.environ['CUDA_LAUNCH_BLOCKING'] = '1'\n" + source, timeout=180)
    assert not blocking.ok and "device-side assert" in (blocking.message or ""), (
        "CUDA_LAUNCH_BLOCKING child")
    assert torch.ones(2, device="cuda").sum().item() == 2.0, (
        "the parent's CUDA context was harmed")
    print(f"child: {result.exception_type}; parent still fine")


def test_fp16_autocast_and_gradscaler() -> None:
    import torch.nn.functional as F
    from torch import nn

    import ice_lab

    ice_lab.set_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cuda")
    assert scaler.get_scale() == 65536.0, f"initial scale {scaler.get_scale()}"
    x = torch.randn(256, 32, device="cuda")
    y = x[:, :1] * 2 + 1
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            out = model(x)
            assert out.dtype == torch.float16, f"autocast output {out.dtype}"
            loss = F.mse_loss(out.float(), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert all(torch.isfinite(torch.tensor(losses))), "non-finite loss"
    assert losses[-1] < losses[0], f"did not learn: {losses[0]:.4f} -> {losses[-1]:.4f}"
    half = torch.tensor(300.0, device="cuda", dtype=torch.float16)
    assert torch.isinf(half * half).item(), "fp16 300*300 should overflow"
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}, "
          f"final scale {scaler.get_scale():.0f}")


def test_estimate_peak_within_5_percent_of_the_cuda_peak() -> None:
    from torch import nn

    import ice_lab

    def make() -> nn.Module:
        ice_lab.set_seed(0)
        return nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096),
                             nn.ReLU(), nn.Linear(4096, 10))

    batch = (torch.randn(2048, 1024), torch.randint(0, 10, (2048,)))
    model = make()
    estimate = ice_lab.estimate_peak(model, batch, nn.CrossEntropyLoss(),
                                     torch.optim.Adam(model.parameters()))
    # cuBLAS allocates its workspace at the first matmul: do that before measuring.
    warm = torch.ones(64, 64, device="cuda", requires_grad=True)
    (warm @ warm).sum().backward()
    del warm
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    model = make().cuda()
    opt = torch.optim.Adam(model.parameters())
    xb, yb = batch[0].cuda(), batch[1].cuda()
    nn.CrossEntropyLoss()(model(xb), yb).backward()
    opt.step()
    torch.cuda.synchronize()
    measured = torch.cuda.max_memory_allocated() - base
    del model, opt, xb, yb
    torch.cuda.empty_cache()
    ratio = estimate / measured
    assert abs(ratio - 1) <= 0.05, (
        f"estimate {estimate / MiB:.1f} MiB vs measured {measured / MiB:.1f} MiB")
    print(f"estimate {estimate / MiB:.1f} MiB, measured {measured / MiB:.1f} MiB "
          f"(ratio {ratio:.3f})")


def test_matmul_throughput_fp32_tf32_bf16() -> None:
    def rate(dtype: torch.dtype, precision: str = "highest", n: int = 8192,
             repeats: int = 10) -> float:
        torch.set_float32_matmul_precision(precision)
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        a @ b
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(repeats):
            a @ b
        torch.cuda.synchronize()
        torch.set_float32_matmul_precision("highest")
        return 2 * n**3 * repeats / (time.perf_counter() - start) / 1e12

    fp32 = rate(torch.float32)
    tf32 = rate(torch.float32, "high")
    bf16 = rate(torch.bfloat16)
    assert bf16 > fp32, "bf16 should beat fp32 on a GPU with tensor cores"
    print(f"fp32 {fp32:.1f}, TF32 {tf32:.1f}, bf16 {bf16:.1f} TFLOP/s")


@pytest.mark.kernel
def test_checkpoint_map_location_cuda_to_cpu_and_back() -> None:
    """A checkpoint saved on CUDA: refused without map_location on a CPU-only process
    (the Checkpoints chapter makes this file on a CPU by tagging storages "cuda:0"),
    loaded with map_location="cpu"; and a CPU checkpoint mapped back onto the GPU,
    optimizer state too."""
    import tempfile

    from torch import nn

    import ice_lab
    from ice_lab.checkpoint import load_checkpoint, save_checkpoint

    ice_lab.set_seed(0)
    model = nn.Linear(8, 4).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    model(torch.randn(16, 8, device="cuda")).sum().backward()
    opt.step()
    with tempfile.TemporaryDirectory(prefix="gpu_verify_ckpt_") as tmp:
        gpu_file = f"{tmp}/from_gpu.pt"
        save_checkpoint(gpu_file, model=model.state_dict(), optimizer=opt.state_dict())
        torch.save({k: v.cpu() for k, v in model.state_dict().items()},
                   f"{tmp}/expected.pt")
        child = ice_lab.run_isolated(
            "import os\n"
            "os.environ['CUDA_VISIBLE_DEVICES'] = ''  # a CPU-only process\n"
            "import torch\n"
            "from ice_lab.checkpoint import CheckpointError, load_checkpoint\n"
            "assert not torch.cuda.is_available()\n"
            "try:\n"
            f"    torch.load({gpu_file!r})\n"
            "except RuntimeError as err:\n"
            "    print('TORCH:', str(err).splitlines()[0])\n"
            "else:\n"
            "    raise SystemExit('torch.load without map_location did not fail')\n"
            "try:\n"
            f"    load_checkpoint({gpu_file!r})\n"
            "except CheckpointError as err:\n"
            "    print('REASON:', err.reason)\n"
            f"ckpt = load_checkpoint({gpu_file!r}, map_location='cpu')\n"
            f"expected = torch.load({tmp + '/expected.pt'!r})\n"
            "assert all(torch.equal(ckpt['model'][k], v)"
            " for k, v in expected.items())\n"
            "assert all(v.device.type == 'cpu' for v in ckpt['model'].values())\n",
            timeout=180,
        )
        assert child.ok, f"CPU-only child: {child} {child.stderr[-400:]}"
        assert "Attempting to deserialize object on a CUDA device" in child.stdout, (
            f"unexpected torch.load text: {child.stdout!r}")
        assert "REASON: device" in child.stdout, (
            f"load_checkpoint said: {child.stdout!r}")
        # and back: a CPU checkpoint onto the GPU; the optimizer state follows the
        # params
        cpu_file = f"{tmp}/from_cpu.pt"
        cpu_model = nn.Linear(8, 4)
        cpu_opt = torch.optim.Adam(cpu_model.parameters(), lr=1e-2)
        cpu_model(torch.randn(16, 8)).sum().backward()
        cpu_opt.step()
        save_checkpoint(cpu_file, model=cpu_model.state_dict(),
                        optimizer=cpu_opt.state_dict())
        back = load_checkpoint(cpu_file, map_location="cuda")
        assert all(v.is_cuda for v in back["model"].values()), (
            "map_location='cuda' left tensors on the CPU")
        gpu_model = nn.Linear(8, 4).cuda()
        gpu_model.load_state_dict(back["model"])
        gpu_opt = torch.optim.Adam(gpu_model.parameters(), lr=1e-2)
        gpu_opt.load_state_dict(load_checkpoint(cpu_file)["optimizer"])
        moments = [s["exp_avg"] for s in gpu_opt.state_dict()["state"].values()]
        assert all(m.is_cuda for m in moments), (
            "optimizer state not moved to the parameters' device")
    torch_line = next(ln for ln in child.stdout.splitlines() if ln.startswith("TORCH:"))
    print(torch_line[len("TORCH: "):][:160]
          + " | map_location='cpu' and back to cuda: ok")


def test_gradscaler_state_round_trip() -> None:
    """GradScaler's scale and growth tracker survive save_checkpoint / load_checkpoint,
    and a restored run takes the same next step as the original."""
    import copy
    import tempfile

    import torch.nn.functional as F
    from torch import nn

    import ice_lab
    from ice_lab.checkpoint import load_checkpoint, save_checkpoint

    ice_lab.set_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0**10, growth_interval=3)
    x = torch.randn(256, 32, device="cuda")
    y = x[:, :1] * 2 + 1

    def step(m: nn.Module, o: torch.optim.Optimizer, s: torch.amp.GradScaler) -> None:
        o.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.mse_loss(m(x).float(), y)
        s.scale(loss).backward()
        s.step(o)
        s.update()

    # the scale grows every 3 finite steps: no longer the initial one
    for _ in range(7):
        step(model, opt, scaler)
    saved_scale = scaler.get_scale()
    assert saved_scale != 2.0**10, f"the scale never changed ({saved_scale})"
    with tempfile.TemporaryDirectory(prefix="gpu_verify_scaler_") as tmp:
        save_checkpoint(f"{tmp}/amp.pt", model=model.state_dict(),
                        optimizer=opt.state_dict(), scaler=scaler.state_dict())
        ckpt = load_checkpoint(f"{tmp}/amp.pt", map_location="cuda")
    model2 = copy.deepcopy(model)
    model2.load_state_dict(ckpt["model"])
    opt2 = torch.optim.SGD(model2.parameters(), lr=0.05)
    opt2.load_state_dict(ckpt["optimizer"])
    scaler2 = torch.amp.GradScaler("cuda")
    assert scaler2.get_scale() == 65536.0, "a new GradScaler should start at 65536"
    scaler2.load_state_dict(ckpt["scaler"])
    assert scaler2.get_scale() == saved_scale, (
        f"scale {scaler2.get_scale()} != {saved_scale}")
    assert scaler2.state_dict() == scaler.state_dict(), (
        "GradScaler state differs after loading")
    step(model, opt, scaler)
    step(model2, opt2, scaler2)
    assert scaler2.get_scale() == scaler.get_scale(), (
        "the scales parted after one more step")
    same = all(torch.equal(a, b)
               for a, b in zip(model.parameters(), model2.parameters()))
    assert same, "one more step after the round trip gave other weights"
    print(f"scale {saved_scale:g} saved and restored (a new scaler starts at 65536); "
          "next step equal")


def test_export_on_cuda() -> None:
    """The Export chapter's GPU note: a TorchScript trace moved with .to("cuda"), an
    ExportedProgram made from the CUDA model, and onnxruntime's CUDA provider (only when
    the onnxruntime-gpu package is installed), each compared with the CUDA model by
    check_export on several batch sizes."""
    import copy
    import tempfile

    from torch import nn

    import ice_lab
    from ice_lab.export import check_export
    from ice_lab.export_warnings import export_warnings

    ice_lab.set_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.BatchNorm1d(256),
                          nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 10)).eval()
    example_cpu = torch.rand(8, 1, 8, 8)
    with export_warnings():
        traced = torch.jit.trace(copy.deepcopy(model), example_cpu)
    model_gpu, example = copy.deepcopy(model).cuda(), example_cpu.cuda()
    sizes = (1, 3, 64)
    with export_warnings():
        traced_gpu = traced.to("cuda")
    report = check_export(model_gpu, example, traced_gpu, batch_sizes=sizes)
    assert report.ok, f"TorchScript .to('cuda'):\n{report}"
    batch = torch.export.Dim("batch")
    ep = torch.export.export(model_gpu, (example,),
                             dynamic_shapes={"input": {0: batch}})
    report = check_export(model_gpu, example, ep, batch_sizes=sizes)
    assert report.ok, f"ExportedProgram of the CUDA model:\n{report}"
    done = "TorchScript .to('cuda') and ExportedProgram on CUDA agree"
    try:
        import onnxruntime as ort
    except ImportError:
        print(done + "; onnxruntime not installed, ONNX not checked")
        return
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        print(done + "; no CUDAExecutionProvider (pip install onnxruntime-gpu), "
              "ONNX not checked")
        return
    with (tempfile.TemporaryDirectory(prefix="gpu_verify_onnx_") as tmp,
          export_warnings()):
        path = f"{tmp}/digits.onnx"
        torch.onnx.export(model, (example_cpu,), path, dynamo=True, external_data=False,
                          input_names=["pixels"],
                          dynamic_shapes={"input": {0: "batch"}},
                          opset_version=18, verbose=False)
        # TF32 off: PyTorch's float32 matmuls on CUDA do not use it by default either
        session = ort.InferenceSession(
            path, providers=[("CUDAExecutionProvider", {"use_tf32": "0"}),
                             "CPUExecutionProvider"])
    assert session.get_providers()[0] == "CUDAExecutionProvider", (
        f"the session runs on {session.get_providers()}")
    report = check_export(model_gpu, example, session, batch_sizes=sizes)
    assert report.ok, f"onnxruntime CUDAExecutionProvider:\n{report}"
    print(done + "; onnxruntime CUDAExecutionProvider agrees")
