"""Control-flow joins of the checker's values (layer 6: ``check``).

Where two branches of an ``if``/``try``, the arms of a conditional
expression, or the iterations of a loop meet, a variable holds one of the
values the branches gave it. :func:`join_values` is that value:

- an array and an unknown value give the array (the unknown one may be it);
- arrays keep what both agree on: the library, the union of the dtype sets,
  the sizes that are provably equal (``(b, n)`` and ``(b, m)`` join to
  ``(b, ?)``), contiguity only if both are contiguous;
- ints keep their size when both are the same size;
- None with anything is a union (an ``Optional``), which refinement by
  ``is not None`` takes apart again;
- numbers join along PEP 484's numeric tower (an int and a float are a float);
- other values of different kinds join through the type lattice
  (``check.typelang.join_kinds``: ``types.unify``, else ``types.join``): an
  instance of a checked class and one of its subclass join to the base class;
  an int and a str to the union, which is an error only where a use needs
  one of them.
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from .symbolic import (
    is_failed_origin,
    UNKNOWN,
    Arr,
    BoolV,
    ClassV,
    DTypeV,
    FloatV,
    FuncV,
    InstV,
    IntV,
    LayerV,
    LibV,
    ListV,
    Bcast,
    NoneV,
    PartialV,
    Ref,
    Rest,
    ShapeV,
    StrV,
    TupleV,
    UnionV,
    Unknown,
    Value,
    is_one,
    CallablesV,
    LambdaV,
)
from .rules import function_rule
from .typelang import join_kinds

__all__ = [
    "join_values",
    "join_all",
    "join_shapes",
    "strip_none",
    "may_be_none",
    "element_of",
    "length_of",
]

_NUMBERS = frozenset({IntV, FloatV, BoolV})


def join_shapes(a, b):
    """The shape both ``a`` and ``b`` fit: equal axes kept, the rest unknown.

    >>> n, m = dims.symbol("n"), dims.symbol("m")
    >>> join_shapes((n, m), (n, n))
    (Dim('n'), None)
    >>> join_shapes((dims.const(1), n, n), (Rest(None), m, n))
    (..., None, Dim('n'))
    >>> join_shapes((m, n), (m, n, Rest(None)))
    (Dim('m'), Dim('n'), ...)
    """
    if a is b:
        return a
    if a is None or b is None:
        return None
    if len(a) == len(b) and all(
        (type(x) is Rest) == (type(y) is Rest) and (type(x) is not Rest or x is y)
        for x, y in zip(a, b)
    ):
        return tuple(_join_axis(x, y) for x, y in zip(a, b))
    # One of open rank, the other with as many axes around it at least (``(b, n)`` and
    # ``(b, n, ...)`` of ``Int["b n"] | Float["b n ..."]``): the first and last axes
    # both have, around any number of others.
    for v, f in ((a, b), (b, a)):
        rests = [i for i, d in enumerate(v) if type(d) is Rest]
        if len(rests) == 1 and len(f) >= len(v) - 1 and not any(type(d) is Rest for d in f):
            i = rests[0]
            head, tail = v[:i], v[i + 1 :]
            return (
                *(_join_axis(x, y) for x, y in zip(head, f[:i])),
                Rest(None),
                *(_join_axis(x, y) for x, y in zip(tail, f[len(f) - len(tail) :])),
            )
    # Different ranks (``c2w`` of ``(..., 4, 4)`` in one branch, ``c2w[None]`` of a
    # ``(4, 4)`` in the other): the last axes both have, after any number of others.
    ta, tb = _tail(a), _tail(b)
    common = min(len(ta), len(tb))
    if common == 0:
        return None
    return (
        Rest(None),
        *(_join_axis(x, y) for x, y in zip(ta[len(ta) - common :], tb[len(tb) - common :])),
    )


def _tail(shape) -> tuple:
    """The axes after the ``*rest`` of a shape (all of them when it has none)."""
    for i, d in enumerate(shape):
        if type(d) is Rest:
            return shape[i + 1 :]
    return shape


def _join_axis(x, y):
    """One axis after a join: the size both have; ``#n`` for ``n`` on one side and 1 (or
    ``#n``) on the other (``(1, a)`` and ``(b, a)`` join to ``(#b, a)``); else unknown."""
    if x is y or (type(x) is Dim and type(y) is Dim and dims.eq(x, y)):
        return x
    for one, other in ((x, y), (y, x)):
        if is_one(one) or type(one) is Bcast:
            size = other.dim if type(other) is Bcast else other
            if (
                type(size) is Dim
                and not is_one(size)
                and (type(one) is not Bcast or dims.eq(one.dim, size))
            ):
                return Bcast(size)
    return None


def _union_items(a: Value, b: Value) -> tuple:
    items = list(a.items) if type(a) is UnionV else [a]
    for v in b.items if type(b) is UnionV else (b,):
        for i, have in enumerate(items):
            if type(have) is type(v) and not _kept_apart(have, v, items):
                items[i] = join_values(have, v)
                break
        else:
            items.append(v)
    return tuple(items)


def _kept_apart(a: Value, b: Value, items) -> bool:
    """Whether arrays ``a`` and ``b`` of a union have known ranks or dtypes that differ:
    kept as members of their own (``Float["b m 3"] | Float["m 3"]``, each followed by
    what the code does with it), a few at most."""
    if type(a) is not Arr or type(b) is not Arr or len(items) >= _UNION_ARRAYS:
        return False
    return _apart(a, b)


def _apart(a: Arr, b: Arr) -> bool:
    """Whether two arrays are different layouts: known ranks that differ, or dtypes
    that do not overlap."""
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        return True
    return a.dtypes is not None and b.dtypes is not None and not a.dtypes & b.dtypes


_UNION_ARRAYS = 4


def join_values(a: Value, b: Value) -> Value:
    """The value after a control-flow join of two branches that gave ``a`` and ``b``.

    >>> join_values(IntV(dims.const(3)), IntV(dims.const(3))).dim
    Dim('3')
    >>> join_values(IntV(), NoneV()).describe()
    'int | None'
    """
    if a is b:
        return a
    ta, tb = type(a), type(b)
    if ta is Unknown or tb is Unknown:
        # An array joined with a value nothing is known about stays that array: the
        # unknown branch may hold anything, this one holds it (gradual, as the
        # annotation of an unknown value would be taken).
        known = b if ta is Unknown else a
        if type(known) in (LambdaV, CallablesV):
            return _callables(a, b)  # a lambda, or an unknown callable (``getattr(F, n)``)
        return known.with_(origin=None) if type(known) is Arr else UNKNOWN
    if (
        type(a) is Arr
        and type(b) is Arr
        and is_failed_origin(a.origin) != is_failed_origin(b.origin)
    ):
        # the declared result of a call already reported: the other branch's array
        # stays, as against an unknown value (the report is where the fix is)
        return (b if is_failed_origin(a.origin) else a).with_(origin=None)
    if ta in (LambdaV, CallablesV) or tb in (LambdaV, CallablesV):
        if ta in _CALLABLES and tb in _CALLABLES:
            return _callables(a, b)
    if (ta is ShapeV or tb is ShapeV) and {ta, tb} <= {ShapeV, TupleV}:
        joined = _join_shapes(a, b)  # ``.shape`` of arrays of open rank
        if joined is not None:
            return joined
    if ta is UnionV or tb is UnionV or ta is not tb:
        if ta in (NoneV, UnionV) or tb in (NoneV, UnionV):
            items = _union_items(a, b)
            return items[0] if len(items) == 1 else UnionV(items)
        if ta in _NUMBERS and tb in _NUMBERS:
            return FloatV() if FloatV in (ta, tb) else IntV()
        if (ta is Arr and tb is TupleV) or (ta is TupleV and tb is Arr):
            return UnionV((a, b))  # ``Union[Tuple[float, float], Float[Tensor, "2 D"]]``
        if ta is Arr or tb is Arr:
            return UNKNOWN  # an array or a scalar: either may follow; gradual
        return join_kinds(a, b)
    # ta is tb from here: each test names both, so that static checkers narrow them.
    if type(a) is Arr and type(b) is Arr:
        dtypes = None if a.dtypes is None or b.dtypes is None else a.dtypes | b.dtypes
        return Arr(
            a.kind if a.kind == b.kind else None,
            dtypes,
            join_shapes(a.shape, b.shape),
            a.origin if a.origin == b.origin else None,
            a.contiguous
            if a.contiguous == b.contiguous
            else None
            if a.contiguous is None or b.contiguous is None
            else False,
            # both branches hold a value made on one line (a loop's pass that changed
            # nothing): that line, still named in notes
            since=a.since if a.since == b.since else None,
            sources=_branch_sources(a, b),
        )
    if type(a) is IntV and type(b) is IntV:
        if a.dim is not None and b.dim is not None and dims.eq(a.dim, b.dim):
            return a
        return IntV()
    if type(a) is TupleV and type(b) is TupleV:
        if len(a.items) == len(b.items):
            return TupleV(tuple(join_values(x, y) for x, y in zip(a.items, b.items)))
        return join_kinds(a, b)
    if type(a) is BoolV and type(b) is BoolV:
        return a if a.value == b.value else BoolV()
    if type(a) is StrV and type(b) is StrV:
        return a if a.value == b.value else StrV()
    if type(a) is LayerV and type(b) is LayerV and _same_layer(a, b):
        return a
    if type(a) is LibV and type(b) is LibV and a.kind == b.kind and not a.fields:
        return a  # ``DDPMScheduler`` on one branch, ``DDIMScheduler`` on the other
    if type(a) is InstV and type(b) is InstV:
        if a.info is b.info:
            if a.env == b.env and a.made == b.made:
                return a
            return InstV(a.info, made=a.made or b.made)
        return join_kinds(a, b)
    if type(a) is FloatV and type(b) is FloatV:
        return a if a.value == b.value else FloatV()  # its value only when both agree
    if ta is NoneV:
        return a
    if type(a) is ListV and type(b) is ListV:
        if a.kind != b.kind:
            return join_kinds(a, b)
        if a.items == () or b.items == ():  # an empty literal adds no element kind
            return ListV(None, element_of(b if a.items == () else a))
        if _placeholders(a) != _placeholders(b):
            # ``pos = [None] * 3`` before a loop that fills it (``pos[i] = v[t[:, i]]``):
            # which slots are filled is not followed, so any item is unknown (None or
            # an array would report "may be None" where the loop fills them all)
            length = length_of(a)
            same = length is not None and length is length_of(b)
            return ListV(None, UNKNOWN, length=length if same else None)
        length = length_of(a)
        same = length is not None and length is length_of(b)
        return ListV(
            None, join_values(element_of(a), element_of(b)), length=length if same else None
        )
    if type(a) is DTypeV and type(b) is DTypeV:
        return a if a.dtype is b.dtype else UNKNOWN
    if ta in (Ref, FuncV, ClassV) and a.describe() == b.describe():
        return a
    if type(a) is Ref and type(b) is Ref and _same_rule(a.path, b.path):
        return a  # ``F.relu if name == "relu" else F.gelu``: either gives the same shape
    return UNKNOWN


_CALLABLES = (LambdaV, CallablesV, Ref, FuncV, PartialV)


def _placeholders(v: ListV) -> bool:
    """A list literal of None items only (``[None] * 3``: slots filled later)."""
    return bool(v.items) and all(type(x) is NoneV for x in v.items)


def _same_layer(a, b, depth: int = 0) -> bool:
    """Whether two layers are built alike: one rule, arguments alike, the layers among
    them (``nn.Sequential(nn.Linear(d, h), nn.Sigmoid())`` built on two paths)
    compared the same way, a few levels deep."""
    if a is b:
        return True
    if type(a) is LayerV and type(b) is LayerV:
        if a.rule is not b.rule or a.dtype != b.dtype or a.args.keys() != b.args.keys():
            return False
        return depth < 4 and all(_same_layer(a.args[k], b.args[k], depth + 1) for k in a.args)
    if type(a) in (list, tuple) and type(b) is type(a):
        return len(a) == len(b) and all(_same_layer(x, y, depth) for x, y in zip(a, b))
    if type(a) in (ListV, TupleV) and type(b) is type(a):
        if a.items is None or b.items is None:
            return False
        return _same_layer(a.items, b.items, depth)
    if type(a) is IntV and type(b) is IntV:  # ``nn.Linear(dim, dim_inner)``: sizes alike
        return a.dim is not None and b.dim is not None and bool(dims.eq(a.dim, b.dim))
    try:
        return bool(a == b)
    except Exception:  # a value whose comparison is not a bool
        return False


def _callables(a: Value, b: Value) -> Value:
    """The callables of two branches, one of which holds a lambda: each kept once (a
    lambda once per place it is written, however often a loop made it); unknown
    past sixteen."""
    items: list = []
    for v in (a, b):
        for item in v.items if type(v) is CallablesV else (v,):
            if not any(_same_callable(item, seen) for seen in items):
                items.append(item)
    return CallablesV(tuple(items)) if len(items) <= 16 else UNKNOWN


def _same_callable(a: Value, b: Value) -> bool:
    if a is b:
        return True
    return type(a) is LambdaV and type(b) is LambdaV and a.node is b.node


def _same_rule(a: str, b: str) -> bool:
    """Whether two library functions have one and the same shape rule (``F.relu`` and
    ``F.gelu``: an elementwise function that keeps the shape and dtype)."""
    ra, rb = function_rule(a), function_rule(b)
    return ra is not None and rb is not None and ra[0] is rb[0]


def _branch_sources(a: Arr, b: Arr):
    """The lines that made the shapes of two arrays joined at a branch's end, with
    their shapes, when they differ (at most four)."""
    if a.since == b.since or a.shape == b.shape:
        return a.sources if a.sources == b.sources else None
    found: list = []
    for v in (a, b):
        # a joined value's sources are its branches'; a value made on a line, that
        # line, then where its previous value's shape was made (``w = (w + x) / 2``)
        own = (v.sources or ()) if not v.since else ((v.since, v.shape), *(v.sources or ()))
        for item in own:
            if item not in found:
                found.append(item)
    # one branch's line alone when the other's shape is a parameter's (made nowhere)
    return tuple(found[:4]) if found else None


def join_all(items):
    """The join of several values (``UNKNOWN`` for none).

    >>> join_all([IntV(), FloatV()]).describe()
    'float'
    """
    if not items:
        return UNKNOWN
    out = items[0]
    for v in items[1:]:
        out = join_values(out, v)
    return out


def strip_none(value: Value) -> Value:
    """``value`` without its None alternative (refinement by ``is not None``).

    >>> strip_none(UnionV((IntV(), NoneV()))).describe()
    'int'
    """
    if type(value) is UnionV:
        items = tuple(v for v in value.items if type(v) is not NoneV)
        if not items:
            return UNKNOWN
        return items[0] if len(items) == 1 else UnionV(items)
    return UNKNOWN if type(value) is NoneV else value


def may_be_none(value: Value) -> bool:
    """Whether ``value`` may be None while also being something else.

    >>> may_be_none(UnionV((IntV(), NoneV()))), may_be_none(NoneV())
    (True, False)
    """
    return type(value) is UnionV and any(type(v) is NoneV for v in value.items)


def length_of(iterable):
    """How many elements iterating ``iterable`` gives, when known: a size, or None
    (a list's ``length``, a tuple's items, an array's first axis)."""
    t = type(iterable)
    if t is ListV:
        return iterable.length if iterable.items is None else dims.const(len(iterable.items))
    if t is TupleV:
        return dims.const(len(iterable.items))
    if t is Arr and iterable.shape:
        first = iterable.shape[0]
        return first if type(first) is Dim else None
    return None


def element_of(iterable):
    """The value of one element of ``iterable`` (what a ``for`` loop binds).

    >>> element_of(ListV((IntV(), FloatV()))).describe()
    'float'
    """
    t = type(iterable)
    if t is ListV:
        return join_all(iterable.items) if iterable.items is not None else iterable.elem
    if t is TupleV:
        return join_all(iterable.items)
    if t is Arr:
        if iterable.rank:
            return iterable.with_(shape=iterable.shape[1:], origin=None)
        return iterable.with_(shape=None, origin=None)
    return UNKNOWN


def _shape_entries(v) -> tuple | None:
    """The entries of ``x.shape`` (a :class:`ShapeV`, or a tuple of sizes), else None."""
    if type(v) is ShapeV:
        return v.entries
    if all(type(item) is IntV for item in v.items):
        return tuple(item.dim for item in v.items)
    return None


def _join_shapes(a, b):
    """The join of two ``x.shape`` values, one of them of open rank (``.shape`` of
    ``Int["b n"] | Float["b n ..."]``): the shape of the two arrays' join, so that
    ``batch, seq, *dims = feats.shape`` still gives ``b`` and ``n``; None when
    either is not a shape."""
    ea, eb = _shape_entries(a), _shape_entries(b)
    if ea is None or eb is None:
        return None
    joined = join_values(Arr("torch", None, ea), Arr("torch", None, eb))
    if type(joined) is not Arr or joined.shape is None:
        return None
    if any(type(d) is Rest for d in joined.shape):
        return ShapeV(joined.shape)
    return TupleV(tuple(IntV(d if type(d) is Dim else None) for d in joined.shape))


def arrays_union(value: Value) -> bool:
    """Whether ``value`` is one of several arrays (a union of arrays only).

    >>> arrays_union(UnionV((Arr("torch", None, (2,)), Arr("torch", None, ()))))
    True
    """
    return type(value) is UnionV and all(type(v) is Arr for v in value.items)


def union_of(values) -> Value:
    """The value of one of ``values`` (each a member's result): the arrays joined, and
    the other values joined, kept apart (an array or a float: ``scale[0]`` of
    ``Union[Tuple[float, float], Float[Tensor, "2 D"]]``); unknown if one is."""
    values = [m for v in values for m in (v.items if type(v) is UnionV else (v,))]
    if any(v is UNKNOWN for v in values):
        return UNKNOWN
    arrays = [v for v in values if type(v) is Arr]
    others = [v for v in values if type(v) is not Arr]
    if not arrays:
        return join_all(values)
    groups: list = []  # the arrays of each layout joined, kept apart (a few at most)
    for v in arrays:
        group = next((g for g in groups if not _apart(g[0], v)), None)
        if group is None:
            groups.append([v])
        else:
            group.append(v)
    if any(v.rank is None for v in arrays) or len(groups) > _UNION_ARRAYS:
        joined = [join_all(arrays)]
    else:
        joined = [join_all(group) for group in groups]
    if others:
        rest = join_all(others)
        if rest is UNKNOWN:
            return UNKNOWN
        joined.append(rest)
    return joined[0] if len(joined) == 1 else UnionV(tuple(joined))
