"""Right and wrong answers to the exercises of labs/lab-device.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-device.ipynb"
DEVICE = LAB

_POOL = """
batch, length, _ = x.shape
position = {position} / length
position = position.expand(batch, length).unsqueeze(-1)
h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
weights = {weights} / length
return self.head((h * weights[None, :, None]).sum(dim=1))
"""


def pool_answer(position="torch.arange(length, device=x.device)",
                weights="torch.ones(length, device=x.device)"):
    return _POOL.format(position=position, weights=weights)


_VALID = """
if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype == torch.bool:
    raise ValueError(f"labels must be integer class indices, got dtype {{labels.dtype}}")
{body}
"""
_RANGE = """bad = (labels < 0) | (labels >= num_classes)
if bad.any():
    raise ValueError(f"labels outside 0..{num_classes - 1}: {torch.unique(labels[bad]).tolist()}")"""

_LOSS = """
class Repaired(SmoothedWeightedLoss):
    def __call__(self, logits, labels):
        batch, classes = logits.shape
        target = {target}
        target[torch.arange(batch), labels] = 1 - self.smoothing
        per_sample = -(target * F.log_softmax(logits, dim=1)).sum(dim=1)
        return (per_sample * {weights}[labels]).mean()

return Repaired(class_counts)
"""

EXERCISES: list[Exercise] = [
    # ================================================================== lab-device
    Exercise(DEVICE, "device_train_step", right=(
        R("model = model.to(device), then each tensor",
          "model = model.to(device)\nx = x.to(device)\ny = y.to(device)"),
        R("a generator over the batch", "model.to(device)\nx, y = (t.to(device) for t in (x, y))"),
        R("non_blocking=True", "model.to(device)\nx = x.to(device, non_blocking=True)\n"
          "y = y.to(device, non_blocking=True)"),
        R("model.to(device=...), the batch through a list", "model.to(device=device)\n"
          "x, y = [t.to(device) for t in (x, y)]"),
        R("the labels moved to wherever x went", "model.to(device)\nx = x.to(device)\ny = y.to(x.device)"),
    ), wrong=(
        W("x.to(device) without assigning the result", "model.to(device)\nx.to(device)\ny.to(device)",
          "x.to(device) returns a moved copy"),
        W("the labels left behind", "model.to(device)\nx = x.to(device)", "The labels stay where they were"),
        W("the batch moved, not the model", "x, y = x.to(device), y.to(device)",
          "The model stays where it was"),
        W("the lab's global OTHER instead of the device argument",
          "model.to(OTHER)\nx, y = x.to(OTHER), y.to(OTHER)", "not to the lab's OTHER"),
        W("a moved copy of the model: the optimizer updates the original",
          "model = copy.deepcopy(model).to(device)\nx, y = x.to(device), y.to(device)",
          "a copy of it was trained"),
        W(".cuda() hard-coded", "model.to(device)\nx, y = x.cuda(), y.cuda()",
          "A hard-coded 'cuda' (or .cuda()) is not `device`"),
        W("the model and the labels moved to where x is", "model.to(x.device)\ny = y.to(x.device)",
          "to where the model or x already is"),
        W("everything moved to the CPU", "model.to('cpu')\nx, y = x.cpu(), y.cpu()",
          "moving everything to the CPU (or to where the model or x already is) hides the error",
          hides=True),
        W("the batch moved to the model's device, the model left",
          "here = next(model.parameters()).device\nx, y = x.to(here), y.to(here)",
          "hides the error", hides=True),
    )),
    Exercise(DEVICE, "device_forward", right=(
        R(".to(x.device) after creating", pool_answer(
            position="torch.arange(length).to(x.device)", weights="torch.ones(length).to(x.device)")),
        R("x.new_ones and torch.arange(..., device=x.device)", pool_answer(weights="x.new_ones(length)")),
        R("ones_like a slice of x", pool_answer(weights="torch.ones_like(x[0, :, 0])")),
        R("a mean over the steps instead of the weights", """
batch, length, _ = x.shape
position = torch.arange(length, device=x.device) / length
position = position.expand(batch, length).unsqueeze(-1)
h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
return self.head(h.mean(dim=1))
"""),
        R(".to(x): x's device and dtype", pool_answer(position="torch.arange(length).to(x)",
                                                    weights="torch.ones(length).to(x)")),
    ), wrong=(
        W("new tensors created on the default device (the bug)", pool_answer(
            position="torch.arange(length)", weights="torch.ones(length)"),
          "is still born on the CPU, whatever device x is on"),
        W("only the first factory call fixed", pool_answer(weights="torch.ones(length)"),
          "is still born on the CPU, whatever device x is on"),
        W("the lab's OTHER device hard-coded", pool_answer(
            position="torch.arange(length, device=OTHER)", weights="torch.ones(length, device=OTHER)"),
          "or a hard-coded 'cuda' is not the input's device"),
        W("the example's batch (4) hard-coded", pool_answer().replace(
            "expand(batch, length)", "expand(4, length)"), "read batch and length from x.shape"),
        W("the example's length (5) hard-coded in the weights",
          pool_answer(weights="torch.ones(5, device=x.device)"), "read batch and length from x.shape"),
        W("the module and x moved to the CPU inside forward, the output moved back", """
here = x.device
self.cpu()
x = x.cpu()
batch, length, _ = x.shape
position = torch.arange(length) / length
position = position.expand(batch, length).unsqueeze(-1)
h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
weights = torch.ones(length) / length
return self.head((h * weights[None, :, None]).sum(dim=1)).to(here)
""", "forward copied something from meta to the CPU", hides=True),
        W("float64 positions", pool_answer(
            position="torch.arange(length, device=x.device, dtype=torch.float64)"),
          "A dtype mismatch"),
        W("the error caught, a placeholder returned", """
try:
    batch, length, _ = x.shape
    position = torch.arange(length) / length
    position = position.expand(batch, length).unsqueeze(-1)
    h = torch.relu(self.proj(torch.cat([x, position], dim=-1)))
    weights = torch.ones(length) / length
    return self.head((h * weights[None, :, None]).sum(dim=1))
except RuntimeError:
    return torch.zeros(x.shape[0], 3, device=x.device)
""", "returning a placeholder, or moving x elsewhere, hides the bug", hides=True),
    )),
    Exercise(DEVICE, "device_validate_labels", right=(
        R("min and max", _VALID.format(body="""if labels.numel() and (labels.min() < 0 or labels.max() >= num_classes):
    bad = labels[(labels < 0) | (labels >= num_classes)]
    raise ValueError(f"bad labels {torch.unique(bad).tolist()} (classes 0..{num_classes - 1})")""")),
        R("a TypeError for the wrong dtype", _VALID.replace("raise ValueError(f\"labels must", "raise TypeError(f\"labels must")
          .format(body=_RANGE)),
        R("any integer dtype; the bad values sorted in the message", """
if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype == torch.bool:
    raise TypeError(f"labels must be integers, got {labels.dtype}")
bad = labels[(labels < 0) | (labels >= num_classes)]
if bad.numel():
    raise ValueError(f"labels {sorted(set(bad.tolist()))} not in 0..{num_classes - 1}")
"""),
        R("an allowed-dtype set", """
if labels.dtype not in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
    raise ValueError(f"labels must be integer class indices, got {labels.dtype}")
""" + _RANGE),
    ), wrong=(
        W("checking the largest label only", """
if labels.max() >= num_classes:
    raise ValueError(f"label {labels.max().item()} is not a class index 0..{num_classes - 1}")""",
          "are out of range too"),
        W("floating-point labels refused, booleans not", """
if labels.dtype.is_floating_point:
    raise ValueError(f"labels must be integer class indices, got dtype {labels.dtype}")
""" + _RANGE, "are not class indices either"),
        W("labels clamped in place", "labels.clamp_(0, num_classes - 1)",
          "do not clamp or repair them", hides=True),
        W("labels shifted in place when they look 1-based",
          "if labels.max() == num_classes:\n    labels -= 1", "do not clamp or repair them", hides=True),
        W("off by one: labels > num_classes refused, label 10 passes",
          _VALID.format(body=_RANGE.replace(">= num_classes", "> num_classes")),
          "not only > num_classes"),
        W("an assert instead of ValueError", "assert labels.max() < num_classes and labels.min() >= 0, "
          "'labels out of range'", "raise ValueError, not assert"),
        W("a printed warning", "if labels.max() >= num_classes or labels.min() < 0:\n"
          "    print('warning: labels out of range')", "printing or warning lets training go on",
          hides=True),
        W("a message without the values", _VALID.format(body="""if ((labels < 0) | (labels >= num_classes)).any():
    raise ValueError("some labels are out of range")"""), "must name the bad value 10"),
        W("the example's 10 classes hard-coded", _VALID.format(body=_RANGE.replace(
            ">= num_classes", ">= 10")), "not with the example's 10"),
        W("the message names the range, not the bad values", _VALID.format(body="""if labels.min() < 0 or labels.max() >= num_classes:
    raise ValueError(f"labels must be in 0..{num_classes} (exclusive)")"""),
          "the message must name the bad values, 12 and -3"),
        W("int64 labels only (int32 refused)", """
if labels.dtype != torch.int64:
    raise ValueError(f"labels must be int64 class indices, got dtype {labels.dtype}")
""" + _RANGE, "are class indices too"),
        W("only the first 100 labels checked", _VALID.format(body=_RANGE.replace(
            "bad = (labels < 0) | (labels >= num_classes)",
            "labels = labels[:100]\nbad = (labels < 0) | (labels >= num_classes)")),
          "check every label, not only the first ones"),
        W("True or False returned instead of raising", """
if labels.dtype.is_floating_point or labels.dtype == torch.bool:
    return False
return bool(((labels >= 0) & (labels < num_classes)).all())
""", "a return value is easy to ignore", hides=True),
    )),
    Exercise(DEVICE, "device_smoothed_loss", right=(
        R("torch.full(..., device=...), the weights moved where the labels are",
          _LOSS.format(target="torch.full((batch, classes), self.smoothing / (classes - 1), "
                       "device=logits.device)",
                       weights="self.weights.to(labels.device)")),
        R("F.one_hot targets, the weights moved once and kept", """
class Repaired(SmoothedWeightedLoss):
    def __call__(self, logits, labels):
        classes = logits.shape[1]
        self.weights = self.weights.to(logits.device)
        off = self.smoothing / (classes - 1)
        target = F.one_hot(labels, classes).to(logits.dtype) * (1 - self.smoothing - off) + off
        per_sample = -(target * F.log_softmax(logits, dim=1)).sum(dim=1)
        return (per_sample * self.weights[labels]).mean()

return Repaired(class_counts)
"""),
        R("the colleague's call under the logits' device as the default device", """
class Repaired(SmoothedWeightedLoss):
    def __call__(self, logits, labels):
        self.weights = self.weights.to(logits.device)
        with logits.device:
            return super().__call__(logits, labels)

return Repaired(class_counts)
"""),
    ), wrong=(
        W("the colleague's loss as it is", "return SmoothedWeightedLoss(class_counts)",
          "A tensor created inside the call is born on the CPU"),
        W("the target fixed, the class weights left on the CPU", _LOSS.format(
            target="torch.full((batch, classes), self.smoothing / (classes - 1), "
            "device=logits.device)", weights="self.weights"),
          "made when the loss was built, stays on the CPU"),
        W("the class weights moved, the target left on the CPU", _LOSS.format(
            target="torch.full((batch, classes), self.smoothing / (classes - 1))",
            weights="self.weights.to(logits.device)"),
          "A tensor created inside the call is born on the CPU"),
        W("logits and labels moved to the CPU inside the loss", """
class Repaired(SmoothedWeightedLoss):
    def __call__(self, logits, labels):
        return super().__call__(logits.cpu(), labels.cpu()).to(logits.device)

return Repaired(class_counts)
""", "copied something from meta to the CPU", hides=True),
        W("the class weights dropped", """
class Repaired(SmoothedWeightedLoss):
    def __call__(self, logits, labels):
        batch, classes = logits.shape
        target = logits.new_full((batch, classes), self.smoothing / (classes - 1))
        target[torch.arange(batch), labels] = 1 - self.smoothing
        return -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean()

return Repaired(class_counts)
""", "the loss differs from the colleague's", hides=True),
        W("the target created on the lab's OTHER", _LOSS.format(
            target="torch.full((batch, classes), self.smoothing / (classes - 1), device=OTHER)",
            weights="self.weights.to(OTHER)"),
          "a hard-coded device (the lab's OTHER"),
        W("the class weights moved to OTHER when the loss is built", """
loss = SmoothedWeightedLoss(class_counts)
loss.weights = loss.weights.to(OTHER)
return loss
""", "a hard-coded device (the lab's OTHER"),
        W("a placeholder when the loss fails", """
class Repaired(SmoothedWeightedLoss):
    def __call__(self, logits, labels):
        try:
            return super().__call__(logits, labels)
        except RuntimeError:
            return (logits * 0).sum()

return Repaired(class_counts)
""", "a placeholder returned where the real loss fails", hides=True),
    )),
]
