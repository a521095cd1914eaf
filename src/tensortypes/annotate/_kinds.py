"""What may stand in the array place of ``Dtype[array, "shape"]`` (layer 5: ``annotate``).

``members(array_type)`` unpacks the forms jaxtyping's array annotations allows into a list of single
members: unions (``A | B``, ``Union[A, B]``, ``Optional``) are unpacked; a ``TypeVar``
stands for its bound, its constraints (a union) or ``Any``; a type alias
(``TypeAliasType``, ``type X = ...``) stands for its value; ``Annotated[X, ...]`` for
``X``; a parametrised class (``np.ndarray[Any, np.dtype[np.float32]]``,
``NDArray[np.float32]``) for its class.

``classify(member)`` says what one member is: ``("none", None)`` for ``None`` in a
union, ``("scalar", cls)`` for the Python and NumPy scalar types jaxtyping accepts
(``bool``, ``int``, ``float``, ``complex``, ``np.bool_``, ``np.generic``,
``np.number``), ``("nested", annotation)`` for an existing array annotation,
``("array", kind, cls)`` for an array class (``kind`` as ``types.ArrayType`` spells it:
a library name for the library's own class, else the class itself) and
``("array", "any", None)`` for ``typing.Any`` and ``("never", cls)`` for a builtin
class that is no array (``bytes``, ``str``): inside a union (``numpy.typing.ArrayLike``)
it matches nothing, alone it is the user's mistake. Anything else is an
``AnnotationError``. Array libraries are recognised by module name; nothing is imported.
"""

from __future__ import annotations

import types
import typing
from typing import Any, ForwardRef, TypeVar, Union

import numpy as np

from tensortypes.errors import AnnotationError
from tensortypes.types.arrays import class_kind

__all__ = ["members", "classify", "never_message", "scalar_ok", "SCALARS", "type_name"]

_UNIONS = (Union, types.UnionType)

# The scalar types of jaxtyping's scalar forms and the dtype-name prefix each holds.
SCALARS: dict[type, str] = {
    bool: "bool",
    int: "int",
    float: "float",
    complex: "complex",
    np.bool_: "bool",
    np.generic: "",
    np.number: "",
}


def _is_alias(x: Any) -> bool:
    # typing.TypeAliasType (3.12) and typing_extensions' backport, by name: neither
    # needs importing to be recognised.
    return type(x).__name__ == "TypeAliasType" and hasattr(x, "__value__")


def members(array_type: Any, depth: int = 0) -> list:
    """The single members ``array_type`` stands for, in order, duplicates removed.

    >>> members(int | None)
    [<class 'int'>, None]
    """
    if depth > 20:
        raise AnnotationError(
            f"the array type {array_type!r} is nested too deeply (a recursive type alias?)"
        )
    if isinstance(array_type, TypeVar):
        bound = array_type.__bound__
        if bound is not None:
            return members(bound, depth + 1)
        constraints = array_type.__constraints__
        if not constraints:
            return [Any]
        return _unique([m for c in constraints for m in members(c, depth + 1)])
    if array_type is _numpy_arraylike():
        # numpy 2.x spells the Python scalars in ArrayLike as ``complex`` alone, meaning
        # PEP 484's int | float | complex; bool, int and float are meant too.
        inner = array_type.__value__ if _is_alias(array_type) else array_type
        parts = [m for a in typing.get_args(inner) for m in members(a, depth + 1)]
        return _unique([*parts, bool, int, float, complex])
    if _is_alias(array_type):
        return members(array_type.__value__, depth + 1)
    if array_type is None or array_type is type(None):
        return [None]
    origin = typing.get_origin(array_type)
    if origin in _UNIONS:
        return _unique([m for a in typing.get_args(array_type) for m in members(a, depth + 1)])
    if origin is typing.Annotated:
        return members(array_type.__origin__, depth + 1)
    if isinstance(origin, type):
        return [origin]
    return [array_type]


def typing_union(array_type: Any) -> bool:
    """Whether ``array_type`` is written as ``typing.Union`` (or an alias of one).

    >>> typing_union(Union[int, None]), typing_union(int | None)
    (True, False)
    """
    if _is_alias(array_type):
        array_type = array_type.__value__
    return typing.get_origin(array_type) is Union


def _numpy_arraylike() -> Any:
    import numpy.typing as npt  # numpy is a hard dependency; its typing module is not eager

    return npt.ArrayLike


def _unique(items: list) -> list:
    out: list = []
    for item in items:
        if not any(item is seen for seen in out):
            out.append(item)
    return out


def type_name(cls: Any) -> str:
    """The short name an annotation prints for its array type (``ndarray``, ``Array``).

    >>> type_name(np.ndarray), type_name(Any)
    ('ndarray', 'typing.Any')
    """
    if cls is Any:
        return "typing.Any"
    name = getattr(cls, "__name__", None)
    return repr(cls) if not isinstance(name, str) else name.rpartition(".")[2]


def classify(member: Any, is_annotation: Any) -> tuple:
    """What one member is (see the module docstring).

    ``is_annotation(x)`` tells whether ``x`` is an array annotation class; the caller
    passes it because annotation classes are defined in a later module.

    >>> classify(np.ndarray, lambda x: False), classify(float, lambda x: False)
    (('array', 'numpy', <class 'numpy.ndarray'>), ('scalar', <class 'float'>))
    """
    if member is None:
        return ("none", None)
    if member is Any:
        return ("array", "any", None)
    if isinstance(member, (str, ForwardRef)):
        text = member if isinstance(member, str) else member.__forward_arg__
        raise AnnotationError(
            f"the array type must be the class itself, not the string "
            f"{text!r}: import it (under TYPE_CHECKING if need be)"
        )
    if not isinstance(member, type):
        raise AnnotationError(
            f"{member!r} ({type(member).__name__}) is not an array type: "
            f"expected an array class such as np.ndarray, torch.Tensor "
            f"or jax.Array, a duck-array class, typing.Any, a union, a "
            f"TypeVar or an existing array annotation"
        )
    if member in SCALARS:
        return ("scalar", member)
    if is_annotation(member):
        return ("nested", member)
    kind = class_kind(member)
    if kind is not None:
        root = member.__name__.rpartition(".")[2] in ("ndarray", "Tensor", "Array", "array")
        return ("array", kind if root else member, member)
    if member.__module__ == "builtins":
        return ("never", member)
    return ("array", member, member)


def never_message(member: type) -> str:
    """Why a builtin class that is no array (``bytes``) cannot stand alone."""
    return (
        f"{member.__qualname__} is not an array type (it has no .shape and .dtype); use "
        f"typing.Any to accept any array, or a scalar type: bool, int, float, complex, "
        f"np.generic"
    )


def scalar_ok(prefix: str, dtypes: tuple | None, dims: tuple) -> bool:
    """Whether a scalar form ``Dtype[float, "..."]`` makes sense: no fixed-rank axes,
    and some accepted dtype name starting with ``prefix`` (jaxtyping's rule).

    >>> scalar_ok("float", ("float32", "int8"), ()), scalar_ok("int", ("float32",), ())
    (True, False)
    """
    for d in dims:
        if not getattr(d, "variadic", False):
            return False
    if dtypes is None:
        return True
    return any((d if isinstance(d, str) else d.pattern).startswith(prefix) for d in dtypes)
