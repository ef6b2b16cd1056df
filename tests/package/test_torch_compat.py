"""ice_lab._torch_compat: each private PyTorch API behind one function that degrades
with a clear warning (or error) when the API is gone, instead of an AttributeError."""

from __future__ import annotations

import importlib
from collections import namedtuple

import pytest
import torch

import ice_lab
from ice_lab import _torch_compat as compat
from ice_lab import summary


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees the once-per-API warning again."""
    monkeypatch.setattr(compat, "_warned", set())


def without(monkeypatch, module, name):
    monkeypatch.delattr(module, name)


def test_every_api_is_found_on_this_torch(recwarn):
    t = torch.arange(6.0)
    assert compat.storage_key(t.untyped_storage()) == compat.storage_key(t[2:].untyped_storage())
    assert compat.version_counter(t) == 0
    t.add_(1)
    assert compat.version_counter(t) == 1
    assert compat.current_autograd_node() is None  # not in a backward pass
    assert compat.aten_op("_local_scalar_dense") is torch.ops.aten._local_scalar_dense.default
    assert compat.tree_leaves({"a": [1, (2, 3)]}) == [1, 2, 3]
    assert compat.TorchDispatchMode is importlib.import_module("torch.utils._python_dispatch").TorchDispatchMode
    with compat.no_dispatch_modes():
        pass
    assert not [w for w in recwarn if issubclass(w.category, compat.TorchCompatWarning)]


def test_storage_key_without_cdata_still_tells_storages_apart(monkeypatch):
    def gone(self):
        raise AttributeError("_cdata")

    monkeypatch.setattr(torch.UntypedStorage, "_cdata", property(gone))
    t, u = torch.zeros(4), torch.zeros(4)
    with pytest.warns(compat.TorchCompatWarning, match=r"UntypedStorage\._cdata.*Python object"):
        key = compat.storage_key(t.untyped_storage())
    assert key == compat.storage_key(t[1:].untyped_storage())  # a view: the same storage
    assert key != compat.storage_key(u.untyped_storage())


def test_memory_budget_counts_right_without_cdata(monkeypatch):
    def gone(self):
        raise AttributeError("_cdata")

    monkeypatch.setattr(torch.UntypedStorage, "_cdata", property(gone))
    with pytest.warns(compat.TorchCompatWarning):
        with ice_lab.MemoryBudget() as budget:
            a = torch.zeros(1024)  # 4 KiB
            b = a[:10]  # a view: no new storage
            c = a + 1  # 4 KiB more
            del b
    assert budget.live == 8192 and budget.peak == 8192
    del a, c
    assert budget.live == 0


def test_no_dispatch_modes_without_disable_current_modes(monkeypatch):
    without(monkeypatch, importlib.import_module("torch.utils._python_dispatch"), "_disable_current_modes")
    with pytest.warns(compat.TorchCompatWarning, match="_disable_current_modes.*summary"):
        line = summary(torch.tensor([1.0, float("nan")]))
    assert "NaN=1!" in line


def test_tree_functions_without_pytree(monkeypatch):
    pytree = importlib.import_module("torch.utils._pytree")
    without(monkeypatch, pytree, "tree_leaves")
    without(monkeypatch, pytree, "tree_map")
    Pair = namedtuple("Pair", "a b")
    with pytest.warns(compat.TorchCompatWarning, match="tree_leaves"):
        assert compat.tree_leaves({"x": [1, (2, Pair(3, 4))]}) == [1, 2, 3, 4]
    with pytest.warns(compat.TorchCompatWarning, match="tree_map"):
        assert compat.tree_map(lambda v: v * 10, {"x": [1, Pair(2, 3)]}) == {"x": [10, Pair(20, 30)]}


def test_current_autograd_node_without_the_api(monkeypatch):
    without(monkeypatch, torch._C, "_current_autograd_node")
    with pytest.warns(compat.TorchCompatWarning, match="cannot name the autograd node"):
        assert compat.current_autograd_node() is None


def test_sparse_values_without_underscore_values(monkeypatch):
    t = torch.sparse_coo_tensor([[0, 0, 1]], [1.0, 2.0, float("nan")], (3,), check_invariants=True)
    assert compat.sparse_values(t).numel() == 3  # uncoalesced: every stored entry
    monkeypatch.setattr(torch.Tensor, "_values", None)  # as if this torch had none
    with pytest.warns(compat.TorchCompatWarning, match="Tensor._values"):
        vals = compat.sparse_values(t)
    assert vals.numel() == 2  # coalesced: the duplicate entries were added up
    monkeypatch.setattr(compat, "_warned", set())
    with pytest.warns(compat.TorchCompatWarning):
        assert "nnz=2" in summary(t)


def test_aten_op_that_does_not_exist():
    with pytest.warns(compat.TorchCompatWarning, match="no_such_op"):
        assert compat.aten_op("_ice_lab_no_such_op") is None


def test_warning_comes_once_per_api(recwarn, monkeypatch):
    without(monkeypatch, torch._C, "_current_autograd_node")
    compat.current_autograd_node()
    compat.current_autograd_node()
    assert len([w for w in recwarn if issubclass(w.category, compat.TorchCompatWarning)]) == 1


def test_without_torch_dispatch_mode_ice_lab_imports_and_explains(monkeypatch):
    without(monkeypatch, importlib.import_module("torch.utils._python_dispatch"), "TorchDispatchMode")
    Base = compat._torch_dispatch_mode()

    class Tracker(Base):  # what MemoryBudget's mode and watch_nonfinite_ops subclass
        pass

    with pytest.raises(compat.MissingTorchFeature, match="Tracker needs torch.utils._python_dispatch.TorchDispatchMode"):
        with Tracker():
            pass
    assert issubclass(compat.MissingTorchFeature, RuntimeError)


def test_ice_lab_uses_no_private_torch_api_outside_the_compat_module():
    """Every ``torch._*`` / ``._cdata`` / ``_version`` in the modules lives in _torch_compat."""
    import pathlib
    import re

    root = pathlib.Path(ice_lab.__file__).parent
    pattern = re.compile(r"torch\._C\b|torch\.utils\._|\._cdata\b|\._version\b|\._values\(|aten\._")
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "_torch_compat.py":
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(root)}:{i}: {line.strip()}")
    assert found == []


def test_module_mode_still_works_on_this_torch():
    with ice_lab.MemoryBudget("1KiB"), pytest.raises(torch.OutOfMemoryError, match="Simulated"):
        torch.zeros(1024)
    with pytest.raises(ice_lab.NonFiniteError):
        with ice_lab.watch_nonfinite_ops():
            torch.zeros(2).log()
