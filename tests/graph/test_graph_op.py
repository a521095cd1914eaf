"""``Op``: identity from props, printing, ``__call__`` and the optional methods."""

from __future__ import annotations

import pytest

from graph_toys import Add, AssertRange, DivMod, add, divmod_op, floatt
from tensortypes.errors import MethodNotDefined
from tensortypes.graph import Apply, Op, Variable


def test_equality_and_hash_follow_class_and_props():
    assert Add() == Add() and hash(Add()) == hash(Add())
    assert Add() != DivMod()
    a, b, c = AssertRange(0, 1), AssertRange(0, 1), AssertRange(0, 2)
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2

    class SubAdd(Add):
        pass

    assert SubAdd() != Add()


def test_str_shows_props_only_when_there_are_some():
    assert str(add) == "Add" and repr(add) == "Add"
    assert str(AssertRange(0, 1)) == "AssertRange{lo=0.0, hi=1.0}"


def test_props_must_be_a_tuple_of_names():
    with pytest.raises(TypeError, match="tuple of attribute names"):

        class Bad(Op):
            __props__ = ["a"]

    with pytest.raises(TypeError, match="tuple of attribute names"):

        class Bad2(Op):
            __props__ = ("a", 1)

    with pytest.raises(TypeError, match="twice"):

        class Bad3(Op):
            __props__ = ("a", "a")


def test_missing_prop_attribute_is_reported():
    class Forgot(Op):
        __props__ = ("axis",)

    with pytest.raises(AttributeError, match="lists 'axis' in __props__"):
        hash(Forgot())


def test_required_methods_raise_method_not_defined():
    class Bare(Op):
        pass

    op = Bare()
    with pytest.raises(MethodNotDefined, match="Bare does not define make_node"):
        op(floatt())
    with pytest.raises(MethodNotDefined, match="perform"):
        op.perform(None, [], [])
    with pytest.raises(MethodNotDefined, match="infer_shape"):
        op.infer_shape(None, None, [])
    assert issubclass(MethodNotDefined, NotImplementedError)
    assert op.do_constant_folding(None) is True


def test_call_returns_the_output_or_the_list():
    x = floatt("x")
    out = add(x, 1.0)
    assert isinstance(out, Variable) and out.owner.op is add
    outs = divmod_op(x, x)
    assert isinstance(outs, list) and len(outs) == 2
    assert outs[0].owner is outs[1].owner


def test_call_honours_default_output():
    class DivOnly(DivMod):
        default_output = 0

    x = floatt("x")
    q = DivOnly()(x, x)
    assert isinstance(q, Variable) and q.index == 0


def test_call_checks_make_node_returns_an_apply():
    class Liar(Op):
        def make_node(self, x):
            return [x]

    with pytest.raises(TypeError, match="must return an Apply"):
        Liar()(floatt())


def test_call_passes_keyword_arguments_to_make_node():
    class Scaled(Op):
        def make_node(self, x, *, copies=1):
            return Apply(self, [x] * copies, [floatt()])

    out = Scaled()(floatt("x"), copies=3)
    assert out.owner.nin == 3
