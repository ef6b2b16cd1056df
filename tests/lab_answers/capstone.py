"""Right and wrong answers to the exercises of labs/lab-capstone.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-capstone.ipynb"
CAPSTONE = LAB

EXERCISES: list[Exercise] = [
    # ================================================================== lab-capstone
    Exercise(LAB, "fix_model", right=(
        R("the head sized by hand, 512 features", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(512, 10),
)"""),
    ), wrong=(
        W("the head sized without the pooling (32 * 8 * 8)", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 8 * 8, 10),
)""", "Size its in_features for what reaches it"),
        W("the images blown up to 28x28 inside the model", """
return nn.Sequential(
    nn.Upsample(size=(28, 28)),
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 14 * 14, 10),
)""", "Resizing the images to 28x28", hides=True),
        W("an adaptive pooling to 14x14 in front of the old head", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.AdaptiveAvgPool2d((14, 14)), nn.Flatten(), nn.Dropout(0.2),
    nn.Linear(32 * 14 * 14, 10),
)""", "Resizing the images to 28x28", hides=True),
        W("one convolution dropped to make the sizes fit", """
return nn.Sequential(
    nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 4 * 4, 10),
)""", "Keep both convolutions"),
    )),
    Exercise(LAB, "fix_normalise", right=(
        R("a copy of std with 1 where it is 0", """
safe_std = std.clone()
safe_std[safe_std == 0] = 1.0
return (X - mean) / safe_std"""),
        R("torch.where on the result", "return torch.where(std > 0, (X - mean) / std, X - mean)"),
    ), wrong=(
        W("a tiny epsilon added to std", "return (X - mean) / (std + 1e-8)",
          "A tiny epsilon added to", hides=True),
        W("torch.nan_to_num over the division", "return torch.nan_to_num((X - mean) / std)",
          "torch.nan_to_num hides the NaN", hides=True),
        W("one scale for every pixel (the mean std)", "return (X - mean) / std.mean()",
          "Pixels that vary must be standardised exactly as before"),
        W("std clamped to at least 1", "return (X - mean) / std.clamp_min(1.0)",
          "Pixels that vary must be standardised exactly as before", hides=True),
    )),
    Exercise(LAB, "fix_load_digits", right=(
        R("not shuffled at all", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
return X, y"""),
        R("one permutation, indexed together", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
perm = torch.randperm(len(X), generator=torch.Generator().manual_seed(1))
return X[perm], y[perm]"""),
    ), wrong=(
        W("the labels shuffled with a permutation of their own", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
return X[order], y[torch.randperm(len(y))]""",
          "Shuffling the labels with a permutation of their own", hides=True),
        W("the labels sorted", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
return X[order], y.sort().values""", "do not belong to their image"),
        W("the labels indexed with the order reversed", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
return X[order], y[order.flip(0)]""", "do not belong to their image"),
    )),
    Exercise(LAB, "fix_setup", right=(
        R("torch.manual_seed instead of set_seed", """
if seed is not None:
    torch.manual_seed(seed)
model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3)"""),
    ), wrong=(
        W("the optimizer built from another fresh model", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
optimizer = torch.optim.AdamW(make_model().parameters(), lr=3e-3)
return model, optimizer""", "The optimizer does not hold"),
        W("the seeding dropped", """
model = make_model()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
return model, optimizer""", "setup(0) twice gives two different models", hides=True),
        W("seeded after the model is built", """
model = make_model()
if seed is not None:
    ice_lab.set_seed(seed)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
return model, optimizer""", "setup(0) twice gives two different models"),
    )),
    Exercise(LAB, "fix_compute_loss", right=(
        R("nll_loss of log_softmax", "return F.nll_loss(F.log_softmax(logits, dim=1), labels)"),
        R("nn.CrossEntropyLoss()", "return nn.CrossEntropyLoss()(logits, labels)"),
    ), wrong=(
        W("nll_loss of softmax", "return F.nll_loss(F.softmax(logits, dim=1), labels)",
          "compute_loss must equal F.cross_entropy(logits, labels)"),
        W("the log of softmax, by hand", """
return F.nll_loss(torch.log(F.softmax(logits, dim=1)), labels)""",
          "the log of an underflowed probability is -inf", hides=True),
        W("summed instead of averaged", 'return F.cross_entropy(logits, labels, reduction="sum")',
          "compute_loss must equal F.cross_entropy(logits, labels)"),
        W("softmax twice removed, but log_softmax fed to cross_entropy", """
return F.cross_entropy(F.log_softmax(logits, dim=1) * 2, labels)""",
          "compute_loss must equal F.cross_entropy(logits, labels)"),
    )),
    Exercise(LAB, "fix_train_step", right=(
        R("model.zero_grad() first", """
model.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item()"""),
        R("zero_grad(set_to_none=True)", """
optimizer.zero_grad(set_to_none=True)
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return float(loss)"""),
    ), wrong=(
        W("zero_grad between backward and step", """
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.zero_grad()
optimizer.step()
return loss.item()""", "wipes the gradient just computed", hides=True),
        W("never cleared (the script as it was)", """
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item()""", "accumulates, so clear the gradients"),
        W("the loss returned as a tensor", """
optimizer.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss""", "returns the loss as a Python float"),
        W("two optimizer steps per call", """
optimizer.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
optimizer.step()
return loss.item()""", "optimizer steps: one each"),
    )),
    Exercise(LAB, "fix_evaluate_memory", right=(
        R("inference_mode, and len(loader) batches of equal size", """
device = next(model.parameters()).device
total_loss, correct, seen = 0.0, 0, 0
with torch.inference_mode():
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item()
        correct += (logits.argmax(dim=1) == yb).sum().item()
        seen += len(yb)
return total_loss / len(loader), correct / seen"""),
        R(".item() alone frees each batch's graph", """
total_loss, correct = 0.0, 0
for xb, yb in loader:
    logits = model(xb)
    total_loss += compute_loss(logits, yb).item() * len(yb)
    correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n"""),
    ), wrong=(
        W("the script as it was", """
total_loss, correct = 0.0, 0
for xb, yb in loader:
    logits = model(xb)
    total_loss += compute_loss(logits, yb) * len(yb)
    correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n""", "Live memory still grows"),
        W("detach, no item: a tensor returned", """
total_loss, correct = 0.0, 0
for xb, yb in loader:
    logits = model(xb)
    total_loss += compute_loss(logits, yb).detach() * len(yb)
    correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n""", "the result is still a tensor", hides=True),
        W("no_grad, but the total kept as a tensor", """
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        logits = model(xb)
        total_loss = total_loss + compute_loss(logits, yb) * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n""", "the result is still a tensor"),
    )),
    Exercise(LAB, "fix_evaluate_mode", right=(
        R("eval(), then train() only if it was training", """
was_training = model.training
model.eval()
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
if was_training:
    model.train()
n = len(loader.dataset)
return total_loss / n, correct / n"""),
    ), wrong=(
        W("no_grad without eval()", """
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n""", "dropout is still active"),
        W("eval() and never back", """
model.eval()
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n""", "The model came back in eval() mode"),
        W("train() at the end, whatever the mode was", """
model.eval()
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
model.train()
n = len(loader.dataset)
return total_loss / n, correct / n""", "A model handed over in eval() mode stays in eval()",
          hides=True),
    )),
]
