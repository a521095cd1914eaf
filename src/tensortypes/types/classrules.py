"""The subtype rules of Python's own kinds (layer 3, ``types``).

Classes by ``issubclass``; module instance types by class and attribute schema;
enums, interfaces (method signatures), protocols (member names), callables
(parameters contravariant, result covariant), literals (value sets), type
variables (through their bound: tri-state), ``NewType`` (nominal, below its
base), ``TypedDict`` (keys, requiredness, invariant value types), the
``collections.abc`` generics (through ``views.abc_view``, with each
parameter's variance) and ``type[C]`` (covariant). Also the tri-state
combinators every rule uses. ``tensortypes.types.relations`` puts these rules
in its table; they recurse through ``hooks.is_subtype``.
"""

from __future__ import annotations

import enum
from typing import Any

from tensortypes.types.base import hooks
from tensortypes.types.containers import AbcType, TypeOfType
from tensortypes.types.extras import (
    CallableType,
    LiteralType,
    NewTypeType,
    ProtocolType,
    TypedDictType,
    TypeVarType,
)
from tensortypes.types.nominal import ClassType, EnumClassType, InterfaceType, ModuleType
from tensortypes.types.primitives import ANY, BOOL, INT, STR
from tensortypes.types.views import EMPTY, UNKNOWN_ARGS, abc_view, python_class

__all__ = [
    "both",
    "any_of",
    "all_of",
    "equivalent",
    "literal_base",
    "nominal_class",
    "PYTHON_RULES",
]


def _is_subtype(a: Any, b: Any) -> bool | None:
    return hooks.is_subtype(a, b)


def both(x: bool | None, y: bool | None) -> bool | None:
    """Tri-state "and": False dominates, then None.

    >>> both(True, None), both(None, False)
    (None, False)
    """
    if x is False or y is False:
        return False
    if x is None or y is None:
        return None
    return True


def any_of(answers) -> bool | None:
    """Tri-state "or" over an iterable: True dominates, then None.

    >>> any_of([False, None]), any_of([None, True])
    (None, True)
    """
    result: bool | None = False
    for a in answers:
        if a is True:
            return True
        if a is None:
            result = None
    return result


def all_of(answers) -> bool | None:
    """Tri-state "and" over an iterable: False dominates, then None.

    >>> all_of([True, None]), all_of([None, False]), all_of([])
    (None, False, True)
    """
    result: bool | None = True
    for a in answers:
        if a is False:
            return False
        if a is None:
            result = None
    return result


def equivalent(a: Any, b: Any) -> bool | None:
    """Whether ``a`` and ``b`` have the same values (the test of invariant parameters).

    >>> from tensortypes.types import INT, AnnotatedType
    >>> equivalent(INT, AnnotatedType(INT, ["doc"]))
    True
    """
    if a is b:
        return True
    return both(_is_subtype(a, b), _is_subtype(b, a))


def literal_base(a: LiteralType):
    """The type of the one value of a single-value literal.

    >>> literal_base(LiteralType([1])), literal_base(LiteralType([True]))
    (int, bool)
    """
    value = a.values[0]
    found = _LITERAL_BASES.get(type(value))
    if found is not None:
        return found
    if isinstance(value, enum.Enum):
        return EnumClassType(type(value))
    return ClassType(type(value))


_LITERAL_BASES = {bool: BOOL, int: INT, str: STR}


def nominal_class(a: Any) -> type | None:
    """The class of the values of a class-named type (ClassType, ModuleType, enum), else None.

    >>> nominal_class(ClassType(dict)), nominal_class(INT)
    (<class 'dict'>, None)
    """
    if isinstance(a, (ClassType, ModuleType, EnumClassType)):
        return a.cls
    return None


def _sup_class(a, b) -> bool | None:
    cls: Any = nominal_class(a)
    if cls is None:
        cls = python_class(a)
        if not isinstance(cls, type):
            return False
    return issubclass(cls, b.cls)


def _sup_module(a, b) -> bool | None:
    if type(a) is ModuleType:
        if not issubclass(a.cls, b.cls):
            return False
        mine = dict(a.attributes)
        answer: bool | None = True
        for name, t in b.attributes:
            if name not in mine:
                return False if name not in dict(a.unresolved) else None
            answer = both(answer, equivalent(mine[name], t))
        for name, _ in b.unresolved:
            if name not in mine and name not in dict(a.unresolved):
                return False
        return answer
    cls: Any = nominal_class(a)
    if cls is None or not issubclass(cls, b.cls):
        return False
    return None if (b.attributes or b.unresolved) else True


def _sup_enum(a, b) -> bool | None:
    if type(a) is LiteralType:
        return _is_subtype(literal_base(a), b)
    return type(a) is EnumClassType and issubclass(a.cls, b.cls)


def _methods_of(a) -> dict | None:
    if isinstance(a, (ClassType, InterfaceType, ModuleType)):
        return a.schema.methods
    return None


def _sup_interface(a, b) -> bool | None:
    theirs = _methods_of(a)
    if theirs is None:
        return False
    answer: bool | None = True
    for name, wanted in b.methods.items():
        have = theirs.get(name)
        if have is None:
            return False
        if not (have.checkable and wanted.checkable):
            answer = both(answer, None)
            continue
        answer = both(answer, _is_subtype(have.signature, wanted.signature))
    return answer


def _sup_protocol(a, b) -> bool | None:
    if type(a) is ProtocolType:
        return set(b.members) <= set(a.members)
    if type(a) is InterfaceType:
        return set(b.members) <= set(a.methods)
    cls = nominal_class(a) or python_class(a)
    if not isinstance(cls, type):
        return False
    schema = a.schema if isinstance(a, (ClassType, ModuleType)) else None
    for name in b.members:
        if hasattr(cls, name):
            continue
        if schema is not None and (name in schema.attributes or name in schema.unresolved):
            continue
        return False
    return True


def _sup_callable(a, b) -> bool | None:
    if type(a) is CallableType:
        result = _is_subtype(a.result, b.result)
        if b.params is None or a.params is None:
            return result
        if len(a.params) != len(b.params):
            return False
        return both(result, all_of(_is_subtype(y, x) for x, y in zip(a.params, b.params)))
    if isinstance(a, (ClassType, ModuleType)):
        call = a.schema.methods.get("__call__")
        if call is None:
            return False
        return _is_subtype(call.signature, b) if call.checkable else None
    if type(a) is TypeOfType:
        return None
    return False


def _sup_literal(a, b) -> bool | None:
    items = set(b.items)
    if type(a) is LiteralType:
        return set(a.items) <= items
    if a is BOOL:
        return {(bool, True), (bool, False)} <= items
    if type(a) is EnumClassType:
        return all((a.cls, m) in items for m in a.cls)
    return False


def _sup_typevar(a, b) -> bool | None:
    upper = b.upper
    if upper is not None and _is_subtype(a, upper) is False:
        return False
    return None


def _sup_newtype(a, b) -> bool | None:
    return False


def _sup_typeddict(a, b) -> bool | None:
    if type(a) is not TypedDictType:
        return False
    mine = dict(a.fields)
    answer: bool | None = True
    for name, t in b.fields:
        if name not in mine or ((name in a.required) != (name in b.required)):
            return False
        answer = both(answer, equivalent(mine[name], t))
    return answer


_VARIANCE_RULE = {
    "+": lambda x, y: _is_subtype(x, y),
    "-": lambda x, y: _is_subtype(y, x),
    "=": equivalent,
}


def _sup_abc(a, b) -> bool | None:
    view = abc_view(a, b.origin)
    if view is None:
        return False
    if view is EMPTY:
        return True
    if view is UNKNOWN_ARGS:  # the origin matches; the sub type's parameters are unknown
        return True if all(x is ANY for x in b.args) else None
    return all_of(_VARIANCE_RULE[v](x, y) for v, x, y in zip(b.variance, view, b.args))


def _sup_typeof(a, b) -> bool | None:
    if type(a) is TypeOfType:
        return _is_subtype(a.element, b.element)
    return False


PYTHON_RULES = {
    ClassType: _sup_class,
    ModuleType: _sup_module,
    EnumClassType: _sup_enum,
    InterfaceType: _sup_interface,
    LiteralType: _sup_literal,
    CallableType: _sup_callable,
    ProtocolType: _sup_protocol,
    TypeVarType: _sup_typevar,
    NewTypeType: _sup_newtype,
    TypedDictType: _sup_typeddict,
    AbcType: _sup_abc,
    TypeOfType: _sup_typeof,
}
"""The rules deciding ``is_subtype(a, b)`` for the Python kinds of ``b``."""
