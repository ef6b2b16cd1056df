"""ice_lab.data: the book's datasets, worker helpers and collate functions."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image
from torch.utils.data import DataLoader, TensorDataset

from ice_lab.data import (
    BIAS_TRUE,
    W_TRUE,
    DigitsImageDataset,
    FileImageDataset,
    NoisyDigits,
    RaggedSequences,
    SampleError,
    SlowDataset,
    WorkerProbe,
    digits_datasets,
    digits_images,
    digits_split_indices,
    pad_collate,
    reseed_dataset_rng,
    seed_worker,
    synthetic_regression,
)


def test_digits_datasets_shapes_dtypes_and_range():
    train, val, test = digits_datasets()
    assert all(isinstance(d, TensorDataset) for d in (train, val, test))
    assert len(train) + len(val) + len(test) == 1797
    x, y = train.tensors
    assert x.dtype == torch.float32 and x.shape[1:] == (1, 8, 8)
    assert y.dtype == torch.int64
    assert float(x.min()) == 0.0 and float(x.max()) == 1.0
    assert abs(len(test) - 0.15 * 1797) <= 1 and abs(len(val) - 0.15 * 1797) <= 2


def test_digits_split_is_disjoint_stratified_and_deterministic():
    a = digits_split_indices(seed=0)
    b = digits_split_indices(seed=0)
    c = digits_split_indices(seed=1)
    for u, v in zip(a, b):
        assert np.array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    assert len(np.unique(np.concatenate(a))) == 1797
    labels = digits_images()[1]
    for idx in a:
        counts = np.bincount(labels[idx], minlength=10) / len(idx)
        assert np.allclose(counts, 0.1, atol=0.02)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"val_fraction": 0}, ValueError),
        ({"test_fraction": 1.5}, ValueError),
        ({"val_fraction": 0.5, "test_fraction": 0.45}, ValueError),
        ({"val_fraction": "0.1"}, TypeError),
        ({"seed": -1}, ValueError),
        ({"seed": 1.5}, TypeError),
    ],
)
def test_digits_datasets_bad_arguments(kwargs, error):
    with pytest.raises(error):
        digits_datasets(**kwargs)


def test_digits_images_are_8x8_grayscale_uint8():
    images, labels = digits_images()
    assert len(images) == 1797 and labels.shape == (1797,) and labels.dtype == np.int64
    img = images[0]
    assert isinstance(img, Image.Image) and img.mode == "L" and img.size == (8, 8)
    pixels = np.stack([np.asarray(i) for i in images])
    assert pixels.dtype == np.uint8 and pixels.max() == 255 and pixels.min() == 0
    # same pixels as the tensor version, up to rounding
    x = torch.cat([d.tensors[0] for d in digits_datasets()])
    assert abs(pixels.mean() / 255 - float(x.mean())) < 1e-3


def test_synthetic_regression_recovers_w_true():
    x, y = synthetic_regression(n=2000, seed=0)
    assert x.shape == (2000, 3) and y.shape == (2000,) and x.dtype == y.dtype == torch.float32
    design = torch.cat([x, torch.ones(len(x), 1)], dim=1)
    solution = torch.linalg.lstsq(design, y.unsqueeze(1)).solution.squeeze(1)
    assert torch.allclose(solution[:3], torch.tensor(W_TRUE), atol=0.02)
    assert abs(float(solution[3]) - BIAS_TRUE) < 0.02
    residual = y - design @ solution
    assert abs(float(residual.std()) - 0.1) < 0.01
    assert torch.equal(synthetic_regression(10, seed=3)[1], synthetic_regression(10, seed=3)[1])
    x0, y0 = synthetic_regression(5, noise=0)
    assert torch.allclose(y0, x0 @ torch.tensor(W_TRUE) + BIAS_TRUE)


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"noise": -0.1}, {"seed": -3}, {"n": 2.5}])
def test_synthetic_regression_bad_arguments(kwargs):
    with pytest.raises((ValueError, TypeError)):
        synthetic_regression(**kwargs)


def test_pad_collate_pads_and_masks():
    batch = [(torch.ones(3, 2), 1), (torch.ones(1, 2) * 2, 0), (torch.ones(2, 2) * 3, 1)]
    padded, lengths, mask, labels = pad_collate(batch)
    assert padded.shape == (3, 3, 2)
    assert lengths.tolist() == [3, 1, 2]
    assert mask.dtype == torch.bool and mask.tolist() == [[True] * 3, [True, False, False], [True, True, False]]
    assert labels.tolist() == [1, 0, 1] and labels.dtype == torch.int64
    assert float(padded[1, 1:].abs().sum()) == 0.0
    assert torch.equal(padded[mask].sum(0), torch.tensor([3 + 2 + 6.0, 3 + 2 + 6.0]))


def test_pad_collate_bad_input():
    with pytest.raises(ValueError):
        pad_collate([])
    with pytest.raises(TypeError):
        pad_collate([[1, 2, 3]])
    with pytest.raises(ValueError):
        pad_collate([(torch.tensor(1.0), 0)])


def test_ragged_sequences_with_default_collate_fails_and_pad_collate_works():
    ds = RaggedSequences(n=16, seed=0)
    assert len({len(ds[i][0]) for i in range(len(ds))}) > 1
    with pytest.raises(RuntimeError, match="equal size|same size"):
        next(iter(DataLoader(ds, batch_size=8)))
    padded, lengths, mask, labels = next(iter(DataLoader(ds, batch_size=8, collate_fn=pad_collate)))
    assert padded.shape[0] == 8 and padded.shape[1] == int(lengths.max()) and padded.shape[2] == 2
    assert torch.equal(mask.sum(1), lengths)
    assert torch.equal(RaggedSequences(n=4, seed=1)[2][0], RaggedSequences(n=4, seed=1)[2][0])
    with pytest.raises(ValueError):
        RaggedSequences(min_len=5, max_len=2)


def test_digits_image_dataset_with_transform_and_indices():
    ds = DigitsImageDataset()
    img, label = ds[0]
    assert isinstance(img, Image.Image) and label == 0
    sub = DigitsImageDataset(transform=lambda im: np.asarray(im), indices=[5, 7])
    assert len(sub) == 2 and sub[1][1] == 7 and sub[1][0].shape == (8, 8)
    with pytest.raises(TypeError):
        DigitsImageDataset(transform="ToTensor")
    with pytest.raises(IndexError):
        DigitsImageDataset(indices=[5000])


def test_file_image_dataset_reports_the_corrupt_file(tmp_path):
    images, labels = digits_images()
    rows = ["filename,label"]
    for i in range(3):
        images[i].save(tmp_path / f"img{i}.png")
        rows.append(f"img{i}.png,{labels[i]}")
    (tmp_path / "img1.png").write_bytes(b"not a png")
    (tmp_path / "labels.csv").write_text("\n".join(rows) + "\n")
    ds = FileImageDataset(tmp_path)
    assert len(ds) == 3
    img, label = ds[0]
    assert np.array_equal(np.asarray(img), np.asarray(images[0])) and label == labels[0]
    with pytest.raises(SampleError, match=r"sample 1: .*img1\.png"):
        ds[1]
    with pytest.raises(FileNotFoundError):
        FileImageDataset(tmp_path, csv_file="missing.csv")
    (tmp_path / "bad.csv").write_text("name,y\n")
    with pytest.raises(ValueError, match="filename,label"):
        FileImageDataset(tmp_path, csv_file="bad.csv")


def test_slow_dataset_is_slow_and_readable():
    ds = SlowDataset(n=4, delay=0)
    x, y = ds[3]
    assert x.shape == (1, 8, 8) and float(x[0, 0, 0]) == 3.0 and y == 3
    with pytest.raises(IndexError):
        ds[4]
    with pytest.raises(ValueError):
        SlowDataset(delay=5)


@pytest.mark.kernel
def test_noisy_digits_workers_repeat_noise_unless_reseeded():
    ds = NoisyDigits(n=8, seed=0)
    # Two workers, batch_size=1: sample 0 comes from worker 0, sample 1 from worker 1.
    xs = [x for x, _ in DataLoader(ds, batch_size=1, num_workers=2)][:2]
    noise = [(x[0] - ds.clean[i]) for i, x in enumerate(xs)]
    assert torch.allclose(noise[0], noise[1]), "both workers should draw the same noise"
    gen = torch.Generator().manual_seed(0)
    xs = [x for x, _ in DataLoader(ds, batch_size=1, num_workers=2, worker_init_fn=reseed_dataset_rng, generator=gen)][:2]
    noise = [(x[0] - ds.clean[i]) for i, x in enumerate(xs)]
    assert not torch.allclose(noise[0], noise[1])
    with pytest.raises(RuntimeError, match="worker_init_fn"):
        reseed_dataset_rng(0)


def test_seed_worker_seeds_numpy_and_random_from_torch():
    torch.manual_seed(1234)
    seed_worker(0)
    a = np.random.rand()
    torch.manual_seed(1234)
    seed_worker(0)
    assert np.random.rand() == a


@pytest.mark.kernel
def test_worker_probe_reports_worker_and_process():
    main = WorkerProbe(4)[2]
    assert main[0] == 2 and main[1] == -1
    rows = torch.cat(list(DataLoader(WorkerProbe(8), batch_size=2, num_workers=2)))
    assert rows[:, 0].tolist() == list(range(8))
    assert set(rows[:, 1].tolist()) == {0.0, 1.0}
    assert len(set(rows[:, 2].tolist())) == 2
    with pytest.raises(ValueError):
        WorkerProbe(0)
