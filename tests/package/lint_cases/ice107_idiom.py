"""ICE107 idiom: epoch schedulers stepped once per epoch, the plateau one with its metric."""
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
train_loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
for epoch in range(30):
    total = 0.0
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    scheduler.step()
    plateau.step(total)
