"""The Type contract's defaults, SingletonType and Generic (PyTensor and Theano)."""

from __future__ import annotations

import copy
import pickle
import sys

import numpy as np
import pytest

from graph_toys import AssertRange, FloatType, RangeType, floatt
from tensortypes.errors import MethodNotDefined, TypeCheckError
from tensortypes.graph import (
    Constant,
    CRegistered,
    Generic,
    SingletonType,
    Type,
    Variable,
    generic,
)


class Text(Type):
    def filter(self, data, strict=False, allow_downcast=None):
        if isinstance(data, str):
            return data
        if strict:
            raise TypeCheckError(f"expected a str, got {data!r}")
        if isinstance(data, bytes):
            return data.decode()
        raise ValueError(f"cannot make a str of {data!r}")


class TextVariable(Variable):
    __slots__ = ()


class TextConstant(Constant):
    __slots__ = ()


class TypedText(Text):
    variable_type = TextVariable
    constant_type = TextConstant


def test_type_itself_and_a_subclass_without_filter_are_abstract():
    with pytest.raises(TypeError):
        Type()

    class NoFilter(Type):
        pass

    with pytest.raises(TypeError):
        NoFilter()
    with pytest.raises(TypeError):
        SingletonType()


def test_is_valid_value_answers_a_bool_and_catches_type_and_value_errors():
    text = Text()
    assert text.is_valid_value("a") is True
    assert text.is_valid_value(b"a") is False  # strict by default
    assert text.is_valid_value(b"a", strict=False) is True
    assert text.is_valid_value(3, strict=False) is False  # ValueError from filter


def test_is_valid_value_lets_other_errors_through():
    class Broken(Type):
        def filter(self, data, strict=False, allow_downcast=None):
            raise KeyError("bug")

    with pytest.raises(KeyError):
        Broken().is_valid_value(1)


def test_value_validity_msg():
    text = Text()
    assert text.value_validity_msg("ok") == "valid"
    assert text.value_validity_msg(3) == "expected a str, got 3"


def test_default_values_eq_and_approx():
    text = Text()
    assert text.values_eq("a", "a") is True
    assert text.values_eq("a", "b") is False
    assert text.values_eq_approx("a", "a") is True


def test_filter_inplace_and_get_size_are_not_defined_by_default():
    text = Text()
    with pytest.raises(MethodNotDefined, match="Text does not define filter_inplace"):
        text.filter_inplace("a", "b")
    with pytest.raises(MethodNotDefined, match="get_size"):
        text.get_size(text.get_shape_info("abc"))
    assert text.get_shape_info("abc") == "abc"


def test_identity_is_the_default_equality():
    a, b = Text(), Text()
    assert a == a and a != b
    assert hash(a) == hash(a)
    assert a.in_same_class(a) is True and a.in_same_class(b) is False
    assert a.is_super(a) is True and a.is_super(b) is None


def test_may_share_memory():
    arr = np.arange(6.0)
    assert Type.may_share_memory(arr, arr[2:]) is True
    assert Type.may_share_memory(arr, np.arange(6.0)) is False
    obj = object()
    assert Text.may_share_memory(obj, obj) is True
    assert Text.may_share_memory([1], [1]) is False


def test_make_variable_call_and_make_constant_use_the_class_attributes():
    text = TypedText()
    v = text("s")
    assert type(v) is TextVariable and v.type is text and v.name == "s"
    assert type(text.make_variable()) is TextVariable
    c = text.make_constant(b"abc", name="c")
    assert type(c) is TextConstant and c.data == "abc" and c.name == "c"
    assert type(Text()()) is Variable


def test_clone_builds_the_same_class_with_new_arguments():
    r = RangeType(0, 1)
    r2 = r.clone(0, 5)
    assert type(r2) is RangeType and r2 == RangeType(0, 5)
    assert floatt.clone() is floatt


def test_filter_variable_wraps_data_in_a_constant():
    c = floatt.filter_variable(2)
    assert isinstance(c, Constant) and c.type is floatt and c.data == 2.0
    with pytest.raises(TypeCheckError):
        floatt.filter_variable("nope")


def test_filter_variable_converts_through_convert_variable():
    wide = floatt("x")
    narrow = RangeType(0, 1)
    out = narrow.filter_variable(wide)
    assert out.type == narrow and isinstance(out.owner.op, AssertRange)
    assert out.owner.inputs == [wide]
    inner = RangeType(0.2, 0.5)("y")
    assert narrow.filter_variable(inner) is inner  # a subtype is used as is


def test_filter_variable_without_conversion_refuses_another_type():
    x = floatt("x")
    with pytest.raises(TypeError) as info:
        RangeType(0, 1).filter_variable(x, allow_convert=False)
    message = str(info.value)
    assert "Cannot convert Type FloatType (of Variable x) into Type Range[0, 1]" in message
    assert "manually convert x into a Range[0, 1]" in message


def test_filter_variable_refuses_when_convert_variable_gives_none():
    with pytest.raises(TypeError, match="Cannot convert Type Text"):
        floatt.filter_variable(Text()("t"))


def test_default_convert_variable():
    text = Text()
    v = text("v")
    assert text.convert_variable(v) is v
    assert text.convert_variable(Text()("w")) is None


# -- SingletonType ----------------------------------------------------------------------


class Unit(SingletonType):
    def filter(self, data, strict=False, allow_downcast=None):
        if data is not None:
            raise TypeCheckError(f"expected None, got {data!r}")
        return data


class SubUnit(Unit):
    pass


def test_singleton_identity_per_class():
    assert Unit() is Unit()
    assert SubUnit() is SubUnit()
    assert SubUnit() is not Unit()
    assert Unit() != SubUnit() and Unit() == Unit()
    assert hash(Unit()) == hash(Unit)
    assert repr(Unit()) == "Unit" and str(SubUnit()) == "SubUnit"


def test_singleton_pickles_and_copies_to_itself():
    u = Unit()
    assert pickle.loads(pickle.dumps(u)) is u
    assert pickle.loads(pickle.dumps(floatt)) is floatt
    assert copy.copy(u) is u and copy.deepcopy([u])[0] is u


def test_singleton_takes_no_arguments():
    with pytest.raises(TypeError):
        Unit(1)


def test_float_toy_is_a_singleton():
    assert FloatType() is floatt


# -- Generic ---------------------------------------------------------------------------------


def test_generic_accepts_anything_as_is():
    obj = object()
    assert generic.filter(obj) is obj
    assert generic.filter(obj, strict=True) is obj
    assert generic.is_valid_value(obj) is True
    assert Generic() is generic and isinstance(generic, CRegistered)
    assert pickle.loads(pickle.dumps(generic)) is generic


def test_generic_values_eq_never_crashes():
    a = np.arange(3)
    assert generic.values_eq(a, a) is True
    assert generic.values_eq(a, np.arange(3)) is False  # ambiguous ==: falls back to identity
    assert generic.values_eq(1, 1.0) is True
    assert generic.values_eq("a", "b") is False

    class Angry:
        def __eq__(self, other):
            raise RuntimeError("no comparisons")

        __hash__ = object.__hash__

    x = Angry()
    assert generic.values_eq(x, x) is True
    assert generic.values_eq(x, Angry()) is False


def test_generic_get_size():
    data = [1, 2, 3]
    assert generic.get_size(generic.get_shape_info(data)) == sys.getsizeof(data)


def test_duck_typed_type_is_accepted_by_variables():
    class Duck:
        def filter(self, data, strict=False, allow_downcast=None):
            return int(data)

        def __str__(self):
            return "Duck"

    v = Variable(Duck())
    assert str(v) == "<Duck>"
    assert v.eval({v: "3"}) == 3
