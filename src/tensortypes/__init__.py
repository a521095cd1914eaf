"""tensortypes: dtypes and symbolic shapes as types for NumPy, PyTorch and JAX programs."""

from tensortypes._config import config
from tensortypes.errors import (
    AnnotationError,
    CacheError,
    CompileError,
    MethodNotDefined,
    TypeCheckError,
)

__version__ = "0.1.0"

__all__ = [
    "AnnotationError",
    "CacheError",
    "CompileError",
    "MethodNotDefined",
    "TypeCheckError",
    "config",
]
