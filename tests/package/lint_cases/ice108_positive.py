"""ICE108 true positives: log of a softmax; division by a standard deviation and a norm."""
import torch
import torch.nn.functional as F


def nll(logits, y):
    log_probs = torch.log(F.softmax(logits, dim=1))  # <- ICE108
    return -log_probs.gather(1, y[:, None]).mean()


def standardise(X):
    mean, std = X.mean(dim=0), X.std(dim=0)
    return (X - mean) / std  # <- ICE108


def unit(v):
    return v / v.norm(dim=1, keepdim=True)  # <- ICE108
