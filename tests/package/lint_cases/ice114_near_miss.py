"""ICE114 near miss: state_dict() is called, and the file is loaded before
load_state_dict; a path held in a variable is passed to torch.load."""
import torch
from torch import nn

model = nn.Linear(4, 2)
path = "model.pt"
torch.save(model.state_dict(), path)
model.load_state_dict(torch.load(path, weights_only=True))
