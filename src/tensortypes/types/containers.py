"""Sets, the ``collections.abc`` containers and ``type[...]`` (layer 3, ``types``).

Python's container protocols, which TorchScript does not have and the runtime
checker needs: ``SetType``/``FrozenSetType``, one ``AbcType`` for every
generic class of ``collections.abc`` (``Sequence[T]``, ``Mapping[K, V]``,
``Iterator[T]``, ``Generator[Y, S, R]``, ``Awaitable[T]``, ...; each with its
parameters' variance) and ``TypeOfType`` for ``type[C]``.
"""

from __future__ import annotations

import collections.abc as abc
from typing import Any

from tensortypes.types.base import LatticeType, as_type, join_strs
from tensortypes.types.primitives import ANY
from tensortypes.types.structural import _OneParam

__all__ = ["SetType", "FrozenSetType", "AbcType", "TypeOfType", "ABC_ORIGINS"]


class SetType(_OneParam):
    """``Set[T]``, invariant (sets are mutable).

    >>> from tensortypes.types import INT
    >>> str(SetType(INT))
    'Set[int]'
    """

    __slots__ = ()
    _kind = "set"
    _label = "Set"


class FrozenSetType(_OneParam):
    """``FrozenSet[T]``, covariant.

    >>> from tensortypes.types import INT
    >>> str(FrozenSetType(INT))
    'FrozenSet[int]'
    """

    __slots__ = ()
    _kind = "frozenset"
    _label = "FrozenSet"


# origin -> (printed name, variance of each parameter: "+" co, "-" contra, "=" in)
ABC_ORIGINS: dict[type, tuple[str, str]] = {
    abc.Hashable: ("Hashable", ""),
    abc.Sized: ("Sized", ""),
    abc.Container: ("Container", "+"),
    abc.Iterable: ("Iterable", "+"),
    abc.Iterator: ("Iterator", "+"),
    abc.Reversible: ("Reversible", "+"),
    abc.Collection: ("Collection", "+"),
    abc.Sequence: ("Sequence", "+"),
    abc.MutableSequence: ("MutableSequence", "="),
    abc.Set: ("AbstractSet", "+"),
    abc.MutableSet: ("MutableSet", "="),
    abc.Mapping: ("Mapping", "=+"),
    abc.MutableMapping: ("MutableMapping", "=="),
    abc.MappingView: ("MappingView", ""),
    abc.KeysView: ("KeysView", "+"),
    abc.ValuesView: ("ValuesView", "+"),
    abc.ItemsView: ("ItemsView", "++"),
    abc.Generator: ("Generator", "+-+"),
    abc.Awaitable: ("Awaitable", "+"),
    abc.Coroutine: ("Coroutine", "+-+"),
    abc.AsyncIterable: ("AsyncIterable", "+"),
    abc.AsyncIterator: ("AsyncIterator", "+"),
    abc.AsyncGenerator: ("AsyncGenerator", "+-"),
}


class AbcType(LatticeType):
    """A generic class of ``collections.abc`` with its parameters.

    Missing parameters are ``Any`` (``Sequence`` is ``Sequence[Any]``).

    >>> import collections.abc as abc
    >>> from tensortypes.types import INT, NONE
    >>> str(AbcType(abc.Sequence, [INT])), str(AbcType(abc.Generator, [INT, NONE, NONE]))
    ('Sequence[int]', 'Generator[int, NoneType, NoneType]')
    """

    __slots__ = ("origin", "args", "variance")
    args: Any
    origin: Any
    _fields = ("origin", "args")
    _kind = "abc"

    @classmethod
    def _construct(cls, origin: Any, args: Any = None):
        try:
            name, variance = ABC_ORIGINS[origin]
        except (KeyError, TypeError):
            raise TypeError(
                f"AbcType takes a generic class of collections.abc "
                f"({', '.join(n for n, _ in ABC_ORIGINS.values())}), "
                f"got {origin!r}"
            ) from None
        if args is None:
            args = (ANY,) * len(variance)
        else:
            args = tuple(as_type(a, f"a parameter of {name}") for a in args)
        if len(args) != len(variance):
            raise TypeError(f"{name} takes {len(variance)} type parameter(s), got {len(args)}")
        return cls._get((origin, args))

    def _post_init(self) -> None:
        self._set("variance", ABC_ORIGINS[self.origin][1])

    @property
    def name(self) -> str:
        """The typing name of the origin (``Sequence``, ``AbstractSet``...)."""
        return ABC_ORIGINS[self.origin][0]

    def _py_str(self) -> str:
        return f"{self.name}[{join_strs(self.args)}]" if self.args else self.name

    def _ts_str(self) -> str:
        return f"{self.name}[{join_strs(self.args, True)}]" if self.args else self.name

    def contained(self):
        return self.args


class TypeOfType(_OneParam):
    """``type[C]``: the class ``C`` itself or a subclass, covariant in ``C``.

    >>> from tensortypes.types import INT
    >>> str(TypeOfType(INT))
    'Type[int]'
    """

    __slots__ = ()
    _kind = "typeof"
    _label = "Type"
    _what = "class"
