"""ice_lab.shapes and ice_lab.preflight: trace_shapes and preflight, each finding provoked
for real.

Every check of ``preflight`` is triggered by a model, batch, loss or optimizer that really
has the problem; a clean set-up gives no findings; and the caller's model, optimizer
and random state are unchanged afterwards.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from ice_lab.preflight import CHAPTERS, SEVERITIES, preflight
from ice_lab.shapes import trace_shapes


def cnn(flat: int = 8 * 4 * 4) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(flat, 10),
    )


def digits_batch(n: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return torch.rand(n, 1, 8, 8, generator=g), torch.tensor([0, 3, 9, 5, 1, 2, 7, 4][:n])


def snapshot(model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> dict:
    return {
        "state": copy.deepcopy(model.state_dict()),
        "grads": {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()},
        "requires_grad": {n: p.requires_grad for n, p in model.named_parameters()},
        "modes": [m.training for m in model.modules()],
        "optimizer": None if optimizer is None else copy.deepcopy(optimizer.state_dict()),
        "rng": torch.get_rng_state(),
    }


def assert_same(before: dict, after: dict) -> None:
    assert before["state"].keys() == after["state"].keys()
    for k in before["state"]:
        assert torch.equal(before["state"][k], after["state"][k]), f"{k} changed"
    for n, g in before["grads"].items():
        h = after["grads"][n]
        assert (g is None and h is None) or torch.equal(g, h), f"grad of {n} changed"
    assert before["requires_grad"] == after["requires_grad"]
    assert before["modes"] == after["modes"]
    assert torch.equal(before["rng"], after["rng"]), "the global random state moved"
    if before["optimizer"] is not None:
        a, b = before["optimizer"], after["optimizer"]
        assert a["param_groups"] == b["param_groups"]
        assert a["state"].keys() == b["state"].keys()
        for i in a["state"]:
            for k, v in a["state"][i].items():
                assert torch.equal(torch.as_tensor(v), torch.as_tensor(b["state"][i][k]))


def checks(report) -> set[str]:
    return set(report.checks)


# --------------------------------------------------------------------------- trace_shapes
def test_trace_shapes_rows_in_call_order():
    trace = trace_shapes(cnn(), torch.zeros(2, 1, 8, 8))
    assert trace.ok and trace.failed is None
    assert [r.path for r in trace.rows] == ["<model>", "0", "1", "2", "3", "4"]
    assert [r.output for r in trace.rows][1:] == [
        "(2, 8, 8, 8)", "(2, 8, 8, 8)", "(2, 8, 4, 4)", "(2, 128)", "(2, 10)"]
    assert trace.rows[4].inputs == "(2, 8, 4, 4)"
    assert trace.rows[1].params == 80 and trace.rows[5].params == 1290
    assert trace.rows[0].params == 0  # a container's parameters are counted in its children
    assert {r.dtype for r in trace.rows} == {"float32"} and {r.device for r in trace.rows} == {"cpu"}
    text = str(trace)
    assert "Conv2d" in text and "(2, 128)" in text and "FAILED" not in text


def test_trace_shapes_names_the_failing_layer():
    model = cnn(flat=8 * 7 * 7)  # written for 28x28 images
    trace = trace_shapes(model, torch.zeros(2, 1, 8, 8))
    assert not trace.ok and isinstance(trace.error, RuntimeError)
    assert trace.failed == "4 (Linear)" and trace.failed_module.in_features == 392
    assert trace.rows[-1].inputs == "(2, 128)" and trace.rows[-1].output == "FAILED"
    assert "FAILED in 4 (Linear)" in str(trace) and "in_features=392" in str(trace)


def test_trace_shapes_nested_paths_and_multiple_inputs():
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU())

        def forward(self, a, b):
            return self.body(a) + b

    trace = trace_shapes(Two(), (torch.zeros(5, 3), torch.zeros(5, 4)))
    assert [r.path for r in trace.rows] == ["<model>", "body", "body.0", "body.1"]
    assert trace.rows[0].inputs == "(5, 3), (5, 4)"


def test_trace_shapes_leaves_the_model_alone():
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.Dropout(0.5))
    x = torch.randn(3, 1, 8, 8)
    before = snapshot(model)
    trace_shapes(model, x)
    assert_same(before, snapshot(model))
    assert not any(h for m in model.modules() for h in (m._forward_hooks, m._forward_pre_hooks))


def test_trace_shapes_bad_input():
    with pytest.raises(TypeError, match="nn.Module"):
        trace_shapes("model", torch.zeros(1))
    with pytest.raises(TypeError, match="dummy batch"):
        trace_shapes(cnn(), [1, 2])


# --------------------------------------------------------------------------- preflight
def test_clean_model_has_no_findings_and_is_untouched():
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    F.cross_entropy(model(digits_batch()[0]), digits_batch()[1]).backward()
    optimizer.step()  # the optimizer now has state (exp_avg ...) and the model gradients
    before = snapshot(model, optimizer)
    report = preflight(model, digits_batch(), F.cross_entropy, optimizer)
    assert report.ok, str(report)
    assert report.findings == [] and str(report) == "preflight: no findings"
    assert report.loss is not None and report.loss > 0
    assert_same(before, snapshot(model, optimizer))


def test_findings_leave_caller_untouched():
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5), nn.Linear(3, 2))
    model[0].requires_grad_(False)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batch = (torch.randn(6, 4), torch.tensor([0, 1, 0, 1, 0, 1]))
    before = snapshot(model, optimizer)
    report = preflight(model, batch, nn.CrossEntropyLoss(), optimizer)
    assert checks(report) == {"optimizer_frozen"}
    assert_same(before, snapshot(model, optimizer))


def test_step_failed_on_a_shape_error():
    report = preflight(cnn(flat=392), digits_batch(), F.cross_entropy)
    assert checks(report) == {"step_failed"}
    assert "cannot be multiplied" in report.findings[0].message


def test_loss_not_scalar():
    report = preflight(cnn(), digits_batch(), nn.CrossEntropyLoss(reduction="none"))
    assert checks(report) == {"loss_not_scalar"}
    assert "(4,)" in report.findings[0].message


def test_loss_not_finite():
    x, y = digits_batch()
    x[0, 0, 3, 3] = float("nan")
    report = preflight(cnn(), (x, y), F.cross_entropy)
    assert checks(report) == {"loss_not_finite"}


def test_label_range():
    x, y = digits_batch()
    report = preflight(cnn(), (x, y + 1), F.cross_entropy)  # labels 1..10 for 10 outputs
    assert checks(report) == {"label_range"}
    assert "1 to 10" in report.findings[0].message and "0..9" in report.findings[0].message


def test_probabilities_fed_as_logits():
    model = nn.Sequential(cnn(), nn.Softmax(dim=1))
    report = preflight(model, digits_batch(), F.cross_entropy, torch.optim.SGD(model.parameters(), lr=0.1))
    assert checks(report) == {"probabilities_as_logits"}
    assert report.findings[0].severity == "warning"


def test_softmax_inside_the_loss():
    def loss_fn(logits, labels):
        return F.cross_entropy(F.softmax(logits, dim=1), labels)

    report = preflight(cnn(), digits_batch(), loss_fn)
    assert checks(report) == {"probabilities_as_logits"}
    assert "log_softmax of a softmax" in report.findings[0].message


def test_target_shape_broadcast():
    model = nn.Linear(3, 1)
    with pytest.warns(UserWarning):  # PyTorch's own broadcast warning, from the copy's loss
        report = preflight(model, (torch.randn(8, 3), torch.randn(8)), F.mse_loss)
    assert checks(report) == {"target_shape"}


def test_no_gradient_for_a_detached_branch():
    class Detached(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(4, 2), nn.Linear(4, 2)

        def forward(self, x):
            return self.a(x) + self.b(x).detach()   # b never gets a gradient

    report = preflight(Detached(), (torch.randn(4, 4), torch.tensor([0, 1, 1, 0])), F.cross_entropy)
    assert checks(report) == {"no_gradient"}
    assert "b.weight" in report.findings[0].message and "a.weight" not in report.findings[0].message


def test_zero_gradient_for_a_dead_layer():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    with torch.no_grad():
        model[0].bias.fill_(-100.0)   # every ReLU is off: nothing flows back to layer 0
    report = preflight(model, (torch.randn(4, 4), torch.tensor([0, 1, 1, 0])), F.cross_entropy)
    assert checks(report) == {"zero_gradient"}
    assert "0.weight" in report.findings[0].message


def test_eval_mode():
    model = cnn().eval()
    report = preflight(model, digits_batch(), F.cross_entropy)
    assert checks(report) == {"eval_mode"}
    assert not model.training


def test_batchnorm_with_a_batch_of_one():
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.Flatten(),
                          nn.Linear(4 * 64, 10))
    report = preflight(model, digits_batch(1), F.cross_entropy)
    assert checks(report) == {"batchnorm_batch_of_one"}
    assert "1" in report.findings[0].message


def test_mixed_dtypes():
    x, y = digits_batch()
    report = preflight(cnn(), (x.double(), y), F.cross_entropy)
    assert checks(report) == {"mixed_dtypes"}   # the copy carries on in float32: nothing else
    assert "float64" in report.findings[0].message


def test_mixed_devices():
    x, y = digits_batch()
    model = cnn()
    before = snapshot(model)
    report = preflight(model, (x.to("meta"), y.to("meta")), F.cross_entropy)
    assert checks(report) == {"mixed_devices"}
    assert "meta" in report.findings[0].message and "cpu" in report.findings[0].message
    assert_same(before, snapshot(model))


def test_optimizer_missing_parameters():
    model = cnn()
    optimizer = torch.optim.SGD(model[0].parameters(), lr=0.1)  # only the conv layer
    report = preflight(model, digits_batch(), F.cross_entropy, optimizer)
    assert checks(report) == {"optimizer_missing"}
    assert "4.weight" in report.findings[0].message


def test_optimizer_of_another_model():
    old = cnn()
    optimizer = torch.optim.AdamW(old.parameters(), lr=1e-3)
    new = cnn()   # rebuilt after the optimizer: same shapes, other tensors
    report = preflight(new, digits_batch(), F.cross_entropy, optimizer)
    assert checks(report) == {"optimizer_missing"}
    assert "4 trainable parameters" in report.findings[0].message


def test_optimizer_holds_frozen_parameters():
    model = cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model[0].requires_grad_(False)   # frozen after the optimizer was built
    report = preflight(model, digits_batch(), F.cross_entropy, optimizer)
    assert checks(report) == {"optimizer_frozen"}
    assert report.findings[0].severity == "warning"


def test_nonfinite_after_step():
    model = cnn()
    x, y = digits_batch()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e35)  # huge gradients, huge rate
    report = preflight(model, (x * 1e6, y), F.cross_entropy, optimizer)
    assert checks(report) == {"nonfinite_after_step"}
    assert torch.isfinite(model[0].weight).all()


def test_findings_have_severity_and_chapter():
    model = cnn().eval()
    x, y = digits_batch()
    report = preflight(model, (x.double(), y), F.cross_entropy, torch.optim.SGD(model[4].parameters(), lr=1))
    assert len(report.findings) == 3
    for finding in report.findings:
        assert finding.severity in SEVERITIES
        assert finding.chapter == CHAPTERS[finding.check]
        assert finding.chapter in str(report)
    assert len(report.errors) == 2 and len(report.warnings) == 1


def test_every_check_has_a_chapter():
    assert set(CHAPTERS) == {
        "step_failed", "loss_not_scalar", "loss_not_finite", "label_range", "target_shape",
        "probabilities_as_logits", "no_gradient", "zero_gradient", "eval_mode",
        "batchnorm_batch_of_one", "mixed_devices", "mixed_dtypes", "optimizer_missing",
        "optimizer_frozen", "nonfinite_after_step",
    }


def test_preflight_bad_input():
    with pytest.raises(TypeError, match="nn.Module"):
        preflight(None, digits_batch(), F.cross_entropy)
    with pytest.raises(TypeError, match="inputs, targets"):
        preflight(cnn(), torch.zeros(2, 1, 8, 8), F.cross_entropy)
    with pytest.raises(TypeError, match="Optimizer"):
        preflight(cnn(), digits_batch(), F.cross_entropy, optimizer="adam")
    with pytest.raises(TypeError, match="callable"):
        preflight(cnn(), digits_batch(), "cross_entropy")
