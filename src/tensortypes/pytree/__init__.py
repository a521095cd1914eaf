"""PyTrees: flattening on every backend, structures, paths, annotations (layer 5).

Sits beside ``annotate`` (it may import ``annotate``, ``types`` and ``core``;
never ``runtime``). The pieces:

- ``api``, ``backends`` and ``flatten``: ``tree_flatten``/``tree_structure``/
  ``tree_leaves``/``tree_unflatten``/``tree_flatten_with_path`` on JAX's
  ``jax.tree_util`` when JAX is there, else optree, else our own flattener with
  JAX's rules; ``register_pytree_node`` registers with all of them.
- ``structure``: our ``PyTreeDef`` (also the annotation accepting every
  backend's structure objects).
- ``paths``: leaf paths printed as Python (``x['params'][3].weight``).
- ``annotation`` and ``lattice``: the ``PyTree`` annotations of jaxtyping's PyTree annotations and
  their lattice type ``PyTreeType`` (the interface the runtime checker uses is
  in ``lattice``'s docstring).

>>> tree_leaves({"b": (1, 2), "a": None}, backend="own")
[1, 2]
"""

from tensortypes.pytree.annotation import PyTree
from tensortypes.pytree.api import (
    register_pytree_node,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_structure,
    tree_unflatten,
)
from tensortypes.pytree.backends import backend_name, get_backend, set_backend
from tensortypes.pytree.paths import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    SequenceKey,
    format_path,
    keystr,
)
from tensortypes.pytree.lattice import PyTreeType
from tensortypes.pytree.structure import PyTreeDef, is_structure

__all__ = [
    "PyTree",
    "PyTreeType",
    "register_pytree_node",
    "tree_flatten",
    "tree_structure",
    "tree_leaves",
    "tree_unflatten",
    "tree_flatten_with_path",
    "get_backend",
    "set_backend",
    "backend_name",
    "PyTreeDef",
    "is_structure",
    "DictKey",
    "SequenceKey",
    "GetAttrKey",
    "FlattenedIndexKey",
    "keystr",
    "format_path",
]
