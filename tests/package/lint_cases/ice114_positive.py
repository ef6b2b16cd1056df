"""ICE114 true positives: torch.save of the state_dict method, and load_state_dict given a
path."""
import torch
from torch import nn

model = nn.Linear(4, 2)
torch.save(model.state_dict, "model.pt")  # <- ICE114
model.load_state_dict("model.pt")  # <- ICE114
