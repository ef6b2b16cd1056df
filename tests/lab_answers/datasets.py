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


_LOOP_FILL = """
sequences, targets = zip(*batch)
longest = {longest}
padded = torch.zeros(len(sequences), longest, {features})
mask = torch.zeros(len(sequences), longest, dtype=torch.bool)
for i, s in enumerate(sequences):
    padded[i, :len(s)] = s
    mask[i, :len(s)] = True
return padded, mask, torch.tensor(targets)
"""


def loop_fill(longest: str = "max(len(s) for s in sequences)",
              features: str = "sequences[0].shape[1]") -> str:
    return _LOOP_FILL.format(longest=longest, features=features)


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
        R("a mask from a stack of aranges, LongTensor targets", """
sequences, targets = zip(*batch)
padded = pad_sequence(list(sequences), batch_first=True, padding_value=0.0)
mask = torch.stack([torch.arange(padded.shape[1]) < len(s) for s in sequences])
return padded, mask, torch.LongTensor(targets)
"""),
        R("F.pad each sequence to the longest, then stack", """
sequences, targets = zip(*batch)
longest = max(s.shape[0] for s in sequences)
padded = torch.stack([F.pad(s, (0, 0, 0, longest - s.shape[0])) for s in sequences])
lengths = torch.tensor([s.shape[0] for s in sequences])
mask = lengths.unsqueeze(1) > torch.arange(longest).unsqueeze(0)
return padded, mask, torch.tensor(targets)
"""),
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
        # fitted to the check's example: its 2 features, its longest sequence (12 steps)
        W("the number of features hard-coded (2)", loop_fill(features="2"),
          "Take every size from the batch"),
        W("every batch padded to 12 steps, the longest in the data set", loop_fill(longest="12"),
          "pad them to the longest of the batch"),
        # a mask read from a sentinel written into the padding
        W("NaN padding, the mask from isnan", collate_answer(
            padded="pad_sequence(sequences, batch_first=True, padding_value=float('nan'))",
            mask="~padded.isnan().any(-1)").replace(
                "return padded", "padded = padded.nan_to_num(0.0)\nreturn padded"),
          "a mask read from a sentinel", hides=True),
        W("-1 padding, the mask from != -1", collate_answer(
            padded="pad_sequence(sequences, batch_first=True, padding_value=-1.0)",
            mask="(padded != -1).any(-1)").replace("return padded", "padded[~mask] = 0.0\nreturn padded"),
          "a mask read from a sentinel", hides=True),
    )),
    Exercise(DATASETS, "worker_fix", right=(
        R("the worker's seed without the modulo",
          "get_worker_info().dataset.rng = np.random.default_rng(get_worker_info().seed)"),
        R("torch.initial_seed() in the worker",
          "get_worker_info().dataset.rng = np.random.default_rng(torch.initial_seed() % 2**32)"),
        R("ice_lab.data.reseed_dataset_rng",
          "from ice_lab.data import reseed_dataset_rng\nreseed_dataset_rng(worker_id)"),
        R("from NumPy's global generator, which PyTorch seeds in each worker",
          "get_worker_info().dataset.rng = np.random.default_rng(np.random.randint(2**31))"),
        R("a seed sequence from the worker id and torch.initial_seed()",
          "get_worker_info().dataset.rng = np.random.default_rng([worker_id, torch.initial_seed()])"),
        R("Python's random, which PyTorch seeds in each worker",
          "import random\n"
          "get_worker_info().dataset.rng = np.random.default_rng(random.getrandbits(64))"),
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
        W("worker 0 keeps the generator it copied",
          "if worker_id > 0:\n    info = get_worker_info()\n"
          "    info.dataset.rng = np.random.default_rng(info.seed % 2**32)",
          "worker 0 still draws the noise of the generator it copied"),
        W("seeded from the process id",
          "import os\nget_worker_info().dataset.rng = np.random.default_rng(os.getpid())",
          "not from something that changes from run to run"),
        W("seeded from the time (the same second in every worker)",
          "import time\nget_worker_info().dataset.rng = np.random.default_rng(int(time.time()))",
          "the time"),
        W("the same constant seed in every worker",
          "get_worker_info().dataset.rng = np.random.default_rng(1234)",
          "each got a new generator, but with the same seed"),
        W("jumped ahead from the copied generator by the worker id",
          "info = get_worker_info()\ninfo.dataset.rng = np.random.default_rng("
          "info.dataset.rng.bit_generator.jumped(worker_id + 1))",
          "not from worker_id or the dataset's own generator alone"),
    )),
    Exercise(DATASETS, "stats_fix", right=(
        R("float() of mean and std", "x = dataset.tensors[0]\nreturn float(x.mean()), float(x.std())"),
        R("torch.std_mean",
          "std, mean = torch.std_mean(dataset.tensors[0])\nreturn mean.item(), std.item()"),
        R("population std (correction=0)",
          "x = dataset.tensors[0]\nreturn x.mean().item(), x.std(correction=0).item()"),
        R("torch.cat of every image", "x = torch.cat([img for img, _ in dataset])\n"
          "return x.mean().item(), x.std().item()"),
        R("NumPy, ddof=1", "a = dataset.tensors[0].numpy()\nreturn float(a.mean()), float(a.std(ddof=1))"),
        R("in float64", "x = dataset.tensors[0].double()\nreturn x.mean().item(), x.std().item()"),
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
          "not the mean of per-image or per-batch stds"),
        W("fixed numbers (the training set's, pasted)",
          "return 0.3055, 0.3763", "compute the mean over every pixel"),
        W("0-d tensors, no .item()", "x = dataset.tensors[0]\nreturn x.mean(), x.std()",
          "return Python floats"),
        W("divided by 255 whenever a pixel is above 1 (the units guessed)",
          "x = dataset.tensors[0].float()\nif x.max() > 1:\n    x = x / 255\n"
          "return x.mean().item(), x.std().item()", "pixel_stats rescaled the pixels", hides=True),
        W("the first 1,000 images", "x = dataset.tensors[0][:1000]\n"
          "return x.mean().item(), x.std().item()", "not a subset"),
        W("train_t instead of the dataset given", "x = train_t.tensors[0]\n"
          "return x.mean().item(), x.std().item()", "not from train_t"),
        W("64 pixels per image hard-coded", "x = dataset.tensors[0].view(len(dataset), 64)\n"
          "return x.mean().item(), x.std().item()", "whatever the shape"),
        W("the mean of batch means and of batch stds", """
means, stds = [], []
for xb, _ in DataLoader(dataset, batch_size=256):
    means.append(xb.mean().item())
    stds.append(xb.std().item())
return sum(means) / len(means), sum(stds) / len(stds)""", "not a mean of per-batch means"),
    )),
]
