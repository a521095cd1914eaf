"""Array annotations: jaxtyping's ``Float[np.ndarray, "b c"]`` and friends (layer 5).

``Dtype[ArrayKind, "shape"]`` gives an interned class whose ``isinstance`` checks the
array kind, dtype and shape (binding sizes in the current dimension scope) and whose
``.type`` is the lattice ``types.ArrayType``. The dtype classes, ``AbstractDtype`` for
custom ones, ``AbstractArray``, the shape language and the scope are here, and
``matcher_for``/``annotation_matchers``, which turn lattice array types and annotations
into the matchers both checkers above use; the checker that compiles whole signatures
is ``tensortypes.runtime``.

>>> import numpy as np
>>> isinstance(np.zeros((2, 3), np.float32), Float32[np.ndarray, "2 n"])
True
>>> Float[np.ndarray, "b c"] is Float[np.ndarray, "b c"]
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensortypes.annotate._array import (
    AbstractArray,
    get_array_name_format,
    is_annotation,
    set_array_name_format,
)
from tensortypes.annotate._dtypes import DTYPE_CLASSES, AbstractDtype, make_numpy_struct_dtype
from tensortypes.annotate._jax import JAX_NAMES, jax_name
from tensortypes.annotate._compile import annotation_matchers, matcher_for
from tensortypes.annotate._match import Matcher
from tensortypes.annotate._scope import SCOPE, Bindings, current, forget_frames, pop, push, scope
from tensortypes.annotate._shape import ParsedShape, Template, parse_shape

if TYPE_CHECKING:
    # Static checkers read Float32[np.ndarray, "b c"] as np.ndarray.
    from tensortypes.annotate._static import (
        BFloat16,
        Bool,
        Complex,
        Complex64,
        Complex128,
        Float,
        Float8e4m3b11fnuz,
        Float8e4m3fn,
        Float8e4m3fnuz,
        Float8e5m2,
        Float8e5m2fnuz,
        Float16,
        Float32,
        Float64,
        Inexact,
        Int,
        Int2,
        Int4,
        Int8,
        Int16,
        Int32,
        Int64,
        Integer,
        Key,
        Num,
        Real,
        Shaped,
        UInt,
        UInt2,
        UInt4,
        UInt8,
        UInt16,
        UInt32,
        UInt64,
    )
else:
    globals().update(DTYPE_CLASSES)

__all__ = [
    *DTYPE_CLASSES,
    "AbstractDtype",
    "AbstractArray",
    "make_numpy_struct_dtype",
    "get_array_name_format",
    "set_array_name_format",
    "is_annotation",
    "Bindings",
    "current",
    "push",
    "pop",
    "scope",
    "forget_frames",
    "SCOPE",
    "Matcher",
    "ParsedShape",
    "Template",
    "parse_shape",
    "JAX_NAMES",
    "matcher_for",
    "annotation_matchers",
]


def __getattr__(name: str) -> Any:
    if name in JAX_NAMES:
        value = jax_name(name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
