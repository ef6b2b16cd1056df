"""ICE105 true positives: CUDA with no fallback; a tensor made on the CPU in forward."""
import torch
from torch import nn


class Noisy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        noise = torch.randn(x.shape[0], 4)  # <- ICE105
        return self.fc(x + noise)


model = Noisy().cuda()  # <- ICE105
batch = torch.randn(8, 4).to("cuda")  # <- ICE105
