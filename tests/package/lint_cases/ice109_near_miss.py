"""ICE109 near miss: in-place after layers that keep their input, not their output
(Linear, BatchNorm): backward still works."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.body = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))

    def forward(self, x):
        h = self.fc(x)
        h.relu_()
        out = self.body(h)
        out += x
        return torch.relu(out)
