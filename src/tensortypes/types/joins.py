"""Joins: the least upper bound, and TorchScript's control-flow unification (layer 3, ``types``).

- ``join(a, b)`` is the least upper bound in the lattice. Unions are types of
  the lattice, so it is the canonical union of ``a`` and ``b`` (absorbing a
  member below another, merging array dtype sets and literal values).
- ``unify(a, b)`` is TorchScript's restricted join for the merge of two
  control-flow paths (``unifyTypes`` without defaulting to a union): a
  supertype when one is below the other; ``Optional`` when one is ``None``;
  element-wise for tuples and futures; tensors merged to what both share
  (equal dtype, equal sizes); lists and dicts of differently shaped tensors
  through their unshaped forms. It returns None where TorchScript fails
  (``int`` and ``str``, ``int`` and ``float``, ``List[int]`` and
  ``List[float]``). ``unify_list`` folds it over a sequence.

Answers are cached per pair: types are interned.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeGuard

from tensortypes.core.shapes import DimSpec, ShapePattern
from tensortypes.graph.type import Type
from tensortypes.types.arrays import ArrayType
from tensortypes.types.primitives import NONE
from tensortypes.types.relations import is_subtype
from tensortypes.types.structural import (
    DictType,
    FutureType,
    ListType,
    NamedTupleType,
    OptionalType,
    RRefType,
    TupleType,
    UnionType,
)

__all__ = ["join", "unify", "unify_list", "unshaped"]

_UNIFY: dict[tuple, Any] = {}
_LIMIT = 1 << 16
_UNKNOWN = DimSpec("unknown")


def join(a: Any, b: Any, *more: Any) -> Any:
    """The least upper bound of the types (a union when no single type is).

    >>> from tensortypes.types import INT, STR, NUMBER, FLOAT
    >>> join(INT, STR), join(INT, NUMBER), join(INT, FLOAT, STR)
    (Union[int, str], number, Union[float, int, str])
    """
    for t in (a, b, *more):
        if not isinstance(t, Type):
            raise TypeError(
                f"join takes types, got {t!r}; use ann_to_type() to convert an annotation"
            )
    if a is b and not more:
        return a
    return UnionType((a, b, *more))


def unify(a: Any, b: Any) -> Any:
    """TorchScript's control-flow join of two types, or None where TorchScript fails.

    >>> from tensortypes.types import INT, NONE, STR
    >>> unify(INT, NONE), unify(INT, STR)
    (Optional[int], None)
    """
    if a is b:
        return a
    key = (a, b)
    try:
        return _UNIFY[key]
    except KeyError:
        pass
    except TypeError:
        return _unify(a, b)
    result = _unify(a, b)
    if len(_UNIFY) >= _LIMIT:
        _UNIFY.clear()
    _UNIFY[key] = result
    return result


def unify_list(types: Iterable[Any]) -> Any:
    """Unify a sequence of types left to right; None when any step fails or it is empty.

    >>> from tensortypes.types import INT, NONE
    >>> unify_list([INT, NONE, INT])
    Optional[int]
    """
    result = None
    for index, t in enumerate(types):
        if index == 0:
            if not isinstance(t, Type):
                raise TypeError(f"unify_list takes types, got {t!r}")
            result = t
            continue
        result = unify(result, t)
        if result is None:
            return None
    return result


def _holds_none(t: Any) -> TypeGuard[UnionType]:
    return isinstance(t, UnionType) and t.can_hold_none


def _unify(a: Any, b: Any) -> Any:
    if not isinstance(a, Type) or not isinstance(b, Type):
        bad = a if not isinstance(a, Type) else b
        raise TypeError(f"unify takes two types, got {bad!r}")
    if is_subtype(a, b) is True:
        return b
    if is_subtype(b, a) is True:
        return a
    if type(a) is ArrayType and type(b) is ArrayType:
        return _merge_arrays(a, b)
    if a is NONE:
        return OptionalType(b)
    if b is NONE:
        return OptionalType(a)
    if _holds_none(a):
        inner = unify(a.without_none(), b)
        if inner is not None:
            return OptionalType(inner)
    elif _holds_none(b):
        inner = unify(b.without_none(), a)
        if inner is not None:
            return OptionalType(inner)
    if (type(a) is TupleType or type(a) is NamedTupleType) and (
        type(b) is TupleType or type(b) is NamedTupleType
    ):
        if len(a.elements) != len(b.elements):
            return None
        elements = []
        for x, y in zip(a.elements, b.elements):
            z = unify(x, y)
            if z is None:
                return None
            elements.append(z)
        return TupleType(elements)
    if type(a) is FutureType and type(b) is FutureType:
        inner = unify(a.element, b.element)
        return None if inner is None else FutureType(inner)
    ua, ub = unshaped(a), unshaped(b)
    if is_subtype(ua, ub) is True:
        return ub
    if is_subtype(ub, ua) is True:
        return ua
    return None


def _merge_arrays(a: ArrayType, b: ArrayType) -> ArrayType | None:
    """TorchScript's tensor merge: keep the dtype and the sizes both agree on."""
    if a.kind != b.kind:
        return None
    dtypes = a.dtypes if a.dtypes == b.dtypes else None
    shape = None
    if (
        a.shape is not None
        and b.shape is not None
        and len(a.shape) == len(b.shape)
        and a.shape.variadic_index is None
        and b.shape.variadic_index is None
    ):
        shape = ShapePattern(x if x is y else _UNKNOWN for x, y in zip(a.shape, b.shape))
    return ArrayType(a.kind, dtypes, shape)


def unshaped(t: Any) -> Any:
    """``t`` with every array type widened to its kind (any dtype, any shape).

    >>> from tensortypes.types import ArrayType, ListType
    >>> unshaped(ListType(ArrayType("torch", "float32", (2, 3))))
    List[Tensor]
    """
    cls = type(t)
    if cls is ArrayType:
        return ArrayType(t.kind) if (t.dtypes is not None or t.shape is not None) else t
    if cls in (ListType, FutureType, RRefType):
        inner = unshaped(t.element)
        return t if inner is t.element else cls(inner)
    if cls is DictType:
        return DictType(unshaped(t.key), unshaped(t.value))
    if cls is TupleType:
        return TupleType([unshaped(e) for e in t.elements])
    if cls is NamedTupleType:
        return NamedTupleType(
            t.name, [(n, unshaped(e)) for n, e in zip(t.names, t.elements)], t.cls
        )
    if cls is UnionType or cls is OptionalType:
        return UnionType([unshaped(m) for m in t.members])
    return t
