"""Right and wrong answers to the exercises of labs/lab-training.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-training.ipynb"
TRAINING = LAB

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


_HAND_SGD = """
total = 0.0
for xb, yb in loader:
    model.zero_grad()
    loss = mse(model(xb), yb)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.05 * p.grad
    total += loss.item()
return total / len(loader)
"""

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


_LOADERS = ("return (DataLoader({train}, batch_size=batch_size, shuffle=True),\n"
            "        DataLoader({val}, batch_size=256))")

_CLIP = "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm={})"

EXERCISES: list[Exercise] = [
    # ================================================================== lab-training
    Exercise(TRAINING, "zero_grad_fix", right=(
        R("zero_grad() after step()", epoch(first="", last="optimizer.zero_grad()")),
        R("model.zero_grad()", epoch(first="model.zero_grad()")),
        R("zero_grad(set_to_none=False)", epoch(first="optimizer.zero_grad(set_to_none=False)")),
        R("nn.MSELoss on the squeezed output, zero_grad(set_to_none=True) after step()",
          epoch(first="", last="optimizer.zero_grad(set_to_none=True)").replace(
              "mse(model(xb), yb)", "nn.MSELoss()(model(xb).squeeze(1), yb)")),
        R("every .grad set to None by hand",
          epoch(first="for p in model.parameters():\n        p.grad = None")),
        # held-out round
        R("torch.autograd.grad written into .grad", """
params = [p for p in model.parameters() if p.requires_grad]
total, n = 0.0, 0
for xb, yb in loader:
    loss = mse(model(xb), yb)
    for p, g in zip(params, torch.autograd.grad(loss, params)):
        p.grad = g
    optimizer.step()
    total += loss.item()
    n += 1
return total / n
"""),
    ), wrong=(
        W("zero_grad() once per epoch", epoch(before="optimizer.zero_grad()", first=""),
          "are the gradients cleared on every batch"),
        W("no zero_grad() (the bug)", epoch(first=""), "are the gradients cleared on every batch"),
        W("zero_grad() between backward() and step()", epoch(first="", middle="optimizer.zero_grad()"),
          "cleared between backward() and step()"),
        W("no zero_grad(), the gradient clipped", epoch(first="", middle=_CLIP.format(1.0)),
          "only hides the stale gradients", hides=True),
        W("the sum of the batch losses", epoch(result="total"),
          "return the mean of the batch losses"),
        # fitted to the example: its SGD at lr=0.05, its 20 batches
        W("a hand-written SGD step at the lab's lr instead of the optimizer given", _HAND_SGD,
          "optimizer.step() was never called"),
        W("the sum divided by the example's 20 batches", epoch(result="total / 20"),
          "not a fixed count"),
        # the symptom removed by changing the problem: another loss
        W("Smooth L1 instead of MSE", epoch().replace(
            "mse(model(xb), yb)", "F.smooth_l1_loss(model(xb).squeeze(1), yb)"),
          "is not that of mse(model(xb), yb)", hides=True),
        W("F.mse_loss on the (N, 1) output against (N,) targets", epoch().replace(
            "mse(model(xb), yb)", "F.mse_loss(model(xb), yb)"), "broadcasts"),
        W("half the MSE (a scaled loss)", epoch().replace(
            "mse(model(xb), yb)", "0.5 * mse(model(xb), yb)"), "the loss is scaled"),
        # bookkeeping
        W("total += loss, the tensor", epoch().replace("total += loss.item()", "total += loss"),
          "return a Python float"),
        # held-out round: one parameter cleared, the rate cut, every other batch
        W("only the weight's gradient cleared (the bias accumulates)",
          epoch(first="model.weight.grad = None"), "cleared on every batch, for every parameter"),
        W("no zero_grad(), the learning rate cut tenfold", epoch(
            before="for group in optimizer.param_groups:\n    group['lr'] *= 0.1", first=""),
          "are the gradients cleared on every batch", hides=True),
        W("zero_grad() every other batch", epoch(first="pass").replace(
            "for xb, yb in loader:\n    pass",
            "for i, (xb, yb) in enumerate(loader):\n    if i % 2 == 0:\n"
            "        optimizer.zero_grad()"), "are the gradients cleared on every batch"),
        W("the loss of a second forward pass, after the step", epoch().replace(
            "total += loss.item()",
            "with torch.no_grad():\n        total += mse(model(xb), yb).item()"),
          "return the mean of the batch losses"),
    )),
    Exercise(TRAINING, "eval_fix", right=(
        R("ice_lab.train.evaluate", "return evaluate(model, loader, loss_fn)"),
        R("torch.inference_mode()", validate_answer(context="torch.inference_mode()")),
        R("mode restored with an if", validate_answer(
            after="if was_training:\n    model.train()")),
        R("set_grad_enabled(False), divided by len(loader.dataset)", validate_answer(
            context="torch.set_grad_enabled(False)", count="len(loader.dataset)")
          .replace("correct / n", "correct / len(loader.dataset)")),
        R("per-batch lists, model.train(mode=was_training) in a finally", """
was_training = model.training
model.eval()
try:
    with torch.no_grad():
        losses, hits, n = [], 0, 0
        for xb, yb in loader:
            out = model(xb)
            losses.append(loss_fn(out, yb).item() * yb.shape[0])
            hits += int((out.argmax(dim=1) == yb).sum())
            n += yb.shape[0]
finally:
    model.train(mode=was_training)
return sum(losses) / n, hits / n
"""),
        # held-out round: the accuracy as a float32 mean (was refused: the
        # check compared it to 1e-9), every module's own flag restored
        R("one pass, float32 accuracy, every module's flag restored", """
modes = {m: m.training for m in model.modules()}
model.eval()
try:
    with torch.no_grad():
        outs, ys = [], []
        for xb, yb in loader:
            outs.append(model(xb))
            ys.append(yb)
        out, y = torch.cat(outs), torch.cat(ys)
finally:
    for m, t in modes.items():
        m.training = t
return loss_fn(out, y).item(), (out.argmax(1) == y).float().mean().item()
"""),
        R("a deep copy in eval mode, inference_mode", """
import copy
frozen = copy.deepcopy(model).eval()
total, correct, n = 0.0, 0, 0
with torch.inference_mode():
    for xb, yb in loader:
        out = frozen(xb)
        total += loss_fn(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
return total / n, correct / n
"""),
    ), wrong=(
        W("torch.no_grad() without model.eval()", validate_answer(before="", after=""),
          "torch.no_grad() does not change the mode"),
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
        # fitted to the example: its two layer types, its loss, its 270 samples
        W("eval() on the example's layer types only (Dropout, BatchNorm1d)", validate_answer(
            before="was_training = model.training\nfor module in model.modules():\n"
                   "    if isinstance(module, (nn.Dropout, nn.BatchNorm1d)):\n"
                   "        module.eval()"),
          "ran in training mode"),
        W("F.cross_entropy instead of the loss_fn given",
          validate_answer().replace("loss_fn(out, yb)", "F.cross_entropy(out, yb)"),
          "Compute it with the loss_fn validate is given"),
        W("divided by the example's 270 samples",
          validate_answer(count="270").replace("correct / n", "correct / 270"),
          "not by a fixed count (the lab's 270)"),
        W("only the first batch validated", """
was_training = model.training
model.eval()
with torch.no_grad():
    xb, yb = next(iter(loader))
    out = model(xb)
    loss = loss_fn(out, yb).item()
    acc = (out.argmax(1) == yb).float().mean().item()
model.train(was_training)
return loss, acc
""", "go through the whole loader"),
        # bookkeeping
        W("model.training = was_training (the top module only)",
          validate_answer(after="model.training = was_training"), "sets the flag of the top module only"),
        W("the mode read after eval()", validate_answer(
            before="model.eval()\nwas_training = model.training"),
          "must put the model back in train mode"),
        # held-out round: the layer classes picked by hand passed (the check's
        # models had no layer of their own)
        W("eval() on every BatchNorm and dropout class, their flags restored", validate_answer(
            before="kinds = (nn.modules.batchnorm._BatchNorm, nn.modules.dropout._DropoutNd)\n"
                   "saved = {m: m.training for m in model.modules() if isinstance(m, kinds)}\n"
                   "for m in saved:\n    m.eval()",
            after="for m, t in saved.items():\n    m.train(t)"),
          "GaussianNoise ran in training mode"),
        W("BatchNorm's momentum set to 0, no eval()", validate_answer(
            before="saved = {m: m.momentum for m in model.modules()\n"
                   "         if isinstance(m, nn.BatchNorm1d)}\nfor m in saved:\n"
                   "    m.momentum = 0.0",
            after="for m, v in saved.items():\n    m.momentum = v"),
          "torch.no_grad() does not change the mode", hides=True),
        W("the accuracy divided by the number of batches",
          validate_answer().replace("correct / n", "correct / len(loader)"),
          "count the correct predictions of every batch"),
    )),
    Exercise(TRAINING, "scheduler_fix", right=(
        R("ReduceLROnPlateau told apart by hasattr",
          run_answer(end="if hasattr(scheduler, 'num_bad_epochs'):\n        scheduler.step(val_loss)\n"
                         "    else:\n        scheduler.step()")),
        R("the scheduler stepped after the validation, metric from the list",
          run_answer(end=_PLATEAU_OR_NOT.format(metric="val_losses[-1]"))),
        R("ReduceLROnPlateau told apart by its class name", run_answer(
            end="if 'Plateau' in type(scheduler).__name__:\n        scheduler.step(val_loss)\n"
                "    else:\n        scheduler.step()")),
        R("the rate read with get_last_lr()", run_answer().replace(
            'optimizer.param_groups[0]["lr"]', "scheduler.get_last_lr()[0]")),
        # held-out round
        R("validated by hand in eval mode, train() each epoch, metrics= by keyword", """
lrs, val_losses = [], []
for epoch in range(epochs):
    lrs.append(optimizer.param_groups[0]["lr"])
    model.train()
    for xb, yb in train_loader:
        for p in model.parameters():
            p.grad = None
        loss_fn(model(xb), yb).backward()
        optimizer.step()
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            total += loss_fn(model(xb), yb).item() * len(yb)
            n += len(yb)
    val_losses.append(total / n)
    if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        scheduler.step(metrics=total / n)
    else:
        scheduler.step()
return {"lr": lrs, "val_loss": val_losses}
"""),
    ), wrong=(
        W("the scheduler stepped every batch", run_answer(batch="scheduler.step()", end=""),
          "step it once per epoch, after the batches"),
        W("the validation loss passed to every scheduler", run_answer(end="scheduler.step(val_loss)"),
          "StepLR.step() takes no metric"),
        W("every scheduler stepped without the metric", run_answer(end="scheduler.step()"),
          "ReduceLROnPlateau needs the metric it watches"),
        W("ReduceLROnPlateau stepped with the training loss",
          run_answer(end=_PLATEAU_OR_NOT.format(metric="loss.item()")),
          "must be stepped with the validation loss"),
        W("the scheduler stepped before the batches", run_answer(start="scheduler.step()", end=""),
          "not before them"),
        W("the scheduler never stepped", run_answer(end=""),
          "StepLR was stepped 0 times", hides=True),
        # fitted to the example: StepLR told apart by an attribute, 3 epochs, its rates
        W("StepLR told apart by its step_size", run_answer(
            end="if hasattr(scheduler, 'step_size'):\n        scheduler.step()\n"
                "    else:\n        scheduler.step(val_loss)"), "by its step_size"),
        W("StepLR told apart with isinstance(StepLR)", run_answer(
            end="if isinstance(scheduler, torch.optim.lr_scheduler.StepLR):\n"
                "        scheduler.step()\n    else:\n        scheduler.step(val_loss)"),
          "test for ReduceLROnPlateau instead"),
        W("the example's 3 epochs", run_answer().replace("range(epochs)", "range(3)"),
          "not the lab's 3"),
        W("the rates computed from the example's schedule", run_answer().replace(
            'lrs.append(optimizer.param_groups[0]["lr"])', "lrs.append(0.5 * 0.5 ** epoch)"),
          "not computed from a schedule"),
        W("the rate halved by hand", run_answer(
            end="for group in optimizer.param_groups:\n        group['lr'] *= 0.5"),
          "changed anyway, by hand"),
        # the deprecated path
        W("scheduler.step(epoch + 1), the deprecated epoch argument", run_answer(
            end=_PLATEAU_OR_NOT.format(metric="val_loss").replace(
                "scheduler.step()", "scheduler.step(epoch + 1)")),
          "scheduler.step(epoch) is deprecated"),
        # held-out round: the batches between the steps were not looked at
        W("the batches trained without zero_grad()", run_answer().replace(
            "        optimizer.zero_grad()\n", ""), "the training between the scheduler steps"),
        W("validated by hand in eval mode, never put back in train mode", run_answer().replace(
            "    model.train()\n", "").replace(
            "val_loss = evaluate(model, val_loader, loss_fn)[0]",
            "model.eval()\n    with torch.no_grad():\n"
            "        val_loss = sum(loss_fn(model(xb), yb).item() * len(yb)\n"
            "                       for xb, yb in val_loader) / len(val_loader.dataset)"),
          "trained with the model in eval mode"),
        W("the validation loss as a mean of batch means", run_answer().replace(
            "val_loss = evaluate(model, val_loader, loss_fn)[0]",
            "with torch.no_grad():\n"
            "        batch_losses = [loss_fn(model(xb), yb).item() for xb, yb in val_loader]\n"
            "    val_loss = sum(batch_losses) / len(batch_losses)"),
          "not a mean of batch means"),
        W("ReduceLROnPlateau stepped with the validation accuracy", run_answer(
            end=_PLATEAU_OR_NOT.format(
                metric="evaluate(model, val_loader, loss_fn)[1]")),
          "nor an accuracy"),
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
        R("torch.autograd.backward on the loss times 1 / k",
          "k = len(micro_batches)\nmodel.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    torch.autograd.backward(loss_fn(model(xb), yb) * (1.0 / k))"),
    ), wrong=(
        W("micro-batch losses not divided",
          "model.zero_grad()\nfor xb, yb in micro_batches:\n    loss_fn(model(xb), yb).backward()",
          "times the whole batch's. Each micro-batch's mse is already a mean"),
        W("divided by the micro-batch size",
          "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / len(xb)).backward()",
          "the micro-batch size is the wrong count"),
        W("old gradients not cleared",
          "for xb, yb in micro_batches:\n    (loss_fn(model(xb), yb) / len(micro_batches)).backward()",
          "plus the old one"),
        W("a fixed 4", "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / 4).backward()", "not a fixed 4"),
        W("off by one: divided by len - 1", "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / (len(micro_batches) - 1)).backward()",
          "times the whole batch's. Each micro-batch's mse is already a mean"),
        W("one backward() on the mean of all the losses",
          "model.zero_grad()\nlosses = [loss_fn(model(xb), yb) for xb, yb in micro_batches]\n"
          "torch.stack(losses).mean().backward()",
          "keeps every micro-batch's graph alive at once", hides=True),
        # fitted to the example: a batch of 64 from which the count is inferred
        W("the count inferred from a batch of 64", "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / (64 // len(xb))).backward()",
          "not from a number fitted to the lab's 64"),
        W("each loss weighted by its share of a fixed 64", "model.zero_grad()\n"
          "for xb, yb in micro_batches:\n    (loss_fn(model(xb), yb) * len(xb) / 64).backward()",
          "not from a number fitted to the lab's 64"),
        W("mse instead of the loss_fn given", "model.zero_grad()\nfor xb, yb in micro_batches:\n"
          "    (mse(model(xb), yb) / len(micro_batches)).backward()",
          "call the loss_fn accumulate_gradients is given"),
        W("p.grad.zero_() on every parameter (a fresh model has None)",
          "for p in model.parameters():\n    p.grad.zero_()\nfor xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / len(micro_batches)).backward()",
          "p.grad.zero_() needs a gradient to zero"),
        # held-out round
        W("the gradients cleared inside the loop", "for xb, yb in micro_batches:\n"
          "    model.zero_grad()\n"
          "    (loss_fn(model(xb), yb) / len(micro_batches)).backward()",
          "only the last micro-batch's gradient is left"),
        W("only the weight's old gradient cleared", "model.weight.grad = None\n"
          "for xb, yb in micro_batches:\n"
          "    (loss_fn(model(xb), yb) / len(micro_batches)).backward()",
          "old gradients were not cleared, for every parameter"),
        W("divided by the number of samples of the whole batch", "model.zero_grad()\n"
          "total = sum(len(xb) for xb, _ in micro_batches)\n"
          "for xb, yb in micro_batches:\n    (loss_fn(model(xb), yb) / total).backward()",
          "Each micro-batch's mse is already a mean"),
    )),
    Exercise(TRAINING, "split_fix", right=(
        R("random_split with counts", "n_val = int(len(data) * val_fraction)\n"
          "train, val = torch.utils.data.random_split(data, [len(data) - n_val, n_val])\n"
          + _LOADERS.format(train="train", val="val")),
        R("random_split with fractions", "train, val = torch.utils.data.random_split("
          "data, [1 - val_fraction, val_fraction])\n" + _LOADERS.format(train="train", val="val")),
        R("the colleague's load_split with one private generator, seeded the same for both",
          "def rows(name):\n"
          "    n_val = int(len(data) * val_fraction)\n"
          "    order = torch.randperm(len(data), generator=torch.Generator().manual_seed(7))\n"
          "    return Subset(data, (order[:n_val] if name == 'val' else order[n_val:]).tolist())\n"
          + _LOADERS.format(train="rows('train')", val="rows('val')")),
        R("one permutation, index tensors", "order = torch.randperm(len(data))\n"
          "n_val = int(len(data) * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, order[n_val:])", val="Subset(data, order[:n_val])")),
        # held-out round
        R("the colleague's load_split twice, the random state restored in between",
          "state = torch.get_rng_state()\ntrain = load_split('train', data, val_fraction)\n"
          "torch.set_rng_state(state)\nval = load_split('val', data, val_fraction)\n"
          + _LOADERS.format(train="train", val="val")),
        R("Python's random.shuffle, the count rounded", "import random\n"
          "rows = list(range(len(data)))\nrandom.shuffle(rows)\n"
          "n_val = round(len(rows) * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, rows[n_val:])", val="Subset(data, rows[:n_val])")),
    ), wrong=(
        W("the colleague's prepare as it is", "return prepare(data, val_fraction, batch_size)",
          "validation rows are training rows too"),
        W("the rows in their stored order", "cut = len(data) - int(len(data) * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, range(cut))",
                            val="Subset(data, range(cut, len(data)))"),
          "takes the rows in their stored order"),
        W("the shared rows dropped from training",
          "train = load_split('train', data, val_fraction)\n"
          "val = load_split('val', data, val_fraction)\n"
          "kept = sorted(set(train.indices) - set(val.indices))\n"
          + _LOADERS.format(train="Subset(data, kept)", val="val"),
          "rows are in neither split", hides=True),
        W("PyTorch's global seed reset before each split",
          "torch.manual_seed(0)\ntrain = load_split('train', data, val_fraction)\n"
          "torch.manual_seed(0)\nval = load_split('val', data, val_fraction)\n"
          + _LOADERS.format(train="train", val="val"),
          "reseeds PyTorch's global random generator", hides=True),
        W("one row in both (off by one)", "rows = torch.randperm(len(data)).tolist()\n"
          "cut = int(len(data) * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, rows[cut:])", val="Subset(data, rows[:cut + 1])"),
          "validation rows are training rows too"),
        W("validation on the training rows", "rows = torch.randperm(len(data)).tolist()\n"
          "cut = int(len(data) * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, rows[cut:])", val="Subset(data, rows[cut:])"),
          "validation rows are training rows too"),
        W("the example's 1527 rows hard-coded", "rows = torch.randperm(1527).tolist()\n"
          "cut = int(1527 * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, rows[cut:])", val="Subset(data, rows[:cut])"),
          "iterating the training loader fails"),
        # held-out round: the loaders' own promises were not looked at
        W("the example's batch size of 64 written in", "rows = torch.randperm(len(data)).tolist()\n"
          "cut = int(len(data) * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, rows[cut:])", val="Subset(data, rows[:cut])")
          .replace("batch_size=batch_size", "batch_size=64"),
          "take the batch_size make_loaders is given"),
        W("the training loader not shuffled", "rows = torch.randperm(len(data)).tolist()\n"
          "cut = int(len(data) * val_fraction)\n"
          + _LOADERS.format(train="Subset(data, rows[cut:])", val="Subset(data, rows[:cut])")
          .replace(", shuffle=True", ""), "in the same order in every pass"),
        W("validation rows drawn with replacement", "n_val = int(len(data) * val_fraction)\n"
          "val_rows = torch.randint(len(data), (n_val,)).tolist()\n"
          "train_rows = sorted(set(range(len(data))) - set(val_rows))\n"
          + _LOADERS.format(train="Subset(data, train_rows)", val="Subset(data, val_rows)"),
          "a row comes twice in one pass"),
    )),
]
