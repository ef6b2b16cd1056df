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


def _repaired(body: str) -> str:
    """A subclass of the colleague's TabularNet whose forward is ``body``."""
    forward = "\n".join("        " + line if line else "" for line in body.splitlines())
    return (f"class Repaired(TabularNet):\n    def forward(self, x):\n{forward}\n\n"
            "return Repaired()")


EXERCISES: list[Exercise] = [
    # ================================================================== lab-autograd
    Exercise(AUTOGRAD, "tabular_net", right=(
        R("the gain computed after the no_grad block", _repaired(
            "with torch.no_grad():\n"
            "    mean = x.mean(dim=0)\n"
            "    std = x.std(dim=0) + 1e-5\n"
            "gain = self.log_gain.exp()\n"
            "z = (x - mean) / std * gain + self.bias\n"
            "return self.mlp(z)")),
        R("no no_grad block at all (x requires no grad)", _repaired(
            "z = (x - x.mean(dim=0)) / (x.std(dim=0) + 1e-5) * self.log_gain.exp()\n"
            "return self.mlp(z + self.bias)")),
        R("a copy of the class, edited",
          "class Copy(nn.Module):\n"
          "    def __init__(self):\n"
          "        super().__init__()\n"
          "        self.log_gain = nn.Parameter(torch.zeros(6))\n"
          "        self.bias = nn.Parameter(torch.zeros(6))\n"
          "        self.mlp = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))\n"
          "\n"
          "    def forward(self, x):\n"
          "        with torch.no_grad():\n"
          "            mean, std = x.mean(dim=0), x.std(dim=0) + 1e-5\n"
          "        return self.mlp((x - mean) / std * torch.exp(self.log_gain) + self.bias)\n"
          "\n"
          "return Copy()"),
    ), wrong=(
        W("the colleague's model as it is (the bug)", "return TabularNet()",
          "No gradient reaches log_gain"),
        W("log_gain frozen, so that no trainable parameter lacks a gradient",
          "model = TabularNet()\nmodel.log_gain.requires_grad_(False)\nreturn model",
          "no longer require grad", hides=True),
        W("0 * log_gain added to the output, so that a gradient appears", _repaired(
            "return super().forward(x) + 0 * self.log_gain.sum()"),
          "a term added only to make a gradient appear", hides=True),
        W("the gain read through .data outside the block", _repaired(
            "mean, std = x.mean(dim=0), x.std(dim=0) + 1e-5\n"
            "gain = self.log_gain.data.exp()\n"
            "return self.mlp((x - mean) / std * gain + self.bias)"),
          "No gradient reaches log_gain"),
        W("the gain made a new leaf inside the block", _repaired(
            "with torch.no_grad():\n"
            "    mean, std = x.mean(dim=0), x.std(dim=0) + 1e-5\n"
            "    gain = self.log_gain.exp().clone().requires_grad_()\n"
            "return self.mlp((x - mean) / std * gain + self.bias)"),
          "No gradient reaches log_gain", hides=True),
        W("the gain dropped", _repaired(
            "mean, std = x.mean(dim=0), x.std(dim=0) + 1e-5\n"
            "return self.mlp((x - mean) / std + self.bias)"),
          "the scores differ from what the docstring says"),
        W("the statistics of the lab's X, not of the batch", _repaired(
            "mean, std = X.mean(dim=0), X.std(dim=0) + 1e-5\n"
            "return self.mlp((x - mean) / std * self.log_gain.exp() + self.bias)"),
          "the scores differ from what the docstring says"),
    )),
    Exercise(AUTOGRAD, "train_chunks_detach", right=(
        R("h.detach() at the end of each chunk", chunks(end="h = h.detach()")),
        R("h.detach_() at the start", chunks(start="h.detach_()")),
        R("h = h.detach() after the optimizer step", chunks(
            update=_STEP + "\n    h = h.detach()")),
    ), wrong=(
        W("h carried as is (the bug)", chunks(),
          "The hidden state still carries the previous chunk's graph"),
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
          "take the hidden size from the cell and the batch size from the data"),
        W("the example's hidden size hard-coded",
          chunks(start="h = h.detach()").replace("cell.hidden_size", "16"),
          "take the hidden size from the cell and the batch size from the data"),
        W("gradients never zeroed between chunks",
          chunks(start="h = h.detach()", update="loss.backward()\n    optimizer.step()"),
          "the gradients of earlier chunks must not pile up"),
    )),
    Exercise(AUTOGRAD, "fixed_gate_inplace", right=(
        R("clone, then += on the slice", "h = torch.sigmoid(self.fc1(x)).clone()\n"
          "h[:, :4] += x\nreturn self.fc2(h)"),
        R("the input padded with zeros, added out of place",
          "h = torch.sigmoid(self.fc1(x))\nreturn self.fc2(h + F.pad(x, (0, 4)))"),
        R("index_add (out of place)", "h = torch.sigmoid(self.fc1(x))\n"
          "h = h.index_add(1, torch.arange(4), x)\nreturn self.fc2(h)"),
        R("x concatenated with zeros", "h = torch.sigmoid(self.fc1(x))\n"
          "return self.fc2(h + torch.cat([x, torch.zeros_like(x)], dim=1))"),
    ), wrong=(
        W("+= on the slice kept (the bug)", "h = torch.sigmoid(self.fc1(x))\n"
          "h[:, :4] += x\nreturn self.fc2(h)", "is still modified in place"),
        W("h.detach() before the in-place add",
          "h = torch.sigmoid(self.fc1(x)).detach()\nh[:, :4] += x\nreturn self.fc2(h)",
          "Some weights get no gradient", hides=True),
        W("h.data[:, :4] += x", "h = torch.sigmoid(self.fc1(x))\nh.data[:, :4] += x\n"
          "return self.fc2(h)", "a change made through .data escapes the version check",
          hides=True),
        W("the add under torch.no_grad()", "h = torch.sigmoid(self.fc1(x))\n"
          "with torch.no_grad():\n    h[:, :4] += x\nreturn self.fc2(h)",
          "is still modified in place", hides=True),
        W("in-place sigmoid_ then +=", "h = self.fc1(x)\nh.sigmoid_()\nh[:, :4] += x\n"
          "return self.fc2(h)", "is still modified in place"),
        W("the input added to the last 4 gates", "h = torch.sigmoid(self.fc1(x))\n"
          "return self.fc2(torch.cat([h[:, :4], h[:, 4:] + x], dim=1))",
          "computes another function than Gate"),
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
