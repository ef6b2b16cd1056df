"""ICE113 near miss: the same loop, with model.train() at the top of every epoch."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(3)]


def validate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(nn.functional.cross_entropy(model(x), y).item() for x, y in loader)


for epoch in range(3):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    print(validate(model, loader))
