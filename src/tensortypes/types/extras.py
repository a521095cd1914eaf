"""Types beyond TorchScript's language that the runtime checker needs (layer 3, ``types``).

``LiteralType``, ``CallableType``, ``ProtocolType`` (runtime-checkable or
not), ``TypeVarType`` (bound, constraints, variance), ``NewTypeType``,
``AnnotatedType`` (its metadata kept) and ``TypedDictType``. Each is a lattice
type like the others: interned, printed in both notations (TorchScript has none
of them, so its notation is Python's), related by ``is_subtype`` and checked by
``check_value``. The containers of ``collections.abc``, sets and ``type[...]``
are in ``tensortypes.types.containers``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

from tensortypes.types.base import LatticeType, as_type, hooks, join_strs, qualified, ts_of
from tensortypes.types.nominal import EnumClassType
from tensortypes.types.primitives import BOOL, NONE
from tensortypes.types.structural import UnionType, union_mergers

__all__ = [
    "LiteralType",
    "CallableType",
    "ProtocolType",
    "TypeVarType",
    "NewTypeType",
    "AnnotatedType",
    "TypedDictType",
    "protocol_members",
]

_LITERAL_CLASSES = (int, str, bytes, bool)


def _literal_key(value: Any) -> tuple[type, Any]:
    if isinstance(value, enum.Enum) or type(value) in _LITERAL_CLASSES:
        return (type(value), value)
    raise TypeError(
        f"a Literal value is an int, str, bytes, bool, None or an enum member; got {value!r}"
    )


def _literal_order(item: tuple[type, Any]) -> tuple[str, str]:
    return (item[0].__name__, repr(item[1]))


class LiteralType(LatticeType):
    """``Literal[v, ...]``: exactly these values (``1`` and ``True`` stay distinct).

    ``Literal[None]`` is ``None``: a ``None`` among the values makes the union
    of the others and ``NoneType``; likewise ``Literal[True, False]`` is
    ``bool`` and a literal listing every member of an enum is the enum.

    >>> str(LiteralType([2, "a", 1])), LiteralType([1]) is LiteralType([True])
    ("Literal[1, 2, 'a']", False)
    """

    __slots__ = ("items",)
    items: Any
    _fields = ("items",)
    _kind = "literal"
    _raw_cacheable = False

    @classmethod
    def _construct(cls, values: Iterable[Any]):
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise TypeError(f"LiteralType takes an iterable of values, got {values!r}")
        values = list(values)
        items = {_literal_key(v) for v in values if v is not None}
        if not items and not any(v is None for v in values):
            raise TypeError("Literal needs at least one value")
        # Literals that list every value of a type are that type (Literal[True,
        # False] is bool), so that equivalent types are one object.
        whole: list = [NONE] if any(v is None for v in values) else []
        if {(bool, True), (bool, False)} <= items:
            items -= {(bool, True), (bool, False)}
            whole.append(BOOL)
        for enum_cls in {c for c, _ in items if issubclass(c, enum.Enum)}:
            members = {(enum_cls, m) for m in enum_cls}
            if members <= items:
                items -= members
                whole.append(EnumClassType(enum_cls))
        if items:
            whole.append(cls._get((tuple(sorted(items, key=_literal_order)),)))
        return whole[0] if len(whole) == 1 else UnionType(whole)

    @property
    def values(self) -> tuple:
        """The literal values, in canonical order."""
        return tuple(v for _, v in self.items)

    def _py_str(self) -> str:
        parts = []
        for _, v in self.items:
            parts.append(f"{qualified(type(v))}.{v.name}" if isinstance(v, enum.Enum) else repr(v))
        return f"Literal[{', '.join(parts)}]"


def _merge_literals(members: list) -> list:
    """One literal member for all, without the values another member already holds
    (``Union[bool, Literal[True, 1]]`` is ``Union[bool, Literal[1]]``, so that
    equivalent unions are one object)."""
    literals = [m for m in members if type(m) is LiteralType]
    if not literals:
        return members
    out = [m for m in members if type(m) is not LiteralType]
    values = [v for lit in literals for v in lit.values]
    if out:
        is_subtype = hooks.is_subtype
        values = [
            v for v in values if not any(is_subtype(LiteralType([v]), k) is True for k in out)
        ]
    if len(literals) == 1 and len(values) == len(literals[0].values):
        return members
    if values:
        out.append(LiteralType(values))
    return out


union_mergers.append(_merge_literals)


class CallableType(LatticeType):
    """``Callable[[A, B], R]`` (``params`` a tuple) or ``Callable[..., R]`` (``params`` None).

    >>> from tensortypes.types import INT, STR
    >>> str(CallableType([INT], STR)), str(CallableType(None, INT))
    ('Callable[[int], str]', 'Callable[..., int]')
    """

    __slots__ = ("params", "result")
    params: Any
    result: Any
    _fields = ("params", "result")
    _kind = "callable"

    @classmethod
    def _construct(cls, params: Any, result: Any):
        if params is not None and params is not Ellipsis:
            if isinstance(params, (str, bytes)) or not isinstance(params, Iterable):
                raise TypeError(
                    f"CallableType params is a list of types or None (for ...), got {params!r}"
                )
            params = tuple(as_type(p, "a Callable parameter") for p in params)
        else:
            params = None
        return cls._get((params, as_type(result, "the Callable result")))

    def _py_str(self) -> str:
        params = "..." if self.params is None else f"[{join_strs(self.params)}]"
        return f"Callable[{params}, {self.result}]"

    def _ts_str(self) -> str:
        params = "..." if self.params is None else f"[{join_strs(self.params, True)}]"
        return f"Callable[{params}, {ts_of(self.result)}]"

    def contained(self):
        return (self.params or ()) + (self.result,)


_PROTOCOL_SKIP = frozenset(
    {
        "__abstractmethods__",
        "__annotations__",
        "__dict__",
        "__doc__",
        "__init__",
        "__module__",
        "__new__",
        "__slots__",
        "__subclasshook__",
        "__weakref__",
        "__class_getitem__",
        "__parameters__",
        "__orig_bases__",
        "__orig_class__",
        "__protocol_attrs__",
        "__non_callable_proto_members__",
        "__type_params__",
        "__qualname__",
        "__init_subclass__",
        "__static_attributes__",
        "__firstlineno__",
        "__match_args__",
        "__getstate__",
        "_is_protocol",
        "_is_runtime_protocol",
        "__callable_proto_members_only__",
    }
)


def protocol_members(cls: type) -> tuple[str, ...]:
    """The member names a protocol class requires (what ``isinstance`` checks).

    >>> from typing import Protocol
    >>> class Closer(Protocol):
    ...     def close(self) -> None: ...
    >>> protocol_members(Closer)
    ('close',)
    """
    names: set[str] = set()
    for base in cls.__mro__[:-1]:
        if base.__name__ in ("Protocol", "Generic") and base.__module__ == "typing":
            continue
        for name in list(base.__dict__) + list(base.__dict__.get("__annotations__", {})):
            if not name.startswith("_abc_") and name not in _PROTOCOL_SKIP:
                names.add(name)
    return tuple(sorted(names))


class ProtocolType(LatticeType):
    """A ``typing.Protocol`` class: structural, satisfied by any class with its members.

    ``runtime_checkable`` records whether ``isinstance`` works on it; the check
    of values does the same member test either way.

    >>> from typing import Protocol
    >>> class Closer(Protocol):
    ...     def close(self) -> None: ...
    >>> p = ProtocolType(Closer)
    >>> str(p), p.members, p.runtime_checkable
    ('Closer', ('close',), False)
    """

    __slots__ = ("cls", "members", "runtime_checkable")
    cls: Any
    members: Any
    _fields = ("cls",)
    _kind = "protocol"

    @classmethod
    def _construct(cls, py_class: Any):
        if not (isinstance(py_class, type) and getattr(py_class, "_is_protocol", False)):
            raise TypeError(f"ProtocolType takes a typing.Protocol class, got {py_class!r}")
        return cls._get((py_class,))

    def _post_init(self) -> None:
        self._set("members", protocol_members(self.cls))
        self._set("runtime_checkable", bool(getattr(self.cls, "_is_runtime_protocol", False)))

    def _py_str(self) -> str:
        return qualified(self.cls)


_VARIANCES = ("invariant", "covariant", "contravariant")


class TypeVarType(LatticeType):
    """A type variable: a name, an upper ``bound`` or ``constraints``, a variance.

    Each ``typing.TypeVar`` object is its own type (``typevar`` keeps it), so
    two variables that happen to share a name stay distinct.

    >>> from tensortypes.types import INT
    >>> t = TypeVarType("T", bound=INT)
    >>> str(t), str(t.bound)
    ('T', 'int')
    """

    __slots__ = ("name", "bound", "constraints", "variance", "typevar")
    bound: Any
    constraints: Any
    name: Any
    _fields = ("name", "bound", "constraints", "variance", "typevar")
    _kind = "typevar"

    @classmethod
    def _construct(
        cls,
        name: str,
        bound: Any = None,
        constraints: Any = (),
        variance: str = "invariant",
        typevar: Any = None,
    ):
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"TypeVarType name must be an identifier, got {name!r}")
        if bound is not None:
            bound = as_type(bound, "a TypeVar bound")
        constraints = tuple(as_type(c, "a TypeVar constraint") for c in constraints)
        if bound is not None and constraints:
            raise TypeError(f"TypeVar {name}: give a bound or constraints, not both")
        if len(constraints) == 1:
            raise TypeError(f"TypeVar {name}: a single constraint is not allowed")
        if variance not in _VARIANCES:
            raise TypeError(f"TypeVar variance is one of {_VARIANCES}, got {variance!r}")
        return cls._get((name, bound, constraints, variance, typevar))

    @property
    def upper(self) -> LatticeType | None:
        """The tightest known supertype of the variable's values (None: unbounded)."""
        if self.bound is not None:
            return self.bound
        return UnionType(self.constraints) if self.constraints else None

    def _py_str(self) -> str:
        return self.name


class NewTypeType(LatticeType):
    """``typing.NewType(name, T)``: a distinct type below ``T``; values are ``T``'s.

    >>> from tensortypes.types import INT
    >>> str(NewTypeType("UserId", INT))
    'UserId'
    """

    __slots__ = ("name", "supertype", "newtype")
    name: Any
    supertype: Any
    newtype: Any
    _fields = ("name", "supertype", "newtype")
    _kind = "newtype"

    @classmethod
    def _construct(cls, name: str, supertype: Any, newtype: Any = None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"NewTypeType needs a name, got {name!r}")
        return cls._get((name, as_type(supertype, "the NewType supertype"), newtype))

    def _py_str(self) -> str:
        return self.name


class _Identity:
    """Wraps an unhashable metadata object so that it keys by identity."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Identity) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


class AnnotatedType(LatticeType):
    """``Annotated[T, *metadata]``: ``T`` for every relation and check; the metadata kept.

    >>> from tensortypes.types import INT
    >>> a = AnnotatedType(INT, ("positive",))
    >>> str(a), a.metadata
    ("Annotated[int, 'positive']", ('positive',))
    """

    __slots__ = ("inner", "_metadata")
    _metadata: Any
    inner: Any
    _fields = ("inner", "_metadata")
    _kind = "annotated"

    @classmethod
    def _construct(cls, inner: Any, metadata: Iterable[Any]):
        inner = as_type(inner, "the annotated type")
        keyed = []
        for item in metadata:
            try:
                hash(item)
                keyed.append(item)
            except TypeError:
                keyed.append(_Identity(item))
        if not keyed:
            raise TypeError("Annotated needs at least one metadata element")
        return cls._get((inner, tuple(keyed)))

    @property
    def metadata(self) -> tuple:
        """The metadata objects, as given."""
        return tuple(m.obj if isinstance(m, _Identity) else m for m in self._metadata)

    def _py_str(self) -> str:
        return f"Annotated[{self.inner}, {', '.join(repr(m) for m in self.metadata)}]"

    def _ts_str(self) -> str:
        return f"Annotated[{ts_of(self.inner)}, {', '.join(repr(m) for m in self.metadata)}]"

    def contained(self):
        return (self.inner,)


class TypedDictType(LatticeType):
    """A ``TypedDict``: a dict with these str keys, ``required`` ones always present.

    >>> from tensortypes.types import INT, STR
    >>> t = TypedDictType("Movie", [("name", STR), ("year", INT)], required=["name"])
    >>> str(t), dict(t.fields)["year"], sorted(t.required)
    ('Movie', int, ['name'])
    """

    __slots__ = ("name", "fields", "required", "cls")
    fields: Any
    name: Any
    required: Any
    _fields = ("name", "fields", "required", "cls")
    _kind = "typeddict"

    @classmethod
    def _construct(cls, name: Any, fields: Any, required: Any = None, py_class: Any = None):
        if isinstance(name, type):
            py_class, name = name, qualified(name)
        if not isinstance(name, str) or not name:
            raise TypeError(f"TypedDictType needs a name (or the class), got {name!r}")
        items = dict(fields.items() if hasattr(fields, "items") else fields)
        for key, t in items.items():
            if not isinstance(key, str):
                raise TypeError(f"TypedDict {name}: keys are str, got {key!r}")
            items[key] = as_type(t, f"the type of key {key!r}")
        keys = frozenset(items) if required is None else frozenset(required)
        if not keys <= set(items):
            raise TypeError(
                f"TypedDict {name}: required keys {sorted(keys - set(items))} have no type"
            )
        return cls._get((name, tuple(sorted(items.items())), keys, py_class))

    def _py_str(self) -> str:
        return self.name

    def contained(self):
        return tuple(t for _, t in self.fields)
