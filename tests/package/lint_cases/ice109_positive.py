"""ICE109 true positives: in-place changes to outputs that sigmoid and relu saved."""
import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.head = nn.Sequential(nn.Sigmoid(), nn.ReLU(inplace=True))  # <- ICE109

    def forward(self, x):
        g = torch.sigmoid(self.fc(x))
        g.mul_(2)  # <- ICE109
        h = torch.relu(x)
        h += 1  # <- ICE109
        b = self.block(x)
        b += h  # <- ICE109
        return self.head(g * b)
