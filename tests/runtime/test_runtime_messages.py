"""What a TypeCheckError says: the fragments a user relies on."""

from __future__ import annotations

from typing import List, Optional

import numpy as np
import pytest

from tensortypes.annotate import Float, Float32, Int32
from tensortypes.errors import TypeCheckError
from tensortypes.runtime import typechecked
from tensortypes.runtime._messages import annotation_str, short_dtype, short_value


@typechecked
def project(x: Float[np.ndarray, "b c"], y: Float[np.ndarray, "c d"]) -> Float[np.ndarray, "b d"]:
    return np.zeros((x.shape[0], 7))  # tensortypes: ignore[return] (the bug the tests catch)


def _message(fn, *args, **kwargs) -> str:
    with pytest.raises(TypeCheckError) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_parameter_error_names_everything():
    text = _message(project, np.zeros((2, 3)), np.zeros((4, 5)))
    line = project.__wrapped__.__code__.co_firstlineno
    assert "test_runtime_messages.project" in text
    assert f"test_runtime_messages.py:{line}" in text
    assert "parameter y" in text
    assert "f64[4,5](numpy)" in text
    assert "Float[np.ndarray, 'c d']" in text
    assert "axis 0 of y has size 4, but c=3 was bound by axis 1 of x" in text
    assert "b=2 (axis 0 of x)" in text and "c=3 (axis 1 of x)" in text


def test_return_error_says_return_value_and_every_binding():
    text = _message(project, np.zeros((2, 3)), np.zeros((3, 5)))
    assert "return value" in text and "parameter" not in text.splitlines()[0]
    assert "f64[2,7](numpy)" in text
    assert "axis 1 of the return value has size 7, but d=5 was bound by axis 1 of y" in text
    assert "d=5 (axis 1 of y)" in text


def test_dtype_and_kind_reasons():
    @typechecked
    def f(x: Int32[np.ndarray, "n"]) -> None:
        pass

    assert "dtype is float64" in _message(f, np.zeros(3))
    text = _message(f, [1, 2, 3])
    assert "list [1, 2, 3]" in text and "NumPy array" in text


def test_rank_reason():
    @typechecked
    def f(x: Float[np.ndarray, "a b"]) -> None:
        pass

    text = _message(f, np.zeros(3))
    assert "x:" in text and "(3,)" in text and "'a b'" in text


def test_expression_reason_shows_the_value_it_expected():
    @typechecked
    def f(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n-1"]:
        return x  # tensortypes: ignore[return] (the bug under test)

    text = _message(f, np.zeros(4))
    assert "has size 4, but n-1 is 3" in text


def test_nested_values_are_located():
    @typechecked
    def f(xs: List[Float[np.ndarray, "n"]]) -> None:
        pass

    assert "axis 0 of xs[1] has size 3, but n=2 was bound by axis 0 of xs[0]" in _message(
        f, [np.zeros(2), np.zeros(3)]
    )


def test_optional_reports_the_array_reason():
    @typechecked
    def f(x: Float[np.ndarray, "n"], y: Optional[Float[np.ndarray, "n"]]) -> None:
        pass

    assert "axis 0 of y has size 5, but n=2 was bound by axis 0 of x" in _message(
        f, np.zeros(2), np.zeros(5)
    )


def test_plain_python_reasons_come_from_the_type_language():
    @typechecked
    def f(x: List[int]) -> None:
        pass

    text = _message(f, [1, "a"])
    assert "parameter x" in text and "at [1]: expected int, got str 'a'" in text


def test_message_for_methods_uses_the_qualified_name():
    class Layer:
        @typechecked
        def __call__(self, x: Float32[np.ndarray, "n"]) -> None:
            pass

    assert "Layer.__call__" in _message(Layer(), np.zeros(2))


def test_short_forms():
    assert short_dtype("bfloat16") == "bf16" and short_dtype("complex64") == "c64"
    assert short_dtype("float8_e4m3fn") == "f8e4m3fn" and short_dtype("key<fry>") == "key<fry>"
    assert short_value(np.zeros((), np.int32)) == "i32[](numpy)"
    assert short_value("x" * 100).startswith("str 'xxx")
    assert len(short_value("x" * 100)) < 50
    assert annotation_str(List[int]) == "List[int]"
    assert annotation_str(Optional[Float[np.ndarray, "n"]]) == "Optional[Float[np.ndarray, 'n']]"


def test_short_value_of_torch_tensor(torch):
    assert short_value(torch.zeros(3, dtype=torch.int32)) == "i32[3](torch)"
