"""The datasets the book uses, and the small helpers a DataLoader needs.

Taught in the Datasets chapter (``book/datasets.ipynb``) and its lab
(``labs/lab-datasets.ipynb``); the regression data belongs to the Training chapter
(``book/training.ipynb``). Everything here is offline and small: the digits ship with
scikit-learn, the rest is generated from a seed.

The Dataset classes live in this module, not in a notebook, on purpose: under the
``spawn`` start method (the default on macOS and Windows) a DataLoader worker re-imports
the classes it needs by name, and a class defined in a notebook has no importable name.

Who uses what:

* every chapter and lab that trains: ``digits_datasets`` (``digits_arrays``,
  ``digits_split_indices``);
* the Training chapter, lab-training and lab-nan: ``synthetic_regression`` (the chapter
  also ``W_TRUE``, ``BIAS_TRUE``);
* the Datasets chapter: ``DigitsImageDataset``, ``FileImageDataset`` and ``SampleError``
  (a sample that fails to load), ``SlowDataset`` (workers speed up a slow loader),
  ``NoisyDigits``, ``pad_collate``, ``seed_worker`` (the Schedules chapter too);
* the Datasets chapter and lab-datasets: ``WorkerProbe`` (what each worker sees),
  ``reseed_dataset_rng``, ``RaggedSequences``, ``digits_images``;
* lab-datasets only: ``RandomContrast`` and ``AugmentedDigits`` (an augmentation whose
  random stream the workers share).
"""

from __future__ import annotations

import csv
import os
import random
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import Dataset, TensorDataset, get_worker_info

from ._args import check_int as _check_int
from ._args import check_number

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "W_TRUE",
    "BIAS_TRUE",
    "digits_arrays",
    "digits_split_indices",
    "digits_datasets",
    "digits_images",
    "synthetic_regression",
    "seed_worker",
    "reseed_dataset_rng",
    "pad_collate",
    "DigitsImageDataset",
    "FileImageDataset",
    "SampleError",
    "SlowDataset",
    "NoisyDigits",
    "WorkerProbe",
    "RaggedSequences",
    "RandomContrast",
    "AugmentedDigits",
]

#: The weights and bias of the synthetic regression data (Training chapter).
W_TRUE: tuple[float, float, float] = (2.0, -3.0, 5.0)
BIAS_TRUE: float = 1.0


# --------------------------------------------------------------------------- argument checks
def _check_fraction(name: str, value: Any) -> float:
    value = check_number(name, value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1 (e.g. 0.15), got {value}.")
    return float(value)


# --------------------------------------------------------------------------- digits
@lru_cache(maxsize=1)
def _digits() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    bunch = load_digits()
    images = bunch.images.astype(np.float32)  # (1797, 8, 8), values 0..16
    labels = bunch.target.astype(np.int64)
    images.flags.writeable = False
    labels.flags.writeable = False
    return images, labels


def digits_arrays() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled digits as NumPy arrays: images ``(1797, 8, 8)`` float32 with
    the raw values 0–16, labels ``(1797,)`` int64. Read-only copies are cached.

    Taught in the Datasets chapter (``book/datasets.ipynb``).
    """
    images, labels = _digits()
    return images.copy(), labels.copy()


def digits_split_indices(
    seed: int = 0, val_fraction: float = 0.15, test_fraction: float = 0.15
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train / validation / test indices into the 1,797 digits: stratified by label
    (every split holds each digit in the same proportion) and the same for the same seed.

    Taught in the Datasets chapter (``book/datasets.ipynb``).
    """
    from sklearn.model_selection import train_test_split

    seed = _check_int("seed", seed, 0)
    val_fraction = _check_fraction("val_fraction", val_fraction)
    test_fraction = _check_fraction("test_fraction", test_fraction)
    if val_fraction + test_fraction >= 0.9:
        raise ValueError(
            f"val_fraction + test_fraction = {val_fraction + test_fraction:.2f} leaves too little "
            "to train on; keep their sum below 0.9 (the defaults are 0.15 and 0.15)."
        )
    _, labels = _digits()
    everything = np.arange(len(labels))
    rest, test = train_test_split(everything, test_size=test_fraction, stratify=labels, random_state=seed)
    train, val = train_test_split(
        rest, test_size=val_fraction / (1.0 - test_fraction), stratify=labels[rest], random_state=seed
    )
    return np.sort(train), np.sort(val), np.sort(test)


def digits_datasets(
    seed: int = 0, val_fraction: float = 0.15, test_fraction: float = 0.15
) -> tuple[TensorDataset, TensorDataset, TensorDataset]:
    """The digits as three ``TensorDataset`` objects: train, validation, test.

    Images are float32 of shape ``(N, 1, 8, 8)`` scaled from the raw 0–16 to 0–1, labels
    int64; the split is stratified and deterministic (see ``digits_split_indices``).

    Taught in the Datasets chapter (``book/datasets.ipynb``); trained on in the Training
    chapters (``book/training.ipynb``, ``book/schedules.ipynb``).
    """
    images, labels = _digits()
    x = torch.from_numpy(images / 16.0).float().unsqueeze(1)
    y = torch.from_numpy(labels.copy())
    return tuple(  # type: ignore[return-value]
        TensorDataset(x[idx], y[idx]) for idx in digits_split_indices(seed, val_fraction, test_fraction)
    )


def digits_images() -> tuple[list[Image.Image], np.ndarray]:
    """The 1,797 digits as 8×8 grayscale PIL images (mode ``"L"``, uint8 0–255, the raw
    0–16 scaled by 255/16), and their labels as an int64 NumPy array.

    Taught in the Datasets chapter (``book/datasets.ipynb``): the input of a custom Dataset
    and of torchvision's transforms.
    """
    from PIL import Image

    images, labels = _digits()
    pixels = np.rint(images * (255.0 / 16.0)).astype(np.uint8)
    return [Image.fromarray(p, mode="L") for p in pixels], labels.copy()


# --------------------------------------------------------------------------- regression
def synthetic_regression(n: int = 1000, seed: int = 0, noise: float = 0.1) -> tuple[torch.Tensor, torch.Tensor]:
    """Linear-regression data: ``X`` of shape ``(n, 3)`` drawn from a standard normal and
    ``y = X @ W_TRUE + BIAS_TRUE + noise * N(0, 1)`` of shape ``(n,)`` (note: 1-D; a model's
    ``(n, 1)`` output must be squeezed before it meets ``y``). Float32, same data for the
    same seed.

    Taught in the Training chapter (``book/training.ipynb``).
    """
    n = _check_int("n", n, 1)
    seed = _check_int("seed", seed, 0)
    noise = check_number("noise", noise, minimum=0)
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, generator=gen)
    y = x @ torch.tensor(W_TRUE) + BIAS_TRUE + float(noise) * torch.randn(n, generator=gen)
    return x, y


# --------------------------------------------------------------------------- worker helpers
def seed_worker(worker_id: int) -> None:
    """A DataLoader ``worker_init_fn``: seed Python's ``random`` and NumPy's global generator
    from the seed PyTorch gave this worker (``torch.initial_seed()``, different per worker
    and per epoch, and reproducible when the loader has a ``generator``).

    PyTorch >= 1.9 already does this for NumPy's global seed; the function is the documented
    recipe and is harmless. It does not reach a ``np.random.default_rng`` stored on the
    dataset: ``reseed_dataset_rng`` does. Taught in the Datasets chapter (``book/datasets.ipynb``).
    """
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def reseed_dataset_rng(worker_id: int) -> None:
    """A DataLoader ``worker_init_fn`` for datasets that hold their own generator in
    ``self.rng`` (such as ``NoisyDigits``): give this worker's copy of the dataset a fresh
    ``np.random.default_rng`` seeded from the worker's own seed (``get_worker_info().seed``).

    Without it, every worker starts from a copy of the same generator and draws the same
    "random" numbers. Taught in the Datasets chapter (``book/datasets.ipynb``).
    """
    info = get_worker_info()
    if info is None:
        raise RuntimeError("reseed_dataset_rng is a worker_init_fn: pass it to DataLoader(worker_init_fn=...).")
    if not hasattr(info.dataset, "rng"):
        raise AttributeError(
            f"reseed_dataset_rng expects the dataset to keep its generator in .rng; "
            f"{type(info.dataset).__name__} has none."
        )
    info.dataset.rng = np.random.default_rng(info.seed % 2**32)
    seed_worker(worker_id)


def pad_collate(batch: Sequence[tuple[torch.Tensor, Any]]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """A ``collate_fn`` for variable-length sequences: pad them to the longest one.

    Takes a list of ``(sequence, label)`` pairs, each sequence of shape ``(T_i, ...)``, and
    returns ``(padded, lengths, mask, labels)``: ``padded`` ``[B, T, ...]`` (batch first,
    zeros after each sequence ends), ``lengths`` ``[B]`` int64, ``mask`` ``[B, T]`` bool
    (True on real steps, False on padding) and ``labels`` stacked into a tensor.

    Taught in the Datasets chapter (``book/datasets.ipynb``).
    """
    if len(batch) == 0:
        raise ValueError("pad_collate got an empty batch; the DataLoader should never produce one.")
    for i, item in enumerate(batch):
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], torch.Tensor)):
            raise TypeError(
                f"pad_collate expects (sequence_tensor, label) pairs; item {i} is {type(item).__name__}. "
                "Make the Dataset's __getitem__ return (tensor of shape (T, ...), label)."
            )
        if item[0].dim() == 0:
            raise ValueError(f"pad_collate: sequence {i} is a 0-d tensor; a sequence needs a time dimension first.")
    sequences = [item[0] for item in batch]
    labels = [item[1] for item in batch]
    lengths = torch.tensor([len(s) for s in sequences], dtype=torch.int64)
    padded = pad_sequence(sequences, batch_first=True, padding_value=0.0)
    mask = torch.arange(padded.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
    if isinstance(labels[0], torch.Tensor):
        label_tensor = torch.stack(labels)
    else:
        label_tensor = torch.tensor(labels)
    return padded, lengths, mask, label_tensor


# --------------------------------------------------------------------------- Dataset classes
class DigitsImageDataset(Dataset):
    """The digits as ``(PIL image, label)`` pairs, optionally passed through ``transform``
    (e.g. a torchvision pipeline). ``indices`` selects a subset, e.g. the training indices
    of ``digits_split_indices``.

    Taught in the Datasets chapter (``book/datasets.ipynb``): the first custom Dataset.
    """

    def __init__(self, transform: Callable | None = None, indices: Sequence[int] | None = None) -> None:
        if transform is not None and not callable(transform):
            raise TypeError(f"transform must be callable (e.g. transforms.ToTensor()), got {type(transform).__name__}.")
        self.images, self.labels = digits_images()
        self.indices = np.arange(len(self.images)) if indices is None else np.asarray(indices, dtype=np.int64)
        if self.indices.ndim != 1 or (len(self.indices) and not (0 <= self.indices.min() and self.indices.max() < len(self.images))):
            raise IndexError(f"indices must be a 1-D list of positions between 0 and {len(self.images) - 1}.")
        self.transform = transform

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, index: int) -> tuple[Any, int]:
        j = int(self.indices[index])
        image = self.images[j]
        if self.transform is not None:
            image = self.transform(image)
        return image, int(self.labels[j])


class SampleError(RuntimeError):
    """A sample could not be loaded; the message names the index and the file.

    Raised by ``FileImageDataset``. Taught in the Datasets chapter (``book/datasets.ipynb``).
    """


class FileImageDataset(Dataset):
    """Images stored as files in ``root`` plus a CSV label table (columns ``filename``,
    ``label``): the classic layout of a downloaded image dataset.

    Opening a file that is missing or not a readable image raises ``SampleError`` naming
    the index and the path, so one bad file among thousands is easy to find.

    Taught in the Datasets chapter (``book/datasets.ipynb``).
    """

    def __init__(self, root: str | Path, csv_file: str | Path = "labels.csv", transform: Callable | None = None) -> None:
        self.root = Path(root)
        table = self.root / csv_file
        if not table.is_file():
            raise FileNotFoundError(f"No label table at {table}; expected a CSV with columns filename,label.")
        with open(table, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames is None or not {"filename", "label"} <= set(reader.fieldnames):
                raise ValueError(f"{table} must have the columns filename,label; it has {reader.fieldnames}.")
            rows = [(row["filename"], int(row["label"])) for row in reader]
        self.files = [name for name, _ in rows]
        self.labels = [label for _, label in rows]
        self.transform = transform

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, index: int) -> tuple[Any, int]:
        from PIL import Image

        path = self.root / self.files[index]
        try:
            with Image.open(path) as img:
                image = img.convert("L")  # forces the pixels to be decoded now
        except Exception as err:  # noqa: BLE001 - any failure is reported with its file
            raise SampleError(f"sample {index}: cannot read image file {path} ({type(err).__name__}: {err})") from err
        if self.transform is not None:
            image = self.transform(image)
        return image, self.labels[index]


class SlowDataset(Dataset):
    """``n`` small tensors whose ``__getitem__`` sleeps ``delay`` seconds first, like a
    dataset that decodes images from disk. Sample ``i`` is ``(a (1, 8, 8) tensor filled
    with i, i % 10)``, so the order of a batch is easy to read.

    Taught in the Datasets chapter (``book/datasets.ipynb``): measuring what
    ``num_workers`` buys.
    """

    def __init__(self, n: int = 256, delay: float = 0.002) -> None:
        self.n = _check_int("n", n, 1)
        self.delay = check_number("delay", delay, minimum=0, maximum=1, unit="seconds")

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        if not 0 <= index < self.n:
            raise IndexError(f"index {index} out of range for SlowDataset of length {self.n}")
        if self.delay:
            time.sleep(self.delay)
        return torch.full((1, 8, 8), float(index)), index % 10


class NoisyDigits(Dataset):
    """The digits (as ``(1, 8, 8)`` float tensors, 0–1) with random Gaussian noise added on
    every access, drawn from a generator the dataset holds: ``self.rng =
    np.random.default_rng(seed)``.

    This is the identical-augmentation trap: each DataLoader worker gets a copy of the
    dataset *and of its generator*, so every worker draws the same noise. Fix: pass
    ``worker_init_fn=reseed_dataset_rng``. Taught in the Datasets chapter
    (``book/datasets.ipynb``) and its lab.
    """

    def __init__(self, noise: float = 0.1, seed: int = 0, n: int | None = None) -> None:
        noise = check_number("noise", noise, minimum=0)
        images, labels = _digits()
        count = len(labels) if n is None else min(_check_int("n", n, 1), len(labels))
        self.clean = torch.from_numpy(images[:count] / 16.0).float().unsqueeze(1)
        self.labels = torch.from_numpy(labels[:count].copy())
        self.noise = float(noise)
        self.rng = np.random.default_rng(_check_int("seed", seed, 0))

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        draw = self.rng.standard_normal(self.clean.shape[1:]).astype(np.float32)
        return self.clean[index] + self.noise * torch.from_numpy(draw), self.labels[index]


class WorkerProbe(Dataset):
    """``n`` samples that say who loaded them: sample ``i`` is the tensor
    ``[i, worker id, process id, a draw from NumPy's global generator]`` (worker id -1 in
    the main process). Shows which worker produced which batch, when ``persistent_workers``
    keeps processes alive, and that each worker's global NumPy seed differs (PyTorch >= 1.9).

    Taught in the Datasets chapter (``book/datasets.ipynb``).
    """

    def __init__(self, n: int = 16) -> None:
        self.n = _check_int("n", n, 1)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> torch.Tensor:
        info = get_worker_info()
        worker = -1 if info is None else info.id
        return torch.tensor([index, worker, os.getpid(), np.random.random()], dtype=torch.float64)


class RandomContrast:
    """An augmentation for image tensors: multiplies the image by a random contrast factor
    between ``1 - strength`` and ``1 + strength``, drawn from a generator the object holds:
    ``self.rng = random.Random(seed)`` (Python's ``random.Random``, not the ``random``
    module's global generator), so that one seed repeats a run.

    Taught in the Datasets lab (``labs/lab-datasets.ipynb``): each DataLoader worker gets a
    copy of the augmentation and of its generator.
    """

    def __init__(self, strength: float = 0.5, seed: int = 0) -> None:
        self.strength = check_number("strength", strength, minimum=0, maximum=1)
        self.rng = random.Random(_check_int("seed", seed, 0))

    def __call__(self, image: torch.Tensor) -> torch.Tensor:
        factor = self.rng.uniform(1.0 - self.strength, 1.0 + self.strength)
        return image * factor

    def __repr__(self) -> str:
        return f"RandomContrast(strength={self.strength})"


class AugmentedDigits(Dataset):
    """The first ``n`` digits as ``(1, 8, 8)`` float tensors (0–1) and their labels, each
    image passed through ``transform`` (e.g. ``RandomContrast``) on every access. The
    images before the transform are in ``self.clean``.

    Taught in the Datasets lab (``labs/lab-datasets.ipynb``).
    """

    def __init__(self, transform: Callable[[torch.Tensor], torch.Tensor] | None = None, n: int | None = None) -> None:
        images, labels = _digits()
        count = len(labels) if n is None else min(_check_int("n", n, 1), len(labels))
        self.clean = torch.from_numpy(images[:count] / 16.0).float().unsqueeze(1)
        self.labels = torch.from_numpy(labels[:count].copy())
        self.transform = transform

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        image = self.clean[index]
        if self.transform is not None:
            image = self.transform(image)
        return image, self.labels[index]


class RaggedSequences(Dataset):
    """``n`` sequences of different lengths (``min_len`` to ``max_len`` steps, ``dim``
    features per step, float32) with a label: 1 if the sum of the first feature is positive.
    The same data for the same seed.

    Taught in the Datasets chapter (``book/datasets.ipynb``): the default collate cannot
    stack them; ``pad_collate`` can.
    """

    def __init__(self, n: int = 64, seed: int = 0, min_len: int = 2, max_len: int = 12, dim: int = 2) -> None:
        n = _check_int("n", n, 1)
        min_len = _check_int("min_len", min_len, 1)
        max_len = _check_int("max_len", max_len, 1)
        dim = _check_int("dim", dim, 1)
        if min_len > max_len:
            raise ValueError(f"min_len ({min_len}) must not exceed max_len ({max_len}).")
        gen = torch.Generator().manual_seed(_check_int("seed", seed, 0))
        lengths = torch.randint(min_len, max_len + 1, (n,), generator=gen)
        self.sequences = [torch.randn(int(t), dim, generator=gen) for t in lengths]
        self.labels = [int(s[:, 0].sum() > 0) for s in self.sequences]

    def __len__(self) -> int:
        return len(self.sequences)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        return self.sequences[index], self.labels[index]
