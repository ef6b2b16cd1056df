"""GPU verification for Tensor of Ice: run it on a machine with a CUDA GPU.

    python tools/gpu_verify.py                 # every notebook + every GPU-only check
    python tools/gpu_verify.py --skip-notebooks
    python tools/gpu_verify.py --list          # name the checks; runs nothing (works anywhere)

(`ice-teach gpu-verify ...` is the same; tools/gpu_verify.py, the path the GPU procedure
names, only calls this module.)

The committed notebooks were executed on a CPU: on a GPU their CUDA branches
(`if torch.cuda.is_available():`, `best_device()`) take the other path, which CI never
runs. This script executes every notebook in book/ and labs/, and every student edition
with its lab's solutions filled in, on the GPU: each in a temporary folder that holds only
that notebook (as Colab does), several at a time (--jobs), every cell even after an error,
and reports each error cell (execution only: outputs differ from the committed CPU outputs
by design, so they are not compared). Then it runs the GPU-only behaviour the book quotes
from reference/gpu-probe-h200.log, and ends with one line:

    GPU verification: N passed, M failed

Keep its log: `python tools/gpu_verify.py 2>&1 | tee reference/gpu-verify-$(date +%F).log`.
Exit status: 0 when everything passed, 1 when something failed, 2 when this machine has no
CUDA (nothing is run). It is not part of `make test`: CI has no GPU.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

from ice_teach.verify import gpu_memory as gpu_checks_memory

ROOT = Path(__file__).resolve().parents[2]

MiB = 2**20


class CheckFailed(AssertionError):
    pass


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


# --------------------------------------------------------------------------- GPU checks
# Each returns a short string of figures for the log, or raises.


def check_device_mismatch_text() -> str:
    import torch
    from torch import nn

    import ice_lab

    texts = []
    cases = [
        ("cuda+cpu add", lambda: torch.ones(2, device="cuda") + torch.ones(2), "found at least two devices"),
        ("Linear(cuda)(cpu)", lambda: nn.Linear(3, 2).cuda()(torch.ones(4, 3)), "mat1 is on cpu"),
        (
            "cross_entropy cuda/cpu",
            lambda: nn.functional.cross_entropy(torch.zeros(4, 3, device="cuda"), torch.tensor([0, 1, 2, 0])),
            "target is on cpu",
        ),
    ]
    for name, fn, words in cases:
        try:
            fn()
        except RuntimeError as err:
            msg = str(err)
            require("Expected all tensors to be on the same device" in msg, f"{name}: unexpected text {msg!r}")
            require(words in msg, f"{name}: the message no longer contains {words!r}: {msg!r}")
            kind = ice_lab.explain(err).kind
            require(kind == "device_mismatch", f"{name}: explain() said {kind!r}")
            texts.append(name)
        else:
            raise CheckFailed(f"{name}: no error")
    # a 0-dim CPU tensor may join a CUDA tensor
    (torch.ones(2, device="cuda") + torch.tensor(1.0)).sum().item()
    try:
        torch.ones(3, device="cuda").numpy()
    except TypeError as err:
        require("can't convert cuda:0 device type tensor to numpy" in str(err), f"numpy(): {err}")
    else:
        raise CheckFailed(".numpy() on a CUDA tensor did not raise")
    return ", ".join(texts) + ", .numpy() text"


def check_oom_and_recovery() -> str:
    import torch

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
    require(caught is not None, "no OutOfMemoryError under a 1 GiB cap")
    kind = ice_lab.explain(caught).kind
    require(kind == "out_of_memory", f"explain() said {kind!r}")
    got = len(blocks)
    del blocks, caught
    torch.cuda.empty_cache()
    after = torch.empty(512 * MiB, dtype=torch.uint8, device="cuda")
    ok = after.numel() == 512 * MiB
    del after
    torch.cuda.empty_cache()
    require(ok, "could not allocate after the OOM")
    return f"OOM after {got} x 128 MiB under a 1 GiB cap; 512 MiB allocated afterwards"


def check_allocated_vs_reserved() -> str:
    import torch

    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    blocks = [torch.empty(256 * MiB, dtype=torch.uint8, device="cuda") for _ in range(4)]
    alloc, reserved = torch.cuda.memory_allocated() - base, torch.cuda.memory_reserved()
    del blocks
    alloc_after, reserved_after = torch.cuda.memory_allocated() - base, torch.cuda.memory_reserved()
    torch.cuda.empty_cache()
    reserved_empty = torch.cuda.memory_reserved()
    require(alloc == 1024 * MiB and reserved >= alloc, f"allocated {alloc}, reserved {reserved}")
    require(alloc_after == 0 and reserved_after >= 1024 * MiB, "del should keep the cache reserved")
    require(reserved_empty < 64 * MiB, f"empty_cache left {reserved_empty / MiB:.0f} MiB reserved")
    return f"reserved {reserved / MiB:.0f} -> {reserved_after / MiB:.0f} -> {reserved_empty / MiB:.0f} MiB"


def check_memory_trace_growth() -> str:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import ice_lab

    ice_lab.set_seed(0)
    net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
    batches = [(torch.randn(64, 256, device="cuda"), torch.randint(0, 10, (64,), device="cuda")) for _ in range(12)]

    def run(keep_tensor: bool) -> float:
        trace = ice_lab.memory_trace()
        total = 0.0
        for step, (xb, yb) in enumerate(batches):
            loss = F.cross_entropy(net(xb), yb)
            total = total + loss if keep_tensor else total + loss.item()
            trace.record(step)
        require(trace.reserved is not None, "memory_trace on CUDA should record reserved bytes too")
        del total
        return trace.growth_per_step()

    leak, clean = run(True), run(False)
    require(leak > 64 * 1024, f"the leak grows only {leak:.0f} bytes/step")
    require(abs(clean) < 4096, f"loss.item() still grows {clean:.0f} bytes/step")
    return f"total_loss += loss: {leak:,.0f} bytes/step; += loss.item(): {clean:,.0f} bytes/step"


def check_run_isolated_device_assert() -> str:
    import torch

    import ice_lab

    source = (
        "import torch\n"
        "table = torch.nn.Embedding(10, 4).cuda()\n"
        "out = table(torch.tensor([1, 2, 12], device='cuda'))\n"
        "print('returned')\n"
        "out.sum().item()\n"
    )
    result = ice_lab.run_isolated(source, timeout=180)
    require(not result.ok, "the child did not fail")
    require("device-side assert" in (result.message or ""), f"child message: {result.message!r}")
    require("returned" in result.stdout, "the asynchronous error was expected after the launch returned")
    kind = result.diagnosis.kind if result.diagnosis is not None else None
    require(kind == "device_side_assert", f"diagnosis {kind!r}")
    blocking = ice_lab.run_isolated("import os\nos.environ['CUDA_LAUNCH_BLOCKING'] = '1'\n" + source, timeout=180)
    require(not blocking.ok and "device-side assert" in (blocking.message or ""), "CUDA_LAUNCH_BLOCKING child")
    require(torch.ones(2, device="cuda").sum().item() == 2.0, "the parent's CUDA context was harmed")
    return f"child: {result.exception_type}; parent still fine"


def check_fp16_gradscaler() -> str:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import ice_lab

    ice_lab.set_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cuda")
    require(scaler.get_scale() == 65536.0, f"initial scale {scaler.get_scale()}")
    x = torch.randn(256, 32, device="cuda")
    y = x[:, :1] * 2 + 1
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            out = model(x)
            require(out.dtype == torch.float16, f"autocast output {out.dtype}")
            loss = F.mse_loss(out.float(), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    require(all(torch.isfinite(torch.tensor(losses))), "non-finite loss")
    require(losses[-1] < losses[0], f"did not learn: {losses[0]:.4f} -> {losses[-1]:.4f}")
    half = torch.tensor(300.0, device="cuda", dtype=torch.float16)
    require(torch.isinf(half * half).item(), "fp16 300*300 should overflow")
    return f"loss {losses[0]:.4f} -> {losses[-1]:.4f}, final scale {scaler.get_scale():.0f}"


def check_estimate_peak() -> str:
    import torch
    from torch import nn

    import ice_lab

    def make():
        ice_lab.set_seed(0)
        return nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))

    batch = (torch.randn(2048, 1024), torch.randint(0, 10, (2048,)))
    model = make()
    estimate = ice_lab.estimate_peak(model, batch, nn.CrossEntropyLoss(), torch.optim.Adam(model.parameters()))
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
    require(abs(ratio - 1) <= 0.05, f"estimate {estimate / MiB:.1f} MiB vs measured {measured / MiB:.1f} MiB")
    return f"estimate {estimate / MiB:.1f} MiB, measured {measured / MiB:.1f} MiB (ratio {ratio:.3f})"


def check_matmul_formats() -> str:
    import torch

    def rate(dtype, precision="highest", n=8192, repeats=10):
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

    fp32, tf32, bf16 = rate(torch.float32), rate(torch.float32, "high"), rate(torch.bfloat16)
    require(bf16 > fp32, "bf16 should beat fp32 on a GPU with tensor cores")
    return f"fp32 {fp32:.1f}, TF32 {tf32:.1f}, bf16 {bf16:.1f} TFLOP/s"


def check_checkpoint_cuda_to_cpu() -> str:
    """A checkpoint saved on CUDA: refused without map_location on a CPU-only process (the
    Checkpoints chapter makes this file on a CPU by tagging storages "cuda:0"), loaded with
    map_location="cpu"; and a CPU checkpoint mapped back onto the GPU, optimizer state too."""
    import tempfile

    import torch
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
        torch.save({k: v.cpu() for k, v in model.state_dict().items()}, f"{tmp}/expected.pt")
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
            "assert all(torch.equal(ckpt['model'][k], v) for k, v in expected.items())\n"
            "assert all(v.device.type == 'cpu' for v in ckpt['model'].values())\n",
            timeout=180,
        )
        require(child.ok, f"CPU-only child: {child} {child.stderr[-400:]}")
        require("Attempting to deserialize object on a CUDA device" in child.stdout,
                f"unexpected torch.load text: {child.stdout!r}")
        require("REASON: device" in child.stdout, f"load_checkpoint said: {child.stdout!r}")
        # and back: a CPU checkpoint onto the GPU; the optimizer state follows the params
        cpu_file = f"{tmp}/from_cpu.pt"
        cpu_model = nn.Linear(8, 4)
        cpu_opt = torch.optim.Adam(cpu_model.parameters(), lr=1e-2)
        cpu_model(torch.randn(16, 8)).sum().backward()
        cpu_opt.step()
        save_checkpoint(cpu_file, model=cpu_model.state_dict(), optimizer=cpu_opt.state_dict())
        back = load_checkpoint(cpu_file, map_location="cuda")
        require(all(v.is_cuda for v in back["model"].values()), "map_location='cuda' left tensors on the CPU")
        gpu_model = nn.Linear(8, 4).cuda()
        gpu_model.load_state_dict(back["model"])
        gpu_opt = torch.optim.Adam(gpu_model.parameters(), lr=1e-2)
        gpu_opt.load_state_dict(load_checkpoint(cpu_file)["optimizer"])
        moments = [s["exp_avg"] for s in gpu_opt.state_dict()["state"].values()]
        require(all(m.is_cuda for m in moments), "optimizer state not moved to the parameters' device")
    torch_line = next(ln for ln in child.stdout.splitlines() if ln.startswith("TORCH:"))
    return torch_line[len("TORCH: "):][:160] + " | map_location='cpu' and back to cuda: ok"


def check_gradscaler_state_round_trip() -> str:
    """GradScaler's scale and growth tracker survive save_checkpoint / load_checkpoint,
    and a restored run takes the same next step as the original."""
    import copy
    import tempfile

    import torch
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

    for _ in range(7):  # the scale grows every 3 finite steps: no longer the initial one
        step(model, opt, scaler)
    saved_scale = scaler.get_scale()
    require(saved_scale != 2.0**10, f"the scale never changed ({saved_scale})")
    with tempfile.TemporaryDirectory(prefix="gpu_verify_scaler_") as tmp:
        save_checkpoint(f"{tmp}/amp.pt", model=model.state_dict(), optimizer=opt.state_dict(),
                        scaler=scaler.state_dict())
        ckpt = load_checkpoint(f"{tmp}/amp.pt", map_location="cuda")
    model2 = copy.deepcopy(model)
    model2.load_state_dict(ckpt["model"])
    opt2 = torch.optim.SGD(model2.parameters(), lr=0.05)
    opt2.load_state_dict(ckpt["optimizer"])
    scaler2 = torch.amp.GradScaler("cuda")
    require(scaler2.get_scale() == 65536.0, "a new GradScaler should start at 65536")
    scaler2.load_state_dict(ckpt["scaler"])
    require(scaler2.get_scale() == saved_scale, f"scale {scaler2.get_scale()} != {saved_scale}")
    require(scaler2.state_dict() == scaler.state_dict(), "GradScaler state differs after loading")
    step(model, opt, scaler)
    step(model2, opt2, scaler2)
    require(scaler2.get_scale() == scaler.get_scale(), "the scales parted after one more step")
    same = all(torch.equal(a, b) for a, b in zip(model.parameters(), model2.parameters()))
    require(same, "one more step after the round trip gave other weights")
    return f"scale {saved_scale:g} saved and restored (a new scaler starts at 65536); next step equal"


def check_export_on_cuda() -> str:
    """The Export chapter's GPU note: a TorchScript trace moved with .to("cuda"), an
    ExportedProgram made from the CUDA model, and onnxruntime's CUDA provider (only when
    the onnxruntime-gpu package is installed), each compared with the CUDA model by
    check_export on several batch sizes."""
    import copy
    import tempfile

    import torch
    from torch import nn

    import ice_lab
    from ice_lab.export import check_export
    from ice_lab.export_warnings import export_warnings

    ice_lab.set_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.BatchNorm1d(256), nn.ReLU(),
                          nn.Dropout(0.2), nn.Linear(256, 10)).eval()
    example_cpu = torch.rand(8, 1, 8, 8)
    with export_warnings():
        traced = torch.jit.trace(copy.deepcopy(model), example_cpu)
    model_gpu, example = copy.deepcopy(model).cuda(), example_cpu.cuda()
    sizes = (1, 3, 64)
    with export_warnings():
        traced_gpu = traced.to("cuda")
    report = check_export(model_gpu, example, traced_gpu, batch_sizes=sizes)
    require(report.ok, f"TorchScript .to('cuda'):\n{report}")
    batch = torch.export.Dim("batch")
    ep = torch.export.export(model_gpu, (example,), dynamic_shapes={"input": {0: batch}})
    report = check_export(model_gpu, example, ep, batch_sizes=sizes)
    require(report.ok, f"ExportedProgram of the CUDA model:\n{report}")
    done = "TorchScript .to('cuda') and ExportedProgram on CUDA agree"
    try:
        import onnxruntime as ort
    except ImportError:
        return done + "; onnxruntime not installed, ONNX not checked"
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        return done + "; no CUDAExecutionProvider (pip install onnxruntime-gpu), ONNX not checked"
    with tempfile.TemporaryDirectory(prefix="gpu_verify_onnx_") as tmp, export_warnings():
        path = f"{tmp}/digits.onnx"
        torch.onnx.export(model, (example_cpu,), path, dynamo=True, external_data=False,
                          input_names=["pixels"], dynamic_shapes={"input": {0: "batch"}},
                          opset_version=18, verbose=False)
        # TF32 off: PyTorch's float32 matmuls on CUDA do not use it by default either
        session = ort.InferenceSession(
            path, providers=[("CUDAExecutionProvider", {"use_tf32": "0"}), "CPUExecutionProvider"])
    require(session.get_providers()[0] == "CUDAExecutionProvider",
            f"the session runs on {session.get_providers()}")
    report = check_export(model_gpu, example, session, batch_sizes=sizes)
    require(report.ok, f"onnxruntime CUDAExecutionProvider:\n{report}")
    return done + "; onnxruntime CUDAExecutionProvider agrees"


GPU_CHECKS: list[tuple[str, Callable[[], str]]] = [
    ("device mismatch and .numpy() CUDA texts", check_device_mismatch_text),
    ("allocated vs reserved, empty_cache", check_allocated_vs_reserved),
    ("cap_gpu_memory OOM + recovery", check_oom_and_recovery),
    ("memory_trace growth on CUDA", check_memory_trace_growth),
    ("run_isolated device-side assert", check_run_isolated_device_assert),
    ("fp16 autocast + GradScaler", check_fp16_gradscaler),
    ("estimate_peak within 5% of the CUDA peak", check_estimate_peak),
    ("fp32 / TF32 / bf16 matmul throughput", check_matmul_formats),
    ("checkpoint CUDA -> CPU map_location and back", check_checkpoint_cuda_to_cpu),
    ("AMP GradScaler state round trip", check_gradscaler_state_round_trip),
    ("export on CUDA: TorchScript, ExportedProgram, onnxruntime", check_export_on_cuda),
    *gpu_checks_memory.CHECKS,
]


# --------------------------------------------------------------------------- running
def filled_student_edition(lab: Path, student: Path):
    """The student edition of ``lab`` with every solution cell put back (matched by
    nbgrader ``grade_id``): what a learner who solved every exercise runs."""
    import nbformat

    from ice_teach import exercises

    solved = nbformat.read(ROOT / lab, as_version=4)
    answers = {exercises.nbgrader(c)["grade_id"]: c.source
               for c in solved.cells if exercises.is_solution(c)}
    nb = nbformat.read(ROOT / student, as_version=4)
    missing = []
    for cell in nb.cells:
        if exercises.is_solution(cell):
            meta = exercises.nbgrader(cell)
            if meta.get("grade_id") not in answers:
                missing.append(meta.get("grade_id"))
                continue
            cell.source = answers[meta["grade_id"]]
    if missing:
        raise CheckFailed(f"{student}: no solution in {lab} for {missing}")
    return nb


def error_cells(nb) -> list[str]:
    """One line per cell that ended in an error: its index, the error type and message."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                text = (out.get("evalue") or "").strip().splitlines()
                found.append(f"cell {i}: {out.get('ename')}: {text[0][:200] if text else ''}")
    return found


def execute_bare(name: str, nb, timeout: int) -> str:
    """Execute ``nb`` in a temporary folder that holds only it (as a learner's Colab or an
    empty folder would: notebooks.execute(bare=True)), on every cell even after an error;
    raise listing the error cells."""
    from ice_teach import notebooks

    start = time.perf_counter()
    notebooks.execute(name, timeout, allow_errors=True, bare=True, nb=nb)
    seconds = time.perf_counter() - start
    errors = error_cells(nb)
    if errors:
        raise CheckFailed(f"{len(errors)} error cell(s): " + " | ".join(errors))
    return f"{len(nb.cells)} cells, no error cell, {seconds:.0f} s"


Job = tuple[str, Path, Callable[[], object]]  # name in the log, notebook file, loader


def notebook_jobs(paths: list[Path], students: bool) -> list[Job]:
    """Every notebook to execute: chapters and labs as committed, and (with ``students``)
    each lab's student edition with the lab's solutions filled in."""
    import nbformat

    jobs: list[Job] = [
        (f"notebook {p}", p, lambda p=p: nbformat.read(ROOT / p, as_version=4)) for p in paths
    ]
    if students:
        for p in paths:
            student = Path("student") / p.name
            if p.parts[0] == "labs" and (ROOT / student).exists():
                jobs.append((f"student edition {student}, solved", student,
                             lambda p=p, s=student: filled_student_edition(p, s)))
    return jobs


def run_notebooks(jobs: list[Job], timeout: int, workers: int,
                  failures: list[str] | None = None) -> tuple[int, int]:
    """Execute the notebooks, ``workers`` at a time, each in a bare folder of its own;
    print PASS or FAIL (with every error cell) per notebook as it finishes, and append
    each FAIL line to ``failures`` if given."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    passed = failed = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            pool.submit(lambda f=f, load=load: execute_bare(str(f), load(), timeout)): name
            for name, f, load in jobs
        }
        for future in as_completed(futures):
            name = futures[future]
            try:
                detail = future.result()
            except Exception as err:  # one notebook never stops the others
                failed += 1
                line = f"FAIL  {name}: {type(err).__name__}: {err}"
                print(line, flush=True)
                if failures is not None:
                    failures.append(line)
            else:
                passed += 1
                print(f"PASS  {name}: {detail}", flush=True)
    return passed, failed


def run_checks(checks: list[tuple[str, Callable[[], str]]]) -> tuple[int, int]:
    passed = failed = 0
    for name, fn in checks:
        try:
            detail = fn()
        except Exception as err:  # one failed check never stops the others
            failed += 1
            text = str(err).strip().splitlines()
            print(f"FAIL  {name}: {type(err).__name__}: {text[0] if text else ''}", flush=True)
            if not isinstance(err, (CheckFailed, gpu_checks_memory.CheckFailed)):
                print(traceback.format_exc(limit=4), flush=True)
        else:
            passed += 1
            print(f"PASS  {name}: {detail}", flush=True)
        with contextlib.suppress(Exception):
            import torch

            torch.cuda.empty_cache()
    return passed, failed


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", help="notebooks to execute (default: all of book/ and labs/)")
    parser.add_argument("--skip-notebooks", action="store_true", help="run only the GPU-only checks")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per notebook cell (default 900)")
    parser.add_argument("--jobs", type=int, default=min(6, max(1, (os.cpu_count() or 2) // 2)),
                        help="notebooks executed at a time (default: half the cores, at most 6)")
    parser.add_argument("--no-students", action="store_true",
                        help="skip the student editions (solutions filled in)")
    parser.add_argument("--list", action="store_true", help="name the checks and exit; runs nothing")
    args = parser.parse_args(argv)

    if args.list:
        for name, _ in GPU_CHECKS:
            print(name)
        return 0
    if not cuda_available():
        print(
            "gpu_verify: CUDA is not available on this machine (torch.cuda.is_available() is False), "
            "so nothing was run. Run this script on a machine with an NVIDIA GPU and a CUDA build "
            "of PyTorch; on a CPU, `make test` is the check.",
            file=sys.stderr,
        )
        return 2

    import torch

    print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}", flush=True)
    passed = failed = 0
    if not args.skip_notebooks:
        from ice_teach import notebooks, settings

        os.environ.update(settings.EXECUTION_ENV)  # what `make` sets for executed outputs
        os.environ["OMP_NUM_THREADS"] = "2"  # several kernels at a time share the cores
        paths = [Path(p) for p in args.notebooks] or notebooks.notebooks()
        jobs = notebook_jobs(paths, students=not args.no_students)
        passed, failed = run_notebooks(jobs, args.timeout, args.jobs)
    more_passed, more_failed = run_checks(GPU_CHECKS)
    passed, failed = passed + more_passed, failed + more_failed
    print(f"GPU verification: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
