"""Right and wrong answers to the exercises of labs/lab-datasets.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-datasets.ipynb"
DATASETS = LAB

# ---------------------------------------------------------------- exercise 1: collate
_COLLATE = """
signals = [item["signal"] for item in batch]
lengths = torch.tensor([s.shape[-1] for s in signals])
padded = {padded}
mask = {mask}
return {{"signal": padded, "mask": mask, "label": {labels}}}
"""

_LOOP_FILL = """
signals = [item["signal"] for item in batch]
longest = {longest}
padded = torch.zeros(len(signals), {channels}, longest)
mask = torch.zeros(len(signals), longest, dtype=torch.bool)
for i, s in enumerate(signals):
    padded[i, :, :s.shape[-1]] = s
    mask[i, :s.shape[-1]] = True
return {{"signal": padded, "mask": mask,
        "label": torch.tensor([item["label"] for item in batch])}}
"""

#: pad_sequence on the recordings turned time first, then turned back: channels first.
TIME_PADDED = "pad_sequence([s.T for s in signals], batch_first=True).transpose(1, 2)"


def loop_fill(longest: str = "max(s.shape[-1] for s in signals)",
              channels: str = "signals[0].shape[0]") -> str:
    return _LOOP_FILL.format(longest=longest, channels=channels)


def collate_answer(padded: str = TIME_PADDED,
                   mask: str = "torch.arange(padded.shape[2])[None, :] < lengths[:, None]",
                   labels: str = "torch.tensor([item['label'] for item in batch], "
                                 "dtype=torch.int64)") -> str:
    return _COLLATE.format(padded=padded, mask=mask, labels=labels)


# ---------------------------------------------------------------- exercise 2: workers
#: The body of worker_init_fn, in augment_workers.py (random, np, torch and
#: get_worker_info are imported there).
AUGMENT = "get_worker_info().dataset.transform"


def new_rng(seed: str) -> str:
    return f"{AUGMENT}.rng = random.Random({seed})"


# ---------------------------------------------------------------- exercise 3: statistics
def per_channel(x: str = "dataset.tensors[0]", mean: str = "x.mean(dim=(0, 2, 3))",
                std: str = "x.std(dim=(0, 2, 3))") -> str:
    return f"x = {x}\nreturn {mean}.tolist(), {std}.tolist()"


# ---------------------------------------------------------------- exercise 4: the train set
_FIXED_CLASS = """
class Fixed(Dataset):
    def __init__(self, min_ink):
        images, labels = digits_arrays()
        train_idx, _, _ = digits_split_indices(seed=0)
        pixels = torch.tensor(images[train_idx] / 16.0, dtype=torch.float32).unsqueeze(1)
        keep = pixels.mean(dim=(1, 2, 3)) > {threshold}
        self.images, self.labels = pixels[keep], torch.from_numpy(labels[train_idx])[keep]
        self.mean, self.std = {stats}

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return {image}, self.labels[index]

return Fixed(min_ink)
"""


def fixed_class(threshold: str = "min_ink",
                stats: str = "self.images.mean(), self.images.std()",
                image: str = "(self.images[index] - self.mean) / self.std") -> str:
    return _FIXED_CLASS.format(threshold=threshold, stats=stats, image=image)


def kept_indices(threshold: str = "min_ink") -> str:
    return f"""
images, labels = digits_arrays()
train_idx, _, _ = digits_split_indices(seed=0)
kept = train_idx[images[train_idx].mean(axis=(1, 2)) / 16.0 > {threshold}]
data = CleanedDigits({threshold})
data.labels = torch.from_numpy(labels[kept])
return data
"""


EXERCISES: list[Exercise] = [
    # ================================================================== lab-datasets
    Exercise(DATASETS, "collate_fix", right=(
        R("pad_sequence on the recordings turned time first, turned back", collate_answer()),
        R("mask padded from ones", collate_answer(mask=(
            "pad_sequence([torch.ones(s.shape[-1], dtype=torch.bool) for s in signals], "
            "batch_first=True)"))),
        R("a loop filling zeros", loop_fill()),
        R("mask from lengths with .gt", collate_answer(
            mask="lengths[:, None].gt(torch.arange(padded.shape[2]))",
            labels="torch.as_tensor([item['label'] for item in batch])")),
        R("a mask from a stack of aranges, LongTensor labels", """
signals = [item["signal"] for item in batch]
padded = pad_sequence([s.T for s in signals], batch_first=True, padding_value=0.0).mT
mask = torch.stack([torch.arange(padded.shape[-1]) < s.shape[-1] for s in signals])
return {"signal": padded, "mask": mask,
        "label": torch.LongTensor([item["label"] for item in batch])}
"""),
        R("F.pad each recording to the longest, then stack, a mask from unsqueeze", """
signals = [item["signal"] for item in batch]
longest = max(s.shape[1] for s in signals)
padded = torch.stack([F.pad(s, (0, longest - s.shape[1])) for s in signals])
lengths = torch.tensor([s.shape[1] for s in signals])
mask = lengths.unsqueeze(1) > torch.arange(longest).unsqueeze(0)
return {"signal": padded, "mask": mask, "label": torch.tensor([b["label"] for b in batch])}
"""),
    ), wrong=(
        W("padded time first, not turned back (channels last)", collate_answer(
            padded="pad_sequence([s.T for s in signals], batch_first=True)",
            mask="torch.arange(padded.shape[1])[None, :] < lengths[:, None]"),
          "time comes before channels"),
        W("a float mask", collate_answer(
            mask="(torch.arange(padded.shape[2])[None, :] < lengths[:, None]).float()"),
          "mask must be a bool tensor [batch, time]"),
        W("the mask built along the channel axis", collate_answer(
            mask="torch.arange(padded.shape[1])[None, :] < lengths[:, None]"),
          "mask must be a bool tensor [batch, time]"),
        W("the mask built from the data", collate_answer(mask="padded.ne(0).any(1)"),
          "never from the data (padded != 0)", hides=True),
        W("an all-True mask", collate_answer(
            mask="torch.ones(padded.shape[0], padded.shape[2], dtype=torch.bool)"),
          "as many True entries as its recording has steps", hides=True),
        W("truncated to the shortest", collate_answer(
            padded="torch.stack([s[:, :min(lengths)] for s in signals])",
            mask="torch.ones(padded.shape[0], padded.shape[2], dtype=torch.bool)"),
          "not truncated to the shortest", hides=True),
        W("torch.stack of recordings of different lengths", collate_answer(
            padded="torch.stack(signals)"), "The recordings have different lengths"),
        W("padded with -1", collate_answer(padded=TIME_PADDED.replace(
            "batch_first=True", "batch_first=True, padding_value=-1.0")),
          "pad with zeros"),
        W("float labels", collate_answer(
            labels="torch.tensor([item['label'] for item in batch], dtype=torch.float32)"),
          "the labels as an int64 tensor"),
        # fitted to the check's example: its 2 channels, its longest recording (12 steps)
        W("the number of channels hard-coded (2)", loop_fill(channels="2"),
          "Take every size from the batch"),
        W("every batch padded to 12 steps, the longest in the data set", loop_fill(longest="12"),
          "to the longest of the batch"),
        # a mask read from a sentinel written into the padding
        W("NaN padding, the mask from isnan", collate_answer(
            padded=TIME_PADDED.replace("batch_first=True",
                                       "batch_first=True, padding_value=float('nan')"),
            mask="~padded.isnan().any(1)").replace(
                "return {", "padded = padded.nan_to_num(0.0)\nreturn {"),
          "a mask read from a sentinel", hides=True),
        W("-1 padding, the mask from != -1", collate_answer(
            padded=TIME_PADDED.replace("batch_first=True",
                                       "batch_first=True, padding_value=-1.0"),
            mask="(padded != -1).any(1)").replace(
                "return {", "padded = padded.masked_fill(~mask[:, None, :], 0.0)\nreturn {"),
          "a mask read from a sentinel", hides=True),
    )),
    Exercise(DATASETS, "worker_fix", right=(
        R("the augmentation's generator reseeded in place",
          f"{AUGMENT}.rng.seed(get_worker_info().seed)"),
        R("the worker's seed modulo 2**32, as NumPy would need",
          new_rng("get_worker_info().seed % 2**32")),
        R("torch.initial_seed() in the worker", new_rng("torch.initial_seed()")),
        R("from NumPy's global generator, which PyTorch seeds in each worker",
          new_rng("np.random.randint(2**31)")),
        R("a string seed from the worker id and torch.initial_seed()",
          new_rng('f"{worker_id}-{torch.initial_seed()}"')),
        R("from Python's random module, which PyTorch seeds in each worker",
          new_rng("random.getrandbits(64)")),
        R("a new RandomContrast of the same strength, seeded by the worker",
          "info = get_worker_info()\nold = info.dataset.transform\n"
          "info.dataset.transform = type(old)(old.strength, seed=info.seed % 2**32)"),
    ), wrong=(
        W("seed_worker: reseeding NumPy's global generator",
          "np.random.seed(get_worker_info().seed % 2**32)",
          "the augmentation's generator was not replaced"),
        W("reseeding the random module's global generator",
          "random.seed(get_worker_info().seed)",
          "the augmentation's generator was not replaced"),
        W("torch.manual_seed(worker_id)", "torch.manual_seed(worker_id)",
          "workers 0 and 1 still draw identical factors"),
        W("the chapter's reseed_dataset_rng",
          "from ice_lab.data import reseed_dataset_rng\nreseed_dataset_rng(worker_id)",
          "the generator to replace is the one the augmentation draws from"),
        W("a generator set on the dataset, not in the augmentation",
          "get_worker_info().dataset.rng = random.Random(get_worker_info().seed)",
          "the augmentation's generator was not replaced"),
        W("a generator seeded from worker_id alone", new_rng("worker_id"),
          "the factors ignore the loader's generator", hides=True),
        W("a generator without a seed", new_rng(""),
          "the factors are not repeatable", hides=True),
        W("the augmentation switched off", "get_worker_info().dataset.transform = None",
          "there is no augmentation left", hides=True),
        W("the strength set to 0", f"{AUGMENT}.strength = 0.0",
          "there is no augmentation left", hides=True),
        W("worker 0 keeps the generator it copied",
          "if worker_id > 0:\n    info = get_worker_info()\n"
          "    info.dataset.transform.rng = random.Random(info.seed)",
          "worker 0 still draws the factors of the generator it copied"),
        W("seeded from the process id", "import os\n" + new_rng("os.getpid()"),
          "not from something that changes from run to run"),
        W("seeded from the time (the same second in every worker)",
          "import time\n" + new_rng("int(time.time())"), "the time"),
        W("the same constant seed in every worker", new_rng("1234"),
          "each got a new generator, but with the same seed"),
        W("offset from the copied generator by the worker id",
          f"augment = {AUGMENT}\n"
          "augment.rng = random.Random(int(augment.rng.random() * 2**32) + worker_id)",
          "not from worker_id or the augmentation's own generator alone"),
    )),
    Exercise(DATASETS, "stats_fix", right=(
        R("mean and std over the axes (0, 2, 3)", per_channel()),
        R("torch.std_mean per channel",
          "std, mean = torch.std_mean(dataset.tensors[0], dim=(0, 2, 3))\n"
          "return mean.tolist(), std.tolist()"),
        R("population std (correction=0)", per_channel(std="x.std(dim=(0, 2, 3), correction=0)")),
        R("a loop over the channels with float()",
          "x = dataset.tensors[0]\nchannels = range(x.shape[1])\n"
          "return ([float(x[:, c].mean()) for c in channels],\n"
          "        [float(x[:, c].std()) for c in channels])"),
        R("torch.cat of every image, channels first",
          "x = torch.cat([image.flatten(1) for image, _ in dataset], dim=1)\n"
          "return x.mean(dim=1).tolist(), x.std(dim=1).tolist()"),
        R("NumPy, ddof=1",
          "a = dataset.tensors[0].numpy()\n"
          "return ([float(v) for v in a.mean(axis=(0, 2, 3))],\n"
          "        [float(v) for v in a.std(axis=(0, 2, 3), ddof=1)])"),
        R("in float64", per_channel(x="dataset.tensors[0].double()")),
        R("tuples of floats", "x = dataset.tensors[0]\n"
          "return tuple(x.mean(dim=(0, 2, 3)).tolist()), tuple(x.std(dim=(0, 2, 3)).tolist())"),
    ), wrong=(
        W("ImageNet's statistics pasted", "return 0.485, 0.229", "0.485 is ImageNet's mean",
          hides=True),
        W("ImageNet's three channels pasted",
          "return [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]", "0.485 is ImageNet's mean",
          hides=True),
        W("the validation set's statistics", per_channel(x="val_t.tensors[0]"),
          "these are the validation set's statistics"),
        W("0-255 units", per_channel(x="dataset.tensors[0] * 255"),
          "look like 0-255 statistics"),
        W("one image", per_channel(x="dataset.tensors[0][:1]"), "not one image"),
        W("the mean of per-image stds",
          per_channel(std="x.std(dim=(2, 3)).mean(dim=0)"),
          "not the mean of per-image or per-batch stds"),
        W("fixed numbers (the training set's, pasted)",
          "return [0.3055], [0.3763]", "compute the mean over every pixel"),
        W("tensors, not lists of floats",
          "x = dataset.tensors[0]\nreturn x.mean(dim=(0, 2, 3)), x.std(dim=(0, 2, 3))",
          "return Python floats"),
        W("divided by 255 whenever a pixel is above 1 (the units guessed)",
          "x = dataset.tensors[0].float()\nif x.max() > 1:\n    x = x / 255\n"
          "return x.mean(dim=(0, 2, 3)).tolist(), x.std(dim=(0, 2, 3)).tolist()",
          "pixel_stats rescaled the pixels", hides=True),
        W("the first 1,000 images", per_channel(x="dataset.tensors[0][:1000]"),
          "not a subset"),
        W("train_t instead of the dataset given", per_channel(x="train_t.tensors[0]"),
          "not from train_t"),
        W("64 pixels per image, one channel, hard-coded",
          per_channel(x="dataset.tensors[0].view(len(dataset), 1, 64, 1)"),
          "whatever the shape"),
        W("the mean of batch means and of batch stds", """
means, stds = [], []
for xb, _ in DataLoader(dataset, batch_size=256):
    means.append(xb.mean(dim=(0, 2, 3)))
    stds.append(xb.std(dim=(0, 2, 3)))
return torch.stack(means).mean(0).tolist(), torch.stack(stds).mean(0).tolist()""",
          "not a mean of per-batch means"),
        # global statistics: one mean and one std over every element, all channels mixed
        W("one mean and one std over every element (global statistics)",
          "x = dataset.tensors[0]\nreturn float(x.mean()), float(x.std())",
          "one mean and one std per channel"),
        W("global statistics in lists of one", "x = dataset.tensors[0]\n"
          "return [float(x.mean())], [float(x.std())]",
          "one mean and one std per channel", hides=True),
        W("the global mean and std repeated for every channel",
          "x = dataset.tensors[0]\n"
          "return [float(x.mean())] * x.shape[1], [float(x.std())] * x.shape[1]",
          "the same mean for every channel", hides=True),
    )),
    Exercise(DATASETS, "train_set_fix", right=(
        R("a copy of the class, the labels filtered by the same mask", fixed_class()),
        R("the training indices filtered first", kept_indices()),
        R("a subclass that filters its labels", """
class Repaired(CleanedDigits):
    def __init__(self, min_ink):
        super().__init__(min_ink)
        images, _ = digits_arrays()
        train_idx, _, _ = digits_split_indices(seed=0)
        pixels = torch.tensor(images[train_idx] / 16.0, dtype=torch.float32).unsqueeze(1)
        self.labels = self.labels[pixels.mean(dim=(1, 2, 3)) > min_ink]

return Repaired(min_ink)
"""),
    ), wrong=(
        W("the colleague's set as it is", "return CleanedDigits(min_ink)",
          "carry another image's label"),
        W("the cleaning dropped (min_ink 0 keeps every digit)", "return CleanedDigits(0.0)",
          "the colleague drops the faint ones on purpose", hides=True),
        W("the labels cut to the number of images",
          "data = CleanedDigits(min_ink)\ndata.labels = data.labels[:len(data.images)]\n"
          "return data", "carry another image's label"),
        W("the labels shifted by one",
          "data = CleanedDigits(min_ink)\ndata.labels = data.labels[1:]\nreturn data",
          "carry another image's label"),
        W("the example's min_ink hard-coded", kept_indices(threshold="0.25"),
          "whatever min_ink is"),
        W("the normalisation lost in the copy", fixed_class(image="self.images[index]"),
          "the images are not normalised"),
        W("normalised with the statistics of every training digit, faint ones included",
          fixed_class(stats="pixels.mean(), pixels.std()"),
          "with the statistics of the images it keeps"),
    )),
]
