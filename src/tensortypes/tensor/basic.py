"""Making tensor variables: ``constant``, ``shared``, ``specify_shape`` and the
``scalar``/``vector``/``matrix``/... constructors (layer 4, ``tensor``).

The prefixed constructors follow PyTensor's letters: ``b`` int8, ``w`` int16,
``i`` int32, ``l`` int64, ``f`` float32, ``d`` float64, ``c`` complex64,
``z`` complex128 (``fscalar``, ``dvector``, ``imatrix``, ...). Unprefixed ones
take a ``dtype`` and default to ``config.floatX``.
"""

from __future__ import annotations

import numbers

import numpy as np

from tensortypes._config import config
from tensortypes.graph import Variable
from tensortypes.tensor.shape import specify_variable
from tensortypes.tensor.type import TensorType
from tensortypes.tensor.variable import TensorConstant, TensorSharedVariable

__all__ = [
    "as_tensor_variable",
    "constant",
    "shared",
    "specify_shape",
    "scalar",
    "vector",
    "row",
    "col",
    "matrix",
    "tensor3",
    "tensor4",
    "tensor",
]

_INT_DTYPES = ("int8", "int16", "int32", "int64")


def _python_scalar_dtype(value) -> str | None:
    # PyTensor's autocasting of Python literals: the smallest int that holds
    # the value, floatX for floats. Array data keeps its own dtype.
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        for name in _INT_DTYPES:
            info = np.iinfo(name)
            if info.min <= value <= info.max:
                return name
        return None  # too large for int64: let NumPy refuse it
    if isinstance(value, float):
        return config.floatX
    if isinstance(value, complex):
        return "complex128"
    return None


def constant(value, name=None, dtype=None) -> TensorConstant:
    """A ``TensorConstant`` holding ``value``; its type has the data's exact shape.

    >>> constant(2).type
    TensorType(int8, ())
    >>> constant([1.5, 2.5]).type
    TensorType(float64, (2,))
    """
    if isinstance(value, Variable):
        raise TypeError(f"constant() expects data, got the symbolic variable {value}")
    if dtype is None:
        dtype = _python_scalar_dtype(value)
    try:
        data = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"constant(): cannot make an array of {value!r}: {exc}") from None
    ttype = TensorType(data.dtype, data.shape)
    return ttype.make_constant(data, name=name)


def as_tensor_variable(x, name=None) -> Variable:
    """``x`` itself when it is a tensor variable, else a ``constant`` of it."""
    if isinstance(x, Variable):
        if not isinstance(x.type, TensorType):
            raise TypeError(f"expected a tensor variable, got {x} of type {x.type}")
        return x
    return constant(x, name=name)


def specify_shape(x, shape):
    """Assert that ``x`` has ``shape`` (ints, None, dims, one ``...``).

    Returns ``x`` itself when ``shape`` says nothing new; otherwise a
    ``SpecifyShape`` output whose type has the merged static shape. Wrong
    lengths and non-integer sizes are ValueErrors at build time; at run time a
    mismatch is a ``TypeCheckError`` naming the axis.

    >>> x = matrix("x")
    >>> specify_shape(x, (2, None)).type
    TensorType(float64, (2, ?))
    """
    return specify_variable(as_tensor_variable(x), shape)


def shared(value, name=None, strict=False, allow_downcast=None, shape=None):
    """A ``TensorSharedVariable`` holding ``value`` (copied).

    Its type has the value's dtype and, unless ``shape`` says otherwise, an
    unknown size on every axis, so later values may have other sizes.

    >>> w = shared(np.zeros((2, 3)), name="w")
    >>> w.type, w.get_value().shape
    (TensorType(float64, (?, ?)), (2, 3))
    """
    if isinstance(value, Variable):
        raise TypeError(f"shared() expects data, got the symbolic variable {value}")
    data = np.array(value, copy=True)
    if data.dtype.kind == "O":
        raise TypeError(f"shared(): {value!r} is not numeric array data")
    if shape is None:
        shape = (None,) * data.ndim
    ttype = TensorType(data.dtype, shape)
    return TensorSharedVariable(
        ttype, data, name=name, strict=strict, allow_downcast=allow_downcast
    )


def tensor(dtype=None, shape=None, name=None):
    """A ``TensorVariable`` of ``TensorType(dtype, shape)`` (dtype defaults to floatX).

    >>> tensor("float32", (None, 3), name="x").type
    TensorType(float32, (?, 3))
    """
    if shape is None:
        raise ValueError("tensor(): a shape is required, e.g. tensor('float64', (None, 3))")
    if isinstance(shape, (numbers.Integral, str)):
        raise ValueError(f"tensor(): shape must be a tuple of sizes, got {shape!r}")
    return TensorType("floatX" if dtype is None else dtype, shape)(name)


def _fixed_rank(rank: int, default_shape: tuple, doc: str):
    def make(name=None, dtype=None, shape=None):
        full = default_shape if shape is None else tuple(shape)
        if len(full) != rank:
            raise ValueError(f"expected a shape of {rank} entries, got {shape!r}")
        return tensor(dtype, full, name)

    make.__doc__ = f"A {doc} ``TensorVariable`` (dtype defaults to floatX)."
    return make


scalar = _fixed_rank(0, (), "0-d")
vector = _fixed_rank(1, (None,), "1-d")
row = _fixed_rank(2, (1, None), "row (1 x n)")
col = _fixed_rank(2, (None, 1), "column (n x 1)")
matrix = _fixed_rank(2, (None, None), "2-d")
tensor3 = _fixed_rank(3, (None,) * 3, "3-d")
tensor4 = _fixed_rank(4, (None,) * 4, "4-d")
scalar.__name__, vector.__name__, row.__name__, col.__name__ = "scalar", "vector", "row", "col"
matrix.__name__, tensor3.__name__, tensor4.__name__ = "matrix", "tensor3", "tensor4"

_PREFIXES = {
    "b": "int8",
    "w": "int16",
    "i": "int32",
    "l": "int64",
    "f": "float32",
    "d": "float64",
    "c": "complex64",
    "z": "complex128",
}
_KINDS = {
    "scalar": scalar,
    "vector": vector,
    "row": row,
    "col": col,
    "matrix": matrix,
    "tensor3": tensor3,
    "tensor4": tensor4,
}


def _prefixed(dtype: str, base):
    def make(name=None, shape=None):
        return base(name=name, dtype=dtype, shape=shape)

    make.__doc__ = f"A ``{base.__name__}`` of dtype {dtype}."
    return make


for _p, _dtype in _PREFIXES.items():
    for _kind, _base in _KINDS.items():
        _fn = _prefixed(_dtype, _base)
        _fn.__name__ = _fn.__qualname__ = _p + _kind
        globals()[_p + _kind] = _fn
        __all__.append(_p + _kind)
del _p, _dtype, _kind, _base, _fn
