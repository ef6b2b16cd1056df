"""Right and wrong answers to the exercises of labs/lab-capstone.ipynb (see __init__.py).

The wrong answers come in the families of the mutation round: fitted to a check's own
example (a pixel, a batch size, a sample count, a seed, a class count that the check
happens to use), the symptom removed by changing the problem (layers dropped, another
loss, a clamp, a seeded dropout, the input moved to the CPU, the skip connection
dropped), and plausible bookkeeping bugs (arguments changed in place, the mean of batch
means, a module's own flag set instead of its submodules'). Bugs 9 and 10 come with the
colleague's model (AddCoords, Residual)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-capstone.ipynb"
CAPSTONE = LAB

# The evaluate() loop of bugs 7 and 8, with the lines each answer changes (the batches
# go where the model is, as in the script: run() trains on a GPU when there is one).
_LOOP = """
for xb, yb in loader:
    xb, yb = xb.to(device), yb.to(device)
    logits = model(xb)
    total_loss += compute_loss(logits, yb).item() * len(yb)
    correct += (logits.argmax(dim=1) == yb).sum().item()"""


def _evaluate(before: str = "", after: str = "", loop: str = _LOOP, grad: bool = False,
              end: str = "n = len(loader.dataset)\nreturn total_loss / n, correct / n") -> str:
    """An evaluate() body: ``before``, the loop (under no_grad unless ``grad``), ``after``."""
    body = loop if grad else "with torch.no_grad():" + loop.replace("\n", "\n    ")
    return "\n".join(p for p in ("device = next(model.parameters()).device", before,
                                 "total_loss, correct = 0.0, 0", body.strip("\n"), after, end)
                     if p)


EXERCISES: list[Exercise] = [
    # ================================================================== lab-capstone
    Exercise(LAB, "fix_model", right=(
        R("the head sized by hand, 16 * 32 features", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(16 * 32, 10),
)"""),
        R("nn.LazyLinear(10), which takes its size from the first batch", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.LazyLinear(10),
)"""),
        R("the head sized with a dummy batch through the other layers", """
features = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2),
)
with torch.no_grad():
    n = features.eval()(torch.zeros(1, 1, 8, 8)).shape[1]
return nn.Sequential(*features.train(), nn.Linear(n, 10))"""),
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
)""", "Keep the layers"),
        # mutation round: the check counted convolutions and read the head
        W("the BatchNorm layers dropped", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 4 * 4, 10),
)""", "Missing from the script's layers: ['BatchNorm2d(16"),
        W("a global average pooling and a head of 32", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32, 10),
)""", "a pooling to 1x1 throws away where the strokes are", hides=True),
        W("the Dropout dropped", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 4 * 4, 10),
)""", "Missing from the script's layers: ['Dropout(p=0.2"),
        W("the padding removed and the head sized for it (32 * 2 * 2)", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 2 * 2, 10),
)""", "not in the script: ['Conv2d(1, 16, kernel_size=(3, 3), stride=(1, 1))"),
        W("a softmax after the head", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 4 * 4, 10),
    nn.Softmax(dim=1),
)""", "keep a Linear head with 10 outputs"),
        W("the Dropout's p changed", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.5), nn.Linear(512, 10),
)""", "not in the script: ['Dropout(p=0.5"),
        W("a second pooling, and a head of 128", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(128, 10),
)""", "not in the script: ['MaxPool2d"),
        W("a bigger head, Linear(512, 64), ReLU, Linear(64, 10)", """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(512, 64), nn.ReLU(),
    nn.Linear(64, 10),
)""", "Keep the layers"),
    )),
    Exercise(LAB, "fix_normalise", right=(
        R("a copy of std with 1 where it is 0", """
safe_std = std.clone()
safe_std[safe_std == 0] = 1.0
return (X - mean) / safe_std"""),
        R("torch.where on the result", "return torch.where(std > 0, (X - mean) / std, X - mean)"),
        R("masked_fill on std", "return (X - mean) / std.masked_fill(std == 0, 1.0)"),
        R("torch.where(std == 0, 1.0, std)", "return (X - mean) / torch.where(std == 0, 1.0, std)"),
        R("std plus 1 where it is 0", "return (X - mean) / (std + (std == 0).float())"),
        # held-out round
        R("nan_to_num with every non-finite value set to 0",
          "return torch.nan_to_num((X - mean) / std, nan=0.0, posinf=0.0, neginf=0.0)"),
    ), wrong=(
        W("a tiny epsilon added to std", "return (X - mean) / (std + 1e-8)",
          "A tiny epsilon added to", hides=True),
        W("torch.nan_to_num over the division", "return torch.nan_to_num((X - mean) / std)",
          "torch.nan_to_num hides the NaN", hides=True),
        W("one scale for every pixel (the mean std)", "return (X - mean) / std.mean()",
          "Pixels that vary must be standardised exactly as before"),
        W("std clamped to at least 1", "return (X - mean) / std.clamp_min(1.0)",
          "Pixels that vary must be standardised exactly as before", hides=True),
        # mutation round: the check had one constant pixel, at (0, 0), holding
        # 0, rand pixels of one std, and read its arguments after the call
        W("only pixel (0, 0) patched, the check's constant pixel", """
safe_std = std.clone()
safe_std[..., 0, 0] = 1.0
return (X - mean) / safe_std""", "find such pixels from the statistics"),
        W("std clamped to at least 0.2 (the check's pixels varied more)",
          "return (X - mean) / std.clamp_min(0.2)",
          "a clamp, a threshold or one scale for all changes them"),
        W("a constant pixel told by its mean of 0", """
return (X - mean) / torch.where(mean == 0, torch.ones_like(std), std)""",
          "whatever its mean (a mask from mean == 0 misses it)"),
        W("the caller's std patched in place", """
std[std == 0] = 1.0
return (X - mean) / std""", "changed the std (or mean) it was given, in place"),
        W("X standardised in place", """
X -= mean
X /= torch.where(std > 0, std, torch.ones_like(std))
return X""", "changed the images it was given"),
        W("a threshold of 1e-3 on std", """
return (X - mean) / torch.where(std < 1e-3, torch.ones_like(std), std)""",
          "a clamp, a threshold or one scale for all changes them"),
        W("the lab's three constant pixels patched by position", """
safe = std.clone()
safe[0, 0, 0] = safe[0, 4, 0] = safe[0, 4, 7] = 1.0
return (X - mean) / safe""", "or on where their constant pixels sit"),
        W("NaN set to 0 after the division", """
Z = (X - mean) / std
Z[torch.isnan(Z)] = 0.0
return Z""", "Ink in a pixel that never varied becomes inf", hides=True),
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
        R("a seeded NumPy permutation of the arrays", """
import numpy as np
order = np.random.default_rng(0).permutation(len(images))
X = torch.from_numpy(images[order]).float().unsqueeze(1) / 16
return X, torch.from_numpy(labels[order])"""),
        R("the original order, reversed", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
return X.flip(0), y.flip(0)"""),
        # held-out round
        R("the same seeded permutation made twice, once for each tensor", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
def perm():
    return torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
return X[perm()], y[perm()]"""),
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
        # mutation round: the check looked at the pairs only
        W("sorted by label, the pairs kept", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = y.argsort()
return X[order], y[order]""", "the data is sorted by label", hides=True),
        W("the pixels left in 0..16", """
X = torch.from_numpy(images).float().unsqueeze(1)
y = torch.from_numpy(labels)
order = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
return X[order], y[order]""", "keep them in 0..1"),
        W("shuffled with the global random state", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = torch.randperm(len(X))
return X[order], y[order]""", "gives another order each call"),
        W("the labels turned into floats", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels).float()
order = torch.randperm(len(X), generator=torch.Generator().manual_seed(0))
return X[order], y[order]""", "int64 labels"),
        W("the size of the data set written in (1797)", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = torch.randperm(1797, generator=torch.Generator().manual_seed(0))
return X[order], y[order]""", "fails on another set of"),
        W("the first 1,500 only", """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = torch.randperm(1500, generator=torch.Generator().manual_seed(0))
return X[order], y[order]""", "must still return all 1797 images"),
        W("the images flipped left to right", """
X = torch.from_numpy(images).float().unsqueeze(1).flip(-1) / 16
y = torch.from_numpy(labels)
return X, y""", "do not belong to their image"),
        # held-out round: the same order each call, bought by reseeding
        W("every global generator reseeded before an unseeded shuffle", """
ice_lab.set_seed(0)
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
order = torch.randperm(len(X))
return X[order], y[order]""", "reseeds a global random generator", hides=True),
    )),
    Exercise(LAB, "fix_setup", right=(
        R("torch.manual_seed instead of set_seed", """
if seed is not None:
    torch.manual_seed(seed)
model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3)"""),
        R("seeded inside fork_rng, the default weight decay spelt out", """
with torch.random.fork_rng():
    if seed is not None:
        torch.manual_seed(seed)
    model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)"""),
        R("two parameter groups, no weight decay on biases", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
rest = [p for n, p in model.named_parameters() if not n.endswith("weight")]
groups = [{"params": decay}, {"params": rest, "weight_decay": 0.0}]
return model, torch.optim.AdamW(groups, lr=3e-3)"""),
        # held-out round
        R("the script's two builds kept, the optimizer made last", """
model = make_model()
if seed is not None:
    ice_lab.set_seed(seed)
    model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3)"""),
    ), wrong=(
        W("the optimizer built from another fresh model", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
optimizer = torch.optim.AdamW(make_model().parameters(), lr=3e-3)
return model, optimizer""", "the optimizer does not hold"),
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
        # mutation round: the check called setup(0) only
        W("seeded with 0 whatever the seed", """
ice_lab.set_seed(0)
model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3)""",
          "setup(1) gives the same model as setup(0)"),
        W("SGD instead of the script's AdamW", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
return model, torch.optim.SGD(model.parameters(), lr=3e-3)""", "keep the script's AdamW"),
        W("(optimizer, model), in the other order", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
return torch.optim.AdamW(model.parameters(), lr=3e-3), model""",
          "returns (model, optimizer), in that order"),
        W("the optimizer also holds another model's parameters", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
params = list(model.parameters()) + list(make_model().parameters())
return model, torch.optim.AdamW(params, lr=3e-3)""", "parameters of no model"),
        W("no guard for seed=None", """
ice_lab.set_seed(seed)
model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3)""",
          "seed=None means no seeding"),
        W("another learning rate", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=1e-3)""", "with lr [0.001]"),
        W("Adam instead of AdamW", """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
return model, torch.optim.Adam(model.parameters(), lr=3e-3)""", "setup() builds Adam with"),
        # held-out round: setup(None) was called, never compared
        W("seed=None seeded with 0", """
ice_lab.set_seed(0 if seed is None else seed)
model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3)""",
          'although seed=None means "do not seed"'),
        W("if seed: (a seed of 0 taken for no seed)", """
if seed:
    ice_lab.set_seed(seed)
model = make_model()
return model, torch.optim.AdamW(model.parameters(), lr=3e-3)""",
          "0 is a seed like any other"),
    )),
    Exercise(LAB, "fix_compute_loss", right=(
        R("nll_loss of log_softmax", "return F.nll_loss(F.log_softmax(logits, dim=1), labels)"),
        R("nn.CrossEntropyLoss()", "return nn.CrossEntropyLoss()(logits, labels)"),
        R("gather of log_softmax", """
log_p = F.log_softmax(logits, dim=1)
return -log_p.gather(1, labels[:, None]).mean()"""),
        R("logsumexp minus the true logit", """
picked = logits.gather(1, labels.unsqueeze(1)).squeeze(1)
return (torch.logsumexp(logits, dim=1) - picked).mean()"""),
        R("in float64, then back", "return F.cross_entropy(logits.double(), labels).float()"),
        # held-out round: a softmax of log-probabilities is the softmax itself
        R("cross_entropy of log_softmax", "return F.cross_entropy(F.log_softmax(logits, -1), labels)"),
    ), wrong=(
        W("nll_loss of softmax", "return F.nll_loss(F.softmax(logits, dim=1), labels)",
          "nll_loss expects log-probabilities"),
        W("the log of softmax, by hand", """
return F.nll_loss(torch.log(F.softmax(logits, dim=1)), labels)""",
          "the log of an underflowed probability is -inf", hides=True),
        W("summed instead of averaged", 'return F.cross_entropy(logits, labels, reduction="sum")',
          "it changes with the batch size"),
        W("softmax twice removed, but log_softmax fed to cross_entropy", """
return F.cross_entropy(F.log_softmax(logits, dim=1) * 2, labels)""",
          "is not the mean cross-entropy of these raw logits"),
        # mutation round: the check used one batch of 16 with 10 classes
        W("summed, then divided by 16 (the check's batch)",
          'return F.cross_entropy(logits, labels, reduction="sum") / 16',
          "it changes with the batch size"),
        W("one-hot targets for 10 classes, by hand", """
return -(F.one_hot(labels, 10) * F.log_softmax(logits, dim=1)).sum(dim=1).mean()""",
          "the lab's 10 classes are written into it"),
        W("label smoothing added", "return F.cross_entropy(logits, labels, label_smoothing=0.1)",
          "The check could not tell what went wrong"),
        W("a log-sum-exp by hand, without the max", """
log_z = logits.exp().sum(dim=1).log()
return (log_z - logits.gather(1, labels[:, None]).squeeze(1)).mean()""",
          "exp(300) overflows float32"),
        W("the loss as a float", "return F.cross_entropy(logits, labels).item()",
          "0-d tensor with its graph"),
        W("a multi-class margin loss", "return F.multi_margin_loss(logits, labels)",
          "The check could not tell what went wrong"),
        W("divided by the number of classes too", """
return F.cross_entropy(logits, labels) / logits.shape[1]""",
          "The check could not tell what went wrong"),
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
        R("zero_grad after step", """
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
optimizer.zero_grad()
return loss.item()"""),
        R("every .grad set to None by hand", """
for p in model.parameters():
    p.grad = None
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item()"""),
        R("backward(retain_graph=True)", """
optimizer.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward(retain_graph=True)
optimizer.step()
return loss.item()"""),
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
return loss.item()""", ".grad accumulates across steps"),
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
        # mutation round: the check watched one weight, at a learning rate of 0
        W("the loss of a second forward pass, after the step", """
optimizer.zero_grad()
compute_loss(model(xb), yb).backward()
optimizer.step()
return compute_loss(model(xb), yb).item()""", "the losses after each step (a second forward pass)"),
        W("only the weights' gradients cleared", """
for name, p in model.named_parameters():
    if name.endswith("weight"):
        p.grad = None
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item()""", "Only some gradients are cleared: ['1.bias']"),
        W("the gradient clipped instead of cleared", """
loss = compute_loss(model(xb), yb)
loss.backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
optimizer.step()
return loss.item()""", "Clipping the gradient only bounds the sum", hides=True),
        W("cleared, and clipped to norm 1", """
optimizer.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward()
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
optimizer.step()
return loss.item()""", "clipping changes the update"),
        W("the loss divided by the batch size before backward", """
optimizer.zero_grad()
loss = compute_loss(model(xb), yb)
(loss / len(xb)).backward()
optimizer.step()
return loss.item()""", "the loss was divided by the batch size (32)"),
        W("a plain SGD update by hand at the script's rate", """
model.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward()
with torch.no_grad():
    for p in model.parameters():
        p -= 3e-3 * p.grad
return loss.item()""", "not an update by hand"),
        W("the loss times the batch size returned", """
optimizer.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item() * len(xb)""", "The check could not tell what went wrong"),
        W("cleared only while the optimizer holds no state", """
if not optimizer.state:
    optimizer.zero_grad()
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item()""", "On its second call, train_step stepped on the sum"),
    )),
    Exercise(LAB, "fix_evaluate_memory", right=(
        R("inference_mode, each batch weighed by its size", """
device = next(model.parameters()).device
total_loss, correct, seen = 0.0, 0, 0
with torch.inference_mode():
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
        seen += len(yb)
return total_loss / seen, correct / seen"""),
        R(".item() alone frees each batch's graph", _evaluate(grad=True)),
        R("a summed loss kept as a tensor under no_grad, .item() at the end", """
device = next(model.parameters()).device
total_loss, correct = torch.zeros(()), 0
with torch.no_grad():
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb)
        total_loss = total_loss + F.cross_entropy(logits, yb, reduction="sum").cpu()
        correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss.item() / n, correct / n"""),
    ), wrong=(
        W("the script as it was", _evaluate(
            grad=True, loop=_LOOP.replace(".item() * len", " * len")),
          "Live memory still grows"),
        W("detach, no item: a tensor returned", _evaluate(
            grad=True, loop=_LOOP.replace(".item() * len", ".detach() * len")),
          "the result is still a tensor", hides=True),
        W("no_grad, but the total kept as a tensor", _evaluate(loop=_LOOP.replace(
            "total_loss += compute_loss(logits, yb).item() * len(yb)",
            "total_loss = total_loss + compute_loss(logits, yb) * len(yb)")),
          "the result is still a tensor"),
        # mutation round: the check used 27 batches of 10 over 270 digits and
        # checked the types only
        W("the mean of the batch means (equal batches assumed)", """
total_loss, correct, seen = 0.0, 0, 0
with torch.inference_mode():
    for xb, yb in loader:
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item()
        correct += (logits.argmax(dim=1) == yb).sum().item()
        seen += len(yb)
return total_loss / len(loader), correct / seen""", "the mean of the batch means"),
        W("the summed loss returned, not the mean", _evaluate(
            end="n = len(loader.dataset)\nreturn total_loss, correct / n"),
          "returns the summed loss, not the mean"),
        W("argmax over the batch dimension", _evaluate(
            loop=_LOOP.replace("argmax(dim=1)", "argmax(dim=0)")), "(the class dimension)"),
        W("the number of samples written in (270)", _evaluate(
            end="return total_loss / 270, correct / 270"), "it divides by a fixed number"),
        W("the accuracy returned as a tensor", _evaluate(
            loop=_LOOP.replace(".sum().item()", ".sum()")),
          "returns the accuracy as a Tensor"),
        W("the accuracy divided by the number of batches", _evaluate(
            end="n = len(loader.dataset)\nreturn total_loss / n, correct / len(loader)"),
          "counted over every sample"),
        W("the first batch only", """
with torch.no_grad():
    xb, yb = next(iter(loader))
    logits = model(xb)
    return compute_loss(logits, yb).item(), (logits.argmax(1) == yb).float().mean().item()""",
          "evaluate every batch of the loader"),
        # held-out round: every check ran on the CPU, where the batches are
        W("the batches left where the loader made them", _evaluate(
            loop=_LOOP.replace("    xb, yb = xb.to(device), yb.to(device)\n", "")),
          "it hands the model batches where the loader made them"),
        W("each batch's loss tensor kept in a list, summed at the end", """
device = next(model.parameters()).device
losses, correct, n = [], 0, 0
for xb, yb in loader:
    xb, yb = xb.to(device), yb.to(device)
    logits = model(xb)
    losses.append(compute_loss(logits, yb) * len(yb))
    correct += (logits.argmax(dim=1) == yb).sum().item()
    n += len(yb)
return float(sum(losses)) / n, correct / n""", "Live memory still grows"),
    )),
    Exercise(LAB, "fix_evaluate_mode", right=(
        R("eval(), then train() only if it was training", _evaluate(
            before="was_training = model.training\nmodel.eval()",
            after="if was_training:\n    model.train()")),
        R("every module's own flag saved and put back", _evaluate(
            before="modes = [(m, m.training) for m in model.modules()]\nmodel.eval()",
            after="for m, training in modes:\n    m.training = training")),
        R("a deep copy evaluated in eval()", """
import copy
frozen = copy.deepcopy(model).eval()
device = next(frozen.parameters()).device
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = frozen(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n"""),
    ), wrong=(
        W("no_grad without eval()", _evaluate(), "dropout is still active"),
        W("eval() and never back", _evaluate(before="model.eval()"),
          "The model came back in eval() mode"),
        W("train() at the end, whatever the mode was", _evaluate(
            before="model.eval()", after="model.train()"),
          "A model handed over in eval() mode stays in eval()", hides=True),
        # mutation round: the check read the top module's flag only
        W("eval(), then only the top module's flag restored", _evaluate(
            before="was_training = model.training\nmodel.eval()",
            after="model.training = was_training"), "sets one attribute"),
        W("model.training = False instead of eval()", _evaluate(
            before="was_training = model.training\nmodel.training = False",
            after="model.train(was_training)"), "dropout is still active"),
        W("the random state seeded, dropout still on", _evaluate(before="torch.manual_seed(0)"),
          "Evaluating changed BatchNorm's running statistics", hides=True),
        W("eval() on the Dropout modules only", _evaluate(
            before="drops = [m for m in model.modules() if isinstance(m, nn.Dropout)]\n"
                   "for m in drops:\n    m.eval()",
            after="for m in drops:\n    m.train()"),
          "Evaluating changed BatchNorm's running statistics"),
        W("the mode restored from itself, after eval()", _evaluate(
            before="model.eval()", after="model.train(model.training)"),
          "The model came back in eval() mode"),
        # held-out round: the check's models had no layer of their own
        W("eval() on every BatchNorm and dropout class, their flags restored", _evaluate(
            before="kinds = (nn.modules.batchnorm._BatchNorm, nn.modules.dropout._DropoutNd)\n"
                   "saved = {m: m.training for m in model.modules() if isinstance(m, kinds)}\n"
                   "for m in saved:\n    m.eval()",
            after="for m, t in saved.items():\n    m.train(t)"),
          "Switching chosen layers misses the others"),
        W("eval() and the mode restored, the batches left on the CPU", _evaluate(
            before="was_training = model.training\nmodel.eval()",
            after="model.train(was_training)",
            loop=_LOOP.replace("    xb, yb = xb.to(device), yb.to(device)\n", "")),
          "it hands the model batches where the loader made them"),
    )),
    # ====================================================== the colleague's model (bugs 9, 10)
    Exercise(LAB, "fix_add_coords", right=(
        R("device= only (the dtype promoted by torch.cat)", """
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)"""),
        R("made on the CPU, then .to(x)", """
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h).to(x).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w).to(x).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)"""),
        R("torch.meshgrid on x's device", """
n, _, h, w = x.shape
grid = torch.meshgrid(torch.linspace(-1, 1, h, device=x.device),
                      torch.linspace(-1, 1, w, device=x.device), indexing="ij")
coords = torch.stack(grid).unsqueeze(0).expand(n, 2, h, w)
return torch.cat([x, coords], dim=1)"""),
    ), wrong=(
        W("the colleague's AddCoords", """
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "must be made where x is, whatever device"),
        W("made on the device run() trains on, best_device()", """
n, _, h, w = x.shape
where = ice_lab.best_device()
rows = torch.linspace(-1, 1, h, device=where).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w, device=where).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "best_device()"),
        W("made on the lab's other device, OTHER", """
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h, device=OTHER).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w, device=OTHER).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "a device written into the code"),
        W("a hard-coded 'cuda'", """
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h, device="cuda").view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w, device="cuda").view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "a device written into the code"),
        W("x moved to the CPU first", """
x = x.cpu()
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "moving x to the CPU hides the error", hides=True),
        W("a grid for 8x8 images", """
n = x.shape[0]
rows = torch.linspace(-1, 1, 8, device=x.device).view(1, 1, 8, 1).expand(n, 1, 8, 8)
cols = torch.linspace(-1, 1, 8, device=x.device).view(1, 1, 1, 8).expand(n, 1, 8, 8)
return torch.cat([x, rows, cols], dim=1)""", "the sizes of the lab's 8x8 digits are written into it"),
        W("the coordinates from 0 to 1", """
n, _, h, w = x.shape
rows = torch.linspace(0, 1, h, device=x.device).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(0, 1, w, device=x.device).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "computes other values than the colleague's"),
        W("h for both sizes (square images assumed)", """
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, h, device=x.device).view(1, 1, 1, h).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "the sizes of the lab's 8x8 digits are written into it"),
        W("columns before rows", """
n, _, h, w = x.shape
rows = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, cols, rows], dim=1)""", "computes other values than the colleague's"),
        W("the device of the module's first parameter", """
n, _, h, w = x.shape
where = next(self.parameters()).device
rows = torch.linspace(-1, 1, h, device=where).view(1, 1, h, 1).expand(n, 1, h, w)
cols = torch.linspace(-1, 1, w, device=where).view(1, 1, 1, w).expand(n, 1, h, w)
return torch.cat([x, rows, cols], dim=1)""", "it has no parameters"),
    )),
    Exercise(LAB, "fix_residual", right=(
        R("h = h + x", """
h = self.relu(self.bn(self.conv(x)))
h = h + x
return h"""),
        R("a clone of h, then += x", """
h = self.relu(self.bn(self.conv(x))).clone()
h += x
return h"""),
        R("torch.add, with F.relu", "return torch.add(F.relu(self.bn(self.conv(x))), x)"),
        R("x + h, the other way round", "return x + self.relu(self.bn(self.conv(x)))"),
    ), wrong=(
        W("the colleague's forward", """
h = self.relu(self.bn(self.conv(x)))
h += x
return h""", "is still changed in place"),
        W("the ReLU made out of place, h += x kept", """
self.relu = nn.ReLU()
h = self.relu(self.bn(self.conv(x)))
h += x
return h""", "inplace=False on the ReLU is not enough"),
        W("x += h instead", """
h = self.relu(self.bn(self.conv(x)))
x += h
return x""", "x, the block's input, was changed in place"),
        W("h += x under torch.no_grad()", """
h = self.relu(self.bn(self.conv(x)))
with torch.no_grad():
    h += x
return h""", "under torch.no_grad(), which bumps the version"),
        W("h.data += x", """
h = self.relu(self.bn(self.conv(x)))
h.data += x
return h""", "changing h through .data silences the version check", hides=True),
        W("h detached, then x added", """
h = self.relu(self.bn(self.conv(x)))
return h.detach() + x""", "h.detach() or h.data hides the error", hides=True),
        W("the skip connection dropped", "return self.relu(self.bn(self.conv(x)))",
          "The skip connection is gone", hides=True),
        W("x added before the ReLU", "return self.relu(self.bn(self.conv(x)) + x)",
          "x is added before the ReLU"),
        W("x detached in the sum", "return F.relu(self.bn(self.conv(x))) + x.detach()",
          "the input does not"),
        W("relu_ then add_, by hand", """
h = self.bn(self.conv(x)).relu_()
return h.add_(x)""", "is still changed in place"),
    )),
]
