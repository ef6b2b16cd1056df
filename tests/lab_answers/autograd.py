"""Right and wrong answers to the exercises of labs/lab-autograd.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-autograd.ipynb"
AUTOGRAD = LAB

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


EXERCISES: list[Exercise] = [
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
