"""ICE105 near miss: CUDA only under an availability check; a 0-dim constant in forward;
a tensor moved to the input's device."""
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        scale = torch.tensor(0.5)
        offset = torch.ones(4).to(x.device)
        return self.fc(x) * scale + offset


model = Scaled()
if torch.cuda.is_available():
    model = model.cuda()
