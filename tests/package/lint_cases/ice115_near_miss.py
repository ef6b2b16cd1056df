"""ICE115 near miss: the same loop, zero_grad() moved inside the window, after step()."""
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(8)]
accumulation_steps = 4
for i, (x, y) in enumerate(loader):
    loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
