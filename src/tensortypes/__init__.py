"""tensortypes: dtypes and symbolic shapes as types for NumPy, PyTorch and JAX programs.

The package root is the facade. Errors and ``config`` are imported eagerly
(they are tiny); everything else is loaded on first use, so ``import
tensortypes`` stays cheap and imports no array library.

PYTEST_DONT_REWRITE: pytest rewrites the asserts of plugin packages (this one
has a pytest plugin) and warns about one already imported, as it is when
``python -m tensortypes.jaxtyping_shim -m pytest`` starts pytest; this module
has no assert to rewrite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from tensortypes._config import config
from tensortypes.errors import (
    AnnotationError,
    AnnotationWarning,
    CacheError,
    CompileError,
    MethodNotDefined,
    TypeCheckError,
)

__version__ = "0.1.0"

_DTYPE_CLASSES = (
    "Shaped",
    "Bool",
    "Key",
    "Num",
    "Inexact",
    "Float",
    "BFloat16",
    "Float16",
    "Float32",
    "Float64",
    "Float8e4m3b11fnuz",
    "Float8e4m3fn",
    "Float8e4m3fnuz",
    "Float8e5m2",
    "Float8e5m2fnuz",
    "Complex",
    "Complex64",
    "Complex128",
    "Integer",
    "UInt",
    "UInt2",
    "UInt4",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "Int",
    "Int2",
    "Int4",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "Real",
)
# jaxtyping's JAX-only names: present when JAX is installed, loaded on first use.
_JAX_NAMES = ("Array", "ArrayLike", "DTypeLike", "Scalar", "ScalarLike", "PRNGKeyArray")

# name -> module that defines it, imported on first attribute access.
_LAZY = {
    **{name: "tensortypes.annotate" for name in _DTYPE_CLASSES},
    **{name: "tensortypes.annotate" for name in _JAX_NAMES},
    "AbstractDtype": "tensortypes.annotate",
    "AbstractArray": "tensortypes.annotate",
    "make_numpy_struct_dtype": "tensortypes.annotate",
    "get_array_name_format": "tensortypes.annotate",
    "set_array_name_format": "tensortypes.annotate",
    "jaxtyped": "tensortypes.runtime",
    "typechecked": "tensortypes.runtime",
    "install_import_hook": "tensortypes.runtime",
    "print_bindings": "tensortypes.runtime",
    "load_ipython_extension": "tensortypes.runtime",
    "unload_ipython_extension": "tensortypes.runtime",
    "PyTree": "tensortypes.pytree",
    "PyTreeDef": "tensortypes.pytree",
    "register_pytree_node": "tensortypes.pytree",
    "function": "tensortypes.link",
    "ann_to_type": "tensortypes.types",
    "infer_type": "tensortypes.types",
    "is_subtype": "tensortypes.types",
    "join": "tensortypes.types",
    "unify": "tensortypes.types",
    "check_value": "tensortypes.types",
    "check_source": "tensortypes.check",
    "check_paths": "tensortypes.check",
}

if TYPE_CHECKING:
    # Static checkers read every dtype class as typing.Annotated, so
    # Float32[np.ndarray, "b c"] is an np.ndarray to mypy and pyright.
    from tensortypes.annotate._static import (  # noqa: F401
        BFloat16 as BFloat16,
        Bool as Bool,
        Complex as Complex,
        Complex64 as Complex64,
        Complex128 as Complex128,
        Float as Float,
        Float8e4m3b11fnuz as Float8e4m3b11fnuz,
        Float8e4m3fn as Float8e4m3fn,
        Float8e4m3fnuz as Float8e4m3fnuz,
        Float8e5m2 as Float8e5m2,
        Float8e5m2fnuz as Float8e5m2fnuz,
        Float16 as Float16,
        Float32 as Float32,
        Float64 as Float64,
        Inexact as Inexact,
        Int as Int,
        Int2 as Int2,
        Int4 as Int4,
        Int8 as Int8,
        Int16 as Int16,
        Int32 as Int32,
        Int64 as Int64,
        Integer as Integer,
        Key as Key,
        Num as Num,
        Real as Real,
        Shaped as Shaped,
        UInt as UInt,
        UInt2 as UInt2,
        UInt4 as UInt4,
        UInt8 as UInt8,
        UInt16 as UInt16,
        UInt32 as UInt32,
        UInt64 as UInt64,
    )
    import typing as _typing

    # An attribute static checkers cannot resolve is Any to them, so PyTree[...]
    # type-checks as Any, as jaxtyping arranges it.
    PyTree = getattr(_typing, "foo" + "bar")

__all__ = [
    "AnnotationError",
    "AnnotationWarning",
    "CacheError",
    "CompileError",
    "MethodNotDefined",
    "TypeCheckError",
    "config",
    *(name for name in _LAZY if name not in _JAX_NAMES),
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
