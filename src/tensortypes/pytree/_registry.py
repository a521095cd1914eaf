"""The node rules of our own flattener, and custom-node registration (layer 5, ``pytree``).

JAX's rules, as data: a value is a node when its exact class has a rule
(``tuple``, ``list``, ``dict`` with sorted keys, ``None`` with no children,
``collections.OrderedDict`` in insertion order, ``collections.defaultdict``
with sorted keys, any namedtuple class, and the classes registered with
``register_pytree_node``); anything else, subclasses of those built-ins
included, is a leaf. Each rule is three functions keyed by class:

- ``SPLIT[cls](x) -> (data, children)``: the node's data (what makes two nodes
  of the class the same structure: dict keys, a custom node's aux data) and its
  children in order;
- ``BUILD[cls](data, children) -> value``: the inverse;
- ``KEYS[cls](x, data) -> [key entry, ...]``: the path entry of each child.

``SPLIT`` also caches leaf classes (as ``None``) so that classifying a value
costs one dict lookup after its class has been seen once.

``add_node`` (behind ``api.register_pytree_node``) writes the rule here and
also registers the class with JAX and optree when they are imported; a
backend loaded later replays the registrations it missed (``replay``).
"""

from __future__ import annotations

import sys
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from typing import Any

from tensortypes.errors import value_fault
from tensortypes.pytree.paths import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey

__all__ = [
    "SPLIT",
    "BUILD",
    "KEYS",
    "MISSING",
    "add_node",
    "rule_of",
    "replay",
    "registered",
    "OPTREE_NAMESPACE",
]

OPTREE_NAMESPACE = "tensortypes"
MISSING = object()
_CACHE_LIMIT = 4096


def _sorted_keys(d: dict) -> tuple:
    try:
        return tuple(sorted(d))
    except TypeError as error:
        # JAX's message and class: a dict whose keys do not compare is no PyTree.
        raise value_fault(
            ValueError(f"Comparator raised exception while sorting pytree dictionary keys: {error}")
        ) from error


def _split_dict(d: dict) -> tuple:
    keys = _sorted_keys(d)
    return keys, [d[k] for k in keys]


def _split_defaultdict(d: defaultdict) -> tuple:
    keys = _sorted_keys(d)
    return (d.default_factory, keys), [d[k] for k in keys]


def _split_ordereddict(d: OrderedDict) -> tuple:
    return tuple(d), list(d.values())


def _sequence_keys(x: Any, data: Any) -> list:
    return [SequenceKey(i) for i in range(len(x))]


SPLIT: dict[Any, Any] = {
    tuple: lambda x: (None, x),
    list: lambda x: (None, x),
    dict: _split_dict,
    type(None): lambda x: (None, ()),
    OrderedDict: _split_ordereddict,
    defaultdict: _split_defaultdict,
}
"""``SPLIT[cls](x) -> (data, children)`` for node classes; ``None`` for leaf classes."""

BUILD: dict[Any, Callable[[Any, list], Any]] = {
    tuple: lambda data, children: tuple(children),
    list: lambda data, children: list(children),
    dict: lambda data, children: dict(zip(data, children)),
    type(None): lambda data, children: None,
    OrderedDict: lambda data, children: OrderedDict(zip(data, children)),
    defaultdict: lambda data, children: defaultdict(data[0], zip(data[1], children)),
}
"""``BUILD[cls](data, children) -> value``: the inverse of ``SPLIT``."""

KEYS: dict[Any, Callable[[Any, Any], list]] = {
    tuple: _sequence_keys,
    list: _sequence_keys,
    dict: lambda x, data: [DictKey(k) for k in data],
    type(None): lambda x, data: [],
    OrderedDict: lambda x, data: [DictKey(k) for k in data],
    defaultdict: lambda x, data: [DictKey(k) for k in data[1]],
}
"""``KEYS[cls](x, data) -> [key entry, ...]``: the path entry of each child."""

_BUILTIN = frozenset(SPLIT)
_CUSTOM: list[tuple[type, Callable, Callable, Callable | None]] = []
_REPLAYED: dict[str, set[type]] = {"jax": set(), "optree": set()}


def _namedtuple_rule(cls: type) -> None:
    SPLIT[cls] = lambda x: (None, x)
    BUILD[cls] = lambda data, children, _cls=cls: _cls(*children)
    fields = tuple(cls._fields)
    KEYS[cls] = lambda x, data, _fields=fields: [GetAttrKey(f) for f in _fields]


def rule_of(cls: type):
    """``SPLIT[cls]`` after classifying ``cls`` (None: its instances are leaves).

    >>> rule_of(int) is None, rule_of(tuple) is not None
    (True, True)
    """
    try:
        found = SPLIT.get(cls, MISSING)
    except TypeError:  # an unhashable class (a metaclass with __eq__, no __hash__):
        return None  # never a registered node, nor a tuple's
    if found is not MISSING:
        return found
    # JAX's test: a tuple whose class has ``_fields`` is a namedtuple node.
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        _namedtuple_rule(cls)
        return SPLIT[cls]
    if len(SPLIT) < _CACHE_LIMIT:
        SPLIT[cls] = None
    return None


def add_node(
    nodetype: type,
    flatten_func: Callable,
    unflatten_func: Callable,
    flatten_with_keys_func: Callable | None = None,
) -> None:
    """Write the rule of a custom node class here, and register it with JAX and optree
    if they are imported (``api.register_pytree_node`` is the public entry point).

    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> add_node(Pair, lambda p: ((p.a, p.b), None), lambda _, ch: Pair(*ch))
    >>> SPLIT[Pair](Pair(1, 2))
    (None, (1, 2))
    """
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node takes a class, got {nodetype!r}")
    for name, func in (("flatten_func", flatten_func), ("unflatten_func", unflatten_func)):
        if not callable(func):
            raise TypeError(f"register_pytree_node: {name} must be callable, got {func!r}")
    if flatten_with_keys_func is not None and not callable(flatten_with_keys_func):
        raise TypeError(
            "register_pytree_node: flatten_with_keys_func must be callable, "
            f"got {flatten_with_keys_func!r}"
        )
    if nodetype in _BUILTIN or any(entry[0] is nodetype for entry in _CUSTOM):
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype!r}.")

    def split(x):
        children, aux = flatten_func(x)
        return aux, children

    def keys(x, data):
        if flatten_with_keys_func is None:
            return [FlattenedIndexKey(i) for i in range(len(flatten_func(x)[0]))]
        return [key for key, _ in flatten_with_keys_func(x)[0]]

    SPLIT[nodetype] = split
    BUILD[nodetype] = lambda data, children: unflatten_func(data, children)
    KEYS[nodetype] = keys
    _CUSTOM.append((nodetype, flatten_func, unflatten_func, flatten_with_keys_func))
    for backend in ("jax", "optree"):
        if backend in sys.modules and sys.modules[backend] is not None:
            replay(backend)


def registered() -> tuple[type, ...]:
    """The classes registered with ``register_pytree_node``, oldest first."""
    return tuple(entry[0] for entry in _CUSTOM)


def replay(backend: str) -> None:
    """Register with ``backend`` ("jax" or "optree") every class it has not seen yet.

    A class the user registered with that library directly keeps that registration.
    """
    done = _REPLAYED[backend]
    for nodetype, flatten_func, unflatten_func, with_keys in _CUSTOM:
        if nodetype in done:
            continue
        done.add(nodetype)
        try:
            if backend == "jax":
                import jax.tree_util as jtu

                jtu.register_pytree_node(nodetype, flatten_func, unflatten_func, with_keys)
            else:
                import optree

                optree.register_pytree_node(
                    nodetype,
                    _optree_flatten(flatten_func, with_keys),
                    unflatten_func,
                    namespace=OPTREE_NAMESPACE,
                )
        except ValueError:
            continue  # already registered there by the user: theirs stands


def _optree_flatten(flatten_func: Callable, with_keys: Callable | None) -> Callable:
    """optree's flatten convention: ``(children, aux)`` or ``(children, aux, entries)``."""
    if with_keys is None:
        return flatten_func

    def flatten(x):
        pairs, aux = with_keys(x)
        pairs = list(pairs)
        return [child for _, child in pairs], aux, [key for key, _ in pairs]

    return flatten
