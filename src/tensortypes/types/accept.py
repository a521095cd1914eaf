"""The fast half of ``check_value``: whether a run-time value belongs to a type
(layer 3, ``types``).

Python's run-time meaning (docs/architecture.md), not TorchScript's static rules:
``isinstance`` semantics, so ``True`` passes ``int``; an ``int`` passes
``float`` (and ``int``/``float`` pass ``complex``) with
``config.numeric_tower`` on, the default (PEP 484). Containers check their elements: all of them, or
only the first with ``config.container_check = "one"``. Iterators, generators
and awaitables are checked by class only (checking their items would consume
them). Arrays are checked by kind, dtype and shape through the core
recognisers, without importing any array library.

``ACCEPT`` holds one boolean test per type class; ``tensortypes.types.check``
explains failures. The table must cover every type class; the module checks
that at import.
"""

from __future__ import annotations

import collections.abc as abc
from typing import Any

from tensortypes._config import config
from tensortypes.core.arrays import array_info
from tensortypes.core.shapes import pattern_is_super
from tensortypes.graph.type import Type
from tensortypes.types.arrays import ArrayType, dtype_matches
from tensortypes.types.base import hooks
from tensortypes.types.containers import AbcType, FrozenSetType, SetType, TypeOfType
from tensortypes.types.extras import (
    AnnotatedType,
    CallableType,
    LiteralType,
    NewTypeType,
    ProtocolType,
    TypedDictType,
    TypeVarType,
)
from tensortypes.types.nominal import (
    ClassType,
    DeviceType,
    DTypeType,
    EnumClassType,
    GeneratorType,
    InterfaceType,
    ModuleType,
    StreamType,
    torch_class_name,
)
from tensortypes.types.primitives import (
    ANY,
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
from tensortypes.types.relations import SUPER_RULES
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

__all__ = ["is_instance", "sample", "ACCEPT"]


def is_instance(value: Any, t: Any) -> bool:
    """True iff ``value`` is a value of ``t`` (the fast, boolean half of ``check_value``).

    >>> from tensortypes.types import ListType, INT
    >>> is_instance([1, 2], ListType(INT)), is_instance([1, "a"], ListType(INT))
    (True, False)
    """
    try:
        accept = ACCEPT[type(t)]
    except KeyError:
        if isinstance(t, Type):
            return bool(t.is_valid_value(value))
        raise TypeError(
            f"is_instance takes a type, got {t!r}; use ann_to_type() to convert an annotation"
        ) from None
    return accept(value, t)


def sample(items):
    """All items, or only the first with ``config.container_check == "one"``.

    >>> list(sample([1, 2, 3]))  # with the default ``container_check = "all"``
    [1, 2, 3]
    """
    if config.container_check == "one":
        for item in items:
            return (item,)
        return ()
    return items


# -- the boolean tests --------------------------------------------------------------


def _elements_ok(values, element) -> bool:
    accept = ACCEPT.get(type(element))
    if accept is None:
        return all(is_instance(v, element) for v in sample(values))
    return all(accept(v, element) for v in sample(values))


def _float(v, t):
    return isinstance(v, float) or (config.numeric_tower and isinstance(v, int))


def _complex(v, t):
    return isinstance(v, complex) or (config.numeric_tower and isinstance(v, (int, float)))


def _tuple(v, t):
    return (
        isinstance(v, tuple)
        and len(v) == len(t.elements)
        and all(is_instance(x, e) for x, e in zip(v, t.elements))
    )


def _namedtuple(v, t):
    if t.cls is not None:
        if not isinstance(v, t.cls):
            return False
    elif not (isinstance(v, tuple) and getattr(type(v), "_fields", None) == t.names):
        return False
    return len(v) == len(t.elements) and all(is_instance(x, e) for x, e in zip(v, t.elements))


def _dict(v, t):
    if not isinstance(v, dict):
        return False
    items = sample(v.items())
    return all(is_instance(k, t.key) and is_instance(x, t.value) for k, x in items)


def _torch_class(names: tuple[str, ...]):
    def accept(v, t):
        return any(
            b.__name__ in names and (b.__module__ or "").startswith("torch")
            for b in type(v).__mro__
        )

    return accept


def _torch_builtin(v, t):
    return torch_class_name(type(v)) == t.torch_name


def _array(v, t):
    info = array_info(v)
    if info is None:
        return False
    kind, dtype, shape = info
    want = t.kind
    if want != "any" and (kind != want if isinstance(want, str) else not isinstance(v, want)):
        return False
    if t.dtypes is not None and not dtype_matches(t.dtypes, dtype):
        return False
    if t.shape is None:
        return True
    shape = tuple(d if type(d) is int else None for d in shape)
    return pattern_is_super(t.shape, shape) is not False


def _module(v, t):
    if not isinstance(v, t.cls):
        return False
    if t.nominal:
        return True
    for name, at in t.attributes:
        try:
            attr = getattr(v, name)
        except AttributeError:
            return False
        if not is_instance(attr, at):
            return False
    return True


def _members(v, t):
    names = t.members if type(t) is ProtocolType else tuple(t.methods)
    return all(hasattr(v, name) for name in names)


def _literal(v, t):
    cls = type(v)
    return any(c is cls and (x is v or x == v) for c, x in t.items)


def _typevar(v, t):
    upper = t.upper
    return upper is None or is_instance(v, upper)


def _typeddict(v, t):
    if not isinstance(v, dict) or not t.required <= v.keys():
        return False
    fields = dict(t.fields)
    for key, x in v.items():
        ft = fields.get(key)
        if ft is None or not is_instance(x, ft):
            return False
    return True


_REITERABLE = (abc.Collection, abc.MappingView)
_MAPPINGS = (abc.Mapping, abc.MutableMapping)


def _abc(v, t):
    if not isinstance(v, t.origin):
        return False
    if not t.args or all(a is ANY for a in t.args) or not isinstance(v, _REITERABLE):
        return True
    if t.origin in _MAPPINGS:
        key, value = t.args
        return all(is_instance(k, key) and is_instance(v[k], value) for k in sample(v))
    if t.origin is abc.ItemsView:
        key, value = t.args
        return all(is_instance(k, key) and is_instance(x, value) for k, x in sample(v))
    if t.origin in (abc.Container,):
        return True
    return _elements_ok(v, t.args[0])


def _typeof(v, t):
    if not isinstance(v, type):
        return False
    return _class_matches(v, t.element)


def _class_matches(cls: type, t: Any) -> bool:
    if t is ANY:
        return True
    if isinstance(t, UnionType):
        return any(_class_matches(cls, m) for m in t.members)
    if isinstance(t, TypeVarType):
        return t.upper is None or _class_matches(cls, t.upper)
    target = python_class(t)
    return target is not None and issubclass(cls, target)


ACCEPT = {
    AnyType: lambda v, t: True,
    NeverType: lambda v, t: False,
    NoneType: lambda v, t: v is None,
    IntType: lambda v, t: isinstance(v, int),
    FloatType: _float,
    ComplexType: _complex,
    BoolType: lambda v, t: isinstance(v, bool),
    StrType: lambda v, t: isinstance(v, str),
    NumberType: lambda v, t: isinstance(v, (int, float, complex)),
    TupleType: _tuple,
    VarTupleType: lambda v, t: isinstance(v, tuple) and _elements_ok(v, t.element),
    NamedTupleType: _namedtuple,
    ListType: lambda v, t: isinstance(v, list) and _elements_ok(v, t.element),
    DictType: _dict,
    UnionType: lambda v, t: any(is_instance(v, m) for m in t.members),
    OptionalType: lambda v, t: v is None or any(is_instance(v, m) for m in t.members),
    FutureType: _torch_class(("Future",)),
    RRefType: _torch_class(("RRef", "PyRRef")),
    ArrayType: _array,
    DeviceType: _torch_builtin,
    DTypeType: _torch_builtin,
    StreamType: _torch_builtin,
    GeneratorType: _torch_builtin,
    ClassType: lambda v, t: isinstance(v, t.cls),
    ModuleType: _module,
    EnumClassType: lambda v, t: isinstance(v, t.cls),
    InterfaceType: _members,
    ProtocolType: _members,
    LiteralType: _literal,
    CallableType: lambda v, t: callable(v),
    TypeVarType: _typevar,
    NewTypeType: lambda v, t: is_instance(v, t.supertype),
    AnnotatedType: lambda v, t: is_instance(v, t.inner),
    TypedDictType: _typeddict,
    SetType: lambda v, t: isinstance(v, set) and _elements_ok(v, t.element),
    FrozenSetType: lambda v, t: isinstance(v, frozenset) and _elements_ok(v, t.element),
    AbcType: _abc,
    TypeOfType: _typeof,
}
"""The boolean test of each type class: ``ACCEPT[type(t)](value, t)``."""


def _check_exhaustive() -> None:
    missing = sorted(c.__name__ for c in SUPER_RULES if c not in ACCEPT)
    if missing:
        raise AssertionError(f"is_instance has no test for {', '.join(missing)}")


_check_exhaustive()
hooks.accepts = is_instance
