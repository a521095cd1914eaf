"""Rules for functions that create arrays (layer 6: ``check.rules``).

``zeros``/``ones``/``empty``/``randn``/``rand``/``full``/``randint``, ``arange``,
``linspace``, ``eye``, the ``*_like`` family, and conversions from data
(``torch.tensor``, ``np.array``, ``torch.from_numpy``, ``jnp.asarray``). Default
dtypes follow each library: a new float array is float32 in PyTorch and JAX,
float64 in NumPy; an int one int64 (int32 in JAX without x64).
"""

from __future__ import annotations

import math

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import bool_

from ..symbolic import (
    UNKNOWN,
    Arr,
    BoolV,
    FloatV,
    IntV,
    ListV,
    Ref,
    ShapeV,
    StrV,
    TupleV,
    number_form,
)
from .base import (
    Call,
    Rule,
    default_float,
    default_int,
    dims_of,
    explicit_dtypes,
    first_array,
    int_const,
)
from .ops import binary

__all__ = [
    "Creator",
    "Normal",
    "SparseCoo",
    "Arange",
    "Linspace",
    "Eye",
    "Like",
    "FromData",
    "NewLike",
    "literal_array",
]


def is_object_dtype(value) -> bool:
    """Whether a ``dtype=`` argument asks for an array of Python objects."""
    if type(value) is StrV:
        return value.value in ("O", "object")
    return type(value) is Ref and value.path in ("builtins.object", "numpy.object_")


def _dtype(call: Call, bound_dtype, default):
    return explicit_dtypes(bound_dtype, frozenset({default}))


def _sizes(values):
    sizes = dims_of(values)
    if sizes is None:
        return None
    return tuple(None if type(d) is int else d for d in sizes)


class Creator(Rule):
    """``zeros(*size)``/``np.zeros(shape)``: a new array of the given sizes.

    ``shape_param``: how the sizes are passed (``"*size"``: several ints or one
    tuple; ``"shape"``: the first argument; ``"size"``: a keyword or the
    argument after ``skip`` leading ones, as in ``randint(low, high, size)``).
    ``dtype``: ``"float"``, ``"int"``, ``"bool"`` or ``"fill"`` (from the fill value).
    """

    __slots__ = ("shape_param", "dtype", "skip")

    def __init__(self, shape_param: str = "*size", dtype: str = "float", skip: int = 0):
        self.shape_param = shape_param
        self.dtype = dtype
        self.skip = skip

    def apply(self, call: Call):
        args = list(call.args[self.skip :])
        if self.shape_param == "*size":
            sizes = (
                _sizes(args)
                if args
                else (_sizes([call.kwargs["size"]]) if "size" in call.kwargs else None)
            )
            rest: list = []
        elif self.shape_param == "*dims":  # np.random.randn(d0, d1, ...)
            sizes = _sizes(args) if args else ()
            rest = []
        else:
            given = args[0] if args else call.kwargs.get(self.shape_param)
            if given is None:
                given = call.kwargs.get("shape", call.kwargs.get("size"))
            sizes = (
                None
                if given is None
                else (_sizes([given]) if type(given) in (TupleV, ListV, IntV, ShapeV) else None)
            )
            rest = args[1:]
        if self.dtype == "fill":
            fill = rest[0] if rest else call.kwargs.get("fill_value")
            base = {IntV: default_int(call.kind), BoolV: bool_}.get(
                type(fill), default_float(call.kind)
            )
            if type(fill) is Arr:
                base = fill.dtype or default_float(call.kind)
        else:
            base = {
                "float": default_float(call.kind),
                "int": default_int(call.kind),
                "bool": bool_,
            }[self.dtype]
        dtype = call.kwargs.get("dtype")
        if dtype is None and self.shape_param == "shape":
            # np.zeros(shape, dtype), np.full(shape, fill_value, dtype): positional too
            positional = rest[1:] if self.dtype == "fill" else rest
            dtype = positional[0] if positional else None
        if is_object_dtype(dtype):
            return UNKNOWN  # an array of Python objects: anything goes in
        return Arr(call.kind, _dtype(call, dtype, base), sizes)


class Normal(Rule):
    """``torch.normal(mean, std, size=None)``: a new array of ``size``, else the
    broadcast of ``mean`` and ``std`` (float)."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("mean", "std", "size"))
        size = bound.get("size")
        dtypes = _dtype(call, call.kwargs.get("dtype"), default_float(call.kind))
        if size is not None:
            sizes = _sizes([size]) if type(size) in (TupleV, ListV, ShapeV) else None
            return Arr(call.kind, dtypes, sizes)
        mean, std = bound.get("mean"), bound.get("std")
        if type(mean) is Arr or type(std) is Arr:
            return binary(call, mean, std, "float", call.label(0), call.label(1))
        return UNKNOWN


class SparseCoo(Rule):
    """``torch.sparse_coo_tensor(indices, values, size)``: a sparse array of
    ``size`` with the dtype of ``values``; without ``size`` its sizes are
    read from the indices at run time, so unknown."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("indices", "values", "size"))
        values, size = bound.get("values"), bound.get("size")
        base = values.dtypes if type(values) is Arr else frozenset({default_float(call.kind)})
        dtypes = explicit_dtypes(call.kwargs.get("dtype"), base)
        if type(size) in (TupleV, ListV, ShapeV):
            return Arr(call.kind, dtypes, _sizes([size]))
        return Arr(call.kind, dtypes, None)


class Arange(Rule):
    """``arange(end)``/``arange(start, end, step)``: ``(end - start)`` elements for step 1."""

    __slots__ = ()

    def apply(self, call: Call):
        args = list(call.args)
        for key in ("start", "end", "stop", "step"):
            if key in call.kwargs:
                args.append(call.kwargs[key])
        if not args:
            return UNKNOWN
        is_float = any(type(a) is FloatV for a in args)
        base = default_float(call.kind) if is_float else default_int(call.kind)
        dtypes = _dtype(call, call.kwargs.get("dtype"), base)
        if is_float and len(args) == 3:
            return Arr(call.kind, dtypes, (float_count(*args),))
        if is_float or any(type(a) is not IntV for a in args):
            return Arr(call.kind, dtypes, (None,))
        start, stop, step = (
            (dims.const(0), args[0].dim, dims.const(1))
            if len(args) == 1
            else (args[0].dim, args[1].dim, args[2].dim if len(args) > 2 else dims.const(1))
        )
        if start is None or stop is None or step is None or step.value is None or step.value <= 0:
            return Arr(call.kind, dtypes, (None,))
        s = step.value
        size = (stop - start + (s - 1)) // s if s != 1 else stop - start
        return Arr(call.kind, dtypes, (size,))


def _near_int(q) -> bool:
    """Whether ``q`` is so near an integer that floating point may round it either way."""
    return abs(q - round(q)) * 10**9 < 1


def float_count(start, stop, step) -> Dim | None:
    """How many floats ``arange(start, stop, step)`` makes: ``ceil((stop - start) / step)``.

    Known when the three are exact numbers of one size ``d`` (``c0 + c1 / d``,
    ``FloatV.value``) and the count is ``k*d + r`` for an int ``k``: the bin
    centres ``arange(0.5 * w, 1.0, w)`` of ``w = 1.0 / n`` are ``n``. A count that
    lands on an integer (``arange(0, 1, 1 / n)``) depends on rounding (``1 / (1 / 49)``
    is not 49 in floating point), so it is not known.

    >>> from fractions import Fraction as F
    >>> n = dims.symbol("n")
    >>> w = FloatV((F(0), F(1), n))
    >>> float_count(FloatV((F(0), F(1, 2), n)), FloatV((F(1), F(0), None)), w)
    Dim('n')
    >>> float_count(IntV(dims.const(0)), FloatV((F(1), F(0), None)), w) is None
    True
    """
    a, b, c = number_form(start), number_form(stop), number_form(step)
    if a is None or b is None or c is None:
        return None
    (t0, t1, td), (e0, e1, ed), (s0, s1, sd) = a, b, c
    named = {d for d in (td, ed, sd) if d is not None}
    if len(named) > 1:
        return None
    if sd is None:  # a constant step: every part must be constant
        if named or s0 <= 0:
            return None
        count = (e0 - t0) / s0
        return None if _near_int(count) else dims.const(max(0, math.ceil(count)))
    if s0 != 0 or s1 <= 0:
        return None
    # ((e0 - t0) * d + (e1 - t1)) / s1 = k * d + r
    k, r = (e0 - t0) / s1, (e1 - t1) / s1
    if k.denominator != 1 or k <= 0 or _near_int(r):
        return None
    return int(k) * sd + math.ceil(r)


class Linspace(Rule):
    """``linspace(start, end, steps)``: ``steps`` floats."""

    __slots__ = ()

    def apply(self, call: Call):
        steps = (
            call.args[2] if len(call.args) > 2 else call.kwargs.get("steps", call.kwargs.get("num"))
        )
        size: Dim | None
        if steps is None and call.kind != "torch":
            size = dims.const(50)  # NumPy's default num
        else:
            size = steps.dim if type(steps) is IntV else None
        return Arr(
            call.kind, _dtype(call, call.kwargs.get("dtype"), default_float(call.kind)), (size,)
        )


class Eye(Rule):
    """``eye(n)``/``eye(n, m)``."""

    __slots__ = ()

    def apply(self, call: Call):
        args = list(call.args)
        n = args[0] if args else call.kwargs.get("n", call.kwargs.get("N"))
        m = args[1] if len(args) > 1 else call.kwargs.get("m", call.kwargs.get("M", n))
        size = tuple(v.dim if type(v) is IntV else None for v in (n, m))
        return Arr(
            call.kind, _dtype(call, call.kwargs.get("dtype"), default_float(call.kind)), size
        )


class Like(Rule):
    """``zeros_like(x)`` and friends: ``x``'s shape, its dtype unless one is given."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: str | None = None):
        self.dtype = dtype  # "float": randn_like of an int tensor is still refused by torch

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        if call.kwargs.get("dtype") is not None:
            return x.with_(
                dtypes=explicit_dtypes(call.kwargs["dtype"], x.dtypes), origin=None, contiguous=True
            )
        if self.dtype == "fill" and len(call.args) > 1:
            fill = call.args[1]
            if type(fill) is FloatV and x.kind == "numpy":
                return x.with_(origin=None, contiguous=True)
        return x.with_(origin=None, contiguous=True)


def literal_array(value, kind):
    """The ``(dtypes, shape)`` of a nested list/tuple literal, or None when unknown."""
    if type(value) in (IntV, BoolV, FloatV):
        base = {IntV: default_int(kind), BoolV: bool_, FloatV: default_float(kind)}[type(value)]
        return {base}, ()
    if type(value) is Arr:
        return set(value.dtypes) if value.dtypes is not None else None, value.shape
    if type(value) is ListV and value.items is None and value.kind in ("list", "tuple"):
        # ``[f(x) for x in xs]``: its items numbers, one axis of its length (the length
        # of ``xs`` when known)
        elem = (
            literal_array(value.elem, kind) if type(value.elem) in (IntV, BoolV, FloatV) else None
        )
        return None if elem is None else (elem[0], (value.length,))
    if type(value) not in (TupleV, ListV) or value.items is None:
        return None
    items = value.items
    if not items:
        return {default_float(kind)}, (dims.const(0),)
    parts = [literal_array(v, kind) for v in items]
    if any(p is None for p in parts):
        return None
    shapes = {p[1] for p in parts}
    dtypes = set().union(*(p[0] for p in parts)) if all(p[0] is not None for p in parts) else None
    if dtypes is not None and len(dtypes) > 1:
        kinds = {d.kind for d in dtypes}
        dtypes = {default_float(kind)} if "f" in kinds else {default_int(kind)}
    inner = shapes.pop() if len(shapes) == 1 else None
    if inner is None:
        return None
    return dtypes, (dims.const(len(items)), *inner)


class FromData(Rule):
    """``torch.tensor(data)``, ``np.array(data)``, ``torch.from_numpy(a)``, ``jnp.asarray``."""

    __slots__ = ()

    def apply(self, call: Call):
        data = call.args[0] if call.args else call.kwargs.get("data", call.kwargs.get("obj"))
        if data is None:
            return UNKNOWN
        given = call.kwargs.get("dtype")
        if given is None and len(call.args) > 1 and call.kind != "torch":
            given = call.args[1]  # np.array(data, np.float32)
        if is_object_dtype(given):
            return UNKNOWN  # an array of Python objects: anything goes in
        found = literal_array(data, call.kind)
        dtypes, shape = found if found is not None else (None, None)
        dtypes = frozenset(dtypes) if dtypes is not None else None
        ndmin = int_const(call.kwargs.get("ndmin")) if "ndmin" in call.kwargs else None
        if shape is not None and ndmin is not None and len(shape) < ndmin:
            shape = (dims.const(1),) * (ndmin - len(shape)) + shape
        return Arr(call.kind, explicit_dtypes(given, dtypes), shape)


class NewLike(Rule):
    """``x.new_zeros(*size)`` and friends: new sizes, ``x``'s library and dtype."""

    __slots__ = ("fill",)

    def __init__(self, fill: bool = False):
        self.fill = fill  # new_full(size, fill_value)

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        sizes_args = list(call.args[1:2] if self.fill else call.args[1:])
        if not sizes_args and "size" in call.kwargs:
            sizes_args = [call.kwargs["size"]]
        dtypes = explicit_dtypes(call.kwargs.get("dtype"), x.dtypes)
        return Arr(x.kind or call.kind, dtypes, _sizes(sizes_args) if sizes_args else None)
