"""Right and wrong answers to the exercises of labs/lab-tensors.ipynb (see __init__.py)."""

from __future__ import annotations

from .answer import Exercise, R, W

LAB = "labs/lab-tensors.ipynb"
TENSORS = LAB

EXERCISES: list[Exercise] = [
    # ================================================================== lab-tensors
    Exercise(TENSORS, "predict_float32", right=(
        R("torch.from_numpy(array).float()", "return model(torch.from_numpy(array).float())"),
        R("torch.tensor(array, dtype=torch.float32)",
          "return model(torch.tensor(array, dtype=torch.float32))"),
        R("array.astype(np.float32)", "return model(torch.from_numpy(array.astype(np.float32)))"),
        R(".to(torch.float32)", "return model(torch.as_tensor(array).to(torch.float32))"),
        R("under torch.no_grad(), as predictions are",
          "with torch.no_grad():\n"
          "    return model(torch.as_tensor(array, dtype=torch.float32))"),
        R("the output detached", "return model(torch.as_tensor(array).float()).detach()"),
    ), wrong=(
        W("model.double() instead of converting the data",
          "model.double()\nreturn model(torch.as_tensor(array))",
          "model.double() hides the error", hides=True),
        W("torch.tensor(array) keeps NumPy's float64",
          "return model(torch.tensor(array))",
          "torch.from_numpy and torch.tensor keep NumPy's float64"),
        W("a float64 deep copy of the model, output cast back",
          "twin = copy.deepcopy(model).double()\n"
          "return twin(torch.from_numpy(array)).float()",
          "The model itself never received the data", hides=True),
        W("float64 converted, integer arrays left as they are",
          "x = torch.from_numpy(array)\n"
          "if x.dtype == torch.float64:\n    x = x.float()\nreturn model(x)",
          "Integer arrays (int64, e.g. counts) must be converted too"),
        W("converted to float16",
          "return model(torch.as_tensor(array).half())",
          "convert the data to float32 where it enters"),
        W("the output cast to float64",
          "return model(torch.as_tensor(array, dtype=torch.float32)).double()",
          "forward_numpy should return a float32 tensor"),
        W("the example's 16 rows kept",
          "return model(torch.as_tensor(array[:16], dtype=torch.float32))",
          "rows or columns were cut to the example's size"),
        W("the model switched to eval mode on the way",
          "model.eval()\nreturn model(torch.as_tensor(array, dtype=torch.float32))",
          "switched the model between training and evaluation mode"),
    )),
    Exercise(TENSORS, "residual_shape", right=(
        R("pred[:, 0]", "return pred[:, 0] - target"),
        R("pred.view(-1)", "return pred.view(-1) - target"),
        R("pred.flatten()", "return pred.flatten() - target"),
        R("pred.squeeze(-1)", "return pred.squeeze(-1) - target"),
        R("pred.squeeze() (a (1,) target still broadcasts to (1,))",
          "return pred.squeeze() - target"),
        R("the diagonal of the broadcast table", "return torch.diagonal(pred - target)"),
    ), wrong=(
        W("pred - target, the broadcast bug", "return pred - target",
          "(6, 6) is the broadcast bug"),
        W("the target unsqueezed instead", "return pred - target.unsqueeze(1)",
          "(6, 1) means you unsqueezed the target"),
        W("pred.T", "return pred.T - target", "pred.T (a transpose) still keeps two axes"),
        W("the (N, N) table averaged over one axis", "return (pred - target).mean(dim=1)",
          "Right shape, wrong errors", hides=True),
        W("detached", "return pred.detach().squeeze(1) - target",
          "The residual must stay in the graph", hides=True),
        W("squeeze on the wrong axis", "return pred.squeeze(0) - target",
          "the column is axis 1"),
        W("the example's batch size hard-coded", "return pred.view(5) - target",
          "do not hard-code the batch size"),
        W("squeeze() after the transpose: () for a batch of one",
          "return (pred.T - target).squeeze()",
          "squeeze() with no axis removes every axis of size 1"),
        W("squeeze_ in place on pred", "return pred.squeeze_(1) - target",
          "an in-place operation (squeeze_, sub_, -=) on pred"),
    )),
    Exercise(TENSORS, "per_step_layout", right=(
        R("permute(0, 2, 1)", "return x.permute(0, 2, 1).reshape(-1, x.shape[1])"),
        R(".contiguous().view", "return x.transpose(1, 2).contiguous().view(-1, x.shape[1])"),
        R("flatten(0, 1)", "return x.transpose(1, 2).flatten(0, 1)"),
        R("x.mT", "return x.mT.reshape(-1, x.shape[1])"),
    ), wrong=(
        W("view after the transpose (the bug)", "return x.transpose(1, 2).view(-1, x.shape[1])",
          "view never copies, so it refuses a tensor whose memory"),
        W("reshape without transposing", "return x.reshape(-1, x.shape[1])",
          "without transposing first mixes time steps and channels", hides=True),
        W(".contiguous().view without transposing", "return x.contiguous().view(-1, x.shape[1])",
          "without transposing first mixes time steps and channels", hides=True),
        W("permute that puts time before the batch",
          "return x.permute(2, 0, 1).reshape(-1, x.shape[1])",
          "the permute put time before the batch"),
        W("T as the columns", "return x.transpose(1, 2).reshape(-1, x.shape[2])",
          "the columns are the C channels"),
        W("the example's C hard-coded", "return x.transpose(1, 2).reshape(-1, 3)",
          "Take the sizes from x"),
        W("the example's sizes hard-coded in view", "return x.transpose(1, 2).reshape(10, 3)",
          "Take the sizes from x"),
        W("the example's T hard-coded, C inferred",
          "return x.transpose(1, 2).reshape(x.shape[0] * 5, -1)",
          "Take the sizes from x"),
        W("C read from the first input seen",
          "global _seen_c\n_seen_c = globals().get('_seen_c') or x.shape[1]\n"
          "return x.transpose(1, 2).reshape(-1, _seen_c)",
          "Take the sizes from x",
          cleanup="globals().pop('_seen_c', None)"),
        W("a NumPy round trip (the graph is cut)",
          "flat = x.detach().numpy().transpose(0, 2, 1).reshape(-1, x.shape[1])\n"
          "return torch.from_numpy(flat.copy())",
          "per_step breaks the graph"),
        W("the right rows, detached", "return x.transpose(1, 2).reshape(-1, x.shape[1]).detach()",
          "per_step breaks the graph"),
    )),
    Exercise(TENSORS, "signal_net", right=(
        R("mean(dim=2)", "class R(SignalNet):\n    def forward(self, x):\n"
          "        return self.head(torch.relu(self.conv(x)).mean(dim=2))\n\nreturn R()"),
        R("AdaptiveAvgPool1d then flatten",
          "class R(SignalNet):\n    def forward(self, x):\n"
          "        pooled = nn.AdaptiveAvgPool1d(1)(torch.relu(self.conv(x)))\n"
          "        return self.head(pooled.flatten(1))\n\nreturn R()"),
        R("transpose, then the old mean(dim=1)",
          "class R(SignalNet):\n    def forward(self, x):\n"
          "        features = torch.relu(self.conv(x)).transpose(1, 2)\n"
          "        return self.head(features.mean(dim=1))\n\nreturn R()"),
    ), wrong=(
        W("the colleague's model as it is", "return SignalNet()",
          "with the colleague's 8 steps every shape happened to fit"),
        W("the head resized to 12 steps",
          "model = SignalNet()\nmodel.head = nn.Linear(12, 2)\nreturn model",
          "resizing the head to the length of one recording", hides=True),
        W("features summed over time",
          "class R(SignalNet):\n    def forward(self, x):\n"
          "        return self.head(torch.relu(self.conv(x)).sum(dim=2))\n\nreturn R()",
          "the features are summed over time, not averaged"),
        W("the last time step instead of the average",
          "class R(SignalNet):\n    def forward(self, x):\n"
          "        return self.head(torch.relu(self.conv(x))[:, :, -1])\n\nreturn R()",
          "averaged over time (the colleague's docstring"),
        W("cropped to the colleague's 8 steps",
          "class R(SignalNet):\n    def forward(self, x):\n"
          "        return super().forward(x[:, :, :8])\n\nreturn R()",
          "with the colleague's 8 steps every shape happened to fit"),
        W("the average over time, detached before the head",
          "class R(SignalNet):\n    def forward(self, x):\n"
          "        pooled = torch.relu(self.conv(x)).mean(dim=2)\n"
          "        return self.head(pooled.detach())\n\nreturn R()",
          "conv's weights get no gradient from the output"),
    )),
]
