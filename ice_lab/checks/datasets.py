"""Checks of ``labs/lab-datasets.ipynb`` (chapter: Datasets and DataLoader,
``book/datasets.ipynb``): a collate function for channels-first recordings, a
``worker_init_fn`` for an augmentation that holds its own generator, per-channel pixel
statistics, and a colleague's training set whose batches are silently wrong."""

from __future__ import annotations

import math
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.utils.data import DataLoader

from ..data import AugmentedDigits, RaggedSequences, RandomContrast
from ._core import Hints, attempt, need_callable, passed, quote
# exercise 4, the open one, has a module of its own; the lab calls it as check.train_set
from .datasets_colleague import colleague_reference, train_set  # noqa: F401

_collate = Hints("collate")
_workers = Hints("worker_init_fn")
_stats = Hints("pixel_stats")
_learns = Hints("training")

KEYS = ("signal", "mask", "label")


# --------------------------------------------------------------------------- exercise 1
def _recording(signal: torch.Tensor, label: int) -> dict[str, Any]:
    return {"signal": signal, "label": label}


def _collate_cases(recordings: Sequence, seed: int | None) -> list[tuple[str, list]]:
    if seed is None:
        lab = [dict(recordings[i]) for i in range(6)]
        first = lab[0]["signal"]
        lab[0] = _recording(torch.cat([first, torch.zeros(first.shape[0], 1)], 1),
                            lab[0]["label"])
        other = RaggedSequences(n=7, seed=11, min_len=1, max_len=5, dim=3)
        return [
            ("the lab's 6 recordings (2 channels, a real last step of zeros)", lab),
            ("7 recordings of 1 to 5 steps with 3 channels, labels 0-9",
             [_recording(other[i][0].T, 3 * i % 10) for i in range(7)]),
            ("the lab's recordings with every value -1",
             [_recording(torch.full_like(r["signal"], -1.0), r["label"]) for r in lab]),
            ("the lab's recordings with every value NaN",
             [_recording(torch.full_like(r["signal"], math.nan), r["label"]) for r in lab]),
        ]
    gen = torch.Generator().manual_seed(seed)
    cases = []
    for fill in (None, None, 0.0, -1.0, 1.0, -100.0, math.inf, math.nan):
        n = int(torch.randint(1, 9, (), generator=gen))
        channels = int(torch.randint(1, 6, (), generator=gen))
        lengths = torch.randint(1, 16, (n,), generator=gen).tolist()
        items = [_recording(torch.randn(channels, t, generator=gen) if fill is None
                            else torch.full((channels, t), fill),
                            int(torch.randint(0, 10, (), generator=gen)))
                 for t in lengths]
        what = (f"{n} recordings of {channels} channels, lengths {lengths}"
                + ("" if fill is None else f", every value {fill}"))
        cases.append((what, items))
    return cases


def _shape_why(got: tuple, want: tuple) -> str:
    if len(got) != 3:
        return "three axes: batch, channels, time"
    if got == (want[0], want[2], want[1]) and want[1] != want[2]:
        return ("time comes before channels: the model takes channels first, like a "
                "Conv1d, as the recordings come")
    if got[2] < want[2]:
        return "not truncated to the shortest: every real step must stay"
    if got[2] > want[2]:
        return "pad to the longest recording of this batch, not to a fixed length"
    if got[1] != want[1]:
        return "take the number of channels from the recordings, not from the example"
    return "the check could not tell what went wrong"


def collate(fn: Callable, recordings: Sequence, *, seed: int | None = None) -> None:
    """``fn(batch)`` turns a list of ``{"signal": (C, T_i), "label": int}`` recordings
    into ``{"signal": [B, C, T_max], "mask": [B, T_max] bool, "label": int64 [B]}``: zeros
    after each recording ends, a mask True exactly on the real steps, for any batch."""
    need_callable(fn, "collate")
    h = _collate.require
    for what, items in _collate_cases(recordings, seed):
        lengths = [r["signal"].shape[-1] for r in items]
        want = (len(items), items[0]["signal"].shape[0], max(lengths))
        out, error = attempt(fn, [dict(r) for r in items])
        lab_batch = "the lab's 6" in what
        h(not error,
          f"collate fails on {what} ({error}). "
          + ("The recordings have different lengths along their last axis, time: each "
             "is padded to the longest of the batch. pad_sequence pads the first axis "
             "and needs every other one equal (1. Diagnose)." if lab_batch else
             "Take every size from the batch (how many recordings, the longest length, "
             "the number of channels), none from the lab's example."),
          kind="fails", more="print the shape of each recording of the batch, and the "
          "shape the model's docstring asks for; which axis must grow?")
        h(isinstance(out, Mapping) and all(k in out for k in KEYS)
          and all(isinstance(out[k], torch.Tensor) for k in KEYS),
          f"collate must return a dict of three tensors with the keys {list(KEYS)} "
          f"(what the training loop reads), got {type(out).__name__}.")
        padded, mask, labels = (out[k] for k in KEYS)
        got = tuple(padded.shape)
        h(got == want,
          f"On {what}, signal is {got}, expected [batch, channels, longest length] = "
          f"{want}: {_shape_why(got, want)}.")
        h(mask.dtype == torch.bool and tuple(mask.shape) == (want[0], want[2]),
          f"mask must be a bool tensor [batch, time] {(want[0], want[2])}, got "
          f"{mask.dtype} {tuple(mask.shape)}; float ones are the bug we started from.")
        if mask.sum(dim=1).tolist() != lengths:
            if lab_batch and mask[0].sum() < lengths[0]:
                h(False, "The mask marks the last step of recording 0 as padding, but it "
                  "is a real step whose values are all 0: a mask read from the values "
                  "breaks on real zeros. Build it from how long each recording is, "
                  "never from the data (padded != 0).", kind="mask")
            h("every value" not in what,
              f"On {what}, the mask calls real steps padding: a mask read from a "
              "sentinel (padding_value=-1 then != -1, NaN then isnan) or from the data "
              "breaks on data that holds that value. Build it from the lengths.",
              kind="mask")
            h(False, f"On {what}: each mask row has as many True entries as its "
              "recording has steps; padding is False.", kind="mask",
              more="print the mask as 0/1 beside the lengths of the recordings.")
        steps = padded.transpose(1, 2)[mask]  # the real steps, (sum of lengths, C)
        real = torch.cat([r["signal"].T for r in items])
        h(torch.equal(steps.nan_to_num(7.0), real.nan_to_num(7.0)),
          f"On {what}: the real steps must sit at the start of each recording's time "
          "axis, where mask is True, in order and unchanged.")
        h(float(padded.transpose(1, 2)[~mask].abs().sum()) == 0.0,
          f"On {what}: pad with zeros (padding_value=0).")
        h(labels.dtype == torch.int64 and labels.tolist() == [r["label"] for r in items],
          f"On {what}, label: the labels as an int64 tensor, in batch order.")
    passed("channels first, padded to the longest, a mask from the lengths, on real "
           "zeros, -1 and NaN too.")


# --------------------------------------------------------------------------- exercise 2
#: Samples 0-15 loaded 4 to a batch by two workers: worker 0 loads these, worker 1 the rest.
BY_WORKER = ([0, 1, 2, 3, 8, 9, 10, 11], [4, 5, 6, 7, 12, 13, 14, 15])
PAIRS = list(zip(*BY_WORKER))
#: The seed of the augmentation the check loads: not 0, the lab's, so that a worker whose
#: generator is seeded from its id (0) does not pass for the one it copied.
SEED = 20  # (a sample of worker 0, the same place in worker 1)


def contrast_factors(init: Callable | None, *, seed: int = 0, workers: int = 2,
                     batch_size: int = 4, epochs: int = 1) -> list[torch.Tensor]:
    """The contrast factor each of 16 augmented digits received, per epoch, loaded by
    ``workers`` workers with ``init`` as their ``worker_init_fn``."""
    data = AugmentedDigits(RandomContrast(strength=0.5, seed=SEED), n=16)
    found = []
    with warnings.catch_warnings():  # "more workers than CPUs" on small machines
        warnings.filterwarnings("ignore", message="This DataLoader will create")
        loader = DataLoader(data, batch_size=batch_size, num_workers=workers,
                            worker_init_fn=init,
                            generator=torch.Generator().manual_seed(seed))
        for _ in range(epochs):
            try:
                x = torch.cat([xb for xb, _ in loader])
            except Exception as error:
                # stop the workers now, not at a later garbage collection
                traceback.clear_frames(error.__traceback__)
                raise
            found.append(x.sum(dim=(1, 2, 3)) / data.clean.sum(dim=(1, 2, 3)))
    return found


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(torch.allclose(a, b, atol=1e-5))


def worker_init_fn(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(worker_id)``, run in each DataLoader worker, gives the worker's copy of the
    augmentation its own generator: workers differ, a seeded loader repeats, another
    loader seed (or the next epoch) draws anew, for any number of workers."""
    need_callable(fn, "worker_init_fn")
    h = _workers.require
    (copied,) = contrast_factors(None)  # each worker's copy of the generator
    try:
        if seed is None:
            (first,) = contrast_factors(fn, seed=0)
            (again,) = contrast_factors(fn, seed=0)
            (other,) = contrast_factors(fn, seed=1)
            (three,) = contrast_factors(fn, seed=2, workers=3)
        else:
            epoch1, epoch2 = contrast_factors(fn, seed=seed, workers=4, batch_size=2,
                                              epochs=2)
        error = ""
    except Exception as err:  # quoted in the hint
        error = quote(err)
    h(not error,
      f"loading with your worker_init_fn fails ({error}). Inside a worker, "
      "get_worker_info() gives its id, its seed and its copy of the dataset; the "
      "generator to replace is the one the augmentation draws from (2. Diagnose).",
      kind="fails")
    if seed is not None:
        workers = [[i for i in range(16) if i // 2 % 4 == w] for w in range(4)]
        h(all(not _same(epoch1[rows], epoch2[rows]) for rows in workers),
          "each epoch must draw new factors in every worker: the worker's seed changes "
          "every epoch, a seed from anything else does not.")
        h(not any(_same(epoch1[i], epoch1[j]) for i in range(16) for j in range(i + 1, 16)),
          "with 4 workers, two samples got the same factor: every worker needs its own "
          "seed.")
        passed("4 workers differ, and each epoch draws anew.")
        return
    h(not _same(first, torch.ones(16)),
      "there is no augmentation left: the contrast was switched off, not fixed.")
    if any(_same(first[i], first[j]) for i, j in PAIRS):
        h(not _same(first, copied),
          "workers 0 and 1 still draw identical factors: the augmentation's generator "
          "was not replaced. Seeding a global generator (random.seed, np.random.seed, "
          "torch.manual_seed) or setting one on the dataset does not reach the generator "
          "the augmentation holds: which object draws the factor?", kind="same",
          more="print get_worker_info().dataset inside a worker: where does its "
          "augmentation keep its generator?")
        h(False, "workers 0 and 1 still draw identical factors: each got a new "
          "generator, but with the same seed. Seed it from what differs from worker to "
          "worker (not from the time or a constant).", kind="same")
    kept = [w for w, rows in enumerate(BY_WORKER) if _same(first[rows], copied[rows])]
    h(not kept,
      f"worker {kept[0] if kept else 0} still draws the factors of the generator it "
      "copied, the same for every loader seed and every epoch: give every worker a new "
      "generator, worker 0 too.")
    h(_same(first, again),
      "the factors are not repeatable: two loaders with the same seed drew different "
      "ones. Seed the new generator from the worker's seed, not from something that "
      "changes from run to run (no seed at all, the time, the process id).")
    h(all(not _same(first[rows], other[rows]) for rows in BY_WORKER),
      "the factors ignore the loader's generator (and repeat every epoch) in at least "
      "one worker: seed from the seed PyTorch gives the worker, not from worker_id or "
      "the augmentation's own generator alone.")
    h(not any(_same(three[i], three[i + k]) for i in range(12) for k in (4, 8)
              if i + k < 12),
      "with 3 workers, two of them draw identical factors: the fix must hold for any "
      "number of workers.")
    passed("workers differ, runs repeat, the loader's seed decides, with 2 and 3 workers.")


# --------------------------------------------------------------------------- exercise 3
def _floats(value: Any) -> list[float] | None:
    """``value`` as a list of Python floats if it is a list or tuple of them, else None."""
    if isinstance(value, (list, tuple)) and all(
            isinstance(v, float) for v in value):
        return list(value)
    return None


def _numbers(value: Any) -> list[float]:
    """Every number in ``value`` (a float, a tensor, a list), for the hints."""
    try:
        return [float(v) for v in torch.as_tensor(value, dtype=torch.float64).flatten()]
    except (TypeError, ValueError, RuntimeError):
        return []


def _per_channel(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Mean, std and population std per channel of images ``(N, C, ...)``, in float64."""
    flat = x.double().transpose(0, 1).reshape(x.shape[1], -1)
    return flat.mean(1), flat.std(1), flat.std(1, correction=0)


def _stats_cases(train: Any, val: Any, seed: int | None) -> list[tuple[str, Any]]:
    from torch.utils.data import TensorDataset

    if seed is None:
        gen = torch.Generator().manual_seed(3)
        scale = torch.tensor([255.0, 120.0, 30.0])[None, :, None, None]  # per channel
        images = (torch.rand(20, 3, 5, 7, generator=gen) * scale).round()
        return [("val_t", val),
                ("20 colour images of 3 x 5 x 7 pixels in 0-255, a different range per "
                 "channel", TensorDataset(images, torch.zeros(20)))]
    gen = torch.Generator().manual_seed(seed)
    cases = []
    for shape in [(10, 3, 8, 8), (1, 3, 4, 4), (7, 2, 1, 9), (33, 1, 3, 2), (5, 4, 2, 3)]:
        scale = torch.rand(shape[1], generator=gen) * 300
        offset = torch.randn(shape[1], generator=gen) * 50
        x = torch.rand(shape, generator=gen) * scale[None, :, None, None]
        x = x + offset[None, :, None, None]
        cases.append((f"images of shape {shape}, each channel in its own range",
                      TensorDataset(x, torch.zeros(shape[0]))))
    return cases


def pixel_stats(fn: Callable, train: Any, val: Any, *, seed: int | None = None) -> None:
    """``fn(dataset)`` returns ``(mean, std)``, each a list of Python floats with one
    value per channel, over every pixel of every image of the dataset it is given, in the
    units its tensors hold."""
    need_callable(fn, "pixel_stats")
    h = _stats.require
    out, error = attempt(fn, train)
    h(not error, f"pixel_stats fails on the training set ({error}).")
    pair = out if isinstance(out, (list, tuple)) and len(out) == 2 else None
    if pair is None:
        _stats.fail(f"pixel_stats must return two things, the means and the stds, got "
                    f"{type(out).__name__}.")
    means = _numbers(pair[0])
    h(not any(abs(m - v) < 1e-3 for m in means for v in (0.485, 0.456, 0.406)),
      "0.485 is ImageNet's mean, for models pretrained on ImageNet photos; compute the "
      "digits' own statistics (3. Diagnose).")
    mean, std = _floats(pair[0]), _floats(pair[1])
    if mean is None or std is None:
        kinds = f"{type(pair[0]).__name__} and {type(pair[1]).__name__}"
        h(not isinstance(pair[0], (float, int)),
          "pixel_stats returned one float for the mean and one for the std: Normalize "
          "takes one mean and one std per channel, as lists (for the digits' one "
          "channel, a list of one).", kind="global")
        _stats.fail(f"pixel_stats returned {kinds}: return Python floats, a list of "
                    "them for the means and one for the stds (not tensors or arrays), "
                    "as Normalize and a config file take them.")
    x_train, x_val = train.tensors[0], val.tensors[0]
    ref_mean, ref_std, ref_std0 = _per_channel(x_train)
    val_mean = _per_channel(x_val)[0]
    h(max(mean) < 1 and max(std) < 1,
      f"mean {mean}, std {std} look like 0-255 statistics; the images are 0-1 floats "
      "after ToTensor.")
    h(len(mean) != len(val_mean) or not _close(mean, val_mean, 1e-6),
      "these are the validation set's statistics; use the training set (train_t).")
    h(len(mean) == len(ref_mean) and _close(mean, ref_mean, 1e-5),
      f"mean {mean}, expected {[round(v, 5) for v in ref_mean.tolist()]}: compute the "
      "mean over every pixel of every training image of train_t (not all 1,797 digits, "
      "not a subset, not one image, not a mean of per-batch means).")
    h(len(std) == len(ref_std) and (_close(std, ref_std, 1e-4) or _close(std, ref_std0, 1e-4)),
      f"std {std}, expected {[round(v, 4) for v in ref_std.tolist()]}: the std over "
      "every pixel (not the mean of per-image or per-batch stds, not one image).")
    for what, data in _stats_cases(train, val, seed):
        got, error = attempt(fn, data)
        h(not error,
          f"pixel_stats fails on {what} ({error}): the lab's digits are 1 x 8 x 8; "
          "take the statistics whatever the shape and the number of channels.")
        x = data.tensors[0]
        c_mean, c_std, c_std0 = _per_channel(x)
        g_mean, g_std = (_floats(got[0]) or [], _floats(got[1]) or []) if (
            isinstance(got, (list, tuple)) and len(got) == 2) else ([], [])
        scale = max(1.0, float(x.abs().max()))
        ok = (len(g_mean) == len(g_std) == len(c_mean)
              and _close(g_mean, c_mean, 1e-5 * scale)
              and (_close(g_std, c_std, 1e-4 * scale) or _close(g_std, c_std0, 1e-4 * scale)))
        if ok:
            continue
        everything = x.double()
        if [g_mean, g_std] == [mean, std]:
            why = ("the training set's statistics. pixel_stats must compute from the "
                   "dataset it is given, not from train_t.")
        elif len(g_mean) != len(c_mean):
            why = (f"{len(g_mean)} mean(s) for {len(c_mean)} channels: Normalize takes "
                   "one mean and one std per channel, each over every image and pixel "
                   "of that channel.")
        elif _close(g_mean, [everything.mean().item()] * len(c_mean), 1e-5 * scale):
            why = ("the same mean for every channel, the mean over all channels "
                   "together: each channel has its own statistics.")
        elif _close([v * 255 for v in g_mean], c_mean, 1e-2 * scale):
            why = ("pixel_stats rescaled the pixels. On images in 0-255 it must return "
                   "0-255 statistics, those of the tensors it is given: units are fixed "
                   "where the tensors are made (ToTensor), not inside the statistics.")
        else:
            why = ("pixel_stats must compute from the dataset it is given, not return "
                   "fixed numbers: per channel, the mean and std over every pixel of "
                   "every image.")
        expected = [[round(v, 4) for v in c.tolist()] for c in (c_mean, c_std)]
        h(False, f"pixel_stats({what.split(',')[0]}) returned {[g_mean, g_std]}, expected "
          f"about {expected}: " + why, kind="cases")
    passed("one mean and one std per channel, the training set's own, in the units of "
           "the tensors, for 1 to 4 channels.")


def _close(got: Sequence[float], want: Any, tol: float) -> bool:
    want = [float(v) for v in want]
    return len(got) == len(want) and all(abs(g - w) <= tol for g, w in zip(got, want))


def learns(right_losses: Sequence[float], right_acc: Sequence[float],
           pasted_losses: Sequence[float], raw_losses: Sequence[float]) -> None:
    """The network trained with the learner's statistics beats the pasted ones and no
    normalisation, and passes 85% validation accuracy."""
    h = _learns.require
    h(right_losses[-1] < 0.5 * pasted_losses[-1],
      "with training-set statistics the loss should fall far below chance level.")
    h(right_losses[-1] < raw_losses[-1],
      "normalising with the training-set statistics should converge faster than no "
      "normalisation.")
    h(right_acc[-1] > 0.85, "validation accuracy should pass 85% within 8 epochs.")
    passed("the network learns with the training-set statistics.")
