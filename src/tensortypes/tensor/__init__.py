"""tensortypes.tensor: ``TensorType``, the graph form of an array type, and its variables.

Layer 4. ``TensorType(dtype, shape)`` carries one NumPy dtype and a static shape
of ints, ``None`` and rigid symbolic sizes; ``SpecifyShape`` narrows a
variable's static shape; ``constant``, ``shared`` and the ``scalar``/``vector``/
``matrix``/... constructors make variables.
"""

from tensortypes.tensor import basic as _basic
from tensortypes.tensor._values import default_tolerances, values_eq, values_eq_approx
from tensortypes.tensor.basic import (
    as_tensor_variable,
    col,
    constant,
    matrix,
    row,
    scalar,
    shared,
    specify_shape,
    tensor,
    tensor3,
    tensor4,
    vector,
)
from tensortypes.tensor.shape import SpecifyShape
from tensortypes.tensor.type import TensorType
from tensortypes.tensor.variable import TensorConstant, TensorSharedVariable, TensorVariable

_PREFIXED = [n for n in _basic.__all__ if n[0] in "bwilfdcz" and n[1:] in (
    "scalar", "vector", "row", "col", "matrix", "tensor3", "tensor4")]
globals().update({n: getattr(_basic, n) for n in _PREFIXED})

__all__ = [
    "TensorType", "TensorVariable", "TensorConstant", "TensorSharedVariable",
    "SpecifyShape", "specify_shape", "as_tensor_variable", "constant", "shared",
    "scalar", "vector", "row", "col", "matrix", "tensor3", "tensor4", "tensor",
    "values_eq", "values_eq_approx", "default_tolerances",
    *_PREFIXED,
]
