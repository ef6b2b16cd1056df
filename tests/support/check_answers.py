"""What the unit tests of ice_lab.checks (tests/package/test_checks_*.py) share: the stub the
student edition ships, and a check that refuses (with a hint) or passes (with its line)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def stub(*args: Any, **kwargs: Any) -> None:
    """The student edition's answer: nothing written yet."""
    raise NotImplementedError("Exercise: write your fix here.")


def fails(call: Callable[[], Any], hint: str) -> str:
    """``call()`` fails with an AssertionError whose message holds ``hint``; the message."""
    with pytest.raises(AssertionError) as info:
        call()
    assert hint in str(info.value), str(info.value)
    return str(info.value)


def refused(call: Callable, *args: Any, hint: str, **kwargs: Any) -> None:
    """``call(*args, **kwargs)`` fails with an AssertionError matching the regex ``hint``."""
    with pytest.raises(AssertionError, match=hint):
        call(*args, **kwargs)


def passes(call: Callable[[], Any], capsys: pytest.CaptureFixture) -> str:
    """``call()`` prints its ``Check passed: ...`` line; what it printed."""
    call()
    out = capsys.readouterr().out
    assert out.startswith("Check passed"), out
    return out
