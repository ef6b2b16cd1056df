"""ICE110 idiom: training shuffles, validation keeps its order."""
import torch
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
train_loader = DataLoader(data, batch_size=4, shuffle=True)
val_loader = DataLoader(data, batch_size=4)
