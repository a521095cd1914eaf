"""The three flattening backends behind one interface (layer 5, ``pytree``).

Each backend object answers the questions the PyTree annotations ask, in its
library's terms:

- ``flatten(tree, is_leaf) -> (leaves, structure)`` and
  ``flatten_with_path(tree, is_leaf) -> [(path, leaf), ...]`` (paths as our
  key entries, see ``paths``);
- ``unflatten(structure, leaves)``, ``compose(outer, inner)``;
- ``is_prefix(prefix, full)``: ``full`` is ``prefix`` with subtrees in place of
  some of its leaves (``"T ..."``);
- ``matches_suffix(structure, inner)``: every subtree reached from the root
  before a leaf has structure ``inner`` (``"... T"``; jaxtyping's rule: the
  walk stops at the first subtree equal to ``inner``, and a node without
  children needs nothing).

JAX and optree are imported here only, when their backend is loaded; loading
one replays the ``register_pytree_node`` registrations it has not seen.

The backend in use is chosen once, on first use (:func:`get_backend`): JAX
when it is imported or importable, else optree when installed, else our own
flattener. :func:`set_backend` picks one by name, None chooses again.
"""

from __future__ import annotations

import sys
from typing import Any

from tensortypes.pytree import _registry
from tensortypes.pytree.flatten import own_flatten, own_flatten_with_path
from tensortypes.pytree.paths import as_key
from tensortypes.pytree.structure import LEAF, PyTreeDef, is_structure

__all__ = [
    "Backend",
    "load",
    "choose",
    "of_structure",
    "NAMES",
    "get_backend",
    "set_backend",
    "backend_name",
]

NAMES = ("jax", "optree", "own")


class Backend:
    """Abstract: one flattening library seen through the interface of this module."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<pytree backend {self.name!r}>"

    def flatten(self, tree: Any, is_leaf=None) -> tuple[list, Any]:
        raise NotImplementedError

    def flatten_with_path(self, tree: Any, is_leaf=None) -> list[tuple[tuple, Any]]:
        raise NotImplementedError

    def unflatten(self, structure: Any, leaves) -> Any:
        return structure.unflatten(leaves)

    def compose(self, outer: Any, inner: Any) -> Any:
        return outer.compose(inner)

    # Structure walks, generic over ``_node_key``/``_children``/``_is_leaf``.
    def _is_leaf(self, structure: Any) -> bool:
        raise NotImplementedError

    def _node_key(self, structure: Any) -> Any:
        raise NotImplementedError

    def _children(self, structure: Any) -> list:
        raise NotImplementedError

    def is_prefix(self, prefix: Any, full: Any) -> bool:
        if self._is_leaf(prefix):
            return True
        if self._is_leaf(full) or self._node_key(prefix) != self._node_key(full):
            return False
        return all(
            self.is_prefix(p, f) for p, f in zip(self._children(prefix), self._children(full))
        )

    def matches_suffix(self, structure: Any, inner: Any) -> bool:
        if structure == inner:
            return True
        if self._is_leaf(structure):
            return False
        return all(self.matches_suffix(child, inner) for child in self._children(structure))


class OwnBackend(Backend):
    """Our own flattener (``flatten``), JAX's rules, no third-party library."""

    __slots__ = ()

    def flatten(self, tree, is_leaf=None):
        return own_flatten(tree, is_leaf)

    def flatten_with_path(self, tree, is_leaf=None):
        return own_flatten_with_path(tree, is_leaf)

    def _is_leaf(self, structure):
        return structure._node is LEAF

    def _node_key(self, structure):
        node = structure._node
        return (node[0], node[1], len(node[2]))

    def _children(self, structure):
        return structure.children()


class JaxBackend(Backend):
    """``jax.tree_util``: JAX's own structures, custom nodes and equinox modules."""

    __slots__ = ("_jtu",)

    def __init__(self) -> None:
        super().__init__("jax")
        import jax.tree_util as jtu

        self._jtu = jtu
        _registry.replay("jax")

    def flatten(self, tree, is_leaf=None):
        return self._jtu.tree_flatten(tree, is_leaf)

    def flatten_with_path(self, tree, is_leaf=None):
        pairs, _ = self._jtu.tree_flatten_with_path(tree, is_leaf)
        return [(tuple(as_key(e) for e in path), leaf) for path, leaf in pairs]

    def unflatten(self, structure, leaves):
        return self._jtu.tree_unflatten(structure, list(leaves))

    def _is_leaf(self, structure):
        # ``treedef_is_leaf`` is also true of ``None``'s structure; node_data is not.
        return structure.node_data() is None

    def _node_key(self, structure):
        return (structure.node_data(), len(structure.children()))

    def _children(self, structure):
        return structure.children()


class OptreeBackend(Backend):
    """optree, flattening in the ``"tensortypes"`` namespace (our registrations)."""

    __slots__ = ("_optree",)

    def __init__(self) -> None:
        super().__init__("optree")
        import optree

        self._optree = optree
        _registry.replay("optree")

    def flatten(self, tree, is_leaf=None):
        return self._optree.tree_flatten(tree, is_leaf, namespace=_registry.OPTREE_NAMESPACE)

    def flatten_with_path(self, tree, is_leaf=None):
        accessors, leaves, _ = self._optree.tree_flatten_with_accessor(
            tree, is_leaf, namespace=_registry.OPTREE_NAMESPACE
        )
        return [(tuple(as_key(e) for e in acc), leaf) for acc, leaf in zip(accessors, leaves)]

    def is_prefix(self, prefix, full):
        return prefix.is_prefix(full)

    def _is_leaf(self, structure):
        return structure.is_leaf()

    def _children(self, structure):
        return structure.children()


_LOADED: dict[str, Backend] = {}
_CLASSES = {"jax": JaxBackend, "optree": OptreeBackend, "own": OwnBackend}


def load(name: str) -> Backend:
    """The backend called ``name`` ("jax", "optree", "own"), loading its library once.

    >>> load("own").flatten((1, 2))[0]
    [1, 2]
    """
    found = _LOADED.get(name)
    if found is not None:
        return found
    cls = _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"unknown PyTree backend {name!r}; expected one of {', '.join(NAMES)}")
    try:
        found = OwnBackend("own") if cls is OwnBackend else cls()
    except ImportError as error:
        raise ImportError(
            f"the {name!r} PyTree backend needs {name}, which cannot be imported: {error}"
        ) from error
    _LOADED[name] = found
    return found


def choose() -> Backend:
    """JAX when it is imported or importable, else optree when installed, else ours."""
    for name in ("jax", "optree"):
        if name in sys.modules and sys.modules[name] is None:
            continue  # import blocked on purpose (``sys.modules[name] = None``)
        try:
            return load(name)
        except ImportError:
            continue
    return load("own")


def of_structure(structure: Any) -> Backend:
    """The backend a structure object belongs to (TypeError for anything else)."""
    if type(structure) is PyTreeDef:
        return load("own")
    if is_structure(structure):
        root = (type(structure).__module__ or "").partition(".")[0]
        return load("optree" if root == "optree" else "jax")
    raise TypeError(f"expected a PyTree structure (PyTreeDef), got {structure!r}")


_ACTIVE: list = [None]


def get_backend() -> Backend:
    """The backend in use (chosen on first call: JAX, else optree, else ours).

    >>> get_backend().name in NAMES
    True
    """
    active = _ACTIVE[0]
    if active is None:
        active = _ACTIVE[0] = choose()
    return active


def backend_name() -> str:
    """The name of the backend in use: ``"jax"``, ``"optree"`` or ``"own"``."""
    return get_backend().name


def set_backend(name: str | None) -> None:
    """Use backend ``name`` ("jax", "optree" or "own") from now on; None chooses again.

    An ``ImportError`` says when the library of that backend cannot be imported.

    >>> set_backend("own"); backend_name()
    'own'
    >>> set_backend(None)
    """
    _ACTIVE[0] = None if name is None else load(name)
