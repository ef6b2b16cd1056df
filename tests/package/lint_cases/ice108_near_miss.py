"""ICE108 near miss: the same quantities, with an eps or a clamp that keeps them apart
from zero."""
import torch
import torch.nn.functional as F


def nll(logits, y):
    log_probs = torch.log(F.softmax(logits, dim=1) + 1e-9)
    return -log_probs.gather(1, y[:, None]).mean()


def standardise(X):
    mean, std = X.mean(dim=0), X.std(dim=0)
    std[std == 0] = 1.0
    return (X - mean) / std


def unit(v):
    return v / v.norm(dim=1, keepdim=True).clamp_min(1e-12)
