"""Leaf paths: where a leaf sits inside a PyTree, spelled as Python (layer 5, ``pytree``).

A path is a tuple of key entries, one per level, outermost first. Each entry
prints as the Python that reaches the child from its parent, so a whole path
reads as an expression: ``x['params'][3].weight``. The entry classes carry
JAX's names and printing (``DictKey``, ``SequenceKey``, ``GetAttrKey``,
``FlattenedIndexKey``); JAX's and optree's own entries are converted to them
(:func:`as_key`), so error messages read the same on every flattening backend.

Paths are computed only when a message needs one (the slow path of a failed
check); nothing here is on the fast path.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DictKey",
    "SequenceKey",
    "GetAttrKey",
    "FlattenedIndexKey",
    "as_key",
    "keystr",
    "format_path",
]


class _Key:
    """Abstract base of the key entries: immutable, hashable, printed as Python."""

    __slots__ = ()
    _field = ""

    def __init__(self, value: Any) -> None:
        object.__setattr__(self, self._field, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _value(self) -> Any:
        return getattr(self, self._field)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._value() == other._value()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._value()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._field}={self._value()!r})"

    def __reduce__(self):
        return (type(self), (self._value(),))


class DictKey(_Key):
    """A mapping's key: prints as ``['params']``.

    >>> str(DictKey("params"))
    "['params']"
    """

    __slots__ = ("key",)
    key: Any
    _field = "key"

    def __str__(self) -> str:
        return f"[{self.key!r}]"


class SequenceKey(_Key):
    """A position in a tuple or list: prints as ``[3]``.

    >>> str(SequenceKey(3))
    '[3]'
    """

    __slots__ = ("idx",)
    idx: Any
    _field = "idx"

    def __str__(self) -> str:
        return f"[{self.idx}]"


class GetAttrKey(_Key):
    """An attribute (a namedtuple field, a registered class's field): prints as ``.weight``.

    >>> str(GetAttrKey("weight"))
    '.weight'
    """

    __slots__ = ("name",)
    name: Any
    _field = "name"

    def __str__(self) -> str:
        return f".{self.name}"


class FlattenedIndexKey(_Key):
    """The i-th child of a custom node registered without keys: ``[<flat index 0>]``.

    >>> str(FlattenedIndexKey(0))
    '[<flat index 0>]'
    """

    __slots__ = ("key",)
    key: Any
    _field = "key"

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


_KEYS = (DictKey, SequenceKey, GetAttrKey, FlattenedIndexKey)

# JAX's entries have our names and fields; optree's have their own. Both are
# recognised by class name so that neither library is imported here.
_FOREIGN = {
    "DictKey": lambda e: DictKey(e.key),
    "SequenceKey": lambda e: SequenceKey(e.idx),
    "GetAttrKey": lambda e: GetAttrKey(e.name),
    "FlattenedIndexKey": lambda e: _unwrap(e.key),
    "MappingEntry": lambda e: DictKey(e.entry),
    "SequenceEntry": lambda e: SequenceKey(e.entry),
    "NamedTupleEntry": lambda e: GetAttrKey(e.field),
    "StructSequenceEntry": lambda e: GetAttrKey(e.field),
    "GetAttrEntry": lambda e: GetAttrKey(e.name),
    "DataclassEntry": lambda e: GetAttrKey(e.field),
    "FlattenedEntry": lambda e: _unwrap(e.entry),
    "AutoEntry": lambda e: _unwrap(e.entry),
}


_WRAPPERS = frozenset({"FlattenedIndexKey", "FlattenedEntry", "AutoEntry"})


def _unwrap(entry: Any) -> _Key:
    """A custom node's own entry: kept when it is a key already, else a flat index."""
    if isinstance(entry, _KEYS):
        return entry
    name = type(entry).__name__
    if name in _FOREIGN and name not in _WRAPPERS:
        return as_key(entry)
    return FlattenedIndexKey(entry)


def as_key(entry: Any) -> _Key:
    """Our key entry for a JAX or optree path entry (ours are returned as they are).

    >>> as_key(DictKey("a")), as_key(3)
    (DictKey(key='a'), FlattenedIndexKey(key=3))
    """
    if isinstance(entry, _KEYS):
        return entry
    converted = _FOREIGN.get(type(entry).__name__)
    if converted is None:
        return FlattenedIndexKey(entry)
    try:
        return converted(entry)
    except AttributeError:  # a class of the same name from somewhere else
        return FlattenedIndexKey(entry)


def keystr(path) -> str:
    """The Python spelling of a path (a tuple of key entries), without a root name.

    >>> keystr((DictKey("params"), SequenceKey(3), GetAttrKey("weight")))
    "['params'][3].weight"
    """
    return "".join(str(as_key(entry)) for entry in path)


def format_path(root: str, path) -> str:
    """``root`` followed by ``path``: ``x['params'][3].weight``; ``root`` alone at the top.

    >>> format_path("x", (DictKey("params"), SequenceKey(3)))
    "x['params'][3]"
    """
    return root + keystr(path)
