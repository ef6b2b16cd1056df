"""ice_lab.checks._core: what every lab check shares."""

from __future__ import annotations

import pytest

from ice_lab.checks._core import Hints, attempt, need_callable, passed, quote, rng


def test_attempt_quotes_an_error_on_one_line():
    assert attempt(lambda x: x + 1, 1) == (2, "")
    result, error = attempt(lambda: {}["a\n  b"])
    assert result is None and error == "KeyError: 'a\\n b'"
    assert quote(ValueError("x" * 400)) == "ValueError: " + "x" * 150


def test_hints_say_more_the_second_time_only_for_the_same_mistake():
    hints = Hints("f")
    hints.require(True, "never shown")
    with pytest.raises(AssertionError, match="^f: a$"):
        hints.require(False, "a", kind="one", more="look here")
    with pytest.raises(AssertionError, match="^f: b$"):
        hints.require(False, "b", kind="two", more="elsewhere")
    with pytest.raises(AssertionError, match="^f: a Still stuck: look here$"):
        hints.require(False, "a", kind="one", more="look here")


def test_passed_prints_one_line(capsys):
    passed("three cases.")
    assert capsys.readouterr().out == "Check passed: three cases.\n"


def test_need_callable_says_which_cell_to_run():
    need_callable(print, "f")
    with pytest.raises(TypeError, match="run the cell that defines f"):
        need_callable(None, "f")


def test_rng_is_the_labs_unless_a_seed_is_given():
    assert rng(None, 3).random() == rng(3, 0).random() != rng(4, 3).random()


def test_built_model_says_what_the_factory_gave_instead():
    from torch import nn

    from ice_lab.checks._core import built_model

    hints = Hints("make_net")
    layer = built_model(lambda: nn.Linear(2, 1), hints, "make_net")
    assert isinstance(layer, nn.Linear)
    with pytest.raises(AssertionError, match=r"make_net\(\) fails \(ValueError: no"):
        built_model(lambda: (_ for _ in ()).throw(ValueError("no")), hints, "make_net")
    with pytest.raises(AssertionError, match="should return a model .* got int"):
        built_model(lambda: 3, hints, "make_net")
