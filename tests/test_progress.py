"""ice_lab.progress: bars for learners, none in executed outputs."""

from __future__ import annotations

from ice_lab.progress import bars_disabled, tqdm


def test_environment_disables_bars(monkeypatch):
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert bars_disabled()
    assert tqdm(range(3)).disable
    assert list(tqdm(range(3))) == [0, 1, 2]


def test_bars_shown_by_default(monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    assert not bars_disabled()
    bar = tqdm(range(3))
    assert not bar.disable
    bar.close()


def test_explicit_argument_wins(monkeypatch):
    monkeypatch.setenv("TQDM_DISABLE", "1")
    bar = tqdm(range(3), disable=False)
    assert not bar.disable
    bar.close()
    monkeypatch.setenv("TQDM_DISABLE", "0")
    assert not bars_disabled()
