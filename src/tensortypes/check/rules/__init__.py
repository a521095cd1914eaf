"""The checker's rules as data: library functions, methods, layers, losses (layer 6).

Lookups by the dotted path the walker resolved from the imports of the checked
module (``import torch.nn.functional as F`` makes ``F.relu`` the path
``torch.nn.functional.relu``):

- :func:`function_rule` -> ``(rule, library)`` for PyTorch, NumPy and
  ``jax.numpy``/``jax.nn`` functions;
- :func:`method_rule` -> the rule of an array method for one library;
- :func:`layer_rule` / :func:`loss_rule` -> ``torch.nn`` layer classes and losses;
- :func:`dtype_object` -> the dtype a path such as ``torch.float32`` names.
"""

from __future__ import annotations

from . import losses, numpy, patterns, torch
from .layer_table import LAYERS, OTHER_LAYERS, LayerRule

__all__ = ["function_rule", "method_rule", "layer_rule", "loss_rule", "dtype_object", "LayerRule"]

_LIBRARIES = (
    ("jax.numpy.", "jax", numpy.FUNCTIONS),
    ("numpy.", "numpy", numpy.FUNCTIONS),
    ("jax.nn.", "jax", numpy.JAX_NN),
    ("jax.random.", "jax", numpy.JAX_RANDOM),
    ("einops.", None, patterns.EINOPS),
    ("einx.", None, patterns.EINX),
)


def function_rule(path: str):
    """``(rule, library)`` for a library function path, or None when there is no rule.

    >>> function_rule("torch.matmul")[1], function_rule("numpy.sum")[1]
    ('torch', 'numpy')
    """
    if path.startswith("torch."):
        rule = torch.FUNCTIONS.get(path)
        return (rule, "torch") if rule is not None else None
    for prefix, library, table in _LIBRARIES:
        if path.startswith(prefix):
            rule = table.get(path[len(prefix) :])
            return (rule, library) if rule is not None else None
    return None


def method_rule(library: str | None, name: str):
    """The rule of array method ``name`` for ``library`` (None: PyTorch's, then NumPy's)."""
    if library == "torch":
        return torch.METHODS.get(name)
    if library in ("numpy", "jax"):
        return numpy.METHODS.get(name)
    return torch.METHODS.get(name) or numpy.METHODS.get(name)


def layer_rule(path: str) -> LayerRule | None:
    """The rule of a ``torch.nn`` layer class such as ``torch.nn.Linear``, or of another
    library's layer that models are built of (``rules.layer_table.OTHER_LAYERS``)."""
    if path.startswith("torch.nn.") and path.count(".") == 2:
        return LAYERS.get(path[9:])
    return OTHER_LAYERS.get(path)


def loss_rule(path: str):
    """The :class:`~.losses.Loss` of ``torch.nn.functional.<loss>`` or ``torch.nn.<Loss>``."""
    for prefix in ("torch.nn.functional.", "torch.nn."):
        if path.startswith(prefix):
            return losses.LOSSES.get(path[len(prefix) :])
    return None


def dtype_object(path: str):
    """The dtype named by ``torch.float32``, ``numpy.int64``, ``jax.numpy.bfloat16``."""
    head, _, name = path.rpartition(".")
    if head == "torch":
        return torch.DTYPES.get(name)
    if head in ("numpy", "jax.numpy"):
        return numpy.DTYPES.get(name)
    return None
