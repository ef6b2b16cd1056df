"""ice_lab.watch_nonfinite / watch_nonfinite_ops: name the first place a NaN/Inf appears."""

from __future__ import annotations

import pickle

import pytest
import torch
from torch import nn

from ice_lab import NonFiniteError, watch_nonfinite, watch_nonfinite_ops


class Log(nn.Module):
    def forward(self, x):
        return torch.log(x)


class Radius(nn.Module):
    """sqrt of a sum of squares: finite forward at 0, NaN gradient there (0 * inf)."""

    def forward(self, x):
        return (x * x).sum(1, keepdim=True).sqrt()


class Net(nn.Module):
    def __init__(self, middle: nn.Module, inplace: bool = False):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=inplace), middle, nn.LazyLinear(1))

    def forward(self, x):
        return self.net(x)


def batch(zero_row: bool = False) -> torch.Tensor:
    x = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))
    if zero_row:
        x[0] = 0
    return x


def zero_row_model(inplace: bool) -> Net:
    torch.manual_seed(0)
    model = Net(Radius(), inplace=inplace)
    with torch.no_grad():
        model.net[0].bias.zero_()  # row of zeros in -> row of zeros after Linear+ReLU -> sqrt(0)
    model(batch())  # materialise the lazy layer
    return model


def hook_counts(model: nn.Module) -> int:
    return sum(len(m._forward_hooks) for m in model.modules()) + sum(
        len(p._backward_hooks or {}) for p in model.parameters()
    )


def test_forward_nan_names_the_earliest_module():
    torch.manual_seed(0)
    model = Net(Log())  # log of ReLU zeros -> -inf in net.2, before net.3 and the Sequential see it
    with pytest.raises(NonFiniteError) as info:
        with watch_nonfinite(model):
            model(batch())
    err = info.value
    assert (err.where, err.phase) == ("net.2 (Log)", "forward")
    assert str(err).startswith("non-finite values (NaN/Inf) in the forward output of net.2 (Log)")
    assert "-Inf=" in err.tensor_summary and "inputs were all finite" in str(err)
    assert isinstance(err, RuntimeError)


def test_forward_nan_coming_in_with_the_data_says_so():
    model = Net(nn.Identity())
    x = batch()
    x[2, 1] = float("nan")
    with pytest.raises(NonFiniteError, match="input already held NaN") as info:
        with watch_nonfinite(model):
            model(x)
    assert info.value.where == "net.0 (Linear)"


@pytest.mark.parametrize("inplace", [False, True])
def test_backward_nan_names_the_module_whose_backward_made_it(inplace):
    model = zero_row_model(inplace)
    with watch_nonfinite(model):
        out = model(batch(zero_row=True))
        assert torch.isfinite(out).all()  # the forward pass is clean
        with pytest.raises(NonFiniteError) as info:
            out.sum().backward()
    err = info.value
    assert (err.where, err.phase) == ("net.2 (Radius)", "backward")
    assert "NaN=" in err.tensor_summary
    assert "arriving at its output was finite" in str(err)


def test_without_backward_checks_a_backward_nan_passes_silently():
    model = zero_row_model(False)
    with watch_nonfinite(model, backward=False):
        hidden = model.net[:2](batch(zero_row=True))
        hidden.retain_grad()
        model.net[2:](hidden).sum().backward()
    assert torch.isnan(hidden.grad).any()  # (ReLU's backward then masks it: weights stay finite)


def test_inf_in_the_loss_caught_by_both_tools():
    torch.manual_seed(0)
    model = Net(nn.Identity())
    x = batch()
    model(x)

    def loss_fn(out):  # log(0) at the max: -inf loss, nan/inf gradient
        return -torch.log(out.max() - out).sum()

    with pytest.raises(NonFiniteError) as op_info:
        with watch_nonfinite_ops():
            loss_fn(model(x))
    assert (op_info.value.where, op_info.value.phase) == ("aten.log.default", "op")
    assert "-Inf=1!" in op_info.value.tensor_summary
    assert "input 0:" in str(op_info.value) and "inputs were all finite" in str(op_info.value)

    with watch_nonfinite(model):
        loss = loss_fn(model(x))  # the model itself is fine: no forward error
        assert torch.isinf(loss)
        with pytest.raises(NonFiniteError, match="came from the loss") as info:
            loss.backward()
    assert (info.value.where, info.value.phase) == ("net.3 (Linear)", "backward")


def test_op_mode_names_the_op_in_a_hand_written_softmax():
    logits = torch.tensor([[1000.0, 0.0], [1.0, 2.0]])

    def softmax(z):
        e = z.exp()  # overflows to inf at 1000
        return e / e.sum(1, keepdim=True)

    with pytest.raises(NonFiniteError) as info:
        with watch_nonfinite_ops():
            softmax(logits)
    assert info.value.where == "aten.exp.default"
    with watch_nonfinite_ops():  # the stable version passes
        p = torch.softmax(logits, 1)
    assert torch.isfinite(p).all()


def test_op_mode_in_backward_names_the_autograd_node():
    model = zero_row_model(False)
    with pytest.raises(NonFiniteError, match="backward pass \\(autograd node SqrtBackward0\\)"):
        with watch_nonfinite_ops():
            model(batch(zero_row=True)).sum().backward()


def test_op_mode_allow_list_and_uninitialised_memory():
    scores = torch.zeros(2, 3)
    mask = torch.tensor([[True, False, False], [False, False, True]])
    with pytest.raises(NonFiniteError, match="masked_fill"):
        with watch_nonfinite_ops():
            scores.masked_fill(mask, float("-inf"))
    with watch_nonfinite_ops(allow=["masked_fill"]):
        p = scores.masked_fill(mask, float("-inf")).softmax(1)
        torch.empty(1000)  # may hold NaN garbage: never checked
    assert torch.isfinite(p).all()


def test_hooks_are_removed_even_after_an_error():
    torch.manual_seed(0)
    model = Net(Log())
    model(batch())
    before = hook_counts(model)
    with pytest.raises(NonFiniteError):
        with watch_nonfinite(model):
            model(batch())
    assert hook_counts(model) == before
    model(batch())  # no watcher any more: plain forward, no error


def test_clean_training_step_passes_and_leaves_no_hooks():
    torch.manual_seed(0)
    model = Net(nn.Tanh())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(batch())
    before = hook_counts(model)
    with watch_nonfinite(model):
        for _ in range(3):
            opt.zero_grad()
            model(batch()).pow(2).mean().backward()
            opt.step()
    assert hook_counts(model) == before


def test_tuple_and_dict_outputs_are_checked_on_the_hooked_model():
    class Two(nn.Module):
        def forward(self, x):
            return {"ok": x, "bad": (x, x.log())}

    model = Two()
    with pytest.raises(NonFiniteError, match="forward output of <model> \\(Two\\)"):
        with watch_nonfinite(model):
            model(torch.tensor([-1.0]))


def test_error_is_picklable():
    err = NonFiniteError("non-finite values (NaN/Inf) x", where="net.0 (Linear)", phase="forward", tensor_summary="s")
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.where, back.phase, back.tensor_summary) == (str(err), "net.0 (Linear)", "forward", "s")


def test_bad_arguments():
    with pytest.raises(TypeError, match="needs an nn.Module.*watch_nonfinite_ops"):
        watch_nonfinite(lambda x: x)
    with pytest.raises(TypeError, match="backward must be True or False"):
        watch_nonfinite(nn.Linear(1, 1), backward="yes")
    with pytest.raises(TypeError, match="op names"):
        watch_nonfinite_ops(allow=[3])
    w = watch_nonfinite(nn.Linear(1, 1))
    with w:
        with pytest.raises(RuntimeError, match="already active"):
            w.__enter__()


def test_leaf_inputs_are_hooked_once_per_watcher_and_unhooked_on_exit():
    """An input that requires grad (a leaf reused every step) must not collect hooks or roles."""
    model = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
    x = torch.randn(3, 4, requires_grad=True)
    for _ in range(3):
        with watch_nonfinite(model) as watcher:
            for _ in range(4):
                model(x).sum().backward()
            (roles,) = [entry[1] for entry in watcher._leaves.values()]
            assert roles == [("in", "0", "0 (Linear)"), ("in", "", "<model> (Sequential)")]
        assert not x._backward_hooks  # removed on exit
    x.grad = None
    with pytest.raises(NonFiniteError, match="came from the loss") as info:
        with watch_nonfinite(model):
            model(x).sum().mul(float("inf")).backward()  # an infinite loss scale: inf gradients
    assert (info.value.where, info.value.phase) == ("1 (Tanh)", "backward")


# ---------------------------------------------------------------------------- no trace left
def all_hook_dicts(model: nn.Module) -> dict[str, int]:
    """Every hook table a module or parameter has, with how many hooks it holds."""
    counts = {}
    for name, m in model.named_modules():
        for table in (
            "_forward_hooks",
            "_forward_pre_hooks",
            "_backward_hooks",
            "_backward_pre_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_pre_hooks_with_kwargs",
            "_state_dict_hooks",
            "_load_state_dict_pre_hooks",
        ):
            counts[f"{name}.{table}"] = len(getattr(m, table, None) or {})
    for name, p in model.named_parameters():
        counts[f"{name}._backward_hooks"] = len(p._backward_hooks or {})
    return counts


@pytest.fixture
def handles_made(monkeypatch):
    """Every RemovableHandle created while the fixture is active (module, tensor, node hooks)."""
    import torch.utils.hooks

    made = []
    original = torch.utils.hooks.RemovableHandle.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(torch.utils.hooks.RemovableHandle, "__init__", spy)
    return made


@pytest.mark.parametrize("fail", [False, True])
def test_watcher_leaves_no_trace_on_tensors_and_model(fail, handles_made):
    torch.manual_seed(0)
    model = Net(Radius()) if fail else Net(nn.Tanh())
    with torch.no_grad():
        model.net[0].bias.zero_()
    model(batch())  # materialise the lazy layer
    leaf = batch(zero_row=fail).requires_grad_()
    x = leaf * 1.0  # a non-leaf input: its node gets a pre-hook inside the watcher
    before_dicts = {"leaf": dict(leaf.__dict__), "x": dict(x.__dict__)}
    before_params = {n: dict(p.__dict__) for n, p in model.named_parameters()}
    before_hooks = all_hook_dicts(model)
    before_modules = {n: dict(m.__dict__) for n, m in model.named_modules()}
    try:
        with watch_nonfinite(model):
            out = model(x)
            loss = out.sum()
            loss.backward()
    except NonFiniteError:
        assert fail, "a clean step must not raise"
    else:
        assert not fail, "the NaN gradient of sqrt at 0 must be caught"
    # Kept alive on purpose: out, loss and x still reference the graph the watcher hooked.
    assert out.grad_fn is not None and x.grad_fn is not None
    assert {"leaf": dict(leaf.__dict__), "x": dict(x.__dict__)} == before_dicts
    assert out.__dict__ == {} and loss.__dict__ == {}
    assert {n: dict(p.__dict__) for n, p in model.named_parameters()} == before_params
    assert all_hook_dicts(model) == before_hooks
    assert {n: dict(m.__dict__) for n, m in model.named_modules()} == before_modules
    assert not leaf._backward_hooks
    hooked = [h for h in handles_made if h.hooks_dict_ref() is not None]
    assert handles_made, "the spy must see the watcher's hooks"
    live = [h for h in hooked if h.id in h.hooks_dict_ref()]
    assert live == [], f"{len(live)} hooks left on modules, tensors or graph nodes"
    pickle.loads(pickle.dumps(model))  # no closures left behind


def test_node_hooks_of_a_long_loop_are_forgotten_when_their_graph_is_freed():
    model = Net(nn.Tanh())
    model(batch())
    with watch_nonfinite(model) as watcher:
        for _ in range(300):
            model(batch()).sum().backward()
        assert len(watcher._handles) < 1024 + 64  # pruned, not one handle per step forever
        assert len(watcher._nodes) < 50  # roles of freed tensors are dropped


def test_the_check_in_forward_leaves_no_trace_and_keeps_the_signature():
    """The forward check sits in each module's forward while watching; on exit it is gone."""
    import inspect

    class Own(nn.Module):
        def forward(self, x):
            return x

    model = nn.Sequential(nn.Linear(4, 4), Log(), Own())
    with torch.no_grad():
        model[0].weight.fill_(1.0)
        model[0].bias.zero_()
    own = model[2].forward = lambda x: x * 2  # an instance's own forward is kept
    before = {name: dict(m.__dict__) for name, m in model.named_modules()}
    signature = inspect.signature(model[0].forward)
    with watch_nonfinite(model):
        assert inspect.signature(model[0].forward) == signature
        assert torch.equal(model(torch.ones(1, 4)), torch.full((1, 4), 4.0).log() * 2)
    assert {name: dict(m.__dict__) for name, m in model.named_modules()} == before
    with pytest.raises(NonFiniteError) as info:
        with watch_nonfinite(model):
            model(-torch.ones(1, 4))  # log of negative values
    assert info.value.where == "1 (Log)"
    assert {name: dict(m.__dict__) for name, m in model.named_modules()} == before
    assert model[2].forward is own


def test_a_relu_output_is_checked_unless_its_input_was_just_checked():
    """ReLU, Tanh ... of a checked finite tensor are finite: not checked again. Anything
    else they get (data, a tensor changed in place after its check) is checked."""
    model = nn.Sequential(nn.ReLU(), nn.Linear(4, 4), nn.ReLU())
    x = batch()
    x[1, 2] = float("nan")
    with pytest.raises(NonFiniteError, match="input already held NaN") as info:
        with watch_nonfinite(model):
            model(x)  # the data goes straight into a ReLU: checked there
    assert info.value.where == "0 (ReLU)"

    def poison(module, args):  # changes the Linear's checked output in place
        args[0][0, 0] = float("inf")

    handle = model[2].register_forward_pre_hook(poison)
    with pytest.raises(NonFiniteError) as info:
        with watch_nonfinite(model):
            model(batch())
    handle.remove()
    assert info.value.where == "2 (ReLU)"


def test_op_mode_checks_parameters_and_tuple_outputs():
    weight = nn.Parameter(torch.ones(3))
    with pytest.raises(NonFiniteError) as info:
        with watch_nonfinite_ops(), torch.no_grad():
            weight.add_(torch.tensor([0.0, 3e38, 0.0]), alpha=2.0)  # an optimizer step overflows
    assert info.value.where == "aten.add_.Tensor" and "+Inf=1!" in info.value.tensor_summary
    with pytest.raises(NonFiniteError) as info:
        with watch_nonfinite_ops():
            torch.var_mean(torch.tensor([3e38, -3e38]))  # (var, mean): the variance overflows
    assert info.value.where.startswith("aten.var_mean")


def test_op_caller_is_the_op_or_what_it_calls():
    from ice_lab._torch_compat import op_caller

    op = torch.ops.aten.add.Tensor
    x = torch.ones(2)
    assert torch.equal(op_caller(op)(x, x), op(x, x))

    class NoInner:  # an op object without _op: called as it is
        def __call__(self, *args):
            return "called"

    plain = NoInner()
    assert op_caller(plain) is plain


# ---------------------------------------------------------------------------- private torch APIs
def test_without_current_autograd_node_op_mode_degrades_with_a_warning(monkeypatch):
    from ice_lab import _torch_compat

    monkeypatch.delattr(torch._C, "_current_autograd_node")
    monkeypatch.setattr(_torch_compat, "_warned", set())
    model = zero_row_model(False)
    with pytest.warns(_torch_compat.TorchCompatWarning, match="_current_autograd_node.*cannot name the autograd node"):
        with pytest.raises(NonFiniteError, match="produced by aten") as info:
            with watch_nonfinite_ops():
                model(batch(zero_row=True)).sum().backward()
    assert "autograd node" not in str(info.value)


def test_without_version_counter_the_watcher_still_names_the_module(monkeypatch):
    from ice_lab import _torch_compat

    monkeypatch.setattr(_torch_compat, "_warned", set())

    def no_version(t):
        _torch_compat._degraded("Tensor._version", "test")
        return None

    monkeypatch.setattr("ice_lab.nonfinite.modules.version_reader", lambda: no_version)
    model = zero_row_model(True)
    with pytest.warns(_torch_compat.TorchCompatWarning, match="Tensor._version"):
        with pytest.raises(NonFiniteError) as info:
            with watch_nonfinite(model):
                model(batch(zero_row=True)).sum().backward()
    assert (info.value.where, info.value.phase) == ("net.2 (Radius)", "backward")


def test_a_copy_made_while_watching_is_not_watched():
    """copy.deepcopy(model) inside the block (a best-model copy, an EMA) runs unchecked."""
    import copy

    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    with watch_nonfinite(model):
        twin = copy.deepcopy(model)
        with torch.no_grad():
            twin[0].bias.fill_(float("nan"))
        assert torch.isnan(twin(torch.ones(1, 3))).all()  # not the watcher's business
        with pytest.raises(NonFiniteError):
            with torch.no_grad():
                model[0].bias.fill_(float("nan"))
            model(torch.ones(1, 3))
