"""The C linker: user types and ops, perform fallbacks, failure paths, symbols, outputs."""

from __future__ import annotations

import sys
import tracemalloc

import numpy as np
import pytest

from c_toys import (
    AllocThenFail,
    DoubleMul,
    PlusHalf,
    Square,
    Unversioned,
    WrongDtype,
    double,
    fgraph,
    needs_cc,
)
from tensortypes.errors import MethodNotDefined, TypeCheckError
from tensortypes.graph import Apply, CLinkerOp, Op
from tensortypes.link.c import CLinker
from tensortypes.tensor import TensorType, constant, dvector, specify_shape, tensor
from tensortypes.tensor.elemwise import add, exp, mul

pytestmark = needs_cc


# -- PyTensor's DoubleType with C code, and an op using it ------------------------------------


def test_a_user_type_and_op_run_in_c(linker):
    x, y = double("x"), double("y")
    compiled = linker.compile(fgraph([x, y], [DoubleMul()(DoubleMul()(x, y), y)]))
    assert compiled.fallbacks == []
    assert "= V0 * V1;" in compiled.source
    assert compiled.function([2.0, 3.0]) == [18.0]
    with pytest.raises(TypeError, match="expected a float"):
        compiled.function([2, 3.0])  # the type's own extraction code refuses an int


def test_make_function_is_one_c_function(linker):
    x = double("x")
    f = linker.make_function(fgraph([x], [DoubleMul()(x, x)]))
    assert type(f).__name__ == "builtin_function_or_method"
    assert f((1.5,)) == [2.25]


# -- per-node fallback to perform -----------------------------------------------------------------


def test_ops_without_c_code_run_through_perform_inside(linker):
    x, y = double("x"), double("y")
    out = DoubleMul()(PlusHalf()(DoubleMul()(x, y)), y)
    compiled = linker.compile(fgraph([x, y], [out]))
    [(node, reason)] = compiled.fallbacks
    assert isinstance(node.op, PlusHalf) and "does not define c_code" in reason
    assert compiled.function([2.0, 3.0]) == [19.5]


def test_a_wrong_perform_result_is_an_error_not_silently_wrong(linker):
    x = dvector("x")
    f = linker.make_function(fgraph([x], [exp(WrongDtype()(x))]))
    with pytest.raises(TypeCheckError, match="output 0 of WrongDtype.*expected dtype float64"):
        f([np.ones(3)])


def test_float16_elementwise_falls_back_with_the_reason(linker):
    x = tensor("float16", (None,), name="x")
    compiled = linker.compile(fgraph([x], [add(x, x)]))
    [(node, reason)] = compiled.fallbacks
    assert "float16" in reason
    data = np.array([1.5, 2.0], dtype="float16")
    (out,) = compiled.function([data])
    assert out.dtype == np.float16 and np.array_equal(out, data + data)


class NoCodeNoPerform(Op):
    def make_node(self, x):
        return Apply(self, [x], [x.type()])


def test_an_op_with_neither_c_code_nor_perform_is_refused_at_build(linker):
    x = double("x")
    with pytest.raises(MethodNotDefined, match="cannot run NoCodeNoPerform.*perform"):
        linker.compile(fgraph([x], [NoCodeNoPerform()(x)]))


class Declines(Op, CLinkerOp):
    """Has c_code, but declines (MethodNotDefined) for integer inputs."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def c_code(self, node, name, inputs, outputs, sub):
        if node.inputs[0].type.dtype.startswith("int"):
            raise MethodNotDefined("integers are not handled in C")
        return (
            f"{outputs[0]} = (PyArrayObject*)PyArray_NewCopy({inputs[0]}, NPY_CORDER);\n"
            f"if (!{outputs[0]}) {{ {sub['fail']} }}"
        )

    def c_code_cache_version(self):
        return (1,)


def test_c_code_may_decline_per_node(linker):
    i, d = tensor("int64", (None,), name="i"), dvector("d")
    compiled = linker.compile(fgraph([i, d], [Declines()(i), Declines()(d)]))
    assert [str(n.op) for n, _ in compiled.fallbacks] == ["Declines"]
    assert "integers are not handled in C" in compiled.fallbacks[0][1]
    out_i, out_d = compiled.function([np.arange(3), np.ones(2)])
    assert list(out_i) == [0, 2, 4] and list(out_d) == [1.0, 1.0]


# -- outputs ------------------------------------------------------------------------------------


def test_outputs_may_repeat_and_may_be_inputs_or_constants(linker):
    x = dvector("x")
    c = constant(np.array([1.0, 2.0]))
    y = exp(x)
    f = linker.make_function(fgraph([x], [y, x, y, c, add(y, c)]))
    data = np.zeros(2)
    y1, x1, y2, c1, s = f([data])
    assert y1 is y2 and x1 is data and np.array_equal(c1, [1.0, 2.0])
    assert np.array_equal(s, [2.0, 3.0])


def test_the_same_graph_twice_is_one_module(shared_cache):
    sources = []
    for _ in range(2):
        x, y = dvector("x"), dvector("y")
        sources.append(CLinker(shared_cache).compile(fgraph([x, y], [mul(exp(x), y)])))
    assert sources[0].source == sources[1].source
    assert sources[0].module is sources[1].module


# -- failure paths -------------------------------------------------------------------------------


def test_a_failing_node_releases_what_it_allocated(linker):
    x = dvector("x")
    f = linker.make_function(fgraph([x], [exp(AllocThenFail()(x))]))
    good = np.ones(1000)
    assert np.allclose(f([good])[0], np.e)
    bad = -np.ones(125_000)  # 1 MB allocated, then the node fails
    before = sys.getrefcount(bad)
    tracemalloc.start()
    try:
        for _ in range(3):
            with pytest.raises(ValueError, match="negative first element"):
                f([bad])
        baseline = tracemalloc.get_traced_memory()[0]
        for _ in range(200):
            with pytest.raises(ValueError, match="negative first element"):
                f([bad])
        grown = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()
    assert grown < 2_000_000  # 200 leaked outputs would be 200 MB
    assert sys.getrefcount(bad) == before


class Raises(Op):
    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        raise ArithmeticError("boom")


def test_a_failing_perform_propagates_its_exception(linker):
    x = dvector("x")
    f = linker.make_function(fgraph([x], [exp(Raises()(exp(x)))]))
    data = np.ones(3)
    before = sys.getrefcount(data)
    for _ in range(50):
        with pytest.raises(ArithmeticError, match="boom"):
            f([data])
    assert sys.getrefcount(data) == before


def test_extraction_errors_name_the_input_and_carry_its_index(linker):
    x, y = dvector("x"), TensorType("float64", (3,))("y")
    f = linker.make_function(fgraph([x, y], [add(x, y)]))
    with pytest.raises(
        TypeCheckError,
        match=r"input 1 \(y\).*axis 0 has size 4, but the "
        r"type requires 3",
    ) as info:
        f([np.ones(3), np.ones(4)])
    assert info.value.input_index == 1
    with pytest.raises(ValueError, match="could not be broadcast") as info:
        f([np.ones(2), np.ones(3)])
    assert not hasattr(info.value, "input_index")


# -- rigid symbols ------------------------------------------------------------------------------


def test_bare_symbols_bind_from_the_first_axis_and_are_checked(linker):
    x, y = tensor("float64", ("n", 2), name="x"), tensor("float64", ("n",), name="y")
    f = linker.make_function(fgraph([x, y], [exp(x), exp(y)]))
    f([np.ones((3, 2)), np.ones(3)])
    with pytest.raises(
        TypeCheckError,
        match=r"input 1 \(y\): axis 0 has size 4, but n=3 was "
        r"bound by input 0 \(x\), axis 0",
    ) as info:
        f([np.ones((3, 2)), np.ones(4)])
    assert info.value.input_index == 1


def test_many_symbols_each_keep_their_binding(linker):
    names = ["a", "b", "c", "d", "e"]
    xs = [tensor("float64", (n, "z"), name=f"x{n}") for n in names]
    f = linker.make_function(fgraph(xs, [exp(x) for x in xs]))
    values = [np.ones((k + 1, 2)) for k in range(5)]
    assert [v.shape for v in f(values)] == [(k + 1, 2) for k in range(5)]
    values[4] = np.ones((5, 3))
    with pytest.raises(TypeCheckError, match=r"input 4 \(xe\): axis 1 has size 3, but z=2"):
        f(values)


def test_symbolic_expressions_are_checked_with_the_bindings(linker):
    x, y = tensor("float64", ("n",), name="x"), tensor("float64", ("2*n",), name="y")
    f = linker.make_function(fgraph([x, y], [exp(x), exp(y)]))
    f([np.ones(3), np.ones(6)])
    with pytest.raises(
        TypeCheckError,
        match=r"input 1 \(y\): axis 0 has size 5, but 2\*n=6 "
        r"with n=3 \(as bound by input 0 \(x\) axis 0\)",
    ):
        f([np.ones(3), np.ones(5)])


def test_perform_outputs_are_checked_against_bound_symbols(linker):
    x = tensor("float64", ("n",), name="x")

    class Grow(Op):
        def make_node(self, v):
            return Apply(self, [v], [v.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = np.concatenate([inputs[0], [0.0]])

    f = linker.make_function(fgraph([x], [exp(Grow()(x))]))
    with pytest.raises(TypeCheckError, match="output 0 of .*Grow.*axis 0 has size 4, but n=3"):
        f([np.ones(3)])


# -- other lowerings, parameters, versions ----------------------------------------------------------


def test_specify_shape_checks_fixed_sizes_in_c(linker):
    x = dvector("x")
    compiled = linker.compile(fgraph([x], [exp(specify_shape(x, (3,)))]))
    assert compiled.fallbacks == []
    assert np.allclose(compiled.function([np.zeros(3)])[0], 1.0)
    with pytest.raises(TypeCheckError, match="SpecifyShape: axis 0 has size 2, expected 3"):
        compiled.function([np.zeros(2)])


class Counter(Op, CLinkerOp):
    """Uses per-node struct code: a member initialised, used and released each call."""

    def make_node(self, x):
        return Apply(self, [x], [double()])

    def c_support_code_struct(self, node, name):
        return f"double* scratch_{name};"

    def c_init_code_struct(self, node, name, sub):
        return (
            f"scratch_{name} = (double*)malloc(sizeof(double));\n"
            f"if (!scratch_{name}) {{ PyErr_NoMemory(); {sub['fail']} }}"
        )

    def c_cleanup_code_struct(self, node, name):
        return f"free(scratch_{name}); scratch_{name} = NULL;"

    def c_code(self, node, name, inputs, outputs, sub):
        return f"scratch_{name}[0] = {inputs[0]} + 1.0;\n{outputs[0]} = scratch_{name}[0];"

    def c_headers(self, **kwargs):
        return ["<stdlib.h>"]

    def c_code_cache_version(self):
        return (1,)


def test_struct_code_is_initialised_and_released(linker):
    x = double("x")
    f = linker.make_function(fgraph([x], [Counter()(x)]))
    assert f([1.0]) == [2.0] and f([5.0]) == [6.0]


def test_unversioned_code_is_built_for_this_process_only(fresh_cache):
    u = Unversioned()("u")
    compiled = CLinker(fresh_cache).compile(fgraph([u], [Square()(u)]))
    assert compiled.versioned is False and compiled.function([3.0]) == [9.0]
    assert fresh_cache.entries() == []
    x = double("x")
    compiled = CLinker(fresh_cache).compile(fgraph([x], [DoubleMul()(x, x)]))
    assert compiled.versioned is True and len(fresh_cache.entries()) == 1


def test_source_can_be_read_without_building(fresh_cache):
    x = double("x")
    source = CLinker(fresh_cache).source(fgraph([x], [PlusHalf()(DoubleMul()(x, x))]))
    assert "step 1: input 0 " in source and "PlusHalf (perform)" in source
    assert "tt_label_" in source and fresh_cache.stats["compiled"] == 0


def test_variable_names_never_enter_the_source(linker):
    sources = set()
    for names in ("xy", "ab"):
        x, y = (double(n) for n in names)
        compiled = linker.compile(fgraph([x, y], [DoubleMul()(x, y)]))
        sources.add(compiled.source)
        with pytest.raises(TypeError):
            compiled.function([1, 2.0])
    assert len(sources) == 1  # one module serves both graphs


# -- through tensortypes.link.function -----------------------------------------------------------


def test_function_mode_c_runs_fused_c_and_perform_nodes_together():
    from tensortypes.link import function
    from tensortypes.tensor.math import sum as tsum
    from tensortypes.tensor.shape_ops import reshape

    x, y = tensor("float64", ("n", 3), name="x"), tensor("float64", ("n", 3), name="y")
    z = reshape(exp(x) * y - x / y, (-1,))
    f = function([x, y], [z, tsum(z)], mode="c")
    a, b = np.random.rand(4, 3), np.random.rand(4, 3) + 1.0
    flat, total = f(a, b)
    expected = (np.exp(a) * b - a / b).ravel()
    assert np.allclose(flat, expected) and np.isclose(total, expected.sum())
    with pytest.raises(TypeCheckError, match="input 1"):
        f(a, np.ones((5, 3)))
