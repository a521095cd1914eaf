"""Annotations read from source into abstract values (layer 6: ``check``).

The checker imports nothing from the code it checks, so an annotation is read
from its syntax tree, with names resolved through the module's imports
(``from jaxtyping import Float`` makes ``Float`` the path ``jaxtyping.Float``):

- jaxtyping-style array annotations, ``Float32[torch.Tensor, "b c"]``,
  ``Int[np.ndarray, "n"]``, ``Shaped[jax.Array, "..."]`` from ``jaxtyping``
  or ``tensortypes``, and aliases of them defined at module level
  (``Image = Float[Tensor, "c h w"]``): an :class:`~.symbolic.Arr` whose shape
  is the shape string read by :func:`~.shapetext.parse_shape`;
- bare array classes (``torch.Tensor``, ``np.ndarray``, ``jax.Array``): arrays of
  unknown dtype and shape;
- ``int``/``float``/``bool``/``str``/``None``, ``Optional[X]``, ``X | None``,
  ``Union``, ``Tuple[...]``, ``List[X]``, the checked module's own classes,
  string annotations (forward references).

Anything else is ``UNKNOWN``: an annotation the checker cannot read never
makes an error, only a ``--strict`` note.
"""

from __future__ import annotations

import ast

from tensortypes.core.dtypes import (
    BOOL,
    COMPLEX,
    FLOATING,
    INEXACT,
    INTEGER,
    KEY,
    NUM,
    REAL,
    SIGNED,
    UNSIGNED,
    DType,
)

from .shapetext import parse_shape
from .symbolic import (
    NONE,
    UNKNOWN,
    Arr,
    BoolV,
    FloatV,
    InstV,
    IntV,
    ListV,
    StrV,
    TupleV,
    UnionV,
    Value,
)

__all__ = ["DTYPE_NAMES", "ARRAY_KINDS", "JAXTYPING_MODULES", "read_annotation",
           "dtype_class"]

JAXTYPING_MODULES = ("jaxtyping", "tensortypes", "tensortypes.annotate")

DTYPE_NAMES: dict = {
    "Shaped": None, "Bool": BOOL, "Num": NUM, "Inexact": INEXACT, "Float": FLOATING,
    "Complex": COMPLEX, "Integer": INTEGER, "UInt": UNSIGNED, "Int": SIGNED, "Real": REAL,
    "Key": KEY,
}
for _bits in (8, 16, 32, 64):
    DTYPE_NAMES[f"Int{_bits}"] = frozenset({DType(f"int{_bits}")})
    DTYPE_NAMES[f"UInt{_bits}"] = frozenset({DType(f"uint{_bits}")})
for _name in ("float16", "float32", "float64", "bfloat16", "complex64", "complex128"):
    DTYPE_NAMES[_name.capitalize().replace("Bfloat", "BFloat")] = frozenset({DType(_name)})
del _bits, _name

ARRAY_KINDS = {
    "torch.Tensor": "torch", "torch.FloatTensor": "torch", "torch.LongTensor": "torch",
    "numpy.ndarray": "numpy", "numpy.typing.NDArray": "numpy", "jax.Array": "jax",
    "jax.numpy.ndarray": "jax", "jaxtyping.Array": "jax", "typing.Any": None,
    "torch.nn.Parameter": "torch",
}
_FIXED_TENSORS = {"torch.FloatTensor": "float32", "torch.LongTensor": "int64"}


def dtype_class(path: str):
    """``(True, dtypes)`` when ``path`` names a jaxtyping dtype class, else ``(False, None)``."""
    module, _, name = path.rpartition(".")
    if module in JAXTYPING_MODULES and name in DTYPE_NAMES:
        return True, DTYPE_NAMES[name]
    return False, None


def _elements(node: ast.expr) -> list:
    return list(node.elts) if isinstance(node, ast.Tuple) else [node]


def read_annotation(node, module, depth: int = 0) -> Value:
    """The abstract value an annotation node denotes (see the module docstring).

    ``module`` resolves names: ``module.path_of(node)`` gives a dotted path or
    None, ``module.alias_annotation(name)`` a module-level alias's node,
    ``module.classes`` the module's own classes. Bad shape strings raise
    ``AnnotationError``.
    """
    if node is None or depth > 20:
        return UNKNOWN
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE
        if isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value.strip(), mode="eval").body
            except SyntaxError:
                return UNKNOWN
            return read_annotation(parsed, module, depth + 1)
        return UNKNOWN
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([read_annotation(node.left, module, depth + 1),
                       read_annotation(node.right, module, depth + 1)])
    if isinstance(node, ast.Subscript):
        return _subscript(node, module, depth)
    if isinstance(node, ast.Name):
        alias = module.alias_annotation(node.id)
        if alias is not None:
            return read_annotation(alias, module, depth + 1)
        if node.id in module.classes:
            return InstV(module.classes[node.id])
    path = module.path_of(node)
    if path is None:
        return UNKNOWN
    if path in ARRAY_KINDS:
        fixed = _FIXED_TENSORS.get(path)
        return Arr(ARRAY_KINDS[path], frozenset({DType(fixed)}) if fixed else None, None)
    return {"builtins.int": IntV(), "builtins.float": FloatV(), "builtins.bool": BoolV(),
            "builtins.str": StrV(), "types.NoneType": NONE}.get(path, UNKNOWN)


def _union(items: list) -> Value:
    flat = []
    for item in items:
        for v in (item.items if type(item) is UnionV else (item,)):
            if v is UNKNOWN:
                return UNKNOWN
            if not any(type(v) is type(w) and v is w for w in flat):
                flat.append(v)
    return flat[0] if len(flat) == 1 else UnionV(tuple(flat))


def _subscript(node: ast.Subscript, module, depth: int) -> Value:
    path = module.path_of(node.value)
    if path is None:
        return UNKNOWN
    args = _elements(node.slice)
    is_dtype, dtypes = dtype_class(path)
    if is_dtype:
        return _array(args, dtypes, module, depth)
    if path == "typing.Optional":
        return _union([read_annotation(args[0], module, depth + 1), NONE])
    if path == "typing.Union":
        return _union([read_annotation(a, module, depth + 1) for a in args])
    if path in ("typing.Tuple", "builtins.tuple"):
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            return UNKNOWN
        return TupleV(tuple(read_annotation(a, module, depth + 1) for a in args))
    if path in ("typing.List", "builtins.list", "typing.Sequence",
                "collections.abc.Sequence"):
        return ListV(None, read_annotation(args[0], module, depth + 1))
    if path in ("typing.Annotated", "typing.Final", "typing.ClassVar"):
        return read_annotation(args[0], module, depth + 1)
    if path == "numpy.typing.NDArray":
        dt = module.path_of(args[0]) or ""
        found = dt.rpartition(".")[2]
        try:
            return Arr("numpy", frozenset({DType(found)}), None)
        except TypeError:
            return Arr("numpy", None, None)
    return UNKNOWN


def _array(args: list, dtypes, module, depth: int) -> Value:
    if len(args) != 2:
        return UNKNOWN
    base, shape_node = args
    kind = None
    base_path = module.path_of(base)
    inner = None
    if base_path in ARRAY_KINDS:
        kind = ARRAY_KINDS[base_path]
    elif isinstance(base, ast.Name) and module.alias_annotation(base.id) is not None:
        inner = read_annotation(module.alias_annotation(base.id), module, depth + 1)
    elif isinstance(base, ast.Subscript):
        inner = read_annotation(base, module, depth + 1)
    if type(inner) is Arr:
        kind = inner.kind
        if inner.dtypes is not None:
            dtypes = inner.dtypes if dtypes is None else (dtypes & inner.dtypes)
    if not (isinstance(shape_node, ast.Constant) and isinstance(shape_node.value, str)):
        return Arr(kind, dtypes, None)
    shape = parse_shape(shape_node.value)
    if type(inner) is Arr and inner.shape is not None:
        shape = shape + inner.shape  # jaxtyping nests: Float[Image, "b"] is "b c h w"
    return Arr(kind, dtypes, shape)
