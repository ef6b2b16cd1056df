"""Will one training step of this model work? ``preflight(model, batch, loss_fn)``.

It runs one training step on a copy, on the CPU, and reports what looks wrong, each
finding with a severity and the chapter that teaches it: a loss that is not a finite
scalar, labels outside the model's outputs, probabilities fed to a loss that expects
logits, parameters that received no gradient (or an all-zero one), a model left in eval
mode, BatchNorm on a batch of one, model and batch on different devices or dtypes, an
optimizer that misses trainable parameters or holds frozen ones. The caller's model,
optimizer and random state are never touched. Taught in the Debugging chapter
(``book/debugging.ipynb``), used in the capstone lab (``labs/lab-capstone.ipynb``).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch import nn

from ._text import Report, error_line
from .shapes import dtype_name

__all__ = ["CHAPTERS", "SEVERITIES", "PreflightFinding", "PreflightReport", "preflight"]

# Where each finding is taught: "page#heading-anchor", pages as named in _toc.yml.
CHAPTERS: dict[str, str] = {
    "step_failed": "book/debugging.ipynb#1-read-the-last-line-of-the-error",
    "loss_not_scalar": "book/training.ipynb#linear-regression-end-to-end",
    "loss_not_finite": "book/nonfinite.ipynb#finding-the-source",
    "label_range": "book/devices.ipynb#3-device-side-asserts-a-bad-index-on-the-gpu",
    "target_shape": "book/training.ipynb#the-squeeze-trap",
    "probabilities_as_logits": "book/training.ipynb#start-tiny-overfit-one-batch",
    "no_gradient": "book/debugging.ipynb#gradient-checks",
    "zero_gradient": "book/debugging.ipynb#gradient-checks",
    "eval_mode": "book/training.ipynb#train-and-eval",
    "batchnorm_batch_of_one": "book/datasets.ipynb#shuffle-and-drop_last",
    "mixed_devices": "book/devices.ipynb#2-device-mismatch-provoked-for-real",
    "mixed_dtypes": "book/tensors.ipynb#numpy-interop-shared-memory-and-float64",
    "optimizer_missing": "book/training.ipynb#nnmodulelist-not-a-python-list",
    "optimizer_frozen": "book/training.ipynb#freezing-layers-and-the-batchnorm-trap",
    "nonfinite_after_step": "book/nonfinite.ipynb#exploding-gradients",
}
SEVERITIES = ("error", "warning")
_BATCHNORM = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)


@dataclass
class PreflightFinding:
    """One thing ``preflight`` found: ``severity`` ("error" or "warning"), ``check`` (a short
    name such as ``"no_gradient"``), ``message`` in the learner's terms, ``chapter`` (the
    page and section that teach it). Taught in the Debugging chapter
    (``book/debugging.ipynb``)."""

    severity: str
    check: str
    message: str
    chapter: str

    def __str__(self) -> str:
        return f"[{self.severity}] {self.check}: {self.message} (read: {self.chapter})"


@dataclass
class PreflightReport(Report):
    """The findings of one ``preflight`` run; empty when nothing looked wrong.

    ``checks`` lists the names of the findings, ``errors`` and ``warnings`` split them by
    severity, ``ok`` is True when there are none. ``print(report)`` shows one per line.
    Taught in the Debugging chapter (``book/debugging.ipynb``).
    """

    findings: list[PreflightFinding] = field(default_factory=list)
    loss: float | None = None

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def checks(self) -> list[str]:
        return [f.check for f in self.findings]

    @property
    def errors(self) -> list[PreflightFinding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[PreflightFinding]:
        return [f for f in self.findings if f.severity == "warning"]

    def add(self, severity: str, check: str, message: str) -> None:
        self.findings.append(PreflightFinding(severity, check, message, CHAPTERS[check]))

    def __str__(self) -> str:
        if not self.findings:
            return "preflight: no findings"
        head = f"preflight: {len(self.errors)} error(s), {len(self.warnings)} warning(s)"
        return "\n".join([head] + [f"  {f}" for f in self.findings])


def _unpack(batch: Any) -> tuple[torch.Tensor, torch.Tensor]:
    if isinstance(batch, (tuple, list)) and len(batch) == 2 and all(
        isinstance(t, torch.Tensor) for t in batch
    ):
        return batch[0], batch[1]
    raise TypeError(
        "preflight needs batch = (inputs, targets), two tensors, e.g. next(iter(loader)); "
        f"got {type(batch).__name__}."
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _names(items: list[str], limit: int = 4) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _static_checks(
    report: PreflightReport,
    model: nn.Module,
    inputs: torch.Tensor,
    optimizer: torch.optim.Optimizer | None,
) -> None:
    """What can be read off the objects without running anything."""
    params = dict(model.named_parameters())
    devices = sorted({str(p.device) for p in params.values()} | {str(inputs.device)})
    if len(devices) > 1:
        where = sorted({str(p.device) for p in params.values()})
        report.add("error", "mixed_devices",
                   f"the model's parameters are on {', '.join(where)} and the inputs on "
                   f"{inputs.device}: move both to one device with .to(device)")
    floats = sorted({dtype_name(p) for p in params.values() if p.is_floating_point()})
    if inputs.is_floating_point() and floats and dtype_name(inputs) not in floats:
        report.add("error", "mixed_dtypes",
                   f"the inputs are {dtype_name(inputs)} but the parameters {', '.join(floats)}: "
                   "convert the data (x.float()), not the model")
    if not model.training:
        report.add("warning", "eval_mode",
                   "the model is in eval mode (dropout off, BatchNorm frozen): call "
                   "model.train() before training")
    elif len(inputs) == 1:
        bns = [n for n, m in model.named_modules() if isinstance(m, _BATCHNORM)]
        if bns:
            report.add("warning", "batchnorm_batch_of_one",
                       f"a batch of one sample through BatchNorm in training mode "
                       f"({_names(bns)}): its statistics are meaningless; use batches of "
                       "at least 2 (DataLoader drop_last=True)")
    if optimizer is not None:
        held = {id(p) for g in optimizer.param_groups for p in g["params"]}
        trainable = [n for n, p in params.items() if p.requires_grad]
        missing = [n for n in trainable if id(params[n]) not in held]
        if missing:
            report.add("error", "optimizer_missing",
                       f"{_plural(len(missing), 'trainable parameter')} not in the optimizer "
                       f"({_names(missing)}): they will never be updated; build the "
                       "optimizer from model.parameters() of this very model")
        frozen = [n for n, p in params.items() if not p.requires_grad and id(p) in held]
        if frozen:
            report.add("warning", "optimizer_frozen",
                       f"the optimizer holds {_plural(len(frozen), 'frozen parameter')} "
                       f"({_names(frozen)}): pass only the parameters that require grad")


def _output_checks(report: PreflightReport, outputs: Any, targets: torch.Tensor) -> bool:
    """Checks on the model's output against the targets; False when the loss cannot run."""
    if not isinstance(outputs, torch.Tensor):
        return True
    classes = outputs.dim() >= 2 and not targets.is_floating_point()
    if classes and targets.numel():
        n = outputs.shape[1]
        low, high = int(targets.min()), int(targets.max())
        if low < 0 or high >= n:
            report.add("error", "label_range",
                       f"labels run from {low} to {high} but the model has {n} outputs "
                       f"(valid labels 0..{n - 1})")
            return False
        rows = outputs.detach().float()
        if outputs.dim() == 2 and n > 1 and (rows >= 0).all() and (rows <= 1).all() and \
                torch.allclose(rows.sum(dim=1), torch.ones(len(rows)), atol=1e-4):
            report.add("warning", "probabilities_as_logits",
                       "every output row of the model is a probability distribution (in "
                       "[0, 1], sums to 1), but losses such as cross_entropy expect raw "
                       "logits: drop the softmax")
    elif targets.is_floating_point() and outputs.shape != targets.shape:
        report.add("warning", "target_shape",
                   f"outputs {tuple(outputs.shape)} and targets {tuple(targets.shape)} differ "
                   "in shape: an element-wise loss broadcasts them (squeeze(1) the output "
                   "or unsqueeze(1) the target)")
    return True


def preflight(
    model: nn.Module,
    batch: Any,
    loss_fn: Callable[[Any, torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer | None = None,
) -> PreflightReport:
    """One training step on a copy, on the CPU; a report of what looks wrong.

    ``batch`` is ``(inputs, targets)``, e.g. two samples from your loader. The model and
    optimizer are deep-copied together (so the copied optimizer holds the copied
    parameters) and moved to the CPU; the step runs forward, loss, backward and (with an
    optimizer) ``step()`` there, with the random state saved and restored. Your model,
    optimizer and random streams are left exactly as they were. Each
    :class:`PreflightFinding` carries a severity, a short check name and the chapter
    section that teaches it.
    A model that raises during the step gives a ``step_failed`` finding, never an error.
    A model or batch on the ``meta`` device (no values) gets the static checks only.

    Taught in the Debugging chapter (``book/debugging.ipynb``, "Preflight").
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"preflight needs an nn.Module, got {type(model).__name__}.")
    if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            f"optimizer must be a torch.optim.Optimizer (or None), got {type(optimizer).__name__}."
        )
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable, e.g. nn.CrossEntropyLoss(); got {loss_fn!r}.")
    inputs, targets = _unpack(batch)
    report = PreflightReport()
    _static_checks(report, model, inputs, optimizer)
    tensors = [*model.parameters(), *model.buffers(), inputs, targets]
    if any(t.device.type == "meta" for t in tensors):
        return report  # meta tensors hold no values: only the checks above apply
    twin, twin_opt = copy.deepcopy((model, optimizer))
    twin.to("cpu")
    dtypes = [p.dtype for p in twin.parameters() if p.is_floating_point()]
    inputs, targets = inputs.detach().to("cpu"), targets.detach().to("cpu")
    if dtypes and inputs.is_floating_point():
        inputs = inputs.to(dtypes[0])  # reported above; carry on to find the rest
    if twin_opt is not None:
        twin_opt.zero_grad(set_to_none=True)
    twin.zero_grad(set_to_none=True)
    with torch.random.fork_rng(devices=[]):
        try:
            outputs = twin(inputs)
            if not _output_checks(report, outputs, targets):
                return report
            loss = loss_fn(outputs, targets)
            if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
                shape = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
                report.add("error", "loss_not_scalar",
                           f"the loss is {shape}, not a single number: use reduction='mean' "
                           "or call .mean() on it")
                return report
            doubled = _softmax_then_log_softmax(loss)
            if doubled and "probabilities_as_logits" not in report.checks:
                report.add("warning", "probabilities_as_logits",
                           "the loss takes log_softmax of a softmax (a softmax before "
                           "cross_entropy, which applies log_softmax itself): pass the raw "
                           "logits")
            report.loss = loss.item()
            if not math.isfinite(report.loss):
                report.add("error", "loss_not_finite",
                           f"the loss of this batch is {report.loss}: look at the data, then "
                           "the loss (ice_lab.watch_nonfinite)")
                return report
            loss.backward()
        except Exception as err:
            report.add("error", "step_failed",
                       f"the step raised {error_line(err)} (ice_lab.explain tells why)")
            return report
        _gradient_checks(report, twin)
        if twin_opt is not None:
            try:
                twin_opt.step()
            except Exception as err:
                report.add("error", "step_failed", f"optimizer.step() raised {error_line(err)}")
                return report
            bad = [n for n, p in twin.named_parameters() if not torch.isfinite(p).all()]
            if bad:
                report.add("error", "nonfinite_after_step",
                           f"one optimizer step made {_names(bad)} NaN/Inf: the learning "
                           "rate is far too large, or clip the gradients")
    return report


def _softmax_then_log_softmax(loss: torch.Tensor) -> bool:
    """True when the loss's graph applies log_softmax directly to a softmax's output."""
    seen, todo = set(), [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        children = [child for child, _ in node.next_functions]
        if type(node).__name__.startswith("LogSoftmaxBackward") and any(
            c is not None and type(c).__name__.startswith("SoftmaxBackward") for c in children
        ):
            return True
        todo.extend(children)
    return False


def _gradient_checks(report: PreflightReport, model: nn.Module) -> None:
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    none = [n for n, p in trainable if p.grad is None]
    if none:
        report.add("error", "no_gradient",
                   f"{_plural(len(none), 'trainable parameter')} received no gradient "
                   f"({_names(none)}): a branch the loss never uses, or a detach() / "
                   "no_grad on the way")
    zero = [n for n, p in trainable if p.grad is not None and not p.grad.any()]
    if zero:
        report.add("warning", "zero_gradient",
                   f"{_plural(len(zero), 'parameter')} received an all-zero gradient "
                   f"({_names(zero)}): dead ReLUs, a multiplication by zero, or a saturated "
                   "activation")
