"""``SpecifyShape``: assert static shape information on a tensor variable (layer 4).

``SpecifyShape(shape)(x)`` returns a variable that is ``x`` at run time, after a
check, and whose type carries ``x``'s static shape merged with ``shape``. It is
what ``TensorType.filter_variable`` uses to narrow a variable's type, so the
merge is the finished form of the feature PyTensor's Type documentation calls "still under
development": the output of converting a ``(2, ?)`` variable to a ``(2, 1)``
type has type ``(2, 1)``.

This module works on any variable whose type has ``dtype``, ``shape``, ``ndim``
and ``clone(shape=...)``; it does not import ``TensorType`` (``type.py`` imports
this module), and ``tensortypes.tensor.specify_shape`` is the public entry
point that also accepts plain data.
"""

from __future__ import annotations

import numbers

from tensortypes.core.dims import Dim
from tensortypes.core.shapes import merge_dims, normalize_static_shape
from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, Op, Variable
from tensortypes.tensor._filtering import check_symbolic_shape

__all__ = ["SpecifyShape", "expand_shape_spec", "specify_variable"]


def expand_shape_spec(shape, ndim: int) -> tuple:
    """Normalise a user's shape for ``specify_shape``: ints, None, dims and one ``...``.

    ``...`` stands for as many ``None`` as needed to reach ``ndim``. A wrong
    length or a non-integer entry is a ValueError.

    >>> expand_shape_spec((..., 3), 3)
    (None, None, 3)
    """
    if isinstance(shape, (numbers.Integral, str, Dim)) or shape is None:
        shape = (shape,)
    try:
        entries = list(shape)
    except TypeError:
        raise ValueError(f"specify_shape: shape must be a sequence, got {shape!r}") from None
    ellipses = [i for i, e in enumerate(entries) if e is Ellipsis]
    if len(ellipses) > 1:
        raise ValueError(f"specify_shape: at most one '...' is allowed, got {shape!r}")
    if ellipses:
        i = ellipses[0]
        fill = ndim - (len(entries) - 1)
        if fill < 0:
            raise ValueError(
                f"specify_shape: shape {shape!r} has more entries than the "
                f"{ndim} dimensions of the variable"
            )
        entries[i : i + 1] = [None] * fill
    if len(entries) != ndim:
        raise ValueError(
            f"specify_shape: shape {tuple(shape)!r} has {len(entries)} entries, "
            f"but the variable has {ndim} dimensions"
        )
    for axis, entry in enumerate(entries):
        if isinstance(entry, bool) or not (
            entry is None or isinstance(entry, (numbers.Integral, str, Dim))
        ):
            raise ValueError(
                f"specify_shape: axis {axis}: expected an int, None or a dim "
                f"expression, got {entry!r} of type {type(entry).__name__}"
            )
    return normalize_static_shape(tuple(entries))


class SpecifyShape(Op):
    """Check at run time that ``x`` has ``shape``; its output's type carries it.

    ``shape`` is a static shape: ints, ``None`` (unchecked) and rigid dims.
    """

    __props__ = ("shape",)
    view_map = {0: [0]}

    def __init__(self, shape):
        self.shape = normalize_static_shape(shape)

    def __str__(self):
        return "SpecifyShape"

    def make_node(self, x):
        if not isinstance(x, Variable):
            raise TypeError(
                f"SpecifyShape expects a tensor Variable, got {type(x).__name__}; "
                "use tensortypes.tensor.specify_shape for plain data"
            )
        xtype = x.type
        if not hasattr(xtype, "ndim") or not hasattr(xtype, "clone"):
            raise TypeError(f"SpecifyShape expects a tensor variable, got a variable of {xtype}")
        if xtype.ndim != len(self.shape):
            raise ValueError(
                f"SpecifyShape: shape {self.shape} has {len(self.shape)} entries, "
                f"but {x} has {xtype.ndim} dimensions"
            )
        merged = []
        for axis, (have, want) in enumerate(zip(xtype.shape, self.shape)):
            if isinstance(want, Dim):
                merged.append(want)
                continue
            try:
                merged.append(merge_dims(have, want, axis=axis))
            except ValueError:
                raise ValueError(
                    f"SpecifyShape: axis {axis} of {x} has static size {have}, which "
                    f"conflicts with the specified size {want}"
                ) from None
        out = xtype.clone(shape=tuple(merged), name=None).make_variable()
        return Apply(self, [x], [out])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        check_value_shape(x, self.shape)
        output_storage[0][0] = x

    def infer_shape(self, node, input_shapes):
        return [tuple(s if s is not None else h for s, h in zip(self.shape, input_shapes[0]))]


def check_value_shape(x, shape: tuple) -> None:
    """Raise ``TypeCheckError`` naming the axis when ``x``'s shape breaks ``shape``."""
    xshape = getattr(x, "shape", None)
    if xshape is None:
        raise TypeCheckError(f"SpecifyShape: expected an array, got {type(x).__name__}")
    if len(xshape) != len(shape):
        raise TypeCheckError(
            f"SpecifyShape: expected {len(shape)} dimensions, got "
            f"{len(xshape)} (shape {tuple(xshape)})"
        )
    symbolic = False
    for axis, want in enumerate(shape):
        if want is None:
            continue
        if isinstance(want, Dim):
            symbolic = True
            continue
        if xshape[axis] != want:
            raise TypeCheckError(
                f"SpecifyShape: axis {axis} has size {xshape[axis]}, "
                f"expected {want} (shape {tuple(xshape)})"
            )
    if symbolic:
        problem = check_symbolic_shape(shape, tuple(xshape))
        if problem is not None:
            raise TypeCheckError(f"SpecifyShape: {problem} (shape {tuple(xshape)})")


def specify_variable(x: Variable, shape) -> Variable:
    """``x`` itself when ``shape`` says nothing new about it, else a ``SpecifyShape`` output."""
    spec = expand_shape_spec(shape, x.type.ndim)
    if all(want is None or want == have for want, have in zip(spec, x.type.shape)):
        return x
    return SpecifyShape(spec)(x)
