"""The public PyTree functions, on the backend in use or one named per call (layer 5).

``tree_flatten``, ``tree_structure``, ``tree_leaves``, ``tree_unflatten`` and
``tree_flatten_with_path`` behave as ``jax.tree_util``'s do, on whichever
backend ``backends`` chose (JAX, optree or ours) or the one named by
``backend=``; ``register_pytree_node`` registers a node class with all of them.
Every flattening function takes ``is_leaf``, asked about each subtree first
(True: a leaf).

>>> tree_flatten({"b": [1, 2], "a": None}, backend="own")
([1, 2], PyTreeDef({'a': None, 'b': [*, *]}))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortypes.pytree._registry import add_node
from tensortypes.pytree.backends import get_backend, load, of_structure

__all__ = [
    "tree_flatten",
    "tree_structure",
    "tree_leaves",
    "tree_unflatten",
    "tree_flatten_with_path",
    "register_pytree_node",
]

IsLeaf = Callable[[Any], bool] | None


def _backend(name: str | None):
    return get_backend() if name is None else load(name)


def tree_flatten(tree: Any, is_leaf: IsLeaf = None, *, backend: str | None = None):
    """``(leaves, structure)`` of ``tree``; the structure is the backend's own class.

    >>> tree_flatten([1, (2, 3)], backend="own")
    ([1, 2, 3], PyTreeDef([*, (*, *)]))
    """
    return _backend(backend).flatten(tree, is_leaf)


def tree_structure(tree: Any, is_leaf: IsLeaf = None, *, backend: str | None = None):
    """The structure of ``tree`` (JAX's ``PyTreeDef``, optree's ``PyTreeSpec`` or ours).

    >>> tree_structure({"a": 1}, backend="own")
    PyTreeDef({'a': *})
    """
    return _backend(backend).flatten(tree, is_leaf)[1]


def tree_leaves(tree: Any, is_leaf: IsLeaf = None, *, backend: str | None = None) -> list:
    """The leaves of ``tree``, in JAX's order (dict values by sorted key).

    >>> tree_leaves({"b": 1, "a": (2, None)}, backend="own")
    [2, 1]
    """
    return _backend(backend).flatten(tree, is_leaf)[0]


def tree_unflatten(structure: Any, leaves) -> Any:
    """The tree of ``structure`` holding ``leaves`` (by the structure's own backend).

    >>> s = tree_structure((0, [0]), backend="own")
    >>> tree_unflatten(s, ["a", "b"])
    ('a', ['b'])
    """
    return of_structure(structure).unflatten(structure, leaves)


def tree_flatten_with_path(
    tree: Any, is_leaf: IsLeaf = None, *, backend: str | None = None
) -> list[tuple[tuple, Any]]:
    """``[(path, leaf), ...]``: each leaf with its path of key entries (see ``paths``).

    >>> from tensortypes.pytree.paths import keystr
    >>> [keystr(p) for p, _ in tree_flatten_with_path({"w": [0, 0]}, backend="own")]
    ["['w'][0]", "['w'][1]"]
    """
    return _backend(backend).flatten_with_path(tree, is_leaf)


def register_pytree_node(
    nodetype: type,
    flatten_func: Callable,
    unflatten_func: Callable,
    flatten_with_keys_func: Callable | None = None,
) -> None:
    """Make instances of ``nodetype`` PyTree nodes, for every flattening backend.

    ``flatten_func(x) -> (children, aux_data)`` and
    ``unflatten_func(aux_data, children) -> x`` follow JAX's convention;
    ``flatten_with_keys_func(x) -> ([(key, child), ...], aux_data)`` names the
    children in error paths (use ``GetAttrKey``/``DictKey``/``SequenceKey``).
    The class is registered with our own flattener, with the backend in use
    (chosen now if it was not yet: JAX is imported here when it is installed),
    and with JAX and optree when they are already imported. A second
    registration of a class is a ``ValueError``, as in JAX.

    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, ch: Pair(*ch))
    >>> tree_leaves([Pair(1, 2), 3])
    [1, 2, 3]
    """
    add_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)
    # Choosing the backend now (JAX whenever it is importable) registers the class
    # there before any of the user's code can flatten with it.
    get_backend()
