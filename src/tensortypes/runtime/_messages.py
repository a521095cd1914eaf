"""The checker's error messages: the slow path's words (layer 6: runtime).

The generated fast path only answers yes or no. When it says no, the general
checker runs again from the start, finds the first value that does not fit, and
:func:`format_error` says so in the user's words: an array in short form,
``f64[4,5](numpy)`` (dtype, shape, library), any other value as its class and a
short repr; an annotation as the user wrote it (``Float[np.ndarray, 'b c']``,
``List[int]``), both in the one form of ``core.words``; the function by its qualified name and where it is defined:

.. code-block:: text

    Type-check error whilst checking the parameters of model.f. The problem arose whilst typechecking parameter 'y'.
      where:    parameter y of model.f (model.py:12)
      got:      f64[4,5](numpy)
      expected: Float[np.ndarray, 'c d']
      reason:   axis 0 of y has size 4, but c=3 was bound by axis 1 of x
      bindings: b=2 (axis 0 of x), c=3 (axis 1 of x)
"""

from __future__ import annotations

import inspect
from typing import Any

from tensortypes.core.words import annotation_text, short_dtype, value_text
from tensortypes.errors import TypeCheckError
from tensortypes.graph.type import Type
from tensortypes.types.arrays import ArrayType

__all__ = [
    "short_value",
    "mentions_array",
    "short_dtype",
    "annotation_str",
    "function_label",
    "where_defined",
    "format_error",
    "first_line",
    "bindings_line",
    "DISAGREE",
]


def short_value(value: Any, arrays: bool = True) -> str:
    """The value in a message (``core.words.value_text``): ``f64[4,5](numpy)``, ``int 3``.

    Never raises: whatever the value's ``.shape``, ``.dtype`` or ``__repr__`` do, the
    class name is left. With ``arrays`` False (the annotation has no array in it) a
    value's array attributes are not read at all: ``x: int`` never touches ``.shape``.

    >>> import numpy as np
    >>> short_value(np.zeros((4, 5))), short_value(3), short_value(None)
    ('f64[4,5](numpy)', 'int 3', 'None')
    """
    return value_text(value, arrays)


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
    """An annotation as its user wrote it: ``List[int]``, ``Float[np.ndarray, 'b c']``.

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
        if meta is not type and (
            meta.__repr__ is not type.__repr__ or meta.__str__ is not object.__str__
        ):
            return annotation_text(ann)  # array annotations, as core.words writes them
        module = ann.__module__
        if module in ("builtins", "typing"):
            return ann.__qualname__
        return getattr(ann, "__qualname__", ann.__name__)
    text = annotation_text(ann)
    if text.startswith("<") and lattice is not None:
        return annotation_text(lattice)
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


DISAGREE = (
    "the generated check rejected this value but the explaining check accepts it; "
    "please report this as a bug in tensortypes"
)


def bindings_line(env: Any) -> str:
    """``b=2 (axis 0 of x), c=3 (axis 1 of x)``, or ``none``."""
    try:
        names = list(env.sizes)
    except AttributeError:
        return "none"
    if not names:
        return "none"
    return ", ".join(env.describe(name) for name in names)


def first_line(label: str, what: str) -> str:
    """jaxtyping's first line, so ``pytest.raises(match=...)`` written for jaxtyping
    matches: ``Type-check error whilst checking the parameters of <qualname>`` (with
    the parameter that broke, as jaxtyping names it) or ``... the return value of ...``.

    >>> first_line("m.f", "parameter x")
    "Type-check error whilst checking the parameters of m.f. The problem arose whilst typechecking parameter 'x'."
    >>> first_line("m.f", "return value")
    'Type-check error whilst checking the return value of m.f.'
    """
    kind, _, name = what.partition(" ")
    if kind in ("parameter", "field") and name:
        # A dataclass's fields are its __init__'s parameters to jaxtyping.
        return (
            f"Type-check error whilst checking the parameters of {label}. The problem "
            f"arose whilst typechecking parameter {name!r}."
        )
    if what in ("the parameters", "parameters"):
        return f"Type-check error whilst checking the parameters of {label}."
    return f"Type-check error whilst checking the {what} of {label}."


def format_error(
    plan: Any, what: str, value: Any, ann: Any, t: Any, reason: str | None, env: Any
) -> TypeCheckError:
    """The error for ``value`` (the ``what`` of ``plan``'s function) failing ``ann``.

    >>> class P: label, where = "f", "m.py:1"
    >>> from tensortypes.types import INT
    >>> print(format_error(P, "parameter x", "a", int, INT, "x: expected int", None))
    Type-check error whilst checking the parameters of f. The problem arose whilst typechecking parameter 'x'.
      where:    parameter x of f (m.py:1)
      got:      str 'a'
      expected: int
      reason:   x: expected int
      bindings: none
    """
    lines = [
        first_line(plan.label, what),
        f"  where:    {what} of {plan.label} ({plan.where})",
        f"  got:      {short_value(value, mentions_array(t))}",
        f"  expected: {annotation_str(ann, t)}",
        f"  reason:   {reason or DISAGREE}",
        f"  bindings: {bindings_line(env)}",
    ]
    return TypeCheckError("\n".join(lines))
