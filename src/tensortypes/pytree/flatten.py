"""Our own flattener: JAX's rules without JAX (layer 5, ``pytree``).

The rules are tuple, list, dict (sorted keys), namedtuple, None (a node
without children), OrderedDict (insertion order), defaultdict (sorted keys)
and the classes of ``register_pytree_node``; everything else, subclasses of
those built-ins included, is a leaf (see ``_registry``). ``is_leaf``, when
given, is asked about every subtree first, the root included: True makes it a
leaf. This is the ``"own"`` backend of ``backends``; the public functions that
pick a backend are in ``api``.

>>> own_flatten({"b": [1, 2], "a": None})
([1, 2], PyTreeDef({'a': None, 'b': [*, *]}))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortypes.pytree._registry import KEYS, MISSING, SPLIT, rule_of
from tensortypes.pytree.structure import LEAF, PyTreeDef

__all__ = ["own_flatten", "own_flatten_with_path"]

IsLeaf = Callable[[Any], bool] | None


# -- our own flattener ----------------------------------------------------------------


def _walk(x: Any, leaves: list) -> tuple:
    cls = type(x)
    try:
        split = SPLIT.get(cls, MISSING)
    except TypeError:  # an unhashable class (a metaclass with __eq__, no __hash__)
        split = rule_of(cls)
    if split is MISSING:
        split = rule_of(cls)
    if split is None:
        leaves.append(x)
        return LEAF
    data, children = split(x)
    get, append, walk = SPLIT.get, leaves.append, _walk
    mark = len(leaves)
    try:
        # Leaves are the common child: classify them inline, without a call each.
        return (
            cls,
            data,
            tuple(
                [
                    (append(c) or LEAF) if get(type(c), MISSING) is None else walk(c, leaves)
                    for c in children
                ]
            ),
        )
    except TypeError:
        if not isinstance(children, (list, tuple)):
            raise
        # A child of an unhashable class: walk each child (``_walk`` classifies it).
        del leaves[mark:]
        return (cls, data, tuple([walk(c, leaves) for c in children]))


def _walk_is_leaf(x: Any, leaves: list, is_leaf: Callable[[Any], bool]) -> tuple:
    if is_leaf(x):
        leaves.append(x)
        return LEAF
    split = rule_of(type(x))
    if split is None:
        leaves.append(x)
        return LEAF
    data, children = split(x)
    return (type(x), data, tuple([_walk_is_leaf(c, leaves, is_leaf) for c in children]))


def own_flatten(tree: Any, is_leaf: IsLeaf = None) -> tuple[list, PyTreeDef]:
    """``(leaves, structure)`` of ``tree`` by our own flattener (JAX's rules).

    >>> own_flatten((1, [2, None]))
    ([1, 2], PyTreeDef((*, [*, None])))
    """
    leaves: list = []
    node = _walk(tree, leaves) if is_leaf is None else _walk_is_leaf(tree, leaves, is_leaf)
    return leaves, PyTreeDef(node, len(leaves))


def own_flatten_with_path(tree: Any, is_leaf: IsLeaf = None) -> list[tuple[tuple, Any]]:
    """``[(path, leaf), ...]`` of ``tree`` by our own flattener, in leaf order.

    >>> from tensortypes.pytree.paths import keystr
    >>> [(keystr(p), leaf) for p, leaf in own_flatten_with_path({"a": [1, 2]})]
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    found: list = []

    def visit(x: Any, path: tuple) -> None:
        if is_leaf is not None and is_leaf(x):
            found.append((path, x))
            return
        cls = type(x)
        split = rule_of(cls)
        if split is None:
            found.append((path, x))
            return
        data, children = split(x)
        for key, child in zip(KEYS[cls](x, data), children):
            visit(child, path + (key,))

    visit(tree, ())
    return found
