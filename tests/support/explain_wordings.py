"""Record, per torch version, the wording of every failure the explain tests provoke on CPU.

Wordings drift between the releases the book supports (2.6 to the newest). This script
provokes each failure of tests/support/explain_provocations.py and tests/support/export_provocations.py (the
Export chapter's failures; skipped where onnx or onnxruntime is missing) with one torch,
and writes what that torch printed: the exception's class, its message, and the paste a
learner would make (the last frames of the traceback, paths cut to their package, then
the exception line). Run for several torches, it merges the records into
``reference/explain-wordings.json``, which tests/package/test_explain_wordings.py reads: explain
must name the recorded kind for every wording of every version.

    python tests/support/explain_wordings.py                 # the torches present: .venv and .venv-compat/torch-*
    python tests/support/explain_wordings.py 2.6.0 2.14.1    # only these (a venv each, see ice_teach/verify/compat.py)
    python tests/support/explain_wordings.py --record OUT    # one record with this interpreter's torch

A version's venv is ``.venv`` when its torch is that version, else
``.venv-compat/torch-<version>`` (built by ``make test-compat``, or by hand: a venv with that
torch, onnx and onnxruntime, e.g. ``pip install torch==2.6.0 'onnx<=1.17.0' onnxruntime``).
Machine-specific parts of a message are replaced so that a rerun on another machine gives
the same file: a worker's pid reads 12345, an address 0x<address>, a temporary path
<tmpfile>, this checkout's path <repo>.

Taught with the Debugging chapter's ``explain`` (book/debugging.ipynb), whose page says which
versions are known to print a message.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reference" / "explain-wordings.json"
#: Frames kept before the exception line in a paste (the innermost ones: the function that raised).
PASTE_FRAMES = 3

_VOLATILE = [
    (re.compile(r"\bpids?(\(s\))? [\d, ]+\d"), r"pid\1 12345"),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x<address>"),
    (re.compile(r"(/tmp|/var/folders|[A-Z]:\\\\Users\\\\[^\\\\]+\\\\AppData)[^\s'\"]*"), "<tmpfile>"),
]


def sanitise(text: str) -> str:
    """A message with its machine-specific parts (pids, addresses, temporary paths, this
    checkout's path) replaced."""
    text = text.replace(str(ROOT), "<repo>")
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def _short_path(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("site-packages", "dist-packages"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor) + 1:])
    return Path(filename).name


def paste(error: BaseException) -> str:
    """What a learner pastes: the last frames (paths cut to their package) and the exception."""
    frames = traceback.extract_tb(error.__traceback__)[-PASTE_FRAMES:]
    lines = ["Traceback (most recent call last):"]
    for frame in frames:
        lines.append(f'  File "{_short_path(frame.filename)}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line}")
    lines.append("".join(traceback.format_exception_only(type(error), error)).rstrip())
    return sanitise("\n".join(lines))


def _provocations() -> list[tuple[str, str, object]]:
    """(name, expected kind, function) for every provocation that runs here."""
    import pytest  # the tests' own skip marks decide what runs on this machine

    import explain_provocations  # beside this file: on the path when it runs as a script

    found = []
    for p in explain_provocations.PROVOCATIONS:
        fn, kind = (p.values[0], p.values[1]) if hasattr(p, "values") else (p[0], p[1])
        marks = getattr(p, "marks", ())
        if any(m.name == "skipif" and m.args and m.args[0] for m in marks):
            continue
        found.append((fn.__name__, kind, fn))
    try:
        import export_provocations
    except (ImportError, pytest.skip.Exception):
        print("note: onnx or onnxruntime missing: the Export chapter's failures are not recorded",
              file=sys.stderr)
    else:
        for fn, kind, *_ in export_provocations.PROVOCATIONS:
            found.append((getattr(fn, "__name__", repr(fn)), kind, fn))
    return found


def record() -> dict:
    """Provoke every failure with this interpreter's torch; one record per failure."""
    import warnings

    import torch

    from ice_lab.explainer import explain

    cases = []
    for name, kind, fn in _provocations():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn()
        except Exception as err:  # noqa: BLE001 - whatever torch raises
            cases.append({"id": name, "kind": kind, "error_type": type(err).__name__,
                          "message": sanitise(str(err)), "paste": paste(err),
                          "explained_live": explain(err).kind})
        else:
            cases.append({"id": name, "kind": kind, "error_type": None, "message": None, "paste": None,
                          "explained_live": "did not raise"})
    return {"torch": torch.__version__.split("+")[0], "build": torch.__version__,
            "python": ".".join(map(str, sys.version_info[:3])), "cases": cases}


def merge(records: list[dict], old: dict | None = None) -> dict:
    """One table: for each failure, its kind and the wording each version printed."""
    table: dict = {"about": __doc__.split("\n\n")[0].replace("\n", " "),
                   "versions": {}, "cases": {}}
    for rec in ([] if old is None else _records_of(old)) + records:
        table["versions"][rec["torch"]] = {"build": rec["build"], "python": rec["python"]}
        for case in rec["cases"]:
            entry = table["cases"].setdefault(case["id"], {"kind": case["kind"], "wordings": {}})
            entry["wordings"][rec["torch"]] = {k: case[k] for k in ("error_type", "message", "paste")}
    table["versions"] = dict(sorted(table["versions"].items(), key=lambda kv: _key(kv[0])))
    for entry in table["cases"].values():
        entry["wordings"] = dict(sorted(entry["wordings"].items(), key=lambda kv: _key(kv[0])))
        messages = {w["message"] for w in entry["wordings"].values()}
        entry["same_in_every_version"] = len(messages) == 1
    return table


def _records_of(table: dict) -> list[dict]:
    out = []
    for version, info in table.get("versions", {}).items():
        cases = [{"id": cid, "kind": c["kind"], **c["wordings"][version]}
                 for cid, c in table.get("cases", {}).items() if version in c["wordings"]]
        out.append({"torch": version, **info, "cases": cases})
    return out


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def _python_for(version: str) -> Path | None:
    own = ROOT / ".venv" / "bin" / "python"
    if own.exists():
        out = subprocess.run([str(own), "-c", "import torch; print(torch.__version__.split('+')[0])"],
                             capture_output=True, text=True)
        if out.stdout.strip() == version:
            return own
    compat = ROOT / ".venv-compat" / f"torch-{version}" / "bin" / "python"
    return compat if compat.exists() else None


def _present() -> list[str]:
    versions = [p.name.removeprefix("torch-") for p in sorted((ROOT / ".venv-compat").glob("torch-*"))]
    own = ROOT / ".venv" / "bin" / "python"
    if own.exists():
        out = subprocess.run([str(own), "-c", "import torch; print(torch.__version__.split('+')[0])"],
                             capture_output=True, text=True)
        versions.append(out.stdout.strip())
    return sorted(set(v for v in versions if v), key=_key)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("versions", nargs="*", help="torch versions (default: every venv present)")
    parser.add_argument("--record", metavar="OUT", help="record this interpreter's torch into OUT and stop")
    parser.add_argument("--out", default=str(OUT), help="the merged table (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.record:
        Path(args.record).write_text(json.dumps(record(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return 0
    records, missing = [], []
    env = dict(os.environ, PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="")
    for version in args.versions or _present():
        python = _python_for(version)
        if python is None:
            missing.append(version)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "record.json"
            subprocess.run([str(python), __file__, "--record", str(target)], check=True, env=env, cwd=ROOT)
            rec = json.loads(target.read_text(encoding="utf-8"))
        print(f"torch {rec['build']}: {len(rec['cases'])} failures recorded")
        records.append(rec)
    out = Path(args.out)
    old = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    table = merge(records, old)
    out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: {len(table['cases'])} failures, "
          f"versions {', '.join(table['versions'])}")
    for version in missing:
        print(f"no venv for torch {version}: build .venv-compat/torch-{version} (see ice_teach/verify/compat.py)",
              file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
