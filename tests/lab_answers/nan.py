"""Right and wrong answers to the exercises of labs/lab-nan.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-nan.ipynb"
NAN = LAB

_GATHER = "[torch.arange(len(labels)), labels]"

EXERCISES: list[Exercise] = [
    # ================================================================== lab-nan
    Exercise(NAN, "stable_cross_entropy", right=(
        R("torch.logsumexp",
          f"return (torch.logsumexp(logits, dim=1) - logits{_GATHER}).mean()"),
        R("log-softmax by hand with gather",
          "shifted = logits - logits.max(dim=1, keepdim=True).values\n"
          "log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()\n"
          "return -log_probs.gather(1, labels[:, None]).mean()"),
        R("F.log_softmax", "return -F.log_softmax(logits, dim=1).gather(1, labels[:, None]).mean()"),
        R("max with amax, logsumexp of the shifted logits",
          "shifted = logits - logits.amax(dim=1, keepdim=True)\n"
          f"return -(shifted - torch.logsumexp(shifted, dim=1, keepdim=True)){_GATHER}.mean()"),
    ), wrong=(
        W("logits clamped before softmax",
          "clamped = logits.clamp(max=80)\n"
          "probs = torch.exp(clamped) / torch.exp(clamped).sum(dim=1, keepdim=True)\n"
          f"return -torch.log(probs{_GATHER}).mean()",
          "Clamping the logits (e.g. clamp(max=80))", hides=True),
        W("nan_to_num on the hand-made loss",
          "e = torch.exp(logits)\nprobs = e / e.sum(dim=1, keepdim=True)\n"
          f"return torch.nan_to_num(-torch.log(probs{_GATHER})).mean()",
          "replacing nan (nan_to_num)", hides=True),
        W("max subtracted, but log of the softmax probability",
          "shifted = logits - logits.max(dim=1, keepdim=True).values\n"
          "probs = torch.exp(shifted) / torch.exp(shifted).sum(dim=1, keepdim=True)\n"
          f"return -torch.log(probs{_GATHER}).mean()",
          "log(softmax) still meets log(0)"),
        W("the global max subtracted",
          "shifted = logits - logits.max()\n"
          "log_probs = shifted - torch.log(torch.exp(shifted).sum(dim=1, keepdim=True))\n"
          f"return -log_probs{_GATHER}.mean()",
          "subtract each row's own max"),
        W("the sum over the batch",
          f"return (torch.logsumexp(logits, dim=1) - logits{_GATHER}).sum()",
          "it must be the mean over the batch"),
        W("labels indexed as columns for every row",
          "return (torch.logsumexp(logits, dim=1) - logits[:, labels]).mean()",
          "one label per row"),
        W("logsumexp over the wrong axis",
          f"return (torch.logsumexp(logits, dim=0)[labels] - logits{_GATHER}).mean()",
          "the max and the sum go over the classes, dim=1"),
    )),
    Exercise(NAN, "msle_log1p", right=(
        R("log(1 + x)", "return ((torch.log(1 + pred) - torch.log(1 + target)) ** 2).mean()"),
        R("F.mse_loss of log1p", "return F.mse_loss(torch.log1p(pred), torch.log1p(target))"),
        R("pow and mean", "return (torch.log1p(pred) - torch.log1p(target)).pow(2).mean()"),
    ), wrong=(
        W("an epsilon inside the log",
          "return ((torch.log(pred + 1e-8) - torch.log(target + 1e-8)) ** 2).mean()",
          "log(x + 1e-8) is finite but makes every 0 count a huge error", hides=True),
        W("log unchanged", "return ((torch.log(pred) - torch.log(target)) ** 2).mean()",
          "Still not finite when a count is 0"),
        W("the zero counts dropped",
          "keep = target > 0\n"
          "return ((torch.log(pred[keep]) - torch.log(target[keep])) ** 2).mean()",
          "dropping the zero counts or nan_to_num hides them", hides=True),
        W("nan_to_num on the logs",
          "return ((torch.nan_to_num(torch.log(pred)) - torch.nan_to_num(torch.log(target)))"
          " ** 2).mean()",
          "Still not finite when a count is 0", hides=True),
        W("the root (RMSLE)",
          "return ((torch.log1p(pred) - torch.log1p(target)) ** 2).mean().sqrt()",
          "The standard log error is the mean of"),
    )),
    Exercise(NAN, "fixed_run", right=(
        R("lr=0.01", "return train_steps(model, X, y, F.mse_loss, lr=0.01, steps=100)"),
        R("lr=0.02", "return train_steps(model, X, y, F.mse_loss, lr=0.02, steps=100)"),
        R("lr=0.1 with clip=1.0",
          "return train_steps(model, X, y, F.mse_loss, lr=0.1, steps=100, clip=1.0)"),
        R("lr=0.02 with clip=5.0",
          "return train_steps(model, X, y, F.mse_loss, lr=0.02, steps=100, clip=5.0)"),
    ), wrong=(
        W("lr=0.05 unchanged",
          "return train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100)",
          "still stop being finite"),
        W("a learning rate so small that nothing moves",
          "return train_steps(model, X, y, F.mse_loss, lr=1e-6, steps=100)",
          "A learning rate so small that nothing moves", hides=True),
        W("nan_to_num on the loss",
          "return train_steps(model, X, y, lambda p, t: torch.nan_to_num(F.mse_loss(p, t)),"
          " lr=0.05, steps=100)",
          "nan_to_num or a loose clip only hides it", hides=True),
        W("a clip too loose (100)",
          "return train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100, clip=100.0)",
          "the steps still overshoot"),
        W("the features standardised inside fixed_run",
          "Xs = (X - X.mean(dim=0)) / X.std(dim=0)\n"
          "return train_steps(model, Xs, y, F.mse_loss, lr=0.05, steps=100)",
          "The model did not train on X as given", hides=True),
        W("1000 small steps", "return train_steps(model, X, y, F.mse_loss, lr=0.001, steps=1000)",
          "at most 100 steps"),
        W("lr=0.001, too slow", "return train_steps(model, X, y, F.mse_loss, lr=0.001, steps=100)",
          "It trains, but too slowly for 100 steps"),
    )),
    Exercise(NAN, "clean_data", right=(
        R("NaN filled with 0", "return torch.nan_to_num(X, nan=0.0), y"),
        R("NaN filled with the pixel's mean over the other images",
          "fill = torch.nanmean(X, dim=0).expand_as(X)\n"
          "return torch.where(torch.isnan(X), fill, X), y"),
        R("rows dropped with isfinite", "keep = torch.isfinite(X).all(dim=1)\nreturn X[keep], y[keep]"),
    ), wrong=(
        W("X[~torch.isnan(X)]: single pixels dropped", "return X[~torch.isnan(X)], y",
          "X[~torch.isnan(X)] drops single pixels"),
        W("NaN filled with -1", "return torch.nan_to_num(X, nan=-1.0), y",
          "a sentinel like -1 or -999", hides=True),
        W("NaN filled with -999", "return torch.nan_to_num(X, nan=-999.0), y",
          "a sentinel like -1 or -999", hides=True),
        W("rows dropped from X only", "keep = ~torch.isnan(X).any(dim=1)\nreturn X[keep], y",
          "drop the same rows from both"),
        W("the columns with a NaN dropped",
          "return X[:, ~torch.isnan(X).any(dim=0)], y",
          "Dropping the columns that hold a NaN"),
        W("filled with X.mean(), itself NaN",
          "return torch.where(torch.isnan(X), X.mean(), X), y",
          "torch.nanmean skips them"),
    )),
]
