"""Our own PyTree structures, and structure tests common to every backend (layer 5, ``pytree``).

:class:`PyTreeDef` is what our own flattener returns (JAX's ``PyTreeDef`` and
optree's ``PyTreeSpec`` are returned by theirs): an immutable description of a
tree without its leaves. It compares, hashes, counts leaves and nodes,
composes, rebuilds a tree from leaves and prints as JAX prints its own
(``PyTreeDef({'a': *, 'b': (*, *)})``).

Internally a structure is a node: ``LEAF``, or the tuple
``(cls, data, children)`` with the node's exact class, its data (dict keys, a
custom node's aux data; see ``_registry``) and a tuple of child nodes. Nodes are
plain tuples so that equality is the C tuple comparison (identity first for
each element), which is what makes comparing two structures of 1000 leaves a
matter of microseconds.

``PyTreeDef`` used as a class also answers ``isinstance`` for JAX's and optree's
structure objects (recognised by module and class name, without importing
them), so ``isinstance(s, PyTreeDef)`` holds on every backend, and it carries
a lattice ``.type`` so that ``ann_to_type(PyTreeDef)`` works.
"""

from __future__ import annotations

from typing import Any

from tensortypes.pytree._registry import BUILD

__all__ = ["PyTreeDef", "LEAF", "is_structure", "node_count"]

LEAF: tuple = ("*",)
"""The node of a leaf (a unique object: nodes compare by identity first)."""

_FOREIGN = {("jaxlib", "PyTreeDef"), ("jax", "PyTreeDef"), ("optree", "PyTreeSpec")}


def is_structure(obj: Any) -> bool:
    """True for our ``PyTreeDef``, JAX's ``PyTreeDef`` and optree's ``PyTreeSpec``.

    >>> from tensortypes.pytree.api import tree_structure
    >>> is_structure(tree_structure((1, 2))), is_structure((1, 2))
    (True, False)
    """
    cls = type(obj)
    if cls is PyTreeDef:
        return True
    root = (cls.__module__ or "").partition(".")[0]
    return (root, cls.__name__) in _FOREIGN


class _StructureClass(type):
    """Metaclass of :class:`PyTreeDef`: ``isinstance`` accepts every backend's structures,
    and the class carries the lattice ``.type`` of the ``PyTreeDef`` annotation."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return is_structure(obj)

    @property
    def type(cls):
        from tensortypes.types import ClassType

        return ClassType(cls)


def _leaves_in(node: tuple) -> int:
    if node is LEAF:
        return 1
    return sum(_leaves_in(child) for child in node[2])


def node_count(node: tuple) -> int:
    """The number of nodes (leaves included) of a node tuple."""
    if node is LEAF:
        return 1
    return 1 + sum(node_count(child) for child in node[2])


def _skeleton(node: tuple):
    """A hashable stand-in for a node whose data does not hash (a custom node's list)."""
    if node is LEAF:
        return LEAF
    return (node[0], len(node[2]), tuple(_skeleton(c) for c in node[2]))


class PyTreeDef(metaclass=_StructureClass):
    """The structure of a PyTree without its leaves (our own flattener's).

    >>> from tensortypes.pytree.api import tree_structure
    >>> s = tree_structure({"b": (1, 2), "a": 3}, backend="own")
    >>> s, s.num_leaves, s.num_nodes
    (PyTreeDef({'a': *, 'b': (*, *)}), 3, 5)
    >>> s.unflatten([10, 20, 30])
    {'a': 10, 'b': (20, 30)}
    """

    __slots__ = ("_node", "_leaves", "_hash")
    _hash: Any
    _leaves: Any
    _node: Any

    def __init__(self, node: tuple, num_leaves: int | None = None) -> None:
        if not isinstance(node, tuple):
            raise TypeError(f"PyTreeDef takes a node tuple, got {node!r}")
        object.__setattr__(self, "_node", node)
        object.__setattr__(self, "_leaves", num_leaves)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("PyTreeDef is immutable")

    def __reduce__(self):
        return (PyTreeDef, (self._node, self._leaves))

    # -- counts -------------------------------------------------------------------
    @property
    def num_leaves(self) -> int:
        """How many leaves a tree of this structure has."""
        n = self._leaves
        if n is None:
            n = _leaves_in(self._node)
            object.__setattr__(self, "_leaves", n)
        return n

    @property
    def num_nodes(self) -> int:
        """How many nodes (leaves and ``None`` included) a tree of this structure has."""
        return node_count(self._node)

    # -- comparison ---------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if type(other) is not PyTreeDef:
            return NotImplemented
        return self is other or self._node == other._node

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            try:
                h = hash(self._node)
            except TypeError:  # unhashable aux data: hash the shape of the tree only
                h = hash(_skeleton(self._node))
            object.__setattr__(self, "_hash", h)
        return h

    # -- parts --------------------------------------------------------------------
    def is_leaf(self) -> bool:
        """True for the structure of a single leaf (``PyTreeDef(*)``)."""
        return self._node is LEAF

    def node_data(self) -> tuple | None:
        """``(class, data)`` of the root node; None for a leaf (as JAX's ``node_data``)."""
        node = self._node
        return None if node is LEAF else (node[0], node[1])

    def children(self) -> list[PyTreeDef]:
        """The structures of the root's children, in order."""
        node = self._node
        return [] if node is LEAF else [PyTreeDef(child) for child in node[2]]

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """This structure with every leaf replaced by ``inner``.

        >>> from tensortypes.pytree.api import tree_structure
        >>> outer = tree_structure({"k": 0}, backend="own")
        >>> outer.compose(tree_structure((0, 0), backend="own"))
        PyTreeDef({'k': (*, *)})
        """
        if type(inner) is not PyTreeDef:
            raise TypeError(f"compose takes a PyTreeDef of the same backend, got {inner!r}")
        sub = inner._node

        def swap(node):
            if node is LEAF:
                return sub
            return (node[0], node[1], tuple(swap(c) for c in node[2]))

        return PyTreeDef(swap(self._node), self.num_leaves * inner.num_leaves)

    def unflatten(self, leaves) -> Any:
        """The tree of this structure with ``leaves`` in order (their count must match)."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"Too {'few' if len(leaves) < self.num_leaves else 'many'} "
                f"leaves for PyTreeDef; expected {self.num_leaves}, "
                f"got {len(leaves)}."
            )
        it = iter(leaves)

        def build(node):
            if node is LEAF:
                return next(it)
            cls, data, children = node
            return BUILD[cls](data, [build(c) for c in children])

        return build(self._node)

    # -- printing -----------------------------------------------------------------
    def __repr__(self) -> str:
        return f"PyTreeDef({_node_str(self._node)})"

    __str__ = __repr__


def _node_str(node: tuple) -> str:
    """JAX's notation for a node: ``*``, ``(*, *)``, ``{'a': *}``, ``CustomNode(...)``."""
    if node is LEAF:
        return "*"
    cls, data, children = node
    inner = [_node_str(c) for c in children]
    if cls is tuple:
        return "(" + inner[0] + ",)" if len(inner) == 1 else "(" + ", ".join(inner) + ")"
    if cls is list:
        return "[" + ", ".join(inner) + "]"
    if cls is dict:
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(data, inner)) + "}"
    if cls is type(None):
        return "None"
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        label = f"namedtuple[{cls.__name__}]"
    else:
        label = f"{cls.__name__}[{data}]"
    return f"CustomNode({label}, [{', '.join(inner)}])"
