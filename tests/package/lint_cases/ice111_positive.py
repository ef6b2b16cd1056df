"""ICE111 true positive: a generator made in __init__ is copied into both workers."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 4)
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i] + float(self.rng.normal())


loader = DataLoader(Noisy(16), batch_size=4, num_workers=2)  # <- ICE111
