"""tensortypes.tensor: ``TensorType``, the graph form of an array type, and its variables.

Layer 4. ``TensorType(dtype, shape)`` carries one NumPy dtype and a static shape
of ints, ``None`` and rigid symbolic sizes; ``SpecifyShape`` narrows a
variable's static shape; ``constant``, ``shared`` and the ``scalar``/``vector``/
``matrix``/... constructors make variables. ``check_symbolic_shape`` checks the
rigid symbols of a static shape against concrete shapes, binding each symbol from
the first value that carries it (what ``filter``, ``function`` and the C linker do).
"""

from tensortypes.tensor import basic as _basic
from tensortypes.tensor._filtering import check_symbolic_shape
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

_PREFIXED = [
    n
    for n in _basic.__all__
    if n[0] in "bwilfdcz"
    and n[1:] in ("scalar", "vector", "row", "col", "matrix", "tensor3", "tensor4")
]
globals().update({n: getattr(_basic, n) for n in _PREFIXED})

__all__ = [
    "TensorType",
    "TensorVariable",
    "TensorConstant",
    "TensorSharedVariable",
    "SpecifyShape",
    "specify_shape",
    "as_tensor_variable",
    "constant",
    "shared",
    "scalar",
    "vector",
    "row",
    "col",
    "matrix",
    "tensor3",
    "tensor4",
    "tensor",
    "values_eq",
    "values_eq_approx",
    "default_tolerances",
    "check_symbolic_shape",
    *_PREFIXED,
]

# -- ops: elementwise (and the scalar ops they apply), reductions and products, shapes --
from tensortypes.tensor.elemwise import (  # noqa: E402
    Elemwise,
    abs,
    add,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    cos,
    elemwise,
    eq,
    exp,
    expm1,
    floor_div,
    ge,
    gt,
    invert,
    le,
    log,
    log1p,
    lt,
    maximum,
    minimum,
    mod,
    mul,
    neg,
    neq,
    pow,
    sigmoid,
    sin,
    softplus,
    sqrt,
    sub,
    tanh,
    true_div,
    where,
)
from tensortypes.tensor.math import (  # noqa: E402
    Argmax,
    Dot,
    MatMul,
    Reduce,
    argmax,
    argmin,
    dot,
    matmul,
    max,
    mean,
    min,
    prod,
    sum,
)
from tensortypes.tensor.scalar_ops import Composite, ScalarOp  # noqa: E402
from tensortypes.tensor.shape_ops import (  # noqa: E402
    Concatenate,
    ExpandDims,
    Reshape,
    Squeeze,
    Subtensor,
    Transpose,
    concatenate,
    expand_dims,
    reshape,
    squeeze,
    transpose,
)

__all__ += [
    "Elemwise",
    "elemwise",
    "Composite",
    "ScalarOp",
    "Reduce",
    "Argmax",
    "MatMul",
    "Dot",
    "Reshape",
    "Transpose",
    "Concatenate",
    "ExpandDims",
    "Squeeze",
    "Subtensor",
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
    "sum",
    "prod",
    "max",
    "min",
    "mean",
    "argmax",
    "argmin",
    "dot",
    "matmul",
    "reshape",
    "transpose",
    "concatenate",
    "expand_dims",
    "squeeze",
]
