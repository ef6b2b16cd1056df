"""What the review of the early chapters (Tensors to Devices, the landing page) asked for,
held: claims it found wrong stay gone from the prose, and material it found missing stays
shown by code cells that run (nbval proves they run; this proves they are there).

The review is kept with the project's reviews; each entry names its finding.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ice_teach import notebooks

ROOT = Path(__file__).resolve().parents[2]

NOTEBOOKS = notebooks.notebooks()
# in reading order (_toc.yml)
CHAPTERS = [Path(f"{f}.ipynb") for f in notebooks.toc_files()
            if f.startswith("book/") and (ROOT / f"{f}.ipynb").exists()]


def prose(paths) -> str:
    text = []
    for p in paths:
        text += [c.source for c in notebooks.read(p).cells if c.cell_type == "markdown"]
    return "\n".join(text)


def code(paths) -> str:
    return "\n".join(c.source for p in paths for c in notebooks.read(p).cells
                     if c.cell_type == "code")


#: (what the review found, a pattern that must not appear in any prose of book/ and labs/)
GONE = [
    ("finding 1: a kept loss's graph overstated 5x", r"0\.70 MiB|5\.63 MiB"),
    ("finding 3: fp16 presented as the GPU default", r"usual choice is float16"),
    ("finding 7: CPU bf16 said to gain nothing", r"gain nothing"),
    ("finding 12: inference tensors 'refused later'", r"refuses? to use them later|refused later"),
    ("finding 12: DataLoader batches said to be pickled", r"each batch is pickled"),
    ("finding 12: xavier said to halve the standard deviation", r"halves it at every layer"),
]


@pytest.mark.parametrize("finding, pattern", GONE, ids=[g[0] for g in GONE])
def test_a_claim_the_review_found_wrong_is_gone(finding, pattern):
    found = re.findall(rf".{{0,60}}(?:{pattern}).{{0,60}}", prose(NOTEBOOKS), re.I)
    md = "\n".join(p.read_text() for p in (ROOT / "book").glob("*.md"))
    found += re.findall(rf".{{0,60}}(?:{pattern}).{{0,60}}", md, re.I)
    assert not found, f"{finding}: still in the prose: {found}"


#: (what the review found missing, patterns that must all appear in the chapters' code)
SHOWN = [
    ("finding 3: one mixed-precision loop with a scaler, clipping after unscale_",
     [r"torch\.autocast\(", r"GradScaler\(", r"\.unscale_\(", r"clip_grad_norm_",
      r"is_bf16_supported"]),
    ("finding 3: the torch.cuda.amp rename", [r"torch\.cuda\.amp\.GradScaler"]),
    ("finding 8: float class labels in cross_entropy, bool mean, promotion",
     [r"cross_entropy\([^\n]*\.float\(\)", r"mean\(\) of a bool|==[^\n]*\)\.mean\(\)", r"\w+ / 2\b", r"\w+ // 2\b"]),
    ("finding 9: the CUDA memory snapshot", [r"_record_memory_history", r"_dump_snapshot"]),
    ("finding 9: memory_summary and the profiler's memory", [r"memory_summary", r"profile_memory"]),
    ("finding 9: expandable_segments", [r"expandable_segments"]),
    ("finding 9: optimizer state in the memory budget", [r"exp_avg_sq|optimizer\.state"]),
    ("finding 10: a plain forward hook", [r"register_forward_hook"]),
    ("seed: register_hook on a tensor", [r"\.register_hook\("]),
    ("seed: nn.ReLU(inplace=True)", [r"ReLU\(inplace=True\)"]),
    ("missing: non-scalar backward", [r"scalar outputs"]),
    ("seed: model.apply(init) with fan_out", [r"\.apply\(", r"fan_out"]),
    ("missing: IterableDataset across workers", [r"IterableDataset", r"get_worker_info"]),
    ("seed: the __main__ guard under spawn", [r"__name__ == .__main__."]),
    ("missing: channels_last", [r"channels_last"]),
    ("missing: non_blocking device-to-host", [r"non_blocking=True"]),
    ("missing: torch.compile and a failure", [r"torch\.compile|torch\._dynamo"]),
    ("seed: which parameters got no gradient", [r"grad is None"]),
]


@pytest.mark.parametrize("finding, patterns", SHOWN, ids=[s[0] for s in SHOWN])
def test_material_the_review_found_missing_is_shown_by_code(finding, patterns):
    text = code(CHAPTERS)
    missing = [p for p in patterns if not re.search(p, text)]
    assert not missing, f"{finding}: no chapter's code matches {missing}"


def test_the_plain_hook_comes_before_the_books_own_watcher():
    """Finding 10: learners see the dozen lines of stock PyTorch before watch_nonfinite,
    in the first chapter (in reading order) that uses it."""
    for path in CHAPTERS:
        cells = [c.source for c in notebooks.read(path).cells if c.cell_type == "code"]
        watch = next((i for i, s in enumerate(cells) if "watch_nonfinite(" in s), None)
        if watch is None:
            continue
        hook = next((i for i, s in enumerate(cells) if "register_forward_hook" in s), None)
        assert hook is not None and hook < watch, (
            f"{path}: watch_nonfinite at code cell {watch} before any plain forward hook")
        return
    pytest.fail("no chapter uses watch_nonfinite")


def test_the_landing_page_qualifies_its_rule_about_numbers():
    intro = (ROOT / "book" / "intro.md").read_text()
    assert "every number in the text comes from a cell above it" in intro
    assert "gpu-probe-h200.log" in intro and "PyTorch 2.11" in intro
