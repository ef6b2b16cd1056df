"""ICE103 true positives: no zero_grad in the loop; zero_grad between backward and step."""
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
for x, y in loader:  # <- ICE103
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()

for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.zero_grad()  # <- ICE103
    optimizer.step()
