"""ICE110 near miss: shuffled loaders that train (names with 'val' inside a word too)."""
import torch
from torch.utils.data import DataLoader, TensorDataset

train_set = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
train_loader = DataLoader(train_set, batch_size=4, shuffle=True)
interval_loader = DataLoader(train_set, batch_size=8, shuffle=True)
