"""Indexing and slicing of arrays, tuples and lists (layer 6: ``check``).

:class:`IndexMixin` gives the walker ``x[...]``: basic indexing of arrays
(ints drop an axis, slices keep it with the sliced size: ``x[:, 1:]`` of
``(b, n)`` is ``(b, n-1)``; ``None`` adds an axis of 1; ``...`` stands for the
axes not indexed), advanced indexing with integer and boolean arrays (float
indices are a ``dtype`` error; a mask must match the axes it covers), too many
indices and constant indices out of range (``index``); constant indices and
slices of tuples and list literals; and ``Sequential[i]``.
"""

from __future__ import annotations

import ast

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from .host import CheckerHost
from .diagnostics import CheckFailure
from .expr import ELLIPSIS, item_key, label_of
from .joins import join_all, union_of
from .notes import ShapeNote
from .rules import pretrained
from .rules import shapefns as sf
from .rules.access import shape_item, shape_slice
from .rules.base import int_const, is_float
from .sizes import same_size
from .symbolic import (
    NONE,
    ONE,
    UNKNOWN,
    Arr,
    DictV,
    FloatV,
    IntV,
    LayerV,
    LibV,
    ListV,
    NoneV,
    Rest,
    ShapeV,
    StrV,
    TupleV,
    UnionV,
    Unknown,
    complement_count,
    selected_count,
    fmt_dim,
    fmt_dtypes,
    fmt_shape,
    signature_sizes,
)

__all__ = ["IndexMixin", "index_array"]


class IndexMixin(CheckerHost):
    """Subscripts for the walker (needs ``eval``, ``check_optional`` and ``with_notes``)."""

    def e_Subscript(self, node, frame):
        key = item_key(node)
        if key is not None and key in frame.vars:  # narrowed: if lst[0] is not None:
            return frame.vars[key]
        receiver = self.check_optional(self.eval(node.value, frame), node.value, frame)
        if (
            type(receiver) is UnionV
            and any(type(v) is Arr for v in receiver.items)
            and all(type(v) in (Arr, TupleV, ListV) for v in receiver.items)
        ):
            # ``Union[Tuple[float, float], Float[Tensor, "2 D"]]``: ``scale[0]`` is a
            # float or a ``(D,)`` array; ``scale[:, 1]`` can only be the array's (a
            # tuple or a list takes no tuple of indices).
            if isinstance(node.slice, ast.Tuple) and len(node.slice.elts) > 1:
                arrays = [v for v in receiver.items if type(v) is Arr]
                if len(arrays) == 1:
                    return self.subscript(arrays[0], node, frame)
                return self.over_arrays(
                    UnionV(tuple(arrays)), lambda v: self.subscript(v, node, frame)
                )
            if all(type(v) is Arr for v in receiver.items):
                return self.over_arrays(receiver, lambda v: self.subscript(v, node, frame))
            return union_of([self.subscript(v, node, frame) for v in receiver.items])
        return self.subscript(receiver, node, frame)

    def subscript(self, receiver, node, frame):
        """``receiver[...]`` of the subscript ``node``."""
        receiver = self.named_items(receiver, node, frame)
        t = type(receiver)
        if t is Arr:
            index = self.eval_index(node.slice, frame)
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if self.loop_bounds:
                self.loop_index(receiver, parts, index, node, frame)
            # Index arrays are operands too (their notes say where each was made).
            arrays = [
                (part, value)
                for part, (kind, value) in zip(parts, index)
                if kind == "item" and type(value) is Arr
            ]
            return self.with_notes(
                lambda: index_array(receiver, index, label_of(node.value)),
                [(node.value, receiver), *arrays],
                frame,
            )
        if t is ShapeV:
            return self.open_shape_index(receiver, node, frame)
        if t is DictV:
            self.eval(node.slice, frame)
            key = node.slice.value if isinstance(node.slice, ast.Constant) else None
            if type(key) in (str, int):
                return receiver.get(key)
            return receiver.value if receiver.items is None else UNKNOWN
        if t is TupleV or (t is ListV and receiver.items is not None):
            items = receiver.items
            if isinstance(node.slice, ast.Slice):
                bounds = [
                    int_const(self.eval(b, frame)) if b is not None else None
                    for b in (node.slice.lower, node.slice.upper, node.slice.step)
                ]
                if all(
                    b is not None or n is None
                    for b, n in zip(bounds, (node.slice.lower, node.slice.upper, node.slice.step))
                ):
                    part = items[slice(*bounds)]
                    return TupleV(part) if t is TupleV else ListV(part)
                return UNKNOWN
            i = int_const(self.eval(node.slice, frame))
            if i is None:
                return join_all(items)
            if not -len(items) <= i < len(items):
                if t is ListV:
                    return UNKNOWN  # a list may have grown since its literal
                raise CheckFailure(
                    "index",
                    f"tuple index {i} out of range for "
                    f"{label_of(node.value)} of length {len(items)}",
                )
            return items[i]
        if t is ListV:
            self.eval(node.slice, frame)
            return receiver if isinstance(node.slice, ast.Slice) else receiver.elem
        if t is LayerV and receiver.rule.name == "Sequential":
            i = int_const(self.eval(node.slice, frame))
            layers = receiver.args.get("layers", ()) or ()
            if i is not None and -len(layers) <= i < len(layers):
                return layers[i]
            return UNKNOWN
        if t is LibV and receiver.fields:
            # ``text_encoder(ids)[0]``, ``tokens["input_ids"]``: a field of a record
            key = self.eval(node.slice, frame)
            i = int_const(key)
            if i is not None:
                return pretrained.field(receiver, i)
            return pretrained.field(receiver, key.value) if type(key) is StrV else UNKNOWN
        self.eval(node.slice, frame)
        return UNKNOWN

    def loop_index(self, receiver, parts, index, node, frame) -> None:
        """An index ``i`` of ``for i in range(n)`` on an axis of size ``m``: an error when
        ``n`` may be larger (``ci[0, c]`` of ``c`` over the components but the axis of
        the positions). Axes are counted up to the first ``...`` or index array. Only
        sizes the function's parameter annotations name (``symbolic.signature_sizes``;
        an ``n_seq: int`` or an instance's size may be tied to ``m`` as used); an ``m``
        no smaller than ``n`` (``n - 1``, ``min(n, k)``), or a size never compared with
        ``n`` (``sizes.same_size``), is fine."""
        shape = receiver.shape
        if shape is None:
            return
        axis = 0
        for part, (kind, value) in zip(parts, index):
            if kind == "item" and (type(value) is NoneV or value is ELLIPSIS):
                if value is ELLIPSIS:
                    return
                continue  # a new axis: no axis of the receiver taken
            if kind == "item" and type(value) is not IntV:
                return  # an index array or a mask: the axes after it are not counted here
            if axis >= len(shape) or type(shape[axis]) is not Dim:
                return
            if kind == "item" and type(part) is ast.Name and part.id in self.loop_bounds:
                bound, line, stop = self.loop_bounds[part.id]
                size = shape[axis]
                named = signature_sizes(declared=True)
                if (
                    bound.free_symbols | size.free_symbols <= named
                    and dims.eq(dims.dmin(bound, size), bound) is not True
                    and not same_size(bound, size)
                ):
                    notes: tuple = ()
                    # where a variable bound was set (``seq_len = mask.shape[-1]``)
                    set_at = (
                        self.assignment_line(frame, stop.id, line)
                        if type(stop) is ast.Name
                        else None
                    )
                    if set_at is not None:
                        said = f"{stop.id} is {fmt_dim(bound)}"
                        notes = (
                            ShapeNote(
                                f"{said} (line {set_at})",
                                0,
                                stop.id,
                                "",
                                sources=(
                                    (
                                        set_at,
                                        f"{said} here, the bound of index {part.id}",
                                        stop.id,
                                        "said",
                                    ),
                                ),
                            ),
                        )
                    raise CheckFailure(
                        "index",
                        f"index {part.id} runs over range({fmt_dim(bound)}) (line {line}), "
                        f"but axis {axis} of {label_of(node.value)} {fmt_shape(shape)} has "
                        f"size {fmt_dim(size)}: out of range when {fmt_dim(bound)} > "
                        f"{fmt_dim(size)}",
                        notes,
                    )
            axis += 1

    def open_shape_index(self, shape, node, frame):
        """``x.shape[i]``/``x.shape[a:b]`` of an array of open rank (``(*bs, c)``)."""
        if isinstance(node.slice, ast.Slice):
            parts = (node.slice.lower, node.slice.upper, node.slice.step)
            bounds = [int_const(self.eval(b, frame)) if b is not None else None for b in parts]
            if (
                any(b is None and n is not None for b, n in zip(bounds, parts))
                or parts[2] is not None
            ):
                return UNKNOWN
            return shape_slice(shape.entries, bounds[0], bounds[1])
        i = int_const(self.eval(node.slice, frame))
        return shape_item(shape.entries, i) if i is not None else IntV()

    def eval_index(self, node, frame) -> list:
        if not isinstance(node, (ast.Tuple, ast.Slice)):
            value = self.eval(node, frame)
            if type(value) is TupleV:
                # ``t[tuple(colons)]``, ``x[torch.where(m)]``: a tuple indexes as its items
                return [("item", v) for v in value.items]
            return [("item", value)]
        parts = node.elts if isinstance(node, ast.Tuple) else [node]
        out = []
        for part in parts:
            if isinstance(part, ast.Slice):
                out.append(
                    (
                        "slice",
                        [
                            self.eval(p, frame) if p is not None else None
                            for p in (part.lower, part.upper, part.step)
                        ],
                    )
                )
            else:
                out.append(("item", self.eval(part, frame)))
        return out


def _given(bound) -> bool:
    """Whether a slice bound is written and is not None (``x[:n]``, not ``x[:]``)."""
    return bound is not None and type(bound) is not NoneV


def _slice_size(n, bounds):
    start, stop, step = (int_const(b) if type(b) is IntV else b for b in bounds)
    sym = [b.dim if type(b) is IntV else None for b in bounds]
    if step is not None and (type(step) is not int or step <= 0):
        return None
    step = step or 1
    if (
        type(n) is Dim
        and n.is_constant
        and all(
            type(b) is int or (b is None and (raw is None or type(raw) is NoneV))
            for b, raw in zip((start, stop), bounds)
        )
    ):
        return dims.const(len(range(n.value)[slice(start, stop, step)]))
    if type(n) is not Dim:
        return None

    def position(b, symbolic, default, given):
        if b is None and symbolic is None:
            return None if given else default  # x[i:i+1] with i unknown: size unknown
        if type(b) is int:
            return n + b if b < 0 else dims.const(b)
        if symbolic is None or dims.ge(symbolic, 0) is True:
            return symbolic
        # Read with every size at least 1 (a size of 0 empties the array anyway):
        # ``x[:-k]``, ``x[-w:]``, ``x[p:-p]`` with ``p = (k-1)//2`` count from the end
        # (``x[:-0]`` would be empty, which code that slices by ``-k`` never means);
        # ``x[:t-1]`` from the start; a bound of either sign gives an unknown size.
        shifted = symbolic.substitute({s: dims.symbol(s) + 1 for s in symbolic.free_symbols})
        if dims.le(shifted, 0) is True:
            return n + symbolic
        return symbolic if dims.ge(shifted, 0) is True else None

    lo = position(
        start,
        sym[0] if start is None and bounds[0] is not None else None,
        dims.const(0),
        _given(bounds[0]),
    )
    hi = position(
        stop, sym[1] if stop is None and bounds[1] is not None else None, n, _given(bounds[1])
    )
    if lo is None or hi is None:
        return None
    if type(hi) is not Dim:
        return None
    if dims.le(hi, n) is False:
        hi = n  # a stop past the end stops at the end
    if n.is_constant and n.value == 1 and lo == 0 and not hi.is_constant:
        return n  # ``pe[:t]`` of a (1, max_len, d) buffer: the one item (every size >= 1)
    # A bound that may or may not exceed the axis is taken to be in range (``mask[:t]``
    # of a (max_len, max_len) buffer has t rows): code that slices by a size means it.
    size = hi - lo
    if dims.ge(size, 0) is not True and not (size.is_constant and size.value >= 0):
        if size.is_constant:
            return dims.const(0)
    return size if step == 1 else (size + (step - 1)) // step


def _index_open(x: Arr, index: list, label: str):
    """``x[index]`` for a shape with ``*rest``: ``...`` splits the index at the rest."""
    if len(index) == 1 and type(index[0][1]) is Arr:
        masked = _masked_open(x, index[0][1], label)
        if masked is not None:
            return masked
    marks = [i for i, (kind, v) in enumerate(index) if v is ELLIPSIS]
    if not marks:
        # ``t[1:]`` of ``(n, ...)``: an index without ``...`` indexes the leading axes
        index, marks = [*index, ("item", ELLIPSIS)], [len(index)]
    basic = all(kind == "slice" or type(v) in (IntV, NoneV) or v is ELLIPSIS for kind, v in index)
    if len(marks) != 1 or not basic:
        return x.with_(shape=None, origin=None)
    cut = next(i for i, d in enumerate(x.shape) if type(d) is Rest)
    before, after = index[: marks[0]], index[marks[0] + 1 :]
    if _consumed(before) > cut or _consumed(after) > len(x.shape) - cut - 1:
        return x.with_(shape=None, origin=None)  # the index reaches into the *rest
    head = index_array(x.with_(shape=x.shape[:cut]), [*before, ("item", ELLIPSIS)], label)
    tail = index_array(x.with_(shape=x.shape[cut + 1 :]), [("item", ELLIPSIS), *after], label)
    if head.shape is None or tail.shape is None:
        return x.with_(shape=None, origin=None)
    return x.with_(shape=(*head.shape, x.shape[cut], *tail.shape), origin=None)


def _masked_open(x: Arr, mask: Arr, label: str):
    """``x[mask]`` for a boolean ``mask`` with the same ``*rest`` as ``x`` (a ``*b`` of
    both annotations, or the ``...`` of the parameter both are made from): the mask
    covers the axes of ``x`` before the rest, the rest, and as many after it as it has
    there, each of the same size; the result is ``(?, <the axes of x after those>)``.
    None when that alignment is not known."""
    if mask.dtypes is None or not all(d.kind == "b" for d in mask.dtypes) or mask.shape is None:
        return None
    head_x, rest, tail_x = sf.split_rest(x.shape)
    head_m, rest_m, tail_m = sf.split_rest(mask.shape)
    if rest is None or rest_m is not rest or rest.name is None:
        return None  # two anonymous ``...`` need not be the same axes
    if len(head_m) != len(head_x) or len(tail_m) > len(tail_x):
        return None
    axes = [*range(len(head_x)), *(k - len(tail_x) for k in range(len(tail_m)))]
    for axis, m, d in zip(axes, (*head_m, *tail_m), (*head_x, *tail_x[: len(tail_m)])):
        if type(m) is Dim and type(d) is Dim and not same_size(m, d):
            raise CheckFailure(
                "index",
                f"boolean mask of shape {fmt_shape(mask.shape)} does not match axis "
                f"{axis} of {label} {fmt_shape(x.shape)} ({fmt_dim(m)} vs {fmt_dim(d)})",
            )
    return x.with_(shape=(_mask_count(mask), *tail_x[len(tail_m) :]), origin=None)


def _mask_count(mask: Arr):
    """The size ``x[mask]`` gives its masked axes: how many items of ``mask`` are true, a
    size only the data fixes, the same for each array the same mask selects from
    (``x[mask] / mag[mask]``), known for a mask made at a known line."""
    if mask.since is None or mask.shape is None:
        # a mask of a parameter's shape, or one a call returned (or its complement),
        # selects a count left unknown: ``assert torch.sum(mask) == 1`` may fix it
        return None
    found = complement_count(mask)
    return found if found is not None else selected_count(mask.since)


def _consumed(index: list) -> int:
    return sum(1 for kind, v in index if kind == "slice" or type(v) is IntV)


_ADVANCED = object()  # where the axes of the index arrays go


def index_array(x: Arr, index: list, label: str):
    """The value of ``x[index]`` (basic and advanced indexing)."""
    shape = x.shape
    if shape is None:
        return x.with_(shape=None, origin=None)
    if x.rank is None:
        return _index_open(x, index, label)
    if any(kind == "item" and type(v) in (Unknown, StrV) for kind, v in index):
        # An index nothing is known about (a NumPy bool, a field name of a structured
        # array) may add, keep or drop axes.
        return x.with_(shape=None, origin=None)
    consuming = 0
    for kind, v in index:
        if kind == "slice":
            consuming += 1
        elif type(v) is Arr and v.dtypes is not None and all(d.kind == "b" for d in v.dtypes):
            if v.rank is None:
                # a mask of unknown rank covers as many axes as it has
                return x.with_(shape=None, origin=None)
            consuming += v.rank
        elif v is not NONE and v is not ELLIPSIS:
            consuming += 1
    if consuming > len(shape):
        raise CheckFailure(
            "index",
            f"too many indices for {label}: it has rank {len(shape)} "
            f"{fmt_shape(shape)} but {consuming} were given",
        )
    out: list = []
    axis = 0
    advanced: list | None = None
    separated = False
    last_kind = None
    for kind, v in index:
        if (
            advanced is not None
            and last_kind == "array"
            and not (type(v) in (Arr, IntV) and kind != "slice")
        ):
            last_kind = "other"  # a slice, None or ... after the index arrays
        if v is ELLIPSIS:
            skip = len(shape) - consuming
            out.extend(shape[axis : axis + skip])
            axis += skip
            continue
        if kind == "slice":
            out.append(_slice_size(shape[axis], v))
            axis += 1
            continue
        if type(v) is NoneV:
            out.append(ONE)
            continue
        if type(v) is IntV:
            size = shape[axis]
            i = int_const(v)
            if (
                i is not None
                and type(size) is Dim
                and size.value is not None
                and not -size.value <= i < size.value
            ):
                raise CheckFailure(
                    "index",
                    f"index {i} is out of bounds for axis {axis} of {label} with size {size.value}",
                )
            axis += 1
            continue
        if type(v) is Arr:
            if v.dtypes is not None and is_float(v.dtypes):
                raise CheckFailure(
                    "dtype",
                    f"indices of {label} must be integers or bools, "
                    f"got an array of dtype {fmt_dtypes(v.dtypes)}",
                )
            if v.dtypes is not None and all(d.kind == "b" for d in v.dtypes):
                r = v.rank if v.rank is not None else 1
                if v.shape is not None and v.rank is not None:
                    for k, (m, s) in enumerate(zip(v.shape, shape[axis : axis + r])):
                        if type(m) is Dim and type(s) is Dim and not same_size(m, s):
                            raise CheckFailure(
                                "index",
                                f"boolean mask of shape "
                                f"{fmt_shape(v.shape)} does not match "
                                f"axis {axis + k} of {label} "
                                f"{fmt_shape(shape)} ({fmt_dim(m)} vs "
                                f"{fmt_dim(s)})",
                            )
                # a mask is the index arrays of its true items (``mask.nonzero()``):
                # one axis of their count, broadcast with the other index arrays
                # (``x[rows[:, None], mask]`` is ``(rows, count)``)
                index_shape: tuple = (_mask_count(v),)
                width = r
            elif v.shape is None:
                return x.with_(shape=None, origin=None)
            else:
                index_shape, width = v.shape, 1
            if advanced is None:
                advanced = [index_shape]
                out.append(_ADVANCED)
            else:
                # Index arrays broadcast together (``x[rows[:, None], cols]``); apart
                # (a slice between them) their axes go first, as NumPy and torch do.
                advanced.append(index_shape)
                separated |= last_kind != "array"
            last_kind = "array"
            axis += width
            continue
        if type(v) is FloatV:
            raise CheckFailure(
                "dtype", f"indices of {label} must be integers, slices or arrays, not a float"
            )
        if type(v) in (ListV, TupleV) and v.items is not None:
            out.append(dims.const(len(v.items)))
            axis += 1
            continue
        return x.with_(shape=None, origin=None)
    out.extend(shape[axis:])
    if advanced is not None:
        cut = out.index(_ADVANCED)
        joined = (
            sf.broadcast(advanced, [f"index {i} of {label}" for i in range(len(advanced))])
            if len(advanced) > 1
            else advanced[0]
        )
        if joined is None:
            return x.with_(shape=None, origin=None)
        rest = out[:cut] + out[cut + 1 :]
        out = [*joined, *rest] if separated else [*out[:cut], *joined, *out[cut + 1 :]]
    return x.with_(shape=tuple(out), origin=None)
