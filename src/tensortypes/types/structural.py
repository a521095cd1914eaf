"""Structural types: tuples, lists, dicts, unions, futures and RRefs (layer 3, ``types``).

TorchScript's ``TSStructuralType``: ``Tuple``, ``NamedTuple``, ``List``, ``Dict``,
``Optional``, ``Future``, ``RRef``, plus ``Union`` and the homogeneous tuple
``Tuple[T, ...]`` that Python has and TorchScript does not.

``UnionType`` is canonical: nested unions are flattened, duplicates removed, a
member below another member absorbed (``Union[int, number]`` is ``number``),
``int | float | complex`` is ``number`` (as in TorchScript), anything with
``Any`` is ``Any``, and members are sorted the way TorchScript sorts them (by
kind, then by their TorchScript notation), so ``Union[int, str]`` and
``Union[str, int]`` are the same object. A union that collapses to one type is
that type. ``OptionalType(T)`` is the union of ``T`` and ``None``; the
two-member unions with ``None`` are instances of ``OptionalType``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from tensortypes.types.base import LatticeType, as_type, hooks, join_strs, qualified, rank_of, ts_of
from tensortypes.types.primitives import ANY, COMPLEX, FLOAT, INT, NEVER, NONE, NUMBER

__all__ = [
    "TupleType",
    "VarTupleType",
    "NamedTupleType",
    "ListType",
    "DictType",
    "UnionType",
    "OptionalType",
    "FutureType",
    "RRefType",
    "union_mergers",
]


class TupleType(LatticeType):
    """A fixed-length tuple, covariant in its elements.

    >>> from tensortypes.types import INT, STR
    >>> t = TupleType([INT, STR])
    >>> str(t), t.torchscript_str(), str(TupleType([]))
    ('Tuple[int, str]', '(int, str)', 'Tuple[()]')
    """

    __slots__ = ("elements",)
    elements: Any
    _fields = ("elements",)
    _kind = "tuple"

    @classmethod
    def _construct(cls, elements: Iterable[Any] = ()):
        if isinstance(elements, (str, bytes)) or not isinstance(elements, Iterable):
            raise TypeError(f"TupleType takes an iterable of element types, got {elements!r}")
        return cls._get((tuple(as_type(e, "a tuple element") for e in elements),))

    def _py_str(self) -> str:
        return f"Tuple[{join_strs(self.elements)}]" if self.elements else "Tuple[()]"

    def _ts_str(self) -> str:
        return f"({join_strs(self.elements, True)})"

    def contained(self):
        return self.elements


class VarTupleType(LatticeType):
    """``Tuple[T, ...]``: a tuple of any length whose elements are all ``T``.

    >>> from tensortypes.types import INT
    >>> str(VarTupleType(INT))
    'Tuple[int, ...]'
    """

    __slots__ = ("element",)
    element: Any
    _fields = ("element",)
    _kind = "tuple"

    @classmethod
    def _construct(cls, element: Any):
        return cls._get((as_type(element, "the element type of Tuple[T, ...]"),))

    def _py_str(self) -> str:
        return f"Tuple[{self.element}, ...]"

    def _ts_str(self) -> str:
        return f"Tuple[{ts_of(self.element)}, ...]"

    def contained(self):
        return (self.element,)


class NamedTupleType(LatticeType):
    """A named tuple: field names and types, and the Python class when there is one.

    Below the ``TupleType`` of its field types (as in TorchScript). Built from a class by
    ``ann_to_type``; built by hand from a name and ``(field, type)`` pairs.

    >>> from tensortypes.types import INT, STR
    >>> p = NamedTupleType("Pair", [("a", INT), ("b", STR)])
    >>> str(p), p.torchscript_str(), p.names
    ('Pair', 'NamedTuple(a : int, b : str)', ('a', 'b'))
    """

    __slots__ = ("name", "names", "elements", "cls")
    cls: Any
    elements: Any
    name: Any
    names: Any
    _fields = ("name", "names", "elements", "cls")
    _kind = "tuple"

    @classmethod
    def _construct(cls, name: Any, fields: Iterable[tuple[str, Any]], py_class: type | None = None):
        if isinstance(name, type):
            py_class, name = name, qualified(name)
        if not isinstance(name, str) or not name:
            raise TypeError(f"NamedTupleType needs a name (or the class), got {name!r}")
        if py_class is not None and not (
            isinstance(py_class, type) and issubclass(py_class, tuple)
        ):
            raise TypeError(f"NamedTupleType: {py_class!r} is not a tuple class")
        names, elements = [], []
        for item in fields:
            try:
                field, ftype = item
            except (TypeError, ValueError):
                raise TypeError(
                    f"NamedTupleType fields are (name, type) pairs, got {item!r}"
                ) from None
            if not isinstance(field, str) or not field.isidentifier():
                raise TypeError(f"NamedTupleType field name must be an identifier, got {field!r}")
            if field in names:
                raise TypeError(f"NamedTupleType {name}: duplicate field {field!r}")
            names.append(field)
            elements.append(as_type(ftype, f"the type of field {field!r}"))
        return cls._get((name, tuple(names), tuple(elements), py_class))

    def _py_str(self) -> str:
        return self.name

    def _ts_str(self) -> str:
        fields = ", ".join(f"{n} : {ts_of(t)}" for n, t in zip(self.names, self.elements))
        return f"NamedTuple({fields})"

    def field(self, name: str) -> LatticeType:
        """The type of field ``name``; AttributeError naming the tuple otherwise."""
        try:
            return self.elements[self.names.index(name)]
        except ValueError:
            raise AttributeError(
                f"NamedTuple {self.name} has no field {name!r} (fields: {', '.join(self.names)})"
            ) from None

    def contained(self):
        return self.elements


class _OneParam(LatticeType):
    """Abstract base of the containers with one element type."""

    __slots__ = ("element",)
    element: Any
    _fields = ("element",)
    _what = "element"
    # The printed name: ``Label[T]`` in both notations unless a subclass says otherwise.
    _label: ClassVar[str] = ""

    @classmethod
    def _construct(cls, element: Any):
        return cls._get((as_type(element, f"the {cls._what} type of {cls.__name__}"),))

    def _py_str(self) -> str:
        return f"{self._label}[{self.element}]"

    def _ts_str(self) -> str:
        return f"{self._label}[{ts_of(self.element)}]"

    def contained(self):
        return (self.element,)


class ListType(_OneParam):
    """``List[T]``, invariant in ``T`` (TorchScript's rule: lists are mutable).

    >>> from tensortypes.types import INT
    >>> str(ListType(INT)), ListType(INT).torchscript_str()
    ('List[int]', 'int[]')
    """

    __slots__ = ()
    _kind = "list"
    _label = "List"

    def _ts_str(self) -> str:
        return f"{ts_of(self.element)}[]"


class FutureType(_OneParam):
    """``Future[T]`` (``torch.jit.Future``), covariant in ``T``.

    >>> from tensortypes.types import INT
    >>> str(FutureType(INT))
    'Future[int]'
    """

    __slots__ = ()
    _kind = "future"
    _label = "Future"

    def _ts_union_member_str(self) -> str:
        return f"Future({ts_of(self.element)})"


class RRefType(_OneParam):
    """``RRef[T]`` (a remote reference of ``torch.distributed.rpc``), invariant in ``T``.

    >>> from tensortypes.types import INT
    >>> str(RRefType(INT))
    'RRef[int]'
    """

    __slots__ = ()
    _kind = "rref"
    _label = "RRef"

    def _ts_union_member_str(self) -> str:
        return f"RRef({ts_of(self.element)})"


class DictType(LatticeType):
    """``Dict[K, V]``, invariant in both (TorchScript's rule).

    >>> from tensortypes.types import STR, INT
    >>> str(DictType(STR, INT)), DictType(STR, INT).torchscript_str()
    ('Dict[str, int]', 'Dict(str, int)')
    """

    __slots__ = ("key", "value")
    key: Any
    value: Any
    _fields = ("key", "value")
    _kind = "dict"

    @classmethod
    def _construct(cls, key: Any, value: Any):
        return cls._get(
            (as_type(key, "the key type of DictType"), as_type(value, "the value type of DictType"))
        )

    def _py_str(self) -> str:
        return f"Dict[{self.key}, {self.value}]"

    def _ts_str(self) -> str:
        return f"Dict({ts_of(self.key)}, {ts_of(self.value)})"

    def contained(self):
        return (self.key, self.value)


union_mergers: list[Callable[[list], list]] = []
"""Canonicalisations of union members registered by later kinds (arrays merge
their dtype sets, literals their values). Each takes and returns a list."""


def _sort_key(t: Any) -> tuple[int, str]:
    return (rank_of(t), ts_of(t))


def _absorb(members: list) -> list:
    # Keep the first of equivalent members; drop any member below a kept one.
    is_subtype = hooks.is_subtype
    kept: list = []
    for m in members:
        if any(is_subtype(m, k) is True for k in kept):
            continue
        kept = [k for k in kept if is_subtype(k, m) is not True]
        kept.append(m)
    return kept


class UnionType(LatticeType):
    """``Union[...]``: flattened, deduplicated, order-independent, canonical.

    >>> from tensortypes.types import INT, STR, NUMBER, NONE
    >>> UnionType([STR, INT]) is UnionType([INT, STR])
    True
    >>> UnionType([INT, NUMBER]) is NUMBER, str(UnionType([INT, NONE, STR]))
    (True, 'Union[int, NoneType, str]')
    """

    __slots__ = ("members",)
    members: Any
    _fields = ("members",)
    _kind = "union"

    @classmethod
    def _construct(cls, members: Iterable[Any]):
        if isinstance(members, LatticeType) or not isinstance(members, Iterable):
            raise TypeError(f"UnionType takes an iterable of member types, got {members!r}")
        flat: list = []
        never = False
        for m in members:
            m = as_type(m, "a union member")
            never = never or m is NEVER
            for part in m.members if isinstance(m, UnionType) else (m,):
                if part is ANY:
                    return ANY
                if part is not NEVER and part not in flat:  # Never adds no value
                    flat.append(part)
        if not flat:
            if never:
                return NEVER
            raise TypeError("a Union needs at least one member type")
        for merge in union_mergers:
            flat = merge(flat)
        if INT in flat and FLOAT in flat and COMPLEX in flat:
            flat = [m for m in flat if m is not INT and m is not FLOAT and m is not COMPLEX]
            flat.append(NUMBER)
        flat.sort(key=_sort_key)
        flat = _absorb(flat)
        if len(flat) == 1:
            return flat[0]
        members_ = tuple(flat)
        if len(members_) == 2 and NONE in members_:
            return OptionalType._get((members_,))
        return UnionType._get((members_,))

    @property
    def can_hold_none(self) -> bool:
        """True when ``None`` is a member."""
        return NONE in self.members

    def without_none(self) -> LatticeType:
        """The union of the members other than ``None``.

        >>> from tensortypes.types import INT, OptionalType
        >>> OptionalType(INT).without_none()
        int
        """
        rest = [m for m in self.members if m is not NONE]
        return rest[0] if len(rest) == 1 else UnionType(rest)

    def _py_str(self) -> str:
        if len(self.members) == 2 and NONE in self.members:
            return f"Optional[{self.without_none()}]"
        return f"Union[{join_strs(self.members)}]"

    def _ts_str(self) -> str:
        if len(self.members) == 2 and NONE in self.members:
            return f"{ts_of(self.without_none())}?"
        parts = ", ".join(getattr(m, "_ts_union_member_str", m.__str__)() for m in self.members)
        return f"Union({parts})"

    def contained(self):
        return self.members


class OptionalType(UnionType):
    """``Optional[T]``: the union of ``T`` and ``None``.

    ``OptionalType(T)`` of a ``T`` that already holds ``None`` is ``T``; of a
    union of several types it is the bigger union (printed ``Union[...]``).

    >>> from tensortypes.types import INT
    >>> str(OptionalType(INT)), OptionalType(OptionalType(INT)) is OptionalType(INT)
    ('Optional[int]', True)
    """

    __slots__ = ()

    @classmethod
    def _construct(cls, element: Any):
        return UnionType((as_type(element, "the element type of OptionalType"), NONE))

    @property
    def element(self) -> LatticeType:
        """The type besides ``None``."""
        return self.members[0] if self.members[1] is NONE else self.members[1]
