"""ICE109 idiom: out-of-place arithmetic on activations."""
import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        g = torch.sigmoid(self.fc(x))
        g = g * 2
        return torch.relu(x) + g
