"""ICE107 near miss: per-batch schedulers stepped per batch (OneCycleLR, and a StepLR
whose step_size counts batches)."""
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
one_cycle = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=90)
decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10 * len(train_loader))
for epoch in range(30):
    for x, y in train_loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        one_cycle.step()
        decay.step()
