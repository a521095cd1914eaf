"""How each type looks from Python's class hierarchy (layer 3, ``types``).

Two questions the relations and the checks share:

- ``python_class(t)``: the run-time class (or tuple of classes) every value of
  ``t`` is an instance of, when there is one (``List[int]`` -> ``list``,
  ``ClassType(C)`` -> ``C``, ``number`` -> ``(int, float, complex)``).
- ``abc_view(t, origin)``: ``t`` seen as the ``collections.abc`` generic
  ``origin``: the parameters ``origin`` would have (``Dict[str, int]`` as a
  ``Mapping`` is ``(str, int)``, as an ``Iterable`` it is ``(str,)``), or a
  marker when the class matches but the parameters are unknown.
"""

from __future__ import annotations

import collections.abc as abc
from typing import Any

import numpy as np

from tensortypes.types.arrays import ArrayType
from tensortypes.types.containers import ABC_ORIGINS, AbcType, FrozenSetType, SetType, TypeOfType
from tensortypes.types.extras import AnnotatedType, LiteralType, NewTypeType, TypedDictType
from tensortypes.types.nominal import ClassType, EnumClassType, InterfaceType, ModuleType
from tensortypes.types.primitives import ANY, STR, AnyType, _Primitive
from tensortypes.types.structural import (
    DictType,
    ListType,
    NamedTupleType,
    TupleType,
    UnionType,
    VarTupleType,
)

__all__ = ["python_class", "abc_view", "UNKNOWN_ARGS", "EMPTY"]

UNKNOWN_ARGS = True
"""``abc_view``'s answer when the class matches but the parameters are unknown."""
EMPTY = "empty"
"""``abc_view``'s answer for an empty tuple: no elements, so any element type fits."""

_FIXED = {
    ListType: list,
    DictType: dict,
    TupleType: tuple,
    VarTupleType: tuple,
    SetType: set,
    FrozenSetType: frozenset,
    TypedDictType: dict,
    TypeOfType: type,
    AnyType: object,
}


def python_class(t: Any) -> type | tuple[type, ...] | None:
    """The class of every value of ``t``, if there is one.

    >>> from tensortypes.types import ListType, INT, NUMBER
    >>> python_class(ListType(INT)), python_class(NUMBER)
    (<class 'list'>, (<class 'int'>, <class 'float'>, <class 'complex'>))
    """
    cls = type(t)
    found = _FIXED.get(cls)
    if found is not None:
        return found
    if isinstance(t, _Primitive):
        return t.py_class
    if cls in (ClassType, ModuleType, EnumClassType, InterfaceType):
        return t.cls
    if cls is NamedTupleType:
        return t.cls if t.cls is not None else tuple
    if cls is AbcType:
        return t.origin
    if cls is AnnotatedType:
        return python_class(t.inner)
    if cls is NewTypeType:
        return python_class(t.supertype)
    if cls is LiteralType:
        kinds = {type(v) for v in t.values}
        return kinds.pop() if len(kinds) == 1 else tuple(kinds)
    if cls is ArrayType:
        if isinstance(t.kind, type):
            return t.kind
        return np.ndarray if t.kind == "numpy" else None
    return None


_ELEMENT_ORIGINS = frozenset(
    {
        abc.Container,
        abc.Iterable,
        abc.Iterator,
        abc.Reversible,
        abc.Collection,
        abc.Sequence,
        abc.MutableSequence,
        abc.Set,
        abc.MutableSet,
        abc.KeysView,
        abc.ValuesView,
        abc.AsyncIterable,
        abc.AsyncIterator,
    }
)
_MAPPING_ORIGINS = frozenset({abc.Mapping, abc.MutableMapping})
_EXACT_ORIGINS = frozenset(
    {abc.ItemsView, abc.Generator, abc.Coroutine, abc.AsyncGenerator, abc.Awaitable}
)


def _element(t: Any):
    """The type of the items iterating ``t`` yields; UNKNOWN_ARGS or EMPTY otherwise."""
    cls = type(t)
    if cls in (ListType, SetType, FrozenSetType, VarTupleType):
        return t.element
    if cls in (TupleType, NamedTupleType):
        return UnionType(t.elements) if t.elements else EMPTY
    if cls is DictType:
        return t.key
    if cls is TypedDictType or t is STR:
        return STR
    if cls is AbcType:
        origin = t.origin
        if (
            origin in _ELEMENT_ORIGINS
            or origin in _MAPPING_ORIGINS
            or origin in (abc.Generator, abc.AsyncGenerator)
        ):
            return t.args[0]
        if origin is abc.ItemsView:
            return TupleType(t.args)
    return UNKNOWN_ARGS


def _mapping(t: Any):
    cls = type(t)
    if cls is DictType:
        return (t.key, t.value)
    if cls is TypedDictType:
        values = [v for _, v in t.fields]
        return (STR, UnionType(values) if values else ANY)
    if cls is AbcType and t.origin in _MAPPING_ORIGINS:
        return t.args
    return UNKNOWN_ARGS


def abc_view(t: Any, origin: type):
    """``t`` as the ``collections.abc`` generic ``origin``: its parameters as a tuple,
    ``UNKNOWN_ARGS``/``EMPTY`` markers, or None when ``t`` is not an ``origin`` at all.

    >>> import collections.abc as abc
    >>> from tensortypes.types import DictType, STR, INT
    >>> abc_view(DictType(STR, INT), abc.Mapping), abc_view(DictType(STR, INT), abc.Iterable)
    ((str, int), (str,))
    """
    cls = python_class(t)
    if not isinstance(cls, type) or not issubclass(cls, origin):
        return None
    params = ABC_ORIGINS[origin][1]
    if not params:
        return ()
    if origin in _ELEMENT_ORIGINS:
        element = _element(t)
        return element if element is UNKNOWN_ARGS or element is EMPTY else (element,)
    if origin in _MAPPING_ORIGINS:
        return _mapping(t)
    if origin in _EXACT_ORIGINS and type(t) is AbcType:
        if t.origin is origin:
            return t.args
        if origin is abc.Awaitable and t.origin is abc.Coroutine:
            return (t.args[2],)
    return UNKNOWN_ARGS
