"""The usual wrong answer to each graded lab exercise, and the hint its check must print.

Each entry replaces the body of one solution cell (the lines between ``# BEGIN SOLUTION``
and ``# END SOLUTION``, indented like them) in ``labs/<lab>``; the check cell named by
``check`` must then fail with an ``AssertionError`` whose message contains ``hint``.
tests/test_student_editions.py runs them (one kernel per lab). When a lab's check or hint
changes, update the entry here; a new exercise needs at least one entry.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WrongAnswer:
    lab: str  # path from the repository root
    solution: str  # grade_id of the solution cell
    check: str  # grade_id of the visible check cell that must catch it
    why: str  # the mistake, in a few words
    code: str  # replaces the solution region
    hint: str  # a piece of the check's assert message naming the mistake
    # A wrong answer that fails with a raw error before any hint (documented, so that the
    # check can be improved): "ErrorName: a piece of its message"; then hint is "".
    raw: str = ""
    # Code run after the check, when the wrong answer changes global state (autograd off).
    cleanup: str = ""


AUTOGRAD = "labs/lab-autograd.ipynb"
DATASETS = "labs/lab-datasets.ipynb"
DEVICE = "labs/lab-device.ipynb"
NAN = "labs/lab-nan.ipynb"
OOM = "labs/lab-oom.ipynb"
TENSORS = "labs/lab-tensors.ipynb"
TRAINING = "labs/lab-training.ipynb"
CAPSTONE = "labs/lab-capstone.ipynb"

WRONG_ANSWERS: list[WrongAnswer] = [
    # ------------------------------------------------------------------ lab-autograd
    WrongAnswer(
        AUTOGRAD, "train_step_zero_grad", "check_train_step_zero_grad",
        "zero_grad() between backward() and step()",
        """
loss = F.mse_loss(model(x), y)
loss.backward()
optimizer.zero_grad()
optimizer.step()
return loss.item()
""",
        "The weights did not move: zero_grad() between backward() and step() wipes the fresh gradient",
    ),
    WrongAnswer(
        AUTOGRAD, "train_step_zero_grad", "check_train_step_zero_grad",
        "no zero_grad() at all",
        """
loss = F.mse_loss(model(x), y)
loss.backward()
optimizer.step()
return loss.item()
""",
        "The step used an accumulated gradient",
    ),
    WrongAnswer(
        AUTOGRAD, "train_chunks_detach", "check_train_chunks_carry",
        "h reset to zeros every chunk instead of detached",
        """
losses = []
for x_chunk, y_chunk in zip(inputs, targets):
    h = torch.zeros(1, cell.hidden_size)
    preds = []
    for x in x_chunk:
        h = cell(x, h)
        preds.append(head(h))
    loss = F.mse_loss(torch.stack(preds), y_chunk)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
return losses, h
""",
        "The hidden state was not carried from one chunk to the next",
    ),
    WrongAnswer(
        AUTOGRAD, "fixed_gate_inplace", "check_fixed_gate_inplace",
        "h.detach() before the in-place add",
        """
h = torch.sigmoid(self.fc1(x)).detach()
h += self.skip(x)
return self.fc2(h)
""",
        "Some weights get no gradient: h.detach() or h.data hides the error",
    ),
    WrongAnswer(
        AUTOGRAD, "combine_keeps_graph", "check_combine_keeps_graph",
        "torch.tensor of the .item() values",
        """
return torch.tensor([loss.item() for loss in losses]).mean()
""",
        "combine must return a tensor with a grad_fn",
    ),
    # ------------------------------------------------------------------ lab-datasets
    WrongAnswer(
        DATASETS, "collate_fix", "collate_check",
        "a float mask",
        """
sequences, targets = zip(*batch)
lengths = torch.tensor([len(s) for s in sequences])
padded = pad_sequence(sequences, batch_first=True)
mask = (torch.arange(padded.shape[1])[None, :] < lengths[:, None]).float()
return padded, mask, torch.tensor(targets, dtype=torch.int64)
""",
        "mask must be a bool tensor [batch, time]",
    ),
    WrongAnswer(
        DATASETS, "worker_fix", "worker_check",
        "seed_worker: reseeding NumPy's global generator",
        """
np.random.seed(get_worker_info().seed % 2**32)
""",
        "workers 0 and 1 still draw identical noise",
    ),
    WrongAnswer(
        DATASETS, "worker_fix", "worker_check",
        "a generator seeded from worker_id alone",
        """
get_worker_info().dataset.rng = np.random.default_rng(worker_id)
""",
        "the noise ignores the loader's generator",
    ),
    WrongAnswer(
        DATASETS, "stats_fix", "stats_check",
        "ImageNet's statistics pasted",
        """
return 0.485, 0.229
""",
        "0.485 is ImageNet's mean",
    ),
    WrongAnswer(
        DATASETS, "stats_fix", "stats_check",
        "the validation set's statistics",
        """
pixels = val_t.tensors[0]
return pixels.mean().item(), pixels.std().item()
""",
        "these are the validation set's statistics",
    ),
    # ------------------------------------------------------------------ lab-device
    WrongAnswer(
        DEVICE, "device_train_step", "device_train_step_check",
        "x.to(device) without assigning the result",
        """
model.to(device)
x.to(device)
y.to(device)
""",
        "Move the model, x AND y",
    ),
    WrongAnswer(
        DEVICE, "device_forward", "device_forward_check",
        "new tensors in forward created on the default device",
        """
batch, length, _ = x.shape
position = torch.arange(length) / length
position = position.expand(batch, length).unsqueeze(-1)
h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
weights = torch.ones(length) / length
return self.head((h * weights[None, :, None]).sum(dim=1))
""",
        "Create each tensor in forward with device=x.device",
    ),
    WrongAnswer(
        DEVICE, "device_validate_labels", "device_validate_labels_check",
        "checking the largest label only",
        """
if labels.max() >= num_classes:
    raise ValueError(f"label {labels.max().item()} is not a class index 0..{num_classes - 1}")
""",
        "negative labels are out of range too",
    ),
    # ------------------------------------------------------------------ lab-nan
    WrongAnswer(
        NAN, "stable_cross_entropy", "check_stable_cross_entropy",
        "logits clamped before softmax",
        """
clamped = logits.clamp(max=80)
probs = torch.exp(clamped) / torch.exp(clamped).sum(dim=1, keepdim=True)
return -torch.log(probs[torch.arange(len(labels)), labels]).mean()
""",
        "Clamping the logits (e.g. clamp(max=80))",
    ),
    WrongAnswer(
        NAN, "stable_cross_entropy", "check_stable_cross_entropy",
        "max subtracted, but log of the softmax probability",
        """
shifted = logits - logits.max(dim=1, keepdim=True).values
probs = torch.exp(shifted) / torch.exp(shifted).sum(dim=1, keepdim=True)
return -torch.log(probs[torch.arange(len(labels)), labels]).mean()
""",
        "log(softmax) still meets log(0)",
    ),
    WrongAnswer(
        NAN, "msle_log1p", "check_msle_log1p",
        "an epsilon inside the log",
        """
return ((torch.log(pred + 1e-8) - torch.log(target + 1e-8)) ** 2).mean()
""",
        "log(x + 1e-8) is finite but makes every 0 count a huge error",
    ),
    WrongAnswer(
        NAN, "fixed_run", "check_fixed_run",
        "a learning rate so small that nothing moves",
        """
return train_steps(model, X, y, F.mse_loss, lr=1e-6, steps=100)
""",
        "A learning rate so small that nothing moves (1e-6)",
    ),
    WrongAnswer(
        NAN, "clean_data", "check_clean_data",
        "X[~torch.isnan(X)]: single pixels dropped",
        """
return X[~torch.isnan(X)], y
""",
        "X[~torch.isnan(X)] drops single pixels and flattens the data",
    ),
    # ------------------------------------------------------------------ lab-oom
    WrongAnswer(
        OOM, "oom_leak", "oom_leak_check",
        ".detach() on total_loss only",
        """
total_loss += loss.detach()
val_history.append(F.cross_entropy(model(Xv), Yv))
""",
        "keep loss.item() (or compute the validation loss under torch.no_grad())",
    ),
    WrongAnswer(
        OOM, "oom_batch_search", "oom_batch_search_check",
        "doubling only, no bisection",
        """
def fits(batch_size: int) -> bool:
    try:
        with memory_limit(limit_mib):
            training_step(batch_size)
        return True
    except torch.OutOfMemoryError:
        return False
    finally:
        search_model.zero_grad(set_to_none=True)

best, size = 0, 1
while fits(size):
    best, size = size, size * 2
return best
""",
        "Doubling alone only brackets the answer",
    ),
    WrongAnswer(
        OOM, "oom_eval", "oom_eval_check",
        ".detach() after the forward pass",
        """
logits = model(x).detach()
loss = F.cross_entropy(logits, y)
accuracy = (logits.argmax(dim=1) == y).float().mean()
""",
        ".detach() after the forward pass is too late",
    ),
    WrongAnswer(
        OOM, "oom_eval", "oom_eval_check",
        "torch.set_grad_enabled(False) left switched off",
        """
torch.set_grad_enabled(False)
logits = model(x)
loss = F.cross_entropy(logits, y)
accuracy = (logits.argmax(dim=1) == y).float().mean()
""",
        "autograd is still off after evaluate_fixed",
        cleanup="torch.set_grad_enabled(True)",
    ),
    # ------------------------------------------------------------------ lab-tensors
    WrongAnswer(
        TENSORS, "predict_float32", "check_predict_float32",
        "model.double() instead of converting the data",
        """
model.double()
return model(torch.as_tensor(array))
""",
        "model.double() hides the error",
    ),
    WrongAnswer(
        TENSORS, "predict_float32", "check_predict_float32",
        "torch.tensor(array) keeps NumPy's float64",
        """
return model(torch.tensor(array))
""",
        "torch.from_numpy and torch.tensor keep NumPy's float64",
    ),
    WrongAnswer(
        TENSORS, "residual_shape", "check_residual_shape",
        "the target unsqueezed instead of the prediction squeezed",
        """
return pred - target.unsqueeze(1)
""",
        "(6, 1) means you unsqueezed the target",
    ),
    WrongAnswer(
        TENSORS, "per_step_layout", "check_per_step_layout",
        "reshape without transposing first",
        """
return x.reshape(-1, x.shape[1])
""",
        "without transposing first mixes time steps and channels",
    ),
    # ------------------------------------------------------------------ lab-training
    WrongAnswer(
        TRAINING, "zero_grad_fix", "zero_grad_check",
        "zero_grad() once per epoch",
        """
total = 0.0
optimizer.zero_grad()
for xb, yb in loader:
    loss = mse(model(xb), yb)
    loss.backward()
    optimizer.step()
    total += loss.item()
return total / len(loader)
""",
        "are the gradients cleared on every batch",
    ),
    WrongAnswer(
        TRAINING, "eval_fix", "eval_check",
        "torch.no_grad() without model.eval()",
        """
total, correct, n = 0.0, 0, 0
with torch.no_grad():
    for xb, yb in loader:
        out = model(xb)
        total += loss_fn(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
return total / n, correct / n
""",
        "is the model in eval() mode (no_grad alone is not enough)?",
    ),
    WrongAnswer(
        TRAINING, "eval_fix", "eval_check",
        "model.train() at the end whatever the mode was",
        """
model.eval()
total, correct, n = 0.0, 0, 0
with torch.no_grad():
    for xb, yb in loader:
        out = model(xb)
        total += loss_fn(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
model.train()
return total / n, correct / n
""",
        "a model that was in eval mode must stay in eval mode",
    ),
    WrongAnswer(
        TRAINING, "scheduler_fix", "scheduler_check",
        "the scheduler stepped every batch",
        """
lrs, val_losses = [], []
for epoch in range(epochs):
    model.train()
    lrs.append(optimizer.param_groups[0]["lr"])
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss_fn(model(xb), yb).backward()
        optimizer.step()
        scheduler.step()
    val_losses.append(evaluate(model, val_loader, loss_fn)[0])
return {"lr": lrs, "val_loss": val_losses}
""",
        "step it once per epoch, after the batches",
    ),
    WrongAnswer(
        TRAINING, "accumulation_fix", "accumulation_check",
        "micro-batch losses not divided",
        """
model.zero_grad()
for xb, yb in micro_batches:
    loss_fn(model(xb), yb).backward()
""",
        "divide each micro-batch loss by the number of micro-batches",
    ),
    WrongAnswer(
        TRAINING, "nan_fix", "nan_check",
        "a learning rate merely tiny",
        """
optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
losses = []
for epoch in range(epochs):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = mse(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
return losses
""",
        "no blow-up, but the model does not learn either",
    ),
    # ------------------------------------------------------------------ lab-capstone
    WrongAnswer(
        CAPSTONE, "fix_model", "check_model",
        "a smaller network (one convolution) instead of a smaller head",
        """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(16 * 4 * 4, 10),
)
""",
        "Keep both convolutions",
    ),
    WrongAnswer(
        CAPSTONE, "fix_normalise", "check_normalise",
        "a tiny epsilon added to std",
        """
return (X - mean) / (std + 1e-8)
""",
        "A tiny epsilon added to std",
    ),
    WrongAnswer(
        CAPSTONE, "fix_load_digits", "check_load_digits",
        "labels shuffled with a permutation of their own",
        """
X = torch.from_numpy(images).float().unsqueeze(1) / 16
y = torch.from_numpy(labels)
g = torch.Generator().manual_seed(0)
return X[torch.randperm(len(X), generator=g)], y[torch.randperm(len(y), generator=g)]
""",
        "Shuffling the labels with a permutation of their own",
    ),
    WrongAnswer(
        CAPSTONE, "fix_setup", "check_setup",
        "the optimizer built from another model's parameters",
        """
if seed is not None:
    ice_lab.set_seed(seed)
model = make_model()
optimizer = torch.optim.AdamW(make_model().parameters(), lr=3e-3)
return model, optimizer
""",
        "build it from the parameters of the model that setup() returns",
    ),
    WrongAnswer(
        CAPSTONE, "fix_setup", "check_setup",
        "the seeding dropped",
        """
model = make_model()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
return model, optimizer
""",
        "Dropping the seeding makes runs unrepeatable",
    ),
    WrongAnswer(
        CAPSTONE, "fix_compute_loss", "check_compute_loss",
        "nll_loss of softmax probabilities",
        """
return F.nll_loss(F.softmax(logits, dim=1), labels)
""",
        "nll_loss expects log-probabilities",
    ),
    WrongAnswer(
        CAPSTONE, "fix_compute_loss", "check_compute_loss",
        "the log of softmax probabilities",
        """
return F.nll_loss(torch.log(F.softmax(logits, dim=1)), labels)
""",
        "the log of an underflowed probability is -inf",
    ),
    WrongAnswer(
        CAPSTONE, "fix_train_step", "check_train_step",
        "no zero_grad()",
        """
loss = compute_loss(model(xb), yb)
loss.backward()
optimizer.step()
return loss.item()
""",
        ".grad accumulates",
    ),
    WrongAnswer(
        CAPSTONE, "fix_evaluate_memory", "check_evaluate_memory",
        "loss.detach() instead of loss.item()",
        """
total_loss, correct = 0.0, 0
for xb, yb in loader:
    logits = model(xb)
    total_loss += compute_loss(logits, yb).detach() * len(yb)
    correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n
""",
        "total += loss.detach() stops the graph, but the result is still a tensor",
    ),
    WrongAnswer(
        CAPSTONE, "fix_evaluate_mode", "check_evaluate_mode",
        "torch.no_grad() without model.eval()",
        """
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n
""",
        "torch.no_grad() turns off gradients, not dropout: call model.eval()",
    ),
    WrongAnswer(
        CAPSTONE, "fix_evaluate_mode", "check_evaluate_mode",
        "model.eval() never undone",
        """
model.eval()
total_loss, correct = 0.0, 0
with torch.no_grad():
    for xb, yb in loader:
        logits = model(xb)
        total_loss += compute_loss(logits, yb).item() * len(yb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
n = len(loader.dataset)
return total_loss / n, correct / n
""",
        "The model came back in eval() mode",
    ),
    WrongAnswer(
        CAPSTONE, "fix_model", "check_model",
        "the head left sized for 28x28 images",
        """
return nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 14 * 14, 10),
)
""",
        "the head is still sized for 28x28 images",
    ),
    # ------------------------------------------------------------------ raw errors, no hint yet
    WrongAnswer(
        AUTOGRAD, "train_chunks_detach", "check_train_chunks_graph",
        "backward(retain_graph=True) instead of detaching h (the fix the error message suggests)",
        """
h = torch.zeros(1, cell.hidden_size)
losses = []
for x_chunk, y_chunk in zip(inputs, targets):
    preds = []
    for x in x_chunk:
        h = cell(x, h)
        preds.append(head(h))
    loss = F.mse_loss(torch.stack(preds), y_chunk)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
    losses.append(loss.item())
return losses, h
""",
        "retain_graph=True is not a fix",
    ),
    WrongAnswer(
        TRAINING, "scheduler_fix", "scheduler_check",
        "every scheduler stepped the same way, ReduceLROnPlateau without the validation loss",
        """
lrs, val_losses = [], []
for epoch in range(epochs):
    model.train()
    lrs.append(optimizer.param_groups[0]["lr"])
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss_fn(model(xb), yb).backward()
        optimizer.step()
    val_losses.append(evaluate(model, val_loader, loss_fn)[0])
    scheduler.step()
return {"lr": lrs, "val_loss": val_losses}
""",
        "it needs the metric, scheduler.step(val_loss)",
    ),
]
