"""ICE106 idiom: save the state_dict, load it with weights_only=True."""
import torch
from torch import nn

model = nn.Linear(4, 2)
torch.save(model.state_dict(), "weights.pt")
model.load_state_dict(torch.load("weights.pt", weights_only=True, map_location="cpu"))
