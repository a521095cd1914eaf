"""Rules for casts, views of an array's metadata, and indexing functions (layer 6).

``.float()``/``.to(dtype)``/``.astype``, identity-like methods (``clone``,
``contiguous``, ``.numpy()``), ``softmax``, ``.item()``, ``.size()``, ``numel``,
``dim``, ``index_select``/``gather``, ``chunk``/``split``.
"""

from __future__ import annotations

from typing import Any

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import bool_, int32, int64

from ..diagnostics import CheckFailure
from ..sizes import same_size
from ..symbolic import (
    UNKNOWN,
    Arr,
    BoolV,
    FloatV,
    IntV,
    ListV,
    Rest,
    ShapeV,
    TupleV,
    Value,
    changed_rest,
    data_size,
    fmt_dim,
    fmt_dtypes,
    fmt_shape,
    holds_from,
    selected_count,
    signature_sizes,
    complement_count,
    mask_line,
)
from . import shapefns as sf
from .base import (
    Call,
    ParamRule,
    Rule,
    bool_const,
    bound_array,
    default_float,
    dtype_arg,
    first_array,
    int_const,
    is_float,
)

__all__ = [
    "NumpyUnique",
    "Bincount",
    "Diag",
    "Glu",
    "nonzero_tuple",
    "Cast",
    "Gradients",
    "Identity",
    "Softmax",
    "Item",
    "Sorted",
    "Truth",
    "Narrow",
    "Nonzero",
    "Diff",
    "MaskedSelect",
    "SearchSorted",
    "Size",
    "shape_value",
    "shape_item",
    "shape_slice",
    "sizes_value",
    "Numel",
    "Ndim",
    "IndexArg",
    "Chunk",
    "Multinomial",
    "TopK",
    "CDist",
    "Unique",
    "Unbind",
]


class Cast(Rule):
    """``.float()``, ``.long()``, ``.to(dtype)``, ``.astype(dtype)``, ``.type(dtype)``."""

    __slots__ = ("dtype",)

    def __init__(self, dtype=None):
        self.dtype = dtype  # fixed target, or None: read it from the arguments

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        target = self.dtype
        if target is None:
            candidates = list(call.args[1:]) + [call.kwargs.get("dtype")]
            for value in candidates:
                if value is None:
                    continue
                if type(value) is Arr:  # x.to(other) takes other's dtype
                    return x.with_(dtypes=value.dtypes, origin=None)
                found = dtype_arg(value)
                if found is not None:
                    target = found
                    break
            else:
                if any(
                    type(v).__name__ not in ("StrV", "Ref") for v in candidates if v is not None
                ):
                    return x.with_(dtypes=None, origin=None)
                return x.with_(origin=None)  # .to("cuda"): only the device changes
        return x.with_(dtypes=frozenset({target}), origin=None)


class Identity(Rule):
    """Same shape and dtype (``clone``, ``detach``, ``cpu``, ``contiguous``...)."""

    __slots__ = ("contiguous", "kind")

    def __init__(self, contiguous: bool = False, kind: str | None = None):
        self.contiguous = contiguous
        self.kind = kind  # ``.numpy()`` makes a NumPy array

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        changes: dict[str, Any] = {"origin": None}
        if self.contiguous:
            changes["contiguous"] = True
        if self.kind is not None:
            changes["kind"] = self.kind
        return x.with_(**changes)


class Softmax(ParamRule):
    """``softmax``/``log_softmax``: shape kept; ``dim`` must be in range."""

    __slots__ = ()
    PARAMS = ("input", "dim")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        axis = self.int_arg(bound, 1)
        if axis is not None and x.rank is not None:
            sf.norm_axis(axis, x.rank)
        dtypes = x.dtypes
        if dtypes is not None and not is_float(dtypes):
            if (x.kind or call.kind) == "torch":
                raise CheckFailure(
                    "dtype",
                    f"{call.name}: needs a floating-point input, "
                    f"{call.label(0)} has dtype {fmt_dtypes(dtypes)}",
                )
            dtypes = frozenset({default_float(call.kind)})
        return x.with_(dtypes=dtypes, origin=None)


class Glu(ParamRule):
    """``glu(input, dim=-1)``: ``dim`` halved (one half gates the other)."""

    __slots__ = ()
    PARAMS = ("input", "dim")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        given = bound.get(self.params[1])
        axis = -1 if given is None else self.int_arg(bound, 1)
        if axis is None:
            return x.with_(shape=None, origin=None)
        return x.with_(shape=sf.glu_shape(x.shape, axis), origin=None)


class Item(Rule):
    """``.item()`` of a one-element array: a Python scalar; ``.tolist()``: nested lists.

    ``tolist`` of a 0-d array is the scalar itself; of any other array a list, nested
    as deep as the array has axes when its rank is known (``(1, seq)`` of int64 gives
    a ``list[list[int]]``).
    """

    __slots__ = ("nested",)

    def __init__(self, nested: bool = False):
        self.nested = nested  # tolist

    def apply(self, call: Call):
        x = first_array(call)
        if self.nested and x is not None and x.shape != ():
            if x.rank is None:
                return UNKNOWN
            nested: Value = _scalar(x)
            for _ in range(x.rank):
                nested = ListV(None, nested)
            return nested
        if x is not None and not self.nested and len(call.args) == 1 and not call.kwargs:
            _one_element(call, x)
        return UNKNOWN if x is None else _scalar(x)


def _scalar(x: Arr) -> Value:
    """The Python number an element of ``x`` is (``item``, ``tolist``), by its dtypes."""
    if x.dtypes is None:
        return UNKNOWN
    if all(d.kind in "iu" for d in x.dtypes):
        return IntV()
    if all(d.kind == "b" for d in x.dtypes):
        return BoolV()
    return FloatV()


def _one_element(call: Call, x: Arr) -> None:
    """``x.item()`` needs one element: an error when ``x``'s axes (each a size, no
    ``...``) hold another count for some sizes the function's parameters take
    (``(n_components,)`` of a row indexed without its batch index). Only sizes named in
    the annotations of those parameters: an instance's or an unannotated value's may
    be 1 as used."""
    shape = x.shape
    if not shape or any(type(d) is not Dim for d in shape):
        return
    count = sf.product(shape)
    if (
        count is None
        or not count.free_symbols <= signature_sizes()
        or same_size(count, dims.const(1), call.facts)
    ):
        return
    raise CheckFailure(
        "reshape",
        f"{call.name}: needs an array of one element, {call.label(0)} "
        f"{fmt_shape(shape)} has {fmt_dim(count)}",
    )


class Sorted(Rule):
    """``sort``: ``(values, indices)``, each of the input's shape (indices ``int64``)."""

    __slots__ = ()

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        return TupleV((x.with_(origin=None), x.with_(dtypes=frozenset({int64}), origin=None)))


class Narrow(ParamRule):
    """``x.narrow(dim, start, length)``: axis ``dim`` takes ``length``."""

    __slots__ = ()
    PARAMS = ("input", "dim", "start", "length")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        axis = self.int_arg(bound, 1)
        length = bound.get("length")
        size = length.dim if type(length) is IntV else None
        if axis is None or x.shape is None:
            return x.with_(shape=None if axis is None else x.shape, origin=None)
        return x.with_(shape=sf.replace_axis(x.shape, axis, size), origin=None)


class Nonzero(ParamRule):
    """``torch.nonzero(x)``: ``(?, rank)`` int64 indices; with ``as_tuple=True`` a
    tuple of ``rank`` arrays of ``(?,)``."""

    __slots__ = ()
    PARAMS = ("input",)

    def apply(self, call: Call):
        x = first_array(call)
        if x is None or x.rank is None or sf.split_rest(x.shape)[1] is not None:
            return UNKNOWN
        flag = call.kwargs.get("as_tuple")
        if flag is None or (type(flag) is BoolV and flag.value is False):
            return x.with_(
                shape=(nonzero_count(x, call.line), dims.const(x.rank)), dtypes=INTS, origin=None
            )
        if type(flag) is BoolV and flag.value:
            return nonzero_tuple(x, call.line)
        return UNKNOWN


INTS = frozenset({int64})


def nonzero_count(x: Arr, line: int = 0):
    """How many items of ``x`` are nonzero: for a mask made at a known line, the count
    ``x[mask]`` selects (``selected_count``), so ``torch.where(mask)`` and ``x[mask]``
    agree; for a mask made in the call (``torch.where(ids == k)``), a count of the
    call's ``line``; else unknown."""
    if x.dtypes is None or x.dtypes != frozenset({bool_}):
        return None
    found = complement_count(x)
    if found is not None:
        return found
    made = mask_line(x)
    if made is not None:
        return selected_count(made)
    return selected_count(line) if line and x.origin is None else None


def nonzero_tuple(x, line: int = 0):
    """``nonzero(x, as_tuple=True)`` / ``where(x)``: one int64 index array per axis;
    unknown for an array of unknown or open rank."""
    if type(x) is not Arr:
        return UNKNOWN
    if x.rank is None or sf.split_rest(x.shape)[1] is not None:
        # a tuple of index arrays, one per axis, however many there are
        return ListV(None, x.with_(shape=(None,), dtypes=INTS, origin=None), "tuple")
    piece = x.with_(shape=(nonzero_count(x, line),), dtypes=INTS, origin=None)
    return TupleV((piece,) * x.rank, plain=True)


class Diff(ParamRule):
    """``torch.diff(x, n=1, dim=-1)``: axis ``dim`` shorter by ``n``."""

    __slots__ = ()
    PARAMS = ("input", "n", "dim")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None or x.shape is None or x.shape == ():
            return UNKNOWN  # (a 0-d array is refused at run time; a float may be one here)
        if "prepend" in call.kwargs or "append" in call.kwargs:
            return x.with_(shape=None, origin=None)
        n = 1 if bound.get("n") is None else self.int_arg(bound, 1)
        axis = -1 if bound.get("dim") is None else self.int_arg(bound, 2)
        if n is None or axis is None:
            return x.with_(shape=None, origin=None)
        found = sf.split_rest(x.shape)
        if found[1] is None:
            i = sf.norm_axis(axis, len(x.shape))
            d = x.shape[i]
            size = d - n if type(d) is Dim else None
            return x.with_(shape=sf.replace_axis(x.shape, axis, size), origin=None)
        entry = None
        prefix, _rest, suffix = found
        if 0 <= axis < len(prefix):
            entry = prefix[axis]
        elif -len(suffix) <= axis < 0:
            entry = suffix[axis]
        size = entry - n if type(entry) is Dim else None
        return x.with_(shape=sf.replace_axis(x.shape, axis, size), origin=None)


class MaskedSelect(Rule):
    """``torch.masked_select(x, mask)``: the selected elements, one axis of a count
    only the data fixes."""

    __slots__ = ()

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        return x.with_(shape=(None,), origin=None)


class SearchSorted(ParamRule):
    """``torch.searchsorted(sorted_sequence, values)``: an index (``int64``) for each
    of ``values``, of its shape."""

    __slots__ = ()
    PARAMS = ("sorted_sequence", "input")

    def apply(self, call: Call):
        bound = call.bind(self.params)
        values = bound.get("input")
        if type(values) is not Arr:
            return UNKNOWN
        narrow = call.kwargs.get("out_int32")
        if narrow is not None and not (type(narrow) is BoolV and narrow.value is False):
            # out_int32=True gives int32; a flag not known gives either
            dtypes = frozenset({int32}) if type(narrow) is BoolV and narrow.value else None
            return values.with_(dtypes=dtypes, origin=None)
        return values.with_(dtypes=frozenset({int64}), origin=None)


class Truth(Rule):
    """``torch.allclose``/``torch.equal``: one Python bool, whatever the shapes."""

    __slots__ = ()

    def apply(self, call: Call):
        return BoolV()


class Size(Rule):
    """``x.size()``/``x.size(i)``: the shape as ints that are sizes."""

    __slots__ = ()

    def apply(self, call: Call):
        x = first_array(call)
        if x is None:
            return UNKNOWN
        axis = call.args[1] if len(call.args) > 1 else call.kwargs.get("dim")
        return shape_value(x, axis)


def shape_value(x: Arr, axis=None):
    """``x.shape`` (a tuple of IntV), or ``x.shape[axis]`` when ``axis`` is given.

    The shape of an array of open rank (``(*bs, c)``) is a :class:`ShapeV`
    whose ends are known: ``x.shape[-1]`` is ``c``.
    """
    if axis is not None:
        i = int_const(axis)
        if i is None or x.shape is None:
            return IntV()
        if x.rank is None:
            return shape_item(x.shape, i)
        d = x.shape[sf.norm_axis(i, x.rank)]
        return IntV(d if type(d) is Dim else None)
    if x.shape is None:
        return UNKNOWN
    if x.rank is None:
        return ShapeV(x.shape)
    return TupleV(tuple(IntV(d if type(d) is Dim else None) for d in x.shape))


def _size(d) -> IntV:
    return IntV(d if type(d) is Dim else None)


def shape_item(entries: tuple, i: int) -> IntV:
    """Entry ``i`` of a shape with a ``*rest``: known at the ends, else an unknown int.

    >>> from tensortypes.core import dims
    >>> shape_item((Rest("b"), dims.symbol("c")), -1)
    IntV(c)
    """
    prefix, rest, suffix = sf.split_rest(entries)
    if 0 <= i < len(prefix):
        return _size(prefix[i])
    if i < 0 and -i <= len(suffix):
        return _size(suffix[i])
    return IntV()


def shape_slice(entries: tuple, start, stop):
    """``entries[start:stop]`` (constant bounds or None) of a shape with a ``*rest``.

    A :class:`ShapeV` when the slice keeps the rest, a tuple of ints when it
    lies within one end, UNKNOWN when it cuts into the rest.
    """
    prefix, rest, suffix = sf.split_rest(entries)
    p, s = len(prefix), len(suffix)
    lo = 0 if start is None else start
    if stop is not None and 0 <= stop <= p and 0 <= lo:
        return TupleV(tuple(_size(d) for d in prefix[lo:stop]))
    if lo < 0:
        if -lo > s or (stop is not None and not -s <= stop <= 0):
            return UNKNOWN
        part = suffix[lo:stop] if stop not in (None, 0) else suffix[lo:]
        return TupleV(tuple(_size(d) for d in part)) if stop != 0 else TupleV(())
    if lo > p or (stop is not None and not -s <= stop < 0):
        return UNKNOWN
    tail = suffix if stop is None else suffix[:stop]
    return ShapeV((*prefix[lo:], rest, *tail))


def sizes_value(items) -> Value:
    """A tuple of sizes built from ints and at most one open :class:`ShapeV` (or UNKNOWN).

    ``(*x.shape[:-1], k)`` of a ``(*bs, c)`` array is the ShapeV ``(*bs, k)``.
    """
    out = []
    for v in items:
        if type(v) is ShapeV:
            out.extend(v.entries)
        elif type(v) is IntV:
            out.append(v.dim)
        else:
            return UNKNOWN
    if sum(1 for d in out if type(d) is Rest) != 1:
        return UNKNOWN
    return ShapeV(tuple(out))


class Numel(Rule):
    """``numel()``/``.size`` of NumPy: the element count."""

    __slots__ = ()

    def apply(self, call: Call):
        x = first_array(call)
        if x is None or x.rank is None:
            return IntV()
        return IntV(sf.product(x.shape))


class Ndim(Rule):
    """``dim()``/``ndim``: the rank."""

    __slots__ = ()

    def apply(self, call: Call):
        x = first_array(call)
        if x is None or x.rank is None:
            return IntV()
        return IntV(dims.const(x.rank))


def _integer_index(call: Call, index) -> None:
    """An index array of ``gather``/``scatter``/``index_select`` must be of integers."""
    if (
        type(index) is Arr
        and index.dtypes is not None
        and not all(d.kind in "iu" for d in index.dtypes)
    ):
        raise CheckFailure(
            "dtype",
            f"{call.name}: the index must be an integer tensor, "
            f"got dtype {fmt_dtypes(index.dtypes)}",
        )


def _same_rank(call: Call, what: str, v, x: Arr) -> None:
    """``gather``'s and ``scatter``'s index (and source) have the input's rank."""
    if type(v) is Arr and v.rank is not None and v.rank != x.rank:
        raise CheckFailure(
            "rank", f"{call.name}: {what} has rank {v.rank} but the input has rank {x.rank}"
        )


def larger(a, b) -> bool:
    """Whether size ``a`` is larger than ``b``: at least ``b`` for every size of 1 or
    more, and not the same size (:func:`check.sizes.same_size`, the comparison every
    rule makes). ``3*n`` is larger than ``3``; ``n`` and ``m`` are not compared.

    >>> n, m = dims.symbol("n"), dims.symbol("m")
    >>> larger(3 * n, dims.const(3)), larger(n, m), larger(n + 1, n), larger(n, n)
    (True, False, True, False)
    """
    if type(a) is not Dim or type(b) is not Dim or same_size(a, b):
        return False
    return holds_from(dims.ge, a, b, 1)


def _within(call: Call, what: str, index, other: Arr, name: str, skip: int | None) -> None:
    """torch's bound on an index of ``gather``/``scatter``: on every axis (but ``skip``,
    the one indexed) it has at most as many items as ``other`` (the input, or the
    source a scatter reads from), or the call fails."""
    if type(index) is not Arr or index.rank is None or index.rank != other.rank:
        return
    for axis, (a, b) in enumerate(zip(index.shape, other.shape)):
        if axis != skip and larger(a, b):
            raise CheckFailure(
                "index",
                f"{call.name}: index {fmt_shape(index.shape)} is larger than {what} "
                f"{fmt_shape(other.shape)} at axis {axis} ({fmt_dim(a)} > {fmt_dim(b)}); "
                f"the index may have at most {name}'s size on "
                + ("every axis" if skip is None else f"every axis but {skip}"),
            )


class IndexArg(ParamRule):
    """``index_select``/``gather``/``take_along_dim``: an integer index tensor along a dim."""

    __slots__ = ("mode",)
    PARAMS = ("input", "dim", "index")

    def __init__(self, params: tuple | None = None, mode: str = "select"):
        super().__init__(params)
        self.mode = mode  # "select": axis replaced by len(index); "gather": index's shape

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        index = bound.get("index", bound.get("indices"))
        if x is None:
            return UNKNOWN
        _integer_index(call, index)
        axis = int_const(bound.get("dim", bound.get("axis")))
        if self.mode == "gather" and index is UNKNOWN and x.rank is not None:
            # an index not known: the result has its shape, of the input's rank
            return x.with_(shape=(None,) * x.rank, origin=None)
        if type(index) is not Arr or axis is None:
            return x.with_(shape=None, origin=None)
        if self.mode == "gather":
            # The result has the index's shape, whatever the input's (also a ``*rest``).
            if x.rank is not None:
                i = sf.norm_axis(axis, x.rank)
                _same_rank(call, "index", index, x)
                _within(call, "the input", index, x, "the input", i)
            return x.with_(shape=index.shape, origin=None)
        if index.rank is not None and index.rank != 1:
            raise CheckFailure(
                "rank",
                f"{call.name}: the index must be 1-d, got rank "
                f"{index.rank} {fmt_shape(index.shape)}",
            )
        size = index.shape[0] if index.shape else None
        if x.rank is None:
            return x.with_(shape=sf.replace_axis(x.shape, axis, size), origin=None)
        i = sf.norm_axis(axis, x.rank)
        return x.with_(shape=(*x.shape[:i], size, *x.shape[i + 1 :]), origin=None)


class Scatter(ParamRule):
    """``x.scatter(dim, index, src)`` (``scatter_add``, ``scatter_reduce``, in place with
    ``_``): the array written into keeps its shape and dtype; the index is an integer
    tensor of the array's rank, and so is ``src`` when it is an array (not a number).

    >>> from ..symbolic import Arr
    >>> from tensortypes.core.dtypes import float32, int64
    >>> x = Arr("torch", frozenset({float32}), (2, 5))
    >>> i = Arr("torch", frozenset({int64}), (2,))
    >>> Scatter().apply(Call(".scatter_", [x, 1, i, x], {}, {}, "torch"))
    Traceback (most recent call last):
    ...
    tensortypes.check.diagnostics.CheckFailure: .scatter_: index has rank 1 but the input has rank 2
    """

    __slots__ = ()
    PARAMS = ("input", "dim", "index", "src", "reduce")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        index = bound.get("index")
        src = bound.get("src", bound.get("value"))
        _integer_index(call, index)
        if x.rank is not None:
            axis = int_const(bound.get("dim"))
            i = sf.norm_axis(axis, x.rank) if axis is not None else None
            _same_rank(call, "index", index, x)
            _same_rank(call, "src", src, x)
            if type(src) is Arr:
                _within(call, "src", index, src, "src", None)
            if i is not None:
                _within(call, "the input", index, x, "the input", i)
        return x.with_(origin=None)


class Unique(ParamRule):
    """``torch.unique(x)`` / ``x.unique()``: the distinct values, a 1-d array whose
    size depends on the data: a size of its own (``unique_12`` for a call at line 12),
    different from every other unless proven equal, as the code must work for any
    number of distinct values. With ``dim``, that axis gets the new size;
    ``return_inverse``/``return_counts`` add the inverse indices (the input's shape,
    int64; without ``dim``) and the counts (the new size, int64)."""

    __slots__ = ()
    PARAMS = ("input", "sorted", "return_inverse", "return_counts", "dim")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        flags = [bool_const(bound.get(k)) for k in ("return_inverse", "return_counts")]
        if any(f is None for f in flags):
            return UNKNOWN
        size = data_size(f"unique_{call.line}") if call.line else None
        axis = bound.get("dim")
        shape: tuple | None
        if axis is None or type(axis).__name__ == "NoneV":
            shape = (size,)
        else:
            i = int_const(axis)
            shape = sf.replace_axis(x.shape, i, size) if i is not None else None
        values = x.with_(shape=shape, origin=None)
        if not any(flags):
            return values
        items = [values]
        if flags[0]:
            items.append(Arr(x.kind, frozenset({int64}), x.shape if shape == (size,) else None))
        if flags[1]:
            items.append(Arr(x.kind, frozenset({int64}), (size,)))
        return TupleV(tuple(items))


class NumpyUnique(ParamRule):
    """``np.unique(ar)``: the distinct values (a size the data fixes, as for
    ``torch.unique``), with ``return_index``/``return_counts`` that many int64
    items too; ``return_inverse`` (whose shape NumPy versions give differently)
    makes that item unknown."""

    __slots__ = ()
    PARAMS = ("ar", "return_index", "return_inverse", "return_counts", "axis")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        flags = [bool_const(bound.get(k)) for k in self.PARAMS[1:4]]
        if any(f is None for f in flags) or bound.get("axis") is not None:
            return UNKNOWN
        size = data_size(f"unique_{call.line}") if call.line else None
        values = x.with_(shape=(size,), origin=None)
        if not any(flags):
            return values
        items: list = [values]
        ints = frozenset({int64})
        if flags[0]:
            items.append(Arr(x.kind, ints, (size,)))
        if flags[1]:
            items.append(UNKNOWN)
        if flags[2]:
            items.append(Arr(x.kind, ints, (size,)))
        return TupleV(tuple(items))


class Bincount(ParamRule):
    """``torch.bincount(x)``: one count per value up to the largest: a 1-d array whose
    size the data fixes (at least ``minlength``); int64, or the weights' dtype."""

    __slots__ = ()
    PARAMS = ("input", "weights", "minlength")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        weights = bound.get("weights")
        dtypes = weights.dtypes if type(weights) is Arr else frozenset({int64})
        return Arr(x.kind, dtypes, (None,))


class Diagonal(ParamRule):
    """``x.diagonal(offset, dim1, dim2)`` (``torch.diagonal``, NumPy's ``axis1`` and
    ``axis2``): the two axes dropped and their diagonal, ``min`` of their sizes,
    appended last; ``diag_embed`` the other way (``(*b, n)`` to ``(*b, n, n)``, the
    default axes). An offset other than 0 gives the diagonal an unknown size."""

    __slots__ = ("embed",)
    PARAMS = ("input", "offset", "dim1", "dim2")

    def __init__(self, params: tuple | None = None, embed: bool = False):
        super().__init__(params)
        self.embed = embed

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        names = self.params
        k = int_const(bound.get(names[1], IntV(dims.const(0))))
        default = (-2, -1) if self.embed else (0, 1)
        given = [int_const(bound.get(n, IntV(dims.const(d)))) for n, d in zip(names[2:], default)]
        axes = [a for a in given if a is not None]
        if x.rank is None or len(axes) < 2 or k is None:
            return x.with_(shape=None, origin=None)
        shape = x.shape
        if self.embed:
            if axes != [-2, -1] or k != 0 or not shape:
                return x.with_(shape=None, origin=None)
            return x.with_(shape=(*shape, shape[-1]), origin=None)
        i, j = (sf.norm_axis(a, x.rank) for a in axes)
        if i == j:
            raise CheckFailure(
                "axis", f"{call.name}: the two axes of a diagonal must differ, got {i} twice"
            )
        a, b = shape[i], shape[j]
        size = dims.dmin(a, b) if k == 0 and type(a) is Dim and type(b) is Dim else None
        kept = tuple(d for n, d in enumerate(shape) if n not in (i, j))
        return x.with_(shape=(*kept, size), origin=None)


class Diag(ParamRule):
    """``diag(x)``: of a vector ``(n,)`` the matrix ``(n, n)``; of a matrix ``(n, m)``
    its diagonal, ``(min(n, m),)``. An offset other than 0 gives unknown sizes."""

    __slots__ = ()
    PARAMS = ("input", "diagonal")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        offset = bound.get(self.params[1])
        k = 0 if offset is None else int_const(offset)
        shape = x.shape
        if shape is None or sf.split_rest(shape)[1] is not None:
            return x.with_(shape=None, origin=None)
        if len(shape) not in (1, 2):
            raise CheckFailure(
                "rank",
                f"{call.name}: expects a 1-d or 2-d array, {call.label(0)} has rank "
                f"{len(shape)} {fmt_shape(shape)}",
            )
        if k != 0:
            return x.with_(shape=(None,) * (3 - len(shape)), origin=None)
        if len(shape) == 1:
            return x.with_(shape=(shape[0], shape[0]), origin=None)
        a, b = shape
        if type(a) is Dim and type(b) is Dim:
            return x.with_(shape=(dims.dmin(a, b),), origin=None)
        return x.with_(shape=(None,), origin=None)


class Multinomial(ParamRule):
    """``torch.multinomial(input, num_samples)``: ``num_samples`` indices drawn from
    the weights of a 1-d ``(n,)`` or 2-d ``(b, n)`` input: ``(num_samples,)`` or
    ``(b, num_samples)``, int64 (the size unknown when ``num_samples`` is)."""

    __slots__ = ()
    PARAMS = ("input", "num_samples", "replacement")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        n = bound.get("num_samples")
        size = n.dim if type(n) is IntV else None
        shape = x.shape
        if shape is not None and sf.split_rest(shape)[1] is None and len(shape) in (1, 2):
            shape = (*shape[:-1], size)
        else:
            shape = None
        return Arr(x.kind, frozenset({int64}), shape)


class Unbind(ParamRule):
    """``x.unbind(dim)`` / ``torch.unbind(x, dim)``: the slices along ``dim``, each
    without that axis; a tuple of them when the axis has a constant size."""

    __slots__ = ()
    PARAMS = ("input", "dim")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        axis = int_const(bound.get("dim")) if "dim" in bound else 0
        if axis is None or x.shape is None:
            return ListV(None, x.with_(shape=None, origin=None), kind="tuple")
        found = sf.reduce_shape(x.shape, [axis], keepdims=False)
        piece = x.with_(shape=found, origin=None)
        size = x.shape[sf.norm_axis(axis, x.rank)] if x.rank is not None else None
        if type(size) is Dim and size.value is not None and size.value <= 64:
            return TupleV((piece,) * size.value)
        return ListV(None, piece, kind="tuple")


class TopK(ParamRule):
    """``torch.topk(x, k, dim=-1)``: ``(values, indices)``, each ``x``'s shape with
    axis ``dim`` of size ``k`` (unknown when ``k`` is); the indices are int64."""

    __slots__ = ()
    PARAMS = ("input", "k", "dim")

    def apply(self, call: Call):
        bound, x = self.bind_input(call)
        if x is None:
            return UNKNOWN
        axis = int_const(bound.get("dim")) if "dim" in bound else -1
        k = bound.get("k")
        size = k.dim if type(k) is IntV else None
        shape = None if axis is None else sf.replace_axis(x.shape, axis, size)
        values = x.with_(shape=shape, origin=None)
        return TupleV((values, values.with_(dtypes=frozenset({int64}))))


class CDist(Rule):
    """``torch.cdist(x1, x2)``: ``(*b, p, m)`` and ``(*b, r, m)`` give the distances
    ``(*b, p, r)`` (batch axes broadcast); unknown unless both shapes are known."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("x1", "x2"))
        a, b = bound_array(call, bound, "x1"), bound_array(call, bound, "x2")
        if a is None or b is None:
            return UNKNOWN
        out = a.with_(shape=None, origin=None)
        sa, sb = a.shape, b.shape
        if (
            sa is None
            or sb is None
            or len(sa) < 2
            or len(sb) < 2
            or any(type(d) is not Dim for d in (*sa[-2:], *sb[-2:]))
        ):
            return out
        try:
            batch = sf.broadcast([sa[:-2], sb[:-2]], [call.label(0), call.label(1)])
        except CheckFailure:
            return out  # left to torch's own message: cdist broadcasts only some batches
        return out if batch is None else out.with_(shape=(*batch, sa[-2], sb[-2]))


def _pieces(x: Arr, axis: int, size, count: int, mode: str):
    """The pieces ``chunk(count)``/``split(count)`` cut axis ``axis`` (of ``size``, not
    in a ``*rest``) of ``x`` into, the other axes kept. A known size is cut as torch
    cuts it; a named size ``d`` by ``chunk`` into ``count`` pieces of ``d // count``
    (exact when ``d`` is a multiple of ``count``), as the code that chunks it takes it
    (``x, gate = h.chunk(2, dim=-1)`` then ``x * gate``); an unknown one into up to
    ``count`` pieces of an unknown size (fewer when the axis is short)."""

    def cut(d):
        return x.with_(shape=sf.replace_axis(x.shape, axis, d), origin=None)

    if type(size) is not Dim or size.value is None:
        if mode == "chunk" and count > 0:
            if type(size) is Dim:
                return TupleV((cut(size // count),) * count)
            return ListV(None, cut(None), "tuple")
        return UNKNOWN
    n = size.value
    step = (-(-n // count) if count else 0) if mode == "chunk" else count
    if step <= 0:
        return UNKNOWN
    return TupleV(tuple(cut(dims.const(min(step, n - start))) for start in range(0, n, step)))


def _open_chunks(x: Arr, axis: int, count: int):
    """``chunk(count, axis)`` of an array with a ``*rest``: along a fixed axis, its
    :func:`_pieces`; along an axis of the rest (``x.chunk(2)`` of ``(..., d)``, whose
    axis 0 is the first of ``...`` unless it is empty), pieces whose fixed axes are kept
    and whose rest changed."""
    prefix, rest, suffix = sf.split_rest(x.shape)
    if 0 <= axis < len(prefix) or -len(suffix) <= axis < 0:
        size = prefix[axis] if axis >= 0 else suffix[axis]
        return _pieces(x, axis, size, count, "chunk")
    if rest is Rest(None) and axis >= len(prefix) and suffix:
        # leading axes of unknown origin (a broadcast with an unknown value) may be
        # none, so the axis may be the first fixed one: it is unknown
        piece = x.with_(shape=(*prefix, rest, None, *suffix[1:]), origin=None)
        return ListV(None, piece, "tuple")
    piece = x.with_(shape=(*prefix, changed_rest(rest, ".chunk"), *suffix), origin=None)
    return ListV(None, piece, "tuple")


class Chunk(Rule):
    """``chunk(n, dim)``/``split(size, dim)``: a tuple of pieces along ``dim``;
    ``"sections"``: NumPy's ``split(x, n, axis)``, ``n`` equal pieces (unknown
    for a known size they do not divide, which NumPy refuses)."""

    __slots__ = ("mode",)

    def __init__(self, mode: str = "chunk"):
        self.mode = mode

    def apply(self, call: Call):
        params = {
            "chunk": ("input", "chunks", "dim"),
            "split": ("input", "split_size_or_sections", "dim"),
            "sections": ("input", "indices_or_sections", "axis"),
        }[self.mode]
        bound = call.bind(params)
        x = bound_array(call, bound, "input")
        count = int_const(bound.get(params[1]))
        axis = int_const(bound.get(params[2])) if params[2] in bound else 0
        if self.mode == "sections":
            if x is None or count is None or count <= 0 or axis is None or x.rank is None:
                return UNKNOWN
            i = sf.norm_axis(axis, x.rank)
            size = x.shape[i]
            if type(size) is Dim and size.value is not None and size.value % count:
                return UNKNOWN  # NumPy refuses it
            return _pieces(x, i, size, count, "chunk")
        if (
            self.mode == "split"
            and x is not None
            and count is None
            and axis is not None
            and x.rank is not None
        ):
            return _split_symbolic(x, sf.norm_axis(axis, x.rank), bound.get(params[1]))
        if (
            self.mode == "chunk"
            and x is not None
            and x.rank is None
            and x.shape is not None
            and count is not None
            and count > 0
            and axis is not None
        ):
            return _open_chunks(x, axis, count)
        if x is None or count is None or axis is None or x.rank is None:
            return UNKNOWN
        i = sf.norm_axis(axis, x.rank)
        return _pieces(x, i, x.shape[i], count, self.mode)


def _split_symbolic(x, i: int, how):
    """``split(n, dim)`` of an axis ``3*n`` (three pieces of ``n``; of another axis, pieces
    of ``n`` as many as it holds), and ``split([a, b], dim)`` (pieces of ``a`` and
    ``b``): the pieces of a split by symbolic sizes."""
    size = x.shape[i]
    if type(size) is not Dim:
        return UNKNOWN
    if type(how) is IntV and how.dim is not None and not how.dim.is_constant:
        # ``3*n`` split by ``n``: the axis is a constant multiple of the piece
        count = next((c for c in range(1, 17) if dims.eq(how.dim * c, size) is True), None)
        if count is None:
            # another axis (``qkv.split(n_embd, dim=1)`` of ``(b, t, 3*n_embd)``): pieces
            # of ``n`` as the code takes them, as many as the axis holds
            piece = x.with_(shape=(*x.shape[:i], how.dim, *x.shape[i + 1 :]), origin=None)
            return ListV(None, piece, "tuple")
        sizes = [how.dim] * count
    elif (
        type(how) in (ListV, TupleV)
        and how.items is not None
        and 0 < len(how.items) <= 64
        and all(type(v) is IntV and v.dim is not None for v in how.items)
    ):
        sizes = [v.dim for v in how.items]
        if dims.eq(sum(sizes[1:], sizes[0]), size) is not True:
            return UNKNOWN
    else:
        return UNKNOWN
    return TupleV(
        tuple(x.with_(shape=(*x.shape[:i], d, *x.shape[i + 1 :]), origin=None) for d in sizes)
    )


class Gradients(Rule):
    """``torch.autograd.grad(outputs, inputs)``: a tuple of one gradient per input, each
    of that input's shape and dtype."""

    __slots__ = ()

    def apply(self, call: Call):
        inputs: Any = call.bind(("outputs", "inputs")).get("inputs")
        if type(inputs) is Arr:
            return TupleV((inputs.with_(origin=None),))
        items = inputs.items if type(inputs) in (TupleV, ListV) else None
        if items is None:
            return UNKNOWN
        return TupleV(tuple(x.with_(origin=None) if type(x) is Arr else UNKNOWN for x in items))
