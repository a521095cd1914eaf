"""The subtype relation of the type language (layer 3, ``types``).

``is_subtype(a, b)`` is ``b.is_super(a)``: True, False, or None when it cannot
be told (a rigid symbol, a type variable's binding, a regex dtype). The rules
are TorchScript's (as in TorchScript): ``List``, ``Dict`` and ``RRef`` invariant;
``Tuple``, ``Optional`` and ``Future`` covariant; a ``NamedTuple`` below the
matching ``Tuple``; ``None`` and ``T`` below ``Optional[T]``; everything below
``Any``; a union below a type when each member is, a type below a union when
it is below a member; ``int``, ``float`` and ``complex`` below ``number``
(``bool`` below neither ``int`` nor ``number``). Arrays compare kind, dtype
set and shape pattern through the core lattice (``float32 (2, 3)`` below
``float32 (2, ?)`` below ``Tensor``). Python's own kinds follow Python's rules
(classes by ``issubclass``, protocols by their members, ``collections.abc``
generics with their parameters' variance): their rules are in
``tensortypes.types.classrules``.

The rules are a table keyed by the class of the supertype; a check at import
fails loudly if a type class has no rule. Answers are cached per pair (types
are interned), so a repeated question is one dict lookup.
"""

from __future__ import annotations

from typing import Any

from tensortypes.graph.type import Type
from tensortypes.types.arrays import (
    ArrayType,
    array_view,
    class_kind,
    dtypes_is_super,
    kind_is_super,
    shape_is_super,
)
from tensortypes.types.base import LatticeType, hooks
from tensortypes.types.classrules import (
    PYTHON_RULES,
    all_of,
    any_of,
    both,
    equivalent,
    literal_base,
    nominal_class,
)
from tensortypes.types.containers import FrozenSetType, SetType
from tensortypes.types.extras import AnnotatedType, LiteralType, NewTypeType, TypeVarType
from tensortypes.types.nominal import (
    DeviceType,
    DTypeType,
    GeneratorType,
    StreamType,
    _TorchBuiltin,
    torch_class_name,
)
from tensortypes.types.primitives import (
    ANY,
    COMPLEX,
    FLOAT,
    INT,
    NEVER,
    AnyType,
    BoolType,
    ComplexType,
    FloatType,
    IntType,
    NeverType,
    NoneType,
    NumberType,
    StrType,
)
from tensortypes.types.structural import (
    DictType,
    FutureType,
    ListType,
    NamedTupleType,
    OptionalType,
    RRefType,
    TupleType,
    UnionType,
    VarTupleType,
)
from tensortypes.types.views import python_class

__all__ = ["is_subtype", "equivalent", "both", "any_of", "SUPER_RULES"]

_CACHE: dict[tuple, bool | None] = {}
_CACHE_LIMIT = 1 << 17


def is_subtype(a: Any, b: Any) -> bool | None:
    """True if every value of ``a`` is a value of ``b``; None when it cannot be told.

    >>> from tensortypes.types import INT, NONE, NUMBER, BOOL, OptionalType
    >>> is_subtype(INT, OptionalType(INT)), is_subtype(NONE, OptionalType(INT))
    (True, True)
    >>> is_subtype(INT, NUMBER), is_subtype(BOOL, INT)
    (True, False)
    """
    if a is b:
        return True
    key = (a, b)
    try:
        return _CACHE[key]
    except KeyError:
        pass
    except TypeError:  # a foreign, unhashable Type: answer without the cache
        return _compute(a, b)
    answer = _compute(a, b)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = answer
    return answer


def _compute(a: Any, b: Any) -> bool | None:
    if not isinstance(a, Type) or not isinstance(b, Type):
        bad = a if not isinstance(a, Type) else b
        raise TypeError(
            f"is_subtype takes two types, got {bad!r}; use ann_to_type() to convert an annotation"
        )
    if b is ANY or a is NEVER:
        return True
    if not isinstance(b, LatticeType):
        # A foreign Type (tensor.TensorType, a user's Type) answers for itself.
        return b.is_super(a)
    ta = type(a)  # each test below repeats type(a) is C, which static checkers narrow on
    if type(a) is AnnotatedType:
        return is_subtype(a.inner, b)
    tb = type(b)
    if type(b) is AnnotatedType:
        return is_subtype(a, b.inner)
    if type(a) is UnionType or type(a) is OptionalType:
        return all_of(is_subtype(m, b) for m in a.members)
    if type(a) is LiteralType and len(a.items) > 1:
        return all_of(is_subtype(LiteralType([v]), b) for v in a.values)
    if a is ANY:
        return False
    if type(a) is TypeVarType:
        upper = a.upper
        if upper is not None and is_subtype(upper, b) is True:
            return True
    if type(b) is UnionType or type(b) is OptionalType:
        return any_of(is_subtype(a, m) for m in b.members)
    if ta is TypeVarType:
        return None
    if type(a) is NewTypeType:
        return is_subtype(a.supertype, b)
    return SUPER_RULES[tb](a, b)


# -- rules, keyed by the class of the supertype ----------------------------------------


def _sup_primitive(a, b) -> bool | None:
    if type(a) is LiteralType:
        return is_subtype(literal_base(a), b)
    cls = nominal_class(a)
    if cls is None or (b is INT and issubclass(cls, bool)):
        return False  # bool is not below int, as a class type neither
    return issubclass(cls, b.py_class)


def _sup_none(a, b) -> bool | None:
    return False


def _sup_number(a, b) -> bool | None:
    if a is INT or a is FLOAT or a is COMPLEX:
        return True
    if type(a) is LiteralType:
        return is_subtype(literal_base(a), b)
    cls = nominal_class(a)
    return cls is not None and not issubclass(cls, bool) and issubclass(cls, b.py_class)


def _sup_tuple(a, b) -> bool | None:
    if type(a) in (TupleType, NamedTupleType) and len(a.elements) == len(b.elements):
        return all_of(is_subtype(x, y) for x, y in zip(a.elements, b.elements))
    return False


def _sup_vartuple(a, b) -> bool | None:
    if type(a) in (TupleType, NamedTupleType):
        return all_of(is_subtype(x, b.element) for x in a.elements)
    if type(a) is VarTupleType:
        return is_subtype(a.element, b.element)
    return False


def _sup_namedtuple(a, b) -> bool | None:
    if type(a) is not NamedTupleType or len(a.elements) != len(b.elements):
        return False
    if a.cls is not None and b.cls is not None:
        if not issubclass(a.cls, b.cls):
            return False
    elif a.name != b.name or a.names != b.names:
        return False
    return all_of(is_subtype(x, y) for x, y in zip(a.elements, b.elements))


def _invariant(param: str):
    def rule(a, b) -> bool | None:
        if type(a) is type(b):
            return equivalent(getattr(a, param), getattr(b, param))
        return None if _subclass_of_python_class(a, b) else False

    return rule


def _covariant(param: str):
    def rule(a, b) -> bool | None:
        if type(a) is type(b):
            return is_subtype(getattr(a, param), getattr(b, param))
        return None if _subclass_of_python_class(a, b) else False

    return rule


def _subclass_of_python_class(a, b) -> bool:
    # A user subclass of list/dict/set: its elements are unknown statically.
    cls = nominal_class(a)
    target = python_class(b)
    return cls is not None and isinstance(target, type) and issubclass(cls, target)


def _sup_dict(a, b) -> bool | None:
    if type(a) is DictType:
        return both(equivalent(a.key, b.key), equivalent(a.value, b.value))
    return None if _subclass_of_python_class(a, b) else False


def _sup_array(a, b) -> bool | None:
    view = array_view(a)
    if view is None:
        cls = nominal_class(a)
        if cls is not None and class_kind(cls) is not None:
            return None if kind_is_super(b.kind, cls) else False
        return False
    kind, dtypes, shape = view
    if not kind_is_super(b.kind, kind):
        return False
    return both(dtypes_is_super(b.dtypes, dtypes), shape_is_super(b.shape, shape))


def _sup_torch_builtin(a, b) -> bool | None:
    cls = nominal_class(a)
    return cls is not None and torch_class_name(cls) == b.torch_name


def _sup_union(a, b) -> bool | None:
    return any_of(is_subtype(a, m) for m in b.members)


def _sup_never(a, b) -> bool | None:
    return False  # only Never itself (answered before dispatch) is below Never


def _sup_unreachable(a, b) -> bool | None:
    raise AssertionError(f"is_subtype({a}, {b}) should have been answered before dispatch")


SUPER_RULES = {
    AnyType: _sup_unreachable,
    AnnotatedType: _sup_unreachable,
    NeverType: _sup_never,
    NoneType: _sup_none,
    IntType: _sup_primitive,
    FloatType: _sup_primitive,
    ComplexType: _sup_primitive,
    BoolType: _sup_primitive,
    StrType: _sup_primitive,
    NumberType: _sup_number,
    TupleType: _sup_tuple,
    VarTupleType: _sup_vartuple,
    NamedTupleType: _sup_namedtuple,
    ListType: _invariant("element"),
    DictType: _sup_dict,
    UnionType: _sup_union,
    OptionalType: _sup_union,
    FutureType: _covariant("element"),
    RRefType: _invariant("element"),
    ArrayType: _sup_array,
    DeviceType: _sup_torch_builtin,
    DTypeType: _sup_torch_builtin,
    StreamType: _sup_torch_builtin,
    GeneratorType: _sup_torch_builtin,
    SetType: _invariant("element"),
    FrozenSetType: _covariant("element"),
    **PYTHON_RULES,
}
"""The rule deciding ``is_subtype(a, b)`` for each class of ``b``."""


def concrete_type_classes() -> list[type]:
    """Every concrete class of the type language (the ones with a kind).

    >>> from tensortypes.types import ListType
    >>> ListType in concrete_type_classes()
    True
    """
    found: list[type] = []
    todo: list[type[LatticeType]] = [LatticeType]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls._kind and cls not in found and cls is not _TorchBuiltin:
            found.append(cls)
    return found


def _check_exhaustive() -> None:
    missing = [
        c.__name__
        for c in concrete_type_classes()
        if c not in SUPER_RULES and c.__module__.startswith("tensortypes.types")
    ]
    if missing:
        raise AssertionError(f"is_subtype has no rule for {', '.join(sorted(missing))}")


_check_exhaustive()
hooks.is_subtype = is_subtype
