"""ICE113 true positive: validate() switches to eval mode, and the epoch loop never
switches back: from epoch 2 on, dropout is off while training."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(3)]


def validate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(nn.functional.cross_entropy(model(x), y).item() for x, y in loader)


model.train()
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    print(validate(model, loader))  # <- ICE113
