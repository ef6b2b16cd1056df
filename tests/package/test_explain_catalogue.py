"""The catalogue behind ice_lab.explain: order never matters, names are unique.

The entries are matched and ranked by an explicit rule (phrasing over keyword, then
priority; ice_lab/explainer/engine.py), never by their position. These tests shuffle the
catalogue and check that every message of the other explain tests gets the same diagnosis,
and that no message is decided by a tie between kinds. That every entry's chapter section
resolves is tests/book/test_chapter_refs.py.
"""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import pytest

from ice_lab.explainer import CATALOGUE, engine, explain

import explain_provocations
import explain_realworld
import export_provocations

ROOT = Path(__file__).resolve().parents[2]


def _provoked() -> list[BaseException]:
    errors = []
    for p in explain_provocations.PROVOCATIONS:
        fn = p.values[0] if hasattr(p, "values") else p[0]
        marks = getattr(p, "marks", ())
        if any(m.name == "skipif" and m.args and m.args[0] for m in marks):
            continue
        errors.append(explain_provocations.provoke(fn))
    errors += [export_provocations.provoke(p[0]) for p in export_provocations.PROVOCATIONS]
    return errors


def _texts() -> list[str]:
    variants = explain_provocations.VARIANTS + export_provocations.VARIANTS
    return [m.message for m in explain_realworld.MESSAGES] + [v[0] for v in variants]


def _everything() -> list[object]:
    return _texts() + _provoked()


def _results(things: list[object]) -> list[tuple]:
    out = []
    for thing in things:
        d = explain(thing)
        out.append((d.kind, d.entry, d.summary, d.chapter, tuple(d.causes), tuple(d.fixes)))
    return out


def test_shuffling_the_entries_changes_no_result(monkeypatch):
    catalogue = importlib.import_module("ice_lab.explainer.catalogue")
    things = _everything()
    expected = _results(things)
    for seed in range(5):
        shuffled = list(CATALOGUE)
        random.Random(seed).shuffle(shuffled)
        monkeypatch.setattr(catalogue, "CATALOGUE", shuffled)
        assert _results(things) == expected, f"seed {seed} changed a diagnosis"
    monkeypatch.setattr(catalogue, "CATALOGUE", list(reversed(CATALOGUE)))
    assert _results(things) == expected


def test_no_message_is_decided_by_a_tie_between_kinds():
    # diagnose says in Diagnosis.why when an entry of another kind had the winner's rank
    for text in _texts():
        why = explain(text).why
        assert engine.TIE not in why, f"{why} on {text[:80]!r}"


def test_a_tie_between_kinds_is_said_in_why():
    from ice_lab.explainer.entry import Entry

    def entry(name: str, kind: str) -> Entry:
        return Entry(name=name, kind=kind, patterns=[r"frozen lake"], summary="s",
                     causes=["c"], fixes=["f"], chapter="book/toolkit")

    pair = [entry("b.second", "second_kind"), entry("a.first", "first_kind")]
    d = engine.diagnose(None, "the frozen lake cracked", pair)
    assert d.entry == "a.first"  # the name that sorts first
    assert f"{engine.TIE} b.second (second_kind)" in d.why
    same_kind = [entry("b.second", "first_kind"), entry("a.first", "first_kind")]
    assert engine.TIE not in engine.diagnose(None, "the frozen lake cracked", same_kind).why


def test_entries_are_complete_and_named_once():
    names = [e.name for e in CATALOGUE]
    assert len(names) == len(set(names))
    for entry in CATALOGUE:
        assert entry.kind != "unknown", entry.name
        assert entry.patterns and entry.causes and entry.fixes, entry.name
        assert entry.name.split(".")[0] in {"tensors", "autograd", "datasets", "training", "numerics",
                                            "devices", "checkpoints", "export"}, entry.name

