"""tensortypes: dtypes and symbolic shapes as types for NumPy, PyTorch and JAX programs.

The package root is the facade. Errors and ``config`` are imported eagerly
(they are tiny); everything else is loaded on first use, so ``import
tensortypes`` stays cheap and imports no array library.
"""

from __future__ import annotations

import importlib

from tensortypes._config import config
from tensortypes.errors import (
    AnnotationError,
    CacheError,
    CompileError,
    MethodNotDefined,
    TypeCheckError,
)

__version__ = "0.1.0"

# name -> module that defines it, imported on first attribute access.
_LAZY = {
    "function": "tensortypes.link",
}

__all__ = [
    "AnnotationError",
    "CacheError",
    "CompileError",
    "MethodNotDefined",
    "TypeCheckError",
    "config",
    *_LAZY,
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tensortypes' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
