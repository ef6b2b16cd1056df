"""ICE112 near miss: the model ends in log_softmax, so nll_loss gets log-probabilities;
the softmax is kept for display only."""
import torch
from torch import nn
from torch.nn import functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return F.log_softmax(self.fc(x), dim=1)


model = Net()
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.nll_loss(model(x), y)
probs = F.softmax(model(x), dim=1)
logp = F.log_softmax(model(x), dim=1)
