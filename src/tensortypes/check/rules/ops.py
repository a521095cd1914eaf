"""The kinds of rule the tables are made of (layer 6: ``check.rules``).

Each class is one family of operations, configured by data: which parameter
is the axis, whether a reduction keeps dims, what dtype results. The tables in
``check.rules.torch``/``numpy`` instantiate them per function or method; a
function whose shape is a plain signature is a :class:`Sig` written in the
annotation language (``"input: [n k], mat2: [k m] -> [n m]"``).
"""

from __future__ import annotations

import re

from tensortypes.core.dtypes import bool_, int64

from ..annotations import DTYPE_NAMES
from ..binding import Binder, dtype_problem
from ..diagnostics import CheckFailure
from ..shapetext import parse_shape
from ..sizes import agree, same_size
from ..symbolic import (
    UNKNOWN,
    Arr,
    FloatV,
    IntV,
    Ref,
    Rest,
    TupleV,
    Unknown,
    fmt_dtypes,
    fmt_shape,
)
from . import shapefns as sf
from .access import nonzero_tuple
from .base import (
    Call,
    ParamRule,
    Rule,
    as_array,
    bool_const,
    bound_array,
    default_float,
    explicit_dtypes,
    first_array,
    int_const,
    int_list,
    is_float,
    promote,
    scalar_dtype,
)

__all__ = [
    "Ternary",
    "Sig",
    "Elementwise",
    "Binary",
    "binary",
    "Where",
    "MaskedFill",
    "Reduce",
    "Matmul",
    "matmul",
    "Flat",
    "PairDistance",
    "InPlace",
]


class Sig(Rule):
    """A signature in the annotation language: ``"a: Float[n k], b: [k m] -> [n m]"``.

    Parameters are array patterns (``[...]``, with an optional jaxtyping dtype
    class before the bracket). The result takes the promoted dtype of the
    array arguments unless the return names a dtype class; a tuple of patterns
    (``"A: [*b n n] -> ([*b n], [*b n n])"``) returns a tuple of arrays.
    """

    __slots__ = ("params", "rets", "many", "code", "text")
    _PARAM = re.compile(r"(\w+)\s*:\s*(\w+)?\[([^\]]*)\]")

    def __init__(self, text: str, code: str = "rank"):
        args, _, ret = text.partition("->")
        self.params = tuple(
            (
                m.group(1),
                DTYPE_NAMES.get(m.group(2)) if m.group(2) else None,
                parse_shape(m.group(3)),
            )
            for m in self._PARAM.finditer(args)
        )
        found = re.findall(r"(\w+)?\[([^\]]*)\]", ret)
        if not found:
            raise ValueError(f"signature {text!r} has no return shape")
        self.rets = tuple(
            (DTYPE_NAMES.get(dtype) if dtype else None, parse_shape(shape))
            for dtype, shape in found
        )
        self.many = ret.strip().startswith("(")
        self.code = code
        self.text = text

    def apply(self, call: Call):
        bound = call.bind(tuple(p[0] for p in self.params))
        binder = Binder(facts=call.facts)
        dtypes = []
        for index, (name, want, pattern) in enumerate(self.params):
            arr = bound_array(call, bound, name)
            if arr is None:
                continue
            label = call.label(index if index < len(call.args) else name)
            if dtype_problem(want, arr.dtypes):
                raise CheckFailure(
                    "dtype",
                    f"{call.name}: {label} has dtype {fmt_dtypes(arr.dtypes)}, expected {want}",
                )
            dtypes.append((arr.dtypes, False))
            problems = binder.match(pattern, arr.shape, f"{label} {fmt_shape(arr.shape)}")
            if problems:
                raise CheckFailure(self.code, f"{call.name}: {problems[0].message}")
        out = dtypes[0] if dtypes else (None, False)
        for other in dtypes[1:]:
            out = (promote(out, other, call.kind), False)
        results = tuple(
            Arr(call.kind, want if want is not None else out[0], binder.substitute(shape))
            for want, shape in self.rets
        )
        return TupleV(results) if self.many else results[0]


class Elementwise(Rule):
    """A unary elementwise function: same shape; dtype kept, made float, or bool."""

    __slots__ = ("result", "needs")

    def __init__(self, result: str = "same", needs: str | None = None):
        self.result = result  # "same", "float" (int inputs give float), "bool"
        self.needs = needs  # "float": refuse integer inputs (torch's softmax, mean)

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            x = as_array(call.kwargs.get("input", call.kwargs.get("x", UNKNOWN)), call.kind)
        if x is None:
            return UNKNOWN
        dtypes = x.dtypes
        if (
            self.needs == "float"
            and dtypes is not None
            and not is_float(dtypes)
            and call.kind == "torch"
        ):
            raise CheckFailure(
                "dtype",
                f"{call.name}: needs a floating-point input, "
                f"{call.label(0)} has dtype {fmt_dtypes(dtypes)}",
            )
        if self.result == "bool":
            dtypes = frozenset({bool_})
        elif self.result == "float" and dtypes is not None and not is_float(dtypes):
            dtypes = frozenset({default_float(call.kind)})
        return x.with_(dtypes=dtypes, kind=x.kind or call.kind, origin=None)


class Binary(Rule):
    """A broadcasting binary function: ``add``, ``maximum``, ``eq``, ``truediv``...."""

    __slots__ = ("result", "params")

    def __init__(self, result: str = "promote", params=("input", "other")):
        self.result = result  # "promote", "float" (true division), "bool"
        self.params = params

    def apply(self, call: Call):
        bound = call.bind(self.params)
        a, b = (bound.get(p) for p in self.params[:2])
        result = self.result
        mode = call.kwargs.get("rounding_mode")
        if result == "float" and mode is not None and type(mode).__name__ != "NoneV":
            result = "promote"  # torch.div(a, b, rounding_mode="floor") keeps ints
        return binary(call, a, b, result, call.label(0), call.label(1))


class Ternary(Rule):
    """A broadcasting function of three operands: ``lerp(input, end, weight)``,
    ``addcmul(input, tensor1, tensor2)``: the broadcast of the three, dtypes promoted."""

    __slots__ = ("params",)

    def __init__(self, params: tuple):
        self.params = params

    def apply(self, call: Call):
        bound = call.bind(self.params)
        a, b, c = (bound.get(p) for p in self.params)
        if a is None or b is None or c is None:
            return UNKNOWN
        first = binary(call, a, b, "promote", call.label(0), call.label(1))
        if type(first) is not Arr:
            return UNKNOWN
        return binary(
            call, first, c, "promote", f"{call.label(0)} and {call.label(1)}", call.label(2)
        )


def binary(call: Call, a, b, result: str, la: str, lb: str):
    """The value of an elementwise binary operation on two operands (arrays or scalars)."""
    if type(a) is not Arr and type(b) is not Arr:
        return UNKNOWN
    xa, xb = as_array(a, call.kind), as_array(b, call.kind)
    if xa is None or xb is None:
        if result != "bool" or xa is None or type(b) not in _OPAQUE:
            # an unknown left operand may be an object with its own ``*``; the value of
            # arithmetic with an unknown one stays unknown (a branch that joins it
            # would otherwise lend it a shape)
            return UNKNOWN
        # ``x == mask_idx``: an array compared with a value nothing is known about (a
        # number or an array) gives a mask of the array's last axes that cannot be 1,
        # after some leading axes
        shape = sf.broadcast([xa.shape, None], [la, lb])
        return Arr(xa.kind, frozenset({bool_}), shape)
    kind = xa.kind if type(a) is Arr else xb.kind
    shape = sf.broadcast([xa.shape, xb.shape], [la, lb])
    if xa.shape is not None and xb.shape is not None and _leading_lost(shape, xa.shape, xb.shape):
        call.cannot_tell(
            f"{la} {fmt_shape(xa.shape)} and {lb} {fmt_shape(xb.shape)} have "
            f"variadic axes that cannot be lined up: only their last common "
            f"axes are compared, and the result's leading axes are unknown"
        )
    if result == "bool":
        dtypes = frozenset({bool_})
    else:
        dtypes = promote(scalar_dtype(a, kind), scalar_dtype(b, kind), kind)
        if result == "float" and dtypes is not None and not is_float(dtypes):
            dtypes = frozenset({default_float(kind)})
    return Arr(kind, dtypes, shape)


def _leading_lost(shape, *given) -> bool:
    """Whether a broadcast of shapes ``given`` lost their leading axes: no result, or
    one led by a ``...`` of unknown origin none of them has."""
    if shape is None:
        return True
    rest = sf.split_rest(shape)[1]
    return rest is Rest(None) and all(d is not rest for g in given for d in g)


class Where(Rule):
    """``where(condition, x, y)``: the three broadcast together."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("condition", "input", "other"))
        values = [bound.get(k) for k in ("condition", "input", "other")]
        if len(call.args) == 1 and not call.kwargs:
            # where(cond): the indices of its true items, one array per axis
            cond = values[0]
            if type(cond) is Arr and cond.rank == 0:
                return UNKNOWN
            return nonzero_tuple(cond, call.line)
        found = [as_array(v, call.kind) for v in values]
        if not any(type(v) is Arr for v in values):
            return UNKNOWN
        # a value nothing is known about (a number or an array) broadcasts as an array
        # of unknown shape: the known operands still give the last axes
        shapes = []
        for a, v in zip(found, values):
            if a is None and type(v) not in _OPAQUE:
                return UNKNOWN
            shapes.append(a.shape if a is not None else None)
        shape = sf.broadcast(shapes, [call.label(i) for i in range(3)])
        kind = next((v.kind for v in values if type(v) is Arr), call.kind)
        if any(type(v) in _OPAQUE for v in values[1:]):
            return Arr(kind, None, shape)
        dtypes = promote(scalar_dtype(values[1], kind), scalar_dtype(values[2], kind), kind)
        return Arr(kind, dtypes, shape)


_OPAQUE = (Unknown, Ref)


class MaskedFill(Rule):
    """``masked_fill(mask, value)``: a bool mask that broadcasts to the input's shape.

    The result keeps the input's shape, so the mask may not add axes or sizes;
    PyTorch refuses a mask of any dtype but bool (a float ``tril`` mask is the
    usual slip: compare it, ``mask == 0``).
    """

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", "mask", "value"))
        x = bound_array(call, bound, "input")
        mask = bound.get("mask")
        if x is None:
            return UNKNOWN
        if type(mask) is Arr:
            if mask.dtypes is not None and not all(d.kind == "b" for d in mask.dtypes):
                raise CheckFailure(
                    "dtype",
                    f"{call.name}: the mask must be a bool tensor, "
                    f"{call.label(1)} has dtype "
                    f"{fmt_dtypes(mask.dtypes)} (compare it: "
                    f"{call.label(1)} == 0)",
                )
            joined = sf.broadcast([x.shape, mask.shape], [call.label(0), call.label(1)])
            if (
                x.rank is not None
                and joined is not None
                and not any(type(d) is Rest for d in joined)
                and len(joined) > x.rank
            ):
                raise CheckFailure(
                    "broadcast",
                    f"{call.name}: mask {call.label(1)} "
                    f"{fmt_shape(mask.shape)} has more axes than "
                    f"{call.label(0)} {fmt_shape(x.shape)}",
                )
        return x.with_(origin=None)


class Reduce(ParamRule):
    """A reduction over ``dim``/``axis`` with ``keepdim``/``keepdims``.

    ``result``: ``"same"`` (max, min), ``"sum"`` (ints widen to int64),
    ``"float"`` (mean, std: PyTorch refuses integer inputs), ``"index"``
    (argmax: int64), ``"bool"`` (any, all). ``pair``: PyTorch's ``max(x, dim)``
    returns ``(values, indices)``; ``"twin"``: two results of the values' dtype
    (``var_mean``, ``aminmax``). ``axis``: the axis reduced when none is given
    (``mode``, ``kthvalue``: the last), else every axis. ``numbers``: parameters
    that must be numbers, not arrays (``quantile``'s ``q``: an array of them adds
    an axis), else the result is not known.
    """

    __slots__ = ("result", "pair", "axis", "numbers")
    PARAMS = ("input", "dim", "keepdim")

    def __init__(
        self,
        params: tuple | None = None,
        result: str = "same",
        pair: bool | str = False,
        axis: int | None = None,
        numbers: tuple = (),
    ):
        super().__init__(params)
        self.result = result
        self.pair = pair
        self.axis = axis
        self.numbers = numbers

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        if any(type(bound.get(name)) not in (IntV, FloatV) for name in self.numbers):
            return UNKNOWN
        axis_value = bound.get("dim", bound.get("axis"))
        if self.pair is True and type(axis_value) is Arr:
            return binary(call, x, axis_value, "promote", call.label(0), call.label(1))
        keep = bool_const(bound.get("keepdim", bound.get("keepdims")))
        if axis_value is None and self.axis is not None:
            axes: list | None = [self.axis]
        elif axis_value is None or type(axis_value).__name__ == "NoneV":
            axes = None
        else:
            axes = int_list(axis_value)
            if axes is None:
                return x.with_(shape=None, origin=None)
        if keep is None:
            return x.with_(shape=None, origin=None)
        dtypes = explicit_dtypes(bound.get("dtype"), None)
        if dtypes is None and bound.get("dtype") is None:
            dtypes = self._dtypes(call, x)
        shape = sf.reduce_shape(x.shape, axes, keep)
        kind = x.kind or call.kind
        # NumPy reduces over every axis to a NumPy scalar, not a 0-d array.
        out = Arr(
            kind,
            dtypes,
            shape,
            numpy_scalar=kind == "numpy" and axes is None and not keep and not self.pair,
        )
        if self.pair == "twin":
            return TupleV((out, out))
        if self.pair and axes is not None:
            return TupleV((out, out.with_(dtypes=frozenset({int64}))))
        return out

    def _dtypes(self, call: Call, x: Arr):
        d = x.dtypes
        if self.result == "index":
            return frozenset({int64})
        if self.result == "bool":
            return frozenset({bool_})
        if d is None:
            return None
        if self.result == "sum" and all(t.kind in "bui" for t in d):
            return frozenset({int64})
        if self.result == "float" and not is_float(d):
            if x.kind == "torch" or call.kind == "torch":
                raise CheckFailure(
                    "dtype",
                    f"{call.name}: needs a floating-point input "
                    f"(PyTorch cannot infer the output dtype), "
                    f"{call.label(0)} has dtype {fmt_dtypes(d)}",
                )
            return frozenset({default_float(call.kind)})
        return d


class InPlace(Rule):
    """``x.add_(y)`` (``sub_``, ``mul_``, ``div_``): the operation's result must have
    ``x``'s shape, which the call keeps (as ``x += y`` does)."""

    __slots__ = ("inner",)

    def __init__(self, inner: Rule):
        self.inner = inner

    def apply(self, call: Call):
        out = self.inner.apply(call)
        x = call.args[0] if call.args else None
        if type(x) is not Arr:
            return out
        old, new = x.shape, out.shape if type(out) is Arr else None
        if (
            old is not None
            and new is not None
            and sf.split_rest(old)[1] is None
            and sf.split_rest(new)[1] is None
            and (len(old) != len(new) or any(not agree(a, b) for a, b in zip(old, new)))
        ):
            raise CheckFailure(
                "broadcast",
                f"{call.name}: in-place update of {call.label(0)} {fmt_shape(old)} would "
                f"need shape {fmt_shape(new)}: the result of an in-place operation keeps "
                f"the target's shape",
            )
        return x.with_(origin=None)


class PairDistance(Rule):
    """``F.pairwise_distance(x1, x2)`` (the norm over the last axis) and
    ``F.cosine_similarity(x1, x2, dim=1)``: the broadcast of the two, that axis
    reduced (kept with ``keepdim=True``), a float result."""

    __slots__ = ("params", "axis")

    def __init__(self, params: tuple, axis: int):
        self.params = params
        self.axis = axis  # the reduced axis when the call does not give ``dim``

    def apply(self, call: Call):
        bound = call.bind(self.params)
        a, b = (bound.get(p) for p in self.params[:2])
        if type(a) is not Arr or type(b) is not Arr:
            return UNKNOWN
        both = binary(call, a, b, "float", call.label(0), call.label(1))
        if type(both) is not Arr or both.shape is None:
            return both
        axis = int_const(bound["dim"]) if "dim" in bound else self.axis
        keep = bool_const(bound["keepdim"]) if "keepdim" in bound else False
        if axis is None or keep is None:
            return both.with_(shape=None)
        return both.with_(shape=sf.reduce_shape(both.shape, [axis], keep))


class Matmul(Rule):
    """``matmul``/``@``/``mm``/``dot``: contraction, batch broadcasting, and dtypes.

    PyTorch does not promote in a matrix product: both operands need the same
    dtype (mixed precision is an error); NumPy and JAX promote.
    """

    __slots__ = ("params", "max_rank")

    def __init__(self, params=("input", "other"), max_rank: int | None = None):
        self.params = params
        self.max_rank = max_rank

    def apply(self, call: Call):
        bound = call.bind(self.params)
        a, b = (bound.get(p) for p in self.params)
        return matmul(call, a, b, call.label(0), call.label(1), self.max_rank)


def matmul(call: Call, a, b, la: str, lb: str, max_rank=None):
    """The value of ``a @ b``."""
    if type(a) is not Arr or type(b) is not Arr:
        return UNKNOWN
    if max_rank is not None:
        for x, lab in ((a, la), (b, lb)):
            if x.rank is not None and x.rank != max_rank:
                raise CheckFailure(
                    "rank",
                    f"{call.name}: expects rank-{max_rank} arrays, "
                    f"{lab} has rank {x.rank} {fmt_shape(x.shape)}",
                )
    kind = a.kind or b.kind
    if kind == "torch" and a.dtype is not None and b.dtype is not None and a.dtype is not b.dtype:
        raise CheckFailure(
            "dtype",
            f"{call.name}: operands have different dtypes: {la} is "
            f"{a.dtype} and {lb} is {b.dtype} (PyTorch does not "
            f"promote in matrix products; cast one with .to(...))",
        )
    shape = sf.matmul_shape(a.shape, b.shape, f"{la}", f"{lb}")
    dtypes = promote((a.dtypes, False), (b.dtypes, False), kind)
    return Arr(kind, dtypes, shape)


class Flat(Rule):
    """NumPy's ``outer(a, b)`` and ``vdot(a, b)``, which flatten both inputs first.

    ``outer`` gives ``(a.size, b.size)``; ``vdot`` a 0-d result and needs the
    two sizes equal.
    """

    __slots__ = ("inner",)

    def __init__(self, inner: bool):
        self.inner = inner

    def apply(self, call: Call):
        bound = call.bind(("a", "b"))
        a, b = (bound_array(call, bound, p) for p in ("a", "b"))
        if a is None or b is None:
            return UNKNOWN
        size_a, size_b = (sf.product(x.shape) if x.rank is not None else None for x in (a, b))
        dtypes = promote((a.dtypes, False), (b.dtypes, False), call.kind)
        if not self.inner:
            return Arr(a.kind or call.kind, dtypes, (size_a, size_b))
        if size_a is not None and size_b is not None and not same_size(size_a, size_b, call.facts):
            raise CheckFailure(
                "matmul",
                f"{call.name}: {call.label(0)} has {size_a} "
                f"elements but {call.label(1)} has {size_b}"
                f"{sf.why_different(size_a, size_b)}",
            )
        return Arr(a.kind or call.kind, dtypes, ())
