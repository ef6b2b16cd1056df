"""Catalogue entries taught in the Autograd chapter (``book/autograd``): the graph, what it
saves, and what may not be changed in place.
"""

from __future__ import annotations

from ..entry import Entry

#: The section that teaches each entry: "book/<page>.ipynb#<heading-anchor>"
#: (one format for every chapter reference; tests/book/test_chapter_refs.py).
SWITCHING_OFF = ("book/autograd.ipynb"
                 "#switching-autograd-off-detach-no_grad-inference_mode")
RETAIN_GRAPH = "book/autograd.ipynb#retain_graph-the-graph-is-freed-by-backward"
IN_PLACE = "book/autograd.ipynb#in-place-operations-that-break-backward"
SCALAR = "book/autograd.ipynb#backward-needs-a-scalar-or-a-gradient"

ENTRIES = [
    Entry(
        name="autograd.no_grad_fn",
        kind="no_grad_fn",
        patterns=[
            r"element (?P<index>\d+) of tensors does not require grad and does not have a grad_fn",
            r"does not require grad and does not have a grad_fn",
            r"One of the differentiated Tensors does not require grad",
        ],
        keywords=[r"does not have a grad_fn|doesn'?t require grad"],
        summary="backward() was called on a tensor that is not connected to anything that requires grad",
        causes=["the loss was computed under torch.no_grad() or torch.inference_mode()",
                "the graph was cut: .detach(), .item(), .numpy() or torch.tensor(...) on an "
                "intermediate result",
                "the parameters were frozen (requires_grad=False) or never registered"],
        fixes=["compute the training loss outside torch.no_grad()",
               "keep the loss a tensor built from the model's output with torch ops",
               "check: print(loss.requires_grad, loss.grad_fn)"],
        chapter=SWITCHING_OFF,
    ),
    Entry(
        name="autograd.inference_tensor",
        kind="no_grad_fn",
        patterns=[r"Inference tensors cannot be saved for backward",
                  r"Inplace update to inference tensor outside InferenceMode"],
        # issue titles: "Inference Tensor Saved for Backward", "Inferences tensors can't be saved"
        terms=["inference|inferences tensor|tensors saved|save|saving"],
        summary="a tensor created under torch.inference_mode() was used in code that autograd tracks",
        causes=["a batch, a buffer or a cached result computed under torch.inference_mode() reused for training"],
        fixes=["compute it outside inference_mode, or make a normal tensor from it: t = t.clone()",
               "use torch.no_grad() instead of inference_mode() for results that training reuses"],
        chapter=SWITCHING_OFF,
    ),
    Entry(
        name="autograd.backward_twice",
        kind="backward_twice",
        patterns=[
            r"Trying to backward through the graph a second time",
            r"Specify retain_graph=True (?:when calling backward the first time|if you need to backward)",
            r"saved (?:intermediate (?:values|results)|tensors?|buffers?) .{0,60}(?:already been freed|have been freed)",
        ],
        summary="backward() ran a second time through a graph whose saved tensors were already freed",
        causes=["loss.backward() called twice on the same loss, or on a loss that reuses a graph "
                "from a previous step (e.g. a hidden state carried between batches without detach())",
                "a tensor computed once outside the loop (a running total, an embedding lookup) used "
                "in every step's loss"],
        fixes=["recompute the forward pass every step",
               "detach state carried across steps: hidden = hidden.detach()",
               "retain_graph=True only if you really need two backward passes through one graph"],
        chapter=RETAIN_GRAPH,
    ),
    Entry(
        name="autograd.inplace_modified",
        kind="inplace_modified",
        # a title that keeps only the middle, or a translation ("就地操作": in-place operation)
        terms=["variables needed gradient modified inplace|in-place", "梯度 就地操作|原地操作"],
        patterns=[
            r"modified by an inplace operation: \[(?P<tensor_type>[\w.]+) \[(?P<shape>[^\]]*)\]\], which is "
            r"output (?P<output>\d+) of (?P<op>\w+), is at version (?P<version>\d+); expected version (?P<expected>\d+)",
            r"one of the variables needed for gradient computation has been modified by an inplace operation",
            r"is a view and (?:is being|its base or another view of its base has been) modified inplace",
        ],
        summary="the output of {op} (shape [{shape}]) was changed in place after autograd saved it "
        "(version {version}, expected {expected})",
        fallback="a tensor that autograd saved for the backward pass was changed in place",
        causes=["an in-place op (x += ..., x.add_(...), relu(inplace=True), x[idx] = ...) on a tensor "
                "that an earlier op needs for its gradient",
                "an optimizer.step() between the forward pass and backward()"],
        fixes=["use the out-of-place form: x = x + y, x = torch.relu(x), x = x.clone() before editing",
               "the op named in the message (…Backward / 'output 0 of X') tells which tensor; "
               "torch.autograd.set_detect_anomaly(True) shows the forward line that created it"],
        chapter=IN_PLACE,
    ),
    Entry(
        name="autograd.leaf_inplace",
        kind="leaf_inplace",
        patterns=[r"a (?P<view>view of a )?leaf Variable that requires grad (?:is being|has been) used in "
                  r"an in-place operation",
                  r"leaf variable has been moved into the graph interior"],  # the 0.3-0.4 wording
        keywords=[r"leaf (?:Variable|tensor).{0,40}in-?place"],
        summary="an in-place change to a leaf tensor that requires grad (a parameter or an input "
        "with requires_grad=True)",
        causes=["updating weights by hand (w -= lr * w.grad) outside torch.no_grad()",
                "initialising or clipping a parameter in place (w.fill_, w[0] = ...) while grad is tracked"],
        fixes=["wrap manual updates in with torch.no_grad(): w -= lr * w.grad",
               "use the nn.init functions, or do the edit under torch.no_grad()"],
        chapter=IN_PLACE,
    ),
    Entry(
        name="autograd.numpy_requires_grad",
        kind="numpy_conversion",
        patterns=[r"Can'?t call numpy\(\) on (?:Tensor|Variable) that requires grad"],
        summary="the tensor requires grad, so .numpy() refuses it: detach it from the graph first",
        causes=["a model output, a loss or a parameter passed to NumPy / matplotlib / sklearn"],
        fixes=["t.detach().cpu().numpy() (in that order)",
               "or compute it under torch.no_grad() when no gradient is needed (evaluation, plotting)"],
        chapter=SWITCHING_OFF,
    ),
    Entry(
        name="autograd.scalar_outputs",
        kind="shape_mismatch",
        patterns=[r"grad can be implicitly created only for scalar outputs"],
        summary="backward() was called on a tensor with more than one element",
        causes=["the loss was not reduced to a single number (reduction='none', or a per-sample loss)"],
        fixes=["reduce it: loss.mean().backward() (or pass gradient=torch.ones_like(loss))"],
        chapter=SCALAR,
    ),
]
