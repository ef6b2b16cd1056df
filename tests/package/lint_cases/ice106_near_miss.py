"""ICE106 near miss: a checkpoint dict and a state_dict are saved; options passed on."""
import torch
from torch import nn

model = nn.Linear(4, 2)
checkpoint = {"model": model.state_dict(), "epoch": 3}
torch.save(checkpoint, "checkpoint.pt")
torch.save(model.state_dict(), "weights.pt")
options = {"weights_only": True, "map_location": "cpu"}
state = torch.load("checkpoint.pt", **options)
