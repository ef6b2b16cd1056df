"""Checks of ``labs/lab-export.ipynb`` (chapter: Export, ``book/export.ipynb``): a trace
that took the wrong branch, an ONNX file with a fixed batch, a program exported in train
mode, and a colleague's export that bakes a number in. Each check compares the learner's
artefact with the model through ``ice_lab.export.check_export`` on batch sizes and inputs
the lab never showed."""

from __future__ import annotations

import copy
import functools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import torch
from torch import nn

from ..export import check_export
from ..export_warnings import export_warnings
from ._core import Hints, attempt, need_callable, passed, rng

_scanner = Hints("export_scanner")
_onnx = Hints("export_onnx_dynamic")
_serving = Hints("export_for_serving")
_brightness = Hints("export_brightness")


@functools.cache
def _test_images() -> torch.Tensor:
    """The lab's test images (the digits, scaled to 0..1), loaded once."""
    from ..data import digits_datasets

    return digits_datasets(seed=0)[2].tensors[0]


def _reinitialised(net: nn.Module, seed: int) -> nn.Module:
    """A copy of ``net`` with fresh weights: the same architecture, another network."""
    other = copy.deepcopy(net)
    torch.manual_seed(seed)
    for module in other.modules():
        reset = getattr(module, "reset_parameters", None)
        if reset is not None:
            reset()
    return other.eval()


def _exported(fn: Callable, *args: Any) -> tuple[Any, str]:
    """Call the learner's export function with export warnings kept quiet."""
    with export_warnings():
        return attempt(fn, *args)


def _kind_hint(name: str, artefact: object) -> str:
    """What the learner returned instead of an ExportedProgram."""
    if isinstance(artefact, torch.jit.ScriptModule):
        return (f"{name} returned a TorchScript module: torch.jit.trace and script are the "
                "legacy, deprecated path the chapter leaves behind.")
    if isinstance(artefact, torch.fx.GraphModule):
        return (f"{name} returned program.module(), a GraphModule: return the "
                "ExportedProgram itself.")
    if isinstance(artefact, nn.Module):
        return (f"{name} returned a model: it runs Python, which is what you cannot "
                "ship. Return what torch.export makes.")
    return f"{name} returned a {type(artefact).__name__}, not an ExportedProgram."


class _ScannerRule(nn.Module):
    """What the lab's Scanner computes, written here: the reference stays the same when
    the learner's code edits (or patches) the Scanner class or the model it is given."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.max() > 1:
            x = x / 16
        return self.net(x)


class _BrightnessRule(nn.Module):
    """What the colleague's Brightness wrapper computes, written here (as _ScannerRule)."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.clamp(min=0)
        brightest = float(x.amax())
        return self.net(x / max(brightest, 1e-6))


def export_scanner(fn: Callable, scanner: nn.Module, *, seed: int | None = None) -> None:
    """``fn(scanner)`` returns an ExportedProgram that serves both kinds of client as the
    scanner does: the whole batch divided by 16 exactly when one of its pixels is above
    1, at any batch size, whatever network the scanner wraps."""
    need_callable(fn, "export_scanner")
    h = _scanner.require
    images = _test_images()
    reference = _ScannerRule(copy.deepcopy(scanner.get_submodule("net"))).eval()
    artefact, error = _exported(fn, scanner)
    h(not error, f"export_scanner raised {error}. " + (
        "torch.export refuses a Python if on the pixel values: it will not guess which "
        "way the data goes (1.3 Diagnose)."
        if "data-dependent" in error or "control flow" in error else
        "A batch of 1 cannot be made dynamic: export from an example of several images."
        if "specialized" in error or "Constraints violated" in error else
        "The check could not tell what went wrong: read the error."))
    h(isinstance(artefact, torch.export.ExportedProgram),
      _kind_hint("export_scanner", artefact))
    scans = images * 16
    cases = {
        "0..1 images": images[:64],
        "scanner images (0..16)": scans,
        "one scanner image": scans[:1],
        "a batch mixing 0..1 and scanner images": torch.cat([images[:5], scans[5:8]]),
        "faint scans (pixels 0..2)": (scans / 8).round(),
        "dim 0..1 images (pixels 0..0.5)": images * 0.5,
        "blank images": torch.zeros(3, 1, 8, 8),
    }
    sizes: tuple[int, ...] = (1, 5, 64, 1000)
    if seed is not None:
        gen = rng(seed, 0)
        rows = torch.tensor([gen.randrange(len(images)) for _ in range(40)])
        cases = {f"images up to {top}": (images[rows] * top).round()
                 for top in (gen.randint(2, 16) for _ in range(4))}
        cases.update({f"0..1 images times {s:.2f}": images[rows] * s
                      for s in (gen.random() for _ in range(4))})
        cases["blank images"] = torch.zeros(2, 1, 8, 8)
        sizes = tuple(gen.randint(1, 5000) for _ in range(3))
    report = check_export(reference, images[:8], artefact, batch_sizes=sizes,
                          extra_inputs=list(cases.values()))
    names = {f"extra inputs {i}": name for i, name in enumerate(cases)}
    bad = [names.get(run.label, run.label) for run in report.runs if not run.ok]
    rule = {"faint scans (pixels 0..2)", "dim 0..1 images (pixels 0..0.5)", "blank images"}
    mixed = "a batch mixing 0..1 and scanner images"
    why = (
        f"It fails on batches of {sorted(set(report.failed_batch_sizes))}: the program "
        "takes the example's batch only, or a bounded range."
        if report.failed_batch_sizes else
        "It treats scanner images like 0..1 images: the division by 16 is not in the "
        "program." if "scanner images (0..16)" in bad and "0..1 images" not in bad else
        "It divides 0..1 images by 16 too: the decision was fixed when you exported."
        if "0..1 images" in bad and "dim 0..1 images (pixels 0..0.5)" in bad
        and "scanner images (0..16)" not in bad else
        "It divides 0..1 images by 16 too: their brightest pixels are exactly 1, and the "
        "model divides only when a pixel is above 1."
        if "0..1 images" in bad and "scanner images (0..16)" not in bad else
        "It decides image by image; the scanner decides once per batch: a batch holding "
        "one scanner image is divided by 16 as a whole. Ship the model's rule, not a "
        "better one." if bad == [mixed] else
        "The model divides exactly when a pixel is above 1. A rule fitted to the test "
        "images (a mean, a sum, another threshold, dividing by the largest pixel) decides "
        "otherwise on other images." if bad and set(bad) <= rule | {mixed} else
        "The check could not tell what went wrong: print check_export's report.")
    h(report.ok, f"The program disagrees with the scanner on {bad}. {why}", kind="cases")
    other_net = _reinitialised(scanner.get_submodule("net"),
                               1 if seed is None else seed)
    other_reference = _ScannerRule(copy.deepcopy(other_net)).eval()
    other = type(scanner)(other_net).eval()
    other_artefact, error = _exported(fn, other)
    other_ok = not error and check_export(other_reference, images[:8], other_artefact,
                                          batch_sizes=(3,), extra_inputs=[scans]).ok
    h(other_ok, f"On a scanner around another network, export_scanner "
      f"{error or 'disagrees'}: export the network of the scanner it is given, not the "
      "notebook's net.")
    passed("an ExportedProgram that agrees with the scanner on 0..1, 0..16, mixed, "
           "faint, dim and blank images, in batches of 1 to 1000, whatever its network.")


def _onnx_case(fn: Callable, model: nn.Module, path: Path) -> tuple[list, str, str]:
    """Run the learner's ONNX export with a spy on torch.export; (calls, error, text)."""
    calls: list[dict] = []
    real = torch.export.export

    def spy(*args: Any, **kwargs: Any) -> Any:
        program = real(*args, **kwargs)
        calls.append(kwargs)  # the current exporter captured through torch.export
        return program

    try:
        with export_warnings(), mock.patch.object(torch.export, "export", spy):
            fn(model, path)
    except Exception as error:  # quoted in the hint, on one line
        cause = error.__cause__ or error  # torch.onnx wraps torch.export's error
        text = " ".join(f"{type(cause).__name__}: {cause}".split())
        return calls, text[:200], text
    return calls, "", ""


def export_onnx_dynamic(fn: Callable, net: nn.Module, other: type[nn.Module], *,
                        seed: int | None = None) -> None:
    """``fn(model, path)`` writes one ONNX file (dynamo=True, opset 18, weights inside,
    input ``pixels``, output ``logits``) that serves any batch size and agrees with the
    model in eval mode, for ``net`` and for ``other()`` (another class of model)."""
    import onnx
    import onnxruntime as ort

    need_callable(fn, "export_onnx_dynamic")
    h = _onnx.require
    images = _test_images()
    torch.manual_seed(3 if seed is None else seed)
    models = {"net": net, f"{other.__name__}() in train mode": other().train()}
    sizes: tuple[int, ...] = (1, 7, 270)
    if seed is not None:
        gen = rng(seed, 0)
        width = gen.randint(16, 200)
        models = {f"an MLP {width} wide in train mode": nn.Sequential(
            nn.Flatten(), nn.Linear(64, width), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Dropout(0.5), nn.Linear(width, 10)).train()}
        sizes = tuple(gen.randint(1, 500) for _ in range(4))
    with tempfile.TemporaryDirectory() as folder:
        for name, model in models.items():
            path = Path(folder) / name.split()[0].strip("()") / "model.onnx"
            path.parent.mkdir()
            calls, error, text = _onnx_case(fn, model, path)
            session: Any = None  # an onnxruntime InferenceSession once the file loads
            if not error:
                session, error = attempt(ort.InferenceSession, path,
                                         providers=["CPUExecutionProvider"])
                text = error
            h(not error, f"export_onnx_dynamic({name}, path) failed: {error}. " + (
                "dynamic_shapes keyed by a name fits one model only: an nn.Sequential "
                "calls its argument input, ConvDigits calls it images, and torch 2.6 "
                "(given input_names) wants those names instead. Every model and every "
                "torch read a position alike."
                if "KeyError" in text or "top-level keys" in text else
                "A batch of 1 cannot be made dynamic: export from an example of several "
                "images." if "specialized" in text or "Constraints violated" in text else
                "This torch cannot convert with these onnx/onnxscript releases: run the "
                "lab's first cell, which says which to install." if "Conversion" in text
                else "The check could not tell what went wrong: read the error."))
            h(calls, "The file was written by the legacy TorchScript-based exporter "
              "(dynamo=False, also the default before torch 2.9, and deprecated since): "
              "the lab asks for the current one, which captures with torch.export.")
            inputs = [(i.name, i.shape) for i in session.get_inputs()]
            outputs = [o.name for o in session.get_outputs()]
            h([n for n, _ in inputs] == ["pixels"], f"The file's inputs are {inputs}: "
              "the server feeds the input by its name, 'pixels'.")
            h(outputs == ["logits"], f"The file's outputs are {outputs}: the server "
              "reads 'logits'.")
            files = sorted(p.name for p in path.parent.iterdir())
            h(files == ["model.onnx"], f"The export wrote {files}: the weights went to a "
              "file of their own, and the server gets one file.")
            opsets = [o.version for o in onnx.load(path).opset_import
                      if o.domain in ("", "ai.onnx")]
            h(opsets == [18], f"The file uses opset {opsets}: the team's runtime takes "
              "opset 18, and the exporter's default moves with torch (18 on 2.6, 20 on "
              "2.14).")
            first = inputs[0][1][0]
            h(isinstance(first, str), f"The batch axis is still fixed: the file "
              f"declares {inputs[0][1]}. " + (
                  "Exporting with a batch of 1 only moves the bug (then every batch but "
                  "1 fails). " if first == 1 else "")
              + "The exporter was never told that dimension 0 may vary (torch 2.6 "
              "ignores a plain string there).", kind="fixed",
              more="the chapter's section on dynamic shapes says how torch.export is "
              "told; torch.onnx.export takes the same argument.")
            report = check_export(model.eval(), images[:64], path, batch_sizes=sizes)
            like_net = model is not net and check_export(
                net, images[:64], path, batch_sizes=()).ok
            h(report.ok, f"On {name}, batch sizes {report.failed_batch_sizes} fail and "
              f"{report.disagreeing_batch_sizes} disagree with the model in eval mode. "
              + ("The file computes what net computes: export the model you are given, "
                 "not the notebook's net." if like_net else
                 "The check could not tell what went wrong: print check_export's "
                 "report."))
    passed(f"one ONNX file per model, from the current exporter, serves batches of "
           f"{', '.join(map(str, sizes))} and agrees with the model in eval mode, for "
           f"{' and for '.join(models)}.")


def _modes(model: nn.Module) -> list[bool]:
    return [m.training for m in model.modules()]


def export_for_serving(fn: Callable, train: Callable[..., nn.Sequential], *,
                       seed: int | None = None) -> None:
    """``fn(model, example)`` returns an ExportedProgram made in eval mode that agrees with
    the model at any batch size, from an example of any size (one image included), and
    leaves every module of the model in the mode it was in."""
    need_callable(fn, "export_for_serving")
    h = _serving.require
    images = _test_images()
    if seed is None:
        frozen = train(epochs=1)
        frozen[2].eval()  # its BatchNorm kept frozen while the rest trains
        cases = {
            "a model in train mode, a batch of 64": (train(epochs=1), images[:64]),
            "a model with a frozen BatchNorm, one image": (frozen, images[:1]),
            "a model in eval mode, a batch of 5": (train(epochs=1).eval(), images[5:10]),
        }
        sizes: tuple[int, ...] = (1, 3, 270)
    else:
        gen = rng(seed, 0)
        mixed = train(epochs=2)
        for layer in mixed:  # a random mix of frozen and training layers
            layer.training = gen.random() < 0.5
        mixed.training = gen.random() < 0.5
        size, start = gen.randint(1, 9), gen.randrange(200)
        cases = {f"a model of mixed modes, {size} images":
                 (mixed, images[start:start + size])}
        sizes = tuple(gen.randint(1, 300) for _ in range(3))
    for name, (model, example) in cases.items():
        before = _modes(model)
        state = {k: v.clone() for k, v in model.state_dict().items()}
        wants_grad = [p.requires_grad for p in model.parameters()]
        seen: list[tuple[bool, list[bool]]] = []
        real = torch.export.export

        def spy(*args: Any, **kwargs: Any) -> Any:
            module = args[0] if args else kwargs["mod"]
            seen.append((torch.is_grad_enabled(), _modes(module)))
            return real(*args, **kwargs)

        with export_warnings(), mock.patch.object(torch.export, "export", spy):
            program, error = attempt(fn, model, example)
        after = _modes(model)
        h(not error, f"On {name}, export_for_serving raised {error}. " + (
            "One image cannot make the batch dynamic (PyTorch specialises sizes 0 and "
            "1): the example you are given may be too small to export from."
            if "specialized" in error or "Constraints violated" in error else
            "The check could not tell what went wrong: read the error."), kind="one",
            more="what could an example of two images be made of, when you hold one?")
        h(isinstance(program, torch.export.ExportedProgram),
          _kind_hint("export_for_serving", program))
        grad, modes = seen[-1] if seen else (True, [False])
        h(not any(modes), f"On {name}: " + (
            "torch.no_grad() (and inference_mode) turn off gradients, not dropout: the "
            "model was still in train mode when it was exported."
            if all(modes) and not grad else
            "the model was still in train mode when it was exported (after the export, "
            "a mode changes the model, not the program)." if all(modes) else
            "model.training = False changes the flag of the top module only; its layers "
            "were still in train mode when it was exported." if not modes[0] else
            "some of its layers were still in train mode when it was exported."))
        h(after == before, f"On {name}: " + (
            "the model is left in eval mode, so the epochs after the snapshot would "
            "train without dropout, and BatchNorm would stop learning its statistics."
            if before[0] and not any(after) else
            "the frozen BatchNorm came back in train mode: model.train() sets every "
            "module, and this model kept its BatchNorm in eval mode on purpose. Each "
            "module goes back to its own mode."
            if before[0] and not before[3] and after[3] else
            "a model that came in eval mode went back to train mode: put back the mode "
            "it had." if not any(before) else
            "a module's mode changed: compare the mode of every module before and after "
            "your function."))
        h([p.requires_grad for p in model.parameters()] == wants_grad,
          f"On {name}: parameters that trained no longer require grad after "
          "export_for_serving, so the epochs after the snapshot would train nothing. "
          "Exporting needs no change to the parameters.")
        changed = [k for k, v in model.state_dict().items()
                   if k not in state or not torch.equal(v, state[k])]
        h(not changed, f"On {name}: export_for_serving changed the model's {changed}: a "
          "forward pass in train mode updates BatchNorm's running statistics (and an "
          "optimizer step the weights). A snapshot must leave the model as training "
          "left it.")
        report = check_export(model.eval(), images[:64], program, batch_sizes=sizes)
        for module, training in zip(model.modules(), before):
            module.training = training
        failed = report.failed_batch_sizes
        if failed:  # the hint reads the failures: only built when there are some
            h(False, f"On {name}, batch sizes {failed} fail. " + (
                "An example of one image gives a program for one image (Dim.AUTO keeps it "
                "static without a word)." if len(example) == 1 else
                f"The program refuses batches above {len(example)}: a bound fitted to the "
                "example; the server's batches can be larger."
                if min(failed) > len(example) else
                "The batch is fixed: the exporter was never told that it varies."))
        h(report.ok, f"On {name}, the program disagrees with the model in eval mode. The "
          "check could not tell what went wrong: print check_export's report.")
        with torch.no_grad():
            first, second = program.module()(images), program.module()(images)
        h(torch.equal(first, second), "It still answers differently twice.")
    passed(f"exported in eval mode, every module put back in its own mode, from "
           f"{' or '.join(str(len(e)) for _, e in cases.values())} images, and the "
           f"model's answer at batches of {', '.join(map(str, sizes))}.")


def export_brightness(fn: Callable, model: nn.Module, *, seed: int | None = None) -> None:
    """``fn(model)`` returns an ExportedProgram that computes what ``model`` computes on
    inputs of any scale and any batch size (the colleague's export baked a number in)."""
    need_callable(fn, "export_brightness")
    h = _brightness.require
    images = _test_images()
    reference = _BrightnessRule(copy.deepcopy(model.get_submodule("net"))).eval()
    program, error = _exported(fn, model)
    h(not error, f"export_brightness raised {error}. " + (
        "torch.export refuses to turn a tensor into a Python number: it will not guess "
        "the number for other inputs." if "data-dependent" in error or "Could not "
        "guard" in error or "item" in error else
        "The check could not tell what went wrong: read the error."))
    h(isinstance(program, torch.export.ExportedProgram),
      _kind_hint("export_brightness", program))
    gen = rng(seed, 12)
    scales = [0.5, 1.0, 3.0, 16.0] if seed is None else [
        round(gen.uniform(0.1, 20), 2) for _ in range(4)]
    cases = {f"images times {s:g}": images[:40] * s for s in scales}
    dim, bright = (0.5, 4.0) if seed is None else (gen.uniform(0.1, 1), gen.uniform(2, 20))
    noisy = images[:40] * bright
    noisy[:, :, 0, 0] = -1.5 * bright  # sensor noise, stronger than the brightest pixel
    special = {
        "a batch mixing dim and bright images": torch.cat([images[:20] * dim,
                                                           images[20:40] * bright]),
        "images with negative pixels (sensor noise)": noisy,
        "a blank batch (no pixel above 0)": -torch.rand(3, 1, 8, 8) * (1 if seed is None
                                                                      else gen.random()),
        "one bright image": images[40:41] * bright,
    }
    cases.update(special)
    sizes = (1, 9, 200) if seed is None else tuple(gen.randint(2, 400) for _ in range(3))
    report = check_export(reference, images[:8], program, batch_sizes=sizes,
                          extra_inputs=list(cases.values()))
    names = {f"extra inputs {i}": name for i, name in enumerate(cases)}
    bad = [names.get(run.label, run.label) for run in report.runs if not run.ok]
    h(not report.failed_batch_sizes, f"The program fails on batches of "
      f"{sorted(set(report.failed_batch_sizes))}: the batch dimension is not dynamic.")
    mixed, noise, blank, single = special
    why = (
        "it rescales image by image; the wrapper rescales a batch as a whole, by the "
        "brightest pixel of the batch. Ship the wrapper's rule, not a better one."
        if mixed in bad and single not in bad else
        "negative pixels: the wrapper sets them to 0 before it looks for the brightest "
        "pixel; your program treats them otherwise. Read the first line of its forward "
        "again." if noise in bad and single not in bad else
        "on a batch with no pixel above 0 the wrapper still returns the network's "
        "answer; your program does not (a division by zero gives NaN). Read how the "
        "wrapper treats a brightest pixel of 0." if bad == [blank] else
        "a number computed from the export's example was written into the program as a "
        "constant. Which line of the model turns a tensor into a Python number? The "
        "export's warnings name it.")
    h(report.ok, f"The program disagrees with the model on {bad}: {why}",
      kind="baked", more="a value that must follow the input has to stay a tensor all "
      "the way through forward, and the wrapper's other lines stay as they are.")
    other_net = _reinitialised(model.get_submodule("net"), 2 if seed is None else seed)
    other_reference = _BrightnessRule(copy.deepcopy(other_net)).eval()
    other_program, error = _exported(fn, type(model)(other_net).eval())
    other_ok = not error and check_export(other_reference, images[:8], other_program,
                                          batch_sizes=(3,), extra_inputs=[images * 3]).ok
    h(other_ok, f"On a wrapper around another network, export_brightness "
      f"{error or 'disagrees'}: export the network of the model it is given, not the "
      "notebook's net.")
    passed(f"an ExportedProgram that follows the model on images scaled by "
           f"{', '.join(f'{s:g}' for s in scales)}, mixed, noisy and blank batches, "
           f"batches of {', '.join(map(str, sizes))}, whatever its network.")

