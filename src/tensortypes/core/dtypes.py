"""Interned dtypes, the dtype categories of jaxtyping, conversion and promotion (layer 2).

Standard library and NumPy only: dtypes of torch, JAX, TensorFlow and MLX are
recognised by their type's module and name and by ``str()``, never by importing
those libraries. ml_dtypes (which gives NumPy bfloat16, float8 and 4-bit types) is
used only when something else already imported it.

- ``DType``: one interned, immutable object per dtype (``DType("float32") is
  float32``; identity is equality; pickles to the same object). The module
  constants ``bool_``, ``int2`` ... ``complex128``, ``key`` are all of them, in the
  order of ``ALL_DTYPES``: bool; int2, int4, int8, int16, int32, int64; uint2 ...
  uint64; bfloat16, float16, float32, float64; the five float8 formats; complex64,
  complex128; key (JAX's PRNG key dtype). ``NUMPY_DTYPES`` are the 14 NumPy has.
- Categories (jaxtyping's ``Shaped``, ``Bool``, ``Num``, ...) are frozensets of
  ``DType`` in ``CATEGORIES``, so ``d in REAL`` is the fast test; there is no
  separate ``category_of``. ``category(name)`` looks one up with a clear error.
- ``as_dtype(x)`` converts anything users write for a dtype; a successful
  conversion is cached by the object, so the common case is one dict lookup.
- ``result_type(*dtypes)`` and ``can_cast(a, b, casting)`` come from the edge table
  in ``tensortypes.core._promotion``, precomputed here into per-dtype tables.
  Pairs of NumPy dtypes give what NumPy 2 gives. With three or more inputs the
  result is the least upper bound of all of them at once, as ``numpy.result_type``
  computes it (not a left fold: NumPy's pairwise promotion is not associative,
  e.g. int8, uint8, float16 gives float16 but (int8 + uint8) + float16 is float32).
  The extension to bfloat16, float8, int2/int4, uint2/uint4 and key is documented
  with the edges there: sub-byte integers widen int2 -> int4 -> int8 (uint alike,
  and uintN -> int2N), bfloat16 and each float8 widen to float32, int8 and uint8
  widen to bfloat16 as to float16, and key promotes only with itself.
"""

from __future__ import annotations

import re
import reprlib
import sys
from typing import Any

import numpy as np

from tensortypes.core import _promotion

__all__ = [
    "ALL_DTYPES",
    "ANY",
    "BOOL",
    "CATEGORIES",
    "COMPLEX",
    "DType",
    "FLOATING",
    "INEXACT",
    "INTEGER",
    "KEY",
    "NUM",
    "NUMPY_DTYPES",
    "REAL",
    "SIGNED",
    "UNSIGNED",
    "as_dtype",
    "bfloat16",
    "bool_",
    "can_cast",
    "category",
    "complex64",
    "complex128",
    "dtype_from_name",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float16",
    "float32",
    "float64",
    "int2",
    "int4",
    "int8",
    "int16",
    "int32",
    "int64",
    "key",
    "matches",
    "result_type",
    "uint2",
    "uint4",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]

_INTERNED: dict[str, DType] = {}


class DType:
    """One dtype. Instances are interned: ``DType(name)`` returns the existing one.

    ``name`` is canonical (``"float32"``), ``kind`` one of ``"b"``, ``"i"``, ``"u"``,
    ``"f"``, ``"c"``, ``"key"``; ``bits`` the storage width (0 for key);
    ``itemsize`` bytes, or None for sub-byte dtypes and key; ``numpy`` the
    ``numpy.dtype`` or None when NumPy lacks it (ml_dtypes' types count once
    ml_dtypes is imported); ``is_numpy`` whether NumPy has it natively.

    >>> DType("float32") is float32, str(float32), float32.itemsize
    (True, 'float32', 4)
    """

    __slots__ = ("name", "kind", "bits", "itemsize", "is_numpy", "_numpy", "_index")
    _index: Any
    _numpy: Any

    name: str
    kind: str
    bits: int
    itemsize: int | None
    is_numpy: bool

    def __new__(cls, name: str) -> DType:
        try:
            return _INTERNED[name]
        except (KeyError, TypeError):
            raise TypeError(
                f"DType({name!r}): not a canonical dtype name; use as_dtype() "
                f"to convert other spellings"
            ) from None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("DType is final; dtypes are interned values, not a base class")

    def __setattr__(self, attr: str, value: Any) -> None:
        raise AttributeError(f"DType is immutable (cannot set {attr!r})")

    def __delattr__(self, attr: str) -> None:
        raise AttributeError(f"DType is immutable (cannot delete {attr!r})")

    @property
    def numpy(self) -> np.dtype | None:
        found = self._numpy
        if found is None and self.kind != "key":
            # ml_dtypes is looked up on every call until it appears, never imported.
            ml = sys.modules.get("ml_dtypes")
            scalar = getattr(ml, self.name, None) if ml is not None else None
            if scalar is not None:
                found = np.dtype(scalar)
                object.__setattr__(self, "_numpy", found)
        return found

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (DType, (self.name,))

    def __copy__(self) -> DType:
        return self

    def __deepcopy__(self, memo: dict) -> DType:
        return self

    def __repr__(self) -> str:
        return f"DType({self.name!r})"

    def __str__(self) -> str:
        return self.name


def _intern(
    index: int, name: str, kind: str, bits: int, itemsize: int | None, is_numpy: bool
) -> DType:
    d = object.__new__(DType)
    for attr, value in (
        ("name", name),
        ("kind", kind),
        ("bits", bits),
        ("itemsize", itemsize),
        ("is_numpy", is_numpy),
        ("_numpy", np.dtype(name) if is_numpy else None),
        ("_index", index),
    ):
        object.__setattr__(d, attr, value)
    _INTERNED[name] = d
    return d


ALL_DTYPES: tuple[DType, ...] = tuple(
    _intern(i, *facts) for i, facts in enumerate(_promotion.DTYPE_FACTS)
)
NUMPY_DTYPES: tuple[DType, ...] = tuple(d for d in ALL_DTYPES if d.is_numpy)

(
    bool_,
    int2,
    int4,
    int8,
    int16,
    int32,
    int64,
    uint2,
    uint4,
    uint8,
    uint16,
    uint32,
    uint64,
    bfloat16,
    float16,
    float32,
    float64,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    complex64,
    complex128,
    key,
) = ALL_DTYPES


def _of_kind(*kinds: str) -> frozenset[DType]:
    return frozenset(d for d in ALL_DTYPES if d.kind in kinds)


ANY = frozenset(ALL_DTYPES)
BOOL = _of_kind("b")
NUM = _of_kind("i", "u", "f", "c")
INEXACT = _of_kind("f", "c")
FLOATING = _of_kind("f")
COMPLEX = _of_kind("c")
INTEGER = _of_kind("i", "u")
UNSIGNED = _of_kind("u")
SIGNED = _of_kind("i")
REAL = _of_kind("i", "u", "f")
KEY = _of_kind("key")

CATEGORIES: dict[str, frozenset[DType]] = {
    "any": ANY,
    "bool": BOOL,
    "num": NUM,
    "inexact": INEXACT,
    "floating": FLOATING,
    "complex": COMPLEX,
    "integer": INTEGER,
    "unsigned": UNSIGNED,
    "signed": SIGNED,
    "real": REAL,
    "key": KEY,
}


def category(name: str) -> frozenset[DType]:
    """Return the category ``name`` of jaxtyping's array annotations as a frozenset of dtypes.

    Raises ``ValueError`` naming the known categories for any other name.

    >>> float32 in category("real"), bool_ in category("num")
    (True, False)
    """
    try:
        return CATEGORIES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown dtype category {name!r}; known: {', '.join(CATEGORIES)}"
        ) from None


def dtype_from_name(name: str) -> DType | None:
    """The dtype with canonical ``name`` (or a JAX key name ``"key<impl>"``), else None.

    Unlike ``as_dtype`` this never raises and accepts no other spelling: it is the
    lookup for dtype names already extracted from arrays.

    >>> dtype_from_name("bfloat16"), dtype_from_name("key<fry>"), dtype_from_name("f4")
    (DType('bfloat16'), DType('key'), None)
    """
    if not isinstance(name, str):
        return None
    found = _INTERNED.get(name)
    if found is None and name.startswith("key<") and name.endswith(">"):
        return key
    return found


# -- conversion ----------------------------------------------------------------

# Successful conversions, keyed by the object converted. Pre-filled with the
# spellings met most; bounded so a stream of distinct objects cannot grow it.
_CACHE: dict[Any, DType] = {}
_CACHE_LIMIT = 4096
_PYTHON_TYPES: dict[type, DType] = {bool: bool_, int: int64, float: float64, complex: complex128}


def _from_numpy(dt: np.dtype) -> DType | None:
    # NumPy names dtypes by bits ("int64" for 'q' and 'l', "float128" for 'g'),
    # and ml_dtypes' dtypes carry our names, so the name decides; fields or a
    # subarray make it "void..." and therefore unknown.
    return _INTERNED.get(dt.name) if dt.names is None and dt.subdtype is None else None


def _from_string(text: str) -> DType | None:
    found = _INTERNED.get(text)
    if found is not None:
        return found
    if text.startswith("key<") and text.endswith(">"):
        return key
    try:
        dt = np.dtype(text)
    except Exception:  # NumPy raises TypeError, ValueError or SyntaxError by spelling
        return None
    return _from_numpy(dt)


def _foreign_name(x: Any) -> str | None:
    """The dtype name a torch/JAX/TensorFlow/MLX dtype object spells, or None.

    Each library's dtype class is matched by module and class name before its
    text is read, so an array passed by mistake is never printed.
    """
    cls = type(x)
    module = cls.__module__ or ""
    root = module.partition(".")[0]
    if root == "torch" and cls.__name__ == "dtype":
        text = str(x)
        return text[6:] if text.startswith("torch.") else None
    if module == "mlx.core" and cls.__name__ == "Dtype":
        text = str(x)
        return text[9:] if text.startswith("mlx.core.") else None
    if root in ("tensorflow", "jax", "jaxlib"):
        # TensorFlow's DType and JAX's key dtypes ("key<fry>") both carry .name.
        name = getattr(x, "name", None)
        if not isinstance(name, str):
            return None
        if root == "tensorflow":
            return name if cls.__name__ == "DType" else None
        return name if name.startswith("key<") else None
    return None


def _convert(x: Any) -> DType | None:
    if isinstance(x, str):
        return _from_string(x)
    if isinstance(x, np.dtype):
        return _from_numpy(x)
    if isinstance(x, type):
        if x in _PYTHON_TYPES:
            return _PYTHON_TYPES[x]
        if issubclass(x, np.generic):
            return _from_numpy(np.dtype(x))
        # jnp.float32 and friends are classes whose .dtype is a NumPy dtype.
        if (x.__module__ or "").partition(".")[0] == "jax":
            inner = getattr(x, "dtype", None)
            return _from_numpy(inner) if isinstance(inner, np.dtype) else None
        return None
    name = _foreign_name(x)
    return None if name is None else dtype_from_name(name)


def _not_a_dtype(x: Any) -> TypeError:
    shown = f"{reprlib.repr(x)} (of type {type(x).__qualname__}"
    foreign = None if isinstance(x, (str, type, np.dtype)) else _foreign_name(x)
    if foreign is not None:
        shown += f", named {foreign!r}"
    return TypeError(
        f"cannot interpret {shown}) as a dtype: expected a dtype name, a "
        f"NumPy dtype or scalar type, a Python bool/int/float/complex, or a "
        f"torch/JAX/TensorFlow/MLX dtype of one of "
        f"{', '.join(d.name for d in ALL_DTYPES)}"
    )


def as_dtype(x: Any, *, floatX: str | None = None) -> DType:  # noqa: N803
    """Convert ``x`` to a ``DType``.

    Accepts a ``DType``; a name (canonical, or any NumPy spelling such as
    ``"float"``, ``"f4"``, ``"<f8"``, ``"double"``, plus ``"bfloat16"``,
    ``"float8_*"``, ``"int4"``, ``"key"``, ``"key<fry>"``); a ``numpy.dtype``
    (byte-swapped and ml_dtypes' ones included); a NumPy scalar type; Python
    ``bool``/``int``/``float``/``complex``; and dtype objects of torch, JAX,
    TensorFlow and MLX. ``"floatX"`` means ``floatX`` when that is given (the
    caller resolves it from ``tensortypes.config``). Anything else raises
    ``TypeError`` naming it.

    >>> as_dtype("f4"), as_dtype(float), as_dtype("floatX", floatX="float32")
    (DType('float32'), DType('float64'), DType('float32'))
    """
    try:
        return _CACHE[x]
    except KeyError:
        hashable = True
    except TypeError:
        hashable = False
    if isinstance(x, str) and x == "floatX":
        if floatX is None:
            raise TypeError(
                "as_dtype('floatX'): resolve 'floatX' first, e.g. "
                "as_dtype('floatX', floatX=tensortypes.config.floatX)"
            )
        if floatX == "floatX":
            raise TypeError("as_dtype('floatX', floatX='floatX'): floatX must name a dtype")
        return as_dtype(floatX)
    found = _convert(x)
    if found is None:
        raise _not_a_dtype(x)
    if hashable and len(_CACHE) < _CACHE_LIMIT:
        _CACHE[x] = found
    return found


for _d in ALL_DTYPES:
    _CACHE[_d] = _CACHE[_d.name] = _d
    if _d.is_numpy:
        _CACHE[_d._numpy] = _CACHE[_d._numpy.type] = _d
_CACHE.update(_PYTHON_TYPES)
del _d


def matches(dtype_name: str | DType, pattern: str | re.Pattern[str]) -> bool:
    """Whether a dtype name matches one entry of a jaxtyping ``AbstractDtype.dtypes``.

    A string pattern must equal the name; a compiled regex must ``fullmatch`` it.

    >>> matches("key<fry>", re.compile(r"key<.*>")), matches("float32", "float3")
    (True, False)
    """
    if type(dtype_name) is DType:
        dtype_name = dtype_name.name
    elif not isinstance(dtype_name, str):
        raise TypeError(f"matches() takes a dtype name, got {dtype_name!r}")
    if isinstance(pattern, str):
        return dtype_name == pattern
    if isinstance(pattern, re.Pattern):
        return pattern.fullmatch(dtype_name) is not None
    raise TypeError(f"a dtype pattern is a str or a compiled regex, got {pattern!r}")


# -- promotion and casting -----------------------------------------------------

_UBS = _promotion.upper_bounds(_promotion.EDGES)
_NAMES = tuple(d.name for d in ALL_DTYPES)


def _lub(dtypes: frozenset[DType]) -> DType | None:
    name = _promotion.least_upper_bound([d.name for d in dtypes], _UBS, _promotion.KINDS)
    return None if name is None else _INTERNED[name]


# _PAIR[a._index][b._index] is the promoted dtype (None: no promotion); building
# it runs the algorithm on every pair, so an ambiguous table fails at import.
_PAIR: tuple[tuple[DType | None, ...], ...] = tuple(
    tuple(_lub(frozenset((a, b))) for b in ALL_DTYPES) for a in ALL_DTYPES
)
_MANY: dict[frozenset[DType], DType | None] = {}

_CAST: dict[str, tuple[tuple[bool, ...], ...]] = {
    casting: tuple(
        tuple(_promotion.castable(a, b, casting, _UBS, _promotion.KINDS) for b in _NAMES)
        for a in _NAMES
    )
    for casting in _promotion.CASTINGS
}


def _no_promotion(dtypes: tuple[DType, ...]) -> TypeError:
    return TypeError(
        f"no common dtype for {', '.join(d.name for d in dtypes)}: "
        f"the key dtype promotes only with itself"
    )


def result_type(*dtypes: Any) -> DType:
    """The dtype that values of all ``dtypes`` promote to (NumPy 2's rules).

    Each argument goes through ``as_dtype``. Raises ``TypeError`` with no
    arguments or when there is no common dtype (key with anything but key).

    >>> result_type("int8", "uint8"), result_type(int16, float16), result_type(bool_)
    (DType('int16'), DType('float32'), DType('bool'))
    """
    if len(dtypes) == 2:
        a, b = dtypes
        if type(a) is not DType:
            a = as_dtype(a)
        if type(b) is not DType:
            b = as_dtype(b)
        found = _PAIR[a._index][b._index]
        if found is None:
            raise _no_promotion((a, b))
        return found
    if not dtypes:
        raise TypeError("result_type() needs at least one dtype")
    converted = tuple(d if type(d) is DType else as_dtype(d) for d in dtypes)
    if len(converted) == 1:
        return converted[0]
    inputs = frozenset(converted)
    try:
        found = _MANY[inputs]
    except KeyError:
        found = _MANY[inputs] = _lub(inputs)
    if found is None:
        raise _no_promotion(converted)
    return found


def can_cast(src: Any, dst: Any, casting: str = "safe") -> bool:
    """Whether ``src`` casts to ``dst`` under NumPy's ``casting`` mode.

    ``casting`` is ``"no"``, ``"equiv"``, ``"safe"``, ``"same_kind"`` or
    ``"unsafe"`` (else ``ValueError``); ``"safe"`` means no value is lost. The
    key dtype casts only to itself.

    >>> can_cast("uint16", "float32"), can_cast(float64, int8, "same_kind")
    (True, False)
    """
    if type(src) is not DType:
        src = as_dtype(src)
    if type(dst) is not DType:
        dst = as_dtype(dst)
    try:
        table = _CAST[casting]
    except (KeyError, TypeError):
        raise ValueError(
            f"casting must be one of {', '.join(map(repr, _promotion.CASTINGS))}, got {casting!r}"
        ) from None
    return table[src._index][dst._index]
