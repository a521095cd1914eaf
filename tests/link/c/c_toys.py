"""Small types and ops with their own C code, shared by the C back end's tests.

``DoubleType`` is PyTensor's example with the C methods of Theano's type interface added;
``DoubleMul`` is an op whose ``c_code`` uses it. The other ops exercise the
linker: a Python-only op, ops that fail in C after allocating, ops with C
parameters and per-node struct code.
"""

from __future__ import annotations

import numpy as np
import pytest

from tensortypes.graph import Apply, CLinkerOp, FunctionGraph, Op, Type
from tensortypes.link.c import default_compiler

needs_cc = pytest.mark.skipif(
    default_compiler() is None, reason="no C compiler found ($CC, gcc, clang or cc)"
)
"""Marks a test that compiles without the ``linker``/``fresh_cache`` fixtures."""


class DoubleType(Type):
    """PyTensor's ``DoubleType`` (Python floats), with C code written by hand."""

    def filter(self, x, strict=False, allow_downcast=None):
        if strict:
            if isinstance(x, float):
                return x
            raise TypeError("Expected a float!")
        if allow_downcast:
            return float(x)
        x_float = float(x)
        if x_float == x:
            return x_float
        raise TypeError(f"The double type cannot accurately represent value {x}")

    def values_eq_approx(self, x, y, tolerance=1e-4):
        return x == y or abs(x - y) / (abs(x) + abs(y)) < tolerance

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __repr__(self):
        return "double"

    # -- Theano's C methods, written as a user would (no base class) --------------
    def c_declare(self, name, sub, check_input=True):
        return f"double {name};"

    def c_init(self, name, sub):
        return f"{name} = 0.0;"

    def c_extract(self, name, sub, check_input=True):
        return f"""if (!PyFloat_Check(py_{name})) {{
    PyErr_SetString(PyExc_TypeError, "expected a float");
    {sub["fail"]}
}}
{name} = PyFloat_AsDouble(py_{name});"""

    def c_sync(self, name, sub):
        return f"""Py_XDECREF(py_{name});
py_{name} = PyFloat_FromDouble({name});
if (!py_{name}) {{ {sub["fail"]} }}"""

    def c_cleanup(self, name, sub):
        return ""

    def c_code_cache_version(self):
        return (1,)


double = DoubleType()


class DoubleMul(Op, CLinkerOp):
    """``x * y`` on doubles, in C."""

    def make_node(self, x, y):
        return Apply(self, [double.filter_variable(x), double.filter_variable(y)], [double()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * inputs[1]

    def c_code(self, node, name, inputs, outputs, sub):
        (x, y), (z,) = inputs, outputs
        return f"{z} = {x} * {y};"

    def c_code_cache_version(self):
        return (1,)


class Square(Op, CLinkerOp):
    """``x * x`` in C for any type whose C variable is a number."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]} * {inputs[0]};"

    def c_code_cache_version(self):
        return (1,)


class PlusHalf(Op):
    """``x + 0.5`` for any value with ``+``; Python only (no C code)."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + 0.5


class WrongDtype(Op):
    """A buggy perform: it returns int32 data for a float64 output."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0], dtype="int32")


class AllocThenFail(Op, CLinkerOp):
    """Allocates its output (an array the size of its input), then fails if asked."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        raise ValueError("AllocThenFail only runs in C")

    def c_code(self, node, name, inputs, outputs, sub):
        (x,), (z,) = inputs, outputs
        return f"""{z} = (PyArrayObject*)PyArray_NewLikeArray({x}, NPY_CORDER, NULL, 0);
if ({z} == NULL) {{ {sub["fail"]} }}
if (PyArray_SIZE({x}) > 0 && ((double*)PyArray_DATA({x}))[0] < 0) {{
    PyErr_SetString(PyExc_ValueError, "AllocThenFail: negative first element");
    {sub["fail"]}
}}
memcpy(PyArray_DATA({z}), PyArray_DATA({x}), PyArray_NBYTES({x}));"""

    def c_headers(self, **kwargs):
        return ["<string.h>"]

    def c_code_cache_version(self):
        return (1,)


class Unversioned(DoubleType):
    """A DoubleType whose C code has no version: never cached across processes."""

    def c_code_cache_version(self):
        return ()


def fgraph(inputs, outputs) -> FunctionGraph:
    """A FunctionGraph on a clone of the graph (tests may reuse their variables)."""
    return FunctionGraph(list(inputs), list(outputs), clone=True)


def array_value(dtype, shape, layout, rng):
    """A test array of ``shape``: integers in [-20, 20) or normal floats (sd 4), laid
    out C-contiguous, transposed, sliced (step 2 on the last axis), reversed
    (negative strides on the first axis) or broadcast (stride 0 on the first axis)."""
    if np.dtype(dtype).kind in "iu":
        v = rng.integers(-20, 20, shape).astype(dtype)
    else:
        v = rng.normal(0, 4, shape).astype(dtype)
    if layout == "transposed":
        return np.ascontiguousarray(v.T).T
    if layout == "sliced":
        return np.concatenate([v, v], axis=-1)[..., ::2]
    if layout == "reversed":
        return np.ascontiguousarray(v[::-1])[::-1]
    if layout == "broadcast":  # stride 0 along the first axis
        return np.broadcast_to(v[:1], v.shape) if v.shape[0] else v
    return v
