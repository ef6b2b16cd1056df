"""ICE101 true positive: the loss itself is summed and kept, graph and all."""
import torch
from torch import nn

model = nn.Linear(4, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
total_loss, history = 0.0, []
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss  # <- ICE101
    history.append(loss)  # <- ICE101
