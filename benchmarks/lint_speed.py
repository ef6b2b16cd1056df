"""How fast ``ice-lab lint`` reads a folder (a benchmark, not a test: no assertion).

Writes 1,000 training scripts into a temporary folder (every rule's true positive, near
miss and idiom from tests/package/lint_cases/, and a longer training script with a model, two
loops and a checkpoint, varied by a number so no two files are equal), then runs the
command on the folder in a fresh process, as a learner would, and times it. Prints the
files per second, the seconds for the folder (target: under 10 s on 2 cores) and the
CPU seconds the process used, which a busy machine does not inflate.

    python benchmarks/lint_speed.py [--files 1000]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = sorted((ROOT / "tests" / "package" / "lint_cases").glob("ice1*.py"))

LONG = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net{n}(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.1))
        self.head = nn.Linear(64, {n} % 9 + 2)

    def forward(self, x):
        return self.head(self.body(x))


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    total = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
    return correct / len(loader.dataset)


def main():
    data = TensorDataset(torch.randn(256, 32), torch.randint(0, 2, (256,)))
    train_loader = DataLoader(data, batch_size=32, shuffle=True)
    val_loader = DataLoader(data, batch_size=64)
    model = Net{n}().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
    criterion = nn.CrossEntropyLoss()
    for epoch in range({n} % 5 + 1):
        train_epoch(model, train_loader, optimizer, criterion)
        print(epoch, evaluate(model, val_loader))
        scheduler.step()
    torch.save(model.state_dict(), "net{n}.pt")
'''


def write_corpus(folder: Path, count: int) -> None:
    texts = [p.read_text(encoding="utf-8") for p in CASES]
    for i in range(count):
        body = texts[i % len(texts)] if i % 2 else LONG.format(n=i)
        (folder / f"script_{i:04d}.py").write_text(f"# script {i}\n{body}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1000, help="scripts to generate")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_corpus(folder, args.files)
        lines = sum(p.read_text().count("\n") for p in folder.iterdir())
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "ice_lab", "lint", str(folder)],
                             capture_output=True, text=True, cwd=ROOT)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    findings = run.stdout.count("\n")
    print(f"ice-lab lint on {args.files} files ({lines} lines) in one folder, one process:")
    print(f"  {seconds:.2f} s for the folder, {args.files / seconds:.0f} files/s "
          f"(exit status {run.returncode}, {findings} findings)")
    print(f"  CPU time of that process: {cpu:.2f} s ({args.files / cpu:.0f} files per CPU "
          "second; on a busy machine the wall time grows, the CPU time does not)")
    print(f"  target: under 10 s -> {'met' if seconds < 10 else 'NOT met'} (wall time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
