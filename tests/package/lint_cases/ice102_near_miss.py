"""ICE102 near miss: softmax for reporting, logits for the loss; log_softmax + nll_loss."""
import torch.nn.functional as F
from torch import nn

criterion = nn.CrossEntropyLoss()


def step(logits, y):
    probabilities = F.softmax(logits, dim=1)
    confidence = probabilities.max(dim=1).values.mean()
    return criterion(logits, y), confidence


def step_nll(logits, y):
    return F.nll_loss(F.log_softmax(logits, dim=1), y)
