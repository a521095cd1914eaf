"""``ArrayType``: the one general array type of the lattice (layer 3, ``types``).

An array type is an *array kind* x a *dtype set* x a *shape pattern*, the
three coordinates of ``tensortypes.core``:

- kind: ``"any"``, ``"numpy"``, ``"torch"``, ``"jax"``, ``"tensorflow"``,
  ``"mlx"``, or a Python class (a subclass such as ``torch.nn.Parameter``, or a
  duck-array class of jaxtyping's array annotations);
- dtypes: None (any dtype at all) or a frozenset of dtype names (canonical
  names of ``core.dtypes``, raw names of duck dtypes) and compiled regexes
  (jaxtyping's ``AbstractDtype.dtypes`` may hold both);
- shape: None (any shape) or a ``core.shapes.ShapePattern`` (fixed sizes,
  rigid symbols, pattern variables and expressions, ``*variadic``,
  ``#broadcast``, ``_``).

TorchScript's ``Tensor`` is ``ArrayType("torch")`` (``TENSOR``): every dtype,
any shape. ``tensor.TensorType`` is the concrete graph form; this module
relates to it without importing it (a layer-4 type is recognised by its
``dtype``/``shape``/``lattice_dtype`` attributes) and reads its values as
NumPy arrays.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from tensortypes.core.arrays import class_kind
from tensortypes.core.dtypes import ALL_DTYPES, CATEGORIES, DType, as_dtype, dtype_from_name
from tensortypes.core.shapes import ShapePattern, pattern_is_super
from tensortypes.core.words import array_annotation_text
from tensortypes.errors import AnnotationError
from tensortypes.types.base import LatticeType, qualified
from tensortypes.types.structural import union_mergers

__all__ = [
    "ArrayType",
    "TENSOR",
    "LIBRARY_KINDS",
    "class_kind",
    "kind_is_super",
    "dtypes_is_super",
    "shape_is_super",
    "array_view",
    "dtype_matches",
]

LIBRARY_KINDS = ("numpy", "torch", "jax", "tensorflow", "mlx")
_KIND_NAMES = {
    "any": "Any",
    "numpy": "np.ndarray",
    "torch": "Tensor",
    "jax": "jax.Array",
    "tensorflow": "tf.Tensor",
    "mlx": "mx.array",
}

# jaxtyping's class names for one dtype and for the categories of jaxtyping's array annotations.
_JAX_NAMES = {
    d.name: d.name.replace("_", "").capitalize().replace("float8", "Float8") for d in ALL_DTYPES
}
_JAX_NAMES.update({"bool": "Bool", "bfloat16": "BFloat16", "key": "Key"})
_JAX_NAMES.update({f"uint{b}": f"UInt{b}" for b in (2, 4, 8, 16, 32, 64)})
_CATEGORY_NAMES = {
    "num": "Num",
    "inexact": "Inexact",
    "floating": "Float",
    "complex": "Complex",
    "integer": "Integer",
    "unsigned": "UInt",
    "signed": "Int",
    "real": "Real",
}
_CATEGORY_BY_SET = {frozenset(d.name for d in CATEGORIES[c]): n for c, n in _CATEGORY_NAMES.items()}
_ALL_NAMES = frozenset(d.name for d in ALL_DTYPES)

# TorchScript's scalar-type names (``FloatTensor``, ``Long(2, 3)``).
_TORCH_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "uint8": "Byte",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "bool": "Bool",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
    "int2": "Int2",
    "int4": "Int4",
    "uint2": "UInt2",
    "uint4": "UInt4",
    "float8_e4m3fn": "Float8_e4m3fn",
    "float8_e5m2": "Float8_e5m2",
    "float8_e4m3fnuz": "Float8_e4m3fnuz",
    "float8_e5m2fnuz": "Float8_e5m2fnuz",
}


def _is_library_root(cls: type, kind: str) -> bool:
    """``cls`` is the library's array class itself (``torch.Tensor``), not a subclass."""
    name = cls.__name__.rpartition(".")[2]
    return name in ("ndarray", "Tensor", "Array", "array") and class_kind(cls) == kind


def _normalize_kind(kind: Any) -> str | type:
    if isinstance(kind, str):
        if kind not in _KIND_NAMES:
            raise TypeError(
                f"ArrayType kind must be one of {', '.join(_KIND_NAMES)} or a class, got {kind!r}"
            )
        return kind
    if isinstance(kind, type):
        lib = class_kind(kind)
        return lib if lib is not None and _is_library_root(kind, lib) else kind
    raise TypeError(f"ArrayType kind must be a str or a class, got {kind!r}")


def _dtype_name(d: Any) -> str | re.Pattern:
    if isinstance(d, re.Pattern):
        return d
    if isinstance(d, DType):
        return d.name
    if isinstance(d, str):
        # Only canonical names are translated: any other string is a duck
        # dtype's own name and must stay comparable with the values' names.
        found = dtype_from_name(d)
        return found.name if found is not None else d
    return as_dtype(d).name


def _normalize_dtypes(dtypes: Any) -> frozenset | None:
    if dtypes is None:
        return None
    if isinstance(dtypes, (str, DType, re.Pattern)) or not hasattr(dtypes, "__iter__"):
        dtypes = (dtypes,)
    names = frozenset(_dtype_name(d) for d in dtypes)
    if not names:
        raise AnnotationError("an array type needs at least one dtype (the dtype set is empty)")
    return None if names == _ALL_NAMES else names


def _normalize_shape(shape: Any) -> ShapePattern | None:
    if shape is None:
        return None
    if not isinstance(shape, ShapePattern):
        if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
            raise TypeError(
                f"ArrayType shape must be None, a ShapePattern or a static shape "
                f"tuple, got {shape!r}"
            )
        shape = ShapePattern.from_static(tuple(shape))
    specs = shape.specs
    if len(specs) == 1 and str(specs[0]) == "...":
        return None  # "..." matches every shape
    return shape


class ArrayType(LatticeType):
    """Arrays of one kind with a dtype set and a shape pattern.

    >>> t = ArrayType("torch", "float32", (2, 3))
    >>> str(t), t.torchscript_str(), str(TENSOR), ArrayType("numpy", "float32")
    ('Float32[Tensor, "2 3"]', 'Float(2, 3)', 'Tensor', Float32[np.ndarray, "..."])
    """

    __slots__ = ("kind", "dtypes", "shape", "static_shape")
    dtypes: Any
    kind: Any
    shape: Any
    static_shape: Any
    _fields = ("kind", "dtypes", "shape")
    _kind = "array"

    @classmethod
    def _raw_key(cls, args: tuple) -> Any:
        # A static shape's entries: ``(False, 3)`` (None, legacy broadcastable style)
        # equals ``(0, 3)``, and ``(2.0,)`` (an error) equals ``(2,)``.
        shape = args[2] if len(args) > 2 else None
        return (cls, args, tuple(map(type, shape)) if type(shape) is tuple else None)

    @classmethod
    def _construct(cls, kind: Any = "any", dtypes: Any = None, shape: Any = None):
        return cls._get((_normalize_kind(kind), _normalize_dtypes(dtypes), _normalize_shape(shape)))

    def _post_init(self) -> None:
        shape = self.shape
        static = shape.to_static() if shape is not None and shape.is_static else None
        self._set("static_shape", static)

    @property
    def dtype(self) -> str | None:
        """The dtype name when the set holds exactly one plain name, else None."""
        if self.dtypes is not None and len(self.dtypes) == 1:
            (only,) = self.dtypes
            if isinstance(only, str):
                return only
        return None

    def as_tensor_type(self) -> Any:
        """The graph ``tensor.TensorType`` with exactly these values, or None.

        Only a NumPy array type with one NumPy dtype and a static shape has one.
        The tensor layer sits above this one, so it is looked up among the
        loaded modules, never imported: a TensorType to compare with exists only
        once that layer is loaded.
        """
        if self.kind != "numpy" or self.static_shape is None or self.dtype is None:
            return None
        found = dtype_from_name(self.dtype)
        tensor = sys.modules.get("tensortypes.tensor")
        if found is None or not found.is_numpy or tensor is None:
            return None
        return tensor.TensorType(found.name, self.static_shape)

    def with_(self, kind: Any = ..., dtypes: Any = ..., shape: Any = ...) -> ArrayType:
        """A copy with some coordinates replaced (``...`` keeps one).

        >>> TENSOR.with_(dtypes="float64") is ArrayType("torch", "float64")
        True
        """
        return ArrayType(
            self.kind if kind is ... else kind,
            self.dtypes if dtypes is ... else dtypes,
            self.shape if shape is ... else shape,
        )

    # -- printing ---------------------------------------------------------------------
    def _kind_name(self) -> str:
        kind = self.kind
        return _KIND_NAMES[kind] if isinstance(kind, str) else qualified(kind)

    def _py_str(self) -> str:
        if self.dtypes is None and self.shape is None and self.kind == "torch":
            return "Tensor"
        shape = "..." if self.shape is None else str(self.shape)
        tail = f'[{self._kind_name()}, "{shape}"]'
        dtypes = self.dtypes
        if dtypes is None:
            return "Shaped" + tail
        category = _CATEGORY_BY_SET.get(dtypes)
        if category is not None:
            return category + tail
        parts = sorted(_dtype_label(d) for d in dtypes)
        if len(parts) == 1:
            return parts[0] + tail
        return "Union[" + ", ".join(p + tail for p in parts) + "]"

    def message_str(self) -> str:
        """This type in an error message (``core.words``): ``Float[np.ndarray, 'b c']``."""
        if self.dtypes is None and self.shape is None and self.kind == "torch":
            return "torch.Tensor"
        shape = "..." if self.shape is None else str(self.shape)
        dtypes = self.dtypes
        category = "Shaped" if dtypes is None else _CATEGORY_BY_SET.get(dtypes)
        parts = [category] if category else sorted(_dtype_label(d) for d in dtypes)
        texts = [array_annotation_text(p, self.kind, shape) for p in parts]
        return texts[0] if len(texts) == 1 else "Union[" + ", ".join(texts) + "]"

    def _ts_str(self) -> str:
        if self.kind != "torch":
            return self._py_str()
        name = _TORCH_NAMES.get(self.dtype or "")
        if self.shape is None:
            return f"{name}Tensor" if name else "Tensor"
        dims = ", ".join("*" if s.kind in ("unknown", "anon") else str(s) for s in self.shape)
        return f"{name or 'Tensor'}({dims})"


def _dtype_label(d: str | re.Pattern) -> str:
    if isinstance(d, re.Pattern):
        return f"Dtype[{d.pattern!r}]"
    return _JAX_NAMES.get(d, f"Dtype[{d!r}]")


def dtype_category(dtypes: Any) -> str | None:
    """jaxtyping's class name for a set of dtype names (``"Float"``), or None.

    >>> dtype_category(frozenset({"float16", "float32", "float64", "bfloat16"})) is None
    True
    """
    try:
        return _CATEGORY_BY_SET.get(frozenset(dtypes))
    except TypeError:
        return None


TENSOR = ArrayType("torch")
"""TorchScript's ``Tensor``: a torch tensor of any dtype and shape."""


# -- the coordinates' relations (used by relations.py and check.py) -----------------


def kind_is_super(sup: str | type, sub: str | type) -> bool:
    """Whether every array of kind ``sub`` is of kind ``sup``.

    >>> kind_is_super("any", "torch"), kind_is_super("torch", "numpy")
    (True, False)
    """
    if sup == "any" or sup is sub or sup == sub:
        return True
    if isinstance(sup, str):
        return isinstance(sub, type) and class_kind(sub) == sup
    return isinstance(sub, type) and issubclass(sub, sup)


def dtype_matches(dtypes: frozenset | None, name: str) -> bool:
    """Whether a value's dtype ``name`` is in the set (by name or pattern).

    >>> dtype_matches(frozenset({"float32"}), "float32"), dtype_matches(None, "x")
    (True, True)
    """
    if dtypes is None:
        return True
    found = dtype_from_name(name)
    canonical = found.name if found is not None else name
    if canonical in dtypes:
        return True
    return any(isinstance(p, re.Pattern) and p.fullmatch(name) is not None for p in dtypes)


def dtypes_is_super(sup: frozenset | None, sub: frozenset | None) -> bool | None:
    """Whether the dtype set ``sup`` contains ``sub`` (None when a pattern decides it).

    >>> dtypes_is_super(frozenset({"float32", "float64"}), frozenset({"float32"}))
    True
    """
    if sup is None:
        return True
    if sub is None:
        return False
    answer: bool | None = True
    for d in sub:
        if d in sup:
            continue
        if isinstance(d, str):
            if not dtype_matches(sup, d):
                return False
        else:
            answer = None  # a regex not in sup: which names it matches is open
    return answer


def _relaxed(pattern: ShapePattern) -> tuple[tuple, bool]:
    """A static shape containing every shape of a fixed-rank ``pattern``, and
    whether it is exactly the pattern's set of shapes."""
    static, exact, seen = [], True, set()
    for spec in pattern.specs:
        kind = spec.kind
        if kind == "fixed" and not spec.broadcast:
            static.append(spec.expr)
        elif kind == "rigid":
            static.append(spec.expr)
        else:
            static.append(None)
            if kind == "var":
                if not spec.expr.is_symbol or spec.expr in seen or spec.broadcast:
                    exact = False
                seen.add(spec.expr)
            elif kind == "fixed" or spec.broadcast:
                exact = False
    return tuple(static), exact


def shape_is_super(sup: ShapePattern | None, sub: ShapePattern | tuple | None) -> bool | None:
    """Whether every shape of ``sub`` (a pattern, a static shape or None = any)
    matches ``sup``; None when it cannot be told.

    >>> p = ShapePattern.from_static((2, None))
    >>> shape_is_super(p, (2, 3)), shape_is_super(p, None), shape_is_super(None, p)
    (True, False, True)
    """
    if sup is None:
        return True
    if sub is None:
        specs = sup.specs
        return len(specs) == 1 and specs[0].variadic and not specs[0].broadcast
    if isinstance(sub, tuple):
        return pattern_is_super(sup, sub)
    if sub is sup:
        return True
    if sub.variadic_index is not None:
        return None if sup.variadic_index is not None else False
    if sub.is_static:
        return pattern_is_super(sup, sub.to_static())
    rank = len(sub.specs)
    if rank < sup.min_rank or (sup.variadic_index is None and rank != len(sup.specs)):
        return False  # a rank the pattern never has
    static, exact = _relaxed(sub)
    answer = pattern_is_super(sup, static)
    if answer is False and not exact:
        return None
    return answer


def array_view(t: Any) -> tuple[Any, frozenset | None, Any] | None:
    """``(kind, dtypes, shape)`` of an ``ArrayType`` or of a graph ``TensorType``.

    A graph TensorType (layer 4, recognised by its attributes) holds NumPy
    arrays of one dtype and a static shape. Anything else gives None.

    >>> array_view(TENSOR)
    ('torch', None, None)
    """
    if isinstance(t, ArrayType):
        return (t.kind, t.dtypes, t.shape)
    dtype = getattr(t, "lattice_dtype", None)
    shape = getattr(t, "shape", None)
    if isinstance(dtype, DType) and isinstance(shape, tuple):
        return ("numpy", frozenset((dtype.name,)), shape)
    return None


def _merge_arrays(members: list) -> list:
    """Union canonicalisation: arrays of one kind and shape merge their dtype sets."""
    groups: dict[tuple, int] = {}
    out: list = []
    for m in members:
        if type(m) is not ArrayType:
            out.append(m)
            continue
        key = (m.kind, m.shape)
        index = groups.get(key)
        if index is None:
            groups[key] = len(out)
            out.append(m)
            continue
        prev = out[index]
        dtypes = None if prev.dtypes is None or m.dtypes is None else prev.dtypes | m.dtypes
        out[index] = ArrayType(m.kind, dtypes, m.shape)
    return out


union_mergers.append(_merge_arrays)
