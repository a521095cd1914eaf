"""PyTorch's functions and tensor methods as rules (layer 6: ``check.rules``).

Two tables: ``FUNCTIONS`` maps dotted paths (``torch.matmul``,
``torch.nn.functional.relu``) to rules, and ``METHODS`` maps tensor method
names to rules that take the tensor as their first argument. A method and
the function of the same name share one rule where PyTorch gives them one
signature (``x.sum(1)`` is ``torch.sum(x, 1)``).
"""

from __future__ import annotations

from tensortypes.core.dtypes import (
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

from .access import (
    Cast,
    Chunk,
    Identity,
    IndexArg,
    Item,
    Sorted,
    Truth,
    Ndim,
    Numel,
    Size,
    Softmax,
    Multinomial,
    Unbind,
    Unique,
    TopK,
    CDist,
)
from .create import Arange, Creator, Eye, FromData, Like, Linspace, NewLike, Normal
from .functional import FUNCTIONAL, Interpolate, OneHot
from .layout import (
    AsShape,
    Concat,
    Expand,
    Flatten,
    Permute,
    Reshape,
    Squeeze,
    Stack,
    Swap,
    Transpose,
    Unsqueeze,
)
from .ops import Binary, Elementwise, MaskedFill, Matmul, Reduce, Sig, Where
from .patterns import Einsum
from .tiling import (
    BroadcastTo,
    GridSample,
    LegacyTensor,
    Meshgrid,
    MoveAxis,
    Pad,
    Repeat,
    RepeatInterleave,
    SizeOf,
)

__all__ = ["FUNCTIONS", "METHODS", "DTYPES"]

# ``torch.<name>`` dtype objects.
DTYPES = {
    "float32": float32,
    "float": float32,
    "float64": float64,
    "double": float64,
    "float16": float16,
    "half": float16,
    "bfloat16": bfloat16,
    "int64": int64,
    "long": int64,
    "int32": int32,
    "int": int32,
    "int16": int16,
    "short": int16,
    "int8": int8,
    "uint8": uint8,
    "bool": bool_,
}

_SAME = Elementwise("same")
_FLOAT = Elementwise("float")
_BOOL = Elementwise("bool")
_ADD = Binary("promote")
_DIV = Binary("float")
_CMP = Binary("bool")
_SUM = Reduce(("input", "dim", "keepdim", "dtype"), "sum")
_MEAN = Reduce(("input", "dim", "keepdim", "dtype"), "float")
_MAX = Reduce(("input", "dim", "keepdim"), "same", pair=True)
_ARGMAX = Reduce(("input", "dim", "keepdim"), "index")
_ANY = Reduce(("input", "dim", "keepdim"), "bool")
_STD = Reduce(("input", "dim", "unbiased", "keepdim"), "float")
_PROD = Reduce(("input", "dim", "keepdim", "dtype"), "sum")
_SOFTMAX = Softmax(("input", "dim"))
_MASK = MaskedFill()
_UNARY = (
    "abs",
    "neg",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "floor",
    "ceil",
    "round",
    "sign",
    "square",
    "clamp",
    "clip",
    "reciprocal",
    "erf",
    "trunc",
    "frac",
    "nan_to_num",
    "exp2",
    "log2",
    "log10",
    "cumsum",
    "cumprod",
    "flip",
    "roll",
    "tril",
    "triu",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "abs_",
    "relu_",
    "clamp_",
    "sigmoid_",
    "tanh_",
    "exp_",
    "log_",
    "sqrt_",
    "neg_",
    "zero_",
    "fill_",
    "normal_",
    "uniform_",
    "clamp_min",
    "clamp_max",
    "nan_to_num_",
)
_FLOAT_UNARY = (
    "sqrt",
    "rsqrt",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "erf",
    "exp2",
    "log2",
    "log10",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "reciprocal",
)

FUNCTIONS: dict = {
    "torch.einsum": Einsum(),
    "torch.matmul": Matmul(),
    "torch.mm": Matmul(("input", "mat2"), max_rank=2),
    "torch.bmm": Matmul(("input", "mat2"), max_rank=3),
    "torch.dot": Sig("input: [n], other: [n] -> []", code="matmul"),
    "torch.outer": Sig("input: [n], vec2: [m] -> [n m]"),
    "torch.mv": Sig("input: [n m], vec: [m] -> [n]", code="matmul"),
    "torch.addmm": Sig("input: [#n #m], mat1: [n k], mat2: [k m] -> [n m]", code="matmul"),
    "torch.nn.functional.linear": Sig(
        "input: [*b k], weight: [m k], bias: [m] -> [*b m]", code="layer"
    ),
    "torch.add": _ADD,
    "torch.sub": _ADD,
    "torch.mul": _ADD,
    "torch.subtract": _ADD,
    "torch.multiply": _ADD,
    "torch.div": _DIV,
    "torch.true_divide": _DIV,
    "torch.maximum": _ADD,
    "torch.minimum": _ADD,
    "torch.pow": _ADD,
    "torch.atan2": _DIV,
    "torch.fmod": _ADD,
    "torch.remainder": _ADD,
    "torch.eq": _CMP,
    "torch.ne": _CMP,
    "torch.lt": _CMP,
    "torch.le": _CMP,
    "torch.gt": _CMP,
    "torch.ge": _CMP,
    "torch.logical_and": _CMP,
    "torch.logical_or": _CMP,
    "torch.isclose": _CMP,
    "torch.where": Where(),
    "torch.masked_fill": _MASK,
    "torch.isnan": _BOOL,
    "torch.isinf": _BOOL,
    "torch.isfinite": _BOOL,
    "torch.logical_not": _BOOL,
    "torch.sum": _SUM,
    "torch.mean": _MEAN,
    "torch.max": _MAX,
    "torch.min": _MAX,
    "torch.amax": Reduce(("input", "dim", "keepdim")),
    "torch.amin": Reduce(("input", "dim", "keepdim")),
    "torch.argmax": _ARGMAX,
    "torch.argmin": _ARGMAX,
    "torch.prod": _PROD,
    "torch.std": _STD,
    "torch.var": _STD,
    "torch.any": _ANY,
    "torch.all": _ANY,
    "torch.logsumexp": Reduce(("input", "dim", "keepdim"), "float"),
    "torch.norm": Reduce(("input", "p", "dim", "keepdim"), "float"),
    "torch.linalg.norm": Reduce(("input", "ord", "dim", "keepdim"), "float"),
    "torch.count_nonzero": Reduce(("input", "dim"), "index"),
    "torch.softmax": _SOFTMAX,
    "torch.log_softmax": _SOFTMAX,
    "torch.nn.functional.softmax": _SOFTMAX,
    "torch.nn.functional.log_softmax": _SOFTMAX,
    "torch.reshape": Reshape(method=False),
    "torch.transpose": Swap(),
    "torch.swapaxes": Swap(("input", "axis0", "axis1")),
    "torch.permute": Permute(),
    "torch.t": Transpose(max_rank=2),
    "torch.cat": Concat(),
    "torch.concat": Concat(),
    "torch.concatenate": Concat(("tensors", "axis")),
    "torch.stack": Stack(),
    "torch.hstack": Concat(("tensors",), fixed_axis=1, promote_1d="hstack"),
    "torch.vstack": Concat(("tensors",), fixed_axis=0, promote_1d="vstack"),
    "torch.squeeze": Squeeze(),
    "torch.unsqueeze": Unsqueeze(),
    "torch.flatten": Flatten(),
    "torch.index_select": IndexArg(("input", "dim", "index")),
    "torch.gather": IndexArg(("input", "dim", "index"), mode="gather"),
    "torch.chunk": Chunk("chunk"),
    "torch.split": Chunk("split"),
    "torch.unique": Unique(),
    "torch.multinomial": Multinomial(),
    "torch.unbind": Unbind(),
    "torch.topk": TopK(),
    "torch.cdist": CDist(),
    "torch.zeros": Creator(),
    "torch.ones": Creator(),
    "torch.empty": Creator(),
    "torch.randn": Creator(),
    "torch.rand": Creator(),
    "torch.full": Creator("shape", dtype="fill"),
    "torch.randint": Creator("size", dtype="int", skip=2),
    "torch.normal": Normal(),
    "torch.arange": Arange(),
    "torch.linspace": Linspace(),
    "torch.eye": Eye(),
    "torch.zeros_like": Like(),
    "torch.ones_like": Like(),
    "torch.empty_like": Like(),
    "torch.randn_like": Like(),
    "torch.rand_like": Like(),
    "torch.full_like": Like("fill"),
    "torch.tensor": FromData(),
    "torch.as_tensor": FromData(),
    "torch.from_numpy": FromData(),
    "torch.clone": _SAME,
    "torch.nn.functional.dropout": _SAME,
    "torch.nn.functional.normalize": _SAME,
    "torch.nn.functional.relu": _SAME,
    "torch.nn.functional.gelu": _SAME,
    "torch.nn.functional.silu": _SAME,
    "torch.nn.functional.leaky_relu": _SAME,
    "torch.nn.functional.elu": _SAME,
    "torch.nn.functional.tanh": _FLOAT,
    "torch.nn.functional.sigmoid": _FLOAT,
    "torch.nn.functional.softplus": _SAME,
    "torch.nn.functional.mish": _SAME,
    "torch.nn.functional.relu6": _SAME,
    "torch.nn.functional.hardtanh": _SAME,
    "torch.nn.functional.interpolate": Interpolate(),
    "torch.nn.functional.one_hot": OneHot(),
}
FUNCTIONS.update(
    {
        "torch.repeat_interleave": RepeatInterleave(),
        "torch.broadcast_to": BroadcastTo(),
        "torch.moveaxis": MoveAxis(),
        "torch.movedim": MoveAxis(),
        "torch.meshgrid": Meshgrid("ij"),
        "torch.nn.functional.pad": Pad(),
        "torch.nn.functional.grid_sample": GridSample(),
        "torch.Size": SizeOf(),
        "torch.Tensor": LegacyTensor(FromData()),
        "torch.FloatTensor": LegacyTensor(FromData()),
    }
)
FUNCTIONS.update({f"torch.nn.functional.{name}": rule for name, rule in FUNCTIONAL.items()})
for _name in _UNARY:
    FUNCTIONS.setdefault(f"torch.{_name.rstrip('_')}", _FLOAT if _name in _FLOAT_UNARY else _SAME)
# More elementwise functions of one array (and their methods): a float result...
_MORE_FLOAT = (
    "deg2rad",
    "rad2deg",
    "asinh",
    "acosh",
    "atanh",
    "arcsin",
    "arccos",
    "arctan",
    "arcsinh",
    "arccosh",
    "arctanh",
    "erfc",
    "erfinv",
    "lgamma",
    "digamma",
    "sinc",
    "logit",
    "exp2",
)
# ... the array's dtype, or bool.
_MORE_SAME = ("positive", "negative", "fix", "sgn", "conj", "absolute")
_MORE_BOOL = ("signbit", "isneginf", "isposinf", "isreal")
# Of two arrays, broadcast: promoted, a float result, or bool.
_MORE_BINARY = {
    "hypot": _DIV,
    "copysign": _DIV,
    "logaddexp": _DIV,
    "logaddexp2": _DIV,
    "xlogy": _DIV,
    "float_power": _DIV,
    "fmax": _ADD,
    "fmin": _ADD,
    "floor_divide": _ADD,
    "heaviside": _ADD,
    "bitwise_and": _ADD,
    "bitwise_or": _ADD,
    "bitwise_xor": _ADD,
    "logical_xor": _CMP,
}
FUNCTIONS.update(
    {
        "torch.cross": _ADD,  # the broadcast of the two (an axis of 3 where it crosses)
        "torch.linalg.cross": _ADD,
        "torch.linalg.vector_norm": Reduce(("x", "ord", "dim", "keepdim"), "float"),
        "torch.nn.functional.logsigmoid": _FLOAT,
        "torch.sort": Sorted(),
        "torch.argsort": Cast(int64),
        "torch.allclose": Truth(),
        "torch.equal": Truth(),
    }
)
for _name in _MORE_FLOAT:
    FUNCTIONS.setdefault(f"torch.{_name}", _FLOAT)
for _name in _MORE_SAME:
    FUNCTIONS.setdefault(f"torch.{_name}", _SAME)
for _name in _MORE_BOOL:
    FUNCTIONS.setdefault(f"torch.{_name}", _BOOL)
for _name, _rule in _MORE_BINARY.items():
    FUNCTIONS.setdefault(f"torch.{_name}", _rule)

METHODS: dict = {
    "matmul": Matmul(),
    "mm": Matmul(("input", "mat2"), max_rank=2),
    "bmm": Matmul(("input", "mat2"), max_rank=3),
    "dot": FUNCTIONS["torch.dot"],
    "mv": FUNCTIONS["torch.mv"],
    "outer": FUNCTIONS["torch.outer"],
    "add": _ADD,
    "sub": _ADD,
    "mul": _ADD,
    "div": _DIV,
    "pow": _ADD,
    "maximum": _ADD,
    "minimum": _ADD,
    "eq": _CMP,
    "ne": _CMP,
    "lt": _CMP,
    "le": _CMP,
    "gt": _CMP,
    "ge": _CMP,
    "add_": _ADD,
    "sub_": _ADD,
    "mul_": _ADD,
    "div_": _DIV,
    "sum": _SUM,
    "mean": _MEAN,
    "max": _MAX,
    "min": _MAX,
    "argmax": _ARGMAX,
    "argmin": _ARGMAX,
    "prod": _PROD,
    "std": _STD,
    "var": _STD,
    "any": _ANY,
    "all": _ANY,
    "amax": FUNCTIONS["torch.amax"],
    "amin": FUNCTIONS["torch.amin"],
    "logsumexp": FUNCTIONS["torch.logsumexp"],
    "norm": FUNCTIONS["torch.norm"],
    "softmax": _SOFTMAX,
    "log_softmax": _SOFTMAX,
    "reshape": Reshape(),
    "view": Reshape(view=True),
    "transpose": Swap(),
    "swapaxes": Swap(("input", "axis0", "axis1")),
    "permute": Permute(),
    "t": Transpose(max_rank=2),
    "squeeze": Squeeze(),
    "unsqueeze": Unsqueeze(),
    "flatten": Flatten(),
    "expand": Expand(),
    "index_select": FUNCTIONS["torch.index_select"],
    "gather": FUNCTIONS["torch.gather"],
    "chunk": Chunk("chunk"),
    "split": Chunk("split"),
    "unique": FUNCTIONS["torch.unique"],
    "multinomial": FUNCTIONS["torch.multinomial"],
    "unbind": FUNCTIONS["torch.unbind"],
    "topk": FUNCTIONS["torch.topk"],
    "contiguous": Identity(contiguous=True),
    "clone": Identity(contiguous=True),
    "detach": Identity(),
    "cpu": Identity(),
    "cuda": Identity(),
    "requires_grad_": Identity(),
    "numpy": Identity(kind="numpy"),
    "float": Cast(float32),
    "double": Cast(float64),
    "half": Cast(float16),
    "bfloat16": Cast(bfloat16),
    "long": Cast(int64),
    "int": Cast(int32),
    "short": Cast(int16),
    "bool": Cast(bool_),
    "byte": Cast(uint8),
    "char": Cast(int8),
    "to": Cast(),
    "type": Cast(),
    "item": Item(),
    "tolist": Item(nested=True),
    "size": Size(),
    "numel": Numel(),
    "dim": Ndim(),
    "ndimension": Ndim(),
    "zero_": _SAME,
    "isnan": _BOOL,
    "isinf": _BOOL,
    "logical_not": _BOOL,
    "masked_fill": _MASK,
    "masked_fill_": _MASK,
    "where": Where(),
    "view_as": AsShape("view"),
    "reshape_as": AsShape("reshape"),
    "expand_as": AsShape("expand"),
    "type_as": Cast(),
    "new_zeros": NewLike(),
    "new_ones": NewLike(),
    "new_empty": NewLike(),
    "new_full": NewLike(fill=True),
    "repeat": Repeat(),
    "repeat_interleave": FUNCTIONS["torch.repeat_interleave"],
    "moveaxis": MoveAxis(),
    "movedim": MoveAxis(),
    "broadcast_to": FUNCTIONS["torch.broadcast_to"],
}
# Writes into a copy of the array (or into the array, with ``_``) at given places:
# the shape and dtype of the array written into (``x.scatter_add(dim, index, src)``).
for _name in (
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "masked_scatter",
):
    METHODS.setdefault(_name, Identity())
    METHODS.setdefault(_name + "_", Identity())
    FUNCTIONS.setdefault(f"torch.{_name}", Identity())
METHODS.update(
    {
        "cross": _ADD,
        "sort": Sorted(),
        "argsort": Cast(int64),
        "allclose": Truth(),
        "equal": Truth(),
        "is_floating_point": Truth(),
        "is_contiguous": Truth(),
    }
)
for _name in (*_MORE_FLOAT, *_MORE_SAME, *_MORE_BOOL, *_MORE_BINARY):
    METHODS.setdefault(_name, FUNCTIONS[f"torch.{_name}"])
for _name in _UNARY:
    METHODS.setdefault(_name, _FLOAT if _name.rstrip("_") in _FLOAT_UNARY else _SAME)
    # The in-place twin (``x.sqrt_()``) keeps the shape and the dtype of ``x``.
    METHODS.setdefault(_name.rstrip("_") + "_", _SAME)
METHODS.update(
    {
        "pow_": _ADD,
        "fmod_": _ADD,
        "remainder_": _ADD,
        "atan2_": _DIV,
        "maximum_": _ADD,
        "minimum_": _ADD,
    }
)
del _name, _rule
