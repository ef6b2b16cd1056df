"""ice_lab._text and ice_lab._args: one first-line quoter, one byte formatter, one integer and
one number check."""

import numpy as np
import pytest

import ice_lab.memory
from ice_lab._args import check_int, check_number
from ice_lab._text import (
    QUOTE_LIMIT, error_line, first_line, format_bytes,
)


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


def test_format_bytes_is_the_one_memory_uses():
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


def test_check_int_names_the_minimum_and_the_maximum():
    with pytest.raises(ValueError, match="epochs must be at least 1, got 0"):
        check_int("epochs", 0, 1)
    with pytest.raises(ValueError, match="ranks must be at most 8, got 9"):
        check_int("ranks", 9, 1, maximum=8)
    assert check_int("ranks", np.int64(8), 1, maximum=8) == 8


def test_data_and_train_share_the_check():
    import ice_lab.data
    import ice_lab.train

    assert ice_lab.data._check_int is check_int
    assert ice_lab.train._check_int is check_int
    assert ice_lab.train.fit.__module__ == "ice_lab.train"


@pytest.mark.parametrize("value", [2, 0.5, np.float32(1.5), np.int64(4)])
def test_check_number_accepts_real_numbers(value):
    out = check_number("timeout", value, positive=True, unit="seconds")
    assert out == float(value) and type(out) is float


@pytest.mark.parametrize("value", [True, "2", None, 1 + 2j])
def test_check_number_refuses_a_wrong_type_with_a_type_error(value):
    with pytest.raises(TypeError, match="timeout must be a number of seconds, got"):
        check_number("timeout", value, positive=True, unit="seconds")


@pytest.mark.parametrize(
    "value, kwargs, match",
    [
        (0, {"positive": True}, "rate must be a positive number, got 0"),
        (-1, {"minimum": 0}, "at least 0, got -1"),
        (1.5, {"maximum": 1}, "at most 1, got 1.5"),
        (float("nan"), {}, "finite number, got nan"),
        (float("inf"), {"positive": True}, "finite number, got inf"),
    ],
)
def test_check_number_refuses_a_value_out_of_range_with_a_value_error(value, kwargs, match):
    with pytest.raises(ValueError, match=match):
        check_number("rate", value, **kwargs)


def test_error_line_quotes_type_and_first_line():
    assert error_line(ValueError("bad\nsecond line")) == "ValueError: bad"
    assert error_line(KeyboardInterrupt()) == "KeyboardInterrupt"
    assert error_line(RuntimeError("x" * 50), limit=10) == "RuntimeError: xxxxxxxxx…"


def test_every_result_has_ok_a_readable_str_and_one_display():
    from ice_lab._text import Report
    from ice_lab.distributed import TorchrunResult
    from ice_lab.export import ExportReport
    from ice_lab.isolate import IsolatedResult
    from ice_lab.preflight import PreflightReport
    from ice_lab.shapes import ShapeTrace
    from ice_lab.state_dict_diff import StateDictDiff

    classes = (ShapeTrace, PreflightReport, ExportReport, IsolatedResult, TorchrunResult, StateDictDiff)
    for cls in classes:
        assert issubclass(cls, Report) and "_repr_pretty_" not in vars(cls), cls
        assert "ok" in dir(cls) or "ok" in getattr(cls, "__dataclass_fields__", {}), cls
    done = TorchrunResult("torchrun x.py", 0, "", "")
    assert done.ok and str(done) == "ok: every process exited with 0"
    hung = TorchrunResult("torchrun x.py", -9, "", "", timed_out=True, leftover=2)
    assert not hung.ok
    assert str(hung) == (
        "failed: exit code -9, ran into the timeout, 2 process(es) still running afterwards, killed"
    )

    class Printer:
        def text(self, s):
            self.shown = s

    same, missing = StateDictDiff(), StateDictDiff(missing=["0.weight"])
    assert same.ok and not same and not missing.ok and missing  # bool: "is there a difference?"

    printer = Printer()
    hung._repr_pretty_(printer, False)
    assert printer.shown == str(hung)
