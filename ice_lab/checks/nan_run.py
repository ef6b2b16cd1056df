"""Checks of ``labs/lab-nan.ipynb`` (chapter: Finding where NaN starts), part 3:
exercise 3, a learning rate that explodes, fixed at its cause (a clip may be the seat belt,
not the steering). The lab reaches it through ``ice_lab.checks.nan``."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

import ice_lab
import ice_lab.data

from ._core import Hints, attempt, need_callable, passed, rng

_run = Hints("fixed_run")


# ------------------------------------------------------------------ exercise 3
def regressor() -> nn.Module:
    """The lab's ``make_regressor()``."""
    return nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))


def regression(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The lab's regression data: features in raw units (standard deviation about 4)."""
    X, y = ice_lab.data.synthetic_regression(n=n, seed=seed)
    return X * 4, y.unsqueeze(1)


def noise_floor(X: torch.Tensor, y: torch.Tensor) -> float:
    """The loss of the best straight-line fit: what the noise in ``y`` alone leaves."""
    A = torch.cat([X, torch.ones(len(X), 1)], dim=1).double()
    solution = torch.linalg.lstsq(A, y.double()).solution
    return F.mse_loss(A @ solution, y.double()).item()


#: Final loss a fixed run must reach in 100 steps (the noise floor is about 0.01).
GOOD_LOSS = 0.2


def fixed_run(fn: Callable, *, seed: int | None = None) -> None:
    """``fn(model, X, y)`` trains ``model`` on ``(X, y)`` as given with the lab's
    ``train_steps`` and ``F.mse_loss`` for at most 100 steps and returns the losses: no
    blow-up, a loss near the noise level, and a step size that is right by itself (a
    gradient clip may be a seat belt, not what keeps the run on the road).

    Exercise 3 of ``labs/lab-nan.ipynb`` (chapter ``book/nonfinite.ipynb``)."""
    need_callable(fn, "fixed_run")
    h = _run.require
    names = getattr(fn, "__globals__", {})
    real = names.get("train_steps")
    h(callable(real),
      "fixed_run's notebook has no train_steps: run the lab's cells from the top first.")
    gen = rng(seed, 31)
    cases = {"the lab's data": (512, 0, 0), "another data set": (256, 11, 7)}
    if seed is not None:
        cases = {f"{n} samples, seed {s}": (n, s, s) for n, s in
                 ((gen.randint(150, 600), gen.randint(100, 1000)) for _ in range(3))}
    lab_X, _ = regression(512, 0)
    for name, (n, data_seed, model_seed) in cases.items():
        X, y = regression(n, data_seed)
        ice_lab.set_seed(model_seed)
        model = regressor()
        inputs: list[torch.Tensor] = []  # the first batch the model received
        hook = model.register_forward_hook(
            lambda module, args, output: inputs.append(args[0].detach())
            if not inputs else None)
        calls: list[dict] = []
        norms: list[float] = []

        def recording(*args, **kwargs):  # the lab's train_steps, watched
            call = {**dict(zip(("model", "X", "y", "loss_fn"), args)), **kwargs}
            calls.append(call)
            if kwargs.get("norms") is None:
                norms.clear()
                kwargs["norms"] = norms
            call["norms"] = kwargs["norms"]
            return real(*args, **kwargs)

        x, t = X.clone(), y.clone()  # fixed_run gets copies
        names["train_steps"] = recording
        try:
            losses, error = attempt(fn, model, x, t)
        finally:
            names["train_steps"] = real
            hook.remove()
        stopped = error.startswith("FloatingPointError")
        if stopped:  # train_steps stopped on a non-finite loss
            losses = [float("nan")]
        h(not error or stopped,
          f"fixed_run fails on {name} ({error}): train with train_steps and return its "
          "list of losses.")
        h(torch.equal(x, X) and torch.equal(t, y),
          f"fixed_run changed X or y in place ({name}): X /= 4, X.mul_() or y[...] = ... "
          "edit the caller's data, and the check's own copy of it; the model then "
          "trains on other inputs. Keep X and y as given.")
        h(calls,
          f"fixed_run did not call train_steps ({name}): the exercise is to fix the step "
          "of that loop (plain SGD); a loop of your own, another optimizer (Adam) or no "
          "training at all changes the problem.")
        call = calls[-1]
        h(call.get("model") is model,
          f"fixed_run trained another model than the one it was given ({name}): a fresh "
          "make_regressor() inside fixed_run leaves `model` untrained. Train the model "
          "passed in.")
        got_X = call.get("X")
        same_X = torch.is_tensor(got_X) and got_X.shape == X.shape and torch.equal(got_X, X)
        lab = (torch.is_tensor(got_X) and got_X.shape == lab_X.shape
               and torch.equal(got_X, lab_X))
        rows_of_X = bool(inputs) and bool(
            (inputs[0][:, None] == X[None]).all(-1).any(1).all())
        h(same_X and rows_of_X,
          f"The model did not train on X as given ({name}): "
          + ("fixed_run trained on the lab's X_reg, not on the X it was given. "
             if lab and n != 512 else
             "standardising (or rescaling) the features inside fixed_run trains a model "
             "for other inputs than the ones it will be used on. ")
          + "Keep X; the cause 3.3 found is in the optimizer's step.")
        got_y = call.get("y")
        h(torch.is_tensor(got_y) and got_y.shape == y.shape and torch.equal(got_y, y),
          f"The model did not train on y as given ({name}): standardised or rescaled "
          "targets (or the lab's y_reg) make another problem, and the loss on y itself "
          "stays high. Keep y, change the step.")
        loss_fn = call.get("loss_fn")
        p = torch.tensor([[0.0], [1.0], [-2.0], [4.0]])
        q = torch.tensor([[3.0], [1.0], [0.5], [-6.0]])
        value, loss_error = attempt(loss_fn, p, q) if callable(loss_fn) else (None, "x")
        is_mse = not loss_error and bool(torch.allclose(
            torch.as_tensor(value).float(), F.mse_loss(p, q)))
        h(is_mse,
          f"train_steps got loss_fn={getattr(loss_fn, '__name__', loss_fn)}, which is "
          "not the mean squared error (Smooth L1 or L1 bound the gradient, so the steps "
          "shrink): the problem is the step, not F.mse_loss. Keep F.mse_loss.")
        h(isinstance(losses, list) and 0 < len(losses) <= 100,
          "fixed_run must return the list of losses of at most 100 steps (more steps do "
          "not fix a step size).")
        finite = all(torch.isfinite(q).all() for q in model.parameters())
        h(not stopped and all(map(math.isfinite, losses)) and finite,
          f"The loss (or the weights) still stop being finite ({name}): 3.3 Diagnose "
          "showed what grows, step after step.")
        top = max(losses)
        h(top <= losses[0],
          f"The loss rose from {losses[0]:.1f} to ~1e{math.floor(math.log10(top))} on the "
          f"way ({name}): the steps still overshoot (nan_to_num or a loose clip only "
          "hides it, and so does stopping at the first inf). Compare the plot of 3.2.")
        clip = call.get("clip")
        run_norms = call["norms"]
        late = run_norms[-10:]
        cut = sum(v > clip for v in late) if clip is not None else 0
        h(not late or cut < len(late) / 2,
          f"On {name} the clip was still cutting the gradient in {cut} of the last "
          f"{len(late)} steps (gradient norm up to {max(late):.3g}, clip={clip}): the "
          "clip is doing the steering, and the step size that blew up in 3.1 is still "
          "too large. A clip is a seat belt, not the steering (section 'Exploding "
          "gradients' of the chapter Finding where NaN starts): fix the cause, keep a "
          "clip only as a belt.", kind="steering",
          more="with a step size that is right, the gradient norm falls under any clip "
          "within the first steps and the belt is never touched again.")
        with torch.no_grad():
            final = F.mse_loss(model(X), y).item()
        floor = noise_floor(X, y)
        h(losses[-1] < GOOD_LOSS and final < GOOD_LOSS,
          f"Final loss {final:.3f} (it started at {losses[0]:.1f}) on {name}; the noise "
          f"in y alone leaves {floor:.3f}, and 100 good steps reach under {GOOD_LOSS}. "
          + ("A learning rate so small that nothing moves (1e-6) keeps the loss finite "
             "but does not train the model." if losses[-1] > 0.9 * losses[0]
             else "It trains, but too slowly for 100 steps: the steps are now smaller "
             "than they need to be."))
    passed(f"no blow-up, no clip doing the steering, and the loss falls under {GOOD_LOSS} "
           f"(noise alone: about 0.01) within 100 steps, on {len(cases)} data sets.")
