"""Checks of ``labs/lab-autograd.ipynb`` (chapter: Autograd): a parameter the graph never
reaches, a hidden state carried across chunks of truncated backpropagation, an in-place
operation on a tensor the graph saved, losses combined without their graph."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ._core import Hints, attempt, built_model, need_callable, passed, rng

_tabular = Hints("make_tabular_net")
_chunks = Hints("train_chunks")
_gate = Hints("FixedGate")
_combine = Hints("combine")


# ----------------------------------------------------------------- 1: TabularNet (open)
def _standardised(model: Any, x: torch.Tensor) -> torch.Tensor:
    """What the colleague's docstring says TabularNet computes, from ``model``'s own
    parameters (the learner's repair, read by the colleague's names): batch statistics
    as constants, a learned gain and bias per feature."""
    mean, std = x.mean(dim=0).detach(), x.std(dim=0).detach() + 1e-5
    return model.mlp((x - mean) / std * model.log_gain.exp() + model.bias)


def tabular_net(make: Callable[[], nn.Module], *, seed: int | None = None) -> None:
    """``make()`` returns the colleague's TabularNet, repaired: the same parameters
    (``log_gain``, ``bias``, ``mlp``), the function its docstring describes, and a
    gradient for every parameter, the one of that function."""
    need_callable(make, "make_tabular_net")
    gen = rng(seed, 1)
    torch.manual_seed(gen.randrange(2**31))
    h = _tabular.require
    model = built_model(make, _tabular, "make_tabular_net")
    log_gain, bias = getattr(model, "log_gain", None), getattr(model, "bias", None)
    if not (isinstance(log_gain, nn.Parameter) and isinstance(bias, nn.Parameter)
            and isinstance(getattr(model, "mlp", None), nn.Module)
            and tuple(log_gain.shape) == (6,) and tuple(bias.shape) == (6,)):
        _tabular.fail("The model should keep the colleague's parameters, log_gain and "
                      "bias (6 each), and its mlp: the bug is not in which parameters "
                      "there are.")
    named = dict(model.named_parameters())
    h(any(p is log_gain for p in named.values()),
      "log_gain is no longer a parameter of the model (model.parameters() does not "
      "list it), so no optimizer would ever update it.")
    frozen = [name for name, p in named.items() if not p.requires_grad]
    h(not frozen,
      f"{', '.join(frozen)} no longer require grad: a frozen parameter gets no "
      "gradient by design, and the colleague wants every parameter trained. The "
      "parameter was never the problem (1.3 Diagnose: it is a leaf that requires grad).",
      kind="frozen")
    with torch.no_grad():  # values at which the gain and the bias matter
        log_gain.copy_(torch.randn(6) * 0.5)
        bias.copy_(torch.randn(6))
    sizes = [32, 2, 7] if seed is None else [gen.randint(2, 80) for _ in range(3)]
    scales = torch.tensor([1.0, 20.0, 0.1, 5.0, 300.0, 2.0])
    offsets = torch.tensor([0.0, 50.0, -1.0, 3.0, 1000.0, 0.0])
    for n in sizes:
        x = torch.randn(n, 6) * scales + offsets
        y = torch.randint(0, 3, (n,))
        model.zero_grad(set_to_none=True)
        out, error = attempt(model, x)
        h(not error, f"The model fails on a batch of {n} ({error}).")
        expected = _standardised(model, x)
        h(isinstance(out, torch.Tensor) and tuple(out.shape) == (n, 3),
          f"On a batch of {n} the model returns shape "
          f"{tuple(getattr(out, 'shape', ()))}, ({n}, 3) expected: 3 class scores per "
          "sample.")
        h(torch.allclose(out, expected, rtol=1e-4, atol=1e-5),
          f"On a batch of {n} the scores differ from what the docstring says the model "
          "computes (each feature standardised with the batch's statistics, times its "
          "gain, plus its bias, then the MLP): the repair must not change the function, "
          "only how it is recorded.")
        _, error = attempt(lambda: F.cross_entropy(out, y).backward())
        h(not error, f"backward() on the model's loss fails ({error}).")
        missing = [name for name, p in named.items() if p.grad is None]
        h(not missing,
          f"No gradient reaches {', '.join(missing)}: the loss's graph never gets "
          "there. Find the line of forward where the path from that parameter to the "
          "output is not recorded (1.3 Diagnose: which parameters the graph reaches).",
          kind="missing",
          more="autograd records an operation only if it runs while recording is on "
          "and on tensors that are still in the graph (the chapter's section on "
          "switching autograd off).")
        reference = torch.autograd.grad(F.cross_entropy(expected, y),
                                        list(named.values()))
        wrong = [name for (name, p), r in zip(named.items(), reference)
                 if not torch.allclose(p.grad, r, rtol=1e-4, atol=1e-6)]
        h(not wrong,
          f"{', '.join(wrong)} get a gradient, but not the one of the model's function "
          f"(batch of {n}): a term added only to make a gradient appear (0 * the "
          "parameter) gives a zero gradient, not the real one.")
    passed(f"every parameter gets the gradient of the documented function, batches of "
           f"{', '.join(map(str, sizes))}.")


# ----------------------------------------------------------------- 2: train_chunks
def _wave(steps: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The lab's sine wave, cut into chunks of ``width`` steps (batch 1, 1 feature)."""
    wave = torch.sin(torch.linspace(0, 12 * math.pi, steps * width + 1))
    return (wave[:-1].reshape(steps, width, 1, 1), wave[1:].reshape(steps, width, 1, 1))


def _rnn(seed: int, hidden: int = 16) -> tuple[nn.RNNCell, nn.Linear, torch.optim.Adam]:
    torch.manual_seed(seed)
    cell, head = nn.RNNCell(1, hidden), nn.Linear(hidden, 1)
    return cell, head, torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=0.01)


def train_chunks(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(cell, head, optimizer, inputs, targets)`` trains chunk by chunk: each chunk
    starts from a hidden state without a graph, keeps its graph inside the chunk, takes
    one optimizer step, and the loss falls."""
    need_callable(fn, "train_chunks")
    gen = rng(seed, 5)
    model_seed = 5 if seed is None else gen.randrange(2**31)
    width, hidden = (10, 16) if seed is None else (gen.randint(4, 12), gen.randint(8, 24))
    chunks = 12
    inputs, targets = _wave(30, width)
    inputs, targets = inputs[:chunks], targets[:chunks]
    cell, head, optimizer = _rnn(model_seed, hidden)
    calls: list[bool] = []  # per call of the cell: does its hidden state carry a graph?
    hook = cell.register_forward_hook(
        lambda module, args, kwargs, out: calls.append(
            getattr(args[1] if len(args) > 1 else kwargs.get("hx"), "grad_fn", None)
            is not None),
        with_kwargs=True)
    steps: list[int] = []
    step_hook = optimizer.register_step_post_hook(lambda *args: steps.append(1))
    before = cell.weight_hh.detach().clone()
    try:
        result, error = attempt(fn, cell, head, optimizer, inputs, targets)
    finally:
        hook.remove()
        step_hook.remove()
    h = _chunks.require
    h("inplace" not in error,
      f"train_chunks fails ({error}). retain_graph=True is not a fix: it keeps the "
      "previous chunk's graph alive, and the optimizer step has since changed the "
      "weights that graph saved (2.3 Diagnose).", kind="retain")
    h("second time" not in error,
      f"train_chunks fails ({error}). The hidden state still carries the previous "
      "chunk's graph into the next one: measure the graph of the hidden state each "
      "chunk starts from (2.3 Diagnose, graph_size).", kind="second",
      more="the next chunk needs the hidden state's values, not its history.")
    h(not error, f"train_chunks fails ({error}).")
    losses = result[0] if isinstance(result, tuple) and len(result) == 2 else None
    if not (isinstance(losses, list) and len(losses) == chunks
            and all(isinstance(v, float) for v in losses)):
        _chunks.fail(f"train_chunks should return (a list of {chunks} loss floats, one "
                     "per chunk, the final hidden state).")
    h(len(calls) == chunks * width and not any(calls[0::width]),
      "A chunk starts from a hidden state that still has a graph: the history must "
      "end at the chunk boundary.")
    h(all(c for i, c in enumerate(calls) if i % width),
      "The graph is too short: the hidden state lost its graph inside a chunk (at "
      "every step?), so the loss backpropagates through one step only. The history "
      "ends once per chunk, at its boundary.")
    h(len(steps) == chunks,
      f"{len(steps)} optimizer steps for {chunks} chunks: take one step per chunk.")
    h(not torch.equal(cell.weight_hh.detach(), before),
      "The cell's weights did not change: the loss must backpropagate into the cell.")
    h(sum(losses[-3:]) < sum(losses[:3]),
      f"Training should lower the loss over {chunks} chunks.")
    passed(f"one graph per chunk, no shorter, no longer; {chunks} steps.")


def train_chunks_carry(fn: Callable, *, seed: int | None = None) -> None:
    """The hidden state's values go on from chunk to chunk (with lr=0, every loss equals
    that of one uninterrupted pass), for any cell, batch and chunk length, and each chunk
    steps the optimizer it is given on that chunk's own gradient."""
    need_callable(fn, "train_chunks")
    gen = rng(seed, 6)
    h = _chunks.require
    cell, head, _ = _rnn(6 if seed is None else gen.randrange(2**31))
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.0)
    inputs, targets = _wave(30, 10)
    count = 4 if seed is None else gen.randint(3, 8)
    result, error = attempt(fn, cell, head, optimizer, inputs[:count], targets[:count])
    h(not error, f"train_chunks fails ({error}).")
    h(isinstance(result, tuple) and len(result) == 2
      and isinstance(result[1], torch.Tensor),
      "train_chunks should return (the list of losses, the final hidden state).")
    losses, last = result
    with torch.no_grad():
        straight, preds = torch.zeros(1, cell.hidden_size), []
        for x in inputs[:count].reshape(-1, 1, 1):
            straight = cell(x, straight)
            preds.append(head(straight))
        expected = [F.mse_loss(torch.stack(preds[10 * k:10 * k + 10]), targets[k]).item()
                    for k in range(count)]
    h(torch.allclose(last, straight, atol=1e-6) and all(
        math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-7) for a, b in zip(losses, expected)),
      "The hidden state was not carried from one chunk to the next (with lr=0 every "
      "chunk's loss must equal that of one straight run). A fresh hidden state per "
      "chunk avoids the error but forgets the past: keep the values.", kind="carry")
    # Another cell, batch, chunk length and optimizer than the lab's example.
    torch.manual_seed(16 if seed is None else gen.randrange(2**31))
    features, hidden = (2, 8) if seed is None else (gen.randint(1, 4), gen.randint(3, 12))
    n_chunks, width, batch = (5, 7, 3) if seed is None else (
        gen.randint(2, 6), gen.randint(2, 9), gen.randint(2, 5))
    cell, head = nn.RNNCell(features, hidden), nn.Linear(hidden, features)
    twin_cell, twin_head = nn.RNNCell(features, hidden), nn.Linear(hidden, features)
    twin_cell.load_state_dict(cell.state_dict())
    twin_head.load_state_dict(head.state_dict())
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.05,
                                momentum=0.9)
    twin_opt = torch.optim.SGD([*twin_cell.parameters(), *twin_head.parameters()],
                               lr=0.05, momentum=0.9)
    inputs = torch.randn(n_chunks, width, batch, features)
    targets = torch.randn(n_chunks, width, batch, features)
    where = (f"a batch of {batch} sequences, an RNNCell({features}, {hidden}) and chunks "
             f"of {width} steps")
    result, error = attempt(fn, cell, head, optimizer, inputs, targets)
    h(not error,
      f"train_chunks fails on {where} ({error}): take the hidden size from the cell "
      "and the batch size from the data, not from the example.", kind="sizes")
    state = torch.zeros(batch, hidden)
    for x_chunk, y_chunk in zip(inputs, targets):
        state, preds = state.detach(), []
        for x in x_chunk:
            state = twin_cell(x, state)
            preds.append(twin_head(state))
        twin_opt.zero_grad()
        F.mse_loss(torch.stack(preds), y_chunk).backward()
        twin_opt.step()
    same = all(torch.allclose(p, q, atol=1e-5) for p, q in zip(
        [*cell.parameters(), *head.parameters()],
        [*twin_cell.parameters(), *twin_head.parameters()]))
    h(len(result[0]) == n_chunks and same,
      f"With SGD and momentum on {where}, the weights end elsewhere than one step per "
      "chunk on that chunk's own gradient: the gradients of earlier chunks must not "
      "pile up (the chapter: gradients accumulate), and the step is the optimizer's.")
    passed(f"the hidden state's values carry across {count} chunks; {where}.")


# ----------------------------------------------------------------- 3: FixedGate
def fixed_gate(cls: type, *, seed: int | None = None) -> None:
    """``cls()`` computes the lab's Gate, ``fc2(sigmoid(fc1(x)) + [x, 0])`` (the input
    added to the first 4 of the 8 gates), and every weight gets the right gradient."""
    need_callable(cls, "FixedGate")
    gen = rng(seed, 7)
    torch.manual_seed(gen.randrange(2**31))
    h = _gate.require
    cases = [(6, torch.tensor([1.0, 10.0, 0.1, 3.0]))] if seed is None else [
        (gen.randint(1, 30), torch.rand(4) * 6) for _ in range(3)]
    for n, scale in cases:
        model, error = attempt(cls)
        h(not error, f"FixedGate() fails ({error}).")
        params = list(model.parameters())
        x = torch.randn(n, 4) * scale
        out, error = attempt(model, x)
        h(not error, f"FixedGate fails on a batch of {n} ({error}).")
        with torch.no_grad():
            expected = model.fc2(torch.sigmoid(model.fc1(x)) + F.pad(x, (0, 4)))
        h(isinstance(out, torch.Tensor) and tuple(out.shape) == (n, 1)
          and torch.allclose(out, expected, atol=1e-6),
          f"On a batch of {n}, FixedGate computes another function than Gate: the "
          "input's 4 features added to the first 4 of the 8 gates, then fc2.")
        grads, error = attempt(torch.autograd.grad, out.sum(), params, allow_unused=True)
        h(not error,
          f"backward fails ({error}). A tensor the graph saved is still modified in "
          "place after it was saved (3.3 Diagnose names the node that saved it), "
          "under torch.no_grad() or not.", kind="inplace",
          more="which operations are in place? The chapter's section on in-place "
          "operations lists them: not only the ones ending in _.")
        reference = model.fc2(torch.sigmoid(model.fc1(x)) + F.pad(x, (0, 4)))
        ref_grads = torch.autograd.grad(reference.sum(), params)
        h(all(g is not None for g in grads),
          "Some weights get no gradient: .detach() or .data hides the error by cutting "
          "them out of the graph.", kind="cut")
        h(all(torch.allclose(g, r, atol=1e-6) for g, r in zip(grads, ref_grads)),
          "The gradients are wrong: a change made through .data escapes the version "
          "check, and sigmoid's backward then reads the modified values.")
    passed(f"same function, every weight gets the right gradient, batches of "
           f"{', '.join(str(n) for n, _ in cases)}.")


# ----------------------------------------------------------------- 4: combine
def _two_task_losses(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> list:
    out = model(x)
    return [F.mse_loss(out[:, k], y[:, k]) for k in range(y.shape[1])]


def combine(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(losses)``: the mean of any number of scalar loss tensors, a tensor through
    which the gradient reaches every loss (and the model behind it)."""
    need_callable(fn, "combine")
    gen = rng(seed, 8)
    torch.manual_seed(gen.randrange(2**31))
    h = _combine.require
    tasks = 2 if seed is None else gen.randint(2, 5)
    model = nn.Linear(4, tasks)
    x, y = torch.randn(8, 4), torch.randn(8, tasks)
    total, error = attempt(fn, _two_task_losses(model, x, y))
    h(not error, f"combine fails on {tasks} losses ({error}).")
    h(isinstance(total, torch.Tensor) and total.grad_fn is not None,
      "combine must return a tensor with a grad_fn: torch.tensor(...), .item() and "
      ".detach() keep the numbers and drop the graph (4.2 Observe).", kind="graph",
      more="build the result from the loss tensors themselves, with tensor operations.")
    h(total.numel() == 1,
      f"combine returns a tensor of shape {tuple(total.shape)}: the mean is one number.")
    grads = torch.autograd.grad(total.sum(), list(model.parameters()), allow_unused=True)
    h(all(g is not None for g in grads),
      "The gradients do not reach the model: .requires_grad_() on a new tensor only "
      "fakes a graph (4.3 Diagnose).")
    reference = sum(_two_task_losses(model, x, y)) / tasks
    ref_grads = torch.autograd.grad(reference, list(model.parameters()))
    counts = [3] if seed is None else [1, gen.randint(3, 9)]
    for k in counts:
        values = [1.0, 2.0, 6.0] if seed is None else [gen.uniform(0, 10) for _ in range(k)]
        leaves = [torch.tensor(v, requires_grad=True) for v in values]
        mean, error = attempt(fn, leaves)
        h(not error, f"combine fails on {k} losses ({error}).")
        one = isinstance(mean, torch.Tensor) and mean.numel() == 1
        got = f"{mean.detach().item():.4f}" if one else repr(mean)
        h(one and bool(torch.isclose(total.sum(), reference))
          and bool(torch.isclose(mean.sum(), torch.tensor(sum(values) / k))),
          f"combine gives {total.sum().item():.4f} for {tasks} losses and {got} for "
          f"{[round(v, 2) for v in values]}; expected {reference.item():.4f} and "
          f"{sum(values) / k:.4f}: the MEAN (not the sum) of any number of losses "
          "(not just two).")
        leaf_grads, error = attempt(torch.autograd.grad, mean.sum(), leaves)
        h(not error and all(torch.isclose(g, torch.tensor(1 / k)) for g in leaf_grads),
          f"combine must pass the gradient to each of {k} losses, 1/{k} each.")
    h(all(torch.allclose(g, r) for g, r in zip(grads, ref_grads)),
      "The gradients are not those of the mean of the losses.")
    passed(f"the mean of {tasks} task losses and of {', '.join(map(str, counts))} "
           "others, with a graph into each.")
