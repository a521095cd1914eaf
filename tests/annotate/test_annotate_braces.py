"""Braces ``{...}`` in shape strings: dims expressions over arguments, values as numbers.

Regression tests for the reliability probe's findings on braces (textual
substitution, call-time ``AnnotationError`` for a bad value, raw exceptions for
hostile values, any attribute reachable and printed) and for jaxtyping's
``{dim-1}``.
"""

import dataclasses

import numpy as np
import pytest

from tensortypes import AnnotationError, Float, TypeCheckError, typechecked
from tensortypes.annotate import parse_shape, scope
from tensortypes.core.limits import MAX_BITS


def test_a_brace_is_a_number_never_text():
    @typechecked
    def f(x: Float[np.ndarray, "n"], y: Float[np.ndarray, "n*{k}"], k):
        pass

    f(np.zeros(3), np.zeros(6), 2)
    with pytest.raises(TypeCheckError):
        f(np.zeros(3), np.zeros(31), 1)  # "n{k}" with k=1 was the fresh symbol n1
    with pytest.raises(AnnotationError, match="a brace is a whole operand"):
        Float[np.ndarray, "n{k}"]
    with pytest.raises(AnnotationError, match="a brace is a whole operand"):
        Float[np.ndarray, "{a}{b}"]  # was pasted into "2-1" for a=2, b=-1


def test_a_negative_value_is_a_value_not_a_sign_pasted_in():
    @typechecked
    def f(x: Float[np.ndarray, "n"], y: Float[np.ndarray, "n+{k}"], k):
        pass

    f(np.zeros(3), np.zeros(2), -1)
    with pytest.raises(TypeCheckError):
        f(np.zeros(3), np.zeros(4), -1)

    @typechecked
    def g(y: Float[np.ndarray, "2*{k}"], k):
        pass

    g(np.zeros(6), 3)
    with pytest.raises(TypeCheckError):
        g(np.zeros(1), -1)  # pasted as text this was "2*-1": a parse error at call time


def test_braces_hold_expressions_over_arguments_and_attributes():
    class Layer:
        size = 4

    @typechecked
    def f(self, x: Float[np.ndarray, "{self.size} {dim-1} {a*b}"], dim, a, b):
        pass

    f(Layer(), np.zeros((4, 2, 6)), 3, 2, 3)
    with pytest.raises(TypeCheckError, match="axis 1"):
        f(Layer(), np.zeros((4, 3, 6)), 3, 2, 3)


def test_jaxtyping_deferred_symbolic_dim_minus_one_on_a_dataclass():
    @typechecked
    @dataclasses.dataclass
    class A:
        value: Float[np.ndarray, "{dim-1}"]
        dim: int

    A(np.zeros(4), 5)
    with pytest.raises(TypeCheckError):
        A(np.zeros(5), 5)


def test_a_bad_value_is_a_type_check_error_not_an_annotation_error():
    @typechecked
    def g(x: Float[np.ndarray, "{a}//{b}"], a, b):
        pass

    g(np.zeros(3), 6, 2)
    with pytest.raises(TypeCheckError, match="division by zero"):
        g(np.zeros(3), 6, 0)

    @typechecked
    def h(x: Float[np.ndarray, "{a}**{b}"], a, b):
        pass

    h(np.zeros(8), 2, 3)
    with pytest.raises(TypeCheckError, match="negative exponent"):
        h(np.zeros(1), 2, -1)


class _RaisingIndex:
    def __index__(self):
        raise RuntimeError("index boom")


class _RaisingRepr:
    def __repr__(self):
        raise RuntimeError("repr boom")

    __str__ = __repr__


@pytest.mark.parametrize(
    "value, fragment",
    [
        (np.array(3.0), "a ndarray"),
        (np.array([1, 2]), "a ndarray"),
        (10**5000, f"sizes have at most {MAX_BITS}"),
        (_RaisingIndex(), "a _RaisingIndex"),
        (_RaisingRepr(), "a _RaisingRepr"),
        ("3", "a str"),
        (None, "a NoneType"),
        (2.5, "2.5 (float)"),
        (True, "True (bool)"),
    ],
    ids=[
        "float-array",
        "int-array",
        "huge",
        "raising-index",
        "raising-repr",
        "str",
        "none",
        "float",
        "bool",
    ],
)
def test_hostile_brace_values_are_type_check_errors(value, fragment):
    @typechecked
    def fb(x: Float[np.ndarray, "{k}"], k):
        pass

    with pytest.raises(TypeCheckError) as info:
        fb(np.zeros(3), value)
    assert fragment in str(info.value)


def test_int_like_values_are_sizes():
    @typechecked
    def fb(x: Float[np.ndarray, "{k}"], k):
        pass

    for value in (3, np.int8(3), np.int64(3), np.array(3)):
        fb(np.zeros(3), value)


def test_a_message_never_shows_an_object_reached_through_a_brace():
    secret = "sk-secret-123"

    class Config:
        token = secret

        @property
        def size(self):
            raise ValueError(f"no size, but the token is {secret}")

    @typechecked
    def f(x: Float[np.ndarray, "{cfg.token}"], cfg):
        pass

    @typechecked
    def g(x: Float[np.ndarray, "{cfg.size}"], cfg):
        pass

    for fn in (f, g):
        with pytest.raises(TypeCheckError) as info:
            fn(np.zeros(3), Config())
        assert secret not in str(info.value)
    with pytest.raises(TypeCheckError, match="ValueError reading .size"):
        g(np.zeros(3), Config())
    with pytest.raises(AnnotationError, match="dunder"):
        Float[np.ndarray, "{fn.__globals__}"]


def test_resolving_outside_a_call_or_without_the_argument_is_an_annotation_error():
    (t,) = parse_shape("{dim-1}").dims
    with pytest.raises(AnnotationError, match="no checked call"):
        t.resolve(None)
    with pytest.raises(AnnotationError, match="no argument 'dim'"):
        t.resolve({"other": 1})
    with scope({"dim": 4}):
        assert isinstance(np.zeros(3), Float[np.ndarray, "{dim-1}"])
        assert not isinstance(np.zeros(4), Float[np.ndarray, "{dim-1}"])


def test_the_static_checker_reads_brace_expressions_as_sizes():
    from tensortypes.check.shapetext import shape_pattern

    assert str(shape_pattern("b {self.d_in} {dim-1}")) == "b d_in dim-1"
    assert str(shape_pattern("{a*b} {self.min}")) == "a*b self_min"
