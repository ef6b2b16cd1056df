"""Right and wrong answers to the exercises of labs/lab-datasets.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-datasets.ipynb"
DATASETS = LAB

_COLLATE = """
sequences, targets = zip(*batch)
lengths = torch.tensor([len(s) for s in sequences])
padded = {padded}
mask = {mask}
return padded, mask, {targets}
"""


def collate_answer(padded: str = "pad_sequence(sequences, batch_first=True)",
                   mask: str = "torch.arange(padded.shape[1])[None, :] < lengths[:, None]",
                   targets: str = "torch.tensor(targets, dtype=torch.int64)") -> str:
    return _COLLATE.format(padded=padded, mask=mask, targets=targets)


EXERCISES: list[Exercise] = [
    # ================================================================== lab-datasets
    Exercise(DATASETS, "collate_fix", right=(
        R("mask padded from ones", collate_answer(mask=(
            "pad_sequence([torch.ones(len(s), dtype=torch.bool) for s in sequences], "
            "batch_first=True)"))),
        R("a loop filling zeros", """
sequences, targets = zip(*batch)
longest = max(len(s) for s in sequences)
padded = torch.zeros(len(sequences), longest, sequences[0].shape[1])
mask = torch.zeros(len(sequences), longest, dtype=torch.bool)
for i, s in enumerate(sequences):
    padded[i, :len(s)] = s
    mask[i, :len(s)] = True
return padded, mask, torch.tensor(targets)
"""),
        R("mask from lengths with .gt", collate_answer(
            mask="lengths[:, None].gt(torch.arange(padded.shape[1]))",
            targets="torch.as_tensor(targets)")),
    ), wrong=(
        W("time-first padding", collate_answer(
            padded="pad_sequence(sequences)",
            mask="torch.arange(padded.shape[0])[:, None] < lengths[None, :]"),
          "not time first"),
        W("a float mask", collate_answer(
            mask="(torch.arange(padded.shape[1])[None, :] < lengths[:, None]).float()"),
          "mask must be a bool tensor [batch, time]"),
        W("the mask built along the wrong axis", collate_answer(
            mask="torch.arange(padded.shape[0])[None, :] < lengths[:, None]"),
          "mask must be a bool tensor [batch, time]"),
        W("the mask built from the data", collate_answer(mask="padded.ne(0).any(-1)"),
          "never from the data (padded != 0)", hides=True),
        W("an all-True mask", collate_answer(mask="torch.ones(padded.shape[:2], dtype=torch.bool)"),
          "as many True entries as its sequence has steps", hides=True),
        W("truncated to the shortest", collate_answer(
            padded="torch.stack([s[:min(lengths)] for s in sequences])",
            mask="torch.ones(padded.shape[:2], dtype=torch.bool)"),
          "not truncated to the shortest", hides=True),
        W("torch.stack of sequences of different lengths", collate_answer(
            padded="torch.stack(sequences)"), "The sequences have different lengths"),
        W("padded with -1", collate_answer(
            padded="pad_sequence(sequences, batch_first=True, padding_value=-1.0)"),
          "pad with zeros"),
        W("float targets", collate_answer(targets="torch.tensor(targets, dtype=torch.float32)"),
          "the labels as an int64 tensor"),
    )),
    Exercise(DATASETS, "worker_fix", right=(
        R("the worker's seed without the modulo",
          "get_worker_info().dataset.rng = np.random.default_rng(get_worker_info().seed)"),
        R("torch.initial_seed() in the worker",
          "get_worker_info().dataset.rng = np.random.default_rng(torch.initial_seed() % 2**32)"),
        R("ice_lab.data.reseed_dataset_rng",
          "from ice_lab.data import reseed_dataset_rng\nreseed_dataset_rng(worker_id)"),
    ), wrong=(
        W("seed_worker: reseeding NumPy's global generator",
          "np.random.seed(get_worker_info().seed % 2**32)",
          "workers 0 and 1 still draw identical noise"),
        W("torch.manual_seed(worker_id)", "torch.manual_seed(worker_id)",
          "workers 0 and 1 still draw identical noise"),
        W("a generator seeded from worker_id alone",
          "get_worker_info().dataset.rng = np.random.default_rng(worker_id)",
          "the noise ignores the loader's generator", hides=True),
        W("a generator without a seed",
          "get_worker_info().dataset.rng = np.random.default_rng()",
          "the noise is not repeatable", hides=True),
        W("the noise switched off", "get_worker_info().dataset.noise = 0.0",
          "there is no noise left", hides=True),
    )),
    Exercise(DATASETS, "stats_fix", right=(
        R("float() of mean and std", "x = dataset.tensors[0]\nreturn float(x.mean()), float(x.std())"),
        R("torch.std_mean",
          "std, mean = torch.std_mean(dataset.tensors[0])\nreturn mean.item(), std.item()"),
        R("population std (correction=0)",
          "x = dataset.tensors[0]\nreturn x.mean().item(), x.std(correction=0).item()"),
    ), wrong=(
        W("ImageNet's statistics pasted", "return 0.485, 0.229", "0.485 is ImageNet's mean",
          hides=True),
        W("the validation set's statistics",
          "pixels = val_t.tensors[0]\nreturn pixels.mean().item(), pixels.std().item()",
          "these are the validation set's statistics"),
        W("0-255 units", "x = dataset.tensors[0] * 255\nreturn x.mean().item(), x.std().item()",
          "look like 0-255 statistics"),
        W("one image", "x = dataset.tensors[0][0]\nreturn x.mean().item(), x.std().item()",
          "not one image"),
        W("the mean of per-image stds",
          "x = dataset.tensors[0]\nreturn x.mean().item(), x.std(dim=(1, 2, 3)).mean().item()",
          "not the mean of per-image stds"),
        W("fixed numbers (the training set's, pasted)",
          "return 0.3055, 0.3763", "compute the mean over every pixel"),
    )),
]
