"""ice_lab.export: check_export agrees, disagrees and fails the way it should, for each
kind of artefact (TorchScript, ExportedProgram, ONNX through onnxruntime), and
export_warnings keeps exporter noise off the screen."""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
from torch import nn

from ice_lab.export import check_export
from ice_lab.export_warnings import export_warnings


class Scaled(nn.Module):
    """A Python attribute read in forward: baked into every export as a constant."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.scale = 1.0

    def forward(self, x):
        return self.linear(x) * self.scale


class Branchy(nn.Module):
    """A data-dependent Python branch: a trace records one side of it."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 3)

    def forward(self, x):
        if x.sum() > 0:
            return self.linear(x)
        return -self.linear(x)


class BakedBatch(nn.Module):
    """len(x) in forward: a trace turns the batch size into a constant."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 3)

    def forward(self, x):
        return self.linear(x) + torch.zeros(len(x), 3)


def model(cls=Scaled):
    torch.manual_seed(0)
    return cls().eval()


X = torch.linspace(-1, 1, 20).reshape(5, 4)
NEG = -X.abs() - 0.1  # every row sums below 0: the other branch of Branchy


def trace(m, x=X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.jit.trace(m, x)


# A dynamic batch by position, with a Dim: what the Export chapter writes, and what torch
# 2.6's ONNX exporter honours (it ignores a string name such as {"x": {0: "batch"}}).
BATCH = ({0: torch.export.Dim("batch")},)


def onnx_file(m, tmp_path, dynamic=True, name="m.onnx"):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnxscript")
    path = tmp_path / name
    with export_warnings():
        torch.onnx.export(
            m, (X,), path, dynamo=True, verbose=False, external_data=False,
            input_names=["x"], dynamic_shapes=BATCH if dynamic else None,
        )
    return path


# --------------------------------------------------------------------------- TorchScript
def test_torchscript_agreement():
    m = model()
    report = check_export(m, X, trace(m), batch_sizes=(1, 2, 9))
    assert report.ok, str(report)
    assert report.kind == "TorchScript" and report.model_in_eval_mode
    assert [r.batch_size for r in report.runs] == [5, 1, 2, 9]
    assert report.max_abs < 1e-5
    assert "verdict: all 4 runs agree" in str(report)


def test_torchscript_traced_branch_disagrees_on_the_other_branch():
    m = model(Branchy)
    report = check_export(m, X.abs() + 0.1, trace(m, X.abs() + 0.1), extra_inputs=[NEG])
    assert not report.ok
    assert [r.ok for r in report.runs] == [True, True, True, True, False]
    other = report.runs[-1]
    assert other.label == "extra inputs 0" and other.error is None
    assert other.max_abs[0] > 0.1 and other.max_rel[0] > 0.1
    assert report.disagreeing_batch_sizes == [5] and report.failed_batch_sizes == []
    assert "DIFFER" in str(report)


def test_torchscript_baked_batch_fails_with_the_real_error():
    m = model(BakedBatch)
    report = check_export(m, X, trace(m), batch_sizes=(1, 7))
    assert report.runs[0].ok
    assert report.failed_batch_sizes == [1, 7]
    # batch 1 runs (it broadcasts against the baked 5) but gives 5 rows
    assert report.runs[1].failed_side == "comparison"
    assert "shape (5, 3)" in report.runs[1].error_text
    run = report.runs[2]
    assert run.failed_side == "exported" and isinstance(run.error, RuntimeError)
    # the real error, not TorchScript's wrapper line, and no file paths
    assert "must match the size" in run.error_text and "TorchScript interpreter" not in run.error_text
    assert "/" not in run.error_text.split(":", 1)[1].replace("a (7)", "")


# --------------------------------------------------------------------------- torch.export
def test_exported_program_agreement_with_dynamic_batch():
    m = model()
    ep = torch.export.export(m, (X,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    report = check_export(m, (X,), ep, batch_sizes=(2, 3, 64))
    assert report.ok, str(report)
    assert report.kind.startswith("ExportedProgram")


def test_exported_program_python_state_baked_in_disagrees():
    m = model()
    ep = torch.export.export(m, (X,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    m.scale = 2.0  # the export keeps scale = 1.0
    report = check_export(m, X, ep)
    assert not report.ok and report.failed_batch_sizes == []
    assert all(not r.agree[0] for r in report.runs)
    assert report.runs[0].max_rel[0] == pytest.approx(0.5, rel=1e-4)


def test_exported_program_static_batch_fails():
    m = model()
    ep = torch.export.export(m, (X,))
    report = check_export(m, X, ep, batch_sizes=(1, 8))
    assert report.runs[0].ok
    assert report.failed_batch_sizes == [1, 8]
    assert all(r.failed_side == "exported" for r in report.runs[1:])
    # "Guard failed: x.size()[0] == 5" or (torch 2.6) "Expected input at ... to be equal to 5"
    text = report.runs[1].error_text
    assert "Guard failed" in text or "size" in text or "to be equal to 5" in text


# --------------------------------------------------------------------------- ONNX
def test_onnx_agreement_path_program_and_session(tmp_path):
    import onnxruntime as ort

    m = model()
    path = onnx_file(m, tmp_path)
    for artefact in (path, str(path), ort.InferenceSession(str(path))):
        report = check_export(m, X, artefact, batch_sizes=(1, 6, 33))
        assert report.ok, str(report)
        assert report.kind == "ONNX (onnxruntime)"
    with export_warnings():
        program = torch.onnx.export(m, (X,), dynamo=True, verbose=False,
                                    dynamic_shapes=BATCH)
    assert check_export(m, X, program).ok


def test_onnx_numeric_disagreement(tmp_path):
    m = model()
    path = onnx_file(m, tmp_path)
    m.scale = 3.0
    report = check_export(m, X, path, batch_sizes=(2,))
    assert not report.ok and report.failed_batch_sizes == []
    assert report.disagreeing_batch_sizes == [5, 2]


def test_onnx_missing_dynamic_axis_fails_with_onnxruntimes_error(tmp_path):
    m = model()
    path = onnx_file(m, tmp_path, dynamic=False)
    report = check_export(m, X, path, batch_sizes=(1, 5, 12))
    assert [r.batch_size for r in report.runs] == [5, 1, 12]  # 5 is the example: not run twice
    assert report.runs[0].ok and report.failed_batch_sizes == [1, 12]
    text = report.runs[2].error_text
    assert "INVALID_ARGUMENT" in text and "Got: 12 Expected: 5" in text, text
    assert report.errors and all(type(e).__module__.startswith("onnxruntime") for e in report.errors)


# --------------------------------------------------------------------------- behaviour
def test_train_mode_is_reported_and_the_model_is_left_unchanged():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5)).train()
    exported = trace(nn.Sequential(nn.Linear(4, 3)).eval())
    before = {k: v.clone() for k, v in m.state_dict().items()}
    rng = torch.get_rng_state()
    report = check_export(m, X, exported, batch_sizes=(1,))
    assert not report.model_in_eval_mode and "TRAIN MODE" in str(report)
    assert m.training
    assert all(torch.equal(before[k], v) for k, v in m.state_dict().items()), "buffers changed"
    assert torch.equal(rng, torch.get_rng_state()), "the global random state moved"
    batch_one = report.runs[1]
    assert batch_one.failed_side == "original" and "more than 1 value" in batch_one.error_text
    assert "the ORIGINAL model failed" in str(report)


def test_shape_mismatch_is_a_failure_not_a_crash():
    m = model()
    other = trace(nn.Linear(4, 2).eval())
    report = check_export(m, X, other, batch_sizes=())
    assert not report.ok and report.runs[0].failed_side == "comparison"
    assert "shape (5, 2)" in report.runs[0].error_text


def test_tolerance_is_atol_plus_rtol_times_the_largest_output():
    m = model()
    ts = trace(copy.deepcopy(m))  # a trace shares the parameters of what it traced
    m.linear.bias.data += 1e-3  # a small, real change
    loose = check_export(m, X, ts, batch_sizes=(), rtol=0.0, atol=1e-2)
    strict = check_export(m, X, ts, batch_sizes=(), rtol=1e-6, atol=0.0)
    assert loose.ok and not strict.ok


def test_bad_arguments_get_clear_errors(tmp_path):
    m = model()
    with pytest.raises(TypeError, match="not an export"):
        check_export(m, X, m)
    with pytest.raises(TypeError, match="cannot run a dict"):
        check_export(m, X, {})
    with pytest.raises(TypeError, match="tensor or a tuple of tensors"):
        check_export(m, [1, 2], trace(m))
    with pytest.raises(ValueError, match="batch dimension"):
        check_export(m, torch.tensor(1.0), trace(m))
    with pytest.raises(ValueError, match="at least 1"):
        check_export(m, X, trace(m), batch_sizes=(0,))
    with pytest.raises(TypeError, match="nn.Module"):
        check_export(lambda x: x, X, trace(m))
    pytest.importorskip("onnxruntime")
    with pytest.raises(FileNotFoundError, match="no ONNX file"):
        check_export(m, X, tmp_path / "missing.onnx")


def test_export_warnings_records_short_lines_and_prints_nothing(capsys):
    m = model(Branchy)
    with export_warnings() as caught:
        torch.jit.trace(m, X.abs())
    assert "TracerWarning" in caught.categories()
    assert any(line.startswith("TracerWarning: Converting a tensor to a Python boolean")
               for line in caught.lines())
    assert all("\n" not in line and "/" not in line.split(":", 1)[0] for line in caught.lines())
    with export_warnings() as failed:
        # torch 2.6 says "Dynamic control flow is not supported"
        with pytest.raises(RuntimeError, match="data-dependent|Dynamic control flow"):
            torch.export.export(m, (X,))
    out = capsys.readouterr()
    assert out.out == "" and out.err == "", "export noise reached the screen"
    if torch.__version__ >= (2, 7):  # torch 2.6 prints no partial graph here
        assert "def forward" in failed.stderr  # the partial graph torch.export prints is kept
