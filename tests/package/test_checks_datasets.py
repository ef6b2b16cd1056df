"""ice_lab.checks.datasets: each check accepts right answers, refuses the stub and the usual
wrong answers with the hint that names them, and draws other cases from a seed. The
worker check starts DataLoader workers: its tests are marked ``kernel``."""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import Dataset, get_worker_info

from check_answers import refused, stub
from ice_lab.checks import datasets as check
from ice_lab.data import RaggedSequences, digits_arrays, digits_datasets, digits_split_indices


# --------------------------------------------------------------------------- exercise 1
RECORDINGS = [{"signal": s.T, "label": y} for s, y in RaggedSequences(n=64, seed=0)]


def collate(batch, padding=0.0, mask_from=None, time_first=False, label_dtype=torch.int64):
    signals = [item["signal"] for item in batch]
    lengths = torch.tensor([s.shape[-1] for s in signals])
    padded = pad_sequence([s.T for s in signals], batch_first=True, padding_value=padding)
    if not time_first:
        padded = padded.transpose(1, 2)
    mask = (torch.arange(padded.shape[2 - time_first])[None, :] < lengths[:, None]
            if mask_from is None else mask_from(padded))
    labels = torch.tensor([item["label"] for item in batch], dtype=label_dtype)
    return {"signal": padded, "mask": mask, "label": labels}


def test_collate(capsys):
    check.collate(collate, RECORDINGS)
    check.collate(collate, RECORDINGS, seed=5)
    assert capsys.readouterr().out.count("Check passed") == 2
    refused(check.collate, stub, RECORDINGS, hint="to the longest of the batch")
    refused(check.collate, lambda b: collate(b, time_first=True), RECORDINGS,
            hint="time comes before channels")
    refused(check.collate, lambda b: collate(b, mask_from=lambda p: p.ne(0).any(1)),
            RECORDINGS, hint=r"never from the data \(padded != 0\)")
    refused(check.collate, lambda b: collate(b, padding=-1.0), RECORDINGS,
            hint="pad with zeros")
    refused(check.collate, lambda b: collate(b, label_dtype=torch.float32), RECORDINGS,
            hint="int64")


def test_collate_hidden_cases_catch_a_sentinel_mask():
    def sentinel(batch):
        out = collate(batch, padding=-1.0, mask_from=lambda p: (p != -1).any(1))
        out["signal"] = out["signal"].masked_fill(~out["mask"][:, None, :], 0.0)
        return out

    refused(check.collate, sentinel, RECORDINGS, seed=5, hint="a mask read from a sentinel")


# --------------------------------------------------------------------------- exercise 2
# Module-level functions: a worker started by spawn or forkserver imports them by name.
def reseeded(worker_id):
    info = get_worker_info()
    info.dataset.transform.rng = random.Random(info.seed)


def global_only(worker_id):
    random.seed(get_worker_info().seed)


def by_id(worker_id):
    get_worker_info().dataset.transform.rng = random.Random(worker_id)


def unseeded(worker_id):
    get_worker_info().dataset.transform.rng = random.Random()


@pytest.mark.kernel
def test_worker_init_fn(capsys):
    check.worker_init_fn(reseeded)
    check.worker_init_fn(reseeded, seed=3)
    assert capsys.readouterr().out.count("Check passed") == 2
    refused(check.worker_init_fn, stub, hint="fails")
    refused(check.worker_init_fn, global_only, hint="generator was not replaced")
    refused(check.worker_init_fn, by_id, hint="ignore the loader's generator")
    refused(check.worker_init_fn, unseeded, hint="not repeatable")


def test_worker_init_fn_refuses_what_is_not_a_function():
    with pytest.raises(TypeError, match="run the cell"):
        check.worker_init_fn(None)


# --------------------------------------------------------------------------- exercise 3
TRAIN, VAL, _ = digits_datasets(seed=0)


def per_channel(dataset):
    x = dataset.tensors[0]
    return x.mean(dim=(0, 2, 3)).tolist(), x.std(dim=(0, 2, 3)).tolist()


def test_pixel_stats(capsys):
    check.pixel_stats(per_channel, TRAIN, VAL)
    check.pixel_stats(per_channel, TRAIN, VAL, seed=11)
    assert capsys.readouterr().out.count("Check passed") == 2
    refused(check.pixel_stats, stub, TRAIN, VAL, hint="fails on the training set")
    refused(check.pixel_stats, lambda d: (0.485, 0.229), TRAIN, VAL, hint="ImageNet")

    def global_stats(dataset):
        x = dataset.tensors[0]
        return float(x.mean()), float(x.std())

    refused(check.pixel_stats, global_stats, TRAIN, VAL,
            hint="one mean and one std per channel")

    def global_lists(dataset):
        x = dataset.tensors[0]
        return [float(x.mean())], [float(x.std())]

    refused(check.pixel_stats, global_lists, TRAIN, VAL, hint="1 mean\\(s\\) for 3 channels")
    refused(check.pixel_stats, lambda d: per_channel(VAL), TRAIN, VAL,
            hint="validation set's statistics")
    refused(check.pixel_stats, lambda d: per_channel(TRAIN), TRAIN, VAL,
            hint="not from train_t")


def test_learns():
    check.learns([0.2], [0.93], [2.3], [0.8])
    refused(check.learns, [2.3], [0.1], [2.3], [0.8], hint="far below chance")


# --------------------------------------------------------------------------- exercise 4
class CleanedDigits(Dataset):
    """The lab's colleague's training set, its bug included."""

    def __init__(self, min_ink=0.25, fixed=False):
        images, labels = digits_arrays()
        train_idx, _, _ = digits_split_indices(seed=0)
        pixels = torch.tensor(images[train_idx] / 16.0, dtype=torch.float32).unsqueeze(1)
        keep = pixels.mean(dim=(1, 2, 3)) > min_ink
        self.labels = torch.from_numpy(labels[train_idx])[keep if fixed else slice(None)]
        self.images = pixels[keep]
        self.mean, self.std = self.images.mean(), self.images.std()

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return (self.images[index] - self.mean) / self.std, self.labels[index]


def test_train_set(capsys):
    check.train_set(lambda m: CleanedDigits(m, fixed=True))
    check.train_set(lambda m: CleanedDigits(m, fixed=True), seed=2)
    assert capsys.readouterr().out.count("Check passed") == 2
    refused(check.train_set, stub, hint="fails")
    refused(check.train_set, CleanedDigits, hint="carry another image's label")
    refused(check.train_set, lambda m: CleanedDigits(0.0, fixed=True),
            hint="drops the faint ones on purpose")
    refused(check.train_set, lambda m: CleanedDigits(0.25, fixed=True),
            hint="whatever min_ink is")


def test_train_set_says_more_the_second_time():
    for _ in range(2):
        with pytest.raises(AssertionError) as failed:
            check.train_set(CleanedDigits)
    assert "Still stuck: compare the first samples" in str(failed.value)


def test_the_reference_is_the_colleagues_set_repaired():
    images, labels, before = check.colleague_reference(0.25)
    assert before == 1257 and len(images) == len(labels) == 1230
    assert abs(float(images.mean())) < 1e-5 and F.mse_loss(images.std(), torch.tensor(1.0)) < 1e-8
