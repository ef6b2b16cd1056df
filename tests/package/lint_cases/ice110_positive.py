"""ICE110 true positives: a validation loader and a test set's loader that shuffle."""
import torch
from torch.utils.data import DataLoader, TensorDataset
from torchvision import datasets

val_set = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
val_loader = DataLoader(val_set, batch_size=4, shuffle=True)  # <- ICE110
test_loader = DataLoader(  # <- ICE110
    datasets.MNIST("data", train=False), batch_size=64, shuffle=True
)
