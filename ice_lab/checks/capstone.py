"""Checks of ``labs/lab-capstone.ipynb`` (chapter: Debugging), bugs 1 to 5 of the
colleague's digits script: the model's head, the normalisation, the data, the
optimizer's parameters and the loss. Bug 6: ``capstone_training.py``; bugs 7 and 8:
``capstone_eval.py``; bugs 9 and 10 and the final run: ``capstone_colleague.py``.

Each check looks at one function of the learner's and nothing else: it builds its own
small, correct pieces around it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import ice_lab
from ice_lab.shapes import ShapeTrace, trace_shapes

from ._core import Hints, attempt, need_callable, passed, quote, rng

_model = Hints("make_model")
_normalise = Hints("normalise")
_load = Hints("load_digits")
_setup = Hints("setup")
_loss = Hints("compute_loss")


def _script_layers() -> list[str]:
    """The script's layers before its head, as their reprs."""
    return [repr(m) for m in (
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2),
    )]


def model(make: Callable[[], nn.Module], *, seed: int | None = None) -> None:
    """Bug 1: ``make()`` builds the script's layers with a head that takes 8x8 digits:
    ten logits per image, for batches of any size."""
    need_callable(make, "make_model")
    gen = rng(seed, 17)
    sizes = [3, 1, 7] if seed is None else [gen.randint(1, 40) for _ in range(3)]
    h = _model.require
    script = _script_layers()
    net, error = attempt(make)
    trace: ShapeTrace | None = None
    if not error:
        trace, error = attempt(trace_shapes, net, torch.zeros(3, 1, 8, 8))
    if error or trace is None:
        _model.fail(f"make_model() fails ({error}). The check could not tell what went "
                    "wrong: keep the script's layers; trace_shapes shows what reaches "
                    "each one.")
    h(trace.ok or not isinstance(trace.failed_module, nn.Linear),
      f"make_model() still fails on a batch of 8x8 digits, in {trace.failed} "
      f"({quote(trace.error) if trace.error else ''}): the head is not sized for what "
      "reaches it. Size its in_features for what reaches it (trace_shapes with a dummy "
      "batch shows it).", kind="head",
      more="read the input column of trace_shapes' table at the last Linear.")
    h(trace.ok, f"make_model() fails on a batch of 8x8 digits, in {trace.failed} "
      f"({quote(trace.error) if trace.error else ''}): keep the script's layers; only "
      "the head is wrong.")
    leaves = [m for m in net.modules() if not list(m.children())]
    resize = [type(m).__name__ for m in leaves if isinstance(
        m, (nn.Upsample, nn.AdaptiveAvgPool2d, nn.AdaptiveMaxPool2d))]
    h(not resize,
      f"The model resizes what it sees ({', '.join(resize)}). Resizing the images to "
      "28x28 inside the model (nn.Upsample, F.interpolate, an adaptive pooling) hides "
      "the crash but blows 64 pixels up to 784, and a pooling to 1x1 throws away where "
      "the strokes are. Keep the layers; the head is what does not fit the 8x8 digits.")
    head = leaves[-1]
    h(isinstance(head, nn.Linear) and head.out_features == 10,
      f"The last layer is {head!r}: keep a Linear head with 10 outputs, one per digit "
      "(cross_entropy applies the softmax itself).")
    body = [repr(m) for m in leaves[:-1]]
    missing = [r for r in script if body.count(r) < script.count(r)]
    extra = [r for r in body if script.count(r) < body.count(r)]
    h(body == script,
      "Keep the layers: the bug is the size of the head, not the network. Missing "
      f"from the script's layers: {missing or 'none'}; not in the script: "
      f"{extra or 'none, but the order changed'}.")
    shapes = []
    for n in sizes:
        out, error = attempt(net, torch.randn(n, 1, 8, 8))
        h(not error, f"make_model() fails on a batch of {n} digits ({error}).")
        shapes.append(tuple(out.shape))
    h(shapes == [(n, 10) for n in sizes],
      f"make_model() maps batches of {', '.join(map(str, sizes))} digits to {shapes}: "
      "expected (n, 10), ten logits per image.")
    passed("the script's layers, with a head that takes the 8x8 digits, for batches of "
           f"{', '.join(map(str, sizes))}.")


def _normalise_cases(seed: int | None) -> list[tuple[torch.Tensor, list[tuple[int, ...]]]]:
    """(images, the (channel, row, column) of their pixels that never vary)."""
    if seed is None:
        ice_lab.set_seed(27)
        X = torch.rand(40, 1, 8, 8) * 10 ** torch.empty(1, 1, 8, 8).uniform_(-3, 1)
        X[:, 0, 2, 5], X[:, 0, 6, 1] = 0.0, 0.5            # two pixels that never vary
        X2 = torch.rand(20, 3, 5, 7) * 10 ** torch.empty(1, 3, 5, 7).uniform_(-3, 1)
        X2[:, 2, 4, 6] = 0.25                              # another shape, another pixel
        return [(X, [(0, 2, 5), (0, 6, 1)]), (X2, [(2, 4, 6)])]
    gen = torch.Generator().manual_seed(seed)
    cases: list[tuple[torch.Tensor, list[tuple[int, ...]]]] = []
    for _ in range(3):
        n = int(torch.randint(4, 30, (1,), generator=gen))
        c = int(torch.randint(1, 4, (1,), generator=gen))
        hh, ww = torch.randint(3, 10, (2,), generator=gen).tolist()
        X = torch.rand(n, c, hh, ww, generator=gen)
        X = X * 10 ** (torch.rand(1, c, hh, ww, generator=gen) * 4 - 3)
        flat = torch.randperm(c * hh * ww, generator=gen)[:2].tolist()
        const: list[tuple[int, ...]] = [(f // (hh * ww), f // ww % hh, f % ww)
                                        for f in flat]
        for (ch, r, k), value in zip(const, (0.0, 0.75)):
            X[:, ch, r, k] = value
        cases.append((X, const))
    return cases


def normalise(fn: Callable, *, seed: int | None = None) -> None:
    """Bug 2: ``fn(X, mean, std)`` standardises every pixel that varies as
    ``(X - mean) / std``, gives a finite, moderate value to a pixel that never varies
    (wherever it sits, whatever it holds), and leaves its arguments as they are."""
    need_callable(fn, "normalise")
    h = _normalise.require
    # per case: copies of X, mean and std; the pixels that never vary; the learner's
    # Z; whether each argument was left as it was; the learner's Z of two inked images
    results: list[tuple[list[torch.Tensor], list[tuple[int, ...]], Any, list[bool],
                        Any]] = []
    for at, (X, const) in enumerate(_normalise_cases(seed)):
        mean, std = X.mean(dim=0), X.std(dim=0)
        args = [t.clone() for t in (X, mean, std)]
        ink = X[:2].clone()
        for c, r, k in const:
            ink[:, c, r, k] = 1.0  # a test image with ink there
        Z, error = attempt(fn, X, mean, std)
        kept = [torch.equal(a, b) for a, b in zip(args, (X, mean, std))]
        ink_Z = None
        if not error:
            ink_Z, error = attempt(fn, ink, args[1].clone(), args[2].clone())
        h(not error or (at == 0 and seed is None),
          f"normalise fails on images of shape {tuple(X.shape)} ({error}): nothing in "
          "it may depend on the lab's 8x8 images, or on where their constant pixels "
          "sit. Find such pixels from the statistics.")
        h(not error, f"normalise fails ({error}).")
        results.append((args, const, Z, kept, ink_Z))
    h(all(isinstance(Z, torch.Tensor) and isinstance(ink, torch.Tensor)
          for _, _, Z, _, ink in results), "normalise returns a tensor.")
    h(all(kept[0] for _, _, _, kept, _ in results),
      "normalise changed the images it was given (an in-place X -= mean or X /= std): "
      "the caller's data is overwritten.")
    h(all(kept[1] and kept[2] for _, _, _, kept, _ in results),
      "normalise changed the std (or mean) it was given, in place: make_data hands the "
      "same statistics to three sets, and the caller's are overwritten.")
    h(all(Z.shape == args[0].shape for args, _, Z, _, _ in results),
      "normalise changes the shape of X: dropping the constant pixels changes the "
      "model's input. Keep every pixel.")
    bad = [(c, r, k, float(args[0][0, c, r, k]))
           for args, const, Z, _, _ in results for c, r, k in const
           if not torch.isfinite(Z[:, c, r, k]).all()]
    h(not bad or any(v == 0 for *_, v in bad),
      f"normalise gives NaN or Inf for the pixel that holds {bad[0][3] if bad else 0} in "
      "every image: a pixel never varies when its std is 0, whatever its mean (a mask "
      "from mean == 0 misses it). Find such pixels from std.")
    h(not bad,
      f"normalise gives NaN or Inf for the pixels (channel, row, column) "
      f"{[b[:3] for b in bad]}, which never vary: find such pixels from the statistics, "
      "not from where this check's or the lab's pixels sit.", kind="constant",
      more="2.3 Diagnose printed which statistic is 0 for such a pixel.")
    h(all(torch.isfinite(Z).all() for _, _, Z, _, _ in results),
      "normalise gives NaN or Inf for pixels that vary.")
    inked = [float(v) for _, const, _, _, ink in results
             for c, r, k in const for v in ink[:, c, r, k]]
    h(all(math.isfinite(v) and abs(v) <= 10 for v in inked),
      f"Ink in a pixel that never varied becomes {max(inked, key=abs):.3g}. A tiny "
      "epsilon added to std (or clamp_min(1e-8)) keeps the training data finite but "
      "blows such a pixel up by 1e8, and torch.nan_to_num hides the NaN without fixing "
      "it: such a pixel needs a scale that keeps a test image's ink moderate.",
      kind="ink")
    off: list[float] = []  # the varying pixels standardised otherwise than before
    for args, _, Z, _, _ in results:
        varies = args[2] > 0
        plain = ((args[0] - args[1]) / args[2])[:, varies]
        same = torch.isclose(Z[:, varies], plain, rtol=1e-5, atol=1e-6)
        off += args[2][varies][~same.all(dim=0)].tolist()
    h(not off,
      f"{len(off)} pixels that vary are not standardised as before, those whose std is "
      f"between {min(off or [0]):.1g} and {max(off or [0]):.1g} (stds here run from "
      "1e-4 to 3). Pixels that vary must be standardised exactly as before: a clamp, "
      "a threshold or one scale for all changes them. Only a std of 0 is the problem.")
    passed(f"every pixel finite, the varying ones standardised as before, "
           f"{len(results)} image shapes.")


def _pairs(images: np.ndarray, labels: np.ndarray) -> dict[tuple, list[int]]:
    """Each image of the source arrays -> its labels."""
    source: dict[tuple, list[int]] = {}
    for img, label in zip(images, labels):
        source.setdefault(tuple(img.flatten().tolist()), []).append(int(label))
    return source


def _key(x: torch.Tensor) -> tuple:
    return tuple((x[0] * 16).flatten().tolist())


def _with_data(fn: Callable, images: np.ndarray, labels: np.ndarray) -> tuple[Any, str]:
    """Call ``fn()`` with the notebook's ``images`` and ``labels`` set to other arrays."""
    space = getattr(fn, "__globals__", {})
    saved = {k: space[k] for k in ("images", "labels") if k in space}
    try:
        space.update(images=images, labels=labels)
        return attempt(fn)
    finally:
        for k in ("images", "labels"):
            space.pop(k, None)
        space.update(saved)


def _reseeds(fn: Callable) -> bool:
    """Whether ``fn()`` leaves PyTorch's or NumPy's global generator in the same state
    whatever state it found: it seeds it."""
    after = []
    for s in (5, 6):
        torch.manual_seed(s)
        np.random.seed(s)
        attempt(fn)
        after.append((torch.rand(3), np.random.rand(3)))
    (t1, n1), (t2, n2) = after
    return torch.equal(t1, t2) or bool(np.array_equal(n1, n2))


def load_digits(fn: Callable, images: np.ndarray, labels: np.ndarray, *,
                seed: int | None = None) -> None:
    """Bug 3: ``fn()`` returns every image of ``images`` (N, 1, 8, 8, float32 in 0..1)
    with its own label (int64), in one mixed order that is the same every call, and
    takes the data, and its size, from the arrays ``images`` and ``labels``."""
    need_callable(fn, "load_digits")
    h = _load.require
    first, error = attempt(fn)
    again = None
    if not error:
        again, error = attempt(fn)
    h(not error, f"load_digits() fails ({error}).")
    if not (isinstance(first, tuple) and len(first) == 2 and isinstance(again, tuple)
            and all(isinstance(t, torch.Tensor) for t in (*first, *again))):
        _load.fail("load_digits() returns two tensors, the images and their labels.")
    X, y = first
    h(tuple(X.shape) == (len(images), 1, 8, 8) and len(y) == len(images),
      f"load_digits() must still return all {len(images)} images (N, 1, 8, 8) and "
      "their labels.")
    h(X.dtype == torch.float32 and y.dtype == torch.int64,
      f"load_digits() returns {X.dtype} images and {y.dtype} labels: keep float32 "
      "images and int64 labels (cross_entropy takes class indices as int64).")
    h(float(X.min()) == 0.0 and float(X.max()) == 1.0,
      f"The pixels run from {float(X.min()):g} to {float(X.max()):g}: keep them in "
      "0..1, as the script had them.")
    source = _pairs(images, labels)
    keys = [_key(x) for x in X]
    pairs = [int(t) in source.get(k, ()) for k, t in zip(keys, y)]
    h(all(pairs),
      f"{len(pairs) - sum(pairs)} labels do not belong to their image. Shuffling the "
      "labels with a permutation of their own (a second randperm) leaves them just as "
      "unrelated as before (3.3 Diagnose compares with the source).", kind="pairs",
      more="print the first few images and labels that load_digits() returns, as in "
      "3.2, and compare them with the arrays.")
    h(sorted(keys) == sorted(tuple(i.flatten().tolist()) for i in images),
      "load_digits() drops or repeats images: return each image of the source once.")
    h(all(torch.equal(a, b) for a, b in zip(first, again)),
      "load_digits() gives another order each call (an unseeded shuffle): make_data "
      "would split train, validation and test differently each time, and test images "
      "leak into training (3.4 says what the script expects).")
    h(not _reseeds(fn),
      "load_digits() reseeds a global random generator (PyTorch's or NumPy's): whatever "
      "seed the caller chose, everything random after it (initial weights, dropout, "
      "shuffles) repeats the same numbers. Keep the shuffle's randomness to itself.")
    shares = [torch.bincount(part, minlength=10) / len(part)
              for part in (y[:1257], y[1257:1527], y[1527:])]
    how = ("sorted by label" if bool((y[1:] >= y[:-1]).all()) else "grouped by label")
    h(all(0.03 < float(s.min()) and float(s.max()) < 0.2 for s in shares),
      "The script's train, validation and test parts hold the digits in shares from "
      f"{min(float(s.min()) for s in shares):.0%} to "
      f"{max(float(s.max()) for s in shares):.0%}: the data is {how}, so make_data "
      "puts whole digits in one part only. Keep the pairs in a shuffled (or their "
      "original) order.")
    # Other sets of digits than the lab's: load_digits must take the data as it comes.
    if seed is None:
        picks = [np.arange(0, len(images), 13)]
    else:
        gen = np.random.default_rng(seed)
        picks = [gen.permutation(len(images))[:gen.integers(50, 400)] for _ in range(2)]
    for pick in picks:
        n = len(pick)
        small, error = _with_data(fn, images[pick].copy(), labels[pick].copy())
        h(not error and isinstance(small, tuple) and len(small) == 2,
          f"load_digits() fails on another set of {n} digits ({error}): the size of "
          "the lab's data set is written into it; take it from the data.")
        repeat, _ = _with_data(fn, images[pick].copy(), labels[pick].copy())
        h(len(small[0]) in (n, len(images)) and all(
            int(t) in source.get(_key(x), ()) for x, t in zip(*small)),
          f"On another set of {n} digits, load_digits() returns {len(small[0])} "
          "samples, or pairs that do not belong together: take the data, and its "
          "size, from the arrays images and labels.")
        h(isinstance(repeat, tuple) and all(
            torch.equal(a, b) for a, b in zip(small, repeat)),
          f"On another set of {n} digits, load_digits() gives another order each call.")
    passed("every label with its image, the same mixed order every call, on "
           f"{len(images)} and {', '.join(str(len(p)) for p in picks)} digits.")


def _held(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [p for g in optimizer.param_groups for p in g["params"]]


def setup(fn: Callable, *, seed: int | None = None) -> None:
    """Bug 4: ``fn(seed)`` returns ``(model, optimizer)``: the script's AdamW at lr=3e-3
    holding exactly the parameters of the model returned; one seed, one model;
    ``seed=None`` seeds nothing."""
    need_callable(fn, "setup")
    h = _setup.require
    if seed is None:
        seeds = [0, 0, 1, None]
    else:
        gen = rng(seed, 0)
        one = gen.randint(2, 9_999)
        seeds = [one, one, one + gen.randint(1, 99), None]
    calls = []
    for s in seeds:
        result, error = attempt(fn, s)
        h(not error, f"setup({s}) fails ({error})"
          + (": seed=None means no seeding; seed only when a seed is given."
             if s is None else "."))
        calls.append(result)
    h(all(isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], nn.Module)
          and isinstance(c[1], torch.optim.Optimizer) for c in calls),
      "setup(seed) returns (model, optimizer), in that order: run() unpacks it so.")
    for at in (0, 3):
        net, optimizer = calls[at]
        held = _held(optimizer)
        own = {id(p) for p in net.parameters()}
        missing = [n for n, p in net.named_parameters()
                   if id(p) not in {id(q) for q in held}]
        h(not missing,
          f"setup({seeds[at]}): the optimizer does not hold {missing}, parameters of "
          "the model setup() returns: it updates another model (4.3, preflight's "
          "error).", kind="missing",
          more="read setup() line by line: which model exists when the optimizer is "
          "built, and which one is returned?")
        strays = sum(id(p) not in own for p in held)
        h(not strays,
          f"setup({seeds[at]}): the optimizer also holds {strays} parameters of no "
          "model setup() returns.")
    net, optimizer = calls[0]
    kind = type(optimizer).__name__
    rates = {g["lr"] for g in optimizer.param_groups}
    h(kind == "AdamW" and rates == {3e-3},
      f"setup() builds {kind} with lr {sorted(rates)}: keep the script's AdamW at "
      "lr=3e-3. The bug is which model the optimizer holds, not which optimizer.")
    same = all(torch.equal(a, b) for a, b in
               zip(calls[0][0].parameters(), calls[1][0].parameters()))
    h(same,
      f"setup({seeds[0]}) twice gives two different models: the model it returns is "
      "not the one the seed made, so runs do not repeat"
      + (" (and 0 is a seed like any other)." if seeds[0] == 0 else "."))
    other = all(torch.equal(a, b) for a, b in
                zip(calls[0][0].parameters(), calls[2][0].parameters()))
    h(not other,
      f"setup({seeds[2]}) gives the same model as setup({seeds[0]}): seed with the "
      "seed it is given, not a fixed one.")
    unseeded: list[Any] = []  # the models setup(None) returned (None: no model)
    for state in (5, 6):  # setup(None) after two different random states
        torch.manual_seed(state)
        result, _ = attempt(fn, None)
        unseeded.append(result[0] if isinstance(result, tuple) and result else None)
    h(all(isinstance(m, nn.Module) for m in unseeded) and not all(
        torch.equal(a, b) for a, b in zip(unseeded[0].parameters(),
                                          unseeded[1].parameters())),
      "setup(None) gives the same model whatever the random state it starts from: it "
      "seeds, although seed=None means \"do not seed\" (4.4).")
    passed("the optimizer holds the model it comes with; seeded runs repeat "
           f"(seeds {seeds[0]}, {seeds[2]} and None).")


def _loss_cases(seed: int | None) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(logits, labels): a batch of the lab's 10 classes, the same four times over,
    another batch with other classes, and large logits."""
    large = (torch.tensor([[0.0, 200.0, -50.0], [300.0, 0.0, 0.0]]), torch.tensor([0, 1]))
    if seed is None:
        ice_lab.set_seed(1)
        logits, labels = torch.randn(16, 10) * 3, torch.randint(0, 10, (16,))
        other = (torch.randn(5, 3), torch.randint(0, 3, (5,)))
    else:
        gen = torch.Generator().manual_seed(seed)
        n = int(torch.randint(2, 50, (1,), generator=gen))
        logits = torch.randn(n, 10, generator=gen) * 10 ** float(torch.rand(1, generator=gen))
        labels = torch.randint(0, 10, (n,), generator=gen)
        m, c = int(torch.randint(1, 50, (1,), generator=gen)), int(
            torch.randint(2, 9, (1,), generator=gen))
        other = (torch.randn(m, c, generator=gen) * 10, torch.randint(0, c, (m,), generator=gen))
    return [(logits, labels), (logits.repeat(4, 1), labels.repeat(4)), other, large]


def compute_loss(fn: Callable, *, seed: int | None = None) -> None:
    """Bug 5: ``fn(logits, labels)`` is the mean cross-entropy of raw logits, a 0-d
    tensor in the graph, for any batch size and number of classes, finite for large
    logits, with the gradient of ``F.cross_entropy``."""
    need_callable(fn, "compute_loss")
    h = _loss.require
    cases = _loss_cases(seed)
    got: list[tuple[float, Any]] = []  # (loss, its gradient with respect to the logits)
    for logits, labels in cases:
        logits = logits.clone().requires_grad_()
        loss, error = attempt(fn, logits, labels)
        classes = logits.shape[1]
        h(not error or classes == 10 or not got,
          f"compute_loss fails on {classes} classes ({error}): the lab's 10 classes "
          "are written into it; the logits say how many there are.")
        h(not error, f"compute_loss fails ({error}).")
        graph = getattr(loss, "grad_fn", None) is not None
        h(isinstance(loss, torch.Tensor) and loss.dim() == 0 and graph,
          "compute_loss must return the loss as a 0-d tensor with its graph: .item(), "
          ".detach() or torch.tensor(...) leave train_step nothing to call backward() "
          "on.")
        grad, error = attempt(lambda: torch.autograd.grad(loss, logits)[0])
        h(not error, f"compute_loss's loss has no gradient ({error}).")
        got.append((loss.item(), grad))
    ref, ref_grads = [], []
    for logits, labels in cases:
        logits = logits.clone().requires_grad_()
        loss = F.cross_entropy(logits, labels)
        ref.append(loss.item())
        ref_grads.append(torch.autograd.grad(loss, logits)[0])  # noqa: ICE101
    values = [v for v, _ in got]
    n = len(cases[0][1])
    h(abs(values[1] - values[0]) < 1e-5 * max(1.0, abs(values[0])),
      f"On a batch of {n} the loss is {values[0]:.4g}; on the same {n} samples four "
      f"times over, a batch of {4 * n}, it is {values[1]:.4g}: it changes with the "
      "batch size (a sum, or a sum divided by a fixed number). The loss of a batch is "
      "the mean over its samples, whatever its size.")
    probs = F.softmax(cases[0][0], dim=1)
    guess = {
        "F.nll_loss(F.softmax(...)) is not a cross-entropy: nll_loss expects "
        "log-probabilities.": F.nll_loss(probs, cases[0][1]).item(),
        "A softmax before cross_entropy, the script's bug, is still there (5.3 "
        "Diagnose).": F.cross_entropy(probs, cases[0][1]).item(),  # noqa: ICE102
    }
    why = [w for w, r in guess.items() if abs(values[0] - r) < 1e-5]
    shown = [round(r, 4) for r in ref[:3]]
    h(all(abs(v - r) < 1e-5 * max(1.0, abs(r)) for v, r in zip(values[:3], ref[:3])),
      "compute_loss is not the mean cross-entropy of these raw logits. "
      + (why[0] if why else "The check could not tell what went wrong: it gives "
         f"{[round(v, 4) for v in values[:3]]} where the mean cross-entropy of these "
         f"raw logits is {shown}."), kind="value",
      more="preflight's warning in 4.3 and 5.3 names what the loss receives.")
    h(math.isfinite(values[3]) and abs(values[3] - ref[3]) < 1e-3,
      f"Logits of 200 and 300 give a loss of {values[3]}, expected {ref[3]:g}. "
      "exp(300) overflows float32 (a log-sum-exp by hand without subtracting the "
      "max), and the log of an underflowed probability is -inf (the log of a "
      "softmax): the Numerics chapter shows the stable way.")
    h(all(torch.allclose(g, r, atol=1e-6) for (_, g), r in zip(got, ref_grads)),
      "The loss has the right value but another gradient.")
    passed(f"the mean cross-entropy of raw logits, batches of {n} and {4 * n}, "
           f"{cases[2][0].shape[1]} classes, finite for large logits.")


# One module for the lab's Verify cells (``check.<exercise>(...)``): bugs 6 to 10 and the
# final run live in the three sibling modules.
from .capstone_colleague import add_coords, final, residual  # noqa: E402, F401
from .capstone_eval import evaluate_memory, evaluate_mode  # noqa: E402, F401
from .capstone_training import train_step  # noqa: E402, F401
