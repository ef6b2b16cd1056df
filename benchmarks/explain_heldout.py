"""Held-out check of ice_lab.explain: real PyTorch failures that the unit tests never use.

Each provocation below is a different op or module from those in tests/package/test_explain.py.
The expected kind is what the catalogue's definition of that kind says an expert would
call it. Prints one row per failure, the accuracy ("N/M correct kinds") and the number of
times explain itself crashed (must be 0).

    python benchmarks/explain_heldout.py

Its rounds, and what each first run scored: benchmarks/explain_heldout.md.

Real messages pasted by learners (with their sources) are tested in
tests/package/test_explain_realworld.py; how fast explain reads them is in benchmarks/explain_speed.py.
"""

from __future__ import annotations

import argparse
import io
import sys
import threading
import warnings
from typing import Callable

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from ice_lab import Diagnosis, explain

CASES: list[tuple[str, str, Callable[[], object]]] = []


def case(expected: str, label: str):
    def register(fn: Callable[[], object]) -> Callable[[], object]:
        CASES.append((label, expected, fn))
        return fn

    return register


# ---- shapes and layouts -------------------------------------------------------------------
@case("conv_channels", "Conv1d applied to an image batch")
def _():
    nn.Conv1d(3, 8, 3)(torch.zeros(2, 3, 16, 16))


@case("conv_channels", "BatchNorm2d(16) after a conv with 8 channels")
def _():
    nn.BatchNorm2d(16)(torch.zeros(2, 8, 4, 4))


@case("conv_channels", "5x5 kernel on a 3x3 image")
def _():
    nn.Conv2d(1, 1, 5)(torch.zeros(1, 1, 3, 3))


@case("conv_channels", "RGB layer on an HWC image batch")
def _():
    nn.Conv2d(3, 4, 3)(torch.zeros(2, 32, 32, 3))


@case("shape_mismatch", "bmm with mismatched inner sizes")
def _():
    torch.bmm(torch.zeros(2, 3, 4), torch.zeros(2, 5, 6))


@case("shape_mismatch", "torch.cat of (2,3) and (2,4) along dim 0")
def _():
    torch.cat([torch.zeros(2, 3), torch.zeros(2, 4)], dim=0)


@case("shape_mismatch", "nll_loss with a 3-D input and a wrongly shaped target")
def _():
    F.nll_loss(torch.zeros(2, 3, 4), torch.zeros(2, 5, dtype=torch.long))


@case("shape_mismatch", "LayerNorm(4) on 3 features")
def _():
    nn.LayerNorm(4)(torch.zeros(2, 3))


@case("shape_mismatch", "LSTM(10, 20) fed 8 features")
def _():
    nn.LSTM(10, 20)(torch.zeros(5, 3, 8))


@case("shape_mismatch", "matmul of vectors of different lengths")
def _():
    torch.matmul(torch.zeros(3), torch.zeros(4))


@case("shape_mismatch", "sum over a dimension that does not exist")
def _():
    torch.zeros(3).sum(dim=1)


@case("shape_mismatch", "two indices into a 1-D tensor")
def _():
    torch.zeros(3)[0, 1]


@case("shape_mismatch", "BCEWithLogits: (4,1) logits with (4,) targets")
def _():
    F.binary_cross_entropy_with_logits(torch.zeros(4, 1), torch.zeros(4))


@case("shape_mismatch", "view(2, -1) of 5 elements")
def _():
    torch.zeros(5).view(2, -1)


@case("shape_mismatch", "default collate of variable-length samples")
def _():
    data = [torch.zeros(3), torch.zeros(4)]
    next(iter(DataLoader(data, batch_size=2)))


@case("broadcast_mismatch", "expand (2,3) to (4,4)")
def _():
    torch.zeros(2, 3).expand(4, 4)


@case("broadcast_mismatch", "in-place add that would need a bigger result")
def _():
    a = torch.zeros(3)
    a += torch.zeros(2, 3)


@case("broadcast_mismatch", "torch.where with lengths 3 and 4")
def _():
    torch.where(torch.ones(3, dtype=torch.bool), torch.zeros(3), torch.zeros(4))


# ---- dtypes and targets -------------------------------------------------------------------
@case("dtype_mismatch", "Linear on an integer tensor")
def _():
    nn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.long))


@case("dtype_mismatch", "softmax of an integer tensor")
def _():
    torch.softmax(torch.tensor([1, 2, 3]), dim=0)


@case("dtype_mismatch", "Embedding looked up with float ids")
def _():
    nn.Embedding(10, 4)(torch.tensor([1.0, 2.0]))


@case("target_dtype", "cross_entropy with integer class-probability targets")
def _():
    F.cross_entropy(torch.zeros(4, 3), torch.zeros(4, 3, dtype=torch.long))


@case("target_dtype", "multi_margin_loss with float class labels")
def _():
    F.multi_margin_loss(torch.zeros(2, 3), torch.zeros(2))


@case("target_dtype", "BCELoss with integer labels")
def _():
    nn.BCELoss()(torch.sigmoid(torch.zeros(2)), torch.tensor([0, 1]))


@case("target_out_of_range", "Embedding id beyond the vocabulary")
def _():
    nn.Embedding(10, 4)(torch.tensor([12]))


@case("target_out_of_range", "gather index 5 in a dimension of size 3")
def _():
    torch.gather(torch.zeros(2, 3), 1, torch.tensor([[5], [0]]))


@case("target_out_of_range", "segmentation labels out of range (2-D cross_entropy)")
def _():
    F.cross_entropy(torch.zeros(1, 3, 2, 2), torch.full((1, 2, 2), 5))


# ---- autograd ------------------------------------------------------------------------------
@case("leaf_inplace", "adding to a parameter in place with grad on")
def _():
    nn.Linear(2, 2).weight.add_(1.0)


@case("inplace_modified", "relu(inplace=True) on the output of exp")
def _():
    x = torch.ones(3, requires_grad=True)
    y = torch.exp(x)
    F.relu(y, inplace=True)
    y.sum().backward()


@case("backward_twice", "torch.autograd.grad twice on one graph")
def _():
    x = torch.ones(3, requires_grad=True)
    y = (x * x).sum()
    torch.autograd.grad(y, x)
    torch.autograd.grad(y, x)


@case("no_grad_fn", "loss computed under torch.no_grad()")
def _():
    model = nn.Linear(2, 1)
    with torch.no_grad():
        loss = model(torch.zeros(4, 2)).pow(2).mean()
    loss.backward()


@case("no_grad_fn", "autograd.grad with respect to a tensor that does not require grad")
def _():
    x = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    torch.autograd.grad((w * x).sum(), [x])


# ---- conversions ---------------------------------------------------------------------------
@case("numpy_conversion", ".item() on a 2-element tensor")
def _():
    torch.tensor([1.0, 2.0]).item()


@case("numpy_conversion", "bfloat16 tensor to NumPy")
def _():
    torch.zeros(2, dtype=torch.bfloat16).numpy()


@case("numpy_conversion", "from_numpy of a reversed view")
def _():
    torch.from_numpy(np.arange(3)[::-1])


@case("numpy_conversion", "if on a multi-element tensor")
def _():
    if torch.tensor([1, 2]) > 0:
        pass


@case("view_non_contiguous", "view(-1) after permute")
def _():
    torch.zeros(2, 3, 4).permute(0, 2, 1).view(-1)


@case("view_non_contiguous", "view after a strided slice")
def _():
    torch.zeros(4, 6)[:, 1:4].view(-1)


# ---- checkpoints, workers, devices ----------------------------------------------------------
@case("state_dict_mismatch", "optimizer state for a different parameter layout")
def _():
    a = torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)
    b = torch.optim.SGD(nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)).parameters(), lr=0.1)
    b.load_state_dict(a.state_dict())


@case("state_dict_mismatch", "Conv2d weights into a Conv2d with more channels")
def _():
    nn.Conv2d(3, 16, 3).load_state_dict(nn.Conv2d(3, 8, 3).state_dict())


@case("unsafe_unpickling", "weights_only load of a NumPy array")
def _():
    buffer = io.BytesIO()
    torch.save({"mean": np.zeros(3)}, buffer)
    buffer.seek(0)
    torch.load(buffer)


class LockedDataset(Dataset):
    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        return torch.zeros(1)


@case("dataloader_pickling", "dataset holding a lock, spawn workers")
def _():
    loader = DataLoader(LockedDataset(), num_workers=1, multiprocessing_context="spawn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        next(iter(loader))


@case("dataloader_pickling", "locally defined Dataset class, spawn workers")
def _():
    class Local(Dataset):
        def __len__(self) -> int:
            return 2

        def __getitem__(self, i: int) -> torch.Tensor:
            return torch.zeros(1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        next(iter(DataLoader(Local(), num_workers=1, multiprocessing_context="spawn")))


@case("cuda_unavailable", "torch.load(map_location='cuda') on a CPU-only machine")
def _():
    buffer = io.BytesIO()
    torch.save(torch.zeros(2), buffer)
    buffer.seek(0)
    torch.load(buffer, map_location="cuda")


@case("cuda_unavailable", "torch.cuda.current_device() without a GPU")
def _():
    torch.cuda.current_device()


@case("out_of_memory", "an 8 TiB float64 tensor")
def _():
    torch.empty(2**40, dtype=torch.float64)


# ---- numerics ---------------------------------------------------------------------------------
@case("nonfinite", "anomaly mode: sqrt of a negative number")
def _():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            x = torch.tensor([-1.0, 4.0], requires_grad=True)
            torch.sqrt(x).sum().backward()


@case("nonfinite", "multinomial over NaN probabilities")
def _():
    torch.multinomial(torch.tensor([float("nan"), 1.0]), 1)


@case("nonfinite", "Normal distribution with a NaN mean")
def _():
    torch.distributions.Normal(torch.tensor([float("nan")]), torch.tensor([1.0]))


# ---- round 2: written after round 1 was fixed; see the module docstring --------------------
ROUND2_START = len(CASES)


@case("conv_channels", "ConvTranspose2d given 4 channels instead of 3")
def _():
    nn.ConvTranspose2d(3, 8, 3)(torch.zeros(1, 4, 8, 8))


@case("conv_channels", "Conv3d on a 4-D batch of images")
def _():
    nn.Conv3d(3, 8, 3)(torch.zeros(2, 3, 8, 8))


@case("target_out_of_range", "index_select with an index past the end")
def _():
    torch.index_select(torch.zeros(3, 2), 0, torch.tensor([5]))


@case("target_out_of_range", "scatter_ with an index past the end")
def _():
    torch.zeros(2, 3).scatter_(1, torch.tensor([[5], [0]]), 1.0)


@case("dtype_mismatch", "kl_div on integer tensors")
def _():
    F.kl_div(torch.zeros(2, dtype=torch.long), torch.zeros(2, dtype=torch.long))


@case("dtype_mismatch", "linalg.inv of an integer matrix")
def _():
    torch.linalg.inv(torch.eye(2, dtype=torch.long))


@case("dtype_mismatch", "a half layer fed float32")
def _():
    nn.Linear(2, 2).to(torch.float16)(torch.randn(1, 2))


@case("dtype_mismatch", "Embedding looked up with int8 ids")
def _():
    nn.Embedding(10, 2)(torch.tensor([1], dtype=torch.int8))


@case("shape_mismatch", "einsum with contraction sizes 3 and 4")
def _():
    torch.einsum("ij,jk->ik", torch.zeros(2, 3), torch.zeros(4, 5))


@case("shape_mismatch", "tensordot over dimensions of different sizes")
def _():
    torch.tensordot(torch.zeros(2, 3), torch.zeros(4, 5), dims=([1], [0]))


@case("shape_mismatch", "a GRU fed 6 features instead of 10")
def _():
    nn.GRU(10, 4, batch_first=True)(torch.zeros(2, 5, 6))


@case("broadcast_mismatch", "mask of length 4 multiplied into 5 positions")
def _():
    torch.zeros(2, 5) * torch.ones(4)


@case("leaf_inplace", "sigmoid_ on a parameter")
def _():
    torch.sigmoid_(nn.Linear(2, 2).bias)


@case("inplace_modified", "tanh output scaled in place before backward")
def _():
    x = torch.ones(3, requires_grad=True)
    y = torch.tanh(x)
    y *= 2
    y.sum().backward()


@case("no_grad_fn", "backward on a detached prediction")
def _():
    pred = nn.Linear(2, 1)(torch.zeros(3, 2)).detach()
    F.mse_loss(pred, torch.zeros(3, 1)).backward()


@case("backward_twice", "a hidden state reused across steps without detach")
def _():
    cell = nn.RNNCell(2, 3)
    h = torch.zeros(1, 3)
    for _ in range(2):
        h = cell(torch.zeros(1, 2), h)
        h.sum().backward()


@case("numpy_conversion", "np.asarray on a tensor that requires grad")
def _():
    np.asarray(nn.Linear(2, 1)(torch.zeros(1, 2)))


@case("numpy_conversion", "torch.tensor from an object array")
def _():
    torch.tensor(np.array([1, None], dtype=object))


@case("numpy_conversion", "int() of a 2-element tensor")
def _():
    int(torch.zeros(2))


@case("state_dict_mismatch", "LayerNorm weights into a BatchNorm1d")
def _():
    nn.BatchNorm1d(3).load_state_dict(nn.LayerNorm(3).state_dict())


@case("unsafe_unpickling", "weights_only load of a datetime.date")
def _():
    import datetime

    buffer = io.BytesIO()
    torch.save({"saved_on": datetime.date(2024, 1, 1)}, buffer)
    buffer.seek(0)
    torch.load(buffer)


@case("dataloader_pickling", "a generator inside a dataset, pickled for a worker")
def _():
    import pickle

    pickle.dumps({"stream": (i for i in range(3))})


@case("cuda_unavailable", "torch.cuda.synchronize() without a GPU")
def _():
    torch.cuda.synchronize()


@case("cuda_unavailable", "a model moved with .cuda()")
def _():
    nn.Linear(2, 2).cuda()


@case("out_of_memory", "a 2^31 x 2^31 float tensor")
def _():
    torch.zeros(2**31, 2**31)


@case("nonfinite", "anomaly mode: 0/0 in a division")
def _():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            x = torch.zeros(2, requires_grad=True)
            (x / x).sum().backward()


@case("nonfinite", "Categorical with NaN probabilities")
def _():
    torch.distributions.Categorical(probs=torch.tensor([float("nan"), 1.0]))


# ---- round 3: written after round 2 was fixed -----------------------------------------------
ROUND3_START = len(CASES)


@case("shape_mismatch", "Linear(10, 2) on a (4, 5, 3) batch")
def _():
    nn.Linear(10, 2)(torch.zeros(4, 5, 3))


@case("conv_channels", "F.conv2d with a weight for 1 input channel on RGB")
def _():
    F.conv2d(torch.zeros(1, 3, 8, 8), torch.zeros(8, 1, 3, 3))


@case("shape_mismatch", "torch.stack of lengths 2 and 3")
def _():
    torch.stack([torch.zeros(2), torch.zeros(3)])


@case("shape_mismatch", "view(3, -1) of 7 elements")
def _():
    torch.zeros(7).view(3, -1)


@case("shape_mismatch", "batched matmul (2,3,4) @ (5,6)")
def _():
    torch.matmul(torch.zeros(2, 3, 4), torch.zeros(5, 6))


@case("shape_mismatch", "torch.as_tensor of a ragged list")
def _():
    torch.as_tensor([[1], [2, 3]])


@case("broadcast_mismatch", "cosine_similarity of 4 and 5 features")
def _():
    F.cosine_similarity(torch.zeros(3, 4), torch.zeros(3, 5))


@case("broadcast_mismatch", "(3,4) + (4,3)")
def _():
    torch.zeros(3, 4) + torch.zeros(4, 3)


@case("dtype_mismatch", "float32 layer fed bfloat16")
def _():
    nn.Linear(3, 3)(torch.zeros(2, 3, dtype=torch.bfloat16))


@case("dtype_mismatch", "bmm of float32 and float64")
def _():
    torch.bmm(torch.zeros(1, 2, 2), torch.zeros(1, 2, 2, dtype=torch.float64))


@case("target_out_of_range", "F.embedding with id 3 in a table of 3")
def _():
    F.embedding(torch.tensor([3]), torch.zeros(3, 2))


@case("target_out_of_range", "advanced indexing with 7 into 5 elements")
def _():
    torch.zeros(5)[torch.tensor([7])]


@case("target_out_of_range", "nll_loss with label 3 for 3 classes")
def _():
    F.nll_loss(torch.zeros(2, 3), torch.tensor([0, 3]))


@case("leaf_inplace", "zero_() on a leaf that requires grad")
def _():
    torch.ones(2, requires_grad=True).zero_()


@case("leaf_inplace", "item assignment into an nn.Parameter")
def _():
    p = nn.Parameter(torch.ones(2))
    p[0] = 0.0


@case("inplace_modified", "softmax output doubled in place")
def _():
    x = torch.ones(3, requires_grad=True)
    y = torch.softmax(x, dim=0)
    y.mul_(2)
    y.sum().backward()


@case("inplace_modified", "optimizer.step() between forward and backward")
def _():
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.ones(4, 2)).sum()
    loss.backward(retain_graph=True)
    opt.step()
    loss.backward()


@case("no_grad_fn", "backward on an output computed under no_grad")
def _():
    model = nn.Linear(2, 1).eval()
    with torch.no_grad():
        out = model(torch.ones(3, 2)).sum()
    out.backward()


@case("backward_twice", "backward with a gradient argument, twice")
def _():
    x = torch.ones(2, requires_grad=True)
    y = x.exp()
    y.backward(torch.ones(2))
    y.backward(torch.ones(2))


@case("numpy_conversion", ".cpu().numpy() without detach")
def _():
    nn.Linear(2, 2)(torch.ones(1, 2)).cpu().numpy()


@case("view_non_contiguous", "view(-1) of an expanded tensor")
def _():
    torch.zeros(3, 1).expand(3, 4).view(-1)


@case("dataloader_pickling", "torch.save of a lambda")
def _():
    torch.save(lambda: 0, io.BytesIO())


class SavedConfig:
    lr = 0.1


@case("unsafe_unpickling", "weights_only load of a custom class instance")
def _():
    buffer = io.BytesIO()
    torch.save({"config": SavedConfig()}, buffer)
    buffer.seek(0)
    torch.load(buffer)


@case("state_dict_mismatch", "a 3-layer checkpoint into a 2-layer model")
def _():
    small = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    big = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    small.load_state_dict(big.state_dict())


@case("cuda_unavailable", "get_device_properties(0) without a GPU")
def _():
    torch.cuda.get_device_properties(0)


@case("out_of_memory", "10^12 int64 values")
def _():
    torch.empty(10**12, dtype=torch.int64)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wrong-only", action="store_true", help="print only misclassified rows")
    args = parser.parse_args()
    if torch.cuda.is_available():
        print("note: CUDA is available, so the cuda_unavailable cases do not fail; they are skipped")
    rows, correct, crashes, silent = [], 0, 0, 0
    per_round = {1: [0, 0], 2: [0, 0], 3: [0, 0]}
    for index, (label, expected, fn) in enumerate(CASES):
        rnd = 1 if index < ROUND2_START else 2 if index < ROUND3_START else 3
        if expected == "cuda_unavailable" and torch.cuda.is_available():
            continue
        try:
            fn()
        except Exception as err:  # noqa: BLE001 - whatever torch raises
            error: BaseException = err
        else:
            silent += 1
            rows.append((label, expected, "(no error)", False, ""))
            continue
        try:
            d = explain(error)
            if not isinstance(d, Diagnosis):
                raise TypeError(f"explain returned {type(d).__name__}")
            got = d.kind
        except Exception as failure:  # noqa: BLE001 - counted, must stay 0
            crashes += 1
            got = f"CRASH {type(failure).__name__}"
        ok = got == expected
        correct += ok
        per_round[rnd][0] += ok
        per_round[rnd][1] += 1
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        rows.append((label, expected, got, ok, f"{type(error).__name__}: {first[:70]}"))
    width = max(len(r[0]) for r in rows)
    print(f"torch {torch.__version__}, {len(rows)} held-out failures\n")
    print(f"{'provocation':<{width}}  {'expected':<20} {'explain says':<20} ok  message")
    for label, expected, got, ok, message in rows:
        if args.wrong_only and ok:
            continue
        print(f"{label:<{width}}  {expected:<20} {got:<20} {'yes' if ok else 'NO ':<3} {message}")
    print(f"\n{correct}/{len(rows)} correct kinds ({100 * correct / len(rows):.0f}%), "
          f"explain crashes: {crashes}, provocations that did not raise: {silent}")
    for rnd, (good, total) in per_round.items():
        print(f"  round {rnd}: {good}/{total} correct kinds")
    return 0 if crashes == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
