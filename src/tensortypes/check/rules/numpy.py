"""NumPy's (and ``jax.numpy``'s) functions and ndarray methods as rules (layer 6).

``FUNCTIONS`` is keyed by the name inside the module (``matmul``, ``sum``,
``random.randn``); the walker looks it up for ``numpy.<name>`` and
``jax.numpy.<name>`` alike, with the library deciding default dtypes.
``METHODS`` holds the ndarray (and ``jax.Array``) methods.
"""

from __future__ import annotations

from tensortypes.core.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

from .access import Cast, Chunk, Diag, Diagonal, Identity, Item, NumpyUnique, Softmax
from .create import Arange, Creator, Eye, FromData, Like, Linspace
from .functional import OneHot
from .layout import Concat, Flatten, Permute, Reshape, Squeeze, Stack, Swap, Unsqueeze
from .ops import Binary, Elementwise, Flat, Matmul, Reduce, Sig, Where
from .patterns import Einsum
from .tiling import BroadcastTo, Meshgrid, MoveAxis, RepeatInterleave, Tile

__all__ = ["FUNCTIONS", "METHODS", "DTYPES", "JAX_NN", "JAX_RANDOM"]

# ``np.<name>`` / ``jnp.<name>`` dtype objects.
DTYPES = {
    "float32": float32,
    "float64": float64,
    "float16": float16,
    "double": float64,
    "single": float32,
    "half": float16,
    "bfloat16": bfloat16,
    "int64": int64,
    "int32": int32,
    "int16": int16,
    "int8": int8,
    "uint8": uint8,
    "uint16": uint16,
    "uint32": uint32,
    "uint64": uint64,
    "bool_": bool_,
    "complex64": complex64,
    "complex128": complex128,
    "intp": int64,
    "float_": float64,
}

_SAME = Elementwise("same")
_FLOAT = Elementwise("float")
_BOOL = Elementwise("bool")
_ADD = Binary("promote", ("x1", "x2"))
_DIV = Binary("float", ("x1", "x2"))
_CMP = Binary("bool", ("x1", "x2"))
_RED = ("a", "axis", "dtype", "out", "keepdims")
_SUM = Reduce(_RED, "sum")
_MEAN = Reduce(_RED, "float")
_MAX = Reduce(("a", "axis", "out", "keepdims"), "same")
# of a number ``q`` (an array of them adds a leading axis: not followed)
_QUANTILE = Reduce(
    ("a", "q", "axis", "out", "overwrite_input", "method", "keepdims"), "float", numbers=("q",)
)
_ARGMAX = Reduce(("a", "axis", "out", "keepdims"), "index")
_ANY = Reduce(("a", "axis", "out", "keepdims"), "bool")
_UNARY = (
    "abs",
    "absolute",
    "negative",
    "floor",
    "ceil",
    "round",
    "sign",
    "square",
    "clip",
    "cumsum",
    "cumprod",
    "flip",
    "roll",
    "tril",
    "triu",
    "nan_to_num",
    "copy",
    "fabs",
    "rint",
    "positive",
    "sort",
    "maximum.accumulate",
)
_FLOAT_UNARY = (
    "exp",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "exp2",
    "log2",
    "log10",
    "reciprocal",
    "cbrt",
    "deg2rad",
    "rad2deg",
)

FUNCTIONS: dict = {
    "einsum": Einsum(),
    "repeat": RepeatInterleave(),
    "broadcast_to": BroadcastTo(),
    "moveaxis": MoveAxis(),
    "meshgrid": Meshgrid("xy"),
    "matmul": Matmul(("x1", "x2")),
    "dot": Matmul(("a", "b")),
    "vdot": Flat(inner=True),
    "inner": Matmul(("a", "b")),
    "outer": Flat(inner=False),
    "add": _ADD,
    "subtract": _ADD,
    "multiply": _ADD,
    "divide": _DIV,
    "true_divide": _DIV,
    "floor_divide": _ADD,
    "power": _ADD,
    "maximum": _ADD,
    "minimum": _ADD,
    "mod": _ADD,
    "arctan2": _DIV,
    "hypot": _DIV,
    "equal": _CMP,
    "not_equal": _CMP,
    "less": _CMP,
    "less_equal": _CMP,
    "greater": _CMP,
    "greater_equal": _CMP,
    "logical_and": _CMP,
    "logical_or": _CMP,
    "isclose": _CMP,
    "where": Where(),
    "isnan": _BOOL,
    "isin": _BOOL,  # of the elements' shape
    "isinf": _BOOL,
    "isfinite": _BOOL,
    "logical_not": _BOOL,
    "sum": _SUM,
    "mean": _MEAN,
    "max": _MAX,
    "min": _MAX,
    "amax": _MAX,
    "amin": _MAX,
    "argmax": _ARGMAX,
    "argmin": _ARGMAX,
    "prod": _SUM,
    "std": _MEAN,
    "var": _MEAN,
    "nanmean": _MEAN,
    "nansum": _SUM,
    "median": _MEAN,
    "nanmedian": _MEAN,
    "nanmax": _MAX,
    "nanmin": _MAX,
    "nanstd": _MEAN,
    "nanvar": _MEAN,
    "percentile": _QUANTILE,
    "quantile": _QUANTILE,
    "nanpercentile": _QUANTILE,
    "nanquantile": _QUANTILE,
    "any": _ANY,
    "all": _ANY,
    "count_nonzero": _ARGMAX,
    "linalg.norm": Reduce(("x", "ord", "axis", "keepdims"), "float"),
    "linalg.inv": Identity(),
    "linalg.det": Sig("a: [*b n n] -> [*b]"),
    "linalg.eigh": Sig("a: [*b n n] -> ([*b n], [*b n n])"),
    "linalg.eigvalsh": Sig("a: [*b n n] -> [*b n]"),
    "split": Chunk("sections"),
    "diagonal": Diagonal(("a", "offset", "axis1", "axis2")),
    "flipud": Identity(),
    "fliplr": Identity(),
    "reshape": Reshape(method=False),
    "transpose": Permute(numpy=True),
    "swapaxes": Swap(("a", "axis1", "axis2")),
    "concatenate": Concat(("arrays", "axis")),
    "concat": Concat(("arrays", "axis")),
    "stack": Stack(("arrays", "axis")),
    "hstack": Concat(("tup",), fixed_axis=1, promote_1d="hstack"),
    "vstack": Concat(("tup",), fixed_axis=0, promote_1d="vstack"),
    "squeeze": Squeeze(("a", "axis"), strict=True),
    "expand_dims": Unsqueeze(("a", "axis")),
    "ravel": Flatten(("a",)),
    "zeros": Creator("shape"),
    "ones": Creator("shape"),
    "empty": Creator("shape"),
    "full": Creator("shape", dtype="fill"),
    "arange": Arange(),
    "diag": Diag(("v", "k")),
    "tile": Tile(("A", "reps")),
    "unique": NumpyUnique(),
    "linspace": Linspace(),
    "eye": Eye(),
    "identity": Eye(),
    "zeros_like": Like(),
    "ones_like": Like(),
    "empty_like": Like(),
    "full_like": Like("fill"),
    "array": FromData(),
    "asarray": FromData(),
    "asanyarray": FromData(),
    "ascontiguousarray": FromData(),
    "random.randn": Creator("*dims"),
    "random.rand": Creator("*dims"),
    "random.random": Creator("size"),
    "random.normal": Creator("size", skip=2),
    "random.uniform": Creator("size", skip=2),
    "random.randint": Creator("size", dtype="int", skip=2),
    "random.standard_normal": Creator("size"),
}
for _name in _UNARY:
    FUNCTIONS.setdefault(_name, _SAME)
for _name in _FLOAT_UNARY:
    FUNCTIONS.setdefault(_name, _FLOAT)

# ``jax.nn`` functions that keep the shape.
JAX_NN = {
    "relu": _SAME,
    "gelu": _SAME,
    "sigmoid": _FLOAT,
    "softplus": _SAME,
    "silu": _SAME,
    "softmax": Softmax(("x", "axis")),
    "log_softmax": Softmax(("x", "axis")),
    "tanh": _FLOAT,
    "one_hot": OneHot(("x", "num_classes")),
}

# ``jax.random`` samplers: a key first, then the shape.
JAX_RANDOM = {
    "normal": Creator("shape", skip=1),
    "uniform": Creator("shape", skip=1),
    "truncated_normal": Creator("shape", skip=3),
    "randint": Creator("shape", dtype="int", skip=1),
}

METHODS: dict = {
    "repeat": RepeatInterleave(),
    "dot": Matmul(("a", "b")),
    "sum": _SUM,
    "mean": _MEAN,
    "max": _MAX,
    "min": _MAX,
    "argmax": _ARGMAX,
    "argmin": _ARGMAX,
    "prod": _SUM,
    "std": _MEAN,
    "var": _MEAN,
    "any": _ANY,
    "all": _ANY,
    "reshape": Reshape(),
    "transpose": Permute(numpy=True),
    "swapaxes": Swap(("a", "axis1", "axis2")),
    "squeeze": Squeeze(("a", "axis"), strict=True),
    "flatten": Flatten(("a",)),
    "ravel": Flatten(("a",)),
    "astype": Cast(),
    "copy": Identity(contiguous=True),
    "item": Item(),
    "tolist": Item(nested=True),
    "clip": _SAME,
    "round": _SAME,
    "cumsum": _SAME,
    "sort": _SAME,
}
del _name
