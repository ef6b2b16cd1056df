"""The failures test_explain.py provokes on a CPU, and the other wordings it reads (data).

PROVOCATIONS: (function, kind, words its summary must hold), each function raising what
the installed torch raises; VARIANTS: (message, kind, a word of the summary or fixes) for
torch 1.x and other wordings. test_explain.py runs them; test_explain_catalogue.py shuffles
the catalogue under them; explain_wordings.py records what each prints. Data, not tests:
no test module imports another.
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import signal
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def linear_features():
    nn.Linear(4, 5)(torch.zeros(2, 3))


def conv_channels():
    nn.Conv2d(3, 8, 3)(torch.zeros(1, 1, 8, 8))


def broadcast():
    torch.zeros(3) + torch.zeros(4)


def dtype_linear():
    nn.Linear(3, 1)(torch.zeros(2, 3, dtype=torch.float64))


def target_float():
    F.cross_entropy(torch.zeros(2, 3), torch.zeros(2))


def target_long_for_bce():
    F.binary_cross_entropy_with_logits(torch.zeros(2), torch.zeros(2, dtype=torch.long))


def target_out_of_range():
    F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 10]))


def device_meta():
    torch.zeros(2, device="meta") + torch.zeros(2)


def numpy_requires_grad():
    torch.zeros(2, requires_grad=True).numpy()


def backward_without_grad():
    torch.zeros(2).sum().backward()


def backward_twice():
    x = torch.ones(2, requires_grad=True)
    y = x.exp().sum()
    y.backward()
    y.backward()


def inplace_after_save():
    x = torch.ones(2, requires_grad=True)
    y = torch.sigmoid(x)
    y.mul_(2)
    y.sum().backward()


def leaf_inplace():
    w = torch.ones(2, requires_grad=True)
    w -= 0.1


def cpu_oom():
    torch.empty(2**62, dtype=torch.uint8)


def torch_oom_class():
    raise torch.OutOfMemoryError("something went wrong")  # no catalogue words: the type decides


def state_dict_shapes():
    nn.Linear(3, 2).load_state_dict(nn.Linear(3, 4).state_dict())


def state_dict_keys():
    nn.Sequential(nn.Linear(3, 2)).load_state_dict(nn.Linear(3, 2).state_dict())


def weights_only():
    buffer = io.BytesIO()
    torch.save({"args": argparse.Namespace(lr=0.1)}, buffer)
    buffer.seek(0)
    torch.load(buffer)


def pickle_lambda():
    pickle.dumps(lambda: 0)


def dataloader_spawn_lambda():
    from torch.utils.data import DataLoader, TensorDataset

    loader = DataLoader(
        TensorDataset(torch.arange(4.0)),
        batch_size=2,
        num_workers=1,
        multiprocessing_context="spawn",
        collate_fn=lambda batch: batch,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        next(iter(loader))


class DiesInWorker(torch.utils.data.Dataset):
    """A dataset whose worker process is killed (as the system's OOM killer would)."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGKILL)
        return torch.zeros(1)  # pragma: no cover - never reached


def dataloader_worker_killed():
    from torch.utils.data import DataLoader

    next(iter(DataLoader(DiesInWorker(), num_workers=1, multiprocessing_context="fork")))


def matmul_in_code():
    torch.ones(2, 3) @ torch.ones(2, 3)


def view_transposed():
    torch.zeros(3, 4).t().view(12)


def cuda_tensor():
    torch.zeros(2, device="cuda")


def cuda_checkpoint():
    torch.serialization.default_restore_location(torch.zeros(2).untyped_storage(), "cuda:0")


def anomaly_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            x = torch.tensor([0.0, 1.0], requires_grad=True)
            (torch.log(x) * 0).sum().backward()


def clip_nonfinite():
    layer = nn.Linear(2, 1)
    layer.weight.grad = torch.full_like(layer.weight, float("nan"))
    layer.bias.grad = torch.zeros(1)
    nn.utils.clip_grad_norm_(layer.parameters(), 1.0, error_if_nonfinite=True)


needs_no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="provokes the no-CUDA error")
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="kills a forked DataLoader worker")

PROVOCATIONS = [
    # (function, kind, words that must appear in the summary)
    (linear_features, "shape_mismatch", ["3 features", "expects 4"]),
    (conv_channels, "conv_channels", ["3 input channels", "has 1"]),
    (broadcast, "broadcast_mismatch", ["3 and 4"]),
    (dtype_linear, "dtype_mismatch", ["Double", "Float"]),
    (target_float, "target_dtype", ["Float", "Long"]),
    (target_long_for_bce, "target_dtype", ["target"]),
    (target_out_of_range, "target_out_of_range", ["target 10", "3 classes", "0..2"]),
    (device_meta, "device_mismatch", ["cpu", "meta"]),
    (numpy_requires_grad, "numpy_conversion", ["requires grad"]),
    (backward_without_grad, "no_grad_fn", ["backward"]),
    (backward_twice, "backward_twice", ["second time"]),
    (inplace_after_save, "inplace_modified", ["Sigmoid"]),
    (leaf_inplace, "leaf_inplace", ["leaf"]),
    (cpu_oom, "out_of_memory", ["4096.00 PiB"]),
    (torch_oom_class, "out_of_memory", ["memory"]),
    (state_dict_shapes, "state_dict_mismatch", ["weight", "[4, 3]", "[2, 3]"]),
    (state_dict_keys, "state_dict_mismatch", ["0.weight", "missing", "unexpected"]),
    (weights_only, "unsafe_unpickling", ["argparse.Namespace"]),
    (pickle_lambda, "dataloader_pickling", ["lambda"]),
    (dataloader_spawn_lambda, "dataloader_pickling", ["lambda"]),
    pytest.param(dataloader_worker_killed, "dataloader_worker_crash", ["worker"], marks=needs_fork),
    (matmul_in_code, "shape_mismatch", ["matrix product", "2x3 @ 2x3"]),
    (view_transposed, "view_non_contiguous", ["contiguous"]),
    pytest.param(cuda_tensor, "cuda_unavailable", ["GPU"], marks=needs_no_cuda),
    pytest.param(cuda_checkpoint, "cuda_unavailable", ["CUDA"], marks=needs_no_cuda),
    (anomaly_nan, "nonfinite", ["LogBackward0"]),
    (clip_nonfinite, "nonfinite", ["gradient norm"]),
]


def provoke(fn) -> BaseException:
    try:
        fn()
    except Exception as err:  # noqa: BLE001 - we want whatever torch raises
        return err
    pytest.fail(f"{fn.__name__} did not raise: the provocation no longer works with torch {torch.__version__}")


# --------------------------------------------------------------------------- wording variants


VARIANTS = [
    # torch 1.x and other wordings the catalogue must still recognise
    ("size mismatch, m1: [2 x 3], m2: [4 x 5] at /pytorch/aten/src/TH/generic/THTensorMath.cpp:41",
     "shape_mismatch", "3 features"),
    ("Expected object of device type cuda but got device type cpu for argument #1 'self' in call to _th_addmm",
     "device_mismatch", "cpu"),
    ("expected scalar type Float but found Double", "dtype_mismatch", "Double"),
    ("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
     "device_mismatch", "cuda:0"),
    ("expected scalar type Long but found Float", "target_dtype", "Long"),
    # The target is named outright: the loss's labels have the wrong dtype (not any dtype).
    ("Expected object of scalar type Long but got scalar type Float for argument #2 'target' in call to _thnn_nll_loss_forward",
     "target_dtype", "Float"),
    ("Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same",
     "device_mismatch", "cuda"),
    ("Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same",
     "dtype_mismatch", "Double"),
    ("Expected 4-dimensional input for 4-dimensional weight [64, 3, 7, 7], but got 3-dimensional input of size [3, 224, 224] instead",
     "conv_channels", "4-D"),
    ("Trying to backward through the graph a second time, but the saved intermediate results have already been freed.",
     "backward_twice", "second time"),
    ("Trying to backward through the graph a second time, but the buffers have already been freed.",
     "backward_twice", "second time"),
    ("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.51 GiB already allocated)",
     "out_of_memory", "20.00 MiB"),
    ("CUDA error: out of memory", "out_of_memory", "memory"),
    ("MPS backend out of memory (MPS allocated: 8.00 GB, other allocations: 1.00 MB, max allowed: 9.07 GB). Tried to allocate 256.00 MB on private pool.",
     "out_of_memory", "256.00 MB"),
    ("CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported",
     "device_side_assert", "assert"),
    ("Torch not compiled with CUDA enabled", "cuda_unavailable", "CUDA"),
    ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
     "If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu')",
     "cuda_unavailable", "CUDA"),
    ("Found no NVIDIA driver on your system.", "cuda_unavailable", "GPU"),
    ("No CUDA GPUs are available", "cuda_unavailable", "CUDA"),
    ("Can't pickle local object 'main.<locals>.<lambda>'", "dataloader_pickling", "lambda"),
    ("AttributeError: Can't pickle local object 'main.<locals>.<lambda>'", "dataloader_pickling", "main"),
    ("AttributeError: Can't get attribute 'MyDataset' on <module '__main__' (built-in)>",
     "dataloader_pickling", "MyDataset"),
    ("_pickle.PicklingError: Can't pickle <function <lambda> at 0x7f>: attribute lookup <lambda> on __main__ failed",
     "dataloader_pickling", "lambda"),
    ("Function 'LogBackward0' returned nan values in its 0th output.", "nonfinite", "LogBackward0"),
    ("non-finite values (NaN/Inf) in the forward output of 'fc2'", "nonfinite", "NaN"),
    ("RuntimeError: Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: \"fc.weight\". ",
     "state_dict_mismatch", "fc.weight"),
    ("Weights only load failed. Re-running `torch.load` with `weights_only` set to `False` will likely succeed",
     "unsafe_unpickling", "weights_only"),
    ("a leaf Variable that requires grad has been used in an in-place operation.", "leaf_inplace", "leaf"),
    ("one of the variables needed for gradient computation has been modified by an inplace operation: "
     "[torch.cuda.FloatTensor [64, 128]], which is output 0 of ReluBackward0, is at version 2; expected version 1 instead.",
     "inplace_modified", "ReluBackward0"),
    ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
     "numpy_conversion", "cuda:0"),
    ("Target 255 is out of bounds.", "target_out_of_range", "255"),
    ("Expected target size [2, 4], got [2, 5]", "shape_mismatch", "[2, 5]"),
    ("loaded state dict contains a parameter group that doesn't match the size of optimizer's group",
     "state_dict_mismatch", "parameter groups"),
    ("expected sequence of length 2 at dim 1 (got 1)", "shape_mismatch", "ragged"),
    ("one_hot is only applicable to index tensor of type LongTensor.", "dtype_mismatch", "dtype"),
    ("Class values must be smaller than num_classes.", "target_out_of_range", "index"),
    ("Output 0 of UnbindBackward0 is a view and is being modified inplace. This view is the output of a "
     "function that returns multiple views.", "inplace_modified", "in place"),
    ("Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal tensor",
     "no_grad_fn", "inference_mode"),
    ("einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3",
     "shape_mismatch", "3 vs 4"),
    ("kl_div: Integral inputs not supported.", "dtype_mismatch", "dtype"),
    ("Storage size calculation overflowed with sizes=[2147483648, 2147483648]", "out_of_memory", "memory"),
    ("The size of tensor a (64) must match the size of tensor b (10) at non-singleton dimension 1",
     "broadcast_mismatch", "64 and 10"),
    # Not a device-side assert: a kernel touched memory it does not own.
    ("CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously "
     "reported at some other API call\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
     "illegal_memory_access", "illegal memory access"),
]
