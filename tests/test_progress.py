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


class CountingLoader:
    """An iterable that counts how often iteration starts, like a DataLoader drawing a shuffle."""

    def __init__(self) -> None:
        self.starts = 0

    def __len__(self) -> int:
        return 3

    def __iter__(self):
        self.starts += 1
        return iter([1, 2, 3])


def test_wrapped_iterable_is_iterated_once(monkeypatch):
    for value in ("1", "0"):
        monkeypatch.setenv("TQDM_DISABLE", value)
        loader = CountingLoader()
        assert list(tqdm(loader)) == [1, 2, 3]
        assert loader.starts == 1


def test_outside_a_notebook_the_bar_is_text():
    from ice_lab.progress import in_notebook

    assert not in_notebook()
