"""Array-library recognisers: kind, dtype and shape of a runtime value (layer 2).

Standard library and NumPy only. A value is recognised by its type's module and
class names along its MRO, never by importing torch, JAX, TensorFlow or MLX, so
asking about a NumPy array never loads them. Each type is classified once; the
result (its kind and an extraction function) is cached per type, so
``array_info`` costs one dict lookup on ``type(x)`` plus a few attribute reads.

Kinds:

- ``"numpy"``: ``numpy.ndarray`` and its subclasses. NumPy scalars
  (``np.float32(1.0)``) are not arrays here: they give None.
- ``"torch"``: ``torch.Tensor`` and subclasses (``torch.nn.Parameter``, ...).
- ``"jax"``: ``jax.Array`` (``ArrayImpl``, PRNG key arrays) and tracers (classes
  from a ``jax`` module whose name ends in ``Tracer``).
- ``"tensorflow"``: ``tf.Tensor`` and subclasses; ``"mlx"``: ``mlx.core.array``.
- ``"duck"``: any other object whose ``.shape`` is a tuple of ints and whose
  ``.dtype`` is a str (jaxtyping's duck arrays); checked per value.

Values are whatever their classes say: an ndarray subclass or a class named like a
library's may have a ``.shape`` that raises or returns None, a generator, floats or
negative sizes, and a ``.dtype`` that is unhashable or not a dtype. Every value but an
exact ``np.ndarray`` is read by one guarded extraction; anything that is not a tuple
of sizes (ints in ``[0, MAX_SIZE]``, at most ``MAX_NDIM`` axes) and a dtype is no
array (None), never an exception. ``native_kind`` says which classes' attributes are
the library's own code, so that generated checks may read them inline, and
``memory_info`` describes an ndarray subclass from NumPy's own record, for messages.

Dtype names are canonical for the dtypes of ``tensortypes.core.dtypes``
(``torch.float32`` gives ``"float32"``). Otherwise the name is the library's own,
as jaxtyping spells it: the str of a duck array's dtype, JAX's ``"key<fry>"``
(kept whole so patterns can match the implementation), torch's name without the
``torch.`` prefix (``"complex32"``), a NumPy scalar type's name (``"object_"``,
``"str_"``). Shapes are tuples; a tracer's may hold symbolic dims, kept as they are.
"""

from __future__ import annotations

import inspect
import os
import reprlib
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from tensortypes.core._staticshape import MAX_NDIM
from tensortypes.core.dtypes import DType, as_dtype, dtype_from_name, key

__all__ = [
    "ARRAY_KINDS",
    "MAX_SIZE",
    "array_info",
    "array_kind",
    "class_kind",
    "dtype_of",
    "loose_info",
    "memory_info",
    "native_kind",
    "ArrayRepr",
]

ARRAY_KINDS = ("numpy", "torch", "jax", "tensorflow", "mlx", "duck")

ArrayInfo = tuple[str, str, tuple[Any, ...]]

MAX_SIZE = sys.maxsize
"""The largest size an axis can have (NumPy's, and every library's, index limit)."""

_CACHE_LIMIT = 4096
_NAMES: dict[Any, str] = {}


def _raw_name(dt: Any) -> str:
    """The library's own spelling of a dtype this package does not model."""
    if isinstance(dt, np.dtype):
        name = dt.type.__name__
        return "bool" if name == "bool_" else name
    module = (type(dt).__module__ or "").partition(".")[0]
    if module == "tensorflow":
        tf_name = getattr(dt, "name", None)
        if isinstance(tf_name, str):
            return tf_name
    text = str(dt)
    for prefix in ("torch.", "mlx.core."):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _dtype_name(dt: Any) -> str:
    try:
        return _NAMES[dt]
    except KeyError:
        hashable = True
    except TypeError:
        hashable = False
    try:
        found = as_dtype(dt)
    except TypeError:
        found = None
    name = found.name if found is not None and found is not key else _raw_name(dt)
    if hashable and len(_NAMES) < _CACHE_LIMIT:
        _NAMES[dt] = name
    return name


def _numpy_info(x: Any) -> ArrayInfo:
    # Exact ``np.ndarray`` only: its attributes are NumPy's own and cannot misbehave.
    dt = x.dtype
    try:
        name = _NAMES[dt]
    except KeyError:
        name = _dtype_name(dt)
    return ("numpy", name, x.shape)


def _safe_name(dt: Any) -> str | None:
    """``_dtype_name`` of a dtype read from an arbitrary object, or None when asking
    about it raises (hash, equality, ``str`` or the library's own conversion)."""
    try:
        name = _dtype_name(dt)
    except Exception:  # noqa: BLE001 (an arbitrary object's dtype may raise anything)
        return None
    return name if type(name) is str else None


def _sizes(shape: Any, kind: str) -> tuple[Any, ...] | None:
    """``shape`` as a tuple of sizes, or None when it is not one.

    A size is an int in ``[0, MAX_SIZE]`` (NumPy ints are read as ints). A shape is a
    tuple (a subclass such as ``torch.Size`` is copied), MLX's a list; TensorFlow's
    ``TensorShape`` is iterated, and its unknown sizes stay None; a JAX tracer's
    symbolic sizes are kept as they are. Anything else (None, a str, a generator,
    floats, negative or absurd sizes, more than ``MAX_NDIM`` axes, an iteration that
    raises) is not a shape.
    """
    try:
        if type(shape) is not tuple:
            if (
                isinstance(shape, tuple)
                or (kind == "mlx" and isinstance(shape, list))
                or (
                    kind == "tensorflow"
                    and not isinstance(shape, (str, bytes, dict))
                    and iter(shape) is not shape
                )
            ):
                shape = tuple(shape)
            else:
                return None
        if len(shape) > MAX_NDIM:
            return None
        fixed = None
        for i, d in enumerate(shape):
            if type(d) is int:
                if 0 <= d <= MAX_SIZE:
                    continue
                return None
            if isinstance(d, (np.integer, int)) and not isinstance(d, bool):
                value = int(d)
                if not 0 <= value <= MAX_SIZE:
                    return None
            elif kind == "jax" and not isinstance(d, (float, complex, str, bytes, bool)):
                continue  # a tracer's symbolic size
            elif kind == "tensorflow" and d is None:
                continue  # unknown in graph mode
            else:
                return None
            if fixed is None:
                fixed = list(shape)
            fixed[i] = value
    except Exception:  # noqa: BLE001 (a shape's iteration or a size's int() may raise)
        return None
    return shape if fixed is None else tuple(fixed)


def _guarded_info(kind: str) -> Callable[[Any], ArrayInfo | None]:
    """The one extraction for every array that is not an exact ``np.ndarray``.

    ``.shape`` and ``.dtype`` of an ndarray subclass, a library tensor or a duck
    array are whatever the class says: a property may raise, return None, a
    generator or an unhashable object. Anything that is not a real shape and dtype
    makes the value not an array (None), never an exception.
    """

    def info(x: Any) -> ArrayInfo | None:
        try:
            shape = x.shape
            dt = x.dtype
        except Exception:  # noqa: BLE001 (arbitrary properties may raise anything)
            return None
        if kind == "numpy" and not issubclass(type(dt), np.dtype):
            return None  # an ndarray's dtype is a NumPy dtype, whatever a subclass says
        shape = _sizes(shape, kind)
        if shape is None:
            return None
        name = _safe_name(dt)
        return None if name is None else (kind, name, shape)

    info.__name__ = f"_{kind}_info"
    return info


def _duck_info(x: Any) -> ArrayInfo | None:
    # A duck array spells its dtype as a str; anything else is not one.
    try:
        shape = x.shape
        dtype = x.dtype
    except Exception:  # noqa: BLE001 (arbitrary properties may raise anything)
        return None
    if not isinstance(dtype, str):
        return None
    shape = _sizes(shape, "duck") if type(shape) is tuple else None
    if shape is None:
        return None
    try:
        return ("duck", str(dtype), shape)
    except Exception:  # noqa: BLE001 (a str subclass's __str__)
        return None


_C_SHAPE = np.ndarray.shape.__get__
_C_DTYPE = np.ndarray.dtype.__get__


def memory_info(x: Any) -> ArrayInfo | None:
    """``("numpy", dtype name, shape)`` of an ndarray or subclass read from NumPy's own
    C-level attributes, never the subclass's properties (None for anything else): what
    a message can always say about such a value, without running its code.

    >>> class S(np.ndarray):
    ...     shape = property(lambda self: 1 / 0)
    >>> memory_info(np.zeros((2, 3)).view(S))
    ('numpy', 'float64', (2, 3))
    """
    if not issubclass(type(x), np.ndarray):
        return None
    return ("numpy", _dtype_name(_C_DTYPE(x)), _C_SHAPE(x))


class ArrayRepr(reprlib.Repr):
    """``reprlib.Repr`` that writes an ndarray, at any depth inside a container, as
    ``ndarray(float64, (2, 3))`` from NumPy's own record: never the repr of its items,
    which for a large or broadcast array can take longer than any check. Messages
    about values use it.

    >>> ArrayRepr().repr([np.zeros((2, 3)), "a"])
    "[ndarray(float64, (2, 3)), 'a']"
    """

    def repr1(self, x: Any, level: int) -> str:
        try:
            info = memory_info(x)
        except Exception:  # noqa: BLE001 (a message never raises)
            info = None
        if info is not None:
            return f"{type(x).__name__}({info[1]}, {info[2]})"
        return super().repr1(x, level)


def loose_info(x: Any) -> tuple[str, tuple[Any, ...]] | None:
    """``(dtype name, shape)`` of an array, or of any other value with a tuple of sizes
    as ``.shape`` and a ``.dtype`` (NumPy scalars, dask arrays); None otherwise.

    A value of an array library's class whose attributes are broken is no array here
    either: the loose reading is only for classes no library claims.

    >>> loose_info(np.float32(1.0)), loose_info(3.0)
    (('float32', ()), None)
    """
    info = array_info(x)
    if info is not None:
        return info[1], info[2]
    cls = type(x)
    if cls.__module__ == "builtins" or _kind_of(cls) not in ("duck", None):
        return None
    try:
        shape = x.shape
        dt = x.dtype
    except Exception:  # noqa: BLE001 (arbitrary properties may raise anything)
        return None
    shape = _sizes(shape, "duck") if type(shape) is tuple else None
    if shape is None:
        return None
    name = dt if type(dt) is str else _safe_name(dt)
    return None if name is None else (name, shape)


_ndarray = np.ndarray
_NOT_AN_ARRAY: tuple[None, None] = (None, None)
_EXTRACTORS: dict[str, Callable[[Any], ArrayInfo | None]] = {
    "numpy": _guarded_info("numpy"),
    "torch": _guarded_info("torch"),
    "jax": _guarded_info("jax"),
    "tensorflow": _guarded_info("tensorflow"),
    "mlx": _guarded_info("mlx"),
    "duck": _duck_info,
}


def class_kind(cls: Any) -> str | None:
    """The array library whose arrays ``cls`` makes (by MRO names, no imports), or None.

    Anything without an MRO (not a class) is None.

    >>> class_kind(np.ndarray), class_kind(int)
    ('numpy', None)
    """
    for base in getattr(cls, "__mro__", ()):
        module = base.__module__ or ""
        root = module.partition(".")[0]
        # jax.Array reports its name as "jaxlib._jax.Array"; keep the last part.
        name = base.__name__.rpartition(".")[2]
        if root == "numpy" and name == "ndarray":
            return "numpy"
        if root == "torch" and name == "Tensor":
            return "torch"
        if root in ("jax", "jaxlib") and (
            name in ("Array", "ArrayImpl", "PRNGKeyArray") or name.endswith("Tracer")
        ):
            return "jax"
        if root == "tensorflow" and name == "Tensor":
            return "tensorflow"
        if module == "mlx.core" and name == "array":
            return "mlx"
    return None


def _classify(cls: type) -> str | None:
    """The array kind of instances of ``cls``: one of ``ARRAY_KINDS`` or None."""
    if issubclass(cls, np.ndarray):
        return "numpy"
    if cls.__module__ == "builtins" or issubclass(cls, np.generic):
        return None
    return class_kind(cls) or "duck"


_BY_TYPE: dict[type, tuple[str | None, Callable[[Any], ArrayInfo | None] | None]] = {
    np.ndarray: ("numpy", _numpy_info),
}


def _entry(cls: type) -> tuple[str | None, Callable[[Any], ArrayInfo | None] | None]:
    kind = _classify(cls)
    entry = _NOT_AN_ARRAY if kind is None else (kind, _EXTRACTORS[kind])
    if len(_BY_TYPE) < _CACHE_LIMIT:
        try:
            _BY_TYPE[cls] = entry
        except TypeError:  # a class made unhashable by its metaclass: not remembered
            pass
    return entry


def array_info(x: Any) -> ArrayInfo | None:
    """``(kind, dtype name, shape)`` of an array value, or None for anything else.

    >>> array_info(np.zeros((2, 3), dtype=np.float32))
    ('numpy', 'float32', (2, 3))
    """
    cls = type(x)
    if cls is _ndarray:
        # The common case, inlined: a call less is a quarter of the cost.
        dt = x.dtype
        try:
            return ("numpy", _NAMES[dt], x.shape)
        except KeyError:
            return ("numpy", _dtype_name(dt), x.shape)
    try:
        extract = _BY_TYPE[cls][1]
    except (KeyError, TypeError):  # a new class, or one its metaclass made unhashable
        extract = _entry(cls)[1]
    return None if extract is None else extract(x)


def _kind_of(cls: type) -> str | None:
    try:
        return _BY_TYPE[cls][0]
    except (KeyError, TypeError):
        return _entry(cls)[0]


_NATIVE: dict[type, str | None] = {}
_C_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)
_ROOTS = {"numpy": ("numpy",), "torch": ("torch",), "jax": ("jax", "jaxlib")}


def _library_code(attr: Any, kind: str) -> bool:
    """Whether the descriptor ``attr`` is the library's own: C-level, or a property
    whose getter is Python code in the library's installed package."""
    if type(attr) in _C_DESCRIPTORS:
        return True
    if type(attr) is not property:
        return False
    code = getattr(attr.fget, "__code__", None)
    if code is None:
        return False
    for root in _ROOTS[kind]:
        module = sys.modules.get(root)
        for folder in getattr(module, "__path__", None) or ():
            if code.co_filename.startswith(folder + os.sep):
                return True
    return False


def native_kind(cls: type) -> str | None:
    """The array kind of ``cls`` when reading ``.shape`` and ``.dtype`` of its instances
    runs only the library's own code (C-level attributes, or properties defined in the
    library's installed package, and no overridden ``__getattribute__``), else None.

    Such values (``np.ndarray``, ``np.matrix``, ``torch.Tensor``, JAX's ``ArrayImpl``)
    can be read inline by generated checks; every other class, a subclass overriding
    ``.shape`` or a class that only says it comes from a library included, goes through
    the guarded extraction of ``array_info``.

    >>> class S(np.ndarray):
    ...     shape = property(lambda self: (1,))
    >>> native_kind(np.ndarray), native_kind(np.matrix), native_kind(S)
    ('numpy', 'numpy', None)
    """
    try:
        return _NATIVE[cls]
    except KeyError:
        pass
    except TypeError:  # a class its metaclass made unhashable: never read inline
        return None
    kind = _kind_of(cls)
    found = None
    if kind in _ROOTS and cls.__getattribute__ is object.__getattribute__:
        try:
            if all(
                _library_code(inspect.getattr_static(cls, name), kind)
                for name in ("shape", "dtype")
            ):
                found = kind
        except AttributeError:
            pass
    if len(_NATIVE) < _CACHE_LIMIT:
        _NATIVE[cls] = found
    return found


def array_kind(x: Any) -> str | None:
    """The array library of ``x`` (one of ``ARRAY_KINDS``), or None if it is no array.

    A value whose class is an array class but whose ``.shape`` or ``.dtype`` is broken
    is no array either (the same answer as ``array_info``).

    >>> array_kind(np.zeros(3)), array_kind(np.float32(1.0)), array_kind([1, 2])
    ('numpy', None, None)
    """
    cls = type(x)
    if cls is _ndarray:
        return "numpy"
    kind = _kind_of(cls)
    if kind is None or _EXTRACTORS[kind](x) is None:
        return None
    return kind


def dtype_of(x: Any) -> DType | None:
    """The ``DType`` of an array value; None for non-arrays and dtypes not modelled.

    >>> dtype_of(np.arange(3, dtype=np.int16)), dtype_of(3.0)
    (DType('int16'), None)
    """
    info = array_info(x)
    return None if info is None else dtype_from_name(info[1])
