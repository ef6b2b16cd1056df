"""%load_ext ice_lab: traceback first, then the diagnosis; %unload_ext restores the default."""

from __future__ import annotations

import pytest

pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

import ice_lab  # noqa: E402
from ice_lab import magic  # noqa: E402

SHAPE_ERROR = "import torch\ntorch.nn.Linear(4, 5)(torch.zeros(2, 3))"


@pytest.fixture
def shell():
    ip = InteractiveShell.instance()
    ip.run_cell("pass")
    yield ip
    # Leave the shared singleton as we found it (the extension manager remembers loads).
    if "ice_lab" in ip.extension_manager.loaded:
        ip.extension_manager.unload_extension("ice_lab")
    magic.unload_ipython_extension(ip)
    ip.set_custom_exc((), None)


def run(ip, source, capsys):
    result = ip.run_cell(source)
    out = capsys.readouterr()
    return result, out.out + out.err


def test_load_ext_shows_traceback_then_diagnosis(shell, capsys):
    result, out = run(shell, "%load_ext ice_lab", capsys)
    assert result.success, out
    result, out = run(shell, SHAPE_ERROR, capsys)
    assert isinstance(result.error_in_exec, RuntimeError)
    assert "Traceback" in out or "RuntimeError" in out
    assert "mat1 and mat2 shapes cannot be multiplied" in out
    assert "ice_lab diagnosis" in out and "[shape_mismatch]" in out
    assert "3 features but the layer expects 4" in out
    assert out.index("mat1 and mat2 shapes") < out.index("ice_lab diagnosis"), "the traceback must come first"


def test_non_torch_error_gets_plain_traceback(shell, capsys):
    run(shell, "%load_ext ice_lab", capsys)
    result, out = run(shell, "int('x')", capsys)
    assert isinstance(result.error_in_exec, ValueError)
    assert "invalid literal" in out and "ice_lab diagnosis" not in out


def test_unload_restores_default(shell, capsys):
    run(shell, "%load_ext ice_lab", capsys)
    assert shell.custom_exceptions == (Exception,)
    run(shell, "%unload_ext ice_lab", capsys)
    assert shell.custom_exceptions == ()
    result, out = run(shell, SHAPE_ERROR, capsys)
    assert isinstance(result.error_in_exec, RuntimeError)
    assert "mat1 and mat2 shapes cannot be multiplied" in out
    assert "ice_lab diagnosis" not in out


def test_unload_restores_a_previous_custom_handler(shell, capsys):
    def other(self, etype, value, tb, tb_offset=None):
        print("OTHER HANDLER")

    shell.set_custom_exc((ZeroDivisionError,), other)
    magic.load_ipython_extension(shell)
    magic.unload_ipython_extension(shell)
    _, out = run(shell, "1/0", capsys)
    assert "OTHER HANDLER" in out


def test_load_twice_then_unload_once(shell, capsys):
    magic.load_ipython_extension(shell)
    magic.load_ipython_extension(shell)
    magic.unload_ipython_extension(shell)
    assert shell.custom_exceptions == ()


def test_keyboard_interrupt_is_not_swallowed(shell, capsys):
    run(shell, "%load_ext ice_lab", capsys)
    assert not any(issubclass(KeyboardInterrupt, e) for e in shell.custom_exceptions)
    result, out = run(shell, "raise KeyboardInterrupt", capsys)
    assert isinstance(result.error_in_exec, KeyboardInterrupt)
    assert "KeyboardInterrupt" in out and "ice_lab diagnosis" not in out


def test_failing_diagnosis_still_shows_traceback(shell, capsys, monkeypatch):
    def broken(error):
        raise RuntimeError("explain exploded")

    monkeypatch.setattr(magic.explainer, "explain", broken)
    run(shell, "%load_ext ice_lab", capsys)
    result, out = run(shell, SHAPE_ERROR, capsys)
    assert "mat1 and mat2 shapes cannot be multiplied" in out
    assert "explain exploded" not in out and "ice_lab diagnosis" not in out


def test_html_bundle_is_published(shell, capsys, monkeypatch):
    published = []
    monkeypatch.setattr(shell.display_pub, "publish", lambda data, metadata=None, **kw: published.append(data))
    run(shell, "%load_ext ice_lab", capsys)
    run(shell, SHAPE_ERROR, capsys)
    assert published and "text/html" in published[-1] and "text/plain" in published[-1]
    assert "shape_mismatch" in published[-1]["text/html"]


def test_torch_origin_unknown_error_is_diagnosed():
    import torch

    with pytest.raises(KeyError) as info:
        torch.nn.Module().register_buffer("a.b", None)
    d = ice_lab.explain(info.value)
    assert d.kind == "unknown"
    assert magic.is_torch_related(info.value, d)
    with pytest.raises(ValueError) as info:
        int("x")
    assert not magic.is_torch_related(info.value, ice_lab.explain(info.value))


def test_bad_argument():
    with pytest.raises(TypeError, match="IPython shell"):
        magic.load_ipython_extension(object())


def test_reexported():
    assert ice_lab.load_ipython_extension is magic.load_ipython_extension
    assert ice_lab.unload_ipython_extension is magic.unload_ipython_extension
