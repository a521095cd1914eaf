"""Shared machinery of the type language: interning, printing, hooks (layer 3, ``types``).

Every type of the language is an instance of a subclass of ``LatticeType``,
itself a ``graph.Type``. Types are immutable values and interned: building the
same type twice returns the same object, so equality and hashing are the
built-in identity ones (C speed) and ``is_subtype(a, a)`` is an identity check.

Each subclass declares the names of its fields (``_fields``) and a
``_construct`` classmethod that validates and canonicalises the constructor's
arguments and ends in ``cls._get(fields)``, the canonical table lookup. In
front of that sits a second table keyed by the raw arguments, so repeating a
construction such as ``ListType(INT)`` is one dict lookup.

Printing comes in two notations, each computed once per type: ``str(t)`` is
Python's (``Optional[int]``, ``List[Tensor]``, ``Dict[str, Tensor]``) and
``t.torchscript_str()`` TorchScript's (``int?``, ``Tensor[]``, ``Dict(str,
Tensor)``), both spelled as ``torch._C`` types spell them where TorchScript has
the type.

The relations, the value checks and the class-schema reader live in later
modules of this package (they need every type class); they install themselves
in ``hooks`` when imported, which ``tensortypes.types`` always does, so the
methods here (``is_super``, ``filter``) reach them without an import cycle.
"""

from __future__ import annotations

import re
from abc import ABCMeta
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from tensortypes.errors import raised_by_value
from tensortypes.graph.type import Type

__all__ = [
    "LatticeType",
    "SingletonLatticeType",
    "hooks",
    "RANK",
    "as_type",
    "join_strs",
    "qualified",
    "rank_of",
    "ts_of",
]


class _Hooks:
    """Entry points installed by ``relations``, ``check`` and ``schema``."""

    __slots__ = ("is_subtype", "check_value", "accepts", "class_schema", "instance_schema")
    accepts: Any
    check_value: Any
    class_schema: Any
    instance_schema: Any
    is_subtype: Any

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, _missing(name))


def _missing(name: str):
    def fail(*args: Any, **kwargs: Any):
        raise RuntimeError(
            f"tensortypes.types: {name} is not installed; "
            "import tensortypes.types to load the type language"
        )

    return fail


hooks = _Hooks()

# The order TorchScript sorts union members by (its TypeKind enumeration),
# extended with the kinds it does not have. ``number`` goes last, where
# TorchScript puts the number it forms from ``int``, ``float`` and ``complex``.
RANK = {
    "any": 0,
    "enum": 1,
    "array": 3,
    "tuple": 5,
    "list": 6,
    "dict": 7,
    "float": 9,
    "complex": 10,
    "future": 11,
    "rref": 13,
    "int": 14,
    "none": 15,
    "str": 16,
    "generator": 17,
    "bool": 19,
    "typevar": 21,
    "device": 22,
    "stream": 23,
    "callable": 24,
    "class": 25,
    "module": 26,
    "interface": 28,
    "dtype": 30,
    "literal": 40,
    "set": 41,
    "frozenset": 42,
    "abc": 43,
    "typeof": 44,
    "protocol": 45,
    "newtype": 46,
    "annotated": 47,
    "typeddict": 48,
    "never": 97,
    "union": 98,
    "number": 99,
}

_RAW: dict[Any, LatticeType] = {}
_CANON: dict[tuple, LatticeType] = {}
_RAW_LIMIT = 1 << 16


class _Interning(ABCMeta):
    """Metaclass: route construction through the raw-argument and canonical tables."""

    # What every class of this metaclass defines (``LatticeType`` and its subclasses).
    _raw_cacheable: bool
    _construct: Callable[..., Any]
    _raw_key: Callable[[tuple], Any]

    def __call__(cls, *args: Any, **kwargs: Any):
        if kwargs or not cls._raw_cacheable:
            return cls._construct(*args, **kwargs)
        key = cls._raw_key(args)
        try:
            return _RAW[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable argument (a list): canonicalise first
            return cls._construct(*args)
        inst = cls._construct(*args)
        if len(_RAW) < _RAW_LIMIT:
            _RAW[key] = inst
        return inst


class LatticeType(Type, metaclass=_Interning):
    """Abstract base of the type language: an interned, immutable ``graph.Type``.

    ``filter`` is ``check_value`` (Python's run-time meaning; raises
    ``TypeCheckError``), ``is_super`` is the subtype relation, tri-state.

    >>> from tensortypes.types import ListType, INT
    >>> ListType(INT) is ListType(INT), str(ListType(INT)), ListType(INT).torchscript_str()
    (True, 'List[int]', 'int[]')
    """

    __slots__ = ("_py", "_ts")
    _py: Any
    _ts: Any

    _fields: ClassVar[tuple[str, ...]] = ()
    _kind: ClassVar[str] = ""
    _rank: ClassVar[int] = 0
    # Subclasses whose arguments can be equal without meaning the same type
    # (``Literal[1]`` and ``Literal[True]``: ``1 == True``) turn the raw table off.
    _raw_cacheable: ClassVar[bool] = True

    if TYPE_CHECKING:
        # Construction goes through ``_Interning.__call__`` into each subclass's
        # ``_construct`` (which checks the arguments): say so to a static checker,
        # which would otherwise read ``object.__init__``'s signature.
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._kind:
            cls._rank = RANK[cls._kind]

    # -- construction -------------------------------------------------------------
    @classmethod
    def _raw_key(cls, args: tuple) -> Any:
        """The raw-table key of these constructor arguments. Arguments that compare
        equal must mean the same type; a subclass whose arguments may hold plain
        values (``False == 0``) adds what tells them apart."""
        return (cls, args)

    @classmethod
    def _construct(cls, *args: Any, **kwargs: Any):
        raise TypeError(f"{cls.__name__} cannot be instantiated")

    @classmethod
    def _get(cls, fields: tuple):
        """The one instance of ``cls`` with these canonical ``fields``."""
        key = (cls, fields)
        inst = _CANON.get(key)
        if inst is None:
            inst = object.__new__(cls)
            set_ = object.__setattr__
            for name, value in zip(cls._fields, fields):
                set_(inst, name, value)
            set_(inst, "_py", None)
            set_(inst, "_ts", None)
            inst._post_init()
            inst = _CANON.setdefault(key, inst)
        return inst

    def _post_init(self) -> None:
        """Fill derived slots after the fields are set (subclasses override)."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable (cannot delete {name!r})")

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __reduce__(self):
        return (_rebuild, (type(self), tuple(getattr(self, f) for f in self._fields)))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        return self

    # -- printing -----------------------------------------------------------------
    def __str__(self) -> str:
        text = self._py
        if text is None:
            text = self._py_str()
            object.__setattr__(self, "_py", text)
        return text

    __repr__ = __str__

    def message_str(self) -> str:
        """This type in an error message: its Python spelling, with every array type
        in it written as ``core.words`` writes an array annotation.

        >>> from tensortypes.types import ArrayType, OptionalType
        >>> OptionalType(ArrayType("numpy", "float32", (2, 3))).message_str()
        "Optional[Float32[np.ndarray, '2 3']]"
        """
        text = str(self)
        arrays: dict = {}
        _array_members(self, arrays, 0)
        for array in sorted(arrays, key=lambda t: -len(str(t))):
            if str(array) == "Tensor":  # a bare torch.Tensor: the word alone, not in a name
                text = _BARE_TENSOR.sub("torch.Tensor", text)
            else:
                text = text.replace(str(array), array.message_str())
        return text

    def torchscript_str(self) -> str:
        """This type in TorchScript's notation (``int?``, ``Tensor[]``, ``(int, str)``).

        >>> from tensortypes.types import OptionalType, INT
        >>> OptionalType(INT).torchscript_str()
        'int?'
        """
        text = self._ts
        if text is None:
            text = self._ts_str()
            object.__setattr__(self, "_ts", text)
        return text

    def _py_str(self) -> str:
        raise NotImplementedError

    def _ts_str(self) -> str:
        return self._py_str()

    def _ts_union_member_str(self) -> str:
        """How TorchScript prints this type as a member of a ``Union(...)``."""
        return self.torchscript_str()

    # -- graph.Type contract ------------------------------------------------------------
    def filter(self, data, strict=False, allow_downcast=None):
        """Return ``data`` if it is a value of this type, else raise ``TypeCheckError``.

        >>> from tensortypes.types import INT
        >>> INT.filter(3)
        3
        """
        return hooks.check_value(data, self)

    def is_valid_value(self, data, strict=True) -> bool:
        """True iff ``data`` is a value of this type (``check_value`` would pass)."""
        try:
            return hooks.accepts(data, self)
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if raised_by_value(error):
                return False
            raise

    def values_eq(self, a, b) -> bool:
        """``a == b`` as a bool; identity where ``==`` gives no single truth value."""
        if a is b:
            return True
        try:
            return bool(a == b)
        except Exception:  # noqa: BLE001 (arrays and objects with odd __eq__/__bool__)
            return False

    def in_same_class(self, otype) -> bool:
        """Interned types: the same class of types means the same type."""
        return self is otype

    def is_super(self, otype) -> bool | None:
        """``is_subtype(otype, self)``: True, False, or None when it cannot be told.

        >>> from tensortypes.types import OptionalType, INT, NONE
        >>> OptionalType(INT).is_super(NONE)
        True
        """
        return hooks.is_subtype(otype, self)

    def clone(self, *args, **kwargs):
        """Types are values: a clone with no arguments is the type itself."""
        if not args and not kwargs:
            return self
        return type(self)(*args, **kwargs)

    # -- structure ------------------------------------------------------------------
    def contained(self) -> tuple[LatticeType, ...]:
        """The types this type is built from (``List[int]`` -> ``(int,)``)."""
        return ()


_BARE_TENSOR = re.compile(r"(?<![\w.])Tensor(?![\w\[])")


def _array_members(t: LatticeType, found: dict, depth: int) -> None:
    """The array types ``t`` is built from (``message_str`` rewrites their text)."""
    if depth > 50:
        return
    for inner in t.contained():
        if type(inner).message_str is not LatticeType.message_str:
            found[inner] = None
        else:
            _array_members(inner, found, depth + 1)


def _rebuild(cls: Any, fields: tuple) -> LatticeType:
    return cls._get(fields)


class SingletonLatticeType(LatticeType):
    """Abstract base of the types without parameters (``int``, ``Any``, ``Device``).

    >>> from tensortypes.types import IntType, INT
    >>> IntType() is INT
    True
    """

    __slots__ = ()
    _name: ClassVar[str] = ""
    _ts_name: ClassVar[str] = ""

    @classmethod
    def _construct(cls):
        if cls._name == "":
            raise TypeError(f"{cls.__name__} is abstract")
        return cls._get(())

    def __reduce__(self):
        return (type(self), ())

    def _py_str(self) -> str:
        return self._name

    def _ts_str(self) -> str:
        return self._ts_name or self._name


def qualified(cls: type) -> str:
    """The name a class is printed under: its ``__qualname__`` (``Outer.Inner``).

    >>> qualified(dict)
    'dict'
    """
    return str(getattr(cls, "__qualname__", None) or getattr(cls, "__name__", repr(cls)))


def ts_of(t: Any) -> str:
    """TorchScript notation of any Type (a foreign ``graph.Type`` prints its ``str``).

    >>> from tensortypes.types import OptionalType, INT
    >>> ts_of(OptionalType(INT))
    'int?'
    """
    method = getattr(t, "torchscript_str", None)
    return method() if method is not None else str(t)


def rank_of(t: Any) -> int:
    """Union-ordering rank of any Type; a foreign array type ranks with arrays.

    >>> from tensortypes.types import INT, STR
    >>> rank_of(INT) < rank_of(STR)
    True
    """
    rank = getattr(t, "_rank", None)
    if rank is None:
        rank = RANK["array"] if hasattr(t, "dtype") and hasattr(t, "shape") else 50
    return rank


def join_strs(types, torchscript: bool = False) -> str:
    """``", "``-joined notation of ``types``, Python's or (``torchscript``) TorchScript's.

    >>> from tensortypes.types import ListType, INT
    >>> join_strs([INT, ListType(INT)]), join_strs([INT, ListType(INT)], torchscript=True)
    ('int, List[int]', 'int, int[]')
    """
    if torchscript:
        return ", ".join(ts_of(t) for t in types)
    return ", ".join(str(t) for t in types)


def as_type(value: Any, what: str) -> Type:
    """``value`` if it is a type (any ``graph.Type``), else a TypeError naming ``what``.

    >>> from tensortypes.types import INT
    >>> as_type(INT, "an element") is INT
    True
    """
    if isinstance(value, Type):
        return value
    raise TypeError(
        f"{what} must be a type (e.g. INT, ListType(INT)); got {value!r}. "
        "Use ann_to_type() to convert an annotation such as List[int]."
    )
