"""ice_lab.explain: every catalogue kind provoked for real (or read from the recorded GPU log).

The provocations run with the installed torch, so a wording change in a new PyTorch makes
these tests fail instead of silently turning diagnoses into "unknown". Real messages pasted
by learners are tested in test_explain_realworld.py; the catalogue's structure (order does
not matter, chapters exist) in test_explain_catalogue.py.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import ice_lab
from ice_lab import memory, nonfinite
from ice_lab.explainer import KINDS, Diagnosis, explain

from explain_provocations import (
    PROVOCATIONS, VARIANTS, conv_channels, device_meta, linear_features, matmul_in_code, provoke,
    state_dict_keys, target_long_for_bce, target_out_of_range, torch_oom_class)

ROOT = Path(__file__).resolve().parents[2]
GPU_LOG = ROOT / "reference" / "gpu-probe-h200.log"


# --------------------------------------------------------------------------- provocations


# PROVOCATIONS, provoke and VARIANTS are data: tests/support/explain_provocations.py.



@pytest.mark.parametrize("fn, kind, words", PROVOCATIONS)
@pytest.mark.kernel
def test_real_provocation(fn, kind, words):
    error = provoke(fn)
    d = explain(error)
    assert d.kind == kind, f"{fn.__name__}: {type(error).__name__}: {error} -> {d.kind}"
    for word in words:
        assert word.lower() in d.summary.lower(), f"{word!r} missing from summary {d.summary!r}"
    assert d.message == str(error)
    assert d.error_type == type(error).__name__
    assert d.causes and d.fixes and d.chapter.startswith("book/")
    # The message alone (no traceback) gives the same kind, except where the traceback
    # is the only clue (a dtype error raised inside a loss).
    if fn is not target_long_for_bce and fn is not torch_oom_class:
        assert explain(str(error)).kind == kind


def test_specifics_are_parsed_into_details():
    d = explain(provoke(linear_features))
    assert d.details["a_cols"] == "3" and d.details["b_rows"] == "4"
    d = explain(provoke(state_dict_keys))
    assert d.details["missing"] == ["0.weight", "0.bias"]
    assert d.details["unexpected"] == ["weight", "bias"]
    d = explain(provoke(target_out_of_range))
    assert d.details["target"] == "10" and d.details["n_classes"] == 3
    d = explain(provoke(device_meta))
    assert {d.details["dev_a"], d.details["dev_b"]} == {"cpu", "meta"}


def test_state_dict_prefix_is_named():
    model = nn.Linear(3, 2)
    wrapped = {f"module.{k}": v for k, v in model.state_dict().items()}
    try:
        model.load_state_dict(wrapped)
    except RuntimeError as err:
        d = explain(err)
    assert d.kind == "state_dict_mismatch" and "'module.' prefix" in d.summary


def test_memory_budget_message():
    try:
        with memory.MemoryBudget("1 MiB"):
            torch.zeros(1024, 1024)
    except torch.OutOfMemoryError as err:
        d = explain(err)
        assert d.kind == "out_of_memory"
        assert d.details.get("simulated") is True
        assert "simulated" in d.summary and "limit 1.00 MiB" in d.summary, d.summary
        assert explain(str(err)).kind == "out_of_memory"
    else:
        pytest.fail("MemoryBudget('1 MiB') did not refuse a 4 MiB tensor")


def test_nonfinite_error():
    try:
        with nonfinite.watch_nonfinite_ops():
            torch.log(torch.tensor([-1.0]))
    except RuntimeError as err:
        assert str(err).startswith("non-finite values (NaN/Inf)")
        d = explain(err)
        assert d.kind == "nonfinite"
        assert "log" in d.summary
        assert explain(str(err)).kind == "nonfinite"
    else:
        pytest.fail("watch_nonfinite_ops did not catch log(-1)")


# --------------------------------------------------------------------------- recorded CUDA texts


def gpu_log() -> str:
    assert GPU_LOG.exists(), f"the recorded GPU probe log is missing: {GPU_LOG}"
    return GPU_LOG.read_text(encoding="utf-8")


def log_errors(prefix_regex: str) -> list[str]:
    """Messages of lines like '[label] builtins.RuntimeError: <message>' in the log."""
    found = re.findall(rf"^\[{prefix_regex}[^\]]*\] \w+\.\w+: (.+)$", gpu_log(), re.MULTILINE)
    assert found, f"no line matching {prefix_regex!r} in {GPU_LOG.name}"
    return found


def test_log_device_mismatch_texts():
    texts = [t for t in log_errors(r"(?:cuda|Linear|matmul|cross_entropy|mse)") if "device" in t]
    assert len(texts) >= 4
    for text in texts:
        d = explain(text)
        assert d.kind == "device_mismatch", text
        assert "cuda:0" in d.summary and "cpu" in d.summary, d.summary


def test_log_dtype_texts():
    texts = log_errors(r"(?:dtype mismatch on cuda|cuda half)")
    for text in texts:
        d = explain(text)
        assert d.kind == "dtype_mismatch", text
    assert "Float and Half" in explain(texts[-1]).summary


def test_log_cuda_oom_text():
    line = re.search(r"^OOM after .*?: (CUDA out of memory.*)$", gpu_log(), re.MULTILINE).group(1)
    d = explain(line)
    assert d.kind == "out_of_memory"
    assert "256.00 MiB" in d.summary
    head = re.search(r"msg head: (.*)$", gpu_log(), re.MULTILINE).group(1)
    assert explain(head).kind == "out_of_memory"


def test_log_device_side_assert_texts():
    log = gpu_log()
    first = re.search(r"FIRST: \w+ (CUDA error: device-side assert triggered.*?)\n\n", log, re.DOTALL).group(1)
    d = explain(first)
    assert d.kind == "device_side_assert"
    assert any("restart" in fix for fix in d.fixes)
    tails = re.findall(r"stderr tail: (.*?Assertion `[^`]+` failed\.)", log)
    assert len(tails) == 2
    embedding, labels = (explain(t) for t in tails)
    assert embedding.kind == labels.kind == "device_side_assert"
    assert "srcIndex" in embedding.details["assertion"] and "Embedding" in embedding.details["hint"]
    assert "n_classes" in labels.details["hint"]




@pytest.mark.parametrize("text, kind, word", VARIANTS, ids=[v[0][:40] for v in VARIANTS])
def test_variant_wordings(text, kind, word):
    d = explain(text)
    assert d.kind == kind, f"{text!r} -> {d.kind}"
    assert word.lower() in (d.summary + " " + " ".join(d.fixes)).lower(), d.summary


def test_every_kind_is_covered_by_a_test():
    provoked_on_cpu = {p.values[1] if hasattr(p, "values") else p[1] for p in PROVOCATIONS}
    # The Export chapter's kinds are provoked in test_explain_export.py.
    from ice_lab.explainer.catalogue import export

    provoked_on_cpu |= {e.kind for e in export.ENTRIES}
    tested = provoked_on_cpu | {v[1] for v in VARIANTS} | {"device_side_assert"}
    assert tested == set(KINDS) - {"unknown"}
    # Only kernel failures on a GPU cannot be provoked here (their texts come from real logs).
    assert set(KINDS) - {"unknown"} - provoked_on_cpu == {"device_side_assert", "illegal_memory_access"}


# --------------------------------------------------------------------------- anything at all


class BadStr(Exception):
    def __str__(self):
        raise RuntimeError("__str__ exploded")


class NotAStr(Exception):
    def __str__(self):
        return 42  # type: ignore[return-value]


@pytest.mark.parametrize(
    "thing",
    [0, 3.5, None, b"\xff\xfe bytes", bytearray(b"abc"), object(), [1, 2], {"a": 1}, "", "   \n ",
     BadStr("boom"), NotAStr(), ValueError(), torch.zeros(3), int, KeyboardInterrupt()],
    ids=lambda t: type(t).__name__,
)
def test_anything_gives_a_diagnosis(thing):
    d = explain(thing)
    assert isinstance(d, Diagnosis)
    assert d.kind in KINDS
    assert str(d).startswith(f"[{d.kind}] ") and d.kind in d._repr_html_()


def test_bad_str_exception_falls_back_to_args():
    d = explain(BadStr("Target 7 is out of bounds."))
    assert d.kind == "target_out_of_range" and "7" in d.summary


@pytest.mark.parametrize(
    "error",
    [ValueError("invalid literal for int() with base 10: 'x'"), KeyError("lr"), ZeroDivisionError("division by zero"),
     IndexError("list index out of range"), IndexError("tuple index out of range"), TypeError("unsupported operand"),
     FileNotFoundError(2, "No such file or directory"), AssertionError()],
    ids=lambda e: type(e).__name__,
)
def test_non_torch_errors_are_unknown(error):
    d = explain(error)
    assert d.kind == "unknown"
    assert d.message == str(error)


def test_unknown_preserves_message():
    d = explain("something nobody has ever seen")
    assert d.kind == "unknown" and d.message == "something nobody has ever seen"
    assert "something nobody has ever seen" in d.summary


def test_huge_message_is_preserved():
    """Speed is measured in benchmarks/explain_speed.py; here only the results."""
    text = "x" * 100_000
    d = explain(text)
    assert d.kind == "unknown" and d.message == text
    wrapped = "Caught RuntimeError in DataLoader worker process 0.\n" + "frame\n" * 20_000 + \
        "RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1"
    d = explain(wrapped)
    assert d.kind == "shape_mismatch" and "[3]" in d.summary and d.message == wrapped
    adversarial = "mat1 and mat2 shapes cannot be multiplied (" + "1x" * 50_000
    d = explain(adversarial)
    assert d.kind == "shape_mismatch" and d.message == adversarial


def test_chained_cause_is_diagnosed():
    try:
        try:
            linear_features()
        except RuntimeError as err:
            raise ValueError("training step failed") from err
    except ValueError as outer:
        d = explain(outer)
    assert d.kind == "shape_mismatch"
    assert "training step failed" in d.details["chained_from"]


def test_implicit_context_is_diagnosed():
    try:
        try:
            device_meta()
        except RuntimeError:
            raise LookupError("while handling the batch")
    except LookupError as outer:
        d = explain(outer)
    assert d.kind == "device_mismatch"


def test_specific_outer_error_wins_over_its_cause():
    try:
        try:
            linear_features()
        except RuntimeError as err:
            raise RuntimeError("Target 4 is out of bounds.") from err
    except RuntimeError as outer:
        assert explain(outer).kind == "target_out_of_range"


def test_cyclic_chain_terminates():
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a
    assert explain(a).kind == "unknown"


def test_text_and_html_forms():
    d = explain("Can't get attribute 'MyDataset' on <module '__main__' (built-in)>")
    text = str(d)
    assert text.splitlines()[0].startswith("[dataloader_pickling]")
    anchor = "1-a-dataset-class-or-a-lambda-defined-in-the-notebook-under-spawn"
    section = f"book/datasets.ipynb#{anchor}"
    assert "Fixes:" in text and f"Read: {section}" in text
    page = d._repr_html_()
    assert "dataloader_pickling" in page
    href = f"../book/datasets.html#{anchor}"
    assert f'<a href="{href}"><code>{section}</code></a>' in page
    page = explain("Can't pickle local object 'main.<locals>.<lambda>'")._repr_html_()
    assert "main.&lt;locals&gt;.&lt;lambda&gt;" in page and "<locals>" not in page
    assert "<script" not in page and "dataloader_pickling" in page and "<li>" in page


def test_html_escapes_the_message_specifics():
    d = explain("Can't pickle local object '<script>alert(1)</script>'")
    assert "<script>" not in d._repr_html_()


def test_the_function_and_its_package_are_both_reachable():
    # ice_lab.explain is the function; ice_lab.explainer the package (its KINDS, its modules)
    import ice_lab.explainer.engine as engine

    assert ice_lab.explainer.KINDS[-1] == "unknown" and ice_lab.explainer.engine is engine
    d = ice_lab.explain("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", verbose=True)
    assert d.kind == "shape_mismatch" and d.verbose
    assert ice_lab.Diagnosis is Diagnosis and ice_lab.explainer.explain is explain


@pytest.mark.kernel
def test_importing_the_explainer_needs_no_torch():
    code = ("import sys, ice_lab.explainer, ice_lab.explainer.cli; import ice_lab; "
            "ice_lab.explain('x'); assert 'torch' not in sys.modules, 'torch'; "
            "assert 'numpy' not in sys.modules, 'numpy'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_no_import_cycle_between_catalogue_and_engine():
    # the catalogue imports what an entry is (entry.py), never the engine
    import ast

    root = Path(ice_lab.__file__).parent / "explainer" / "catalogue"
    paths = sorted(root.glob("*.py"))
    assert len(paths) > 5
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not any(m and m.endswith("engine") for m in imported), path.name


def test_importing_every_module_leaves_the_functions_in_place():
    for name in ("describe", "provoke", "explainer", "nonfinite", "magic"):
        importlib.import_module(f"ice_lab.{name}")
    for name in ("summary", "expect", "explain"):
        assert callable(getattr(ice_lab, name)) and not isinstance(getattr(ice_lab, name), types.ModuleType)


def test_public_docstrings_name_a_chapter():
    module = importlib.import_module("ice_lab.explainer")
    engine = importlib.import_module("ice_lab.explainer.engine")
    render = importlib.import_module("ice_lab.explainer.render")
    entry = importlib.import_module("ice_lab.explainer.entry")
    magic = importlib.import_module("ice_lab.magic")

    public = [getattr(m, name) for m in (engine, render, entry) for name in m.__all__
              if callable(getattr(m, name))]
    for obj in (module, engine, render, entry, *public,
                magic.load_ipython_extension, magic.unload_ipython_extension, magic.is_torch_related):
        assert obj.__doc__ and re.search(r"chapter", obj.__doc__, re.IGNORECASE), obj


def test_fuzz_never_raises():
    """Random mixtures of catalogue words, brackets and digits: no crash (their speed is in
    benchmarks/explain_speed.py)."""
    import random

    rng = random.Random(0)
    words = ["mat1", "and", "mat2", "shapes", "(", ")", "[", "]", "x", "2", "device", "cuda:0", "cpu",
             "Target", "out of bounds", "Input type", "torch.cuda.FloatTensor", "simulated", "tried to allocate",
             "MiB", "live;", "limit", "'", '"', "\n", "\t", "Missing key(s) in state_dict:", "<locals>", "!", ",",
             "nan", "inf", "expected", "but got", "size", "Can't pickle", "weights_only", "é", "\x1b[1m"]
    for i in range(300):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 400)))
        if i % 50 == 0:
            text = text * 50  # some long ones
        d = explain(text)
        assert d.kind in KINDS and d.message == text
        assert str(d).startswith(f"[{d.kind}] ") and d.kind in d._repr_html_()


def test_worker_traceback_is_judged_by_its_last_line():
    wrapped = (
        "Caught RuntimeError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/site-packages/torch/utils/data/_utils/worker.py", line 349, in _worker_loop\n'
        "    data = fetcher.fetch(index)\n"
        '  File "/home/me/data.py", line 12, in __getitem__\n'
        "    x = torch.load(self.paths[i], weights_only=True).to('cuda')\n"
        "RuntimeError: Target 12 is out of bounds.\n"
    )
    d = explain(wrapped)
    assert d.kind == "target_out_of_range" and "12" in d.summary


def test_accepts_the_record_of_expect(capsys):
    with ice_lab.expect(RuntimeError, match="cannot be multiplied") as provoked:
        linear_features()
    assert explain(provoked).kind == "shape_mismatch"
    assert explain(ice_lab.expect(RuntimeError).provoked).kind == "unknown"  # nothing caught yet


def test_embedding_ids_are_read_from_the_traceback():
    try:
        nn.Embedding(10, 4)(torch.tensor([3, 12]))
    except IndexError as err:
        d = explain(err)
    assert d.kind == "target_out_of_range"
    assert "token id 12" in d.summary and "10 rows" in d.summary


# --------------------------------------------------------------------------- true to the operation


def provoked_summary(fn) -> str:
    return explain(provoke(fn)).summary


def test_a_plain_matrix_product_is_not_called_a_layer():
    d = explain(provoke(matmul_in_code))
    assert d.entry == "tensors.matmul_inner_sizes"
    assert "layer" not in d.summary and "features" not in d.summary
    assert "3 columns on the left but 2 rows on the right" in d.summary
    assert any("transpose" in c for c in d.causes) and not any("in_features" in c for c in d.causes)


def test_a_linear_layer_is_explained_in_its_own_terms():
    d = explain(provoke(linear_features))
    assert d.entry == "tensors.linear_in_features"
    assert d.summary == "your input has 3 features but the layer expects 4 (a 2x3 batch met a 4x5 weight)"
    assert any("in_features" in c for c in d.causes)


def test_a_pasted_product_message_names_both_readings():
    """Without a traceback, the same words may come from a Linear or from a product."""
    d = explain("RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    assert d.entry == "tensors.product_shapes"
    assert "2x3 @ 4x5 needs 3 == 4" in d.summary and "in an nn.Linear" in d.summary
    pasted_linear = ('  File "/x/site-packages/torch/nn/modules/linear.py", line 125, in forward\n'
                     "    return F.linear(input, self.weight, self.bias)\n"
                     "RuntimeError: mat1 and mat2 shapes cannot be multiplied (192721x92 and 103x64)")
    assert explain(pasted_linear).entry == "tensors.linear_in_features"
    pasted_mm = ("    gamma = torch.mm(A_taskpair, self.gamma.t())\n"
                 "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x2 and 6x64)")
    assert explain(pasted_mm).entry == "tensors.matmul_inner_sizes"


@pytest.mark.parametrize("fn, words", [
    (lambda: torch.bmm(torch.zeros(2, 3, 4), torch.zeros(2, 5, 6)), ["torch.bmm", "[2, 4]", "[2, 5]"]),
    (conv_channels, ["3 input channels", "has 1"]),
    (lambda: F.nll_loss(torch.zeros(2, 3, 4), torch.zeros(2, 5, dtype=torch.long)), ["[2, 4]", "[2, 5]"]),
    (lambda: F.binary_cross_entropy_with_logits(torch.zeros(4, 1), torch.zeros(4)), ["[4]", "[4, 1]", "loss"]),
    (lambda: F.cross_entropy(torch.zeros(2, 3, 4, 4), torch.zeros(2, 1, 4, 4, dtype=torch.long)),
     ["(N, H, W)", "4 dimensions"]),
], ids=["bmm", "conv", "nll_loss_target", "bce_target", "segmentation_target"])
def test_wording_true_to_the_operation(fn, words):
    d = explain(provoke(fn))
    assert d.kind in ("shape_mismatch", "conv_channels"), d
    for word in words:
        assert word in d.summary, f"{word!r} not in {d.summary!r}"
    assert "features" not in d.summary


def test_no_template_is_left_unfilled_or_misspelt():
    from ice_lab.explainer import CATALOGUE

    for entry in CATALOGUE:
        for text in [entry.summary, entry.fallback, *entry.causes, *entry.fixes]:
            assert "  " not in text and not text.endswith((" ", ".")), (entry.name, text)
            assert "or of the" not in text, (entry.name, text)
        # A fallback is what a learner reads when a detail is missing: never "length ? and ?".
        assert not re.search(r"\?[ ;,)]|\?$", entry.fallback), (entry.name, entry.fallback)


# --------------------------------------------------------------------------- why, and never raising


def test_verbose_says_which_entry_matched_and_on_what():
    d = explain("Target 255 is out of bounds.", verbose=True)
    assert d.entry == "training.target_out_of_range"
    assert "training.target_out_of_range" in d.why and "'Target 255 is out of bounds'" in d.why
    assert str(d).splitlines()[-1].startswith("Why: entry 'training.target_out_of_range'")
    assert "Why:" in d._repr_html_()
    quiet = explain("Target 255 is out of bounds.")
    assert quiet.why == d.why and "Why:" not in str(quiet) and "Why:" not in quiet._repr_html_()


def test_why_names_what_was_outranked():
    d = explain("Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same")
    assert d.kind == "device_mismatch" and "tensors.two_dtypes" in d.why


def test_one_megabyte_message():
    text = "RuntimeError: " + "x" * 500_000 + "\nExpected all tensors to be on the same device, but found " \
        "at least two devices, cuda:0 and cpu!\n" + "y" * 500_000
    d = explain(text)
    assert len(text) > 1_000_000 and d.message == text
    assert d.kind == "unknown"  # the middle of a huge message is not read; its ends are
    d = explain("z" * 1_000_000 + "\nRuntimeError: CUDA error: out of memory")
    assert d.kind == "out_of_memory"


def test_binary_junk():
    junk = bytes(range(256)) * 4000
    for thing in (junk, junk.decode("latin-1"), bytearray(junk[:1000]), "\x00" * 10_000):
        d = explain(thing)
        assert d.kind in KINDS and str(d).startswith(f"[{d.kind}] ") and d.kind in d._repr_html_()


def test_ansi_colour_codes():
    text = "\x1b[31mRuntimeError\x1b[0m: \x1b[1mTarget 7 is out of bounds.\x1b[0m"
    d = explain(text)
    assert d.kind == "target_out_of_range" and "7" in d.summary and d.message == text


def test_launcher_and_pytest_prefixes():
    ranked = ("[rank0]: Traceback (most recent call last):\n"
              '[rank0]:   File "train.py", line 3, in <module>\n'
              "[rank0]:     x.numpy()\n"
              "[rank0]: TypeError: can't convert cuda:0 device type tensor to numpy.")
    assert explain(ranked).kind == "numpy_conversion"
    pytest_e = ("    def test_step():\n>       model(x)\n\n"
                "E       RuntimeError: Expected all tensors to be on the same device, but found at least "
                "two devices, cuda:0 and cpu!")
    d = explain(pytest_e)
    assert d.kind == "device_mismatch" and "cuda:0" in d.summary
