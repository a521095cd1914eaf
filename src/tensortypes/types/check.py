"""``check_value``: a value of a type, or a ``TypeCheckError`` saying why not
(layer 3, ``types``).

Fast answer, slow explanation: ``check_value`` asks the boolean tests of
``tensortypes.types.accept`` first; only on failure does ``EXPLAIN`` (one rule
per type class) walk the value again to say what was expected, what was found,
and where inside the value (``at ['a'][2]: expected int, got str 'x'``). A
property test checks that the two halves agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortypes._config import config
from tensortypes.core.words import annotation_text, value_text
from tensortypes.errors import TypeCheckError, describe_raised, raised_by_value
from tensortypes.types.accept import ACCEPT, is_instance, sample
from tensortypes.types.base import hooks
from tensortypes.types.containers import FrozenSetType, SetType
from tensortypes.types.extras import AnnotatedType, NewTypeType, ProtocolType, TypedDictType
from tensortypes.types.nominal import InterfaceType, ModuleType
from tensortypes.types.primitives import ComplexType, FloatType
from tensortypes.types.structural import DictType, ListType, NamedTupleType, TupleType, VarTupleType

# ``ACCEPT`` and ``is_instance`` are re-exported: the fast half lives in ``accept``.
__all__ = ["check_value", "explain", "describe", "EXPLAIN", "ACCEPT", "is_instance"]


def describe(value: Any) -> str:
    """The class of ``value`` and a short repr (arrays as ``core.words`` writes them).

    >>> describe("a")
    "str 'a'"
    """
    name = type(value).__name__
    try:
        return value_text(value)  # never raises; arrays in the short form
    except Exception:  # noqa: BLE001 (never let a message hide the type error)
        return f"{name} <unprintable>"


def check_value(value: Any, t: Any) -> Any:
    """Return ``value`` if it is a value of ``t``; else raise ``TypeCheckError`` saying
    what was expected, what was found, and where inside the value.

    >>> from tensortypes.types import DictType, STR, INT
    >>> check_value({"a": 1}, DictType(STR, INT))
    {'a': 1}
    >>> try:
    ...     check_value({"a": "x"}, DictType(STR, INT))
    ... except TypeCheckError as error:
    ...     print(error)
    expected Dict[str, int], got dict {'a': 'x'}: at ['a']: expected int, got str 'x'
    """
    try:
        if is_instance(value, t):
            return value
    except Exception as error:  # noqa: BLE001 (only the value's own exceptions, below)
        if not raised_by_value(error):
            raise
        raise TypeCheckError(
            f"expected {annotation_text(t)}, got {describe(value)}: checking it raised "
            f"{describe_raised(error)}"
        ) from error
    try:
        reason = explain(value, t)
    except Exception as error:  # noqa: BLE001 (only the value's own exceptions, below)
        if not raised_by_value(error):
            raise
        reason = (
            f"expected {annotation_text(t)}, got {describe(value)}: explaining the refusal raised "
            f"{describe_raised(error)}"
        )
    raise TypeCheckError(reason or f"expected {annotation_text(t)}, got {describe(value)}")


def explain(value: Any, t: Any) -> str | None:
    """Why ``value`` is not a value of ``t`` (None when it is).

    >>> from tensortypes.types import ListType, INT
    >>> explain([1, "a"], ListType(INT))
    "expected List[int], got list [1, 'a']: at [1]: expected int, got str 'a'"
    """
    found = _why(value, t)
    if found is None:
        return None
    path, detail = found
    head = f"expected {annotation_text(t)}, got {describe(value)}"
    if path:
        return f"{head}: at {path}: {detail}"
    if detail.startswith(head):  # the leaf's own message, with what it adds
        return detail
    return head if detail.startswith("expected ") else f"{head}: {detail}"


def _why(value: Any, t: Any) -> tuple[str, str] | None:
    """``(path, message)`` of the innermost failure, or None."""
    rule = EXPLAIN.get(type(t))
    if rule is None:
        if is_instance(value, t):
            return None
        return ("", f"expected {annotation_text(t)}, got {describe(value)}")
    return rule(value, t)


def _leaf(value: Any, t: Any) -> tuple[str, str] | None:
    if is_instance(value, t):
        return None
    return ("", f"expected {annotation_text(t)}, got {describe(value)}")


def _numeric(value: Any, t: Any) -> tuple[str, str] | None:
    """``float``/``complex``: as a leaf, naming ``config.numeric_tower`` when it decides."""
    if is_instance(value, t):
        return None
    message = f"expected {annotation_text(t)}, got {describe(value)}"
    wider = (int,) if isinstance(t, FloatType) else (int, float)
    if not config.numeric_tower and isinstance(value, wider):
        message += (
            f" (with config.numeric_tower = False an {type(value).__name__} does not "
            f"pass {t}; PEP 484's numeric tower, the default, accepts it)"
        )
    return ("", message)


def _nested(prefix: str, inner: tuple[str, str]) -> tuple[str, str]:
    return (prefix + inner[0], inner[1])


# -- the explanations ------------------------------------------------------------------


def _why_sequence(value, t, element, cls):
    if not isinstance(value, cls):
        return _leaf(value, t)
    for i, x in enumerate(sample(value)):
        inner = _why(x, element)
        if inner is not None:
            return _nested(f"[{i}]", inner)
    return None


def _why_tuple(value, t):
    if not isinstance(value, tuple) or len(value) != len(t.elements):
        return _leaf(value, t)
    if (
        type(t) is NamedTupleType
        and not ACCEPT[NamedTupleType](value, t)
        and all(is_instance(x, e) for x, e in zip(value, t.elements))
    ):
        return _leaf(value, t)
    for i, (x, e) in enumerate(zip(value, t.elements)):
        inner = _why(x, e)
        if inner is not None:
            name = t.names[i] if type(t) is NamedTupleType else None
            return _nested(f".{name}" if name else f"[{i}]", inner)
    return None


def _why_dict(value, t):
    if not isinstance(value, dict):
        return _leaf(value, t)
    for k, x in sample(value.items()):
        inner = _why(k, t.key)
        if inner is not None:
            return ("", f"key {k!r}: expected {annotation_text(t.key)}, got {describe(k)}")
        inner = _why(x, t.value)
        if inner is not None:
            return _nested(f"[{k!r}]", inner)
    return None


def _why_typeddict(value, t):
    if not isinstance(value, dict):
        return _leaf(value, t)
    missing = sorted(t.required - value.keys())
    if missing:
        return ("", f"missing required key(s) {', '.join(map(repr, missing))}")
    fields = dict(t.fields)
    for key, x in value.items():
        if key not in fields:
            return (
                "",
                f"unexpected key {key!r} (keys of {annotation_text(t)}: {', '.join(sorted(fields))})",
            )
        inner = _why(x, fields[key])
        if inner is not None:
            return _nested(f"[{key!r}]", inner)
    return None


def _why_module(value, t):
    if not isinstance(value, t.cls):
        return _leaf(value, t)
    if t.nominal:
        return None
    for name, at in t.attributes:
        if not hasattr(value, name):
            return ("", f"attribute {name!r} is missing")
        inner = _why(getattr(value, name), at)
        if inner is not None:
            return _nested(f".{name}", inner)
    return None


def _why_members(value, t):
    names = t.members if type(t) is ProtocolType else tuple(t.methods)
    missing = [n for n in names if not hasattr(value, n)]
    if missing:
        return (
            "",
            f"{describe(value)} lacks {', '.join(missing)} required by {annotation_text(t)}",
        )
    return None


def _why_wrapper(attr: str):
    def why(value, t):
        return _why(value, getattr(t, attr))

    return why


# type -> why(value, t): the reason a value is not of that type, or None
EXPLAIN: dict[type, Callable[[Any, Any], Any]] = {cls: _leaf for cls in ACCEPT}
EXPLAIN.update(
    {
        FloatType: _numeric,
        ComplexType: _numeric,
        TupleType: _why_tuple,
        NamedTupleType: _why_tuple,
        VarTupleType: lambda v, t: _why_sequence(v, t, t.element, tuple),
        ListType: lambda v, t: _why_sequence(v, t, t.element, list),
        SetType: lambda v, t: _why_sequence(v, t, t.element, set),
        FrozenSetType: lambda v, t: _why_sequence(v, t, t.element, frozenset),
        DictType: _why_dict,
        TypedDictType: _why_typeddict,
        ModuleType: _why_module,
        InterfaceType: _why_members,
        ProtocolType: _why_members,
        NewTypeType: _why_wrapper("supertype"),
        AnnotatedType: _why_wrapper("inner"),
    }
)
"""How each type class explains a failure: ``(path, message)`` or None."""


hooks.check_value = check_value
