"""Does the exported model still compute what the original computes? ``check_export``.

An export can succeed and still be wrong: a trace that recorded one branch, a batch size
baked into the graph, a model exported in train mode, a file that needs preprocessing the
server forgot. ``check_export`` runs the original model and the exported artefact on the
example inputs **and on other batch sizes**, and reports, for each run, whether they
agree, by how much they differ, and what error the artefact raised, if it raised one.

    >>> report = check_export(model, example, "digits.onnx", batch_sizes=(1, 3, 32))
    >>> print(report)            # one line per run, then the verdict
    >>> assert report.ok         # every run agreed, within the tolerance

``export_warnings`` (what did the exporter warn about?) is the neighbouring question; it
lives in ``ice_lab.export_warnings``.

Taught in the Export chapter (``book/export.ipynb``); every Verify step of the Export lab
(``labs/lab-export.ipynb``) calls ``check_export``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
from torch import nn

from ._args import check_int, check_number
from ._text import Report, error_line, first_line

__all__ = ["check_export", "ExportReport", "RunResult"]

Inputs = tuple[torch.Tensor, ...]

#: What to install when onnxruntime is missing (the ``export`` extra of ice_lab).
INSTALL_HINT = 'pip install onnxruntime  (or: pip install "ice_lab[export]")'

_TORCHSCRIPT_WRAPPER = "The following operation failed in the TorchScript interpreter"


# --------------------------------------------------------------------------- results
@dataclass
class RunResult:
    """One run of the original and the exported artefact on the same inputs; ``ok`` when
    they agree. Taught in the Export chapter (``book/export.ipynb``)."""

    label: str  #: which inputs: "example inputs", "batch of 3", "extra inputs 0"
    batch_size: int
    max_abs: list[float] = field(default_factory=list)  #: per output: the largest ``abs(exported - original)``
    max_rel: list[float] = field(default_factory=list)  #: per output: ``max_abs`` divided by the largest ``abs(original)``
    agree: list[bool] = field(default_factory=list)  #: per output: within the tolerance
    error: BaseException | None = None  #: what was raised, kept whole (never swallowed)
    failed_side: str = ""  #: "exported", "original" or "comparison" when error is set

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.agree) and all(self.agree)

    @property
    def error_text(self) -> str:
        """``Type: first line`` of the error (TorchScript's wrapper line skipped), or ""."""
        return _error_text(self.error) if self.error is not None else ""


@dataclass
class ExportReport(Report):
    """What ``check_export`` found. ``print(report)`` shows it; ``report.ok`` sums it up.
    Taught in the Export chapter (``book/export.ipynb``)."""

    kind: str  #: "TorchScript", "ExportedProgram (torch.export)", "ONNX (onnxruntime)"
    model_in_eval_mode: bool  #: False if the original, or any submodule, was in train mode
    rtol: float
    atol: float
    runs: list[RunResult]

    @property
    def ok(self) -> bool:
        """True when every run agreed within the tolerance and nothing raised."""
        return bool(self.runs) and all(r.ok for r in self.runs)

    @property
    def failed_batch_sizes(self) -> list[int]:
        """Batch sizes of the runs that raised an error (in the order run)."""
        return [r.batch_size for r in self.runs if r.error is not None]

    @property
    def disagreeing_batch_sizes(self) -> list[int]:
        """Batch sizes of the runs that ran but differed beyond the tolerance."""
        return [r.batch_size for r in self.runs if r.error is None and not all(r.agree)]

    @property
    def errors(self) -> list[BaseException]:
        """Every exception raised during the check, in order (to re-raise or explain)."""
        return [r.error for r in self.runs if r.error is not None]

    @property
    def max_abs(self) -> float:
        """The largest absolute difference over every run and output that ran."""
        values = [v for r in self.runs for v in r.max_abs]
        return max(values) if values else float("nan")

    def __str__(self) -> str:
        mode = "eval mode" if self.model_in_eval_mode else (
            "TRAIN MODE: dropout and BatchNorm behave differently in eval(); call "
            "model.eval() before exporting and checking"
        )
        lines = [
            f"check_export: {self.kind} against the original model ({mode})",
            f"agree when max |exported - original| <= {self.atol:g} + {self.rtol:g} "
            "* max |original|, per output",
        ]
        for r in self.runs:
            where = f"  {r.label:<16} batch {r.batch_size:>4}: "
            if r.error is not None:
                side = {"original": "the ORIGINAL model failed", "comparison": "cannot compare"}
                lines.append(where + f"{side.get(r.failed_side, 'FAILED')}: {r.error_text}")
            elif all(r.agree):
                lines.append(where + "agree")
            else:
                # one significant digit: a disagreement's size, not digits that move
                worst = [f"output {i}: max abs diff {a:.1g}, max rel diff {q:.1g}"
                         for i, (a, q, ok) in enumerate(zip(r.max_abs, r.max_rel, r.agree))
                         if not ok]
                lines.append(where + "DIFFER, " + "; ".join(worst))
        bad = len([r for r in self.runs if not r.ok])
        if self.ok:
            lines.append(f"verdict: all {len(self.runs)} runs agree")
        else:
            lines.append(f"verdict: {bad} of {len(self.runs)} runs fail or disagree")
        return "\n".join(lines)

    __repr__ = __str__


# --------------------------------------------------------------------------- helpers
def _error_text(error: BaseException) -> str:
    """``Type: message`` on one line; for TorchScript, the real error, not its wrapper."""
    text = str(error)
    if type(error).__module__.startswith("onnxruntime"):
        # onnxruntime puts the useful part (which index, got what) on the next lines
        return f"{type(error).__name__}: {first_line(' '.join(text.split()))}"
    if text.startswith(_TORCHSCRIPT_WRAPPER):
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return first_line(lines[-1]) if lines else type(error).__name__
    return error_line(error)


def _as_inputs(value: Any, what: str) -> Inputs:
    inputs = (value,) if isinstance(value, torch.Tensor) else value
    if (
        not isinstance(inputs, (tuple, list))
        or not inputs
        or not all(isinstance(t, torch.Tensor) for t in inputs)
    ):
        raise TypeError(
            f"{what} must be a tensor or a tuple of tensors (one per argument of forward), "
            f"got {type(value).__name__}. Example: check_export(model, (x,), exported)."
        )
    if any(t.dim() == 0 for t in inputs):
        raise ValueError(f"{what}: every input needs a batch dimension (dim 0); got a 0-d tensor.")
    sizes = {t.shape[0] for t in inputs}
    if len(sizes) != 1:
        raise ValueError(
            f"{what}: the inputs have different batch sizes {sorted(sizes)}; check_export "
            "resizes dim 0 of every input together, so they must agree."
        )
    return tuple(inputs)


def _resized(inputs: Inputs, n: int) -> Inputs:
    """The example rows repeated (or cut) to a batch of ``n``: realistic values, new size."""
    rows = torch.arange(n) % inputs[0].shape[0]
    return tuple(t[rows.to(t.device)] for t in inputs)


def _flatten(output: Any) -> list[torch.Tensor]:
    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, (tuple, list)):
        return [t for item in output for t in _flatten(item)]
    raise TypeError(
        f"an output of type {type(output).__name__} cannot be compared; check_export "
        "compares tensors, or tuples and lists of tensors."
    )


def _onnx_session(source: Any) -> Any:
    try:
        import onnxruntime as ort
    except ImportError as err:
        raise ImportError(f"checking an ONNX model needs onnxruntime: {INSTALL_HINT}") from err
    if isinstance(source, ort.InferenceSession):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"no ONNX file at {path!r}: pass the path torch.onnx.export wrote to."
            )
        return ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    # torch.onnx.ONNXProgram, what torch.onnx.export(..., dynamo=True) returns
    proto = source.model_proto.SerializeToString()
    return ort.InferenceSession(proto, providers=["CPUExecutionProvider"])


def _runner(exported: Any) -> tuple[str, Callable[[Inputs], Any]]:
    """(kind, run): how to call the artefact on a tuple of input tensors."""
    if isinstance(exported, torch.jit.ScriptModule):
        return "TorchScript", lambda xs: exported(*xs)
    if isinstance(exported, torch.export.ExportedProgram):
        module = exported.module()
        return "ExportedProgram (torch.export)", lambda xs: module(*xs)
    onnx_program = type(exported).__name__ == "ONNXProgram" and hasattr(exported, "model_proto")
    is_session = type(exported).__name__ == "InferenceSession"
    if isinstance(exported, (str, os.PathLike)) or onnx_program or is_session:
        session = _onnx_session(exported)
        names = [i.name for i in session.get_inputs()]

        def run_onnx(xs: Inputs) -> list[torch.Tensor]:
            if len(xs) != len(names):
                raise ValueError(
                    f"the ONNX model takes {len(names)} input(s) {names}, given {len(xs)}."
                )
            feed = {n: t.detach().cpu().numpy() for n, t in zip(names, xs)}
            return [torch.from_numpy(o) for o in session.run(None, feed)]

        return "ONNX (onnxruntime)", run_onnx
    if isinstance(exported, nn.Module):
        raise TypeError(
            f"exported is a plain {type(exported).__name__}, not an export: pass the "
            "ScriptModule from torch.jit.trace/script, the ExportedProgram from "
            "torch.export.export (not its .module()), or the path of an ONNX file."
        )
    raise TypeError(
        f"check_export cannot run a {type(exported).__name__}: pass a ScriptModule, an "
        "ExportedProgram, the path of an ONNX file, or an onnxruntime.InferenceSession."
    )


def _compare(
    got: list[torch.Tensor], want: list[torch.Tensor], rtol: float, atol: float, run: RunResult
) -> None:
    if len(got) != len(want):
        raise ValueError(f"the export gave {len(got)} output(s), the original {len(want)}.")
    for i, (g, w) in enumerate(zip(got, want)):
        if tuple(g.shape) != tuple(w.shape):
            raise ValueError(
                f"output {i} has shape {tuple(g.shape)}, the original's {tuple(w.shape)}."
            )
        g64, w64 = g.detach().cpu().double(), w.detach().cpu().double()
        same = torch.isclose(g64, w64, rtol=0.0, atol=0.0, equal_nan=True)
        diff = torch.where(same, torch.zeros_like(g64), (g64 - w64).abs()).nan_to_num(
            nan=float("inf")
        )
        finite = w64[torch.isfinite(w64)].abs()
        scale = finite.max().item() if finite.numel() else 0.0
        max_abs = diff.max().item() if diff.numel() else 0.0
        run.max_abs.append(max_abs)
        run.max_rel.append(max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else float("inf")))
        run.agree.append(max_abs <= atol + rtol * scale)


class _Preserved:
    """Buffers (BatchNorm statistics) and the random state, restored after the check: a
    check run in train mode must not change the model it checks."""

    def __init__(self, model: nn.Module, exported: Any, devices: list[int]) -> None:
        self.tensors = [b for _, b in model.named_buffers()]
        if isinstance(exported, torch.export.ExportedProgram):
            self.tensors += [t for t in exported.state_dict.values() if isinstance(t, torch.Tensor)]
        self.devices = devices

    def __enter__(self) -> None:
        self.saved = [t.detach().clone() for t in self.tensors]
        self.rng = torch.random.fork_rng(devices=self.devices)
        self.rng.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.rng.__exit__(*exc)
        with torch.no_grad():
            for t, s in zip(self.tensors, self.saved):
                t.copy_(s)


# --------------------------------------------------------------------------- the check
def check_export(
    model: nn.Module,
    batch: torch.Tensor | Sequence[torch.Tensor],
    exported: Any,
    *,
    batch_sizes: Sequence[int] = (1, 3, 32),
    extra_inputs: Sequence[torch.Tensor | Sequence[torch.Tensor]] = (),
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> ExportReport:
    """Run ``model`` and its export on the same inputs and report where they disagree.

    Args:
        model: the original ``nn.Module``. It is run as it is (its mode is not changed,
            and the report says whether it was in eval mode); its buffers and the random
            state are restored afterwards.
        batch: the example inputs the export was made with: a tensor, or a tuple with
            one tensor per argument of ``forward``, batch in dim 0.
        exported: a ``torch.jit.ScriptModule`` (``trace``/``script``), a
            ``torch.export.ExportedProgram``, or an ONNX model run with onnxruntime: the
            path of the ``.onnx`` file, the ``ONNXProgram`` that ``torch.onnx.export``
            returns, or an ``onnxruntime.InferenceSession``.
        batch_sizes: other batch sizes to try; the example rows are repeated to fill them.
        extra_inputs: more inputs to run as they are (e.g. inputs that take the other
            branch of an ``if``): each a tensor or a tuple of tensors.
        rtol, atol: an output agrees when
            ``max |exported - original| <= atol + rtol * max |original|``. The defaults
            leave room for float32 rounding (a runtime that adds the same products in
            another order differs in the last bits, about 1e-7 relative per operation)
            and catch real bugs, which differ in the first digits.

    Returns an ``ExportReport``: one ``RunResult`` per run, with the max absolute and
    relative difference per output, or the exception the run raised (kept whole in
    ``RunResult.error``; nothing is hidden and nothing is raised for a failed run).
    ``report.ok`` is True only if every run agreed.

    Taught in the Export chapter (``book/export.ipynb``); used by every Verify step of
    the Export lab (``labs/lab-export.ipynb``).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be the original nn.Module, got {type(model).__name__}.")
    example = _as_inputs(batch, "batch")
    sizes = [check_int("each batch size", n, 1) for n in batch_sizes]
    extras = [_as_inputs(x, f"extra_inputs[{i}]") for i, x in enumerate(extra_inputs)]
    rtol, atol = check_number("rtol", rtol, minimum=0), check_number("atol", atol, minimum=0)
    kind, run_exported = _runner(exported)

    cases: list[tuple[str, Inputs]] = [("example inputs", example)]
    cases += [(f"batch of {n}", _resized(example, n)) for n in dict.fromkeys(sizes)
              if n != example[0].shape[0]]
    cases += [(f"extra inputs {i}", x) for i, x in enumerate(extras)]
    cuda = sorted({t.device.index or 0 for _, xs in cases for t in xs if t.is_cuda})

    in_eval = not any(m.training for m in model.modules())
    runs: list[RunResult] = []
    with _Preserved(model, exported, cuda), torch.no_grad():
        for label, xs in cases:
            run = RunResult(label=label, batch_size=int(xs[0].shape[0]))
            runs.append(run)
            try:
                want = _flatten(model(*xs))
            except Exception as err:  # the original itself fails: say so, do not blame the export
                run.error, run.failed_side = err, "original"
                continue
            try:
                got = _flatten(run_exported(xs))
            except Exception as err:
                run.error, run.failed_side = err, "exported"
                continue
            try:
                _compare(got, want, float(rtol), float(atol), run)
            except Exception as err:
                run.error, run.failed_side = err, "comparison"
                run.max_abs, run.max_rel, run.agree = [], [], []
    return ExportReport(kind, in_eval, float(rtol), float(atol), runs)
