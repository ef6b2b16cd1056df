"""ice_lab.expect (ice_lab/provoke.py): passes only on the expected failure, in every
direction."""

from __future__ import annotations

import re

import pytest
import torch

from ice_lab import expect


def float64_into_float32_layer():
    torch.nn.Linear(3, 1)(torch.zeros(2, 3, dtype=torch.float64))


def test_expected_failure_passes_and_prints_one_line(capsys):
    with expect(RuntimeError, match="same dtype|expected .* dtype", what="float64 into a float32 layer") as caught:
        float64_into_float32_layer()
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert out.startswith("Provoked as expected (float64 into a float32 layer) -> RuntimeError: ")
    assert "Double" in out and "Float" in out
    assert isinstance(caught.error, RuntimeError)
    assert caught.type_name == "RuntimeError"
    assert "dtype" in caught.message


def test_subclasses_count():
    with expect(RuntimeError):
        raise torch.OutOfMemoryError("simulated")


def test_tuple_of_types():
    with expect((KeyError, IndexError), what="an index out of range"):
        torch.zeros(3)[5]


def test_match_is_case_insensitive_and_searches_the_whole_message():
    with expect(ValueError, match="second LINE"):
        raise ValueError("first line\nthe Second line")


def test_nothing_failing_is_an_assertion_error_that_names_the_expectation():
    with pytest.raises(AssertionError, match=r"Expected RuntimeError.*\(float64 into a float32 layer\).*without error"):
        with expect(RuntimeError, what="float64 into a float32 layer"):
            torch.nn.Linear(3, 1)(torch.zeros(2, 3))


def test_another_exception_type_is_an_assertion_error_chained_to_it():
    with pytest.raises(AssertionError, match="Expected RuntimeError.*but got KeyError") as info:
        with expect(RuntimeError):
            {}["missing"]
    assert isinstance(info.value.__cause__, KeyError)


def test_wrong_message_is_an_assertion_error():
    with pytest.raises(AssertionError, match="does not match") as info:
        with expect(RuntimeError, match="same device"):
            float64_into_float32_layer()
    assert isinstance(info.value.__cause__, RuntimeError)


def test_keyboard_interrupt_is_never_swallowed():
    with pytest.raises(KeyboardInterrupt):
        with expect(RuntimeError):
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        with expect(Exception):
            raise KeyboardInterrupt


def test_long_and_multiline_messages_are_quoted_on_one_line(capsys):
    with expect(RuntimeError):
        raise RuntimeError("x" * 1000 + "\nsecond line")
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.rstrip().endswith("…") and "second line" not in out


def test_empty_message_is_quoted_by_repr(capsys):
    with expect(StopIteration):
        next(iter([]))
    assert "StopIteration: StopIteration()" in capsys.readouterr().out


def test_compiled_patterns_are_accepted():
    with expect(ValueError, match=re.compile("boom")):
        raise ValueError("boom")


@pytest.mark.parametrize(
    "args, kwargs, error, needle",
    [
        (("RuntimeError",), {}, TypeError, "exception class"),
        ((int,), {}, TypeError, "exception class"),
        (((),), {}, TypeError, "exception class"),
        ((RuntimeError,), {"match": 3}, TypeError, "regular-expression"),
        ((RuntimeError,), {"match": "("}, ValueError, "not a valid regular expression"),
        ((RuntimeError,), {"what": 5}, TypeError, "description"),
    ],
)
def test_bad_arguments_get_clear_errors(args, kwargs, error, needle):
    with pytest.raises(error, match=needle):
        expect(*args, **kwargs)


def test_terminal_colour_codes_are_not_quoted(capsys):
    # torch.load's weights_only message (PyTorch >= 2.6) contains bold on/off escape codes.
    with expect(RuntimeError, match="trust the source"):
        raise RuntimeError("Load failed, \x1b[1mdo this only if you trust the source\x1b[0m. More.")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "do this only if you trust the source. More." in out
