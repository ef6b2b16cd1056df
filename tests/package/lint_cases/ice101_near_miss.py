"""ICE101 near miss: the losses are kept on purpose, summed and backpropagated once."""
import torch
from torch import nn

model = nn.Linear(4, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
chunks = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
optimizer.zero_grad()
losses = []
for x, y in chunks:
    losses.append(criterion(model(x), y))
torch.stack(losses).mean().backward()
optimizer.step()
