"""Right and wrong answers to the exercises of labs/lab-export.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-export.ipynb"

EXPORT = "labs/lab-export.ipynb"
_EXPORT_DYN = 'dynamic_shapes={"input": {0: Dim("batch")}}'

EXERCISES: list[Exercise] = [
    Exercise(EXPORT, "export_scanner", right=(
        R("torch.jit.script compiles the if (legacy)",
          "with export_warnings():\n    return torch.jit.script(scanner)"),
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
        R("torch.where, then a trace", """
class BranchFree(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x / torch.where(x.max() > 1, 16.0, 1.0))

with export_warnings():
    return torch.jit.trace(BranchFree(scanner.net).eval(), X_test[:8])"""),
    ), wrong=(
        W("re-tracing on a scanner batch", "return torch.jit.trace(scanner, X_test[:8] * 16)",
          "re-tracing on a scanner batch only moves the bug", hides=True),
        W("the model itself", "return scanner", "not the model itself", hides=True),
        W("torch.export of the Scanner as it is",
          "return torch.export.export(scanner, (X_test[:8],))",
          "torch.export refuses a Python if"),
        W("a trace on a real 0..1 batch instead of blank images",
          "return torch.jit.trace(scanner, X_test[:8])",
          "A trace records the branch its example took"),
    )),
    Exercise(EXPORT, "export_onnx_dynamic", right=(
        R("a torch.export.Dim instead of a name", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      dynamic_shapes={"input": {0: Dim("batch")}},
                      opset_version=18, external_data=False, verbose=False)"""),
        R("dynamic_shapes by position", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      dynamic_shapes=({0: "batch"},),
                      opset_version=18, external_data=False, verbose=False)"""),
    ), wrong=(
        W("exported from a batch of 1", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:1],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      opset_version=18, external_data=False, verbose=False)""",
          "Exporting with a batch of 1 only moves the bug", hides=True),
        W("dynamic_shapes keyed by another name", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      input_names=["pixels"], output_names=["logits"],
                      dynamic_shapes={"x": {0: "batch"}},
                      opset_version=18, external_data=False, verbose=False)""",
          "dynamic_shapes is keyed by the name of forward's argument"),
        W("input_names left out", """
with export_warnings():
    torch.onnx.export(model.eval(), (X_test[:64],), path, dynamo=True,
                      output_names=["logits"], dynamic_shapes={"input": {0: "batch"}},
                      opset_version=18, external_data=False, verbose=False)""",
          "the input must still be called 'pixels'"),
        W("the export of 2.1 again", "export_onnx(model, path)", "The batch axis is still fixed"),
    )),
    Exercise(EXPORT, "export_for_serving", right=(
        R("model.train(False), dynamic_shapes by position", """
model.train(False)
return torch.export.export(model, (example,), dynamic_shapes=({0: Dim("batch")},))"""),
    ), wrong=(
        W(".eval() after exporting", f"""
program = torch.export.export(model, (example,), {_EXPORT_DYN})
model.eval()
return program""", "Calling .eval() after exporting changes the model, not the export",
          hides=True),
        W("torch.no_grad() instead of eval()", f"""
with torch.no_grad():
    return torch.export.export(model, (example,), {_EXPORT_DYN})""",
          "torch.no_grad() is not eval mode"),
        W("eval, but a static batch", """
model.eval()
return torch.export.export(model, (example,))""", "the batch is fixed"),
        W("exported from one image", f"""
model.eval()
return torch.export.export(model, (example[:1],), {_EXPORT_DYN})""",
          "a batch of 1 cannot be made dynamic"),
    )),
]
