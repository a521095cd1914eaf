"""The evaluator: ``compile_graph``."""

from __future__ import annotations

import pytest

from graph_toys import AssertRange, Forgetful, add, divmod_op, floatt, mul, neg
from tensortypes.errors import TypeCheckError
from tensortypes.graph import (
    CompiledGraph,
    Constant,
    MissingInputError,
    Variable,
    compile_graph,
)


def test_compile_and_run():
    x, y = floatt("x"), floatt("y")
    s = add(x, y)
    q, r = divmod_op(mul(s, 2.0), y)
    fn = compile_graph([x, y], [q, r, s])
    assert isinstance(fn, CompiledGraph)
    assert fn(3.0, 4.0) == [3.0, 2.0, 7.0]
    assert fn(1, 1) == [4.0, 0.0, 2.0]  # ints filtered to floats
    assert len(fn.nodes) == 3
    assert "3 node(s)" in repr(fn)


def test_inputs_and_constants_as_outputs():
    x = floatt("x")
    c = Constant(floatt, 5.0)
    fn = compile_graph([x], [x, c, add(x, c)])
    out = fn(2)
    assert out == [2.0, 5.0, 7.0] and type(out[0]) is float


def test_intermediate_variable_as_input_cuts_the_graph():
    x = floatt("x")
    mid = neg(x)
    out = add(mid, 1.0)
    fn = compile_graph([mid], [out])
    assert fn(10.0) == [11.0]
    assert fn.nodes == (out.owner,)


def test_missing_input_at_compile_time():
    x, y = floatt("x"), floatt("lost")
    with pytest.raises(MissingInputError, match="lost") as info:
        compile_graph([x], [add(x, y)])
    assert info.value.variable is y
    with pytest.raises(MissingInputError, match="lost"):
        compile_graph([x], [y])


def test_wrong_number_of_values():
    x = floatt("x")
    fn = compile_graph([x], [neg(x)])
    with pytest.raises(TypeError, match="takes 1 input value"):
        fn()
    with pytest.raises(TypeError, match="got 2"):
        fn(1.0, 2.0)


def test_bad_input_value_is_a_type_check_error():
    x = floatt("x")
    fn = compile_graph([x], [neg(x)])
    with pytest.raises(TypeCheckError, match="input 0 .x. of type FloatType"):
        fn("a")


def test_runtime_check_inside_an_op_propagates():
    x = floatt("x")
    fn = compile_graph([x], [AssertRange(0, 1)(x)])
    assert fn(0.5) == [0.5]
    with pytest.raises(TypeCheckError, match="outside"):
        fn(3.0)


def test_empty_output_storage_is_a_clear_runtime_error():
    x = floatt("x")
    fn = compile_graph([x], [Forgetful()(x)])
    with pytest.raises(RuntimeError, match=r"Forgetful.perform left output 0 .* empty"):
        fn(1.0)


def test_duplicate_inputs_and_bad_arguments_are_refused():
    x = floatt("x")
    with pytest.raises(ValueError, match="given twice"):
        compile_graph([x, x], [x])
    with pytest.raises(TypeError, match="must be a Variable"):
        compile_graph([1.0], [x])


def test_values_do_not_leak_between_calls():
    x = floatt("x")
    fn = compile_graph([x], [neg(x), add(x, x)])
    assert fn(1.0) == [-1.0, 2.0]
    assert fn(2.0) == [-2.0, 4.0]


class SharedFloat(Variable):
    """A root that keeps a value between calls (the shape of a shared variable)."""

    __slots__ = ("_value",)

    def __init__(self, value, name=None):
        super().__init__(floatt, None, None, name)
        self._value = floatt.filter(value)

    def get_value(self, borrow=False):
        return self._value

    def set_value(self, value):
        self._value = floatt.filter(value)


def test_shared_roots_are_read_at_every_call():
    x = floatt("x")
    w = SharedFloat(2.0, name="w")
    fn = compile_graph([x], [mul(x, w)])
    assert fn(3.0) == [6.0]
    w.set_value(10)
    assert fn(3.0) == [30.0]
    assert compile_graph([], [w])() == [10.0]
    assert mul(x, w).eval({x: 0.5}) == 5.0
