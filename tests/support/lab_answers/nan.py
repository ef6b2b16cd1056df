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
        R("log_softmax over dim=-1, gathered on the last axis",
          "return -F.log_softmax(logits, dim=-1).gather(-1, labels.unsqueeze(-1)).mean()"),
        R("F.nll_loss of a log_softmax", "return F.nll_loss(F.log_softmax(logits, dim=1), labels)"),
        R("a one-hot sized from the logits",
          "one_hot = F.one_hot(labels, logits.shape[1]).to(logits.dtype)\n"
          "log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)\n"
          "return -(one_hot * log_probs).sum(dim=1).mean()"),
        R("logsumexp in float64, the loss returned as float64",
          f"z = logits.double()\nreturn (torch.logsumexp(z, dim=1) - z{_GATHER}).mean()"),
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
          "each row needs its own shift"),
        W("the sum over the batch",
          f"return (torch.logsumexp(logits, dim=1) - logits{_GATHER}).sum()",
          "it must be the mean over the batch"),
        W("labels indexed as columns for every row",
          "return (torch.logsumexp(logits, dim=1) - logits[:, labels]).mean()",
          "one label per row"),
        W("logsumexp over the wrong axis",
          f"return (torch.logsumexp(logits, dim=0)[labels] - logits{_GATHER}).mean()",
          "the max and the sum go over the classes, dim=1"),
        # Found by the mutation round (the checks before it gave full marks to
        # F.cross_entropy, and named another mistake, or none, for the rest).
        W("F.cross_entropy itself (the exercise is to write it)",
          "return F.cross_entropy(logits, labels)", "calls F.cross_entropy", hides=True),
        W("a Python float (.item())",
          f"return (torch.logsumexp(logits, dim=1) - logits{_GATHER}).mean().item()",
          "returns a float, not a tensor"),
        W("a one-hot with the lab's 10 classes hard-coded",
          "one_hot = torch.eye(10)[labels]\n"
          "log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)\n"
          "return -(one_hot * log_probs).sum(dim=1).mean()",
          "do not hard-code the sizes of the lab's data"),
        W("the probability clamped away from 0 before its log",
          "shifted = logits - logits.max(dim=1, keepdim=True).values\n"
          "probs = shifted.exp() / shifted.exp().sum(dim=1, keepdim=True)\n"
          f"return -probs{_GATHER}.clamp(min=1e-12).log().mean()",
          "never log of a probability", hides=True),
        W("shifted by the label's logit, not the row's max",
          f"shifted = logits - logits{_GATHER}[:, None]\n"
          "return torch.log(shifted.exp().sum(dim=1)).mean()",
          "exp overflowed (the op watcher saw aten.exp"),
        W("float64 to push the overflow further",
          "z = logits.double()\ne = z.exp()\nprobs = e / e.sum(dim=1, keepdim=True)\n"
          f"return -probs{_GATHER}.log().mean().float()",
          "so float64 does not save it", hides=True),
    )),
    Exercise(NAN, "msle_log1p", right=(
        R("log(1 + x)", "return ((torch.log(1 + pred) - torch.log(1 + target)) ** 2).mean()"),
        R("F.mse_loss of log1p", "return F.mse_loss(torch.log1p(pred), torch.log1p(target))"),
        R("pow and mean", "return (torch.log1p(pred) - torch.log1p(target)).pow(2).mean()"),
        R("the log of the ratio", "return torch.log((1 + pred) / (1 + target)).pow(2).mean()"),
        R("torch.square", "return torch.square(torch.log1p(pred) - torch.log1p(target)).mean()"),
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
          "with no root"),
        W("both clamped to at least 1 before the log",
          "return ((torch.log(pred.clamp(min=1)) - torch.log(target.clamp(min=1))) ** 2).mean()",
          "compare your error of one sample with scikit-learn's formula", hides=True),
        W("the zero counts raised to 1 in place (clamp_)",
          "target.clamp_(min=1.0)\nreturn ((torch.log1p(pred) - torch.log1p(target)) ** 2).mean()",
          "msle changed its inputs in place", hides=True),
        W("a Python float (.item())",
          "return ((torch.log1p(pred) - torch.log1p(target)) ** 2).mean().item()",
          "msle returns a float, not a tensor"),
        W("scikit-learn's function on numpy copies",
          "from sklearn.metrics import mean_squared_log_error as _msle\n"
          "return torch.tensor(_msle(target.detach().numpy(), pred.detach().numpy()))",
          "scikit-learn on numpy copies"),
        W("the predictions clamped at 1000 (the example's counts are smaller)",
          "return ((torch.log1p(pred.clamp(max=1000.0)) - torch.log1p(target)) ** 2).mean()",
          "large counts have their error too", hides=True),
    )),
    Exercise(NAN, "fixed_run", right=(
        R("lr=0.01", "return train_steps(model, X, y, F.mse_loss, lr=0.01, steps=100)"),
        R("lr=0.02", "return train_steps(model, X, y, F.mse_loss, lr=0.02, steps=100)"),
        R("lr=0.015", "return train_steps(model, X, y, F.mse_loss, lr=0.015, steps=100)"),
        R("lr=0.02 with clip=5.0",
          "return train_steps(model, X, y, F.mse_loss, lr=0.02, steps=100, clip=5.0)"),
        R("lr=0.01 with a belt (clip=10.0) that only the first steps touch",
          "return train_steps(model, X, y, F.mse_loss, lr=0.01, steps=100, clip=10.0)"),
        R("keyword arguments, 80 steps at lr=0.02",
          "return train_steps(model=model, X=X, y=y, loss_fn=F.mse_loss, lr=0.02, steps=80)"),
    ), wrong=(
        # Issue 34: clipping that does the steering at the unstable rate was a right answer
        # (the reference was lr=0.05 with clip=1.0); the clip still cuts every late step.
        W("lr=0.1 with clip=1.0: the clip steers",
          "return train_steps(model, X, y, F.mse_loss, lr=0.1, steps=100, clip=1.0)",
          "the clip is doing the steering", hides=True),
        W("lr=0.05 kept, clip=0.5: the clip steers",
          "return train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100, clip=0.5)",
          "the clip is doing the steering", hides=True),
        W("lr=0.05 kept, clip=1.0 (the old reference)",
          "return train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100, clip=1.0)",
          "the clip is doing the steering", hides=True),
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
        W("the lab's X_reg, y_reg instead of the arguments",
          "return train_steps(model, X_reg, y_reg, F.mse_loss, lr=0.01, steps=100)",
          "trained on the lab's X_reg"),
        W("a fresh model trained, not the one given",
          "model = make_regressor()\nreturn train_steps(model, X, y, F.mse_loss, lr=0.01, steps=100)",
          "trained another model than the one it was given"),
        W("Smooth L1 instead of MSE, at the lab's lr",
          "return train_steps(model, X, y, F.smooth_l1_loss, lr=0.05, steps=100)",
          "not the mean squared error", hides=True),
        W("the features scaled in place (X /= 4)",
          "X /= 4\nreturn train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100)",
          "fixed_run changed X or y in place", hides=True),
        W("the targets standardised inside fixed_run",
          "ys = (y - y.mean()) / y.std()\nreturn train_steps(model, X, ys, F.mse_loss, lr=0.01, steps=100)",
          "The model did not train on y as given", hides=True),
        W("Adam in a loop of its own",
          "opt = torch.optim.Adam(model.parameters(), lr=0.01)\nlosses = []\n"
          "for _ in range(100):\n    loss = F.mse_loss(model(X), y)\n    losses.append(loss.item())\n"
          "    opt.zero_grad()\n    loss.backward()\n    opt.step()\nreturn losses",
          "fixed_run did not call train_steps", hides=True),
        W("lr=0.05 kept, the run stopped at the first non-finite loss",
          "record = []\ntry:\n    train_steps(model, X, y, F.mse_loss, lr=0.05, steps=100, record=record)\n"
          "except FloatingPointError:\n    pass\nreturn record[:-1]",
          "so does stopping at the first inf", hides=True),
    )),
    Exercise(NAN, "clean_data", right=(
        R("NaN filled with 0", "return torch.nan_to_num(X, nan=0.0), y"),
        R("NaN filled with the pixel's mean over the other images",
          "fill = torch.nanmean(X, dim=0).expand_as(X)\n"
          "return torch.where(torch.isnan(X), fill, X), y"),
        R("rows dropped with isfinite", "keep = torch.isfinite(X).all(dim=1)\nreturn X[keep], y[keep]"),
        R("a copy, filled in place", "X = X.clone()\nX[torch.isnan(X)] = 0.0\nreturn X, y"),
        R("filled with the image's own mean",
          "fill = torch.nanmean(X, dim=1, keepdim=True).expand_as(X)\n"
          "return torch.where(torch.isnan(X), fill, X), y"),
        R("rows whose sum is finite", "keep = torch.isfinite(X.sum(dim=1))\nreturn X[keep], y[keep]"),
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
          "A mean over data with a NaN in it is NaN"),
        W("a sentinel -1 written into X in place (the check compared X with itself)",
          "X[torch.isnan(X)] = -1.0\nreturn X, y",
          "a sentinel like -1 or -999", hides=True),
        W("NaN set to 0 in X itself (nan_to_num_)", "return X.nan_to_num_(0.0), y",
          "clean changed its inputs in place", hides=True),
        W("the lab's y_train instead of y",
          "keep = ~torch.isnan(X).any(dim=1)\nreturn X[keep], y_train[keep]",
          "not from the lab's variables"),
        W("a missing-value flag added as a 65th column",
          "mask = torch.isnan(X).any(dim=1, keepdim=True).float()\n"
          "return torch.cat([torch.nan_to_num(X), mask], dim=1), y",
          "An extra column (a missing-value flag, say)"),
        W("numpy's nan_to_num (arrays, not tensors)",
          "import numpy as np\nreturn np.nan_to_num(X.numpy()), y.numpy()",
          "clean must return two tensors"),
        W("rows dropped where the first pixel is NaN",
          "keep = ~torch.isnan(X[:, 0])\nreturn X[keep], y[keep]",
          "drop every row with a NaN anywhere in it"),
        W("the labels truncated, not selected",
          "rows = [i for i in range(len(X)) if not torch.isnan(X[i]).any()]\n"
          "return X[rows], y[:len(rows)]",
          "y_clean is not their labels"),
        W("the lab's 12 damaged rows hard-coded (the 12 with most NaN dropped)",
          "order = torch.isnan(X).sum(dim=1).argsort(stable=True)\n"
          "keep = order[: len(X) - 12].sort().values\nreturn X[keep], y[keep]",
          "wherever it sits and however many there are"),
    )),
    Exercise(NAN, "scan_net", right=(
        R("a zero spread treated as 1",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        centred = x - x.mean(dim=1, keepdim=True)\n"
          "        spread = centred.std(dim=1, keepdim=True)\n"
          "        safe = torch.where(spread > 0, spread, torch.ones_like(spread))\n"
          "        return centred / safe\n"
          "\nreturn R()"),
        R("an epsilon added to the standard deviation",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        centred = x - x.mean(dim=1, keepdim=True)\n"
          "        return centred / (centred.std(dim=1, keepdim=True) + 1e-6)\n"
          "\nreturn R()"),
        R("the standard deviation clamped from below",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        centred = x - x.mean(dim=1, keepdim=True)\n"
          "        return centred / centred.std(dim=1, keepdim=True).clamp_min(1e-8)\n"
          "\nreturn R()"),
        R("F.layer_norm with a tiny eps",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        return F.layer_norm(x, (x.shape[1],), eps=1e-12)\n\nreturn R()"),
        R("nan_to_num on the standardised scan (constant scans become zeros)",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        return torch.nan_to_num(super().standardise(x))\n\nreturn R()"),
    ), wrong=(
        W("the colleague's model as it is", "return ScanNet()", "On a blank scan"),
        W("nan_to_num on the scores",
          "class R(ScanNet):\n    def forward(self, x):\n"
          "        return torch.nan_to_num(super().forward(x))\n\nreturn R()",
          "Replacing the NaN after the fact", hides=True),
        W("an epsilon of 1",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        centred = x - x.mean(dim=1, keepdim=True)\n"
          "        return centred / (centred.std(dim=1, keepdim=True) + 1.0)\n\nreturn R()",
          "changes ordinary scans too"),
        W("the statistics of the whole batch",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        return (x - x.mean()) / x.std()\n\nreturn R()",
          "changes ordinary scans too"),
        W("F.layer_norm with its default eps (faint scans flattened)",
          "class R(ScanNet):\n    def standardise(self, x):\n"
          "        return F.layer_norm(x, (64,))\n\nreturn R()",
          "On faint digits"),
        W("the blank scans dropped inside forward",
          "class R(ScanNet):\n    def forward(self, x):\n"
          "        return super().forward(x[x.std(dim=1) > 0])\n\nreturn R()",
          "one row of scores per scan", hides=True),
    )),
]
