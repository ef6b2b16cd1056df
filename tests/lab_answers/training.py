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

EXERCISES: list[Exercise] = [
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
