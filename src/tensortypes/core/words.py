"""The words of every message: one form for a value, one for an array annotation (layer 2).

Every message that shows a value or an array annotation (the runtime
checker's ``got:``/``expected:`` lines and reasons, PyTree leaves, ``filter``,
compiled inputs, ``check_value``) builds it here, so the same thing prints
the same way everywhere:

- a value: an array as ``f64[5,2](numpy)`` (jaxtyping's short dtype, the
  shape, the library; the static checker writes what it knows of a value in
  the same form, ``float[n,d](numpy)``); a NumPy scalar as ``np.float64(3.0)``; anything else
  as its class and a short repr (``int 3``, ``str 'x'``, ``None``);
- an array annotation as its user writes it: ``Float[np.ndarray, 'fan_in fan_out']``
  (the dtype class, the array class as imported, the shape in single quotes).

Standard library and NumPy only, like the rest of ``core``; nothing here
imports an array library (values are recognised by ``core.arrays``).
"""

from __future__ import annotations

import dataclasses
import re
import reprlib
from typing import Any

from tensortypes.core.arrays import array_info, memory_info

__all__ = [
    "short_dtype",
    "value_text",
    "array_text",
    "shape_text",
    "kind_text",
    "array_annotation_text",
    "annotation_text",
    "kind_mismatch",
    "KIND_TEXT",
]


class _Repr(reprlib.Repr):
    """A short repr in which every ndarray inside a container is in the short form.

    Arrays inside are read from NumPy's own record (``core.arrays.memory_info``):
    no property of a subclass runs and no item is printed, so a message about a
    huge or hostile container stays short and never raises.
    """

    def repr1(self, x: Any, level: int) -> str:
        try:
            info = memory_info(x)
        except Exception:  # noqa: BLE001 (a message never raises)
            info = None
        if info is not None:
            return _array_text(x, info)
        if _is_numpy_scalar(x):
            return value_text(x)
        return super().repr1(x, level)


_repr = _Repr()
_repr.maxstring = 30
_repr.maxother = 40
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 4
_repr.maxlevel = 2

_PREFIX = {"float": "f", "int": "i", "uint": "u", "complex": "c", "bfloat": "bf"}
_SIZED = re.compile(r"^(bfloat|float|uint|int|complex)(\d+)_?(.*)$")
_SHORT: dict[str, str] = {}

KIND_TEXT = {
    "any": "Any",
    "numpy": "np.ndarray",
    "torch": "torch.Tensor",
    "jax": "jax.Array",
    "tensorflow": "tf.Tensor",
    "mlx": "mx.array",
}
"""How each array library's class is written in an annotation."""


def short_dtype(name: str) -> str:
    """jaxtyping's short spelling of a dtype name: ``float64`` -> ``f64``.

    >>> short_dtype("float64"), short_dtype("uint8"), short_dtype("bool")
    ('f64', 'u8', 'bool')
    """
    found = _SHORT.get(name)
    if found is None:
        match = _SIZED.match(name)
        found = name if match is None else _PREFIX[match[1]] + match[2] + match[3]
        if len(_SHORT) < 1024:
            _SHORT[name] = found
    return found


def shape_text(shape: Any) -> str:
    """A concrete shape in a message: ``(3, 2)``, ``(3,)``, ``()``.

    >>> shape_text((3, 2)), shape_text([3]), shape_text(())
    ('(3, 2)', '(3,)', '()')
    """
    return str(tuple(shape))


def _is_numpy_scalar(value: Any) -> bool:
    cls = type(value)
    return cls.__module__ == "numpy" and any(
        c.__name__ == "generic" and c.__module__ == "numpy" for c in cls.__mro__
    )


def array_text(dtype: str, axes: Any, library: str | None = None) -> str:
    """An array value in a message: ``f64[5,2](numpy)``.

    The one spelling of an array for the runtime checker (a value's dtype, its
    sizes and library) and for the static checker (what it knows of a value:
    ``f32[b,128](torch)``, ``float[n,d](numpy)`` for any float dtype, ``?`` for
    an unknown dtype or size, ``...`` for axes of unknown number). ``dtype`` is
    a name (shortened as jaxtyping does), ``axes`` the sizes, ``library`` the
    array library when known.

    >>> array_text("float64", (5, 2), "numpy"), array_text("float", ("n", "d"))
    ('f64[5,2](numpy)', 'float[n,d]')
    """
    text = f"{short_dtype(dtype)}[{','.join(str(d) for d in axes)}]"
    return text if library is None else f"{text}({library})"


def _array_text(value: Any, info: tuple) -> str:
    kind, dtype, shape = info
    if kind == "duck" or (kind == "numpy" and type(value).__name__ != "ndarray"):
        library = type(value).__name__  # a duck array or an ndarray subclass: say which
    else:
        library = kind
    return array_text(dtype, shape, library)


def value_text(value: Any, arrays: bool = True) -> str:
    """A value in a message. Never raises.

    An ndarray is read from NumPy's own record (no subclass property runs, no item
    is printed); with ``arrays`` False (the annotation holds no array) nothing
    else's ``.shape`` or ``.dtype`` is read: only the class and a short repr.

    >>> import numpy as np
    >>> value_text(np.zeros((5, 2))), value_text(np.float64(3.0)), value_text(3)
    ('f64[5,2](numpy)', 'np.float64(3.0)', 'int 3')
    >>> value_text(None), value_text([[1.0, 2.0]])
    ('None', 'list [[1.0, 2.0]]')
    >>> value_text({"w": np.zeros(3), "b": np.zeros((2, 3), np.float32)})
    "dict {'b': f32[2,3](numpy), 'w': f64[3](numpy)}"
    """
    if value is None:
        return "None"
    if _is_numpy_scalar(value):
        try:
            return f"np.{type(value).__name__}({value})"
        except Exception:  # noqa: BLE001 (a message must never fail)
            return f"np.{type(value).__name__}"
    try:
        info = memory_info(value)
        if info is None and arrays:
            info = array_info(value)
    except Exception:  # noqa: BLE001 (a property of an arbitrary object may raise anything)
        info = None
    if info is not None:
        return _array_text(value, info)
    try:
        text = super(_Repr, _repr).repr1(value, _repr.maxlevel)
    except Exception:  # noqa: BLE001 (a broken __repr__ must not hide the type error)
        text = f"<{type(value).__name__} object>"
    return f"{type(value).__name__} {text}"


def kind_text(kind: Any) -> str:
    """An array class as an annotation names it: ``np.ndarray``, ``torch.Tensor``.

    ``kind`` is a library name of ``KIND_TEXT``, a class, or a union of them.

    >>> import numpy as np
    >>> kind_text("torch"), kind_text(np.ndarray), kind_text(int)
    ('torch.Tensor', 'np.ndarray', 'int')
    """
    if isinstance(kind, str):
        return KIND_TEXT.get(kind, kind)
    if isinstance(kind, type):
        module, name = kind.__module__, kind.__qualname__
        if module == "builtins":
            return name
        top = module.split(".")[0]
        # jax.Array's __qualname__ is "jaxlib._jax.Array" (module "jax"): the last part names it.
        short = name.rsplit(".", 1)[-1]
        for library, text in KIND_TEXT.items():
            if top == library or (library == "jax" and top == "jaxlib"):
                if text.rsplit(".", 1)[-1] == short:
                    return text
        if top == "numpy":
            return f"np.{name}"
        return f"{top}.{name}" if top != module or "." not in module else f"{module}.{name}"
    args = getattr(kind, "__args__", None)
    if args:
        return " | ".join(kind_text(a) for a in args)
    return getattr(kind, "_name", None) or str(kind)


def array_annotation_text(dtype: str, kind: Any, shape: str) -> str:
    """An array annotation in a message: ``Float[np.ndarray, 'fan_in fan_out']``.

    >>> array_annotation_text("Float", "numpy", "fan_in fan_out")
    "Float[np.ndarray, 'fan_in fan_out']"
    """
    quote = '"' if "'" in shape else "'"
    return f"{dtype}[{kind_text(kind)}, {quote}{shape}{quote}]"


def _is_array_annotation(ann: Any) -> bool:
    return isinstance(ann, type) and "_tt_matcher" in vars(ann) and hasattr(ann, "dim_str")


def _nested_annotations(ann: Any, found: list, depth: int = 0) -> None:
    if depth > 20:
        return
    if _is_array_annotation(ann):
        found.append(ann)
        return
    for arg in getattr(ann, "__args__", None) or ():
        _nested_annotations(arg, found, depth + 1)
    leaf = getattr(ann, "leaftype", None)  # a PyTree[...] annotation's leaf
    if leaf is not None and leaf is not ann:
        _nested_annotations(leaf, found, depth + 1)


def annotation_text(ann: Any) -> str:
    """An annotation in a message, array annotations in the form of ``array_annotation_text``.

    ``ann`` is an annotation (an array annotation class, or a ``typing`` form
    holding some) or a lattice type (whose ``message_str`` is used).

    >>> import numpy as np
    >>> from typing import Optional
    >>> from tensortypes.annotate import Float
    >>> annotation_text(Float[np.ndarray, "b c"])
    "Float[np.ndarray, 'b c']"
    >>> annotation_text(Optional[Float[np.ndarray, "n"]])
    "Optional[Float[np.ndarray, 'n']]"
    >>> annotation_text(Float[np.ndarray, "b c"].type)
    "Float[np.ndarray, 'b c']"
    """
    message_str = getattr(type(ann), "message_str", None)
    if callable(message_str):
        return message_str(ann)
    if _is_array_annotation(ann):
        return array_annotation_text(ann.dtype.__name__, ann.array_type, ann.dim_str)
    if isinstance(ann, dataclasses.InitVar):  # no __args__ to find the arrays in
        return f"InitVar[{annotation_text(ann.type)}]"
    nested: list = []
    _nested_annotations(ann, nested)
    text = ann.__qualname__ if isinstance(ann, type) else str(ann)
    for prefix in ("typing.", "collections.abc.", "tensortypes."):
        text = text.replace(prefix, "")
    for inner in nested:
        text = text.replace(inner.__name__, annotation_text(inner))
    return text


def kind_mismatch(expected: str, value: Any, shape: str = "") -> str:
    """Why ``value`` is not an array of the kind ``expected`` (``"NumPy array"``, ...).

    A NumPy scalar (what ``x.sum()`` returns) is no ``np.ndarray``, as in
    jaxtyping; the message says what to write instead.

    >>> import numpy as np
    >>> kind_mismatch("NumPy array", [1.0])
    'expected a NumPy array, got list [1.0]'
    >>> text = kind_mismatch("NumPy array", np.float64(3.0))
    >>> text.startswith("expected a NumPy array, got the NumPy scalar np.float64(3.0)")
    True
    >>> "Float[np.number, '']" in text and "np.asarray(...)" in text
    True
    """
    text = f"expected a {expected}, got "
    if _is_numpy_scalar(value) and "NumPy" in expected:
        return (
            text + f"the NumPy scalar {value_text(value)}, which is not an array: annotate "
            "a scalar result as Float[np.number, ''] (or Shaped[np.generic, '']), or "
            "return np.asarray(...)"
        )
    return text + value_text(value)
