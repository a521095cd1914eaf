"""The general checker: a value against a lattice type, with size bindings (layer 6).

This is the interpreter the generated code falls back on (arrays inside
unions and containers, expressions whose names are not bound yet) and the slow
path that explains a failure. ``why(value, t, env, label)`` returns None when
the value fits, else one line saying why, in the user's words ("axis 0 of y has
size 4, but c=3 was bound by axis 1 of x").

``env`` is the call's ``annotate._scope.Bindings``: the sizes bound so far
(``"b" -> 3``, ``"*batch" -> (2, 5)``) and where each was bound ("axis 1 of
x"), the same object ``isinstance`` extends inside the call. Matching
extends it; a union tries each member on a copy and keeps the copy of the one
that fits. Types without arrays inside are answered by ``types.check``
(``is_instance``/``explain``), the one definition of Python's run-time meaning.

An array is matched by the matcher ``annotate.matcher_for`` gives for its
lattice type (the one the PyTree leaf checks use too), and explained by that
matcher's interpreter, so arrays mean the same here as in ``isinstance``.
Whether a type involves arrays at all is ``annotate._compile.has_arrays``; the
rules below cover exactly its ``WALKED`` types.
"""

from __future__ import annotations

import collections.abc as abc
from typing import Any

from tensortypes._config import config
from tensortypes.annotate import Bindings
from tensortypes.annotate._compile import has_arrays, matcher_for
from tensortypes.core.words import annotation_text
from tensortypes.runtime._messages import short_value
from tensortypes.types import (
    NONE,
    AbcType,
    AnnotatedType,
    ArrayType,
    DictType,
    FrozenSetType,
    ListType,
    NamedTupleType,
    NewTypeType,
    OptionalType,
    SetType,
    TupleType,
    TypedDictType,
    TypeVarType,
    UnionType,
    VarTupleType,
)
from tensortypes.types import explain as _types_explain
from tensortypes.types import is_instance as _types_accept

__all__ = ["why", "array_why", "sample"]


def array_why(
    value: Any, t: ArrayType, env: Bindings, label: str, overrides: dict | None = None
) -> str | None:
    """Why ``value`` is not an array of ``t`` under ``env`` (None: it is; ``env`` extended).

    >>> import numpy as np
    >>> from tensortypes.core.shapes import DimSpec, ShapePattern
    >>> t = ArrayType("numpy", None, ShapePattern([DimSpec("var", "n")]))
    >>> env = Bindings(); env.bind("n", 3, ("x", 0, 1))
    >>> array_why(np.zeros(4), t, env, "y")
    'axis 0 of y has size 4, but n=3 was bound by axis 0 of x'
    """
    m = matcher_for(t, overrides)
    env.label = label
    if m.match(value, env):
        return None
    reason = m.explain(value, env) or f"{short_value(value)} is not {annotation_text(t)}"
    if reason.startswith(("axis ", "axes ")):
        return reason
    return f"{label}: {reason}"


# -- every other type ---------------------------------------------------------------------


def sample(items: Any) -> Any:
    """The elements a container check looks at: all, or the first (``container_check``).

    >>> list(sample([7]))
    [7]
    """
    if config.container_check == "one":
        for item in items:
            return (item,)
        return ()
    return items


def why(value: Any, t: Any, env: Bindings, label: str, overrides: dict | None = None) -> str | None:
    """Why ``value`` is not a value of ``t`` (None when it is); extends ``env``.

    ``overrides`` maps an array type to the matcher to use instead of the one built
    from the type: an annotation with ``{...}`` sizes, which its lattice type only
    knows as ``_``.

    >>> from tensortypes.types import INT, ListType
    >>> why([1, "a"], ListType(INT), Bindings(), "xs")
    "xs: expected List[int], got list [1, 'a']: at [1]: expected int, got str 'a'"
    """
    if not has_arrays(t):
        if _types_accept(value, t):
            return None
        return f"{label}: {_types_explain(value, t) or f'expected {annotation_text(t)}'}"
    rule = _RULES.get(type(t))
    if rule is None:  # a scope-aware type of another package
        return t.explain(value, env, label)
    return rule(value, t, env, label, overrides)


def _mismatch(value: Any, t: Any, label: str) -> str:
    return f"{label} is {short_value(value)}, expected {annotation_text(t)}"


def _fits(value, t, env, label, ov):
    """``why(...) is None`` without wording a reason (an array's is the dear part)."""
    if type(t) is ArrayType:
        env.label = label
        return matcher_for(t, ov).match(value, env)
    return why(value, t, env, label, ov) is None


def _names_sizes(t: ArrayType) -> bool:
    """Whether matching an array of ``t`` may bind a size (or a tree path)."""
    return t.shape is not None and any(
        s.kind in ("var", "rigid") or s.variadic or s.path for s in t.shape.specs
    )


def _union(value, t, env, label, ov):
    members = t.members
    for member in members:
        if type(member) is ArrayType and not _names_sizes(member):
            # Binds nothing, so needs no trial copy of the bindings.
            env.label = label
            if matcher_for(member, ov).match(value, env):
                return None
            continue
        trial = env.copy()
        if _fits(value, member, trial, label, ov):
            env.adopt(trial)
            return None
    # No member fits: only now say why each does not.
    reasons = [why(value, member, env.copy(), label, ov) for member in members]
    if value is not None and NONE in members and len(members) == 2:
        return reasons[members.index(NONE) ^ 1]  # Optional[T]: only T could have fitted
    return (
        f"{label} is {short_value(value)}, which fits no member of {annotation_text(t)}: "
        + "; ".join(reasons)
    )


def _sequence(cls):
    def rule(value, t, env, label, ov):
        if not isinstance(value, cls):
            return _mismatch(value, t, label)
        ordered = cls in (list, tuple)
        for i, item in enumerate(sample(value)):
            inner = f"{label}[{i}]" if ordered else f"an element of {label}"
            reason = why(item, t.element, env, inner, ov)
            if reason is not None:
                return reason
        return None

    return rule


def _tuple(value, t, env, label, ov):
    if type(t) is NamedTupleType and t.cls is not None:
        if not isinstance(value, t.cls):
            return _mismatch(value, t, label)
    elif not isinstance(value, tuple):
        return _mismatch(value, t, label)
    if (
        type(t) is NamedTupleType
        and t.cls is None
        and getattr(type(value), "_fields", None) != t.names
    ):
        return _mismatch(value, t, label)
    if len(value) != len(t.elements):
        return (
            f"{label} has {len(value)} elements, expected {len(t.elements)} ({annotation_text(t)})"
        )
    names = t.names if type(t) is NamedTupleType else None
    for i, (item, element) in enumerate(zip(value, t.elements)):
        inner = f"{label}.{names[i]}" if names else f"{label}[{i}]"
        reason = why(item, element, env, inner, ov)
        if reason is not None:
            return reason
    return None


def _dict(value, t, env, label, ov):
    if not isinstance(value, dict):
        return _mismatch(value, t, label)
    for key, item in sample(value.items()):
        reason = why(key, t.key, env, f"a key of {label}", ov)
        if reason is None:
            reason = why(item, t.value, env, f"{label}[{key!r}]", ov)
        if reason is not None:
            return reason
    return None


def _typeddict(value, t, env, label, ov):
    if not isinstance(value, dict):
        return _mismatch(value, t, label)
    missing = sorted(t.required - value.keys())
    if missing:
        return (
            f"{label} lacks required key(s) {', '.join(map(repr, missing))} of {annotation_text(t)}"
        )
    fields = dict(t.fields)
    for key, item in value.items():
        if key not in fields:
            return f"{label} has key {key!r}, which {annotation_text(t)} does not declare"
        reason = why(item, fields[key], env, f"{label}[{key!r}]", ov)
        if reason is not None:
            return reason
    return None


def _abc(value, t, env, label, ov):
    if not isinstance(value, t.origin):
        return _mismatch(value, t, label)
    if not isinstance(value, (abc.Collection, abc.MappingView)):
        return None  # iterators and the like: checking items would consume them
    if t.origin in (abc.Mapping, abc.MutableMapping):
        key_t, value_t = t.args
        for key in sample(value):
            reason = why(key, key_t, env, f"a key of {label}", ov) or why(
                value[key], value_t, env, f"{label}[{key!r}]", ov
            )
            if reason is not None:
                return reason
        return None
    if t.origin is abc.ItemsView:
        key_t, value_t = t.args
        for key, item in sample(value):
            reason = why(key, key_t, env, f"a key of {label}", ov) or why(
                item, value_t, env, f"{label}[{key!r}]", ov
            )
            if reason is not None:
                return reason
        return None
    if t.origin is abc.Container or not t.args:
        return None
    ordered = isinstance(value, abc.Sequence)
    for i, item in enumerate(sample(value)):
        inner = f"{label}[{i}]" if ordered else f"an element of {label}"
        reason = why(item, t.args[0], env, inner, ov)
        if reason is not None:
            return reason
    return None


_RULES = {
    ArrayType: array_why,
    UnionType: _union,
    OptionalType: _union,
    ListType: _sequence(list),
    SetType: _sequence(set),
    FrozenSetType: _sequence(frozenset),
    VarTupleType: _sequence(tuple),
    TupleType: _tuple,
    NamedTupleType: _tuple,
    DictType: _dict,
    TypedDictType: _typeddict,
    AnnotatedType: lambda v, t, env, label, ov: why(v, t.inner, env, label, ov),
    NewTypeType: lambda v, t, env, label, ov: why(v, t.supertype, env, label, ov),
    TypeVarType: lambda v, t, env, label, ov: why(v, t.upper, env, label, ov),
    AbcType: _abc,
}
