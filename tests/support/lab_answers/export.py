"""Right and wrong answers to the exercises of labs/lab-export.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-export.ipynb"

EXPORT = "labs/lab-export.ipynb"
_EXPORT_DYN = 'dynamic_shapes={"input": {0: Dim("batch")}}'

# Exercise 1: a module that takes the scanner's decision with a rule of its own, exported
# by torch.export (or traced, for the legacy path) with the given tail.
_DECIDE = '''
class Decide(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x / {divisor})
'''
_EXPORTED = '''
return torch.export.export(Decide({net}).eval(), (X_test[:8],),
                           dynamic_shapes={{"x": {{0: Dim("batch")}}}})'''


def _scanner(divisor: str, tail: str = _EXPORTED, net: str = "scanner.net") -> str:
    return _DECIDE.format(divisor=divisor) + tail.format(net=net)


_RULE = "torch.where(x.max() > 1, 16.0, 1.0)"


# Exercise 2: the lab's export call with other keyword arguments.
def _onnx(arguments: str, model: str = "model.eval()", example: str = "X_test[:64]",
          names: str = 'input_names=["pixels"], output_names=["logits"],') -> str:
    return f"""
with export_warnings():
    torch.onnx.export({model}, ({example},), path, dynamo=True,
                      {names}
                      {arguments}
                      opset_version=18, external_data=False, verbose=False)"""


_BY_POSITION = 'dynamic_shapes=({0: Dim("batch")},),'

# Exercise 3: the lab's solution without the mode bookkeeping.
_TWO = "example = torch.cat([example, example]) if len(example) < 2 else example\n"
_DYN = 'dynamic_shapes=({0: Dim("batch")},)'

EXERCISES: list[Exercise] = [
    Exercise(EXPORT, "export_scanner", right=(
        R("torch.cond inside torch.export", """
class WithCond(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = torch.cond(x.max() > 1, lambda t: t / 16, lambda t: t.clone(), (x,))
        return self.net(x)

return torch.export.export(WithCond(scanner.net).eval(), (X_test[:8],),
                           dynamic_shapes={"x": {0: Dim("batch")}})"""),
        R("arithmetic on the comparison, Dim.AUTO, a batch of 64",
          _scanner("(1 + 15 * (x.max() > 1).float())", '''
return torch.export.export(Decide({net}).eval(), (X_test[:64],),
                           dynamic_shapes={{"x": {{0: Dim.AUTO}}}})''')),
        R("an argument called images, dynamic_shapes by position", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, images):
        too_bright = (images > 1).any()
        return self.net(torch.where(too_bright, images / 16, images))

return torch.export.export(Scaled(scanner.net).eval(), (scans[:10],),
                           dynamic_shapes=({0: Dim("n")},))"""),
        R("torch.cond around the whole network, exported from scanner images", """
class Wrapped(nn.Module):
    def __init__(self, scanner):
        super().__init__()
        self.inner = scanner.net

    def forward(self, x):
        return torch.cond(x.max() > 1, lambda t: self.inner(t / 16),
                          lambda t: self.inner(t), (x,))

return torch.export.export(Wrapped(scanner).eval(), (scans[:4],),
                           dynamic_shapes={"x": {0: Dim.DYNAMIC}})"""),
    ), wrong=(
        W("a decision per image (the same on batches of one kind, not on a mixed one)",
          """
class PerImage(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        bright = x.amax(dim=(1, 2, 3), keepdim=True) > 1
        return self.net(torch.where(bright, x / 16, x))

return torch.export.export(PerImage(scanner.net).eval(), (X_test[:8],),
                           dynamic_shapes=({0: Dim("batch")},))""",
          "It decides image by image; the scanner decides once per batch"),
        W("always divide by 16 (the scanner's symptom gone)", _scanner("16"),
          "It divides 0..1 images by 16 too", hides=True),
        W("the model itself", "return scanner", "returned a model: it runs Python", hides=True),
        W("torch.export of the Scanner as it is",
          "return torch.export.export(scanner, (X_test[:8],))",
          "torch.export refuses a Python if"),
        W("torch.jit.script compiles the if (the legacy path)",
          "with export_warnings():\n    return torch.jit.script(scanner)",
          "legacy, deprecated path"),
        W("re-tracing on a scanner batch", "return torch.jit.trace(scanner, X_test[:8] * 16)",
          "legacy, deprecated path", hides=True),
        W("a branch-free module, then a trace (the legacy path)",
          _scanner(_RULE, "\nwith export_warnings():\n"
                          "    return torch.jit.trace(Decide({net}).eval(), X_test[:8])"),
          "legacy, deprecated path"),
        W("the program's module() instead of the program",
          _scanner(_RULE, _EXPORTED.replace("}}}})", "}}}}).module()")),
          "GraphModule: return the ExportedProgram itself"),
        W("scanner.net exported alone: no decision at all", """
return torch.export.export(scanner.net, (X_test[:8],),
                           dynamic_shapes={"input": {0: Dim("batch")}})""",
          "It treats scanner images like 0..1 images"),
        W("a threshold on the mean (fitted to the test images)",
          _scanner("torch.where(x.mean() > 1, 16.0, 1.0)"),
          "A rule fitted to the test images"),
        W("a sum over the batch (depends on the batch size)",
          _scanner("torch.where(x.sum() > 200, 16.0, 1.0)"),
          "It divides 0..1 images by 16 too"),
        W("dividing by the largest pixel (the problem changed)", _scanner("x.max()"),
          "A rule fitted to the test images"),
        W("the largest pixel, at least 1", _scanner("x.max().clamp(min=1)"),
          "A rule fitted to the test images"),
        W(">= 1 instead of > 1 (0..1 images reach 1 exactly)",
          _scanner("torch.where(x.max() >= 1, 16.0, 1.0)"),
          "their brightest pixels are exactly 1"),
        W("another threshold (the scanner goes up to 16)",
          _scanner("torch.where(x.max() > 8, 16.0, 1.0)"),
          "A rule fitted to the test images"),
        W(".item() in the decision: a Python float again",
          _scanner("(16.0 if x.max().item() > 1 else 1.0)"),
          "torch.export refuses a Python if"),
        W("a Dim bounded by the largest batch the check shows (270)",
          _scanner(_RULE, '''
return torch.export.export(Decide({net}).eval(), (X_test[:8],),
                           dynamic_shapes={{"x": {{0: Dim("batch", max=270)}}}})'''),
          "or a bounded range"),
        W("the notebook's net instead of scanner.net", _scanner(_RULE, net="net"),
          "not the notebook's net"),
        W("no dynamic batch", _scanner(_RULE, '''
return torch.export.export(Decide({net}).eval(), (X_test[:8],))'''),
          "the program takes the example's batch only"),
        W("the Scanner's own forward patched with a decision per image (the check "
          "must not compare with the patched model)", """
import types


def forward(self, x):
    bright = x.amax(dim=(1, 2, 3), keepdim=True) > 1
    return self.net(torch.where(bright, x / 16, x))


scanner.forward = types.MethodType(forward, scanner)
return torch.export.export(scanner, (X_test[:8],), dynamic_shapes=({0: Dim("batch")},))""",
          "It decides image by image", cleanup="scanner.__dict__.pop('forward', None)"),
    )),
    Exercise(EXPORT, "export_onnx_dynamic", right=(
        R("Dim.DYNAMIC by position", _onnx("dynamic_shapes=({0: Dim.DYNAMIC},),")),
        R("a string by position (torch 2.14 reads it; torch 2.6 ignores it)",
          _onnx('dynamic_shapes=({0: "batch"},),')),
        R("keyed by the argument name read from forward's signature", """
import inspect

argument = next(iter(inspect.signature(model.forward).parameters))
""" + _onnx('dynamic_shapes={argument: {0: Dim("batch")}},')),
        R("the older dynamic_axes, converted by dynamo=True",
          _onnx('dynamic_axes={"pixels": {0: "batch"}},')),
        R("a list instead of a tuple", _onnx('dynamic_shapes=[{0: Dim("batch")}],')),
        R("a copy in eval mode, a batch of 5 as the example",
          "import copy\n" + _onnx(_BY_POSITION, model="copy.deepcopy(model).eval()",
                                  example="X_test[:5]")),
    ), wrong=(
        W("exported from a batch of 1", _onnx("", example="X_test[:1]"),
          "Exporting with a batch of 1 only moves the bug", hides=True),
        W("the export of 2.1 again", "export_onnx(model, path)",
          "The batch axis is still fixed"),
        W("dynamic_shapes keyed by input, the name in an nn.Sequential",
          _onnx('dynamic_shapes={"input": {0: "batch"}},'),
          "dynamic_shapes keyed by a name fits one model only"),
        W("dynamic_shapes keyed by another name",
          _onnx('dynamic_shapes={"x": {0: "batch"}},'),
          "dynamic_shapes keyed by a name fits one model only"),
        W("dynamic_shapes keyed by the input name (what torch 2.6 wants)",
          _onnx('dynamic_shapes={"pixels": {0: Dim("batch")}},'),
          "dynamic_shapes keyed by a name fits one model only"),
        W("input_names left out", _onnx(_BY_POSITION, names='output_names=["logits"],'),
          "the server feeds the input by its name"),
        W("output_names left out", _onnx(_BY_POSITION, names='input_names=["pixels"],'),
          "the server reads 'logits'"),
        W("the legacy TorchScript exporter, dynamic_axes", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=False,
                      input_names=["pixels"], output_names=["logits"],
                      dynamic_axes={"pixels": {0: "batch"}}, opset_version=18)""",
          "legacy TorchScript-based exporter"),
        W("the weights in a second file (external_data left on)", f"""
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      {_BY_POSITION} opset_version=18)""",
          "the weights went to a file of their own"),
        W("the opset left to torch's default (20 on 2.14)", f"""
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      {_BY_POSITION} external_data=False, verbose=False)""",
          "the team's runtime takes opset 18"),
        W("the notebook's net instead of the model given",
          _onnx(_BY_POSITION, model="net.eval()"), "The file computes what net computes"),
    )),
    Exercise(EXPORT, "export_for_serving", right=(
        R("a deep copy in eval mode: the model is never touched", f"""
import copy

served = copy.deepcopy(model).eval()
{_TWO}return torch.export.export(served, (example,), {_DYN})"""),
        R("the modes as a list, the example always doubled", """
modes = [module.training for module in model.modules()]
model.train(False)
program = torch.export.export(model, (torch.cat([example, example]),),
                              dynamic_shapes=({0: Dim.DYNAMIC},))
for module, training in zip(model.modules(), modes):
    module.training = training
return program"""),
        R("the modes gathered with apply, one image expanded to two", """
modes = {}
model.apply(lambda module: modes.__setitem__(module, module.training))
if example.shape[0] == 1:
    example = example.expand(2, *example.shape[1:])
model.eval()
program = torch.export.export(model, (example,), dynamic_shapes=({0: Dim("b")},))
for module, training in modes.items():
    module.training = training
return program"""),
    ), wrong=(
        W(".eval() after exporting", f"""
{_TWO}program = torch.export.export(model, (example,), {_DYN})
model.eval()
return program""", "after the export, a mode changes the model",
          hides=True),
        W("torch.no_grad() instead of eval()", f"""
{_TWO}with torch.no_grad():
    return torch.export.export(model, (example,), {_DYN})""",
          "turn off gradients, not dropout"),
        W("torch.inference_mode() instead of eval()", f"""
{_TWO}with torch.inference_mode():
    return torch.export.export(model, (example,), {_DYN})""",
          "torch.no_grad() (and inference_mode) turn off gradients"),
        W("a deep copy, but not in eval mode", f"""
import copy

{_TWO}return torch.export.export(copy.deepcopy(model), (example,), {_DYN})""",
          "the model was still in train mode when it was exported"),
        W("each module's mode restored with train(), children first", f"""
modes = [(module, module.training) for module in model.modules()]
{_TWO}model.eval()
program = torch.export.export(model, (example,), {_DYN})
for module, training in reversed(modes):
    module.train(training)
return program""", "the frozen BatchNorm came back in train mode"),
        W("model.training = False (the top flag only)", f"""
{_TWO}model.training = False
program = torch.export.export(model, (example,), {_DYN})
model.training = True
return program""", "model.training = False changes the flag of the top module only"),
        W("only the Dropout layers in eval mode", f"""
{_TWO}for module in model.modules():
    if isinstance(module, nn.Dropout):
        module.eval()
program = torch.export.export(model, (example,), {_DYN})
for module in model.modules():
    if isinstance(module, nn.Dropout):
        module.train()
return program""", "some of its layers were still in train mode"),
        W("eval, and the model left in eval mode (the chapter's line alone)", f"""
{_TWO}model.eval()
return torch.export.export(model, (example,), {_DYN})""",
          "the model is left in eval mode"),
        W("eval, export, then model.train(was_training)", f"""
was_training = model.training
{_TWO}model.eval()
program = torch.export.export(model, (example,), {_DYN})
model.train(was_training)
return program""", "the frozen BatchNorm came back in train mode"),
        W("eval, export, then model.train()", f"""
{_TWO}model.eval()
program = torch.export.export(model, (example,), {_DYN})
model.train()
return program""", "model.train() sets every module"),
        W("the example as it comes, even one image", f"""
was_training = model.training
model.eval()
try:
    return torch.export.export(model, (example,), {_EXPORT_DYN})
finally:
    model.train(was_training)""", "One image cannot make the batch dynamic"),
        W("Dim.AUTO from one image: static without an error", """
modes = [module.training for module in model.modules()]
model.eval()
program = torch.export.export(model, (example,), dynamic_shapes=({0: Dim.AUTO},))
for module, training in zip(model.modules(), modes):
    module.training = training
return program""", "An example of one image gives a program for one image"),
        W("eval, and a static batch", """
modes = [module.training for module in model.modules()]
model.eval()
program = torch.export.export(model, (example,))
for module, training in zip(model.modules(), modes):
    module.training = training
return program""", "The batch is fixed"),
        W("a Dim bounded by the example's size", f"""
modes = [module.training for module in model.modules()]
{_TWO}model.eval()
program = torch.export.export(model, (example,), dynamic_shapes=(
    {{0: Dim("batch", max=len(example))}},))
for module, training in zip(model.modules(), modes):
    module.training = training
return program""", "a bound fitted to the example"),
        W("eval, export, modes put back, but the parameters frozen for the export", f"""
modes = [m.training for m in model.modules()]
for p in model.parameters():
    p.requires_grad_(False)
model.eval()
{_TWO}program = torch.export.export(model, (example,), {_DYN})
for m, t in zip(model.modules(), modes):
    m.training = t
return program""", "no longer require grad"),
        W("a trial forward pass before eval (BatchNorm's statistics move)", f"""
modes = [m.training for m in model.modules()]
{_TWO}model(example)
model.eval()
program = torch.export.export(model, (example,), {_DYN})
for m, t in zip(model.modules(), modes):
    m.training = t
return program""", "updates BatchNorm's running statistics"),
    )),
    Exercise(EXPORT, "export_brightness", right=(
        R("the scale as a tensor, Dim.AUTO, a batch of 64", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = torch.clamp(x, min=0)
        return self.net(x / torch.clamp(x.max(), min=1e-6))

return torch.export.export(Scaled(model.net).eval(), (X_test[:64],),
                           dynamic_shapes={"x": {0: Dim.AUTO}})"""),
        R("torch.maximum with a tensor floor, exported from bright images", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, images):
        images = images.relu()
        floor = torch.tensor(1e-6)
        return self.net(images / torch.maximum(images.amax(), floor))

return torch.export.export(Scaled(model.net).eval(), (X_test[:16] * 3,),
                           dynamic_shapes=({0: Dim("n")},))"""),
        R("relu, the batch's brightest pixel over every axis, a floor with clamp_min", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, pixels):
        pixels = torch.relu(pixels)
        brightest = pixels.amax(dim=(0, 1, 2, 3)).clamp_min(1e-6)
        return self.net(pixels / brightest)

return torch.export.export(Scaled(model.net).eval(), (X_test[:32] * 5,),
                           dynamic_shapes=({0: Dim.DYNAMIC},))"""),
    ), wrong=(
        W("the colleague's deployment as it is", "return colleague_deploy(model)",
          "legacy, deprecated path"),
        W("torch.export of the wrapper as it is",
          'return torch.export.export(model, (X_test[:8],), '
          'dynamic_shapes=({0: Dim("batch")},))',
          "refuses to turn a tensor into a Python number"),
        W("the net alone: no scaling at all", """
return torch.export.export(model.net, (X_test[:8],), dynamic_shapes=({0: Dim("batch")},))""",
          "a number computed from the export's example", hides=True),
        W(".item() in the scale", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = x.clamp(min=0)
        return self.net(x / max(x.amax().item(), 1e-6))

return torch.export.export(Scaled(model.net).eval(), (X_test[:8],),
                           dynamic_shapes=({0: Dim("batch")},))""",
          "refuses to turn a tensor into a Python number"),
        W("the scale as a tensor, a static batch", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = x.clamp(min=0)
        return self.net(x / x.amax().clamp(min=1e-6))

return torch.export.export(Scaled(model.net).eval(), (X_test[:8],))""",
          "the batch dimension is not dynamic"),
        W("the scale per image (the colleague's is per batch)", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = x.clamp(min=0)
        top = x.amax(dim=(1, 2, 3), keepdim=True).clamp(min=1e-6)
        return self.net(x / top)

return torch.export.export(Scaled(model.net).eval(), (X_test[:8],),
                           dynamic_shapes=({0: Dim("batch")},))""",
          "The program disagrees with the model on"),
        W("no floor under the brightest pixel: a blank batch gives NaN", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = x.clamp(min=0)
        return self.net(x / x.amax())

return torch.export.export(Scaled(model.net).eval(), (X_test[:8],),
                           dynamic_shapes=({0: Dim("batch")},))""",
          "on a batch with no pixel above 0"),
        W("the negative pixels kept", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x / x.amax().clamp(min=1e-6))

return torch.export.export(Scaled(model.net).eval(), (X_test[:8],),
                           dynamic_shapes=({0: Dim("batch")},))""",
          "negative pixels: the wrapper sets them to 0"),
        W("scaled by the largest absolute value", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x.clamp(min=0) / x.abs().amax().clamp(min=1e-6))

return torch.export.export(Scaled(model.net).eval(), (X_test[:8],),
                           dynamic_shapes=({0: Dim("batch")},))""",
          "negative pixels: the wrapper sets them to 0"),
        W("the notebook's net instead of model.net", """
class Scaled(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = x.clamp(min=0)
        return self.net(x / x.amax().clamp(min=1e-6))

return torch.export.export(Scaled(net).eval(), (X_test[:8],),
                           dynamic_shapes=({0: Dim("batch")},))""",
          "export the network of the model it is given"),
        W("the wrapper's own forward patched with a scale per image (the check must not "
          "compare with the patched model)", """
import types


def forward(self, x):
    x = x.clamp(min=0)
    return self.net(x / x.amax(dim=(1, 2, 3), keepdim=True).clamp(min=1e-6))


model.forward = types.MethodType(forward, model)
return torch.export.export(model, (X_test[:8],), dynamic_shapes=({0: Dim("batch")},))""",
          "it rescales image by image", cleanup="brightness.__dict__.pop('forward', None)"),
    )),
]
