"""ICE113 idiom: each function sets the mode it needs."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(3)]


def train_epoch(model, loader):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


@torch.no_grad()
def validate(model, loader):
    model.eval()
    return sum(nn.functional.cross_entropy(model(x), y).item() for x, y in loader)


for epoch in range(3):
    train_epoch(model, loader)
    print(validate(model, loader))
