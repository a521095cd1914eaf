"""Static shapes of graph types, their relations, merging and broadcasting (layer 2: core).

A static shape is the shape of a graph ``TensorType``: a tuple whose entries
are ``int`` (a known size, >= 0), ``None`` (unknown) or a non-constant
:class:`~tensortypes.core.dims.Dim` (a *rigid* symbolic size: one fixed size
shared by every variable of the graph that names it). Constant Dims become
ints. Every relation is tri-state (``True``, ``False``, ``None`` = cannot tell)
and uses :func:`tensortypes.core.dims.eq`, which assumes symbols are >= 0.

Public names are re-exported by :mod:`tensortypes.core.shapes`.
"""

from __future__ import annotations

import numpy as np

from ..errors import AnnotationError
from .dims import Dim, eq, parse

__all__ = [
    "MAX_NDIM",
    "normalize_static_shape",
    "format_static_shape",
    "dim_is_super",
    "shape_is_super",
    "merge_dims",
    "merge_shapes",
    "broadcast_static_shapes",
    "broadcast_compatible",
]

MAX_NDIM = 64  # NumPy's limit on the number of dimensions


def _entry(x, axis: int):
    """One normalised entry, or ValueError naming ``axis``."""
    if x is None:
        return None
    t = type(x)
    if t is bool:  # PyTensor's legacy broadcastable flags: True is a size-1 axis
        return 1 if x else None
    if t is int or isinstance(x, np.integer):
        x = int(x)
        if x < 0:
            raise ValueError(f"axis {axis}: size {x} is negative; sizes are >= 0")
        return x
    if t is str:
        if x == "?":
            return None
        try:
            x = parse(x)
        except AnnotationError as error:
            raise AnnotationError(
                f"axis {axis}: {error.message}", error.text, error.position
            ) from None
        t = Dim
    if t is Dim:
        value = x.value
        if value is None:
            return x
        if value < 0:
            raise ValueError(f"axis {axis}: size {value} is negative; sizes are >= 0")
        return value
    raise ValueError(
        f"axis {axis}: a static shape entry is a non-negative int, None or a "
        f"dimension expression, got {t.__name__} {x!r}"
    )


def normalize_static_shape(shape) -> tuple:
    """The canonical static shape: a tuple of ``int >= 0``, ``None`` and non-constant Dims.

    Accepts ints (NumPy ints too; ``True``/``False`` mean 1/None as in
    PyTensor's ``broadcastable``), None (or ``"?"``), dimension strings and
    Dims. Bad entries raise ValueError naming the axis (AnnotationError, a
    ValueError, for a malformed expression); a shape that is not a sequence
    raises TypeError.

    >>> normalize_static_shape([2, None, "n+1"])
    (2, None, Dim('n+1'))
    """
    if type(shape) is not tuple:
        if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
            raise TypeError(
                f"a static shape is a tuple of sizes, got {type(shape).__name__} {shape!r}"
            )
        shape = tuple(shape)
    if len(shape) > MAX_NDIM:
        raise ValueError(f"a shape has at most {MAX_NDIM} dimensions, got {len(shape)}")
    for x in shape:  # an already normalised shape is returned as is
        if (
            x is not None
            and (type(x) is not int or x < 0)
            and (type(x) is not Dim or x.value is not None)
        ):
            break
    else:
        return shape
    return tuple([_entry(x, axis) for axis, x in enumerate(shape)])


def format_static_shape(shape: tuple) -> str:
    """A normalised static shape as text, e.g. ``(2, n+1, None)``.

    >>> format_static_shape((2, None))
    '(2, None)'
    """
    inner = ", ".join("None" if x is None else str(x) for x in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def dim_is_super(a, b) -> bool | None:
    """Whether every size allowed by rigid entry ``b`` is allowed by rigid entry ``a``.

    ``a`` None accepts everything; against ``b`` None a known ``a`` is False
    (the unknown size may differ); otherwise the sizes must be provably equal
    (True), provably different (False), or it cannot be told (None).

    >>> from tensortypes.core.dims import symbol
    >>> dim_is_super(None, 3), dim_is_super(3, None), dim_is_super(symbol("n"), 5)
    (True, False, None)
    """
    if a is None:
        return True
    if b is None:
        return False
    if a is b:
        return True
    if type(a) is int and type(b) is int:
        return a == b
    return eq(a, b)


def shape_is_super(a, b) -> bool | None:
    """Tri-state: is every value of static shape ``b`` a value of static shape ``a``?

    Different ranks give False; otherwise a False entry wins, then None, then True.

    >>> shape_is_super((None, 3), (2, 3)), shape_is_super(("n",), (5,))
    (True, None)
    """
    return normalized_shape_is_super(normalize_static_shape(a), normalize_static_shape(b))


def normalized_shape_is_super(a: tuple, b: tuple) -> bool | None:
    """``shape_is_super`` for shapes already normalised (the hot path of TensorType)."""
    if len(a) != len(b):
        return False
    if a == b:
        return True
    result: bool | None = True
    for x, y in zip(a, b):
        r = dim_is_super(x, y)
        if r is False:
            return False
        if r is None:
            result = None
    return result


def _conflict(a, b, axis) -> ValueError:
    where = "" if axis is None else f" at axis {axis}"
    return ValueError(f"incompatible sizes {a} and {b}{where}")


def merge_dims(a, b, axis=None):
    """The most specific entry compatible with rigid entries ``a`` and ``b``.

    ``None`` yields to anything; an int wins over a Dim it may equal (no fact
    about the symbol is recorded); of two Dims that may be equal the one first
    in canonical order is kept, so merging is commutative. A provable conflict
    raises ValueError naming ``axis`` and both sizes.

    >>> merge_dims(None, 5), merge_dims(3, 3)
    (5, 3)
    """
    if a is None:
        return b
    if b is None or a is b:
        return a
    a_int, b_int = type(a) is int, type(b) is int
    if a_int and b_int:
        if a == b:
            return a
        raise _conflict(a, b, axis)
    if eq(a, b) is False:
        raise _conflict(a, b, axis)
    if a_int:
        return a
    if b_int:
        return b
    return a if a._key <= b._key else b


def merge_shapes(a, b) -> tuple:
    """The entry-wise :func:`merge_dims` of two static shapes of the same rank.

    >>> merge_shapes((None, 3), (2, None))
    (2, 3)
    """
    a = normalize_static_shape(a)
    b = normalize_static_shape(b)
    if a is b or a == b:
        return a
    if len(a) != len(b):
        raise ValueError(
            f"cannot merge shapes of different ranks: {format_static_shape(a)} "
            f"has {len(a)} dimensions, {format_static_shape(b)} has {len(b)}"
        )
    try:
        return tuple([merge_dims(x, y, axis) for axis, (x, y) in enumerate(zip(a, b))])
    except ValueError as error:
        raise ValueError(
            f"cannot merge shapes {format_static_shape(a)} and {format_static_shape(b)}: {error}"
        ) from None


class _Mismatch(Exception):
    """Internal: two entries that provably cannot broadcast."""


def _is_one(x) -> bool | None:
    if x is None:
        return None
    if type(x) is int:
        return x == 1
    return eq(x, 1)


def _broadcast_pair(x, y):
    """The broadcast of two entries; raises _Mismatch on a provable conflict."""
    if x is None:
        if y is None or y == 1:
            return None
        # If the unknown size broadcasts against y at all, the result is y,
        # unless y itself may be 1 (then it is the unknown size).
        return y if type(y) is int or _is_one(y) is False else None
    if y is None:
        return _broadcast_pair(y, x)
    x_int, y_int = type(x) is int, type(y) is int
    if x_int and y_int:
        if x == y or y == 1:
            return x
        if x == 1:
            return y
        raise _Mismatch
    if x is y:
        return x
    if not x_int and not y_int:
        key = (id(x), id(y))  # interned Dims live forever: ids are never reused
        found = _DIM_PAIRS.get(key, _MISSING)
        if found is _MISSING:
            try:
                found = _broadcast_dims(x, y)
            except _Mismatch:
                found = _Mismatch
            if len(_DIM_PAIRS) >= _DIM_PAIRS_LIMIT:
                _DIM_PAIRS.clear()
            _DIM_PAIRS[key] = found
        if found is _Mismatch:
            raise _Mismatch
        return found
    return _broadcast_dims(x, y)


_DIM_PAIRS: dict[tuple, object] = {}
_DIM_PAIRS_LIMIT = 1 << 14
_MISSING = object()


def _broadcast_dims(x, y):
    """The broadcast of two entries, at least one a Dim, neither None."""
    x_int, y_int = type(x) is int, type(y) is int
    x_one, y_one = _is_one(x), _is_one(y)
    if x_one:
        return y
    if y_one:
        return x
    same = eq(x, y)
    if same:
        return x if x_int or (not y_int and x._key <= y._key) else y
    if same is False and x_one is False and y_one is False:
        raise _Mismatch
    # An int other than 1 is the result whenever the pair broadcasts at all.
    if x_int:
        return x
    if y_int:
        return y
    return None  # a fresh unknown: the run-time check decides (ARCHITECTURE, Decisions)


def broadcast_static_shapes(*shapes) -> tuple:
    """NumPy broadcasting of static shapes with tri-state reasoning on the sizes.

    ``1`` with ``x`` is ``x``; equal sizes stay; ``None`` with ``5`` is ``5`` and
    ``n`` with ``5`` is ``5`` (if they broadcast at all, the result is 5); ``n``
    with ``m`` is ``n`` when ``m`` is provably 1 or provably equal to ``n``, else
    a fresh unknown ``None``. A provable conflict (``3`` with ``4``, or sizes
    provably different and provably not 1) raises ValueError. ``n`` with
    ``n+1`` is not a conflict: for ``n = 0`` they broadcast to 0, so the result
    is ``None``.

    >>> broadcast_static_shapes((3, 1), (4,)), broadcast_static_shapes((None,), (5,))
    ((3, 4), (5,))
    """
    norm = [normalize_static_shape(s) for s in shapes]
    if not norm:
        return ()
    result = norm[0]
    try:
        for shape in norm[1:]:
            if shape is not result and shape != result:
                result = _broadcast_two(result, shape)
    except _Mismatch:
        raise _explain_mismatch(norm) from None
    return result


def _broadcast_two(a: tuple, b: tuple) -> tuple:
    if len(a) < len(b):
        a, b = b, a
    out = list(a)
    for i, y in enumerate(b, len(a) - len(b)):
        x = out[i]
        if x is not y:
            out[i] = _broadcast_pair(x, y)
    return tuple(out)


def _explain_mismatch(norm: list) -> ValueError:
    """The error for shapes known not to broadcast, naming the two arguments that clash."""
    ndim = max(len(s) for s in norm)
    for axis in range(-ndim, 0):
        acc, source = None, -1
        for index, shape in enumerate(norm):
            if len(shape) < -axis:
                continue
            entry = shape[axis]
            if source < 0:
                acc, source = entry, index
                continue
            try:
                merged = _broadcast_pair(acc, entry)
            except _Mismatch:
                return ValueError(
                    f"shapes cannot be broadcast: arg {source} with shape "
                    f"{format_static_shape(norm[source])} and arg {index} with shape "
                    f"{format_static_shape(shape)} have sizes {acc} and {entry} at axis "
                    f"{axis} (counted from the right)"
                )
            if merged is not acc:
                acc, source = merged, index
    return ValueError(
        f"shapes cannot be broadcast: "  # pragma: no cover - defensive
        f"{', '.join(format_static_shape(s) for s in norm)}"
    )


def broadcast_compatible(a, b) -> bool | None:
    """Tri-state: do static shapes ``a`` and ``b`` broadcast against each other?

    >>> broadcast_compatible((3, 1), (4,)), broadcast_compatible((3,), (4,))
    (True, False)
    """
    a = normalize_static_shape(a)
    b = normalize_static_shape(b)
    result: bool | None = True
    for x, y in zip(reversed(a), reversed(b)):
        if type(x) is int and type(y) is int:
            if x != y and x != 1 and y != 1:
                return False
            continue
        if x is y and x is not None:
            continue
        if x is None or y is None:
            if _is_one(y if x is None else x) is not True:
                result = None
            continue
        x_one, y_one, same = _is_one(x), _is_one(y), eq(x, y)
        if x_one or y_one or same:
            continue
        if x_one is False and y_one is False and same is False:
            return False
        result = None
    return result
