"""Variable, Constant and Apply (as in Theano), and ``Variable.eval``."""

from __future__ import annotations

import numpy as np
import pytest

import tensortypes.graph.basic as basic_module
from graph_toys import AssertRange, FloatType, RangeType, add, divmod_op, floatt, mul, neg
from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, Constant, MissingInputError, Scratchpad, Variable, generic

# -- Variable -------------------------------------------------------------------------------


def test_variable_has_the_four_attributes():
    x = Variable(floatt, name="x")
    assert (x.type, x.owner, x.index, x.name) == (floatt, None, None, "x")
    assert isinstance(x.tag, Scratchpad)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"type": 3}, "must be a Type"),
        ({"type": FloatType}, "got the class FloatType; did you mean FloatType()"),
        ({"type": floatt, "owner": "node", "index": 0}, "owner must be an Apply"),
        ({"type": floatt, "index": 1.0}, "index must be an int"),
        ({"type": floatt, "index": True}, "index must be an int"),
        ({"type": floatt, "name": 5}, "name must be a str"),
    ],
)
def test_variable_validation(kwargs, fragment):
    with pytest.raises(TypeError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        Variable(**kwargs)


def test_owned_variable_needs_an_index():
    node = add(floatt(), floatt()).owner
    with pytest.raises(TypeError, match="needs the int index"):
        Variable(floatt, owner=node)
    v = Variable(floatt, owner=node, index=np.int64(0))
    assert v.index == 0 and type(v.index) is int


def test_variables_compare_by_identity():
    x, y = floatt("x"), floatt("x")
    assert x != y and x == x
    assert len({x, y}) == 2


def test_clone_keeps_type_name_and_copies_tag():
    x = floatt("x")
    x.tag.trace = ["line 1"]
    y = add(x, x)
    y.name = "y"
    c = y.clone()
    assert type(c) is Variable and c is not y
    assert c.type is floatt and c.name == "y" and c.owner is None and c.index is None
    assert c.tag is not y.tag and c.tag.__dict__ == y.tag.__dict__
    c.tag.extra = 1
    assert not hasattr(y.tag, "extra")


def test_clone_keeps_the_subclass():
    class Special(Variable):
        __slots__ = ()

    assert type(Special(floatt).clone()) is Special


def test_str_and_repr():
    x = floatt("x")
    assert str(x) == repr(x) == "x"
    assert str(floatt()) == "<FloatType>"
    assert str(RangeType(0, 1)()) == "<Range[0, 1]>"
    y = add(x, x)
    assert str(y) == "Add.0"
    q, r = divmod_op(x, x)
    assert (str(q), str(r)) == ("DivMod.0", "DivMod.1")
    y.name = "y"
    assert str(y) == "y"


def test_str_uses_out_for_the_default_output():
    class DefaultFirst(type(divmod_op)):
        default_output = 0

    q = DefaultFirst()(floatt(), floatt())
    assert str(q) == "DefaultFirst.out"
    assert str(q.owner.outputs[1]) == "DefaultFirst.1"


# -- Constant -------------------------------------------------------------------------------


def test_constant_filters_its_data():
    c = Constant(floatt, 2)
    assert c.data == 2.0 and type(c.data) is float and c.value is c.data
    with pytest.raises(TypeCheckError):
        Constant(floatt, "two")
    with pytest.raises(TypeCheckError):
        Constant(RangeType(0, 1), 2.0)


def test_constant_has_no_owner_and_read_only_data():
    c = Constant(floatt, 1.0)
    assert c.owner is None and c.index is None
    c.owner = None  # harmless
    with pytest.raises(ValueError, match="cannot have an owner"):
        c.owner = add(floatt(), floatt()).owner
    with pytest.raises(AttributeError, match="read-only"):
        c.data = 2.0
    with pytest.raises(AttributeError):
        c.value = 2.0
    assert c.data == 1.0


def test_constant_cannot_be_an_output():
    with pytest.raises(ValueError, match="cannot have an owner"):
        Apply(add, [], [Constant(floatt, 1.0)])


def test_constant_clone_shares_the_data():
    arr = np.arange(3)
    c = Constant(generic, arr, name="c")
    c.tag.note = "n"
    d = c.clone()
    assert type(d) is Constant and d is not c
    assert d.data is arr and d.name == "c" and d.tag.note == "n" and d.tag is not c.tag


def test_constant_str():
    assert str(Constant(floatt, 2.0)) == "Constant{2.0}"
    assert str(Constant(floatt, 2.0, name="two")) == "two"
    long = str(Constant(generic, list(range(30))))
    assert long.startswith("Constant{[0, 1, 2,") and " ... " in long and long.endswith("29]}")

    class TensorConstant(Constant):
        __slots__ = ()

    assert repr(TensorConstant(generic, 2)) == "TensorConstant{2}"


def test_signature_and_equals_use_values_eq():
    a, b = Constant(floatt, 1.0), Constant(floatt, 1)
    assert a.signature() == b.signature() and hash(a.signature()) == hash(b.signature())
    assert a.equals(b) and b.equals(a)
    assert not a.equals(Constant(floatt, 2.0))
    assert not a.equals(Constant(RangeType(0, 5), 1.0))  # another type
    assert not a.equals(floatt())  # not a Constant
    assert a.signature() != (floatt, 1.0)  # a plain tuple is not a signature
    assert len({a.signature(), b.signature(), Constant(floatt, 3.0).signature()}) == 2


def test_signature_of_unhashable_and_array_data():
    x = Constant(generic, np.arange(3))
    y = Constant(generic, np.arange(3))
    assert x.signature() == x.signature()
    assert x.signature() != y.signature()  # generic compares arrays by identity
    assert hash(x.signature()) == hash(y.signature())
    d1, d2 = Constant(generic, {"a": 1}), Constant(generic, {"a": 1})
    assert d1.equals(d2) and hash(d1.signature()) == hash(d2.signature())


# -- Apply ----------------------------------------------------------------------------------


def test_apply_sets_owner_and_index():
    x, y = floatt("x"), floatt("y")
    o0, o1 = floatt(), floatt()
    node = Apply(divmod_op, [x, y], [o0, o1])
    assert (o0.owner, o0.index, o1.owner, o1.index) == (node, 0, node, 1)
    assert node.op is divmod_op and node.inputs == [x, y] and node.outputs == [o0, o1]
    assert (node.nin, node.nout) == (2, 2)
    assert isinstance(node.tag, Scratchpad)


def test_apply_validation():
    x = floatt("x")
    with pytest.raises(TypeError, match="input 1 of Add must be a Variable"):
        Apply(add, [x, 3.0], [floatt()])
    with pytest.raises(TypeError, match="output 0 of Add must be a Variable"):
        Apply(add, [x], ["out"])
    taken = add(x, x)
    with pytest.raises(ValueError, match="already the output of another node"):
        Apply(add, [x, x], [taken])
    assert taken.owner.op is add  # the failed Apply changed nothing


def test_default_output():
    x = floatt("x")
    node = add(x, x).owner
    assert node.default_output() is node.outputs[0] and node.out is node.outputs[0]
    multi = divmod_op.make_node(x, x)
    with pytest.raises(ValueError, match="2 outputs and no default_output"):
        multi.default_output()

    class Second(type(divmod_op)):
        default_output = 1

    node2 = Second().make_node(x, x)
    assert node2.out is node2.outputs[1]

    class Bad(type(divmod_op)):
        default_output = 5

    with pytest.raises(ValueError, match="not the index"):
        Bad().make_node(x, x).default_output()


def test_apply_clone():
    x, y = floatt("x"), floatt("y")
    node = add(x, y).owner
    node.tag.origin = "test"
    cp = node.clone()
    assert cp is not node and cp.op is node.op and cp.inputs == node.inputs
    assert cp.inputs is not node.inputs
    assert all(a is not b for a, b in zip(cp.outputs, node.outputs))
    assert cp.outputs[0].owner is cp and cp.tag.origin == "test"
    assert node.outputs[0].owner is node


def test_clone_with_new_inputs_same_types_keeps_the_outputs_types():
    x, y, z = floatt("x"), floatt("y"), floatt("z")
    node = add(x, y).owner
    new = node.clone_with_new_inputs([z, y])
    assert new.inputs == [z, y] and new.op is add and new is not node
    assert node.inputs == [x, y]
    assert new.outputs[0].type is floatt


def test_clone_with_new_inputs_strict_filters_and_converts():
    r = RangeType(0, 1)("r")
    node = AssertRange(0, 1).make_node(r)
    # A float variable is converted into the old input's type with AssertRange.
    wide = floatt("w")
    new = node.clone_with_new_inputs([wide])
    converted = new.inputs[0]
    assert converted.type == RangeType(0, 1) and converted.owner.inputs == [wide]
    # A raw value becomes a constant.
    x = floatt("x")
    node2 = add(x, x).owner
    assert node2.clone_with_new_inputs([x, 2]).inputs[1].data == 2.0
    with pytest.raises(TypeError, match="Cannot convert"):
        add(x, x).owner.clone_with_new_inputs([x, generic()])


def test_clone_with_new_inputs_remakes_the_node_when_types_change():
    r = RangeType(0, 1)("r")
    node = neg.make_node(r)
    node.tag.keep = True
    new = node.clone_with_new_inputs([floatt("f")], strict=False)
    assert new.inputs[0].type is floatt and new.tag.keep is True
    with pytest.raises(TypeError, match="must be a Variable"):
        node.clone_with_new_inputs([1.0], strict=False)
    with pytest.raises(ValueError, match="takes 1 inputs, got 2"):
        node.clone_with_new_inputs([r, r])


def test_apply_str():
    x, y = floatt("x"), floatt("y")
    assert str(add(x, y).owner) == "Add(x, y)"
    assert repr(mul(add(x, y), Constant(floatt, 2.0)).owner) == "Mul(Add.0, Constant{2.0})"


# -- eval -----------------------------------------------------------------------------------


def test_eval_computes_and_filters():
    x, y = floatt("x"), floatt("y")
    z = mul(add(x, y), 2)
    assert z.eval({x: 1, y: 2.5}) == 7.0
    assert Constant(floatt, 4.0).eval() == 4.0
    assert x.eval({x: 3}) == 3.0 and type(x.eval({x: 3})) is float


def test_eval_caches_the_compiled_function(monkeypatch):
    x, y = floatt("x"), floatt("y")
    z = add(x, y)
    calls = []
    real = basic_module.compile_graph

    def counting(inputs, outputs):
        calls.append(tuple(inputs))
        return real(inputs, outputs)

    monkeypatch.setattr(basic_module, "compile_graph", counting)
    assert z.eval({x: 1.0, y: 2.0}) == 3.0
    assert z.eval({x: 5.0, y: 2.0}) == 7.0
    assert z.eval({y: 1.0, x: 1.0}) == 2.0  # same Variables, other order: reused
    assert len(calls) == 1
    assert z.eval({x: 1.0, y: 1.0, z: 10.0}) == 10.0  # another set of inputs: compiled
    assert len(calls) == 2


def test_eval_missing_input_names_the_variable():
    x, y = floatt("x"), floatt("yvar")
    z = add(x, y)
    with pytest.raises(MissingInputError, match="yvar") as info:
        z.eval({x: 1.0})
    assert info.value.variable is y
    assert isinstance(info.value, ValueError)


def test_eval_refuses_non_variable_keys_and_non_mappings():
    x = floatt("x")
    with pytest.raises(TypeError, match="every key must be a Variable"):
        x.eval({"x": 1.0})
    with pytest.raises(TypeError, match="mapping"):
        x.eval([(x, 1.0)])


def test_eval_bad_value_raises_type_check_error_naming_the_input():
    x = floatt("x")
    with pytest.raises(TypeCheckError, match="input 0 .x."):
        add(x, x).eval({x: "one"})
