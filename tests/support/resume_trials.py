"""Kill-and-resume trials: is resuming from ice_lab.checkpoint bit-exact, and is every
checkpoint on disk loadable, whenever the process dies?

    python tests/support/resume_trials.py               # 20 trials
    python tests/support/resume_trials.py --trials 3 --seed 1

Each trial trains a small model (dropout, Adam, a step scheduler, a shuffled loader) for
``STEPS`` steps in a child process started by ``ice_lab.run_isolated``, saving a checkpoint
every ``SAVE_EVERY`` steps (the last two kept, plus ``best.pt``). The child is killed with
SIGKILL at a random point: after a training step, or inside a save (half-way through
writing the temporary file, after writing it but before the rename, or right after the
rename). The child sends the signal to itself at that exact point, so there is no timing
to guess: the effect is that of ``kill -9`` arriving at that instant (no ``finally``, no
flush, no clean-up). Then a new child resumes from whatever is on disk; some trials are
killed twice. After every kill each checkpoint under a final name must load with
``load_checkpoint`` (CRC-checked); a file that does not is counted as corrupt. The final
weights must equal, bit for bit (``torch.equal``), those of a run that was never
interrupted. The script ends with one line:

    resume trials: 20/20 bit-exact, 0 corrupt

Exit status 0 only when every trial is bit-exact and nothing was corrupt. The Checkpoints
chapter (``book/checkpoints.ipynb``) explains the pieces; ``tests/package/test_checkpoint.py`` runs
a few trials.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

STEPS = 48
SAVE_EVERY = 4
BATCH = 32
SAMPLES = 200  # 7 batches an epoch, the last one short: the kills land mid-epoch too
PHASES = ("step", "mid-write", "before-replace", "after-replace")


# --------------------------------------------------------------------------- the child
def _arm(kill: dict[str, Any] | None) -> dict[str, int]:
    """Make this process SIGKILL itself at the planned point inside a save."""
    import torch

    counter = {"saves": 0}
    if kill is None or kill["phase"] == "step":
        return counter

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    real_save, real_replace = torch.save, os.replace

    def save(obj: Any, f: Any, *args: Any, **kwargs: Any) -> None:
        counter["saves"] += 1
        if kill["phase"] == "mid-write" and counter["saves"] == kill["save"]:
            buffer = io.BytesIO()
            real_save(obj, buffer, *args, **kwargs)
            data = buffer.getvalue()
            f.write(data[: max(1, int(len(data) * kill["fraction"]))])
            f.flush()
            die()
        real_save(obj, f, *args, **kwargs)

    def replace(src: Any, dst: Any) -> None:
        hit = counter["saves"] == kill["save"] and str(src).find(".tmp-") >= 0
        if hit and kill["phase"] == "before-replace":
            die()
        real_replace(src, dst)
        if hit and kill["phase"] == "after-replace":
            die()

    torch.save = save
    os.replace = replace
    return counter


def train(run_dir: str, steps: int = STEPS, kill: dict[str, Any] | None = None) -> None:
    """Train to ``steps``, resuming from the newest checkpoint in ``run_dir`` if any;
    write the final weights to ``run_dir/final.pt``. ``kill`` plans a SIGKILL:
    ``{"phase": "step", "step": k}`` after step k, or ``{"phase": PHASE, "save": n,
    "fraction": f}`` inside the n-th file written by this process."""
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    import ice_lab
    from ice_lab.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
    from ice_lab.resume import ResumableSampler, capture_rng, restore_rng

    folder = Path(run_dir)
    ice_lab.set_seed(0)
    gen = torch.Generator().manual_seed(1234)
    x = torch.randn(SAMPLES, 16, generator=gen)
    y = (x[:, :4].sum(dim=1) > 0).long() + (x[:, 4] > 1).long()
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
    sampler = ResumableSampler(SAMPLES, seed=7)
    # generator=: the loader's own seed draw must not come from the global generator
    loader = DataLoader(TensorDataset(x, y), batch_size=BATCH, sampler=sampler,
                        generator=torch.Generator())
    step, best = 0, float("inf")
    latest = latest_checkpoint(folder)
    if latest is not None:
        ckpt = load_checkpoint(latest, map_location="cpu", model=model)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        restore_rng(ckpt["rng"], sampler)
        step, best = ckpt["step"], ckpt["best_loss"]
    _arm(kill)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    while step < steps:
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % SAVE_EVERY == 0:
                improved = loss.item() < best
                best = min(best, loss.item())
                save_checkpoint(
                    folder / f"step-{step:04d}.pt", keep=2, is_best=improved,
                    step=step, best_loss=best, model=model.state_dict(),
                    optimizer=optimizer.state_dict(), scheduler=scheduler.state_dict(),
                    rng=capture_rng(sampler),
                )
            if kill is not None and kill["phase"] == "step" and step == kill["step"]:
                os.kill(os.getpid(), signal.SIGKILL)
            if step == steps:
                break
    torch.save(model.state_dict(), folder / "final.pt")


# --------------------------------------------------------------------------- the parent
def _run(run_dir: Path, kill: dict[str, Any] | None) -> Any:
    from ice_lab import run_isolated

    source = (
        "import resume_trials\n"
        f"resume_trials.train({str(run_dir)!r}, kill={kill!r})\n"
    )
    return run_isolated(source, timeout=300)


def _corrupt_files(run_dir: Path) -> list[str]:
    from ice_lab.checkpoint import CheckpointError, load_checkpoint

    bad = []
    for path in sorted(run_dir.glob("*.pt")):
        try:
            load_checkpoint(path)
        except CheckpointError as err:
            bad.append(f"{path.name} ({err.reason})")
    return bad


def _plan(rng: random.Random) -> dict[str, Any]:
    phase = rng.choice(PHASES)
    if phase == "step":
        return {"phase": "step", "step": rng.randrange(1, STEPS)}
    # a process writes one or two files per save (two when best.pt is updated too)
    return {"phase": phase, "save": rng.randrange(1, STEPS // SAVE_EVERY),
            "fraction": round(rng.uniform(0.05, 0.95), 2)}


def reference_run(work: Path) -> dict[str, Any]:
    """The final weights of a run that is never interrupted (trained in a child too)."""
    import torch

    work.mkdir()
    result = _run(work, None)
    if not result.ok:
        raise RuntimeError(f"the uninterrupted run failed: {result}\n{result.stderr}")
    return torch.load(work / "final.pt", weights_only=True)


def trial(run_dir: Path, reference: dict[str, Any], kills: list[dict[str, Any]]
          ) -> tuple[bool, int, str]:
    """One trial: a run killed at each of ``kills`` in turn, resumed from disk each time,
    then run to the end. Returns (bit-exact, corrupt files seen, what happened)."""
    import torch

    run_dir.mkdir()
    corrupt, story = 0, []
    for kill in kills + [None]:
        result = _run(run_dir, kill)
        if kill is None:
            if not result.ok:
                return False, corrupt, f"final run failed: {result} {result.stderr[-500:]}"
            break
        if result.ok:  # finished before the planned point (a late kill): nothing to resume
            story.append(f"{kill['phase']}: finished first")
            break
        if result.exitcode != -signal.SIGKILL:
            return False, corrupt, f"expected SIGKILL, got: {result} {result.stderr[-500:]}"
        bad = _corrupt_files(run_dir)
        corrupt += len(bad)
        where = f"step {kill['step']}" if kill["phase"] == "step" else f"save {kill['save']}"
        story.append(f"killed {kill['phase']} at {where}" + (f", corrupt: {bad}" if bad else ""))
    final = torch.load(run_dir / "final.pt", weights_only=True)
    exact = final.keys() == reference.keys() and all(
        torch.equal(final[k], reference[k]) for k in reference
    )
    return exact, corrupt, "; ".join(story)


def run_trials(trials: int, seed: int = 0, verbose: bool = True) -> tuple[int, int]:
    """Run ``trials`` trials; return (bit-exact trials, corrupt checkpoints seen)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="resume_trials_") as tmp:
        reference = reference_run(Path(tmp) / "reference")
        exact_count = corrupt_count = 0
        for i in range(trials):
            kills = [_plan(rng) for _ in range(rng.choice((1, 2)))]
            steps = [k["step"] for k in kills if k["phase"] == "step"]
            if len(steps) == 2 and steps[1] <= steps[0] < STEPS - 1:  # kill later, not never
                kills[1]["step"] = rng.randrange(steps[0] + 1, STEPS)
            exact, corrupt, story = trial(Path(tmp) / f"trial-{i:02d}", reference, kills)
            exact_count += exact
            corrupt_count += corrupt
            if verbose:
                verdict = "bit-exact" if exact else "DIFFERENT"
                print(f"trial {i + 1:2d}: {verdict}, {story}", flush=True)
    return exact_count, corrupt_count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill plans")
    parser.add_argument("--quiet", action="store_true", help="only the summary line")
    args = parser.parse_args(argv)
    exact, corrupt = run_trials(args.trials, args.seed, verbose=not args.quiet)
    print(f"resume trials: {exact}/{args.trials} bit-exact, {corrupt} corrupt", flush=True)
    return 0 if exact == args.trials and corrupt == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
