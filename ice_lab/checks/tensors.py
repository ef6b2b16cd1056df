"""Checks of ``labs/lab-tensors.ipynb`` (chapter: Tensors): NumPy data into a float32
model, a loss that broadcasts, a ``view`` of a transposed tensor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ._core import Hints, attempt, built_model, need_callable, passed, rng

_forward = Hints("forward_numpy")
_residual = Hints("residual")
_per_step = Hints("per_step")
_signal = Hints("make_signal_net")


def forward_numpy(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(model, array)`` runs a float32 model on a NumPy array of any numeric dtype and
    shape, leaves the model as it is and returns its float32 output (in the graph or
    under ``torch.no_grad()``: the exercise is about the dtype)."""
    need_callable(fn, "forward_numpy")
    gen = rng(seed, 1)
    torch.manual_seed(gen.randrange(2**31))
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    seen: list[tuple[torch.dtype, torch.Tensor]] = []  # what the model itself receives
    hook = model.register_forward_hook(  # copies of the model share the hook: skip them
        lambda module, inputs, output: seen.append((inputs[0].dtype, output))
        if module is model else None
    )
    data = np.random.default_rng(gen.randrange(2**31)).random((5, 4))
    data = data * np.array([1.0, 10.0, 100.0, 1000.0])  # four scales
    counts = np.arange(12).reshape(3, 4)  # integer features (int64), e.g. counts
    modes = [(m, m.training) for m in model.modules()]
    try:
        out, error = attempt(fn, model, data)
        _, int_error = attempt(fn, model, counts)
    finally:
        hook.remove()
    h = _forward.require
    h(all(p.dtype == torch.float32 for p in model.parameters()),
      "The model's weights are no longer float32: model.double() hides the error but "
      "doubles memory and forces float64 on every later input (1.3 Diagnose). Change "
      "the side that is wrong once, where it enters PyTorch.", kind="model")
    h(all(m.training == mode for m, mode in modes),
      "forward_numpy switched the model between training and evaluation mode: it must "
      "leave the model as it is (the training loop that calls it decides the mode; with "
      "dropout or batch norm the loss would train another model).")
    h(not error,
      f"forward_numpy fails on float64 NumPy features ({error}): the model's weights "
      "are float32; convert the data to float32 where it enters PyTorch "
      "(torch.from_numpy and torch.tensor keep NumPy's float64).",
      kind="float64",
      more="the chapter's dtype section shows how a tensor's dtype is chosen and changed.")
    h(seen,
      "The model itself never received the data: a copy of it (or another model) ran "
      "instead, and the real model gets neither the input nor a gradient.")
    h(seen[0][0] == torch.float32,
      f"The model received {seen[0][0]} input: convert the data to float32 where it "
      "enters PyTorch (not float16, not float64).")
    dtype = getattr(out, "dtype", type(out))
    h(isinstance(out, torch.Tensor) and out.dtype == torch.float32,
      f"forward_numpy should return a float32 tensor, got {dtype}: return the model's "
      "output as it is.")
    h(out.shape == (5, 1),
      f"expected an output of shape (5, 1) for 5 rows, got {tuple(out.shape)}.")
    reference = model(torch.tensor(data, dtype=torch.float32))
    h(torch.allclose(out, reference),
      "The output differs from the model's on the same data in float32 (rounded, "
      "rescaled or shuffled data?).")
    got = f"({int_error})" if int_error else f"({seen[-1][0]})"
    h(not int_error and seen[-1][0] == torch.float32,
      "Integer arrays (int64, e.g. counts) must be converted too: converting only "
      f"float64 leaves them Long, and the model refuses them {got}. Whatever the "
      "array's dtype, the model wants one.", kind="int")
    cases = [(37, 6, np.float64)] if seed is None else [
        (gen.randint(1, 50), gen.randint(1, 9), dt)
        for dt in (np.float64, np.int64, np.int32, np.float16, np.float32)]
    for rows, width, dt in cases:
        wide = nn.Linear(width, 2)
        array = (np.random.default_rng(gen.randrange(2**31)).random((rows, width)) * 9)
        array = array.astype(dt)
        wide_out, wide_error = attempt(fn, wide, array)
        where = f"{rows} rows of {width} {np.dtype(dt).name} features"
        h(not wide_error,
          f"forward_numpy fails on {where} for a model that takes {width} "
          f"({wide_error}): the lab's example has 4 features and 16 rows, other data "
          "does not. Pass the whole array, converted, whatever its shape and dtype.")
        wide_ref = wide(torch.tensor(array, dtype=torch.float32))
        h(isinstance(wide_out, torch.Tensor) and tuple(wide_out.shape) == (rows, 2)
          and wide_out.dtype == torch.float32 and torch.allclose(wide_out, wide_ref),
          f"On {where} the output is not the model's float32 output, shape ({rows}, 2): "
          "rows or columns were cut to the example's size. Pass the whole array.")
        h(wide.weight.dtype == torch.float32,
          f"On {where} the model left float32: convert the data, not the model.")
    passed("float32 input from float64 and int64 arrays, other shapes, model unchanged.")


def residual(fn: Callable, mse: Callable, *, seed: int | None = None) -> None:
    """``fn(pred, target)`` returns one error per sample, shape ``(N,)``, for ``pred`` of
    shape ``(N, 1)`` and ``target`` of shape ``(N,)``, for every N; ``mse`` is built on it."""
    need_callable(fn, "residual")
    gen = rng(seed, 3)
    torch.manual_seed(gen.randrange(2**31))
    sizes = (6, 1, 9) if seed is None else (gen.randint(2, 40), 1, gen.randint(2, 40))
    first = sizes[0]
    # batch size -> (pred, target, the learner's residual or the quoted error)
    cases: dict[int, tuple[torch.Tensor, torch.Tensor, Any]] = {}
    for n in sizes:
        pred = torch.randn(n, 1, requires_grad=True)
        target = torch.randn(n) * torch.linspace(0.1, 100.0, n)
        result, error = attempt(fn, pred, target)
        cases[n] = (pred, target, error or result)
    failed = {n: r for n, (p, t, r) in cases.items() if isinstance(r, str)}
    said = "; ".join(f"N={n}: {r}" for n, r in failed.items())
    h = _residual.require
    h(not any("in-place" in r or "inplace" in r for r in failed.values()),
      f"residual fails ({said}): an in-place operation (squeeze_, sub_, -=) on pred, "
      "a leaf that requires grad, is refused. Build a new tensor.")
    h(not any("invalid for input of size" in r for r in failed.values()),
      f"residual fails ({said}): a size of the example is hard-coded (view or reshape "
      "to a fixed N): do not hard-code the batch size of the example.")
    h(first not in failed,
      f"residual fails on {first} predictions ({said}). pred has shape (N, 1), target "
      "(N,): line the two up before subtracting.")
    h(not failed,
      f"residual works on {first} predictions but fails on {sorted(failed)} ({said}): "
      "do not hard-code the batch size of the example.")
    pred, target, res = cases[first]
    shape = tuple(res.shape)
    shape_hints = {
        (first, first): f"({first}, {first}) is the broadcast bug: every prediction "
        "minus every target (squeeze(0) leaves (N, 1) as it is: the column is axis 1).",
        (first, 1): f"({first}, 1) means you unsqueezed the target instead of removing "
        "the prediction's column.",
        (1, first): f"(1, {first}): pred.T (a transpose) still keeps two axes.",
    }
    h(shape == (first,),
      f"residual should have shape ({first},), got {shape}. "
      + shape_hints.get(shape, "One error per sample: one axis, N long."),
      kind="shape",
      more="print the shape of pred, target and every intermediate (2.3 Diagnose).")
    one = tuple(cases[1][2].shape)
    h(one == (1,),
      f"For a batch of one, residual has shape {one}, (1,) expected: squeeze() with no "
      "axis removes every axis of size 1, the batch's too when N is 1.")
    for n, (p, t, r) in cases.items():
        h(tuple(r.shape) == (n,),
          f"For {n} predictions residual has shape {tuple(r.shape)}, ({n},) expected: "
          "take the sizes from pred, not from the example.")
        by_hand = torch.stack([p[i, 0] - t[i] for i in range(n)])
        h(torch.allclose(r.abs(), by_hand.abs()),
          f"Right shape, wrong errors (N={n}): averaging or summing the (N, N) broadcast "
          "table over one axis gives N numbers, each mixing every target. Element i "
          "must pair prediction i with target i.")
    loss, loss_error = attempt(mse, pred, target)
    h(not loss_error and torch.allclose(loss, F.mse_loss(pred.squeeze(1), target)),
      f"mse does not equal the per-sample mean squared error {loss_error}.")
    h(res.requires_grad,
      "The residual must stay in the graph (no .detach(), .item() or torch.tensor(...)): "
      "the loss would train nothing.")
    grads = torch.autograd.grad(mse(pred, target), pred)[0]
    h(torch.allclose(grads, 2 * (pred.detach() - target.unsqueeze(1)) / first),
      "The gradient of mse with respect to pred is not that of the per-sample mean "
      "squared error.")
    passed(f"one error per sample, shape (N,) for N = {', '.join(map(str, sizes))}, "
           "in the graph.")


def per_step(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(x)``: ``(B, C, T)`` in, ``(B*T, C)`` out, row ``b*T + t`` holding the C channels
    of sample b at step t, whether or not x is contiguous."""
    need_callable(fn, "per_step")
    gen = rng(seed, 4)
    torch.manual_seed(gen.randrange(2**31))
    if seed is None:
        sizes = [(3, 4, 6, True), (2, 5, 7, True), (3, 4, 6, False), (4, 2, 3, False)]
    else:
        sizes = [(gen.randint(1, 7), gen.randint(1, 7), gen.randint(1, 7), False)
                 for _ in range(4)]
    inputs = {}
    for b, c, t, contiguous in sizes:
        name = f"{'a' if contiguous else 'a non-contiguous'} ({b}, {c}, {t})"
        inputs[name] = (torch.randn(b, c, t) if contiguous
                        else torch.randn(b, t, c).transpose(1, 2))
    results, errors = {}, {}
    for name, x in inputs.items():
        results[name], error = attempt(fn, x)
        if error:
            errors[name] = error
    said = "; ".join(f"{n}: {e}" for n, e in errors.items())
    h = _per_step.require
    h(not any("view size" in e for e in errors.values()),
      f"per_step fails ({said}). view never copies, so it refuses a tensor whose memory "
      "is not laid out row by row (3.3 Diagnose: strides).", kind="view",
      more="the chapter's section on views and strides says which operations copy.")
    h(not errors,
      f"per_step fails on {sorted(errors)} ({said}). Take the sizes from x, not from "
      "the example.")
    for name, x in inputs.items():
        b, c, t = x.shape
        expected = torch.stack([x[i, :, j] for i in range(b) for j in range(t)])
        got = results[name]
        h(isinstance(got, torch.Tensor) and tuple(got.shape) == (b * t, c),
          f"On {name} per_step returns shape {tuple(getattr(got, 'shape', ()))}, "
          f"({b * t}, {c}) expected: the columns are the C channels of this input, not "
          "a number that fits one example (Take the sizes from x).")
        if t > 1 and c > 1:
            h(not torch.equal(got, x.reshape(-1, c)),
              f"On {name} the rows hold the wrong values: flattening (B, C, T) as it is, "
              "without transposing first mixes time steps and channels (see the "
              "tempting shortcut in 3.3).")
        if b > 1 and t > 1:
            h(not torch.equal(got, x.permute(2, 0, 1).reshape(-1, c)),
              f"On {name} the rows are ordered by time step first (row t*B + b): the "
              "permute put time before the batch.")
        h(torch.equal(got, expected),
          f"On {name} the rows hold the wrong values: row b*T + t must hold the C "
          "channels of sample b at step t, contiguous input or not.")
    leaf = torch.randn(2, 5, 3, requires_grad=True)  # conv features that train
    kept, error = attempt(fn, leaf.transpose(1, 2))
    h(not error and isinstance(kept, torch.Tensor) and kept.requires_grad,
      f"per_step breaks the graph ({error or 'the output carries no gradient'}): a "
      "NumPy round trip, .detach() or torch.tensor(...) on the features leaves the "
      "convolution before per_step with no gradient. Stay with tensor operations.")
    passed("one row per time step, batch first, any sizes, contiguous or not, in the "
           "graph.")


def signal_net(make: Callable[[], nn.Module], *, seed: int | None = None) -> None:
    """``make()`` returns the colleague's classifier, repaired: its own ``conv`` and
    ``head`` layers, one output row of 2 classes per recording, whatever the recording's
    length, each feature averaged over time."""
    need_callable(make, "make_signal_net")
    gen = rng(seed, 5)
    torch.manual_seed(gen.randrange(2**31))
    h = _signal.require
    model = built_model(make, _signal, "make_signal_net")
    conv, head = getattr(model, "conv", None), getattr(model, "head", None)
    if not (isinstance(conv, nn.Conv1d) and isinstance(head, nn.Linear)):
        _signal.fail("The model should keep the colleague's layers, conv (a Conv1d) "
                     "and head (a Linear): the bug is not in which layers there are.")
    h(head.in_features == conv.out_channels,
      f"head takes {head.in_features} features where conv makes "
      f"{conv.out_channels}: resizing the head to the length of one recording makes "
      "the error go away for that length only.", kind="head")
    lengths = [5, 8, 12, 31] if seed is None else [gen.randint(2, 64) for _ in range(4)]
    for steps in lengths:
        batch = torch.randn(3, conv.in_channels, steps)
        out, error = attempt(model, batch)
        h(not error,
          f"The model fails on recordings of {steps} steps ({error}): with the "
          "colleague's 8 steps every shape happened to fit. Which axis does head "
          "receive? trace_shapes with a dummy batch whose sizes all differ shows it.",
          kind="length",
          more="compare the axes of conv's output, (B, C, T), with the axis the "
          "forward averages over.")
        with torch.no_grad():
            features = torch.relu(conv(batch))
            expected = head(features.mean(dim=2))
        h(tuple(out.shape) == (3, head.out_features),
          f"On 3 recordings of {steps} steps the model returns shape "
          f"{tuple(out.shape)}, (3, {head.out_features}) expected: one row of class "
          "scores per recording.")
        summed = head(features.sum(dim=2)) if steps > 1 else expected
        h(steps == 1 or not torch.allclose(out, summed, atol=1e-5),
          f"On {steps} steps the features are summed over time, not averaged: a longer "
          "recording gives larger features, and the head sees another scale.")
        h(torch.allclose(out, expected, atol=1e-5),
          f"On {steps} steps the output is not the head applied to each conv feature "
          "averaged over time (the colleague's docstring says what it computes).")
    model.zero_grad()
    trained, error = attempt(lambda: model(torch.randn(2, conv.in_channels, 9)).sum()
                             .backward())
    grad = conv.weight.grad
    h(not error and grad is not None and bool(grad.abs().sum() > 0),
      f"conv's weights get no gradient from the output ({error or 'the graph is cut'}"
      "): a .detach(), torch.no_grad() or NumPy step in forward leaves only the head "
      "to train.")
    passed(f"one row per recording for {', '.join(map(str, lengths))} steps, each "
           "feature averaged over time.")

