"""Reductions and products: ``sum``, ``prod``, ``max``, ``min``, ``mean``, ``argmax``,
``argmin``, ``dot``, ``matmul`` (layer 4, ``tensor``).

Every op infers its output type when the node is built. Reductions follow
NumPy's dtypes (``sum`` of int8 is int64, of uint8 uint64; ``mean`` of ints is
float64, of float16 float16); ``axis`` is an int, a tuple or None (all axes),
negative axes count from the end, ``keepdims`` keeps reduced axes as size 1.
``matmul`` follows ``numpy.matmul`` (batched, with broadcasting of the leading
axes) and ``dot`` follows ``numpy.dot``; the contracted axes must be able to
agree, so ``(3, 4) @ (5, 6)`` is a TypeError naming both shapes, while
``("b", "k") @ ("k", "m")`` is ``("b", "m")``.
"""

from __future__ import annotations

import numpy as np

from tensortypes.core.dims import eq as dim_eq
from tensortypes.core.shapes import broadcast_static_shapes, format_static_shape
from tensortypes.graph import Apply, Op, Variable
from tensortypes.tensor.basic import as_tensor_variable, constant
from tensortypes.tensor.scalar_ops import promote_dtypes
from tensortypes.tensor.type import TensorType
from tensortypes.tensor.variable import register_operators

__all__ = [
    "Reduce",
    "Argmax",
    "MatMul",
    "Dot",
    "sum",
    "prod",
    "max",
    "min",
    "mean",
    "argmax",
    "argmin",
    "matmul",
    "dot",
    "normalize_axes",
]

_REDUCERS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}


def _accumulate_dtype(dtype: str) -> str:
    # NumPy sums and multiplies small integers in the platform integer.
    kind = np.dtype(dtype).kind
    if kind in "bi":
        return "int64"
    if kind == "u":
        return "uint64"
    return dtype


def _mean_dtype(dtype: str) -> str:
    return "float64" if np.dtype(dtype).kind in "biu" else dtype


_DTYPE_RULES = {
    "sum": _accumulate_dtype,
    "prod": _accumulate_dtype,
    "max": str,
    "min": str,
    "mean": _mean_dtype,
}


def normalize_axes(axis, ndim: int, what: str = "axis") -> tuple:
    """``axis`` (int, sequence or None) as a sorted tuple of distinct axes in ``range(ndim)``.

    >>> normalize_axes(-1, 3), normalize_axes(None, 2), normalize_axes((2, 0), 3)
    ((2,), (0, 1), (0, 2))
    """
    if axis is None:
        return tuple(range(ndim))
    entries = (axis,) if isinstance(axis, (int, np.integer)) else axis
    try:
        entries = list(entries)
    except TypeError:
        raise TypeError(f"{what} must be an int, a tuple of ints or None, got {axis!r}") from None
    out = []
    for a in entries:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{what} must be an int, a tuple of ints or None, got {axis!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"{what} {a} is out of bounds for a variable of {ndim} dimension(s)")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{what} {axis!r} repeats an axis")
    return tuple(sorted(out))


class Reduce(Op):
    """A reduction (``kind`` one of sum, prod, max, min, mean) over ``axis``.

    >>> from tensortypes.tensor import tensor
    >>> Reduce("sum", (1,), False)(tensor("int8", ("n", 3))).type
    TensorType(int64, (n,))
    """

    __props__ = ("kind", "axis", "keepdims")

    def __init__(self, kind: str, axis: tuple, keepdims: bool = False):
        if kind not in _REDUCERS:
            raise ValueError(f"unknown reduction {kind!r}; expected one of {', '.join(_REDUCERS)}")
        self.kind = kind
        self.axis = tuple(int(a) for a in axis)
        self.keepdims = bool(keepdims)

    def __str__(self) -> str:
        return f"{self.kind}{{axis={self.axis}{', keepdims' if self.keepdims else ''}}}"

    def make_node(self, x) -> Apply:
        x = as_tensor_variable(x)
        shape = x.type.shape
        if normalize_axes(self.axis, x.ndim, f"{self.kind}: axis") != self.axis:
            raise ValueError(
                f"{self.kind}: axis {self.axis} is not a sorted tuple of axes of "
                f"{x} ({x.ndim} dimensions)"
            )
        if self.kind in ("max", "min"):
            for a in self.axis:
                if shape[a] == 0:
                    raise ValueError(
                        f"{self.kind} of {x} with shape {format_static_shape(shape)} "
                        f"over axis {a} of size 0: the reduction has no identity"
                    )
        if self.keepdims:
            out_shape = tuple(1 if i in self.axis else s for i, s in enumerate(shape))
        else:
            out_shape = tuple(s for i, s in enumerate(shape) if i not in self.axis)
        dtype = _DTYPE_RULES[self.kind](x.dtype)
        return Apply(self, [x], [TensorType(dtype, out_shape).make_variable()])

    def perform(self, node, inputs, output_storage):
        r = _REDUCERS[self.kind](inputs[0], axis=self.axis, keepdims=self.keepdims)
        output_storage[0][0] = _exact(r, node.outputs[0].type.numpy_dtype)


def _exact(value, nd) -> np.ndarray:
    value = np.asarray(value)
    return value if value.dtype == nd else value.astype(nd)


def _reduction(kind: str, example: str):
    def fn(x, axis=None, keepdims=False):
        x = as_tensor_variable(x)
        axes = normalize_axes(axis, x.ndim, f"{kind}: axis")
        return Reduce(kind, axes, keepdims)(x)

    fn.__name__ = fn.__qualname__ = kind
    fn.__module__ = __name__
    fn.__doc__ = (
        f"The {kind} of ``x`` over ``axis`` (int, tuple or None: all), NumPy's "
        f"dtype rule.\n\n    >>> from tensortypes.tensor import tensor\n"
        f"    >>> {example}\n"
    )
    return fn


sum = _reduction("sum", "sum(tensor('int8', ('n', 3)), axis=0).type\n    TensorType(int64, (3,))")
prod = _reduction(
    "prod",
    "prod(tensor('float32', (2, 3)), axis=-1, keepdims=True).type\n    TensorType(float32, (2, 1))",
)
max = _reduction(
    "max", "max(tensor('int16', ('n', 'm')), axis=1).type\n    TensorType(int16, (n,))"
)
min = _reduction("min", "min(tensor('float64', (None, 3))).type\n    TensorType(float64, ())")
mean = _reduction(
    "mean", "mean(tensor('int32', ('n', 3)), axis=(0, 1)).type\n    TensorType(float64, ())"
)


class Argmax(Op):
    """``numpy.argmax``/``numpy.argmin`` (``kind``) over one axis, or the flat C-order
    index over all axes (``axis`` None); int64, the first of equal extremes (a NaN
    first of all); an empty axis is NumPy's ValueError at run time.

    >>> from tensortypes.tensor import tensor
    >>> Argmax("argmin", 1, True)(tensor("float32", ("n", 3))).type
    TensorType(int64, (n, 1))
    """

    __props__ = ("kind", "axis", "keepdims")

    def __init__(self, kind: str, axis, keepdims: bool = False):
        if kind not in ("argmax", "argmin"):
            raise ValueError(f"unknown kind {kind!r}; expected argmax or argmin")
        if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, np.integer))):
            raise TypeError(f"{kind}: axis must be an int or None, got {axis!r}")
        self.kind = kind
        self.axis = None if axis is None else int(axis)
        self.keepdims = bool(keepdims)

    def __str__(self) -> str:
        return f"{self.kind}{{axis={self.axis}{', keepdims' if self.keepdims else ''}}}"

    def make_node(self, x) -> Apply:
        x = as_tensor_variable(x)
        shape = x.type.shape
        if self.axis is None:
            out_shape = (1,) * x.ndim if self.keepdims else ()
        else:
            (axis,) = normalize_axes(self.axis, x.ndim, f"{self.kind}: axis")
            if axis != self.axis:
                raise ValueError(
                    f"{self.kind}: axis {self.axis} is not in range(0, {x.ndim}) for {x}"
                )
            out_shape = tuple(
                1 if i == axis else s for i, s in enumerate(shape) if self.keepdims or i != axis
            )
        reduced = range(x.ndim) if self.axis is None else (self.axis,)
        if x.ndim and any(shape[a] == 0 for a in reduced):
            raise ValueError(
                f"{self.kind} of {x} with shape {format_static_shape(shape)}: "
                "an empty axis has no extreme"
            )
        return Apply(self, [x], [TensorType("int64", out_shape).make_variable()])

    def perform(self, node, inputs, output_storage):
        fn = np.argmax if self.kind == "argmax" else np.argmin
        r = fn(inputs[0], axis=self.axis, keepdims=self.keepdims)
        output_storage[0][0] = _exact(r, node.outputs[0].type.numpy_dtype)


def _arg_reduction(kind: str):
    def fn(x, axis=None, keepdims=False):
        x = as_tensor_variable(x)
        if axis is not None and not isinstance(axis, bool) and isinstance(axis, (int, np.integer)):
            (axis,) = normalize_axes(axis, x.ndim, f"{kind}: axis")
        return Argmax(kind, axis, keepdims)(x)

    fn.__name__ = fn.__qualname__ = kind
    fn.__module__ = __name__
    fn.__doc__ = (
        f"``numpy.{kind}(x, axis, keepdims=...)``, int64: one axis (negative counts "
        "from the end) or None (the flat index).\n\n"
        "    >>> from tensortypes.tensor import tensor\n"
        f"    >>> {kind}(tensor('float64', ('n', 4)), axis=-1).type\n"
        "    TensorType(int64, (n,))\n"
    )
    return fn


argmax = _arg_reduction("argmax")
argmin = _arg_reduction("argmin")


def _operand(x) -> Variable:
    # numpy.matmul/dot turn Python data into arrays of NumPy's default dtypes.
    if isinstance(x, Variable):
        return as_tensor_variable(x)
    return constant(np.asarray(x))


def _check_contracted(name: str, a, b, ka, kb) -> None:
    left, right = a.type.shape[ka], b.type.shape[kb]
    if left is not None and right is not None and dim_eq(left, right) is False:
        raise TypeError(
            f"{name}: shapes {format_static_shape(a.type.shape)} of {a} and "
            f"{format_static_shape(b.type.shape)} of {b} do not match: axis {ka} of the "
            f"first has size {left}, axis {kb} of the second has size {right}"
        )


class MatMul(Op):
    """``numpy.matmul``: matrix product with broadcasting of the leading (batch) axes.

    >>> from tensortypes.tensor import tensor
    >>> MatMul()(tensor("float32", ("b", "k")), tensor("float32", ("k", "m"))).type
    TensorType(float32, (b, m))
    """

    __props__ = ()

    def make_node(self, a, b) -> Apply:
        a, b = _operand(a), _operand(b)
        if a.ndim == 0 or b.ndim == 0:
            raise TypeError(
                f"matmul: {a if a.ndim == 0 else b} is 0-d; matmul needs arrays "
                "of at least one dimension (use mul for scalars)"
            )
        sa = a.type.shape if a.ndim > 1 else (1,) + a.type.shape
        sb = b.type.shape if b.ndim > 1 else b.type.shape + (1,)
        _check_contracted("matmul", a, b, a.ndim - 1, b.ndim - 2 if b.ndim > 1 else 0)
        try:
            batch = broadcast_static_shapes(sa[:-2], sb[:-2])
        except ValueError as exc:
            raise TypeError(
                f"matmul: the batch axes of {a} with shape "
                f"{format_static_shape(a.type.shape)} and {b} with shape "
                f"{format_static_shape(b.type.shape)} do not broadcast: "
                f"{exc}"
            ) from None
        shape = batch + (sa[-2],) * (a.ndim > 1) + (sb[-1],) * (b.ndim > 1)
        dtype = promote_dtypes(a.dtype, b.dtype)
        return Apply(self, [a, b], [TensorType(dtype, shape).make_variable()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = _exact(np.matmul(*inputs), node.outputs[0].type.numpy_dtype)


class Dot(Op):
    """``numpy.dot``: a sum product over the last axis of ``a`` and the second-to-last
    of ``b`` (the only axis of a 1-d ``b``); a 0-d operand multiplies.

    >>> from tensortypes.tensor import tensor
    >>> Dot()(tensor("float64", (2, 3, 4)), tensor("float64", (5, 4, 6))).type
    TensorType(float64, (2, 3, 5, 6))
    """

    __props__ = ()

    def make_node(self, a, b) -> Apply:
        a, b = _operand(a), _operand(b)
        dtype = promote_dtypes(a.dtype, b.dtype)
        if a.ndim == 0 or b.ndim == 0:
            try:
                shape = broadcast_static_shapes(a.type.shape, b.type.shape)
            except ValueError as exc:  # pragma: no cover - a 0-d shape always broadcasts
                raise TypeError(f"dot: {exc}") from None
        else:
            kb = b.ndim - 2 if b.ndim > 1 else 0
            _check_contracted("dot", a, b, a.ndim - 1, kb)
            rest_b = b.type.shape[:kb] + b.type.shape[kb + 1 :]
            shape = a.type.shape[:-1] + rest_b
        return Apply(self, [a, b], [TensorType(dtype, shape).make_variable()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = _exact(np.dot(*inputs), node.outputs[0].type.numpy_dtype)


_MATMUL = MatMul()
_DOT = Dot()


def matmul(a, b):
    """``a @ b`` as ``numpy.matmul`` computes it, typed statically.

    >>> from tensortypes.tensor import tensor
    >>> matmul(tensor("float64", (8, "n", 3)), tensor("float64", (3, 2))).type
    TensorType(float64, (8, n, 2))
    """
    return _MATMUL(a, b)


def dot(a, b):
    """``numpy.dot(a, b)``, typed statically.

    >>> from tensortypes.tensor import tensor
    >>> dot(tensor("float32", (3,)), tensor("float32", (3,))).type
    TensorType(float32, ())
    """
    return _DOT(a, b)


register_operators(
    sum=sum,
    prod=prod,
    max=max,
    min=min,
    mean=mean,
    dot=dot,
    matmul=matmul,
    argmax=argmax,
    argmin=argmin,
)
