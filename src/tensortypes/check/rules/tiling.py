"""Rules that tile, move, pad or sample axes (layer 6: ``check.rules``).

``repeat`` (PyTorch's: sizes multiply, extra sizes add leading axes),
``repeat_interleave``, ``broadcast_to``, ``moveaxis``/``movedim``,
``meshgrid`` (``"ij"`` or ``"xy"`` indexing), ``F.pad`` (pairs from the last
axis backwards) and ``F.grid_sample`` (the grid gives the output's spatial
sizes and must end in one coordinate per spatial axis).
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import float32

from ..diagnostics import CheckFailure
from ..sizes import same_size
from ..symbolic import UNKNOWN, Arr, IntV, ListV, Rest, StrV, TupleV, fmt_dim, fmt_shape
from . import shapefns as sf
from .base import Call, Rule, as_array, dims_of, first_array, int_const, int_list, promote

__all__ = [
    "Tile",
    "Repeat",
    "RepeatInterleave",
    "BroadcastTo",
    "MoveAxis",
    "Meshgrid",
    "Pad",
    "GridSample",
    "SizeOf",
    "LegacyTensor",
]


_FLOAT32 = frozenset({float32})


def _size(d):
    return d if type(d) is Dim else None


class Repeat(Rule):
    """``x.repeat(*sizes)`` (PyTorch): each axis times its count; extra counts lead."""

    __slots__ = ()

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        args = list(call.args[1:]) or ([call.kwargs["repeats"]] if "repeats" in call.kwargs else [])
        counts = dims_of(args)
        if (
            counts is not None
            and (x.shape is None or x.rank is None)
            and not any(type(c) is Rest for c in counts)
        ):
            # at least one count per axis, so the result has one axis per count
            return x.with_(shape=(None,) * len(counts), origin=None, contiguous=True)
        if (
            counts is None
            or any(type(c) is Rest for c in counts)
            or x.shape is None
            or x.rank is None
        ):
            return x.with_(shape=None, origin=None)
        if len(counts) < x.rank:
            raise CheckFailure(
                "rank",
                f"{call.name}: {len(counts)} repeat counts for an "
                f"array of rank {x.rank} {fmt_shape(x.shape)} (give "
                f"at least one per axis)",
            )
        lead = len(counts) - x.rank
        shape = [*counts[:lead]]
        for d, c in zip(x.shape, counts[lead:]):
            d = _size(d)
            # a count not known (``n_views``) gives an axis of unknown size
            shape.append(None if d is None or type(c) is not Dim else d * c)
        return x.with_(shape=tuple(shape), origin=None, contiguous=True)


class Tile(Rule):
    """``tile(x, reps)``: each axis times its count, counts lined up from the right (an
    array with fewer axes than counts gets leading axes of 1; fewer counts than axes
    leave the leading axes as they are)."""

    __slots__ = ("params",)

    def __init__(self, params: tuple = ("input", "dims")):
        self.params = params

    def apply(self, call: Call):
        bound = call.bind(self.params)
        x = as_array(bound.get(self.params[0]), call.kind)
        if x is None or bound.get(self.params[1]) is None:
            return UNKNOWN
        # ``x.tile(n, 1, 1)``: PyTorch's method takes the counts one by one too
        counts = dims_of(list(call.args[1:]) if len(call.args) > 2 else [bound[self.params[1]]])
        if counts is None or x.shape is None or sf.split_rest(x.shape)[1] is not None:
            return x.with_(shape=None, origin=None)
        if any(type(c) is Rest for c in counts):
            return x.with_(shape=None, origin=None)
        rank = max(len(counts), len(x.shape))
        shape = (dims.const(1),) * (rank - len(x.shape)) + tuple(x.shape)
        padded = [dims.const(1)] * (rank - len(counts)) + list(counts)
        out = []
        for d, c in zip(shape, padded):
            d = _size(d)
            out.append(None if d is None or type(c) is not Dim else d * c)
        return x.with_(shape=tuple(out), origin=None, contiguous=True)


class RepeatInterleave(Rule):
    """``repeat_interleave(repeats, dim)``: one axis times an int count (flattened
    without ``dim``); a tensor of counts gives an unknown size."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", "repeats", "dim"))
        x = bound.get("input")
        if type(x) is not Arr:
            return UNKNOWN
        count = bound.get("repeats")
        c = count.dim if type(count) is IntV else None
        axis = bound.get("dim")
        if axis is None or type(axis).__name__ == "NoneV":
            total = sf.product(x.shape) if x.rank is not None else None
            return x.with_(
                shape=(total * c if total is not None and c is not None else None,), origin=None
            )
        i = int_const(axis)
        if i is None or x.rank is None:
            return x.with_(shape=None, origin=None)
        k = sf.norm_axis(i, x.rank)
        d = _size(x.shape[k])
        new = d * c if d is not None and c is not None else None
        return x.with_(shape=(*x.shape[:k], new, *x.shape[k + 1 :]), origin=None)


class BroadcastTo(Rule):
    """``broadcast_to(x, shape)``: ``x`` must broadcast to exactly ``shape``."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", "size"))
        x = as_array(bound.get("input", call.kwargs.get("array")), call.kind)
        given = bound.get("size", call.kwargs.get("shape"))
        if x is None or given is None:
            return UNKNOWN
        # x.broadcast_to(2, 3, 4): PyTorch's method also takes the sizes one by one.
        sizes = dims_of(list(call.args[1:]) if len(call.args) > 2 else [given])
        if sizes is None:
            return x.with_(shape=None, origin=None)
        return x.with_(shape=sf.expand_shape(x.shape, sizes), origin=None, contiguous=False)


class MoveAxis(Rule):
    """``moveaxis``/``movedim(x, source, destination)``: axes moved, others in order."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", "source", "destination"))
        x = bound.get("input")
        if type(x) is not Arr:
            return UNKNOWN
        src, dst = int_list(bound.get("source")), int_list(bound.get("destination"))
        if src is None or dst is None or x.rank is None:
            return x.with_(shape=None, origin=None, contiguous=False)
        if len(src) != len(dst):
            raise CheckFailure(
                "axis", f"{call.name}: {len(src)} source axes but {len(dst)} destinations"
            )
        rank = x.rank
        src = [sf.norm_axis(a, rank, "source") for a in src]
        dst = [sf.norm_axis(a, rank, "destination") for a in dst]
        if len(set(src)) != len(src) or len(set(dst)) != len(dst):
            raise CheckFailure("axis", f"{call.name}: repeated axis")
        order = [i for i in range(rank) if i not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return x.with_(shape=tuple(x.shape[i] for i in order), origin=None, contiguous=False)


class Meshgrid(Rule):
    """``meshgrid(*vectors, indexing=...)``: one array per input, shaped by all of them.

    ``default`` is the library's indexing (``"ij"`` in PyTorch, ``"xy"`` in NumPy,
    where the first two axes are exchanged).
    """

    __slots__ = ("default",)

    def __init__(self, default: str):
        self.default = default

    def apply(self, call: Call):
        values = list(call.args)
        if len(values) == 1 and type(values[0]) in (TupleV, ListV):
            values = list(values[0].items or ())
        if not values or any(type(v) is not Arr for v in values):
            return UNKNOWN
        mode = call.kwargs.get("indexing")
        mode = mode.value if type(mode) is StrV else (self.default if mode is None else None)
        sizes = []
        for v in values:
            if v.rank is None or v.rank > 1:
                sizes.append(None if v.rank != 0 else dims.const(1))
                continue
            sizes.append(_size(v.shape[0]) if v.rank == 1 else dims.const(1))
        if mode == "xy" and len(sizes) >= 2:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        elif mode != "ij":
            sizes = [None] * len(sizes)
        dtypes = (values[0].dtypes, False)
        for v in values[1:]:
            dtypes = (promote(dtypes, (v.dtypes, False), v.kind or call.kind), False)
        return TupleV(
            tuple(v.with_(shape=tuple(sizes), origin=None, contiguous=False) for v in values)
        )


class Pad(Rule):
    """``F.pad(x, (left, right, top, bottom, ...))``: pairs from the last axis back."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", "pad"))
        x = bound.get("input")
        pad = bound.get("pad")
        if type(x) is not Arr:
            return UNKNOWN
        items = pad.items if type(pad) is TupleV or type(pad) is ListV else None
        if items is None or x.shape is None:
            return x.with_(shape=None, origin=None)
        if len(items) % 2:
            raise CheckFailure(
                "call",
                f"{call.name}: the padding has {len(items)} values; it needs two per padded axis",
            )
        axes = len(items) // 2
        prefix, rest, suffix = sf.split_rest(x.shape)
        room = len(suffix) if rest is not None else len(x.shape)
        if axes > room:
            if rest is not None:
                return x.with_(shape=None, origin=None)
            raise CheckFailure(
                "rank",
                f"{call.name}: {len(items)} padding values pad "
                f"{axes} axes, but {call.label(0)} has rank "
                f"{len(x.shape)} {fmt_shape(x.shape)}",
            )
        shape = list(x.shape)
        for k in range(axes):
            lo, hi = items[2 * k], items[2 * k + 1]
            i = len(shape) - 1 - k
            d = _size(shape[i])
            add = [v.dim if type(v) is IntV else None for v in (lo, hi)]
            shape[i] = None if d is None or None in add else d + add[0] + add[1]
        return x.with_(shape=tuple(shape), origin=None)


class GridSample(Rule):
    """``F.grid_sample(input (N, C, *in), grid (N, *out, k))``: ``(N, C, *out)``, with
    ``k`` the number of spatial axes (2 or 3)."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", "grid"))
        x, grid = bound.get("input"), bound.get("grid")
        if type(x) is not Arr or type(grid) is not Arr:
            return UNKNOWN
        if x.rank is None or grid.rank is None:
            return x.with_(shape=None, origin=None)
        if x.rank not in (4, 5) or grid.rank != x.rank:
            raise CheckFailure(
                "rank",
                f"{call.name}: needs a 4-d or 5-d input and a grid of "
                f"the same rank; got {call.label(0)} "
                f"{fmt_shape(x.shape)} and {call.label(1)} "
                f"{fmt_shape(grid.shape)}",
            )
        spatial = x.rank - 2
        last = _size(grid.shape[-1])
        if last is not None and last.is_constant and last.value != spatial:
            raise CheckFailure(
                "layer",
                f"{call.name}: the grid's last axis holds "
                f"{fmt_dim(last)} coordinates, expected {spatial} "
                f"for a {x.rank}-d input",
            )
        n, m = _size(x.shape[0]), _size(grid.shape[0])
        if n is not None and m is not None and not same_size(n, m, call.facts):
            raise CheckFailure(
                "layer",
                f"{call.name}: batch sizes differ: {call.label(0)} "
                f"has {fmt_dim(n)}, {call.label(1)} has "
                f"{fmt_dim(m)}{sf.why_different(n, m)}",
            )
        return x.with_(shape=(x.shape[0], x.shape[1], *grid.shape[1:-1]), origin=None)


class SizeOf(Rule):
    """``torch.Size(sizes)``: the tuple of sizes itself."""

    __slots__ = ()

    def apply(self, call: Call):
        given = call.args[0] if call.args else None
        if given is None:
            return TupleV(())
        if type(given) in (TupleV, ListV) and given.items is not None:
            return TupleV(given.items)
        return given if type(given).__name__ == "ShapeV" else UNKNOWN


class LegacyTensor(Rule):
    """``torch.Tensor(3, 4)`` (new float32 sizes) or ``torch.Tensor(data)`` (float32 data)."""

    __slots__ = ("data",)

    def __init__(self, data: Rule):
        self.data = data

    def apply(self, call: Call):
        if not call.args and not call.kwargs:
            return Arr("torch", _FLOAT32, (dims.const(0),))
        if call.args and all(type(a) is IntV for a in call.args):
            return Arr("torch", _FLOAT32, tuple(a.dim for a in call.args))
        if not call.args or type(call.args[0]) not in (ListV, TupleV, Arr):
            return Arr("torch", _FLOAT32, None)  # sizes or data, nothing known
        found = self.data.apply(call)
        return found.with_(dtypes=_FLOAT32) if type(found) is Arr else found
