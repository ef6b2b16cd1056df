"""ICE112 true positives: nll_loss fed a linear layer's raw logits, and log_softmax of a
softmax."""
import torch
from torch import nn
from torch.nn import functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


model = Net()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.nll_loss(model(x), y)  # <- ICE112
probs = F.softmax(model(x), dim=1)
logp = F.log_softmax(probs, dim=1)  # <- ICE112
