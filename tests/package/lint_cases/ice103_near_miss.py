"""ICE103 near miss: gradient accumulation, stepped and zeroed every 4 batches."""
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(8)]
accumulate = 4
for i, (x, y) in enumerate(loader):
    loss = nn.functional.mse_loss(model(x), y) / accumulate
    loss.backward()
    if (i + 1) % accumulate == 0:
        optimizer.step()
        optimizer.zero_grad()
