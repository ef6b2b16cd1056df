"""ICE105 idiom: one device chosen once; new tensors follow the input."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Noisy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        noise = torch.randn_like(x)
        mask = torch.ones(x.shape[0], 4, device=x.device)
        return self.fc(x + noise) * mask


model = Noisy().to(device)
