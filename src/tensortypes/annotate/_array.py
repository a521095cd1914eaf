"""Array annotation classes: what ``Float[np.ndarray, "b c"]`` returns (layer 5:
``annotate``).

An annotation is a class, because beartype and typeguard accept only classes as hints.
It subclasses ``AbstractArray`` and, where possible, its array class (so
``issubclass(Float[np.ndarray, "b"], np.ndarray)``, as in jaxtyping), and carries
jaxtyping's attributes ``array_type``, ``dtype`` (the dtype class), ``dtypes``, ``dims``,
``index_variadic``, ``dim_str``, plus ``type``, its ``types.ArrayType`` in the lattice
(a ``{...}`` size counts as ``_`` there; the per-call matcher keeps it).

Annotations are interned: the same dtype class, dtypes, array kind, shape and name
format give the same class object, so ``Float[np.ndarray, "b c"] is
Float[np.ndarray, "b c"]`` (and ``"b  c"`` is the same annotation). They pickle to
themselves (by rebuilding the subscript), print as ``Float[ndarray, 'b c']``, and
refuse to be instantiated.

``isinstance(x, A)`` runs ``A``'s compiled matcher (``_match``) against the current
dimension scope (``_scope``), extending it on success; ``A.__instancecheck_str__(x)``
gives ``""`` or the reason, which beartype and typeguard print.
"""

from __future__ import annotations

import copyreg
import functools
import importlib
import operator
import re
import sys
import threading
import weakref
import typing
from typing import Any, Union

from tensortypes.annotate import _kinds
from tensortypes.annotate._match import Matcher
from tensortypes.annotate._scope import current_at as _current_at
from tensortypes.annotate._shape import ParsedShape, parse_shape
from tensortypes.core.words import annotation_text
from tensortypes.errors import AnnotationError, describe_raised, raised_by_value
from tensortypes.types.arrays import ArrayType

__all__ = [
    "AbstractArray",
    "get_array_name_format",
    "set_array_name_format",
    "subscript",
    "is_annotation",
    "union_of",
]

_getframe = sys._getframe
_FORMATS = ("dtype_and_shape", "array")
_format = "dtype_and_shape"


def get_array_name_format() -> str:
    """How new annotation classes are named: ``"dtype_and_shape"`` (the default,
    ``Float[ndarray, 'b c']``) or ``"array"`` (``ndarray``).

    >>> get_array_name_format()
    'dtype_and_shape'
    """
    return _format


def set_array_name_format(value: str) -> None:
    """Choose how annotation classes created from now on are named (see the getter).

    >>> set_array_name_format("dtype_and_shape")
    """
    global _format
    if value not in _FORMATS:
        raise ValueError(
            f"array name format must be one of {', '.join(map(repr, _FORMATS))}, got {value!r}"
        )
    _format = value


class _MetaAbstractArray(type):
    """The metaclass of array annotations: ``isinstance`` runs the compiled matcher."""

    _tt_match: Any  # set on each annotation class when it is made

    def __instancecheck__(cls, obj: Any) -> bool:
        # The scope as seen from the caller (a checked call's body, or none).
        try:
            return cls._tt_match(obj, _current_at(_getframe(1)))
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if raised_by_value(error):
                return False  # a value that raises while being looked at is no instance
            raise

    def __instancecheck_str__(cls, obj: Any) -> str:
        """``""`` when ``obj`` matches (binding its sizes in the scope), else the reason."""
        bindings = _current_at(_getframe(1))
        try:
            if cls._tt_match(obj, bindings):
                return ""
            matcher = cls.__dict__.get("_tt_matcher")
            if matcher is None:
                return f"{annotation_text(cls)} is abstract: no value is an instance of it"
            return matcher.explain(obj, bindings) or "the value does not match"
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if raised_by_value(error):
                return f"checking the value raised {describe_raised(error)}"
            raise

    def __call__(cls, *args: Any, **kwargs: Any) -> typing.NoReturn:
        raise NotInstantiable(
            f"{annotation_text(cls)} is an annotation and cannot be "
            "instantiated; create the array with its library and annotate it"
        )

    def __str__(cls) -> str:
        return cls.__name__ if "_tt_matcher" in cls.__dict__ else super().__repr__()


def _never(obj: Any, bindings: Any) -> bool:
    return False


class AbstractArray(metaclass=_MetaAbstractArray):
    """The base class of every array annotation (``Float32[np.ndarray, "b c"]``).

    Test for an annotation with ``issubclass(hint, AbstractArray)``; it has no
    instances and no subclasses but those the dtype classes make.

    >>> import numpy as np
    >>> from tensortypes.annotate import Float
    >>> issubclass(Float[np.ndarray, "b"], AbstractArray)
    True
    """

    __slots__ = ()
    array_type: Any
    dtype: type
    dtypes: tuple | None
    dims: tuple
    index_variadic: int | None
    dim_str: str
    type: ArrayType
    _tt_match = staticmethod(_never)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # An annotation's name has brackets no class statement can write: cloudpickle
        # rebuilds an annotation class by value, setting its attributes afterwards.
        if "_tt_matcher" not in cls.__dict__ and "[" not in cls.__name__:
            raise TypeError(
                "AbstractArray is not subclassed directly; write an annotation "
                "such as Float[np.ndarray, 'b c'] or subclass AbstractDtype"
            )
        super().__init_subclass__(**kwargs)


def is_annotation(x: Any) -> bool:
    """Whether ``x`` is an array annotation class.

    >>> is_annotation(AbstractArray), is_annotation(int)
    (False, False)
    """
    return isinstance(x, _MetaAbstractArray) and "_tt_matcher" in x.__dict__


def _reduce(cls: type) -> Any:
    source = cls.__dict__.get("_tt_source")
    return cls.__qualname__ if source is None else (_rebuild, source)


def _rebuild(dtype_cls: type, member: Any, dim_str: str, fmt: str) -> Any:
    if isinstance(member, str):  # a library's own array class, by kind
        member = _library_class(member)
    return subscript(dtype_cls, (member, dim_str), fmt)


# Where each library keeps its array class. jax.Array cannot be pickled by reference
# (its qualified name is jaxlib's), so annotations pickle the kind instead.
_LIBRARY_CLASSES = {
    "numpy": ("numpy", "ndarray"),
    "torch": ("torch", "Tensor"),
    "jax": ("jax", "Array"),
    "tensorflow": ("tensorflow", "Tensor"),
    "mlx": ("mlx.core", "array"),
}


def _library_class(kind: str) -> type:
    module, attr = _LIBRARY_CLASSES[kind]
    return getattr(importlib.import_module(module), attr)


copyreg.pickle(_MetaAbstractArray, _reduce)
_METAS: dict[type, type] = {type: _MetaAbstractArray}


def _meta_for(base_meta: type) -> type:
    """Our metaclass combined with the array class's own (torch's, JAX's)."""
    found = _METAS.get(base_meta)
    if found is None:
        if issubclass(base_meta, _MetaAbstractArray):
            return base_meta
        found = type(
            f"_MetaAbstractArray_{base_meta.__name__}",
            (_MetaAbstractArray, base_meta),
            {"__module__": __name__},
        )
        copyreg.pickle(found, _reduce)
        _METAS[base_meta] = found
    return found


class NotInstantiable(AnnotationError, RuntimeError):
    """Calling an annotation class: an ``AnnotationError``, and the ``RuntimeError``
    jaxtyping raises there, so code catching either keeps working."""


_NOT_MADE = object()
# Weak: an annotation class lives as long as something uses it (a function's
# annotations, a variable), and one that nothing uses any more is freed, so a program
# that builds shape strings from data does not grow without bound. While it lives,
# subscripting again gives the same class.
_CANON: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_LOCK = threading.RLock()


def subscript(dtype_cls: type, item: Any, fmt: str | None = None) -> Any:
    """``dtype_cls[item]``: the annotation (or union of them) for ``(array type, shape)``.

    >>> import numpy as np
    >>> from tensortypes.annotate import Float
    >>> subscript(Float, (np.ndarray, "b c")) is Float[np.ndarray, "b c"]
    True
    """
    name = dtype_cls.__name__
    if not isinstance(item, tuple) or len(item) != 2:
        raise AnnotationError(
            f"{name}[...] takes an array type and a shape string, e.g. "
            f"{name}[np.ndarray, 'batch channels'] ('...' accepts any shape)"
        )
    array_type, dim_str = item
    parsed = parse_shape(dim_str)
    fmt = _format if fmt is None else fmt
    made = []
    members = _kinds.members(array_type)
    for member in members:
        out = _make(dtype_cls, member, parsed, dim_str, fmt)
        if out is not _NOT_MADE:
            made.append(type(None) if out is None else out)
    if not made or made == [type(None)]:
        shown = _kinds.type_name(members[0]) if len(members) == 1 else repr(array_type)
        text = f"{name}[{shown}, {dim_str!r}]"
        start = len(name) + 1
        if all(m is None for m in members):
            raise AnnotationError("None is not an array type", text, start, start + len(shown))
        never = [
            m for m in members if m is not None and _kinds.classify(m, is_annotation)[0] == "never"
        ]
        if len(never) == len([m for m in members if m is not None]):
            message = (
                _kinds.never_message(never[0])
                if len(never) == 1
                else f"no member of {shown} is an array type: " + _kinds.never_message(never[0])
            )
            raise AnnotationError(message, text, start, start + len(shown))
        what = (
            f"{shown} is a scalar type"
            if len(members) == 1
            else f"no member of {shown} fits: a scalar type"
        )
        raise AnnotationError(
            f"{what}: it takes a shape of no fixed axes ('' or '...') and a dtype class "
            f"whose dtypes it holds (e.g. Float[float, ''], Int[int, ''], Bool[bool, ''], "
            f"Shaped[np.generic, ''])",
            text,
            start,
            start + len(shown),
        )
    if len(made) == 1:
        return made[0]
    # typing.Union, as jaxtyping builds it (get_origin says Union; typeguard 2.x checks
    # it, where it leaves a PEP 604 union unchecked); isinstance still asks each member.
    return union_of(made, typing_form=True)


_UnionAlias = getattr(typing, "_UnionGenericAlias", None)
if _UnionAlias is not None:

    class _ArrayUnion(_UnionAlias, _root=True):  # type: ignore[misc, valid-type]
        """``typing.Union[...]`` of annotations whose ``isinstance`` asks each member
        about the value (``typing.Union``'s own asks ``issubclass(type(x), member)``,
        which no annotation can answer)."""

        def __instancecheck__(self, obj: Any) -> bool:
            return any(isinstance(obj, a) for a in self.__args__)

        def __subclasscheck__(self, cls: type) -> bool:
            return any(issubclass(cls, a) for a in self.__args__)

        def __or__(self, other: Any) -> Any:
            return _typing_union((self, type(None) if other is None else other))

        def __ror__(self, other: Any) -> Any:
            return _typing_union((type(None) if other is None else other, self))


def _typing_union(members: tuple) -> Any:
    plain: Any = Union.__getitem__(members)  # typing.Union is the point
    if _UnionAlias is None or type(plain) is not _UnionAlias:
        return plain  # a Python whose typing.Union is built otherwise
    return _ArrayUnion(Union, plain.__args__)


def union_of(members: list, typing_form: bool = False) -> Any:
    """``A | B | ...``: a ``types.UnionType`` (whose ``isinstance`` asks each member;
    ``typing.Union``'s asks ``issubclass(type(x), member)``, which no annotation can
    answer), or ``typing.Union`` if some member does not support ``|``.

    With ``typing_form``, always a ``typing.Union`` (whose ``isinstance`` still
    asks each member): the array type was written that way
    (``jax.typing.ArrayLike``), and ``get_origin`` of the annotation says ``Union``
    as jaxtyping's does.

    >>> union_of([int, type(None)])
    int | None
    """
    if typing_form:
        return _typing_union(tuple(members))
    try:
        return functools.reduce(operator.or_, members)
    except TypeError:
        return Union[tuple(members)]  # noqa: UP007 (built at run time from a tuple)


def _intersect(outer_cls: type, outer: tuple | None, inner_cls: type, dim_str: str) -> tuple | None:
    inner = inner_cls.dtypes
    if outer is None:
        return inner
    if inner is None:
        return outer

    def covered(d: Any, side: tuple) -> bool:
        return d in side or (
            isinstance(d, str) and any(isinstance(p, re.Pattern) and p.fullmatch(d) for p in side)
        )

    out = [d for d in outer if covered(d, inner)]
    out += [d for d in inner if isinstance(d, str) and d not in out and covered(d, outer)]
    if not out:
        name = outer_cls.__name__
        raise AnnotationError(
            f"no dtype is both {name} and {inner_cls.dtype.__name__} (the dtypes of "
            f"{annotation_text(inner_cls)}); use Shaped to add axes without narrowing the dtype",
            f"{name}[{inner_cls.__name__}, {dim_str!r}]",
            0,
            len(name),
        )
    return tuple(out)


def _make(dtype_cls: type, member: Any, parsed: ParsedShape, dim_str: str, fmt: str) -> Any:
    what = _kinds.classify(member, is_annotation)
    dtypes = dtype_cls.dtypes
    if what[0] == "none":
        return None
    if what[0] == "never":
        return _NOT_MADE
    if what[0] == "scalar":
        cls = what[1]
        return cls if _kinds.scalar_ok(_kinds.SCALARS[cls], dtypes, parsed.dims) else _NOT_MADE
    if what[0] == "nested":
        inner = what[1]
        dtypes = _intersect(dtype_cls, dtypes, inner, dim_str)
        if parsed.index_variadic is not None and inner.index_variadic is not None:
            token = parsed.dim_str.split()[parsed.index_variadic]
            at = dim_str.find(token)
            raise AnnotationError(
                f"at most one entry may match several axes, and both {dim_str!r} and "
                f"{annotation_text(inner)} have one",
                dim_str,
                at,
                at + len(token),
            )
        parsed = parse_shape(" ".join(s for s in (parsed.dim_str, inner.dim_str) if s))
        kind, base = inner._tt_matcher.kind, inner.array_type
        base = None if base is Any else base
        ref = member
    else:
        kind, base = what[1], what[2]
        ref = kind if isinstance(kind, str) and kind != "any" else member
    key = (dtype_cls, dtypes, kind, parsed.dim_str, fmt)
    found = _CANON.get(key)
    if found is None:
        with _LOCK:
            found = _CANON.get(key)
            if found is None:
                found = _CANON[key] = _create(
                    dtype_cls, dtypes, kind, base, parsed, (dtype_cls, ref, dim_str, fmt)
                )
    return found


def _create(
    dtype_cls: type,
    dtypes: tuple | None,
    kind: Any,
    base: type | None,
    parsed: ParsedShape,
    source: tuple,
) -> type:
    type_str = _kinds.type_name(Any if base is None else base)
    fmt = source[3]
    name = (
        f"{dtype_cls.__name__}[{type_str}, '{parsed.dim_str}']"
        if fmt == "dtype_and_shape"
        else type_str
    )
    matcher = Matcher(kind, dtypes, parsed, name, dtype_cls.__name__)
    namespace = {
        # typing prints a class as module.qualname inside a union unless its
        # module is "builtins"; beartype requires ``repr(A | B)`` to spell A as
        # ``repr(A)`` does, so the annotation reads the same in both places.
        # Pickling goes through copyreg (``_reduce``), not the module path.
        "__module__": "builtins",
        "__qualname__": name,
        "__slots__": (),
        "array_type": Any if base is None else base,
        "dtype": dtype_cls,
        "dtypes": dtypes,
        "dims": parsed.dims,
        "index_variadic": parsed.index_variadic,
        "dim_str": parsed.dim_str,
        "type": ArrayType(kind, dtypes, parsed.pattern),
        "_tt_matcher": matcher,
        "_tt_match": staticmethod(matcher.match),
        "_tt_source": source,
    }
    if base is not None:
        try:
            return _meta_for(type(base))(name, (base, AbstractArray), namespace)
        except Exception:  # noqa: BLE001 (a final class or a layout clash: no subclass then)
            pass
    return _MetaAbstractArray(name, (AbstractArray,), namespace)
