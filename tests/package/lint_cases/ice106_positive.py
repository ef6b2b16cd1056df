"""ICE106 true positives: a load that trusts the file; a save of the whole module."""
import torch
from torch import nn

model = nn.Linear(4, 2)
torch.save(model, "model.pt")  # <- ICE106
state = torch.load("checkpoint.pt")  # <- ICE106
