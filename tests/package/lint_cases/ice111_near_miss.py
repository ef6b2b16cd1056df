"""ICE111 near miss: NumPy's global generator (PyTorch reseeds it per worker since 1.9),
and a dataset generator read without workers."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class GlobalNoise(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 4)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i] + float(np.random.normal())


class OwnNoise(GlobalNoise):
    def __init__(self, n):
        super().__init__(n)
        self.rng = np.random.default_rng(0)

    def __getitem__(self, i):
        return self.x[i] + float(self.rng.normal())


workers = DataLoader(GlobalNoise(16), batch_size=4, num_workers=2)
single = DataLoader(OwnNoise(16), batch_size=4, num_workers=0)
