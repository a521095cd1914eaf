"""Rules that rearrange axes: reshape, permute, transpose, join, squeeze (layer 6).

Each class is one family, configured by data in the tables of
``check.rules.torch``/``numpy``; the shape arithmetic is in ``shapefns``.
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from ..diagnostics import CheckFailure
from ..sizes import same_size
from ..symbolic import UNKNOWN, Arr, ListV, Rest, TupleV, fmt_dim, fmt_shape, is_one
from . import shapefns as sf
from .base import (
    Call,
    ParamRule,
    Rule,
    as_array,
    bool_const,
    dims_of,
    first_array,
    int_const,
    int_list,
    promote,
)
from .reshape import reshape_shape

__all__ = [
    "Reshape",
    "Permute",
    "Swap",
    "Transpose",
    "Concat",
    "Stack",
    "PadSequence",
    "Squeeze",
    "Unsqueeze",
    "Flatten",
    "Expand",
    "AsShape",
]


def _split(call: Call):
    """The array a method is called on, and the positional arguments after it."""
    return first_array(call), list(call.args[1:])


class Reshape(Rule):
    """``reshape``/``view``: the new shape as several ints or one tuple, -1 allowed."""

    __slots__ = ("view", "method")

    def __init__(self, view: bool = False, method: bool = True):
        self.view = view
        self.method = method

    def apply(self, call: Call):
        x, args = _split(call)
        if x is None:
            return UNKNOWN
        if not self.method and not args:
            args = [call.kwargs.get("shape", call.kwargs.get("newshape", UNKNOWN))]
        if self.method and not args and "shape" in call.kwargs:
            args = [call.kwargs["shape"]]
        new = dims_of(args)
        if new is None:
            return x.with_(shape=None, origin=None)
        what = call.name
        if self.view and x.contiguous is False and not _same_axes(x.shape, new):
            raise CheckFailure(
                "view",
                f"{what}: the tensor is not contiguous (it was "
                f"transposed or expanded); view cannot change its "
                f"shape: use .reshape(...) or call .contiguous() "
                f"first",
            )
        shape = reshape_shape(x.shape, new, what, call.facts)
        layout: bool | tuple | None = True
        if self.view and x.contiguous is not True:
            layout = viewed_layout(x.shape, x.contiguous, shape, call.facts)
            if layout is None:  # a view that works, leaving a layout not known
                layout = None if x.contiguous is not False else False
            elif layout is False:
                raise CheckFailure(
                    "view",
                    f"{what}: the tensor is not contiguous (it was "
                    f"permuted) and this view merges axes that are "
                    f"not adjacent in memory: use .reshape(...) or "
                    f"call .contiguous() first",
                )
        return x.with_(shape=shape, origin=None, contiguous=layout)


def permuted(x: Arr, perm) -> bool | tuple:
    """The layout of ``x`` with its axes taken in the order ``perm`` (normalised).

    A layout is True (contiguous), False (not contiguous, unknown how) or the
    memory rank of each axis of a permuted contiguous array: ``(0, 2, 3, 1)``
    after ``permute(0, 2, 3, 1)`` of a contiguous rank-4 array.

    >>> permuted(Arr("torch", None, (None,) * 4), (0, 2, 3, 1))
    (0, 2, 3, 1)
    """
    rank = len(perm)
    order = tuple(range(rank)) if x.contiguous is True else x.contiguous
    if order is False or len(order) != rank or sorted(perm) != list(range(rank)):
        return False
    out = tuple(order[p] for p in perm)
    return True if out == tuple(range(rank)) else out


def viewed_layout(shape, layout, new, facts=()):
    """The layout after ``view(new)`` of a permuted array: False when the view
    merges axes that are not adjacent in memory (it raises at run time), None
    when that cannot be told (unknown sizes, a grouping not found), else the
    new layout.

    >>> h, w, c = dims.symbol("h"), dims.symbol("w"), dims.symbol("c")
    >>> one = dims.const(1)
    >>> viewed_layout((one, h, w, c), (0, 2, 3, 1), (one, h * w, c))
    (0, 2, 1)
    >>> viewed_layout((one, h, w, c), (0, 2, 3, 1), (one, h, w * c))
    False
    """
    if (
        layout is False
        or type(layout) is not tuple
        or shape is None
        or new is None
        or len(layout) != len(shape)
        or any(type(d) is not Dim for d in (*shape, *new))
    ):
        return None
    groups = _groups(shape, new, facts)
    if groups is None:
        return None
    placed = []
    for (i, a), (j, b) in groups:
        run = [k for k in range(i, i + a) if not (shape[k].is_constant and shape[k].value == 1)]
        if any(layout[k2] != layout[k1] + 1 for k1, k2 in zip(run, run[1:])):
            return False
        placed.append((layout[run[0]] if run else -1, j, b))
    ranks: list = [0] * len(new)
    position = 0
    for _, j, b in sorted(placed):
        for k in range(j, j + b):
            ranks[k] = position
            position += 1
    out = tuple(ranks)
    return True if out == tuple(range(len(new))) else out


def _groups(shape, new, facts):
    """Consecutive runs of ``shape`` and ``new`` with provably equal products, or None."""
    out = []
    i = j = 0
    while i < len(shape) and j < len(new):
        found = None
        for total in range(2, len(shape) - i + len(new) - j + 1):
            for a in range(1, total):
                b = total - a
                if i + a > len(shape) or j + b > len(new):
                    continue
                left, right = dims.const(1), dims.const(1)
                for d in shape[i : i + a]:
                    left = left * d
                for d in new[j : j + b]:
                    right = right * d
                if same_size(left, right, facts, remainders=False):
                    found = (a, b)
                    break
            if found is not None:
                break
        if found is None:
            return None
        out.append(((i, found[0]), (j, found[1])))
        i, j = i + found[0], j + found[1]
    return out if i == len(shape) and j == len(new) else None


def _same_axes(shape, new) -> bool:
    """Whether ``view(new)`` keeps every axis but those of size 1 (``view(-1, 1)`` or
    ``view(1, -1)`` of an ``(n, 1)`` array), which needs no contiguity: only a view
    that merges or splits axes does.

    >>> n = dims.symbol("n")
    >>> _same_axes((n, dims.const(1)), [dims.const(1), -1]), _same_axes((n, n), [-1])
    (True, False)
    """
    if shape is None or any(type(d) is Rest for d in shape):
        return False
    shape = [d for d in shape if not is_one(d)]
    new = [d for d in new if not is_one(d)]
    if len(shape) != len(new) or sum(type(d) is int for d in new) > 1:
        return False
    for old, want in zip(shape, new):
        if type(want) is int or want is old:
            continue  # the one -1 takes what is left: the axis itself
        if type(old) is not Dim or type(want) is not Dim or dims.eq(old, want) is not True:
            return False
    return True


class Permute(Rule):
    """``permute(*dims)`` / ``np.transpose(x, axes)``: axes in a new order."""

    __slots__ = ("numpy",)

    def __init__(self, numpy: bool = False):
        self.numpy = numpy

    def apply(self, call: Call):
        x, args = _split(call)
        if x is None:
            return UNKNOWN
        if not args:
            given = call.kwargs.get("axes", call.kwargs.get("dims"))
            args = [given] if given is not None else []
        if not args:
            if self.numpy:  # reverse all axes
                shape = None if x.rank is None else tuple(reversed(x.shape))
                return x.with_(shape=shape, origin=None, contiguous=False)
            raise CheckFailure("call", f"{call.name}() needs the new order of the dims")
        perm = int_list(args[0]) if len(args) == 1 else [int_const(a) for a in args]
        if perm is None or any(p is None for p in perm):
            return x.with_(shape=None, origin=None, contiguous=False)
        shape = sf.permute_shape(x.shape, perm, call.name)
        rank = len(perm)
        return x.with_(
            shape=shape,
            origin=None,
            contiguous=permuted(x, [p % rank for p in perm if p is not None])
            if not self.numpy
            else False,
        )


class Swap(ParamRule):
    """``transpose(dim0, dim1)`` / ``swapaxes``: two axes exchanged."""

    __slots__ = ()
    PARAMS = ("input", "dim0", "dim1")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        a, b = self.int_arg(bound, 1), self.int_arg(bound, 2)
        if a is None or b is None:
            return x.with_(shape=None, origin=None, contiguous=False)
        shape = sf.swap_shape(x.shape, a, b, call.name)
        layout: bool | tuple = False
        if shape is not None and x.kind == "torch":
            perm = list(range(len(shape)))
            i, j = a % len(perm), b % len(perm)
            perm[i], perm[j] = perm[j], perm[i]
            layout = permuted(x, perm)
        return x.with_(shape=shape, origin=None, contiguous=layout)


class Transpose(Rule):
    """``.T``/``.t()``: reverse the axes (``.t()`` needs rank <= 2)."""

    __slots__ = ("max_rank",)

    def __init__(self, max_rank: int | None = None):
        self.max_rank = max_rank

    def apply(self, call: Call):
        x = first_array(call)
        if x is None or x.rank is None:
            return UNKNOWN if x is None else x.with_(shape=None, origin=None)
        if self.max_rank is not None and x.rank > self.max_rank:
            raise CheckFailure(
                "rank",
                f"{call.name}: expects an array of rank <= "
                f"{self.max_rank}, got rank {x.rank} "
                f"{fmt_shape(x.shape)}",
            )
        return x.with_(shape=tuple(reversed(x.shape)), origin=None, contiguous=x.rank < 2)


def _arrays(call: Call, value) -> list | None:
    """The items of a known, non-empty tuple/list argument of arrays, else None."""
    items = value.items if type(value) in (TupleV, ListV) else None
    if not items:
        return None
    if call.kind == "torch" and any(type(v) is not Arr for v in items):
        # torch joins tensors only: a number there is a value whose declared type
        # (``-> float`` of a helper that returns a tensor) is not what it holds
        return None
    arrays = [as_array(v, call.kind) for v in items]
    return None if any(a is None for a in arrays) else arrays


def _grown(call: Call, bound: dict, params: tuple, new_axis: bool):
    """``torch.stack(results, dim)``/``torch.cat(results, dim)`` of a list grown by
    ``append`` in a loop (its length unknown, each item an array of one known shape):
    that shape with an axis of unknown size inserted at ``dim`` (stack) or in place of
    axis ``dim`` (cat). None when the list or the axis is not known so."""
    value = bound.get(params[0])
    if type(value) is not ListV or value.items is not None:
        return None
    x = as_array(value.elem, call.kind)
    given = bound.get(params[1])
    axis = 0 if given is None else int_const(given)
    if x is None or x.shape is None or axis is None:
        return None
    if sf.split_rest(x.shape)[1] is not None:
        # items of a shape with a ``*rest``: the axis must be before or after the rest
        if not new_axis:
            shape = sf.replace_axis(x.shape, axis, None)
        else:
            shape = sf.insert_axis(x.shape, axis, None)
        return None if shape is None else Arr(x.kind or call.kind, x.dtypes, shape)
    rank = len(x.shape) + (1 if new_axis else 0)
    if not -rank <= axis < rank:
        return None
    axis %= rank
    count = value.length  # how many items, when known (``[x] * k``, ``range(n)``)
    if new_axis:
        shape = (*x.shape[:axis], count, *x.shape[axis:])
    else:
        joined = x.shape[axis]
        size = count * joined if count is not None and type(joined) is Dim else None
        shape = (*x.shape[:axis], size, *x.shape[axis + 1 :])
    return Arr(x.kind or call.kind, x.dtypes, shape)


def _no_scalars(call: Call, seq) -> None:
    """``torch.cat`` (``np.concatenate``) of 0-d arrays: they have no axis to join
    (``torch.stack`` makes them a vector). The items of a list literal, or the element
    of a list grown by ``append``, when known to be 0-d arrays."""
    if type(seq) not in (ListV, TupleV):
        return
    items = seq.items if seq.items is not None else (seq.elem,) if type(seq) is ListV else ()
    for i, v in enumerate(items):
        if type(v) is Arr and v.shape == ():
            which = (
                f"{call.item_label(0, i)} is a 0-d array"
                if seq.items is not None
                else f"the items of {call.label(0)} are 0-d arrays"
            )
            raise CheckFailure(
                "concat",
                f"{call.name}: {which}, with no axis to join (stack makes a vector of 0-d arrays)",
            )


class Concat(ParamRule):
    """``cat``/``concatenate``/``hstack``/``vstack`` of a sequence along an axis."""

    __slots__ = ("fixed_axis", "promote_1d")
    PARAMS = ("tensors", "dim")

    def __init__(
        self,
        params: tuple | None = None,
        fixed_axis: int | None = None,
        promote_1d: str | None = None,
    ):
        super().__init__(params)
        self.fixed_axis = fixed_axis
        self.promote_1d = promote_1d  # "hstack"/"vstack": NumPy's handling of 1-d inputs

    def apply(self, call: Call):
        bound = call.bind(self.params)
        if self.promote_1d is None:
            _no_scalars(call, bound.get(self.params[0]))
        arrays = _arrays(call, bound.get(self.params[0]))
        if arrays is None and self.fixed_axis is None and not self.promote_1d:
            grown = _grown(call, bound, self.params, new_axis=False)
            if grown is not None:
                return grown
        if arrays is None or (
            any(a.shape is None for a in arrays) and any(a.shape is not None for a in arrays)
        ):
            return self._partly_known(call, bound)
        axis = self.fixed_axis
        if axis is None:
            given = bound.get(self.params[1])
            axis = 0 if given is None else int_const(given)
        if axis is None:
            return Arr(arrays[0].kind, arrays[0].dtypes, None)
        shapes = [a.shape for a in arrays]
        if self.promote_1d is not None:  # hstack/vstack see their inputs as atleast_1d/2d
            least = 1 if self.promote_1d == "hstack" else 2
            shapes = [
                (dims.const(1),) * (least - len(s)) + s
                if s is not None and sf.split_rest(s)[1] is None and len(s) < least
                else s
                for s in shapes
            ]
        if self.promote_1d == "hstack" and all(s is not None and len(s) == 1 for s in shapes):
            axis = 0
        labels = [call.item_label(0, i) for i in range(len(arrays))]
        if call.kind == "torch" and len(shapes) > 1:
            # torch.cat skips a 1-d empty array (``torch.empty(0)``: the start of a
            # buffer grown in a loop) whatever the rank of the others
            kept = [
                (s, lab)
                for s, lab in zip(shapes, labels)
                if not (s is not None and len(s) == 1 and s[0] == dims.const(0))
            ]
            if kept and len(kept) < len(shapes):
                shapes, labels = [s for s, _ in kept], [lab for _, lab in kept]
        shape = sf.concat_shape(shapes, labels, axis, call.name)
        dtypes = (arrays[0].dtypes, False)
        for a in arrays[1:]:
            dtypes = (promote(dtypes, (a.dtypes, False), call.kind), False)
        return Arr(arrays[0].kind or call.kind, dtypes[0], shape)

    def _partly_known(self, call: Call, bound: dict):
        """A known sequence with unknown items next to arrays: the result has the known
        arrays' rank and their other axes (the join needs them equal), the joined
        axis's size unknown; unknown when the arrays disagree on those."""
        value = bound.get(self.params[0])
        if not isinstance(value, (TupleV, ListV)) or not value.items or self.promote_1d:
            return UNKNOWN
        items = value.items
        known = [
            a
            for a in (as_array(v, call.kind) for v in items)
            if a is not None and a.shape is not None
        ]
        axis = self.fixed_axis
        if axis is None:
            given = bound.get(self.params[1])
            axis = 0 if given is None else int_const(given)
        if not known or axis is None:
            return UNKNOWN
        shape = known[0].shape
        prefix, rest, suffix = sf.split_rest(shape)
        if rest is not None:
            # ``(..., h, r)`` joined along ``-1`` (or a leading axis before the ``...``)
            if not (-len(suffix) <= axis < 0 or 0 <= axis < len(prefix)):
                return UNKNOWN
            axis = axis if axis >= 0 else len(shape) + axis
        elif not -len(shape) <= axis < len(shape):
            return UNKNOWN
        axis %= len(shape)
        for a in known[1:]:
            if a.shape != shape and (
                len(a.shape) != len(shape)
                or any(a.shape[i] != shape[i] for i in range(len(shape)) if i != axis)
            ):
                return UNKNOWN
        return Arr(known[0].kind or call.kind, None, (*shape[:axis], None, *shape[axis + 1 :]))


class PadSequence(ParamRule):
    """``pad_sequence(sequences, batch_first)``: sequences ``(L_i, *f)`` (their other
    axes alike) padded to the longest and stacked: ``(L, B, *f)``, or ``(B, L, *f)``
    with ``batch_first``; ``L`` is the length they share, else unknown, and ``B``
    how many there are, when known."""

    __slots__ = ()
    PARAMS = ("sequences", "batch_first", "padding_value", "padding_side")

    def apply(self, call: Call):
        bound = call.bind(self.params)
        seq = bound.get("sequences")
        first = bool_const(bound.get("batch_first"), False)
        if not isinstance(seq, (ListV, TupleV)) or first is None:
            return UNKNOWN
        items = seq.items if seq.items is not None else (seq.elem,) if type(seq) is ListV else ()
        found = [as_array(v, call.kind) for v in items]
        arrays = [a for a in found if a is not None and a.rank]
        if not arrays or len(arrays) < len(found):
            return UNKNOWN
        shape = arrays[0].shape
        for i, a in enumerate(arrays[1:], 1):
            if a.shape[1:] != shape[1:]:
                _differ(call, shape, a.shape, i)
                return UNKNOWN
        count: Dim | None = None
        longest: Dim | None = None
        if seq.items is not None:
            count = dims.const(len(arrays))
            if all(a.shape[0] == shape[0] for a in arrays):
                longest = shape[0]
        elif isinstance(seq, ListV):
            count = seq.length
        out = (count, longest) if first else (longest, count)
        return Arr(arrays[0].kind or call.kind, arrays[0].dtypes, (*out, *shape[1:]))


def _differ(call: Call, shape: tuple, other: tuple, i: int) -> None:
    """Sequences that differ off their first axis cannot be padded into one array."""
    if len(other) != len(shape):
        return
    for axis, (p, q) in enumerate(zip(shape[1:], other[1:]), 1):
        if type(p) is Dim and type(q) is Dim and not same_size(p, q):
            raise CheckFailure(
                "concat",
                f"{call.name}: {call.item_label(0, 0)} {fmt_shape(shape)} and "
                f"{call.item_label(0, i)} {fmt_shape(other)} differ on axis {axis} "
                f"({fmt_dim(p)} vs {fmt_dim(q)}): only the first axis, the length, may differ",
            )


class Stack(ParamRule):
    """``stack``: equal shapes joined along a new axis."""

    __slots__ = ()
    PARAMS = ("tensors", "dim")

    def apply(self, call: Call):
        bound = call.bind(self.params)
        arrays = _arrays(call, bound.get(self.params[0]))
        if arrays is None:
            return _grown(call, bound, self.params, new_axis=True) or UNKNOWN
        given = bound.get(self.params[1])
        axis = 0 if given is None else int_const(given)
        if axis is None:
            return Arr(arrays[0].kind, arrays[0].dtypes, None)
        labels = [call.item_label(0, i) for i in range(len(arrays))]
        return Arr(
            arrays[0].kind or call.kind,
            arrays[0].dtypes,
            sf.stack_shape([a.shape for a in arrays], labels, axis, call.name),
        )


class Squeeze(ParamRule):
    """``squeeze(dim)``; NumPy (``strict``) refuses to squeeze an axis that is not 1."""

    __slots__ = ("strict",)
    PARAMS = ("input", "dim")

    def __init__(self, params: tuple | None = None, strict: bool = False):
        super().__init__(params)
        self.strict = strict

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        given = bound.get(self.params[1])
        axes = None if given is None else int_list(given)
        if given is not None and axes is None:
            return x.with_(shape=None, origin=None)
        shape = x.shape
        for a in sorted(axes or [], reverse=True) if axes else [None]:
            shape = sf.squeeze_shape(shape, a, self.strict)
        return x.with_(shape=shape, origin=None)


class Unsqueeze(ParamRule):
    """``unsqueeze(dim)`` / ``expand_dims(axis)``: a new axis of size 1."""

    __slots__ = ()
    PARAMS = ("input", "dim")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        axis = self.int_arg(bound, 1)
        if axis is None:
            return x.with_(shape=None, origin=None)
        return x.with_(shape=sf.unsqueeze_shape(x.shape, axis), origin=None)


class Flatten(ParamRule):
    """``flatten(start_dim, end_dim)``; NumPy's ``ravel``/``flatten`` flatten everything."""

    __slots__ = ("start",)
    PARAMS = ("input", "start_dim", "end_dim")

    def __init__(self, params: tuple | None = None, start: int = 0):
        super().__init__(params)
        self.start = start

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        start = bound.get("start_dim")
        end = bound.get("end_dim")
        s = self.start if start is None else int_const(start)
        e = -1 if end is None else int_const(end)
        if s is None or e is None:
            return x.with_(shape=None, origin=None)
        return x.with_(shape=sf.flatten_shape(x.shape, s, e), origin=None, contiguous=True)


class Expand(Rule):
    """``expand(*sizes)``: broadcast to new sizes without copying (not contiguous)."""

    __slots__ = ()

    def apply(self, call: Call):
        x, args = _split(call)
        if x is None:
            return UNKNOWN
        if not args and "size" in call.kwargs:
            args = [call.kwargs["size"]]  # u.expand(size=(b, n))
        sizes = dims_of(args)
        if sizes is None:
            return x.with_(shape=None, origin=None)
        return x.with_(shape=sf.expand_shape(x.shape, sizes), origin=None, contiguous=False)


class AsShape(Rule):
    """``view_as``/``reshape_as``/``expand_as(other)``: the other tensor's shape."""

    __slots__ = ("mode",)

    def __init__(self, mode: str):
        self.mode = mode  # "view", "reshape" or "expand"

    def apply(self, call: Call):
        x = first_array(call)
        other = call.args[1] if len(call.args) > 1 else call.kwargs.get("other")
        if x is None:
            return UNKNOWN
        if type(other) is not Arr or other.rank is None:
            return x.with_(shape=None, origin=None)
        sizes = tuple(d if type(d) is Dim else None for d in other.shape)
        if self.mode == "expand":
            return x.with_(shape=sf.expand_shape(x.shape, sizes), origin=None, contiguous=False)
        if self.mode == "view" and x.contiguous is False:
            raise CheckFailure(
                "view",
                f"{call.name}: the tensor is not contiguous; use "
                f".reshape_as(...) or call .contiguous() first",
            )
        return x.with_(shape=reshape_shape(x.shape, sizes, call.name, call.facts), origin=None)
