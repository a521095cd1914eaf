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

An array is matched by the compiled matcher of ``annotate._match`` built
from its lattice type, and explained by that module's interpreter, so arrays
mean the same here as in ``isinstance``.
"""

from __future__ import annotations

import collections.abc as abc
import re
from typing import Any

from tensortypes._config import config
from tensortypes.core.shapes import DimSpec
from tensortypes.types import (NONE, AbcType, AnnotatedType, ArrayType, DictType,
                               FrozenSetType, ListType, NamedTupleType, NewTypeType, OptionalType, SetType,
                               TupleType, TypedDictType, TypeVarType, UnionType, VarTupleType)
from tensortypes.types import LatticeType
from tensortypes.types import explain as _types_explain
from tensortypes.types import is_instance as _types_accept
from tensortypes.annotate import Bindings, Matcher, ParsedShape
from tensortypes.runtime._messages import short_value

__all__ = ["why", "copy_into", "has_arrays", "scope_aware", "array_why", "matcher_of"]

_ANON = DimSpec("anon")
_ELLIPSIS = DimSpec("anon", variadic=True)


def copy_into(env: Bindings, trial: Bindings) -> None:
    """Keep the bindings a successful trial made (a union member that fitted)."""
    env.sizes = trial.sizes
    env.where = trial.where
    env.broadcast = trial.broadcast


# -- arrays ------------------------------------------------------------------------------

_MATCHERS: dict[ArrayType, Matcher] = {}


def matcher_of(t: ArrayType) -> Matcher:
    """The compiled matcher of ``annotate._match`` for an array type (cached per type).

    A graph form's unknown axis (``?``) matches any size, like ``_``; a rigid size
    is a name bound per call, the only meaning it can have on one value.

    >>> import numpy as np
    >>> matcher_of(ArrayType("numpy", "float32", (2, None))).match(
    ...     np.zeros((2, 7), np.float32), None)
    True
    """
    found = _MATCHERS.get(t)
    if found is None:
        dims = ()
        index = None
        if t.shape is not None:
            dims = tuple(_ANON if s.kind == "unknown" else
                         DimSpec("var", s.expr) if s.kind == "rigid" else s
                         for s in t.shape.specs)
            index = t.shape.variadic_index
        else:
            dims, index = (_ELLIPSIS,), 0
        shape = ParsedShape(dims, index, " ".join(str(d) for d in dims))
        dtypes = None if t.dtypes is None else tuple(sorted(
            t.dtypes, key=lambda d: d.pattern if isinstance(d, re.Pattern) else d))
        found = Matcher(t.kind, dtypes, shape, str(t))
        if len(_MATCHERS) < 4096:
            _MATCHERS[t] = found
    return found


def array_why(value: Any, t: ArrayType, env: Bindings, label: str,
              overrides: dict | None = None) -> str | None:
    """Why ``value`` is not an array of ``t`` under ``env`` (None: it is; ``env`` extended).

    >>> import numpy as np
    >>> from tensortypes.core.shapes import DimSpec, ShapePattern
    >>> t = ArrayType("numpy", None, ShapePattern([DimSpec("var", "n")]))
    >>> env = Bindings(); env.bind("n", 3, ("x", 0, 1))
    >>> array_why(np.zeros(4), t, env, "y")
    'axis 0 of y has size 4, but n=3 was bound by axis 0 of x'
    """
    m = None if overrides is None else overrides.get(t)
    if m is None:
        m = matcher_of(t)
    env.label = label
    if m.match(value, env):
        return None
    reason = m.explain(value, env) or f"{short_value(value)} is not {t}"
    if reason.startswith(("axis ", "axes ")):
        return reason
    return f"{label}: {reason}"


# -- every other type ---------------------------------------------------------------------

_WALKED = (ArrayType, UnionType, OptionalType, ListType, SetType, FrozenSetType, VarTupleType,
           TupleType, NamedTupleType, DictType, TypedDictType, AnnotatedType, NewTypeType,
           TypeVarType, AbcType)
_HAS_ARRAYS: dict[Any, bool] = {}


def scope_aware(t: Any) -> bool:
    """Whether ``t`` is a type outside the type language that checks values in a scope
    itself: ``t.check(value, bindings) -> bool`` and ``t.explain(value, bindings,
    label) -> str | None`` (``pytree.PyTreeType``)."""
    cls = type(t)
    return not isinstance(t, LatticeType) and callable(getattr(cls, "check", None)) and \
        callable(getattr(cls, "explain", None))


def has_arrays(t: Any) -> bool:
    """Whether checking ``t`` involves an array (directly or inside the types walked here).

    >>> from tensortypes.types import INT, ListType, TENSOR
    >>> has_arrays(ListType(INT)), has_arrays(ListType(TENSOR))
    (False, True)
    """
    found = _HAS_ARRAYS.get(t)
    if found is None:
        if type(t) is ArrayType or scope_aware(t):
            found = True
        elif type(t) in _WALKED:
            found = any(has_arrays(c) for c in _parts(t))
        else:
            found = False
        _HAS_ARRAYS[t] = found
    return found


def _parts(t: Any) -> tuple:
    if type(t) is TypeVarType:
        return () if t.upper is None else (t.upper,)
    if type(t) is NewTypeType:
        return (t.supertype,)
    return t.contained()


def _sample(items: Any) -> Any:
    if config.container_check == "one":
        for item in items:
            return (item,)
        return ()
    return items


def why(value: Any, t: Any, env: Bindings, label: str,
        overrides: dict | None = None) -> str | None:
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
        return f"{label}: {_types_explain(value, t) or f'expected {t}'}"
    rule = _RULES.get(type(t))
    if rule is None:  # a scope-aware type of another package
        return t.explain(value, env, label)
    return rule(value, t, env, label, overrides)


def _mismatch(value: Any, t: Any, label: str) -> str:
    return f"{label} is {short_value(value)}, expected {t}"


def _union(value, t, env, label, ov):
    reasons = []
    members = t.members
    for member in members:
        trial = env.copy()
        reason = why(value, member, trial, label, ov)
        if reason is None:
            copy_into(env, trial)
            return None
        reasons.append(reason)
    if value is not None and NONE in members and len(members) == 2:
        return reasons[members.index(NONE) ^ 1]  # Optional[T]: only T could have fitted
    return f"{label} is {short_value(value)}, which fits no member of {t}: " + \
        "; ".join(reasons)


def _sequence(cls):
    def rule(value, t, env, label, ov):
        if not isinstance(value, cls):
            return _mismatch(value, t, label)
        ordered = cls in (list, tuple)
        for i, item in enumerate(_sample(value)):
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
    if type(t) is NamedTupleType and t.cls is None and \
            getattr(type(value), "_fields", None) != t.names:
        return _mismatch(value, t, label)
    if len(value) != len(t.elements):
        return f"{label} has {len(value)} elements, expected {len(t.elements)} ({t})"
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
    for key, item in _sample(value.items()):
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
        return f"{label} lacks required key(s) {', '.join(map(repr, missing))} of {t}"
    fields = dict(t.fields)
    for key, item in value.items():
        if key not in fields:
            return f"{label} has key {key!r}, which {t} does not declare"
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
        for key in _sample(value):
            reason = why(key, key_t, env, f"a key of {label}", ov) or \
                why(value[key], value_t, env, f"{label}[{key!r}]", ov)
            if reason is not None:
                return reason
        return None
    if t.origin is abc.ItemsView:
        key_t, value_t = t.args
        for key, item in _sample(value):
            reason = why(key, key_t, env, f"a key of {label}", ov) or \
                why(item, value_t, env, f"{label}[{key!r}]", ov)
            if reason is not None:
                return reason
        return None
    if t.origin is abc.Container or not t.args:
        return None
    ordered = isinstance(value, abc.Sequence)
    for i, item in enumerate(_sample(value)):
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
