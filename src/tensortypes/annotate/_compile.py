"""Lattice array types and annotations turned into matchers (layer 5: ``annotate``).

The one place where a ``types.ArrayType``, or the annotation class it came from,
becomes the :class:`~tensortypes.annotate._match.Matcher` that checks values, and
where a lattice type is asked whether checking it involves a dimension scope. Both
checkers above build on it: the runtime checker (``tensortypes.runtime``, layer 6)
and the PyTree leaf checks (``tensortypes.pytree``).

- ``matcher_for(t, overrides=None)``: the matcher of an array type (built once per
  type) or of an annotation class (its own);
- ``annotation_matchers(ann, into=None)``: ``{lattice type: matcher}`` of the array
  annotations inside a typing annotation. An annotation with ``{...}`` sizes has a
  lattice type that reads them as ``_``; only its own matcher resolves them per call,
  so this map is what ``overrides`` takes;
- ``type_parts(t)``, ``scope_aware(t)``, ``has_arrays(t)``: the types inside a
  lattice type, and whether checking a value of it binds sizes.

A graph form's unknown axis (``?``) matches any size, like ``_``; a rigid size is a
name bound per call, the only meaning it can have on one value (docs/architecture.md,
"Dims come in two kinds").
"""

from __future__ import annotations

import re
import typing
from typing import Any

from tensortypes.annotate._array import is_annotation
from tensortypes.annotate._match import Matcher
from tensortypes.annotate._shape import ParsedShape
from tensortypes.core.shapes import DimSpec
from tensortypes.core.words import annotation_text, array_annotation_text
from tensortypes.errors import AnnotationError
from tensortypes.types.arrays import dtype_category
from tensortypes.types import (
    AbcType,
    AnnotatedType,
    ArrayType,
    DictType,
    FrozenSetType,
    LatticeType,
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

__all__ = [
    "matcher_for",
    "annotation_matchers",
    "type_parts",
    "scope_aware",
    "has_arrays",
    "WALKED",
]

_ANON = DimSpec("anon")
_ELLIPSIS = DimSpec("anon", variadic=True)
_LIMIT = 4096
_MATCHERS: dict[ArrayType, Matcher] = {}
_HAS_ARRAYS: dict[Any, bool] = {}
_MAX_DEPTH = 100

WALKED = frozenset(
    {
        ArrayType,
        UnionType,
        OptionalType,
        ListType,
        SetType,
        FrozenSetType,
        VarTupleType,
        TupleType,
        NamedTupleType,
        DictType,
        TypedDictType,
        AnnotatedType,
        NewTypeType,
        TypeVarType,
        AbcType,
    }
)
"""The type classes whose values hold values of their parts, checked in the same
scope: an array inside one of them binds sizes like an array on its own."""


def matcher_for(t: Any, overrides: dict | None = None) -> Matcher:
    """The matcher of the array type or array annotation class ``t``.

    ``overrides`` (from :func:`annotation_matchers`) maps an array type to the
    matcher to use instead of the one built from the type: that of the annotation
    it came from, which keeps its ``{...}`` sizes.

    >>> import numpy as np
    >>> t = ArrayType("numpy", "float32", (2, None))
    >>> matcher_for(t).match(np.zeros((2, 7), np.float32), None), matcher_for(t) is matcher_for(t)
    (True, True)
    """
    if overrides:
        found = overrides.get(t)
        if found is not None:
            return found
    if type(t) is not ArrayType:
        if is_annotation(t):
            return t._tt_matcher
        raise TypeError(f"matcher_for takes an ArrayType or an array annotation, got {t!r}")
    found = _MATCHERS.get(t)
    if found is not None:
        return found
    dims: tuple
    if t.shape is None:
        dims, index = (_ELLIPSIS,), 0
    else:
        dims = tuple(
            _ANON if s.kind == "unknown" else DimSpec("var", s.expr) if s.kind == "rigid" else s
            for s in t.shape.specs
        )
        index = t.shape.variadic_index
    shape = ParsedShape(dims, index, " ".join(str(d) for d in dims))
    dtypes = None if t.dtypes is None else tuple(sorted(t.dtypes, key=_dtype_order))
    # The dtype class's name labels the dtype list, as an annotation's own matcher does.
    label = None if t.dtypes is None else dtype_category(t.dtypes)
    found = Matcher(t.kind, dtypes, shape, str(t), label)
    if len(_MATCHERS) < _LIMIT:
        found = _MATCHERS.setdefault(t, found)
    return found


def _dtype_order(d: Any) -> str:
    return d.pattern if isinstance(d, re.Pattern) else d


def annotation_matchers(ann: Any, into: dict | None = None) -> dict:
    """``{lattice type: matcher}`` of the array annotation classes inside ``ann``.

    ``into`` collects several annotations (a function's parameters) in one map; it
    is returned, extended. Two annotations with one lattice type whose ``{...}``
    sizes differ cannot both be told apart by that type: ``AnnotationError``.

    >>> import numpy as np
    >>> from tensortypes.annotate import Float
    >>> A = Float[np.ndarray, "n"]
    >>> annotation_matchers(A | None) == {A.type: A._tt_matcher}
    True
    """
    found: dict = {} if into is None else into
    _collect(ann, found, 0)
    return found


def _matcher_text(m: Matcher) -> str:
    """The annotation a matcher checks, as a message writes it."""
    label = m.dtype.label
    return array_annotation_text(label, m.kind, m.dim_str) if label else m.title


def _collect(x: Any, found: dict, depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    if is_annotation(x):
        mine = x._tt_matcher
        other = found.setdefault(x.type, mine)
        if other is not mine and (other.templated or mine.templated):
            raise AnnotationError(
                f"{_matcher_text(other)} and {annotation_text(x)} differ only in their {{...}} sizes; use "
                "one of them, or name the sizes differently elsewhere"
            )
        return
    if isinstance(x, (str, bytes)):
        return
    for arg in typing.get_args(x):
        _collect(arg, found, depth + 1)


def type_parts(t: Any) -> tuple:
    """The types directly inside ``t`` that its values' parts are checked against.

    >>> from tensortypes.types import INT, STR, DictType
    >>> type_parts(DictType(STR, INT))
    (str, int)
    """
    cls = type(t)
    if cls is TypeVarType:
        return () if t.upper is None else (t.upper,)
    if cls is NewTypeType:
        return (t.supertype,)
    contained = getattr(t, "contained", None)
    return () if contained is None else contained()


def scope_aware(t: Any) -> bool:
    """Whether ``t`` is a type outside the type language that checks values in a scope
    itself: ``t.check(value, bindings) -> bool`` and ``t.explain(value, bindings,
    label) -> str | None`` (``pytree.PyTreeType``).

    >>> from tensortypes.types import INT
    >>> scope_aware(INT)
    False
    """
    cls = type(t)
    return (
        not isinstance(t, LatticeType)
        and callable(getattr(cls, "check", None))
        and callable(getattr(cls, "explain", None))
    )


def has_arrays(t: Any) -> bool:
    """Whether checking ``t`` involves an array or a scope-aware type, directly or
    inside the types of ``WALKED``; only then can a check bind sizes.

    >>> from tensortypes.types import INT, ListType, TENSOR
    >>> has_arrays(ListType(INT)), has_arrays(ListType(TENSOR))
    (False, True)
    """
    found = _HAS_ARRAYS.get(t)
    if found is None:
        cls = type(t)
        if cls is ArrayType or scope_aware(t):
            found = True
        elif cls in WALKED:
            found = any(has_arrays(p) for p in type_parts(t))
        else:
            found = False
        if len(_HAS_ARRAYS) < _LIMIT:
            _HAS_ARRAYS[t] = found
    return found
