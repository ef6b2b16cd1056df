"""ICE104 true positives: an evaluation function and a validation loop in training mode,
with autograd on."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(3)]
val_loader = train_loader


def evaluate(model, loader):  # <- ICE104
    correct = 0
    for x, y in loader:  # <- ICE104
        correct += (model(x).argmax(1) == y).sum().item()
    return correct


for epoch in range(2):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    for x, y in val_loader:  # <- ICE104
        print(nn.functional.cross_entropy(model(x), y).item())  # <- ICE104
    print(evaluate(model, val_loader))
