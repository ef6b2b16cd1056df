"""ice_lab.lint's data-flow model: rules that decide on behaviour, not names.

Each test is a minimal synthetic reproduction (written here, not copied) of a bug shape
seen in real scripts of the fresh corpus of benchmarks/lint_corpus.md: evaluation in a
helper not called "eval", a softmax built in a factory, a criterion passed as a
parameter, a device string in a module-level name, a cosine schedule stepped per batch.
Each has its near miss, which must stay silent.
"""

from __future__ import annotations

import ast
import textwrap

from ice_lab.lint import lint_file, lint_source
from ice_lab.lint._ast import Source
from ice_lab.lint.flow import flow_of

HEAD = """\
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader
model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4), 0)] * 8
train_loader = DataLoader(data, batch_size=4, shuffle=True)
held_out = DataLoader(data, batch_size=4)
"""


def found(body: str) -> list[tuple[int, str]]:
    """(line in ``body``, code) of every finding in HEAD + body."""
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_source(HEAD + textwrap.dedent(body))
            if f.line > offset]


def test_flow_follows_factories_parameters_and_returns():
    tree = ast.parse(HEAD + textwrap.dedent("""\
        def make():
            return nn.Sequential(nn.Linear(4, 2), nn.Softmax(dim=1))
        net = make()
        def run(m, batch):
            out = m(batch)
            return out
        probs = run(net, 1)
        """))
    src = Source.parse(tree)
    flow = flow_of(src)
    values = {ast.unparse(n.targets[0]): n.value for n in src.nodes if isinstance(n, ast.Assign)}
    assert flow.kinds(values["net"]) == {"model"}
    assert flow.kinds(values["probs"]) == {"probs"}
    assert flow.kinds(values["optimizer"]) == {"optimizer"}
    assert flow.kinds(values["held_out"]) == {"loader"}


def test_evaluation_by_behaviour_in_a_helper_with_any_name():
    body = """\
        def get_loss(net, loader):
            total = 0.0
            for x, y in loader:
                total += F.cross_entropy(net(x), y).item()
            return total
        for epoch in range(2):
            model.train()
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
            print(get_loss(model, held_out))
        """
    assert found(body) == [(1, "ICE104"), (3, "ICE104")]
    guarded = body.replace("            print(get_loss(model, held_out))",
                           "            model.eval()\n"
                           "            with torch.no_grad():\n"
                           "                print(get_loss(model, held_out))")
    assert found(guarded) == []


def test_validation_inline_over_a_loader_not_named_val():
    body = """\
        for epoch in range(2):
            model.train()
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
            model.eval()
            for x, y in held_out:
                print(F.cross_entropy(model(x), y).item())
        """
    assert found(body) == [(9, "ICE104")]
    assert found(body.replace("            for x, y in held_out:",
                              "            with torch.no_grad():\n"
                              "              for x, y in held_out:")) == []


def test_a_loop_over_folds_that_calls_a_training_function_is_not_an_evaluation():
    body = """\
        def fit():
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
        def make_model():
            return model
        for test_fold in range(5):
            net = make_model()
            fit()
        """
    assert found(body) == []


def test_softmax_from_a_factory_reaches_a_criterion_passed_as_a_parameter():
    body = """\
        def build():
            return nn.Sequential(nn.Linear(4, 2), nn.Softmax(dim=1))
        def step(net, criterion, x, y):
            return criterion(net(x), y)
        net = build()
        step(net, nn.CrossEntropyLoss(), torch.randn(2, 4), torch.tensor([0, 1]))
        """
    assert found(body) == [(4, "ICE102")]
    assert found(body.replace("nn.Softmax(dim=1)", "nn.ReLU()")) == []


def test_a_device_string_bound_once_and_a_check_never_called():
    body = """\
        device = "cuda"
        net = model.to(device)
        """
    assert found(body) == [(2, "ICE105")]
    assert found(body.replace('"cuda"', '"cuda" if torch.cuda.is_available() else "cpu"')) == []
    uncalled = 'dev = torch.device("cuda" if torch.cuda.is_available else "cpu")\n'
    assert found(uncalled) == [(1, "ICE105")]
    assert found(uncalled.replace("is_available", "is_available()")) == []


def test_cosine_annealing_counts_epochs():
    body = """\
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)
        for epoch in range(30):
            for x, y in train_loader:
                optimizer.zero_grad()
                F.cross_entropy(model(x), y).backward()
                optimizer.step()
                scheduler.step()
        """
    assert found(body) == [(7, "ICE107")]
    per_batch = body.replace("T_max=30", "T_max=30 * len(train_loader)")
    assert found(per_batch) == []


def test_training_after_eval_in_notebook_order():
    body = """\
        model.eval()
        print(model(torch.randn(1, 4)))
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        """
    assert found(body) == [(3, "ICE113")]
    assert found(body.replace("print(model(torch.randn(1, 4)))", "model.train()")) == []


def test_shuffle_true_reaching_a_validation_loader_through_a_dict_of_options():
    body = """\
        params = {"batch_size": 4, "shuffle": True}
        train_gen = DataLoader(data, **params)
        val_gen = DataLoader(data, **params)
        """
    assert found(body) == [(3, "ICE110")]
    assert found(body.replace('"shuffle": True', '"shuffle": False')) == []


def test_a_loss_sum_returned_to_callers_that_only_print_it():
    body = """\
        def train_epoch(net, loader):
            total = 0.0
            for x, y in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(net(x), y)
                loss.backward()
                optimizer.step()
                total += loss
            return total / len(loader)
        for epoch in range(2):
            avg = train_epoch(model, train_loader)
            print(f"{avg:.3f}")
        """
    assert found(body) == [(8, "ICE101")]
    backpropagated = body.replace('            print(f"{avg:.3f}")',
                                  "            avg.backward()")
    assert found(backpropagated) == []


def test_device_from_a_helper_that_may_return_cpu_is_not_hard_coded():
    body = """\
        def device_name():
            if torch.cuda.is_available():
                return "cuda"
            return "cpu"
        device = device_name()
        net = model.to(device)
        """
    assert found(body) == []


def test_a_data_transform_forward_may_make_cpu_tensors():
    body = """\
        class AddCounts(BaseTransform):
            def forward(self, data):
                return torch.zeros(3)
        class Net(nn.Module):
            def forward(self, x):
                return x + torch.zeros(3)
        """
    assert found(body) == [(6, "ICE105")]


def test_a_last_step_after_the_window_is_not_zero_grad_between_backward_and_step():
    body = """\
        for i, (x, y) in enumerate(train_loader):
            F.cross_entropy(model(x), y).backward()
            if (i + 1) % 4 == 0:
                optimizer.step()
                optimizer.zero_grad()
            if i + 1 == len(train_loader):
                optimizer.step()
                optimizer.zero_grad()
        """
    assert found(body) == []


def test_in_place_write_through_an_alias_and_a_slice():
    body = """\
        class Gate(nn.Module):
            def forward(self, x):
                h = torch.sigmoid(x)
                out = h
                out[:, 0] = 0
                return out
        """
    assert found(body) == [(5, "ICE109")]
    assert found(body.replace("out = h", "out = h.clone()")) == []


def test_one_function_for_training_and_evaluation_called_with_its_switch_off():
    body = """\
        def run_epoch(net, loader, is_train=True):
            total = 0.0
            for x, y in loader:
                loss = F.cross_entropy(net(x), y)
                if is_train:
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                total += loss.item()
            return total
        for epoch in range(2):
            model.train()
            run_epoch(model, train_loader)
            run_epoch(model, held_out, is_train=False)
        """
    assert found(body) == [(14, "ICE104")]
    handled = body.replace("            total = 0.0",
                           "            net.train(is_train)\n"
                           "            torch.set_grad_enabled(is_train)\n"
                           "            total = 0.0")
    assert found(handled) == []


def test_a_tensor_made_in_a_helper_that_forward_calls():
    body = """\
        def causal_mask(n):
            return torch.ones(n, n).tril()
        class Net(nn.Module):
            def forward(self, x):
                return x + causal_mask(x.shape[1])
        """
    assert found(body) == [(2, "ICE105")]
    moved = body.replace("causal_mask(x.shape[1])", "causal_mask(x.shape[1]).to(x.device)")
    assert found(moved) == []


def test_shuffle_added_to_the_options_with_update():
    body = """\
        options = {"batch_size": 4}
        options.update({"shuffle": True})
        test_gen = DataLoader(data, **options)
        """
    assert found(body) == [(3, "ICE110")]
    assert found(body.replace("test_gen", "train_gen")) == []


def test_a_model_imported_from_the_file_beside_the_script(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent("""\
        from torch import nn
        from torch.nn import functional as F
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)
            def forward(self, x):
                return F.log_softmax(self.fc(x), dim=1)
        """))
    train = textwrap.dedent("""\
        import torch
        from torch import nn
        from model import Net
        net = Net()
        criterion = nn.CrossEntropyLoss()
        loss = criterion(net(torch.randn(2, 4)), torch.tensor([0, 1]))
        """)
    (tmp_path / "train.py").write_text(train)
    assert [(f.line, f.code) for f in lint_file(tmp_path / "train.py")] == [(6, "ICE102")]
    assert lint_source(train) == []  # text alone: the file beside it is unknown
    (tmp_path / "right.py").write_text(train.replace("nn.CrossEntropyLoss()", "nn.NLLLoss()"))
    assert lint_file(tmp_path / "right.py") == []


def test_log_of_probabilities_that_arrive_as_a_parameter():
    body = """\
        def nll(p, y):
            return -torch.log(p).gather(1, y[:, None]).mean()
        logits = model(torch.randn(4, 4))
        print(nll(F.softmax(logits, dim=1), torch.tensor([0, 1, 0, 1])))
        """
    assert found(body) == [(2, "ICE108")]
    assert found(body.replace("F.softmax(logits, dim=1)", "logits")) == []


def test_a_dataset_attribute_changed_under_persistent_workers():
    body = """\
        train_set = torch.utils.data.TensorDataset(torch.randn(8, 4))
        loader = DataLoader(train_set, batch_size=4, num_workers=2, persistent_workers=True)
        for epoch in range(3):
            train_set.epoch = epoch
            for (x,) in loader:
                pass
        """
    assert found(body) == [(4, "ICE111")]
    assert found(body.replace("persistent_workers=True", "persistent_workers=False")) == []
