"""Small Types and Ops for the graph tests (the tensor layer is not used here).

- ``floatt``: the singleton Type of Python floats (ints convert when exact).
- ``RangeType(lo, hi)``: floats in ``[lo, hi]``; a narrower range is a subtype,
  and ``convert_variable`` wraps a wider variable in ``AssertRange`` (the
  analogue of ``SpecifyShape``).
- Ops: ``add``, ``mul``, ``neg``, ``divmod_op`` (two outputs), ``AssertRange``
  (with props), ``Forgetful`` (a perform that stores nothing).
"""

from __future__ import annotations

import numpy as np

from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, Op, SingletonType, Type, Variable


class FloatType(SingletonType):
    def filter(self, data, strict=False, allow_downcast=None):
        if type(data) is float:
            return data
        if strict:
            raise TypeCheckError(f"expected a float, got {type(data).__name__} {data!r}")
        if isinstance(data, (bool, np.bool_)) or not isinstance(
            data, (int, float, np.integer, np.floating)
        ):
            raise TypeCheckError(f"expected a number, got {type(data).__name__} {data!r}")
        converted = float(data)
        if converted != data and not allow_downcast:
            raise TypeCheckError(f"{data!r} is not exactly representable as a float")
        return converted


floatt = FloatType()


class RangeType(Type):
    def __init__(self, lo, hi):
        if lo > hi:
            raise ValueError(f"empty range [{lo}, {hi}]")
        self.lo, self.hi = float(lo), float(hi)

    def __eq__(self, other):
        return type(other) is RangeType and (self.lo, self.hi) == (other.lo, other.hi)

    def __hash__(self):
        return hash((RangeType, self.lo, self.hi))

    def __repr__(self):
        return f"Range[{self.lo:g}, {self.hi:g}]"

    def filter(self, data, strict=False, allow_downcast=None):
        value = floatt.filter(data, strict=strict, allow_downcast=allow_downcast)
        if not self.lo <= value <= self.hi:
            raise TypeCheckError(f"{value} is outside {self}")
        return value

    def in_same_class(self, otype):
        return isinstance(otype, RangeType)

    def is_super(self, otype):
        if isinstance(otype, RangeType):
            return self.lo <= otype.lo and otype.hi <= self.hi
        return False

    def convert_variable(self, var):
        if self.is_super(var.type):
            return var
        if var.type == floatt or isinstance(var.type, RangeType):
            return AssertRange(self.lo, self.hi)(var)
        return None


def _as_float_variable(x):
    if isinstance(x, Variable):
        if x.type != floatt and not isinstance(x.type, RangeType):
            raise TypeError(f"expected a float variable, got {x} of type {x.type}")
        return x
    return floatt.make_constant(x)


class Add(Op):
    def make_node(self, a, b):
        return Apply(self, [_as_float_variable(a), _as_float_variable(b)], [floatt()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + inputs[1]


class Mul(Op):
    def make_node(self, a, b):
        return Apply(self, [_as_float_variable(a), _as_float_variable(b)], [floatt()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * inputs[1]


class Neg(Op):
    def make_node(self, a):
        return Apply(self, [_as_float_variable(a)], [floatt()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = -inputs[0]


class DivMod(Op):
    def make_node(self, a, b):
        return Apply(self, [_as_float_variable(a), _as_float_variable(b)], [floatt(), floatt()])

    def perform(self, node, inputs, output_storage):
        q, r = divmod(*inputs)
        output_storage[0][0] = q
        output_storage[1][0] = r


class AssertRange(Op):
    __props__ = ("lo", "hi")

    def __init__(self, lo, hi):
        self.lo, self.hi = float(lo), float(hi)

    def make_node(self, x):
        return Apply(self, [_as_float_variable(x)], [RangeType(self.lo, self.hi)()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = node.outputs[0].type.filter(inputs[0])


class Forgetful(Op):
    def make_node(self, a):
        return Apply(self, [_as_float_variable(a)], [floatt()])

    def perform(self, node, inputs, output_storage):
        return None  # stores nothing: the evaluator must notice


add, mul, neg, divmod_op = Add(), Mul(), Neg(), DivMod()
