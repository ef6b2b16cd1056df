"""ICE104 idiom: eval() and no_grad() inside the evaluation function."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
val_loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(3)]


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
