"""The dtype classes of jaxtyping's array annotations and custom dtypes (layer 5: ``annotate``).

``Float``, ``Int32``, ``Shaped``, ... are subclasses of :class:`AbstractDtype`; each
holds ``dtypes``, a tuple of canonical dtype names (from ``core.dtypes.CATEGORIES`` for
the categories) or None for ``Shaped`` (any dtype). Subscripting one,
``Float[np.ndarray, "b c"]``, gives an interned annotation class (``_array``); a repeated
subscript is one dict lookup.

A custom dtype is a subclass with ``dtypes`` set to a name, a compiled regex (matched
with ``fullmatch`` against the value's dtype name, as ``core.dtypes.matches`` does), a
dtype object (``np.float32``, ``torch.int8``), or a list of these. Names are checked
when the class is defined: NumPy's other spellings (``"f4"``, ``"double"``) and near
misses of a known name (``"flaot32"``) are ``AnnotationError``s with a caret under the
entry; any other name is a duck array's own dtype and is kept as written.
``make_numpy_struct_dtype`` makes one for a NumPy structured dtype.
"""

from __future__ import annotations

import copyreg
import difflib
import re
import weakref
from typing import Any, NoReturn, cast

import numpy as np

from tensortypes.annotate import _array
from tensortypes.core.dtypes import ALL_DTYPES, CATEGORIES, as_dtype, dtype_from_name
from tensortypes.errors import AnnotationError

__all__ = ["AbstractDtype", "make_numpy_struct_dtype", "normalize_dtypes", "DTYPE_CLASSES"]

# Subscripts seen before: the class made (held weakly, as in ``_array``), or a union of
# classes (held strongly, in a bounded dict that is emptied when full).
_RAW: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_RAW_UNIONS: dict[tuple, Any] = {}
_RAW_LIMIT = 1 << 10
_CANONICAL = [d.name for d in ALL_DTYPES]
# jaxtyping's spellings of two dtypes.
_ALIASES = {"bool_": "bool", "prng_key": "key"}


class _MetaAbstractDtype(type):
    """The metaclass of dtype classes: subscripting makes annotations."""

    def __getitem__(cls, item: Any) -> Any:
        key = (cls, item, _array._format)
        try:
            found = _RAW.get(key)
            if found is None:
                found = _RAW_UNIONS.get(key)
        except TypeError:  # an unhashable item: let subscript() say what is wrong
            return _array.subscript(cls, item)
        if found is not None:
            return found
        out = _array.subscript(cls, item)
        if isinstance(out, type):
            _RAW[key] = out
        else:
            if len(_RAW_UNIONS) >= _RAW_LIMIT:
                _RAW_UNIONS.clear()
            _RAW_UNIONS[key] = out
        return out

    def __instancecheck__(cls, obj: Any) -> NoReturn:
        raise AnnotationError(
            f"isinstance(x, {cls.__name__}) is not a check: a dtype class "
            f"needs an array type and a shape, e.g. "
            f"isinstance(x, {cls.__name__}[np.ndarray, '...']) to check "
            f"only the dtype"
        )


class AbstractDtype(metaclass=_MetaAbstractDtype):
    """The base class of dtype classes; subclass it for a custom set of dtypes.

    >>> import re, numpy as np
    >>> class Floaty(AbstractDtype):
    ...     dtypes = ["float32", re.compile(r"bfloat\\d+")]
    >>> isinstance(np.zeros(2, np.float32), Floaty[np.ndarray, "n"])
    True
    """

    __slots__ = ()
    dtypes: tuple | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise AnnotationError(
            f"{type(self).__name__} cannot be instantiated; did you mean "
            f"{type(self).__name__}[np.ndarray, 'shape']?"
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        raw = getattr(cls, "dtypes", _MISSING)
        if raw is _MISSING:
            raise AnnotationError(
                f"custom dtype class {cls.__name__} needs a 'dtypes' class "
                f"attribute: a dtype name, a regex, or a list of them"
            )
        cls.dtypes = normalize_dtypes(raw, cls.__name__)


_MISSING = object()


def normalize_dtypes(raw: Any, owner: str = "dtype class") -> tuple | None:
    """The ``dtypes`` of a dtype class as a tuple of canonical names and regexes.

    >>> normalize_dtypes(["bool_", np.float32, "my_dtype"])
    ('bool', 'float32', 'my_dtype')
    """
    if raw is None:
        return None
    if isinstance(raw, (str, re.Pattern, np.dtype, type)) or not hasattr(raw, "__iter__"):
        items: tuple = (raw,)
    else:
        items = tuple(raw)
    text = f"{owner}.dtypes = {raw!r}"
    out: list = []
    for item in items:
        name = _one(item, text)
        if name not in out:
            out.append(name)
    if not out:
        raise AnnotationError(
            f"{owner}.dtypes is empty: a dtype class accepts at least one "
            f"dtype (use Shaped for any dtype)"
        )
    return tuple(out)


def _caret(text: str, item: Any) -> tuple[int, int]:
    shown = repr(item)
    at = text.find(shown, text.find("=") + 1)
    return (at, at + len(shown)) if at >= 0 else (0, len(text))


def _one(item: Any, text: str) -> str | re.Pattern:
    if isinstance(item, re.Pattern):
        if not isinstance(item.pattern, str):
            raise AnnotationError(
                "a dtype regex must be a str pattern, not bytes", text, *_caret(text, item)
            )
        return item
    if isinstance(item, str):
        name = _ALIASES.get(item, item)
        # NumPy writes structured dtypes with spaces: "[('a', 'u1'), ('b', 'i1')]".
        if not name or (name.split() != [name] and name[0] not in "[{("):
            raise AnnotationError(f"{item!r} is not a dtype name", text, *_caret(text, item))
        found = dtype_from_name(name)
        if found is not None:
            return found.name
        try:
            spelled = as_dtype(name).name
        except TypeError:
            spelled = None
        if spelled is not None:
            raise AnnotationError(
                f"{item!r} is NumPy's spelling of {spelled}; write {spelled!r}",
                text,
                *_caret(text, item),
            )
        close = difflib.get_close_matches(name, _CANONICAL, n=1, cutoff=0.85)
        if close:
            raise AnnotationError(
                f"unknown dtype {item!r}: did you mean {close[0]!r}? (a duck "
                f"array's own dtype this close to a known name must be "
                f"written as a regex, re.compile({item!r}))",
                text,
                *_caret(text, item),
            )
        return name
    if isinstance(item, np.dtype) and (item.names is not None or item.subdtype is not None):
        return str(item)
    try:
        return as_dtype(item).name
    except TypeError:
        raise AnnotationError(
            f"unknown dtype {item!r} ({type(item).__name__}): a dtype is a "
            f"name, a compiled regex or a NumPy/torch/JAX dtype",
            text,
            *_caret(text, item),
        ) from None


def _make_dtype(name: str, dtypes: Any, **extra: Any) -> type[AbstractDtype]:
    namespace = {"dtypes": dtypes, "__module__": "tensortypes.annotate", "__qualname__": name}
    namespace.update(extra)
    return cast("type[AbstractDtype]", _MetaAbstractDtype(name, (AbstractDtype,), namespace))


_STRUCTS: dict[tuple, type] = {}


def make_numpy_struct_dtype(dtype: np.dtype, name: str) -> type:
    """A dtype class for one NumPy structured dtype (field names, order and types).

    >>> label_t = np.dtype([("first", np.uint8), ("second", np.int8)])
    >>> Label = make_numpy_struct_dtype(label_t, "Label")
    >>> isinstance(np.zeros((1, 2), dtype=label_t), Label[np.ndarray, "a b"])
    True
    """
    if not isinstance(dtype, np.dtype) or (dtype.names is None and dtype.subdtype is None):
        raise AnnotationError(
            f"make_numpy_struct_dtype() takes a NumPy structured dtype (with fields), got {dtype!r}"
        )
    if not isinstance(name, str) or not name.isidentifier():
        raise AnnotationError(
            f"make_numpy_struct_dtype() needs a class name that is an identifier, got {name!r}"
        )
    key = (dtype, name)
    found = _STRUCTS.get(key)
    if found is None:
        found = _STRUCTS[key] = _make_dtype(name, (dtype,), _tt_struct=dtype)
    return found


def _reduce_dtype(cls: type) -> Any:
    struct = cls.__dict__.get("_tt_struct")
    return cls.__qualname__ if struct is None else (make_numpy_struct_dtype, (struct, cls.__name__))


copyreg.pickle(_MetaAbstractDtype, _reduce_dtype)


def _category(name: str) -> tuple:
    members = CATEGORIES[name]
    return tuple(d.name for d in ALL_DTYPES if d in members)


# name -> dtypes, in jaxtyping's order: categories first, then single dtypes.
_SPECS: dict[str, Any] = {
    "Shaped": None,
    "Bool": _category("bool"),
    "Key": _category("key"),
    "Num": _category("num"),
    "Inexact": _category("inexact"),
    "Float": _category("floating"),
    "Complex": _category("complex"),
    "Integer": _category("integer"),
    "UInt": _category("unsigned"),
    "Int": _category("signed"),
    "Real": _category("real"),
    "BFloat16": ("bfloat16",),
    "Float16": ("float16",),
    "Float32": ("float32",),
    "Float64": ("float64",),
    "Float8e4m3b11fnuz": ("float8_e4m3b11fnuz",),
    "Float8e4m3fn": ("float8_e4m3fn",),
    "Float8e4m3fnuz": ("float8_e4m3fnuz",),
    "Float8e5m2": ("float8_e5m2",),
    "Float8e5m2fnuz": ("float8_e5m2fnuz",),
    "Complex64": ("complex64",),
    "Complex128": ("complex128",),
    **{f"UInt{b}": (f"uint{b}",) for b in (2, 4, 8, 16, 32, 64)},
    **{f"Int{b}": (f"int{b}",) for b in (2, 4, 8, 16, 32, 64)},
}

DTYPE_CLASSES: dict[str, type[AbstractDtype]] = {
    name: _make_dtype(name, dtypes) for name, dtypes in _SPECS.items()
}
"""Every dtype class of jaxtyping's array annotations by name (``DTYPE_CLASSES["Float32"]``)."""
