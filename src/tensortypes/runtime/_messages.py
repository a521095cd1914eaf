"""The checker's error messages: the slow path's words (layer 6: runtime).

The generated fast path only answers yes or no. When it says no, the general
checker runs again from the start, finds the first value that does not fit, and
:func:`format_error` says so in the user's words: an array in short form,
``f64[4,5](numpy)`` (dtype, shape, library), any other value as its class and a
short repr; an annotation as the user wrote it (``Float[ndarray, 'b c']``,
``List[int]``); the function by its qualified name and where it is defined:

.. code-block:: text

    Type-check error in model.f (model.py:12): parameter y
      got:      f64[4,5](numpy)
      expected: Float[ndarray, 'c d']
      reason:   axis 0 of y has size 4, but c=3 was bound by axis 1 of x
      bindings: b=2 (axis 0 of x), c=3 (axis 1 of x)
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import numpy as np

from tensortypes.core.arrays import ArrayRepr, array_info, memory_info
from tensortypes.graph.type import Type
from tensortypes.types.arrays import ArrayType
from tensortypes.errors import TypeCheckError

__all__ = ["short_value", "mentions_array", "short_dtype", "annotation_str", "function_label", "where_defined",
           "format_error", "bindings_line", "DISAGREE"]

_repr = ArrayRepr()
_repr.maxstring = 30
_repr.maxother = 40
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 4

_PREFIX = {"float": "f", "int": "i", "uint": "u", "complex": "c", "bfloat": "bf"}
_SIZED = re.compile(r"^(bfloat|float|uint|int|complex)(\d+)_?(.*)$")
_SHORT: dict[str, str] = {}


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


def _library(kind: str, value: Any) -> str:
    if kind == "numpy" and type(value) is not np.ndarray:
        return type(value).__name__  # a subclass: say which
    return type(value).__name__ if kind == "duck" else kind


def short_value(value: Any, arrays: bool = True) -> str:
    """The value in a message: ``f64[4,5](numpy)`` for an array, else class and repr.

    Never raises: whatever the value's ``.shape``, ``.dtype`` or ``__repr__`` do, the
    class name is left. With ``arrays`` False (the annotation has no array in it) a
    value's array attributes are not read at all: ``x: int`` never touches ``.shape``.

    >>> import numpy as np
    >>> short_value(np.zeros((4, 5))), short_value(3), short_value(None)
    ('f64[4,5](numpy)', 'int 3', 'None')
    """
    if value is None:
        return "None"
    name = type(value).__name__
    try:
        # An ndarray (subclass) as NumPy stores it: no property of the class runs, and
        # its repr (possibly billions of items) is never asked for.
        info = memory_info(value)
        if info is None and arrays:
            info = array_info(value)
        if info is not None:
            kind, dtype, shape = info
            dims = ",".join(str(d) for d in shape)
            return f"{short_dtype(dtype)}[{dims}]({_library(kind, value)})"
    except Exception:  # noqa: BLE001 (a property of an arbitrary object may raise anything)
        pass
    try:
        text = _repr.repr(value)
    except Exception:  # noqa: BLE001 (a broken __repr__ must not hide the type error)
        text = f"<{name} object>"
    return f"{name} {text}"


def mentions_array(t: Any, depth: int = 0) -> bool:
    """Whether the lattice type ``t`` has an array type anywhere inside (None: unknown,
    so True): only then does a message read a value's ``.shape`` and ``.dtype``."""
    if t is None:
        return True
    if isinstance(t, ArrayType) or type(t).__name__.startswith("PyTree"):
        return True
    if depth > 16 or not isinstance(t, Type):
        return False
    for cls in type(t).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            part = getattr(t, slot, None)
            parts = part if isinstance(part, (tuple, list, frozenset)) else (part,)
            if any(isinstance(x, Type) and mentions_array(x, depth + 1) for x in parts):
                return True
    return False


def annotation_str(ann: Any, lattice: Any = None) -> str:
    """An annotation as its user wrote it: ``List[int]``, ``Float[ndarray, 'b c']``.

    >>> from typing import List, Optional
    >>> annotation_str(List[int]), annotation_str(Optional[str]), annotation_str(int)
    ('List[int]', 'Optional[str]', 'int')
    """
    if ann is inspect.Parameter.empty:
        return "Any"
    if isinstance(ann, str):
        return ann
    if isinstance(ann, type):
        meta = type(ann)
        if meta is not type and meta.__repr__ is not type.__repr__:
            return repr(ann)  # annotation classes print themselves
        module = ann.__module__
        if module in ("builtins", "typing"):
            return ann.__qualname__
        return getattr(ann, "__qualname__", ann.__name__)
    text = repr(ann)
    if text.startswith("<") and lattice is not None:
        return str(lattice)
    for prefix in ("typing.", "collections.abc.", "tensortypes."):
        text = text.replace(prefix, "")
    return text


def where_defined(fn: Any) -> str:
    """``file.py:12`` for a function (its code's file and first line), or ``?``.

    >>> def f(): pass
    >>> where_defined(f).endswith(str(f.__code__.co_firstlineno))
    True
    """
    target = inspect.unwrap(fn) if callable(fn) else fn
    code = getattr(target, "__code__", None)
    if code is None:
        return getattr(target, "__module__", None) or "?"
    return f"{code.co_filename}:{code.co_firstlineno}"


def function_label(fn: Any) -> str:
    """``module.qualname`` of a function, for the first line of a message.

    >>> def f(): pass
    >>> function_label(f).endswith("f")
    True
    """
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if name is None:
        name = type(fn).__name__
    module = getattr(fn, "__module__", None)
    if module and module not in ("__main__", "builtins"):
        return f"{module}.{name}"
    return name


DISAGREE = ("the generated check rejected this value but the explaining check accepts it; "
            "please report this as a bug in tensortypes")


def bindings_line(env: Any) -> str:
    """``b=2 (axis 0 of x), c=3 (axis 1 of x)``, or ``none``."""
    try:
        names = list(env.sizes)
    except AttributeError:
        return "none"
    if not names:
        return "none"
    return ", ".join(env.describe(name) for name in names)


def format_error(plan: Any, what: str, value: Any, ann: Any, t: Any, reason: str | None,
                 env: Any) -> TypeCheckError:
    """The error for ``value`` (the ``what`` of ``plan``'s function) failing ``ann``.

    >>> class P: label, where = "f", "m.py:1"
    >>> from tensortypes.types import INT
    >>> print(format_error(P, "parameter x", "a", int, INT, "x: expected int", None))
    Type-check error in f (m.py:1): parameter x
      got:      str 'a'
      expected: int
      reason:   x: expected int
      bindings: none
    """
    lines = [
        f"Type-check error in {plan.label} ({plan.where}): {what}",
        f"  got:      {short_value(value, mentions_array(t))}",
        f"  expected: {annotation_str(ann, t)}",
        f"  reason:   {reason or DISAGREE}",
        f"  bindings: {bindings_line(env)}",
    ]
    return TypeCheckError("\n".join(lines))
