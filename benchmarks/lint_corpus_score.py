"""Precision and recall of ``ice-lab lint`` per rule on the fresh corpus (a benchmark that
prints, never asserts): benchmarks/lint_corpus_fresh.json holds each file's repository,
path, commit and hand labels, written before the linter ran on it.

The files themselves are not in this repository. Fetch each repository at the recorded
commit (files found through the public code index carry its id instead) and copy each
file into one folder under the name in ``file``; then

    python benchmarks/lint_corpus_score.py FOLDER [--code-root OLD_CHECKOUT]

or, so that imports from files beside a script are followed, lay the repositories out as
``TREE/<owner>+<name>/<path>`` (index files in ``TREE/index/<file>``) and pass ``--tree``.

``--code-root`` runs the linter of another checkout (for the "before" column: a
``git archive`` of the commit before the change), in a child process, through its SARIF
output. Labels are rule codes (``ICE105:detail``), ``NEW:<bug>`` for bugs that had no rule
when they were labelled (mapped to the rule that now names them) and ``NORULE:<bug>`` for
bugs no rule names. A pair (file, rule) is a true positive when the rule is labelled and
reported, a false positive when reported and not labelled.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEW_RULES = {"NEW:train-after-eval": "ICE113", "NEW:save-state_dict-uncalled": "ICE114"}


def labelled(entry: dict) -> tuple[set[str], set[str]]:
    """(rule codes that apply, bugs no rule names) for one file."""
    codes, none = set(), set()
    for label in entry["labels"]:
        if label.startswith("NORULE:"):
            none.add(label)
        elif label.startswith("NEW:"):
            codes.add(NEW_RULES[label])
        else:
            codes.add(label.split(":")[0])
    return codes, none


def located(entry: dict, folder: Path, tree: bool) -> Path:
    """Where one corpus file lies: flat in ``folder``, or in its repository's layout."""
    if not tree:
        return folder / entry["file"]
    if entry["repository"] is None:
        return folder / "index" / entry["file"]
    return folder / entry["repository"].replace("/", "+") / entry["path"]


def found(paths: dict[str, Path], code_root: Path) -> dict[str, set[str]]:
    """The codes the linter of ``code_root`` reports in each file (once each), by the
    corpus name of the file."""
    by_path = {str(p.resolve()): name for name, p in paths.items()}
    result: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():  # one file at a time: paths may hold ':' or spaces
        run = subprocess.run([sys.executable, "-m", "ice_lab", "lint", str(path.resolve())],
                             capture_output=True, text=True, cwd=code_root)
        for line in run.stdout.splitlines():
            if ": ICE" in line:
                result[by_path[str(path.resolve())]].add("ICE" + line.split(": ICE", 1)[1][:3])
    return result


def score(entries: list[dict], reported: dict[str, set[str]]) -> None:
    tp, fp, fn = Counter(), Counter(), Counter()
    clean = silent = norule = 0
    for e in entries:
        codes, none = labelled(e)
        got = reported.get(e["file"], set()) - {"ICE100"}
        norule += len(none)
        for c in codes | got:
            (tp if c in codes and c in got else fp if c in got else fn)[c] += 1
        if not codes and not none:
            clean += 1
            silent += not got
    rules = sorted(set(tp) | set(fp) | set(fn))
    print(f"{'rule':7} {'labelled':>8} {'found':>6} {'TP':>4} {'FP':>4} {'FN':>4} "
          f"{'precision':>9} {'recall':>7}")
    for c in rules + ["all"]:
        t = sum(tp.values()) if c == "all" else tp[c]
        f = sum(fp.values()) if c == "all" else fp[c]
        n = sum(fn.values()) if c == "all" else fn[c]
        p = f"{t / (t + f):.2f}" if t + f else "n/a"
        r = f"{t / (t + n):.2f}" if t + n else "n/a"
        print(f"{c:7} {t + n:8} {t + f:6} {t:4} {f:4} {n:4} {p:>9} {r:>7}")
    total = sum(tp.values()) + sum(fn.values()) + norule
    print(f"bugs labelled, rule or not: {total}; found: {sum(tp.values())} "
          f"(recall over every bug {sum(tp.values()) / total:.2f}); "
          f"clean files silent: {silent}/{clean}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path, help="the corpus files, named as in 'file'")
    parser.add_argument("--corpus", type=Path, default=ROOT / "benchmarks" /
                        "lint_corpus_fresh.json")
    parser.add_argument("--code-root", type=Path, default=ROOT,
                        help="a checkout whose ice_lab runs (default: this one)")
    parser.add_argument("--set", choices=["A", "B", "C", "D", "all"], default="all")
    parser.add_argument("--tree", action="store_true",
                        help="FOLDER holds <owner>+<name>/<path> and index/<file>")
    args = parser.parse_args()
    entries = [e for e in json.loads(args.corpus.read_text())
               if args.set == "all" or e["corpus"] == args.set]
    paths = {e["file"]: located(e, args.folder, args.tree) for e in entries}
    missing = [name for name, p in paths.items() if not p.exists()]
    if missing:
        print(f"{len(missing)} corpus file(s) missing from {args.folder}: {missing[:3]} ...")
        return 2
    reported = found(paths, args.code_root)
    print(f"{len(entries)} files, corpus {args.set}, linter of {args.code_root}")
    score(entries, reported)
    return 0


if __name__ == "__main__":
    sys.exit(main())
