"""PyTensor's ``DoubleType`` example, transcribed with its typos corrected.

The spec's listing has ``false``/``none``/``typeerror`` for ``False``/``None``/
``TypeError`` and two ``raise`` statements at the wrong indentation; the prose
says what the code must do, and every statement of the prose is checked here.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, Constant, Op, Type, Variable


class DoubleType(Type):
    def filter(self, x, strict=False, allow_downcast=None):
        if strict:
            if isinstance(x, float):
                return x
            raise TypeError("Expected a float!")
        elif allow_downcast:
            return float(x)
        else:  # covers both the False and None cases.
            x_float = float(x)
            if x_float == x:
                return x_float
            raise TypeError(
                "The double type cannot accurately represent "
                f"value {x} (of type {type(x)}): you must explicitly "
                "allow downcasting if you want to do this."
            )

    def values_eq_approx(self, x, y, tolerance=1e-4):
        if x == y:  # the spec's formula divides by zero for x == y == 0
            return True
        return abs(x - y) / (abs(x) + abs(y)) < tolerance


double = DoubleType()

LOSSY_INT = 2**53 + 1  # the first int that a float64 cannot hold


class DoubleAdd(Op):
    def make_node(self, x, y):
        x, y = double.filter_variable(x), double.filter_variable(y)
        return Apply(self, [x, y], [double()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + inputs[1]


double_add = DoubleAdd()


# -- filter -------------------------------------------------------------------------


def test_strict_accepts_a_float_as_is():
    x = 2.5
    assert double.filter(x, strict=True) is x


def test_strict_refuses_an_int():
    with pytest.raises(TypeError, match="Expected a float"):
        double.filter(3, strict=True)


def test_non_strict_converts_an_int():
    out = double.filter(3)
    assert out == 3.0 and type(out) is float


@pytest.mark.parametrize("allow_downcast", [None, False])
def test_lossy_int_is_refused_without_allow_downcast(allow_downcast):
    assert float(LOSSY_INT) != LOSSY_INT
    with pytest.raises(TypeError, match="cannot accurately represent"):
        double.filter(LOSSY_INT, allow_downcast=allow_downcast)


@pytest.mark.skipif(
    np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant,
    reason="long double is float64 on this platform",
)
def test_lossy_long_double_is_refused_without_allow_downcast():
    value = np.longdouble(1) + np.finfo(np.longdouble).eps
    with pytest.raises(TypeError, match="cannot accurately represent"):
        double.filter(value)
    assert double.filter(value, allow_downcast=True) == 1.0


def test_allow_downcast_true_converts_a_lossy_value():
    assert double.filter(LOSSY_INT, allow_downcast=True) == float(LOSSY_INT)


@settings(deadline=None)
@given(st.floats(allow_nan=False))
def test_filter_is_idempotent(x):
    once = double.filter(x)
    assert double.filter(once, strict=True) == once


def test_is_valid_value_uses_strict_filter():
    assert double.is_valid_value(1.0) is True
    assert double.is_valid_value(1) is False
    assert double.is_valid_value(1, strict=False) is True
    assert double.is_valid_value("x", strict=False) is False  # float("x") is a ValueError
    assert double.value_validity_msg(1.0) == "valid"
    assert "Expected a float" in double.value_validity_msg(1)


# -- values_eq_approx ----------------------------------------------------------------------


def test_values_eq_approx_tolerates_rounding_but_values_eq_does_not():
    a = 0.1
    six_adds = a + a + a + a + a + a
    assert six_adds != 6 * a
    assert double.values_eq(six_adds, 6 * a) is False
    assert double.values_eq_approx(six_adds, 6 * a) is True
    assert double.values_eq_approx(1.0, 1.1) is False
    assert double.values_eq_approx(1.0, 1.01, tolerance=0.1) is True
    assert double.values_eq_approx(0.0, 0.0) is True


# -- identity of Types ------------------------------------------------------------------------


def test_two_instances_are_different_types():
    double1, double2 = DoubleType(), DoubleType()
    assert double1 != double2
    assert double1 == double1
    assert len({double1, double2, double1}) == 2
    assert double1.is_super(double1) is True
    assert double1.in_same_class(double2) is False
    assert double1.is_super(double2) is None


# -- variables --------------------------------------------------------------------------------


def test_make_variable_and_call():
    x = double.make_variable("x")
    assert isinstance(x, Variable) and x.type is double and x.name == "x"
    y = double()
    assert y.type is double and y.name is None and y.owner is None


def test_filter_variable():
    c = double.filter_variable(2)
    assert isinstance(c, Constant) and c.type is double and c.data == 2.0
    x = double("x")
    assert double.filter_variable(x) is x
    other = DoubleType()("y")
    with pytest.raises(
        TypeError, match="Cannot convert Type DoubleType .of Variable y. into Type DoubleType"
    ):
        double.filter_variable(other)


def test_constant_refuses_lossy_data():
    with pytest.raises(TypeError):
        double.make_constant(LOSSY_INT)


def test_eval_through_an_op():
    x, y = double("x"), double("y")
    z = double_add(x, y)
    assert z.owner.op is double_add and z.type is double
    assert z.eval({x: 1.5, y: 2}) == 3.5
    assert double_add(x, 0.25).eval({x: 1.0}) == 1.25
    with pytest.raises(TypeCheckError, match="cannot accurately represent"):
        z.eval({x: LOSSY_INT, y: 0.0})
