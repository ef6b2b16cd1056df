"""ice_lab._text: one first-line helper, one byte formatter, one integer check."""

import numpy as np
import pytest

import ice_lab.memory
from ice_lab._text import QUOTE_LIMIT, check_int, first_line, format_bytes


def test_first_line_of_an_exception_and_of_text():
    err = RuntimeError("\n  mat1 and mat2 shapes cannot be multiplied  \nsecond line")
    assert first_line(err) == "mat1 and mat2 shapes cannot be multiplied"
    assert first_line("one\ntwo") == "one"
    assert first_line(None) == ""
    assert first_line(ValueError()) == ""
    assert first_line("\x1b[31mred\x1b[0m text") == "red text"


def test_first_line_is_shortened_with_an_ellipsis():
    long = "x" * 1000
    assert first_line(long) == "x" * (QUOTE_LIMIT - 1) + "…"
    assert first_line(long, limit=10) == "x" * 9 + "…"
    assert first_line("x" * 10, limit=10) == "x" * 10
    with pytest.raises(ValueError, match="limit"):
        first_line("x", limit=0)


def test_format_bytes_is_one_function_reexported_by_memory():
    assert ice_lab.memory.format_bytes is format_bytes
    assert format_bytes(1536 * 1024) == "1.50 MiB"
    assert format_bytes(512) == "512 bytes"
    assert format_bytes(3 * 2**50) == "3.00 PiB"


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_check_int_accepts_python_and_numpy_integers(value):
    out = check_int("n", value, 1)
    assert out == 3 and type(out) is int


@pytest.mark.parametrize("value", [True, 2.0, "3", np.float32(3), None])
def test_check_int_refuses_what_is_not_a_whole_number(value):
    with pytest.raises(TypeError, match="n must be a whole number"):
        check_int("n", value, 1)


def test_check_int_names_the_minimum():
    with pytest.raises(ValueError, match="epochs must be at least 1, got 0"):
        check_int("epochs", 0, 1)


def test_data_and_train_share_the_check():
    import ice_lab.data
    import ice_lab.train

    assert ice_lab.data._check_int is check_int
    assert ice_lab.train._check_int is check_int
    assert ice_lab.train.fit.__module__ == "ice_lab.train"
