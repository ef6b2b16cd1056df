"""ICE111 idiom: each worker reseeds its copy of the dataset's generator."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Noisy(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 4)
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i] + float(self.rng.normal())


def reseed(worker_id):
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed % 2**32)


loader = DataLoader(Noisy(16), batch_size=4, num_workers=2, worker_init_fn=reseed,
                    generator=torch.Generator().manual_seed(0))
