"""ICE112 idiom: logits to cross_entropy, or log_softmax then nll_loss."""
import torch
from torch import nn
from torch.nn import functional as F

model = nn.Linear(4, 3)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
loss = F.cross_entropy(model(x), y)
same = F.nll_loss(F.log_softmax(model(x), dim=1), y)
