"""ICE104 near miss: evaluate() sets neither mode itself; its one caller does both."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
val_loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(3)]


def evaluate(model, loader):
    return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)


def report(model):
    model.eval()
    with torch.no_grad():
        return evaluate(model, val_loader)
