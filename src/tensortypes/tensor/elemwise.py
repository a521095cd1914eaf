"""``Elemwise``: a scalar op applied to every element, with broadcasting (layer 4, ``tensor``).

``Elemwise(scalar_op)`` is an Op with ``__props__ = ("scalar_op",)``. Its output
type is fixed when the node is built: the dtype from the scalar op's rule (NumPy
2 promotion), the static shape from ``core.shapes.broadcast_static_shapes``
(symbolic sizes included, so ``("n", 3)`` with ``(1, 3)`` is ``("n", 3)``); a
provable mismatch is a TypeError naming the shapes. ``perform`` is NumPy.

Python scalars are *weak*, as in NumPy 2 (NEP 50): in ``x * 2.0`` with ``x``
float32 the constant is float32. A weak scalar takes the promoted dtype of the
other operands when its kind (int < float < complex) fits there, else the
default of its kind (int64, float64, complex128; complex64 next to float16 or
float32). An int that does not fit is a TypeError at build time, except in a
comparison, which NumPy answers exactly: there it becomes int64 or uint64.
NumPy scalars, arrays and Python bools are strong, as in NumPy.

The module also defines the elementwise functions (``add``, ``exp``, ``where``,
...) and registers the operators of ``TensorVariable``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortypes.core.shapes import broadcast_static_shapes, format_static_shape
from tensortypes.graph import Apply, Op, Variable
from tensortypes.tensor.basic import as_tensor_variable
from tensortypes.tensor.scalar_ops import SCALAR_OPS, ScalarOp, promote_dtypes
from tensortypes.tensor.type import TensorType
from tensortypes.tensor.variable import register_operators

__all__ = [
    "Elemwise",
    "elemwise",
    "add",
    "sub",
    "mul",
    "true_div",
    "floor_div",
    "mod",
    "pow",
    "neg",
    "abs",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "log1p",
    "expm1",
    "sigmoid",
    "softplus",
    "maximum",
    "minimum",
    "where",
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "neq",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
]

_WEAK_KIND = {int: "i", float: "f", complex: "c"}
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
_WEAK_DEFAULT = {"i": "int64", "f": "float64", "c": "complex128"}
_COMPARISONS = frozenset({"lt", "le", "gt", "ge", "eq", "neq"})


def _weak_dtype(op_name: str, value, strong: str | None) -> str:
    """The dtype NumPy 2 gives the Python scalar ``value`` next to dtype ``strong``."""
    kind = _WEAK_KIND[type(value)]
    if strong is None:
        dtype = _WEAK_DEFAULT[kind]
    else:
        skind = np.dtype(strong).kind
        if _KIND_RANK[skind] >= _KIND_RANK[kind]:
            dtype = strong
        elif kind == "c" and skind == "f":
            dtype = promote_dtypes(strong, "complex64")
        else:
            dtype = _WEAK_DEFAULT[kind]
    if kind == "i" and np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            if op_name in _COMPARISONS:
                for wide in ("int64", "uint64"):
                    if np.iinfo(wide).min <= value <= np.iinfo(wide).max:
                        return wide
            raise TypeError(
                f"{op_name}: the Python integer {value} is out of bounds for "
                f"{dtype}, the dtype of the other operand (NumPy raises "
                "OverflowError); make it an array of a wider dtype"
            )
    return dtype


def _weak_constant(value, dtype: str):
    with np.errstate(all="ignore"):
        data = np.asarray(value, dtype=dtype)
    return TensorType(dtype, ()).make_constant(data)


def as_elemwise_inputs(scalar_op: ScalarOp, inputs) -> list:
    """Tensor variables for ``inputs``: Variables as they are, Python scalars weak,
    other data (arrays, NumPy scalars, bools, lists) as constants of their dtype.

    >>> from tensortypes.tensor import fvector
    >>> from tensortypes.tensor.scalar_ops import mul
    >>> [v.dtype for v in as_elemwise_inputs(mul, [fvector("x"), 2.0])]
    ['float32', 'float32']
    """
    out: list = [None] * len(inputs)
    weak = []
    for i, x in enumerate(inputs):
        if type(x) in _WEAK_KIND:
            weak.append(i)
        elif isinstance(x, Variable):
            if not isinstance(x.type, TensorType):
                raise TypeError(
                    f"{scalar_op.name}: input {i} is {x} of type {x.type}, not a tensor"
                )
            out[i] = x
        else:
            try:
                out[i] = as_tensor_variable(x)
            except TypeError as exc:
                raise TypeError(f"{scalar_op.name}: input {i}: {exc}") from None
    if weak:
        promoted = set(scalar_op.promoted)
        strong = [out[i].dtype for i in scalar_op.promoted if out[i] is not None]
        r = promote_dtypes(*strong) if strong else None
        for i in weak:
            dtype = _weak_dtype(scalar_op.name, inputs[i], r if i in promoted else None)
            out[i] = _weak_constant(inputs[i], dtype)
    return out


class Elemwise(Op):
    """Apply ``scalar_op`` elementwise with NumPy broadcasting.

    >>> from tensortypes.tensor import tensor
    >>> x, y = tensor("float32", ("n", 3), name="x"), tensor("float32", (1, 3), name="y")
    >>> (x + y).type
    TensorType(float32, (n, 3))
    """

    __props__ = ("scalar_op",)
    __slots__ = ("scalar_op",)
    scalar_op: Any

    def __init__(self, scalar_op: ScalarOp):
        if not isinstance(scalar_op, ScalarOp):
            raise TypeError(
                f"Elemwise takes a ScalarOp, got {type(scalar_op).__name__} {scalar_op!r}"
            )
        object.__setattr__(self, "scalar_op", scalar_op)

    def __setattr__(self, key, value):
        raise AttributeError(f"Elemwise ops are immutable (cannot set {key!r})")

    def __reduce__(self):
        return (Elemwise, (self.scalar_op,))

    def __str__(self) -> str:
        return f"Elemwise{{{self.scalar_op.name}}}"

    __repr__ = __str__

    def make_node(self, *inputs) -> Apply:
        sop = self.scalar_op
        if len(inputs) != sop.nin:
            raise TypeError(f"{sop.name} takes {sop.nin} input(s), got {len(inputs)}")
        xs = as_elemwise_inputs(sop, inputs)
        try:
            dtypes = sop.output_dtypes(*(x.dtype for x in xs))
        except TypeError as exc:
            raise TypeError(f"{sop.name}({', '.join(map(str, xs))}): {exc}") from None
        shapes = [x.type.shape for x in xs]
        try:
            shape = broadcast_static_shapes(*shapes)
        except ValueError as exc:
            described = ", ".join(
                f"{x} with shape {format_static_shape(s)}" for x, s in zip(xs, shapes)
            )
            raise TypeError(f"{sop.name}: cannot broadcast {described}: {exc}") from None
        outs = [TensorType(d, shape).make_variable() for d in dtypes]
        return Apply(self, xs, outs)

    def perform(self, node, inputs, output_storage):
        result = self.scalar_op.impl(*inputs)
        if len(output_storage) == 1:
            result = (result,)
        for cell, value, var in zip(output_storage, result, node.outputs):
            cell[0] = _exact(value, var.type.numpy_dtype)

    def make_py_impl(self, node):
        """A plain callable ``f(*input_values) -> output value`` (single output only).

        The Python linker calls it instead of ``perform`` to skip the storage
        cells; the result is the same.
        """
        if len(node.outputs) != 1:
            return None
        impl = self.scalar_op.impl
        nd = node.outputs[0].type.numpy_dtype

        def run(*args):
            r = impl(*args)
            if type(r) is np.ndarray and r.dtype is nd:
                return r
            return _exact(r, nd)

        return run

    def infer_shape(self, fgraph, node, input_shapes):
        """The broadcast of the input shapes (NumPy's rule on concrete sizes)."""
        return [tuple(np.broadcast_shapes(*input_shapes))] * len(node.outputs)


def _exact(value, nd: np.dtype) -> np.ndarray:
    # NumPy returns scalars for 0-d results; graphs carry arrays of the exact dtype.
    value = np.asarray(value)
    if value.dtype != nd:
        value = value.astype(nd)
    return value


_ELEMWISE: dict = {}


def elemwise(scalar_op: ScalarOp | str) -> Elemwise:
    """The (cached) ``Elemwise`` of a scalar op or of a built-in scalar op's name.

    >>> elemwise("add") is elemwise("add")
    True
    """
    if isinstance(scalar_op, str):
        if scalar_op not in SCALAR_OPS:
            raise ValueError(
                f"no scalar op named {scalar_op!r}; known: {', '.join(sorted(SCALAR_OPS))}"
            )
        scalar_op = SCALAR_OPS[scalar_op]
    found = _ELEMWISE.get(scalar_op)
    if found is None:
        found = _ELEMWISE[scalar_op] = Elemwise(scalar_op)
    return found


def _function(name: str, summary: str, example: str):
    op = elemwise(name)
    nin = op.scalar_op.nin
    if nin == 1:

        def fn(x):
            return op(x)
    elif nin == 2:

        def fn(x, y):
            return op(x, y)
    else:

        def fn(cond, x, y):
            return op(cond, x, y)

    fn.__name__ = fn.__qualname__ = name.rstrip("_")
    fn.__doc__ = (
        f"{summary}, elementwise with NumPy broadcasting and dtype rules.\n\n"
        f"    >>> from tensortypes.tensor import dvector, ivector, fvector\n"
        f"    >>> {example}\n"
    )
    fn.__module__ = __name__
    return fn


add = _function("add", "x + y", "add(ivector('x'), 1).dtype\n    'int32'")
sub = _function("sub", "x - y", "sub(fvector('x'), 1.5).dtype\n    'float32'")
mul = _function("mul", "x * y", "mul(fvector('x'), dvector('y')).dtype\n    'float64'")
true_div = _function("true_div", "x / y", "true_div(ivector('x'), 2).dtype\n    'float64'")
floor_div = _function(
    "floor_div", "x // y (floor)", "floor_div(ivector('x'), 2).dtype\n    'int32'"
)
mod = _function("mod", "x % y (sign of y, as Python)", "mod(ivector('x'), 3).dtype\n    'int32'")
pow = _function("pow", "x ** y", "pow(fvector('x'), 2).dtype\n    'float32'")
maximum = _function(
    "maximum",
    "the larger of x and y (NaN wins)",
    "maximum(ivector('x'), fvector('y')).dtype\n    'float64'",
)
minimum = _function(
    "minimum",
    "the smaller of x and y (NaN wins)",
    "minimum(fvector('x'), 0.0).dtype\n    'float32'",
)
neg = _function("neg", "-x", "neg(ivector('x')).dtype\n    'int32'")
abs = _function("abs", "|x| (real for complex x)", "abs(fvector('x')).dtype\n    'float32'")
exp = _function("exp", "e ** x", "exp(ivector('x')).dtype\n    'float64'")
log = _function("log", "the natural logarithm", "log(fvector('x')).dtype\n    'float32'")
sqrt = _function("sqrt", "the square root", "sqrt(dvector('x')).dtype\n    'float64'")
sin = _function("sin", "the sine", "sin(fvector('x')).dtype\n    'float32'")
cos = _function("cos", "the cosine", "cos(fvector('x')).dtype\n    'float32'")
tanh = _function("tanh", "the hyperbolic tangent", "tanh(fvector('x')).dtype\n    'float32'")
log1p = _function(
    "log1p", "log(1 + x), exact for small x", "log1p(fvector('x')).dtype\n    'float32'"
)
expm1 = _function(
    "expm1", "exp(x) - 1, exact for small x", "expm1(dvector('x')).dtype\n    'float64'"
)
sigmoid = _function(
    "sigmoid", "1 / (1 + exp(-x)), without overflow", "sigmoid(fvector('x')).dtype\n    'float32'"
)
softplus = _function(
    "softplus", "log(1 + exp(x)), without overflow", "softplus(ivector('x')).dtype\n    'float64'"
)
lt = _function("lt", "x < y", "lt(ivector('x'), 2.5).dtype\n    'bool'")
le = _function("le", "x <= y", "le(ivector('x'), 2).dtype\n    'bool'")
gt = _function("gt", "x > y", "gt(fvector('x'), 0).dtype\n    'bool'")
ge = _function("ge", "x >= y", "ge(fvector('x'), 0).dtype\n    'bool'")
eq = _function("eq", "x == y", "eq(ivector('x'), 2**40).dtype\n    'bool'")
neq = _function("neq", "x != y", "neq(ivector('x'), 0).dtype\n    'bool'")
bitwise_and = _function("bitwise_and", "x & y", "bitwise_and(ivector('x'), 1).dtype\n    'int32'")
bitwise_or = _function("bitwise_or", "x | y", "bitwise_or(ivector('x'), 1).dtype\n    'int32'")
bitwise_xor = _function("bitwise_xor", "x ^ y", "bitwise_xor(ivector('x'), 1).dtype\n    'int32'")
invert = _function(
    "invert", "~x (bitwise not; logical not on bool)", "invert(ivector('x')).dtype\n    'int32'"
)
where = _function(
    "where",
    "x where cond is true, else y (cond of any dtype)",
    "where(ivector('c'), fvector('x'), 0.0).dtype\n    'float32'",
)


def _pos(x):
    return x


register_operators(
    add=add,
    sub=sub,
    mul=mul,
    true_div=true_div,
    floor_div=floor_div,
    mod=mod,
    pow=pow,
    neg=neg,
    pos=_pos,
    abs=abs,
    lt=lt,
    le=le,
    gt=gt,
    ge=ge,
    bitwise_and=bitwise_and,
    bitwise_or=bitwise_or,
    bitwise_xor=bitwise_xor,
    invert=invert,
)
