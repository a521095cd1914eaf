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

Dtype names are canonical for the dtypes of ``tensortypes.core.dtypes``
(``torch.float32`` gives ``"float32"``). Otherwise the name is the library's own,
as jaxtyping spells it: the str of a duck array's dtype, JAX's ``"key<fry>"``
(kept whole so patterns can match the implementation), torch's name without the
``torch.`` prefix (``"complex32"``), a NumPy scalar type's name (``"object_"``,
``"str_"``). Shapes are tuples; a tracer's may hold symbolic dims, kept as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensortypes.core.dtypes import DType, as_dtype, dtype_from_name, key

__all__ = ["ARRAY_KINDS", "array_info", "array_kind", "class_kind", "dtype_of"]

ARRAY_KINDS = ("numpy", "torch", "jax", "tensorflow", "mlx", "duck")

ArrayInfo = tuple[str, str, tuple[Any, ...]]

_CACHE_LIMIT = 4096
_NAMES: dict[Any, str] = {}


def _raw_name(dt: Any) -> str:
    """The library's own spelling of a dtype this package does not model."""
    if isinstance(dt, np.dtype):
        name = dt.type.__name__
        return "bool" if name == "bool_" else name
    module = (type(dt).__module__ or "").partition(".")[0]
    if module == "tensorflow":
        name = getattr(dt, "name", None)
        if isinstance(name, str):
            return name
    text = str(dt)
    for prefix in ("torch.", "mlx.core."):
        if text.startswith(prefix):
            return text[len(prefix):]
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
    dt = x.dtype
    try:
        name = _NAMES[dt]
    except KeyError:
        name = _dtype_name(dt)
    return ("numpy", name, x.shape)


def _library_info(kind: str) -> Callable[[Any], ArrayInfo]:
    def info(x: Any) -> ArrayInfo:
        shape = x.shape
        if type(shape) is not tuple:
            shape = tuple(shape)
        return (kind, _dtype_name(x.dtype), shape)

    info.__name__ = f"_{kind}_info"
    return info


def _duck_info(x: Any) -> ArrayInfo | None:
    # Arbitrary objects may raise anything from a property; not being an array
    # is the answer then, not an error.
    try:
        shape = x.shape
        dtype = x.dtype
    except Exception:
        return None
    if type(shape) is not tuple or not isinstance(dtype, str):
        return None
    for dim in shape:
        if type(dim) is not int:
            return None
    return ("duck", str(dtype), shape)


_ndarray = np.ndarray
_NOT_AN_ARRAY: tuple[None, None] = (None, None)
_EXTRACTORS: dict[str, Callable[[Any], ArrayInfo | None]] = {
    "numpy": _numpy_info,
    "torch": _library_info("torch"),
    "jax": _library_info("jax"),
    "tensorflow": _library_info("tensorflow"),
    "mlx": _library_info("mlx"),
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
        if root in ("jax", "jaxlib") and (name in ("Array", "ArrayImpl", "PRNGKeyArray")
                                          or name.endswith("Tracer")):
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
        _BY_TYPE[cls] = entry
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
    except KeyError:
        extract = _entry(cls)[1]
    return None if extract is None else extract(x)


def array_kind(x: Any) -> str | None:
    """The array library of ``x`` (one of ``ARRAY_KINDS``), or None if it is no array.

    >>> array_kind(np.zeros(3)), array_kind(np.float32(1.0)), array_kind([1, 2])
    ('numpy', None, None)
    """
    try:
        kind = _BY_TYPE[type(x)][0]
    except KeyError:
        kind = _entry(type(x))[0]
    if kind == "duck" and _duck_info(x) is None:
        return None
    return kind


def dtype_of(x: Any) -> DType | None:
    """The ``DType`` of an array value; None for non-arrays and dtypes not modelled.

    >>> dtype_of(np.arange(3, dtype=np.int16)), dtype_of(3.0)
    (DType('int16'), None)
    """
    info = array_info(x)
    return None if info is None else dtype_from_name(info[1])
