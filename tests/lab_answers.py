"""Right and wrong answers to every graded lab exercise, and the hint each wrong one gets.

For each exercise (a solution cell's ``grade_id`` in a lab), ``right`` holds the answers the
chapter teaches besides the lab's own solution, and ``wrong`` at least three mistakes
learners make, one or more of which hide the symptom (``hides=True``: the error or the
NaN goes away, the lesson does not). Each answer's ``code`` replaces the lines between
``# BEGIN SOLUTION`` and ``# END SOLUTION`` (indented like them). A wrong answer's ``hint``
is a piece of the assert message that must name it: the first cell to fail must be one of
the exercise's visible checks, with an ``AssertionError`` holding ``hint``.
tests/test_lab_answers.py runs them all, one kernel per lab. ``cleanup`` runs after an
answer's cells (for answers that change global state).

When a check or its hint changes, update the entry here; a new exercise needs its entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Answer:
    code: str  # replaces the solution region
    why: str  # the answer, in a few words
    hint: str = ""  # wrong answers: a piece of the check's assert message naming the mistake
    hides: bool = False  # wrong answers that make the symptom go away
    cleanup: str = ""  # run after the answer's cells


@dataclass(frozen=True)
class Exercise:
    lab: str
    solution: str  # grade_id of the solution cell
    right: tuple[Answer, ...] = field(default_factory=tuple)
    wrong: tuple[Answer, ...] = field(default_factory=tuple)


def R(why: str, code: str, cleanup: str = "") -> Answer:
    return Answer(code, why, cleanup=cleanup)


def W(why: str, code: str, hint: str, hides: bool = False, cleanup: str = "") -> Answer:
    return Answer(code, why, hint, hides, cleanup)


TENSORS = "labs/lab-tensors.ipynb"
AUTOGRAD = "labs/lab-autograd.ipynb"
DATASETS = "labs/lab-datasets.ipynb"
NAN = "labs/lab-nan.ipynb"
OOM = "labs/lab-oom.ipynb"
TRAINING = "labs/lab-training.ipynb"
DEVICE = "labs/lab-device.ipynb"
DISTRIBUTED = "labs/lab-distributed.ipynb"

EXERCISES: list[Exercise] = [
    # ================================================================== lab-tensors
    Exercise(TENSORS, "predict_float32", right=(
        R("torch.from_numpy(array).float()", "return model(torch.from_numpy(array).float())"),
        R("torch.tensor(array, dtype=torch.float32)",
          "return model(torch.tensor(array, dtype=torch.float32))"),
        R("array.astype(np.float32)", "return model(torch.from_numpy(array.astype(np.float32)))"),
        R(".to(torch.float32)", "return model(torch.as_tensor(array).to(torch.float32))"),
    ), wrong=(
        W("model.double() instead of converting the data",
          "model.double()\nreturn model(torch.as_tensor(array))",
          "model.double() hides the error", hides=True),
        W("torch.tensor(array) keeps NumPy's float64",
          "return model(torch.tensor(array))",
          "torch.from_numpy and torch.tensor keep NumPy's float64"),
        W("a float64 deep copy of the model, output cast back",
          "twin = copy.deepcopy(model).double()\n"
          "return twin(torch.from_numpy(array)).float()",
          "The model itself never received the data", hides=True),
        W("float64 converted, integer arrays left as they are",
          "x = torch.from_numpy(array)\n"
          "if x.dtype == torch.float64:\n    x = x.float()\nreturn model(x)",
          "Integer arrays (int64, e.g. counts) must be converted too"),
        W("converted to float16",
          "return model(torch.as_tensor(array).half())",
          "convert the data to float32 where it enters"),
        W("the output cast to float64",
          "return model(torch.as_tensor(array, dtype=torch.float32)).double()",
          "predict should return a float32 tensor"),
        W("the predictions read through .data",
          "return model(torch.as_tensor(array, dtype=torch.float32)).data",
          "The predictions carry no gradient back to the model", hides=True),
        W("the example's 16 rows kept",
          "return model(torch.as_tensor(array[:16], dtype=torch.float32))",
          "rows or columns were cut to the example's size"),
    )),
    Exercise(TENSORS, "residual_shape", right=(
        R("pred[:, 0]", "return pred[:, 0] - target"),
        R("pred.view(-1)", "return pred.view(-1) - target"),
        R("pred.flatten()", "return pred.flatten() - target"),
        R("pred.squeeze(-1)", "return pred.squeeze(-1) - target"),
        R("pred.squeeze() (a (1,) target still broadcasts to (1,))",
          "return pred.squeeze() - target"),
        R("the diagonal of the broadcast table", "return torch.diagonal(pred - target)"),
    ), wrong=(
        W("pred - target, the broadcast bug", "return pred - target",
          "(6, 6) is the broadcast bug"),
        W("the target unsqueezed instead", "return pred - target.unsqueeze(1)",
          "(6, 1) means you unsqueezed the target"),
        W("pred.T", "return pred.T - target", "pred.T (a transpose) still keeps two axes"),
        W("the (N, N) table averaged over one axis", "return (pred - target).mean(dim=1)",
          "Right shape, wrong errors", hides=True),
        W("detached", "return pred.detach().squeeze(1) - target",
          "The residual must stay in the graph", hides=True),
        W("squeeze on the wrong axis", "return pred.squeeze(0) - target",
          "the column is axis 1"),
        W("the example's batch size hard-coded", "return pred.view(5) - target",
          "do not hard-code the batch size"),
        W("squeeze() after the transpose: () for a batch of one",
          "return (pred.T - target).squeeze()",
          "squeeze() with no axis removes every axis of size 1"),
        W("squeeze_ in place on pred", "return pred.squeeze_(1) - target",
          "an in-place operation (squeeze_, sub_, -=) on pred"),
    )),
    Exercise(TENSORS, "per_step_layout", right=(
        R("permute(0, 2, 1)", "return x.permute(0, 2, 1).reshape(-1, x.shape[1])"),
        R(".contiguous().view", "return x.transpose(1, 2).contiguous().view(-1, x.shape[1])"),
        R("flatten(0, 1)", "return x.transpose(1, 2).flatten(0, 1)"),
        R("x.mT", "return x.mT.reshape(-1, x.shape[1])"),
    ), wrong=(
        W("view after the transpose (the bug)", "return x.transpose(1, 2).view(-1, x.shape[1])",
          "view never copies, so it refuses a transposed tensor"),
        W("reshape without transposing", "return x.reshape(-1, x.shape[1])",
          "without transposing first mixes time steps and channels", hides=True),
        W(".contiguous().view without transposing", "return x.contiguous().view(-1, x.shape[1])",
          "without transposing first mixes time steps and channels", hides=True),
        W("permute that puts time before the batch",
          "return x.permute(2, 0, 1).reshape(-1, x.shape[1])",
          "the permute put time before the batch"),
        W("T as the columns", "return x.transpose(1, 2).reshape(-1, x.shape[2])",
          "the columns are the C channels"),
        W("the example's C hard-coded", "return x.transpose(1, 2).reshape(-1, 3)",
          "Take the sizes from x"),
        W("the example's sizes hard-coded in view", "return x.transpose(1, 2).reshape(10, 3)",
          "Take the sizes from x"),
        W("the example's T hard-coded, C inferred",
          "return x.transpose(1, 2).reshape(x.shape[0] * 5, -1)",
          "Take the sizes from x"),
        W("C read from the first input seen",
          "global _seen_c\n_seen_c = globals().get('_seen_c') or x.shape[1]\n"
          "return x.transpose(1, 2).reshape(-1, _seen_c)",
          "Take the sizes from x",
          cleanup="globals().pop('_seen_c', None)"),
    )),
]

_CHUNKS = """
h = torch.zeros(inputs.shape[2], cell.hidden_size)
losses = []
for x_chunk, y_chunk in zip(inputs, targets):
    {start}
    preds = []
    for x in x_chunk:
        {inner}
        h = cell(x, h)
        preds.append(head(h))
    loss = F.mse_loss(torch.stack(preds), y_chunk)
    {update}
    losses.append(loss.item())
    {end}
return losses, h
"""
_STEP = "optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()"


def chunks(start: str = "", inner: str = "", update: str = _STEP, end: str = "", after: str = "") -> str:
    code = _CHUNKS.format(start=start or "pass", inner=inner or "pass", update=update, end=end or "pass")
    return code.replace("return losses, h", after + "return losses, h") if after else code


EXERCISES += [
    # ================================================================== lab-autograd
    Exercise(AUTOGRAD, "train_step_zero_grad", right=(
        R("zero_grad() after step()",
          "loss = F.mse_loss(model(x), y)\nloss.backward()\noptimizer.step()\n"
          "optimizer.zero_grad()\nreturn loss.item()"),
        R("model.zero_grad() first",
          "model.zero_grad()\nloss = F.mse_loss(model(x), y)\nloss.backward()\n"
          "optimizer.step()\nreturn loss.item()"),
        R("zero_grad(set_to_none=False)",
          "optimizer.zero_grad(set_to_none=False)\nloss = F.mse_loss(model(x), y)\n"
          "loss.backward()\noptimizer.step()\nreturn loss.item()"),
        R("p.grad = None for every parameter",
          "for p in model.parameters():\n    p.grad = None\nloss = F.mse_loss(model(x), y)\n"
          "loss.backward()\noptimizer.step()\nreturn loss.item()"),
    ), wrong=(
        W("zero_grad() between backward() and step()",
          "loss = F.mse_loss(model(x), y)\nloss.backward()\noptimizer.zero_grad()\n"
          "optimizer.step()\nreturn loss.item()",
          "The weights did not move: zero_grad() between backward() and step()"),
        W("no zero_grad() at all",
          "loss = F.mse_loss(model(x), y)\nloss.backward()\noptimizer.step()\nreturn loss.item()",
          "The step used an accumulated gradient"),
        W("no zero_grad(), the gradient clipped instead",
          "loss = F.mse_loss(model(x), y)\nloss.backward()\n"
          "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\noptimizer.step()\n"
          "return loss.item()",
          "Clipping the gradient only hides the sum", hides=True),
        W("only the weight's gradient cleared",
          "model.weight.grad = None\nloss = F.mse_loss(model(x), y)\nloss.backward()\n"
          "optimizer.step()\nreturn loss.item()",
          "zero every parameter's gradient"),
        W("the loss tensor returned",
          "optimizer.zero_grad()\nloss = F.mse_loss(model(x), y)\nloss.backward()\n"
          "optimizer.step()\nreturn loss",
          "Return loss.item(), a Python float"),
        W("the update written by hand through .data at the lab's learning rate",
          "model.zero_grad()\nloss = F.mse_loss(model(x), y)\nloss.backward()\n"
          "for p in model.parameters():\n    p.data.add_(p.grad, alpha=-0.05)\n"
          "return loss.item()",
          "with the optimizer it is given"),
        W("the lab's global batch, cut to the length of x",
          "optimizer.zero_grad()\nloss = F.mse_loss(model(X[:len(x)]), Y[:len(y)])\n"
          "loss.backward()\noptimizer.step()\nreturn loss.item()",
          "use its arguments"),
        W("the loss measured again after the step",
          "optimizer.zero_grad()\nF.mse_loss(model(x), y).backward()\noptimizer.step()\n"
          "with torch.no_grad():\n    return F.mse_loss(model(x), y).item()",
          "another number than the loss the step was computed from"),
    )),
    Exercise(AUTOGRAD, "train_chunks_detach", right=(
        R("h.detach() at the end of each chunk", chunks(end="h = h.detach()")),
        R("h.detach_() at the start", chunks(start="h.detach_()")),
        R("h = h.detach() after the optimizer step", chunks(
            update=_STEP + "\n    h = h.detach()")),
    ), wrong=(
        W("h carried as is (the bug)", chunks(),
          "h still carries the previous chunk's graph"),
        W("backward(retain_graph=True), the fix the error message suggests",
          chunks(update=_STEP.replace("backward()", "backward(retain_graph=True)")),
          "retain_graph=True is not a fix", hides=True),
        W("h reset to zeros every chunk", chunks(start="h = torch.zeros(1, cell.hidden_size)"),
          "The hidden state was not carried", hides=True),
        W("h detached at every step", chunks(inner="h = h.detach()"),
          "The graph is too short"),
        W("one optimizer step at the end, not per chunk",
          chunks(start="h = h.detach()", update="loss.backward()",
                 after="optimizer.step()\noptimizer.zero_grad()\n"),
          "optimizer steps for 12 chunks"),
        W("a batch of one hard-coded in the first hidden state",
          chunks(start="h = h.detach()").replace("inputs.shape[2]", "1"),
          "take the sizes from the cell and the data"),
        W("the example's hidden size hard-coded",
          chunks(start="h = h.detach()").replace("cell.hidden_size", "16"),
          "take the sizes from the cell and the data"),
        W("gradients never zeroed between chunks",
          chunks(start="h = h.detach()", update="loss.backward()\n    optimizer.step()"),
          "zero the gradients before each"),
    )),
    Exercise(AUTOGRAD, "fixed_gate_inplace", right=(
        R("torch.add", "h = torch.sigmoid(self.fc1(x))\nh = torch.add(h, self.skip(x))\n"
          "return self.fc2(h)"),
        R("clone, then +=", "h = torch.sigmoid(self.fc1(x)).clone()\nh += self.skip(x)\n"
          "return self.fc2(h)"),
        R("one expression", "return self.fc2(torch.sigmoid(self.fc1(x)) + self.skip(x))"),
    ), wrong=(
        W("+= kept (the bug)", "h = torch.sigmoid(self.fc1(x))\nh += self.skip(x)\n"
          "return self.fc2(h)", "h is still modified in place"),
        W("h.detach() before the in-place add",
          "h = torch.sigmoid(self.fc1(x)).detach()\nh += self.skip(x)\nreturn self.fc2(h)",
          "Some weights get no gradient", hides=True),
        W("h.data += ...", "h = torch.sigmoid(self.fc1(x))\nh.data += self.skip(x)\n"
          "return self.fc2(h)", "h.detach() or h.data hides the error", hides=True),
        W("the add under torch.no_grad()", "h = torch.sigmoid(self.fc1(x))\n"
          "with torch.no_grad():\n    h += self.skip(x)\nreturn self.fc2(h)",
          "h is still modified in place", hides=True),
        W("in-place sigmoid_ then +=", "h = self.fc1(x)\nh.sigmoid_()\nh += self.skip(x)\n"
          "return self.fc2(h)", "h is still modified in place"),
    )),
    Exercise(AUTOGRAD, "combine_keeps_graph", right=(
        R("sum(losses) / len(losses)", "return sum(losses) / len(losses)"),
        R("torch.mean(torch.stack(...))", "return torch.mean(torch.stack(losses))"),
        R("torch.cat of views", "return torch.cat([loss.view(1) for loss in losses]).mean()"),
    ), wrong=(
        W("torch.tensor of the losses (the bug)", "return torch.tensor(losses).mean()",
          "combine must return a tensor with a grad_fn"),
        W("torch.tensor of the .item() values",
          "return torch.tensor([loss.item() for loss in losses]).mean()",
          "combine must return a tensor with a grad_fn"),
        W("a new tensor made to require grad",
          "return torch.tensor([loss.item() for loss in losses]).requires_grad_().mean()",
          ".requires_grad_() on a new tensor only", hides=True),
        W("only two losses", "return (losses[0] + losses[1]) / 2",
          "of any number of losses (not just two)"),
        W("the sum", "return torch.stack(losses).sum()", "the MEAN (not the sum)"),
        W("detached losses", "return torch.stack([loss.detach() for loss in losses]).mean()",
          "combine must return a tensor with a grad_fn"),
    )),
]

_COLLATE = """
sequences, targets = zip(*batch)
lengths = torch.tensor([len(s) for s in sequences])
padded = {padded}
mask = {mask}
return padded, mask, {targets}
"""


def collate_answer(padded: str = "pad_sequence(sequences, batch_first=True)",
                   mask: str = "torch.arange(padded.shape[1])[None, :] < lengths[:, None]",
                   targets: str = "torch.tensor(targets, dtype=torch.int64)") -> str:
    return _COLLATE.format(padded=padded, mask=mask, targets=targets)


EXERCISES += [
    # ================================================================== lab-datasets
    Exercise(DATASETS, "collate_fix", right=(
        R("mask padded from ones", collate_answer(mask=(
            "pad_sequence([torch.ones(len(s), dtype=torch.bool) for s in sequences], "
            "batch_first=True)"))),
        R("a loop filling zeros", """
sequences, targets = zip(*batch)
longest = max(len(s) for s in sequences)
padded = torch.zeros(len(sequences), longest, sequences[0].shape[1])
mask = torch.zeros(len(sequences), longest, dtype=torch.bool)
for i, s in enumerate(sequences):
    padded[i, :len(s)] = s
    mask[i, :len(s)] = True
return padded, mask, torch.tensor(targets)
"""),
        R("mask from lengths with .gt", collate_answer(
            mask="lengths[:, None].gt(torch.arange(padded.shape[1]))",
            targets="torch.as_tensor(targets)")),
    ), wrong=(
        W("time-first padding", collate_answer(
            padded="pad_sequence(sequences)",
            mask="torch.arange(padded.shape[0])[:, None] < lengths[None, :]"),
          "not time first"),
        W("a float mask", collate_answer(
            mask="(torch.arange(padded.shape[1])[None, :] < lengths[:, None]).float()"),
          "mask must be a bool tensor [batch, time]"),
        W("the mask built along the wrong axis", collate_answer(
            mask="torch.arange(padded.shape[0])[None, :] < lengths[:, None]"),
          "mask must be a bool tensor [batch, time]"),
        W("the mask built from the data", collate_answer(mask="padded.ne(0).any(-1)"),
          "never from the data (padded != 0)", hides=True),
        W("an all-True mask", collate_answer(mask="torch.ones(padded.shape[:2], dtype=torch.bool)"),
          "as many True entries as its sequence has steps", hides=True),
        W("truncated to the shortest", collate_answer(
            padded="torch.stack([s[:min(lengths)] for s in sequences])",
            mask="torch.ones(padded.shape[:2], dtype=torch.bool)"),
          "not truncated to the shortest", hides=True),
        W("torch.stack of sequences of different lengths", collate_answer(
            padded="torch.stack(sequences)"), "The sequences have different lengths"),
        W("padded with -1", collate_answer(
            padded="pad_sequence(sequences, batch_first=True, padding_value=-1.0)"),
          "pad with zeros"),
        W("float targets", collate_answer(targets="torch.tensor(targets, dtype=torch.float32)"),
          "the labels as an int64 tensor"),
    )),
    Exercise(DATASETS, "worker_fix", right=(
        R("the worker's seed without the modulo",
          "get_worker_info().dataset.rng = np.random.default_rng(get_worker_info().seed)"),
        R("torch.initial_seed() in the worker",
          "get_worker_info().dataset.rng = np.random.default_rng(torch.initial_seed() % 2**32)"),
        R("ice_lab.data.reseed_dataset_rng",
          "from ice_lab.data import reseed_dataset_rng\nreseed_dataset_rng(worker_id)"),
    ), wrong=(
        W("seed_worker: reseeding NumPy's global generator",
          "np.random.seed(get_worker_info().seed % 2**32)",
          "workers 0 and 1 still draw identical noise"),
        W("torch.manual_seed(worker_id)", "torch.manual_seed(worker_id)",
          "workers 0 and 1 still draw identical noise"),
        W("a generator seeded from worker_id alone",
          "get_worker_info().dataset.rng = np.random.default_rng(worker_id)",
          "the noise ignores the loader's generator", hides=True),
        W("a generator without a seed",
          "get_worker_info().dataset.rng = np.random.default_rng()",
          "the noise is not repeatable", hides=True),
        W("the noise switched off", "get_worker_info().dataset.noise = 0.0",
          "there is no noise left", hides=True),
    )),
    Exercise(DATASETS, "stats_fix", right=(
        R("float() of mean and std", "x = dataset.tensors[0]\nreturn float(x.mean()), float(x.std())"),
        R("torch.std_mean",
          "std, mean = torch.std_mean(dataset.tensors[0])\nreturn mean.item(), std.item()"),
        R("population std (correction=0)",
          "x = dataset.tensors[0]\nreturn x.mean().item(), x.std(correction=0).item()"),
    ), wrong=(
        W("ImageNet's statistics pasted", "return 0.485, 0.229", "0.485 is ImageNet's mean",
          hides=True),
        W("the validation set's statistics",
          "pixels = val_t.tensors[0]\nreturn pixels.mean().item(), pixels.std().item()",
          "these are the validation set's statistics"),
        W("0-255 units", "x = dataset.tensors[0] * 255\nreturn x.mean().item(), x.std().item()",
          "look like 0-255 statistics"),
        W("one image", "x = dataset.tensors[0][0]\nreturn x.mean().item(), x.std().item()",
          "not one image"),
        W("the mean of per-image stds",
          "x = dataset.tensors[0]\nreturn x.mean().item(), x.std(dim=(1, 2, 3)).mean().item()",
          "not the mean of per-image stds"),
        W("fixed numbers (the training set's, pasted)",
          "return 0.3055, 0.3763", "compute the mean over every pixel"),
    )),
]

_GATHER = "[torch.arange(len(labels)), labels]"

EXERCISES += [
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

_SEARCH = """
def fits(batch_size: int) -> bool:
    try:
        with memory_limit(limit_mib):
            training_step(batch_size)
        return True
    except {catch}:
        return False
    finally:
        search_model.zero_grad(set_to_none=True)

{search}
"""
_BISECT = """good, bad = 0, 1
while fits(bad):
    good, bad = bad, bad * 2
while bad - good > 1:
    middle = (good + bad) // 2
    if fits(middle):
        good = middle
    else:
        bad = middle
return {result}"""


def search(search: str = _BISECT.format(result="good"), catch: str = "torch.OutOfMemoryError") -> str:
    return _SEARCH.format(search=search, catch=catch)


_EVAL = "logits = model(x)\nloss = F.cross_entropy(logits, y)\naccuracy = (logits.argmax(dim=1) == y).float().mean()"


def indent(code: str) -> str:
    return "\n".join("    " + line for line in code.splitlines())


EXERCISES += [
    # ================================================================== lab-oom
    Exercise(OOM, "oom_leak", right=(
        R(".item() without no_grad",
          "total_loss += loss.item()\nval_history.append(F.cross_entropy(model(Xv), Yv).item())"),
        R(".detach() on both",
          "total_loss += loss.detach()\n"
          "with torch.no_grad():\n    val_history.append(F.cross_entropy(model(Xv), Yv).detach())"),
        R("float() and inference_mode",
          "total_loss += float(loss)\n"
          "with torch.inference_mode():\n    val_history.append(float(F.cross_entropy(model(Xv), Yv)))"),
    ), wrong=(
        W(".detach() on total_loss only",
          "total_loss += loss.detach()\nval_history.append(F.cross_entropy(model(Xv), Yv))",
          "keep loss.item() (or compute the validation loss under torch.no_grad())"),
        W("gc.collect() after each step",
          "import gc\ntotal_loss += loss.item()\n"
          "val_history.append(F.cross_entropy(model(Xv), Yv))\ngc.collect()",
          "gc.collect() and torch.cuda.empty_cache() free nothing", hides=True),
        W("total_loss += loss kept",
          "total_loss += loss\nwith torch.no_grad():\n"
          "    val_history.append(F.cross_entropy(model(Xv), Yv).item())",
          "total_loss += loss keeps a tensor with a graph"),
        W("only the last validation loss kept",
          "total_loss += loss.item()\nwith torch.no_grad():\n"
          "    val_history = [F.cross_entropy(model(Xv), Yv).item()]",
          "keep one validation loss per step", hides=True),
        W("torch.set_grad_enabled(False) for the validation loss, never undone",
          "total_loss += loss.item()\ntorch.set_grad_enabled(False)\n"
          "val_history.append(F.cross_entropy(model(Xv), Yv).item())",
          "torch.set_grad_enabled(False) switched autograd off", hides=True,
          cleanup="torch.set_grad_enabled(True)"),
    )),
    Exercise(OOM, "oom_batch_search", right=(
        R("bisection from 0 to a bound that fails", search("""good, bad = 0, 4096
while not fits(bad):
    if bad - good <= 1:
        return good
    middle = (good + bad) // 2
    if fits(middle):
        good = middle
    else:
        bad = middle
return bad""")),
        R("catching RuntimeError (its base class) too", search(catch="(torch.OutOfMemoryError, RuntimeError)")),
        R("torch.cuda.OutOfMemoryError", search(catch="torch.cuda.OutOfMemoryError")),
    ), wrong=(
        W("doubling only, no bisection", search("""best, size = 0, 1
while fits(size):
    best, size = size, size * 2
return best"""), "Doubling alone only brackets the answer"),
        W("off by one: the first size that failed", search(_BISECT.format(result="bad")),
          "off by one"),
        W("a safe size, hard-coded", "return 64", "64 is not the largest", hides=True),
        W("searched under twice the limit", search().replace("memory_limit(limit_mib)",
                                                             "memory_limit(2 * limit_mib)"),
          "Try each size under memory_limit(limit_mib) itself"),
        W("the OOM not caught", search(catch="ValueError"),
          "catch torch.OutOfMemoryError around each try"),
        W("the answer for this limit hard-coded", "return 777",
          "a number found once and hard-coded is not a search", hides=True),
    )),
    Exercise(OOM, "oom_eval", right=(
        R("torch.no_grad()", "with torch.no_grad():\n" + indent(_EVAL)),
        R("torch.set_grad_enabled(False) as a block", "with torch.set_grad_enabled(False):\n" + indent(_EVAL)),
        R("a no_grad-decorated helper", "@torch.no_grad()\ndef forward_only(x):\n    return model(x)\n\n"
          "logits = forward_only(x)\nloss = F.cross_entropy(logits, y)\n"
          "accuracy = (logits.argmax(dim=1) == y).float().mean()"),
    ), wrong=(
        W("model.eval() alone (the bug)", _EVAL, "model.eval() does not switch autograd off"),
        W(".detach() after the forward pass",
          "logits = model(x).detach()\nloss = F.cross_entropy(logits, y)\n"
          "accuracy = (logits.argmax(dim=1) == y).float().mean()",
          ".detach() after the forward pass is too late"),
        W("torch.set_grad_enabled(False) left switched off",
          "torch.set_grad_enabled(False)\n" + _EVAL,
          "autograd is still off after evaluate_fixed", hides=True,
          cleanup="torch.set_grad_enabled(True)"),
        W("model.requires_grad_(False), never undone",
          "model.requires_grad_(False)\n" + _EVAL,
          "requires_grad_(False) freezes the model for training too", hides=True,
          cleanup="_ = eval_model.requires_grad_(True)"),
        W("chunks with autograd still recording", """total, correct = 0.0, 0
for xc, yc in zip(x.split(1024), y.split(1024)):
    out = model(xc)
    total += F.cross_entropy(out, yc, reduction="sum").item()
    correct += (out.argmax(dim=1) == yc).sum().item()
loss = torch.tensor(total / len(y))
accuracy = torch.tensor(correct / len(y))""", "splitting it into chunks fits the budget", hides=True),
        W("a subset of the data", "with torch.no_grad():\n" + indent(_EVAL.replace("model(x)", "model(x[:1000])").replace(
            "cross_entropy(logits, y)", "cross_entropy(logits, y[:1000])").replace("== y)", "== y[:1000])")),
          "same model, same data", hides=True),
    )),
]

_EPOCH = """
total = 0.0
{before}
for xb, yb in loader:
    {first}
    loss = mse(model(xb), yb)
    loss.backward()
    {middle}
    optimizer.step()
    {last}
    total += loss.item()
return {result}
"""


def epoch(before="", first="optimizer.zero_grad()", middle="", last="", result="total / len(loader)"):
    return _EPOCH.format(before=before or "pass", first=first or "pass", middle=middle or "pass",
                         last=last or "pass", result=result)


_VALIDATE = """
{before}
total, correct, n = 0.0, 0, 0
with {context}:
    for xb, yb in loader:
        out = model(xb)
        total += loss_fn(out, yb).item(){weight}
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
{after}
return total / {count}, correct / n
"""


def validate_answer(before="was_training = model.training\nmodel.eval()", context="torch.no_grad()",
                    after="model.train(was_training)", weight=" * len(yb)", count="n"):
    return _VALIDATE.format(before=before, context=context, after=after or "pass", weight=weight,
                            count=count)


_RUN = """
lrs, val_losses = [], []
for epoch in range(epochs):
    model.train()
    lrs.append(optimizer.param_groups[0]["lr"])
    {start}
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        {batch}
    val_loss = evaluate(model, val_loader, loss_fn)[0]
    val_losses.append(val_loss)
    {end}
return {{"lr": lrs, "val_loss": val_losses}}
"""
_PLATEAU_OR_NOT = ("if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):\n"
                   "        scheduler.step({metric})\n    else:\n        scheduler.step()")


def run_answer(start="", batch="", end=_PLATEAU_OR_NOT.format(metric="val_loss")):
    return _RUN.format(start=start or "pass", batch=batch or "pass", end=end or "pass")


_STABLY = """
optimizer = torch.optim.SGD(model.parameters(), lr={lr})
losses = []
for epoch in range(epochs):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = {loss}
        loss.backward()
        {clip}
        optimizer.step()
        {after}
        losses.append(loss.item())
return losses
"""


def stably(lr="0.05", loss="mse(model(xb), yb)", clip="", after=""):
    return _STABLY.format(lr=lr, loss=loss, clip=clip or "pass", after=after or "pass")


_CLIP = "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm={})"

EXERCISES += [
    # ================================================================== lab-training
    Exercise(TRAINING, "zero_grad_fix", right=(
        R("zero_grad() after step()", epoch(first="", last="optimizer.zero_grad()")),
        R("model.zero_grad()", epoch(first="model.zero_grad()")),
        R("zero_grad(set_to_none=False)", epoch(first="optimizer.zero_grad(set_to_none=False)")),
    ), wrong=(
        W("zero_grad() once per epoch", epoch(before="optimizer.zero_grad()", first=""),
          "are the gradients cleared on every batch"),
        W("no zero_grad() (the bug)", epoch(first=""), "are the gradients cleared on every batch"),
        W("zero_grad() between backward() and step()", epoch(first="", middle="optimizer.zero_grad()"),
          "zero_grad() between backward() and step() wipes every fresh gradient"),
        W("no zero_grad(), the gradient clipped", epoch(first="", middle=_CLIP.format(1.0)),
          "only hides the stale gradients", hides=True),
        W("the sum of the batch losses", epoch(result="total"),
          "return the mean of the batch losses"),
    )),
    Exercise(TRAINING, "eval_fix", right=(
        R("ice_lab.train.evaluate", "return evaluate(model, loader, loss_fn)"),
        R("torch.inference_mode()", validate_answer(context="torch.inference_mode()")),
        R("mode restored with an if", validate_answer(
            after="if was_training:\n    model.train()")),
    ), wrong=(
        W("torch.no_grad() without model.eval()", validate_answer(before="", after=""),
          "is the model in eval() mode (no_grad alone is not enough)?"),
        W("model.train() at the end whatever the mode was", validate_answer(
            before="model.eval()", after="model.train()"),
          "a model that was in eval mode must stay in eval mode"),
        W("model.eval() never undone", validate_answer(before="model.eval()", after=""),
          "must put the model back in train mode"),
        W("model.eval() without torch.no_grad()", validate_answer(context="contextlib.nullcontext()")
          .replace("\ntotal, correct", "\nimport contextlib\ntotal, correct"),
          "validation records a graph for every batch", hides=True),
        W("the mean of the batch means", validate_answer(weight="", count="len(loader)"),
          "weight each batch's loss by its size"),
    )),
    Exercise(TRAINING, "scheduler_fix", right=(
        R("ReduceLROnPlateau told apart by hasattr",
          run_answer(end="if hasattr(scheduler, 'num_bad_epochs'):\n        scheduler.step(val_loss)\n"
                         "    else:\n        scheduler.step()")),
        R("the scheduler stepped after the validation, metric from the list",
          run_answer(end=_PLATEAU_OR_NOT.format(metric="val_losses[-1]"))),
    ), wrong=(
        W("the scheduler stepped every batch", run_answer(batch="scheduler.step()", end=""),
          "step it once per epoch, after the batches"),
        W("the validation loss passed to every scheduler", run_answer(end="scheduler.step(val_loss)"),
          "StepLR.step() takes no metric"),
        W("every scheduler stepped without the metric", run_answer(end="scheduler.step()"),
          "it needs the metric, scheduler.step(val_loss)"),
        W("ReduceLROnPlateau stepped with the training loss",
          run_answer(end=_PLATEAU_OR_NOT.format(metric="loss.item()")),
          "must be stepped with the validation loss"),
        W("the scheduler stepped before the batches", run_answer(start="scheduler.step()", end=""),
          "not before them"),
        W("the scheduler never stepped", run_answer(end=""),
          "StepLR was stepped 0 times", hides=True),
    )),
    Exercise(TRAINING, "accumulation_fix", right=(
        R("the gradients divided after summing",
          "model.zero_grad()\nfor xb, yb in micro_batches:\n    loss_fn(model(xb), yb).backward()\n"
          "for p in model.parameters():\n    p.grad /= len(micro_batches)"),
        R("each loss weighted by its share of the samples",
          "model.zero_grad()\ntotal = sum(len(xb) for xb, _ in micro_batches)\n"
          "for xb, yb in micro_batches:\n    (loss_fn(model(xb), yb) * len(xb) / total).backward()"),
        R("set_to_none zeroing", "for p in model.parameters():\n    p.grad = None\n"
          "for xb, yb in micro_batches:\n    (loss_fn(model(xb), yb) / len(micro_batches)).backward()"),
    ), wrong=(
        W("micro-batch losses not divided",
          "model.zero_grad()\nfor xb, yb in micro_batches:\n    loss_fn(model(xb), yb).backward()",
          "divide each micro-batch loss by the number of micro-batches"),
        W("divided by the micro-batch size",
          "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / len(xb)).backward()",
          "(not by the batch size)"),
        W("old gradients not cleared",
          "for xb, yb in micro_batches:\n    (loss_fn(model(xb), yb) / len(micro_batches)).backward()",
          "clear old gradients first"),
        W("a fixed 4", "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / 4).backward()", "not by a fixed 4"),
        W("off by one: divided by len - 1", "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / (len(micro_batches) - 1)).backward()",
          "divide each micro-batch loss by the number of micro-batches"),
        W("one backward() on the mean of all the losses",
          "model.zero_grad()\nlosses = [loss_fn(model(xb), yb) for xb, yb in micro_batches]\n"
          "torch.stack(losses).mean().backward()",
          "keeps every micro-batch's graph alive at once", hides=True),
    )),
    Exercise(TRAINING, "nan_fix", right=(
        R("lr=0.05 without clipping", stably()),
        R("lr=0.1 with clipping at 1.0", stably(lr="0.1", clip=_CLIP.format(1.0))),
    ), wrong=(
        W("a learning rate merely tiny", stably(lr="1e-5"),
          "no blow-up, but the model does not learn either", hides=True),
        W("lr=0.5 unchanged", stably(lr="0.5"), "NaN/Inf still appear in the model"),
        W("clipping after step()", stably(lr="0.5", after=_CLIP.format(5.0)),
          "clipping after step() is too late"),
        W("nan_to_num on the loss", stably(lr="0.5", loss="torch.nan_to_num(mse(model(xb), yb))"),
          "nan_to_num or skipping bad steps hides it", hides=True),
        W("one loss per epoch", stably().replace("        losses.append(loss.item())", "        pass")
          .replace("return losses", "    losses.append(loss.item())\nreturn losses"),
          "return one loss per batch"),
    )),
]

_POOL = """
batch, length, _ = x.shape
position = {position} / length
position = position.expand(batch, length).unsqueeze(-1)
h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
weights = {weights} / length
return self.head((h * weights[None, :, None]).sum(dim=1))
"""


def pool_answer(position="torch.arange(length, device=x.device)",
                weights="torch.ones(length, device=x.device)"):
    return _POOL.format(position=position, weights=weights)


_VALID = """
if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype == torch.bool:
    raise ValueError(f"labels must be integer class indices, got dtype {{labels.dtype}}")
{body}
"""
_RANGE = """bad = (labels < 0) | (labels >= num_classes)
if bad.any():
    raise ValueError(f"labels outside 0..{num_classes - 1}: {torch.unique(labels[bad]).tolist()}")"""

EXERCISES += [
    # ================================================================== lab-device
    Exercise(DEVICE, "device_train_step", right=(
        R("model = model.to(device), then each tensor",
          "model = model.to(device)\nx = x.to(device)\ny = y.to(device)"),
        R("a generator over the batch", "model.to(device)\nx, y = (t.to(device) for t in (x, y))"),
        R("non_blocking=True", "model.to(device)\nx = x.to(device, non_blocking=True)\n"
          "y = y.to(device, non_blocking=True)"),
    ), wrong=(
        W("x.to(device) without assigning the result", "model.to(device)\nx.to(device)\ny.to(device)",
          "Move the model, x AND y"),
        W("the labels left behind", "model.to(device)\nx = x.to(device)", "(the labels too)"),
        W("the batch moved, not the model", "x, y = x.to(device), y.to(device)",
          "Move the model, x AND y"),
        W("everything moved to the CPU", "model.to('cpu')\nx, y = x.cpu(), y.cpu()",
          "moving everything to the CPU (or to where the model already is) hides the error",
          hides=True),
        W("the batch moved to the model's device, the model left",
          "here = next(model.parameters()).device\nx, y = x.to(here), y.to(here)",
          "hides the error", hides=True),
    )),
    Exercise(DEVICE, "device_forward", right=(
        R(".to(x.device) after creating", pool_answer(
            position="torch.arange(length).to(x.device)", weights="torch.ones(length).to(x.device)")),
        R("x.new_ones and torch.arange(..., device=x.device)", pool_answer(weights="x.new_ones(length)")),
        R("ones_like a slice of x", pool_answer(weights="torch.ones_like(x[0, :, 0])")),
    ), wrong=(
        W("new tensors created on the default device (the bug)", pool_answer(
            position="torch.arange(length)", weights="torch.ones(length)"),
          "Create each tensor in forward with device=x.device"),
        W("only the first factory call fixed", pool_answer(weights="torch.ones(length)"),
          "Create each tensor in forward with device=x.device"),
        W("the lab's OTHER device hard-coded", pool_answer(
            position="torch.arange(length, device=OTHER)", weights="torch.ones(length, device=OTHER)"),
          "A hard-coded 'cuda' or a global device is not the input's device"),
        W("the error caught, a placeholder returned", """
try:
    batch, length, _ = x.shape
    position = torch.arange(length) / length
    position = position.expand(batch, length).unsqueeze(-1)
    h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
    weights = torch.ones(length) / length
    return self.head((h * weights[None, :, None]).sum(dim=1))
except RuntimeError:
    return torch.zeros(x.shape[0], 3, device=x.device)
""", "returning a placeholder, or moving x elsewhere, hides the bug", hides=True),
    )),
    Exercise(DEVICE, "device_validate_labels", right=(
        R("min and max", _VALID.format(body="""if labels.numel() and (labels.min() < 0 or labels.max() >= num_classes):
    bad = labels[(labels < 0) | (labels >= num_classes)]
    raise ValueError(f"bad labels {torch.unique(bad).tolist()} (classes 0..{num_classes - 1})")""")),
        R("a TypeError for the wrong dtype", _VALID.replace("raise ValueError(f\"labels must", "raise TypeError(f\"labels must")
          .format(body=_RANGE)),
        R("an allowed-dtype set", """
if labels.dtype not in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
    raise ValueError(f"labels must be integer class indices, got {labels.dtype}")
""" + _RANGE),
    ), wrong=(
        W("checking the largest label only", """
if labels.max() >= num_classes:
    raise ValueError(f"label {labels.max().item()} is not a class index 0..{num_classes - 1}")""",
          "negative labels are out of range too"),
        W("floating-point labels refused, booleans not", """
if labels.dtype.is_floating_point:
    raise ValueError(f"labels must be integer class indices, got dtype {labels.dtype}")
""" + _RANGE, "boolean labels are not class indices either"),
        W("labels clamped in place", "labels.clamp_(0, num_classes - 1)",
          "do not clamp or repair them", hides=True),
        W("labels shifted in place when they look 1-based",
          "if labels.max() == num_classes:\n    labels -= 1", "do not clamp or repair them", hides=True),
        W("off by one: labels > num_classes refused, label 10 passes",
          _VALID.format(body=_RANGE.replace(">= num_classes", "> num_classes")),
          "not only > num_classes"),
        W("an assert instead of ValueError", "assert labels.max() < num_classes and labels.min() >= 0, "
          "'labels out of range'", "raise ValueError, not assert"),
        W("a printed warning", "if labels.max() >= num_classes or labels.min() < 0:\n"
          "    print('warning: labels out of range')", "printing or warning lets training go on",
          hides=True),
        W("a message without the values", _VALID.format(body="""if ((labels < 0) | (labels >= num_classes)).any():
    raise ValueError("some labels are out of range")"""), "the message must name the bad value 10"),
    )),
]


# ================================================================== lab-export
EXPORT = "labs/lab-export.ipynb"
_EXPORT_DYN = 'dynamic_shapes={"input": {0: Dim("batch")}}'

EXERCISES += [
    Exercise(EXPORT, "export_scanner", right=(
        R("torch.jit.script compiles the if (legacy)",
          "with export_warnings():\n    return torch.jit.script(scanner)"),
        R("torch.cond inside torch.export", """
class WithCond(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = torch.cond(x.max() > 1, lambda t: t / 16, lambda t: t.clone(), (x,))
        return self.net(x)

return torch.export.export(WithCond(scanner.net).eval(), (X_test[:8],),
                           dynamic_shapes={"x": {0: Dim("batch")}})"""),
        R("torch.where, then a trace", """
class BranchFree(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x / torch.where(x.max() > 1, 16.0, 1.0))

with export_warnings():
    return torch.jit.trace(BranchFree(scanner.net).eval(), X_test[:8])"""),
    ), wrong=(
        W("re-tracing on a scanner batch", "return torch.jit.trace(scanner, X_test[:8] * 16)",
          "re-tracing on a scanner batch only moves the bug", hides=True),
        W("the model itself", "return scanner", "not the model itself", hides=True),
        W("torch.export of the Scanner as it is",
          "return torch.export.export(scanner, (X_test[:8],))",
          "torch.export refuses a Python if"),
        W("a trace on a real 0..1 batch instead of blank images",
          "return torch.jit.trace(scanner, X_test[:8])",
          "A trace records the branch its example took"),
    )),
    Exercise(EXPORT, "export_onnx_dynamic", right=(
        R("a torch.export.Dim instead of a name", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      dynamic_shapes={"input": {0: Dim("batch")}},
                      opset_version=18, external_data=False, verbose=False)"""),
        R("dynamic_shapes by position", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      dynamic_shapes=({0: "batch"},),
                      opset_version=18, external_data=False, verbose=False)"""),
    ), wrong=(
        W("exported from a batch of 1", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:1],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      opset_version=18, external_data=False, verbose=False)""",
          "Exporting with a batch of 1 only moves the bug", hides=True),
        W("dynamic_shapes keyed by another name", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      dynamic_shapes={"x": {0: "batch"}},
                      opset_version=18, external_data=False, verbose=False)""",
          "dynamic_shapes is keyed by the name of forward's argument"),
        W("input_names left out", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      output_names=["logits"], dynamic_shapes={"input": {0: "batch"}},
                      opset_version=18, external_data=False, verbose=False)""",
          "the input must still be called 'pixels'"),
        W("the export of 2.1 again", "export_onnx(model, path)", "The batch axis is still fixed"),
    )),
    Exercise(EXPORT, "export_for_serving", right=(
        R("model.train(False), dynamic_shapes by position", """
model.train(False)
return torch.export.export(model, (example,), dynamic_shapes=({0: Dim("batch")},))"""),
    ), wrong=(
        W(".eval() after exporting", f"""
program = torch.export.export(model, (example,), {_EXPORT_DYN})
model.eval()
return program""", "Calling .eval() after exporting changes the model, not the export",
          hides=True),
        W("torch.no_grad() instead of eval()", f"""
with torch.no_grad():
    return torch.export.export(model, (example,), {_EXPORT_DYN})""",
          "torch.no_grad() is not eval mode"),
        W("eval, but a static batch", """
model.eval()
return torch.export.export(model, (example,))""", "the batch is fixed"),
        W("exported from one image", f"""
model.eval()
return torch.export.export(model, (example[:1],), {_EXPORT_DYN})""",
          "a batch of 1 cannot be made dynamic"),
    )),
    # ================================================================== lab-distributed
    # Each answer is run under torchrun by its check (about 7 s a run on 2 cores).
    Exercise(DISTRIBUTED, "ddp_make_loader", right=(
        R("DistributedSampler with its defaults (shuffle=True, seed 0)",
          "return DataLoader(dataset, batch_size=batch_size,\n"
          "                  sampler=DistributedSampler(dataset))"),
    ), wrong=(
        W("a different shuffle seed on each rank", """
generator = torch.Generator().manual_seed(dist.get_rank())
return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=generator)
""", "A different seed per rank only changes the order", hides=True),
        W("a sampler together with shuffle=True", """
sampler = DistributedSampler(dataset, shuffle=True, seed=0)
return DataLoader(dataset, batch_size=batch_size, sampler=sampler, shuffle=True)
""", "leave out shuffle=True"),
        W("a sampler made but not given to the DataLoader", """
sampler = DistributedSampler(dataset, shuffle=True, seed=0)
return DataLoader(dataset, batch_size=batch_size, shuffle=True)
""", "Pass a DistributedSampler as sampler="),
    )),
    Exercise(DISTRIBUTED, "ddp_choose_device", right=(
        R("cuda:LOCAL_RANK with set_device, as the chapter's script", """
if torch.cuda.is_available():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return torch.device(f"cuda:{local_rank}")
return torch.device("cpu")
"""),
        R("set_device(LOCAL_RANK), then plain 'cuda'", """
if torch.cuda.is_available():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    return torch.device("cuda")
return torch.device("cpu")
"""),
    ), wrong=(
        W("cuda:1 hard-coded (the check's first LOCAL_RANK)", """
if torch.cuda.is_available():
    return torch.device("cuda", 1)
return torch.device("cpu")
""", "expected cuda:2 (LOCAL_RANK=2)"),
        W("cuda:RANK (the same number on one machine)", """
if torch.cuda.is_available():
    return torch.device("cuda", int(os.environ["RANK"]))
return torch.device("cpu")
""", "cuda:5 is cuda:RANK", hides=True),
        W("cuda:0 on every rank", """
if torch.cuda.is_available():
    return torch.device("cuda", 0)
return torch.device("cpu")
""", "cuda:0 on every rank puts all processes on the first GPU"),
        W("the list of devices indexed by LOCAL_RANK", """
devices = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
devices = devices or [torch.device("cpu")]
return devices[int(os.environ["LOCAL_RANK"])]
""", "the script still fails under torchrun"),
    )),
    Exercise(DISTRIBUTED, "ddp_log_loss", right=(
        R("all_gather on every rank, the mean on rank 0", """
losses = [torch.zeros_like(loss) for _ in range(dist.get_world_size())]
dist.all_gather(losses, loss)
if dist.get_rank() == 0:
    mean = torch.stack(losses).mean().item()
    print(f"epoch {epoch}: mean validation loss {mean:.3f}")
"""),
    ), wrong=(
        W("all_reduce on rank 0 only (the bug)", """
if dist.get_rank() == 0:
    dist.all_reduce(loss)
    mean = loss.item() / dist.get_world_size()
    print(f"epoch {epoch}: mean validation loss {mean:.3f}")
""", "every rank must call all_reduce"),
        W("every rank prints", """
dist.all_reduce(loss)
mean = loss.item() / dist.get_world_size()
print(f"epoch {epoch}: mean validation loss {mean:.3f}")
""", "print on rank 0 only"),
        W("no all_reduce: rank 0 prints its own loss", """
if dist.get_rank() == 0:
    print(f"epoch {epoch}: mean validation loss {loss.item():.3f}")
""", "is not the mean over both ranks", hides=True),
    )),
]


# ------------------------------------------------------------------ lab-resume
RESUME = "labs/lab-resume.ipynb"

EXERCISES += [
    Exercise(RESUME, "make_checkpoint", right=(
        R("the optimizer's state loaded before the model's weights", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]"""),
    ), wrong=(
        W("resume returns the example's step", """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    return parts, 400""",
          "save the step make_checkpoint is given"),
        W('weights only, a fresh optimizer (the hurried code)', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]""",
          'Adam should continue at step 400', hides=True),
        W('the optimizer object saved instead of its state_dict', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer = ckpt["optimizer"]
    return parts, ckpt["step"]""",
          'it holds a model or optimizer object'),
        W('the saved state loaded into an optimizer over another model', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "optimizer": parts.optimizer.state_dict()}


def resume(ckpt):
    parts = make_parts()
    parts.optimizer.load_state_dict(ckpt["optimizer"])
    parts.model = make_parts().model
    parts.model.load_state_dict(ckpt["model"])
    return parts, ckpt["step"]""",
          "built over another model's parameters"),
        W('only the learning rate carried over', """
def make_checkpoint(parts, step):
    return {"step": step, "model": parts.model.state_dict(),
            "lr": parts.optimizer.param_groups[0]["lr"]}


def resume(ckpt):
    parts = make_parts()
    parts.model.load_state_dict(ckpt["model"])
    parts.optimizer.param_groups[0]["lr"] = ckpt["lr"]
    return parts, ckpt["step"]""",
          'Adam should continue at step 400', hides=True),
    )),
    Exercise(RESUME, "exact_resume", right=(
        R("the sampler's state saved on its own, restore_rng without it", """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step"""),
    ), wrong=(
        W('random state restored before make_parts() runs', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng(parts.sampler)
    return ckpt


def resume_exact(ckpt):
    restore_rng(ckpt["rng"])
    parts, step = resume(ckpt)
    parts.sampler.load_state_dict(ckpt["rng"]["sampler"])
    return parts, step""",
          'restore_rng must run after make_parts()'),
        W('random state without the sampler', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["rng"] = capture_rng()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    restore_rng(ckpt["rng"])
    return parts, step""",
          'Pass the sampler to capture_rng and to restore_rng'),
        W('the sampler without the random state', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step""",
          'the dropout masks differ', hides=True),
        W('torch reseeded with the seed of the run', """
def make_exact_checkpoint(parts, step):
    ckpt = make_checkpoint(parts, step)
    ckpt["sampler"] = parts.sampler.state_dict()
    return ckpt


def resume_exact(ckpt):
    parts, step = resume(ckpt)
    torch.manual_seed(0)
    parts.sampler.load_state_dict(ckpt["sampler"])
    return parts, step""",
          'the dropout masks differ'),
    )),
    Exercise(RESUME, "load_colleague", right=(
        R("PyTorch's consume_prefix_in_state_dict_if_present", """
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

state = torch.load(path, map_location="cpu")
consume_prefix_in_state_dict_if_present(state, "module.")
model.load_state_dict(state)
return model"""),
        R('str.removeprefix (Python 3.9+)', """
state = torch.load(path, map_location="cpu")
model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
return model"""),
    ), wrong=(
        W('strict=False', """
state = torch.load(path, map_location="cpu")
model.load_state_dict(state, strict=False)
return model""",
          'strict=False) skips every key', hides=True),
        W("str.replace('module.', '') everywhere in the key", """
state = torch.load(path, map_location="cpu")
model.load_state_dict({k.replace("module.", ""): v for k, v in state.items()})
return model""",
          "str.replace('module.', '') renames it"),
        W('no map_location', """
state = torch.load(path)
model.load_state_dict({k.removeprefix("module."): v for k, v in state.items()})
return model""",
          "map_location='cpu'"),
        W("lstrip of the letters, then of the dot", """
state = torch.load(path, map_location="cpu")
model.load_state_dict({k.lstrip("module").lstrip("."): v for k, v in state.items()})
return model""",
          "strips a set of characters, not a prefix"),
        W("the first 7 characters cut from every key", """
state = torch.load(path, map_location="cpu")
model.load_state_dict({key[len("module."):]: v for key, v in state.items()})
return model""",
          "A file without the prefix must load unchanged"),
    )),
    Exercise(RESUME, "atomic_save", right=(
        R("tempfile.NamedTemporaryFile in the target's folder", """
import tempfile

folder = os.path.dirname(os.path.abspath(path))
with tempfile.NamedTemporaryFile(dir=folder, delete=False) as f:
    try:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    except BaseException:
        f.close()
        os.remove(f.name)
        raise
os.replace(f.name, path)
descriptor = os.open(folder, os.O_RDONLY)
os.fsync(descriptor)
os.close(descriptor)"""),
    ), wrong=(
        W('torch.save straight onto the final name', """
torch.save(state, path)""",
          'torch.save(state, path) empties path before writing'),
        W('a temporary file copied onto the final name', """
import shutil

tmp = str(path) + ".tmp"
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
shutil.copyfile(tmp, path)
os.remove(tmp)""",
          'writing a temporary file and then copying it', hides=True),
        W('renamed without fsync', """
tmp = str(path) + ".tmp"
with open(tmp, "wb") as f:
    torch.save(state, f)
os.replace(tmp, path)""",
          'Call f.flush() and os.fsync(f.fileno()) before os.replace', hides=True),
        W('the temporary file under tempfile.gettempdir()', """
import tempfile

tmp = os.path.join(tempfile.gettempdir(), os.path.basename(path) + ".tmp")
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
os.replace(tmp, path)""",
          "The temporary file is not in path's folder"),
        W('Path.rename (os.rename underneath)', """
tmp = Path(str(path) + ".new")
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
tmp.rename(path)""",
          "renames with os.rename"),
        W('fsync-ed and replaced, the folder never fsync-ed', """
tmp = Path(path).with_suffix(".partial")
with open(tmp, "wb") as f:
    torch.save(state, f)
    f.flush()
    os.fsync(f.fileno())
os.replace(tmp, path)""",
          "fsyncs of the folder after one", hides=True),
    )),
    # ================================================================== lab-capstone
    Exercise("labs/lab-capstone.ipynb", "fix_model", right=(
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
    Exercise("labs/lab-capstone.ipynb", "fix_normalise", right=(
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
    Exercise("labs/lab-capstone.ipynb", "fix_load_digits", right=(
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
    Exercise("labs/lab-capstone.ipynb", "fix_setup", right=(
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
    Exercise("labs/lab-capstone.ipynb", "fix_compute_loss", right=(
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
    Exercise("labs/lab-capstone.ipynb", "fix_train_step", right=(
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
    Exercise("labs/lab-capstone.ipynb", "fix_evaluate_memory", right=(
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
    Exercise("labs/lab-capstone.ipynb", "fix_evaluate_mode", right=(
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
