"""Shape functions of the checker's rules (layer 6: ``check.rules``).

Pure functions from symbolic shapes (tuples of ``Dim``/None/``Bcast``/``Rest``,
see ``check.symbolic``) to symbolic shapes, raising ``CheckFailure`` with the
rule's code when no size the annotations allow makes the operation valid.
Sizes are reasoned about with ``core.dims`` (normal forms, tri-state ``eq``):
under the checker's contract two sizes agree only when proven equal, and an
axis is 1 only when it is the constant 1 (``#n`` may also be 1).
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from ..diagnostics import CheckFailure
from ..sizes import agree, only_remainders, same_size
from ..symbolic import (
    ONE,
    Bcast,
    Rest,
    fmt_dim,
    fmt_shape,
    is_anonymous,
    is_data_size,
    is_implied_rest,
    is_one,
    joint_rest,
    rest_product,
    unrelated,
)

__all__ = [
    "broadcast",
    "broadcast_pair",
    "matmul_shape",
    "norm_axis",
    "reduce_shape",
    "permute_shape",
    "swap_shape",
    "concat_shape",
    "stack_shape",
    "squeeze_shape",
    "insert_axis",
    "glu_shape",
    "unsqueeze_shape",
    "flatten_shape",
    "expand_shape",
    "product",
    "why_different",
    "split_rest",
    "replace_axis",
]


def why_different(a, b, broadcast: bool = False) -> str:
    """Why two sizes count as different: provably, or only not provably equal.

    Only where the sizes ``broadcast`` can an axis marked ``#`` (may be 1) help,
    so only there does the text suggest it.
    """
    if type(a) is Dim and type(b) is Dim and dims.eq(a, b) is None:
        hint = "; mark an axis '#' if it may be 1" if broadcast else ""
        anonymous = [fmt_dim(d) for d in (a, b) if is_anonymous(d)]
        if anonymous:
            hint = f"; {anonymous[0]} is an axis of a '...', of any size"
        return f" ({fmt_dim(a)} and {fmt_dim(b)} are different sizes unless proven equal{hint})"
    return ""


def split_rest(shape):
    """``(prefix, rest, suffix)`` around the one ``Rest`` entry; rest None if there is none."""
    for i, d in enumerate(shape):
        if type(d) is Rest:
            return shape[:i], d, shape[i + 1 :]
    return shape, None, ()


def broadcast_pair(a, b):
    """The broadcast of two axis entries, or raise ValueError when they cannot agree."""
    if a is b:
        return a
    if a is None:
        return None if b is None or is_one(b) or type(b) is Bcast else b
    if b is None:
        return None if is_one(a) or type(a) is Bcast else a
    if is_one(a):
        return b
    if is_one(b):
        return a
    da = a.dim if type(a) is Bcast else a
    db = b.dim if type(b) is Bcast else b
    if da is db or dims.eq(da, db):
        return b if type(a) is Bcast else a
    if unrelated(da, db):
        if is_anonymous(da) or is_anonymous(db):
            return None  # axes of two ``...``: nothing says how they meet
        # Two sizes of different scopes (a field and a method's name): the operation
        # holds when they are one size, which the result keeps under the first name.
        return b if type(a) is Bcast else a
    if dims.eq(da, db) is None and only_remainders(da, db):
        return b if type(a) is Bcast else a  # equal when a division is exact
    raise ValueError


def broadcast(shapes, labels) -> tuple | None:
    """The broadcast shape of ``shapes`` (NumPy's rule, sizes symbolic).

    The known shapes must broadcast together; with an array of unknown rank the
    result is ``(..., <the last axes>)``, where an axis that may be 1 becomes
    unknown (the other array may add axes and sizes only where these are 1).

    >>> n = dims.symbol("n")
    >>> broadcast([(n, ONE), (dims.const(3),)], ["a", "b"])
    (Dim('n'), Dim('3'))
    >>> broadcast([None, (n, ONE)], ["a", "b"])
    (..., Dim('n'), None)
    """
    known = [(s, lab) for s, lab in zip(shapes, labels) if s is not None]
    if len(known) < len(shapes):
        if not known:
            return None
        joint = broadcast([s for s, _ in known], [lab for _, lab in known])
        # An array of unknown rank meets these axes with 1 or the same size (or not at
        # all): each axis that cannot be 1 keeps its size, after any other axes.
        tail = (
            split_rest(joint)[2]
            if joint is not None and split_rest(joint)[1] is not None
            else joint
        )
        if not tail:
            return None
        return (Rest(None), *(d if type(d) is Dim and not is_one(d) else None for d in tail))
    open_rank = False
    parts: list[tuple] = []
    for s, lab in known:
        prefix, rest, suffix = split_rest(s)
        if rest is not None:
            open_rank = True
            parts.append((suffix, lab, s, (prefix, rest)))
        else:
            parts.append((s, lab, s, None))
    width = max(len(p[0]) for p in parts)
    if open_rank:
        width = min(len(p[0]) for p in parts if p[3] is not None)
        _same_rest_aligned(parts)
    out = []
    for k in range(1, width + 1):
        acc, acc_label, acc_shape = None, None, None
        first = True
        for axes, lab, full, _ in parts:
            if k > len(axes):
                continue
            d = axes[-k]
            if first:
                acc, acc_label, acc_shape, first = d, lab, full, False
                continue
            acc = _pair_or_fail(acc, d, (acc_label, acc_shape), (lab, full), -k)
        out.append(acc)
    out.reverse()
    if not open_rank:
        return tuple(out)
    _rest_meets_fixed(parts)
    heads = {(p[3][0], p[3][1]) for p in parts if p[3] is not None}
    longest_plain = max((len(p[0]) for p in parts if p[3] is None), default=0)
    if len(heads) == 1 and longest_plain <= width:
        prefix, rest = next(iter(heads))
        return (*prefix, rest, *out)
    lead = _same_rest_leading(parts)
    if lead is not None:
        return (*lead, parts[0][3][1], *out)
    if all(rest.anonymous for _, rest in heads):
        # The ``...`` of two parameters: some leading axes, then the broadcast ones.
        return (joint_rest(rest for _, rest in heads), *out)
    # Leading axes of different batches (``(b, ..., 3)`` against ``(*B, 1)``): how
    # they meet is not known, the broadcast last axes are.
    return (Rest(None), *out) if out else None


def _pair_or_fail(acc, d, first: tuple, other: tuple, axis: int):
    """``broadcast_pair(acc, d)``, or the error naming both operands, ``(label, shape)``
    each, and the ``axis`` where they meet."""
    try:
        return broadcast_pair(acc, d)
    except ValueError:
        raise CheckFailure(
            "broadcast",
            f"cannot broadcast {first[0]} {fmt_shape(first[1])} with {other[0]} "
            f"{fmt_shape(other[1])}: axis {axis} has sizes {fmt_dim(acc)} and "
            f"{fmt_dim(d)}{why_different(acc, d, broadcast=True)}",
        ) from None


def _same_rest_leading(parts):
    """The broadcast of the axes before the one ``*rest`` every shape has, the same
    axes in each (``(n0, n1, n2-1, n3, ...)`` and ``(n0, n1, n2, n2-1, ...)`` of one
    parameter's axes): aligned from the ``*rest``, as the axes after it are; None
    when the shapes have different ``*rest`` (or one has none)."""
    if any(p[3] is None for p in parts) or len({p[3][1] for p in parts}) != 1:
        return None
    if len({len(p[0]) for p in parts}) != 1:
        return None  # the ``*rest`` at different distances from the end: not aligned
    if parts[0][3][1].name is None:
        return None  # a ``...`` of unknown origin: not the same axes in each
    prefixes = [p[3][0] for p in parts]
    width = max(len(q) for q in prefixes)
    out = []
    for k in range(1, width + 1):
        acc, acc_part = None, None
        for prefix, part in zip(prefixes, parts):
            if k > len(prefix):
                continue
            d = prefix[-k]
            if acc_part is None:
                acc, acc_part = d, part
                continue
            acc = _pair_or_fail(acc, d, acc_part[1:3], part[1:3], len(prefix) - k)
        out.append(acc)
    out.reverse()
    return tuple(out)


def _rest_meets_fixed(parts) -> None:
    """Refuse a shape whose ``*b`` (or a parameter's own ``...``) ends where another
    shape has a fixed axis.

    ``(bins,)`` against ``(*b,)``, or ``(*b, n, n)`` against ``(*b, 1)``: the last
    axis of ``*b`` meets ``bins`` (or ``n``), a size of its own, so the two
    broadcast only when ``*b`` is empty or its last axis happens to be 1 or that
    size. As with ``_same_rest_aligned``, a function must work for every ``*b``
    its annotations allow. A ``...`` of unknown origin (``Rest(None)``: the
    leading axes of an unannotated result) says nothing, and neither does an
    axis that may be 1 (``#n``), an axis of a ``...`` made explicit or a size
    only the data fixes. Nor does a fixed axis after another named ``*rest``:
    ``(*bs, 1)`` of an attribute against ``(*batch, s, 1)`` is meant for
    ``*bs = (*batch, s)``; the ``...`` of two parameters are each a batch,
    never one inside the other.
    """
    for suffix, lab, full, head in parts:
        if head is None or head[1].name is None or is_implied_rest(head[1]):
            continue
        k = len(suffix) + 1
        for o_suffix, o_lab, o_full, o_head in parts:
            if len(o_suffix) < k or (o_head is not None and not _apart(o_head[1], head[1])):
                continue
            d = o_suffix[-k]
            if type(d) is not Dim or is_one(d) or is_anonymous(d) or is_data_size(d):
                continue
            shown = "'...'" if head[1].anonymous else f"*{head[1].name}"
            raise CheckFailure(
                "broadcast",
                f"cannot broadcast {lab} {fmt_shape(full)} with {o_lab} "
                f"{fmt_shape(o_full)}: axis {-k} is the last axis of {shown} in {lab} "
                f"but {fmt_dim(d)} in {o_lab}, so this works only when {shown} is "
                f"empty (or its last axis is 1 or {fmt_dim(d)})",
            )


def _apart(other: Rest, rest: Rest) -> bool:
    """Whether axes after ``other`` can meet the last axis of ``rest`` as sizes of their
    own: ``other`` is a parameter's own ``...`` (not ``rest``)."""
    return other is not rest and other.name is not None and other.anonymous and rest.anonymous


def _same_rest_aligned(parts) -> None:
    """Refuse two shapes whose one named ``*rest`` sits at different distances from the end.

    ``(*b, n, 3)`` against ``(*b, 3)``: broadcasting aligns the last axis of
    ``*b`` in one with ``n`` in the other and each axis of ``*b`` with its
    neighbour, so the two broadcast only when ``*b`` is empty (or its sizes
    happen to repeat): for ``*b = (5, 4)`` no sizes of the other axes help.
    ``...`` is anonymous: two of them are not the same axes, so they say nothing;
    but the ``...`` of one parameter (``symbolic.own_rest``) is the same axes in
    every value made from it (``y + y.sum(-1)`` of ``y: (..., n)``).
    """
    seen: dict = {}
    for suffix, lab, full, head in parts:
        if head is None or head[1].name is None or is_implied_rest(head[1]):
            continue
        name = head[1].name
        other = seen.get(name)
        if other is None:
            seen[name] = (len(suffix), lab, full)
            continue
        count, other_lab, other_full = other
        shown = "'...'" if head[1].anonymous else f"*{name}"  # a parameter's own ``...``
        if count != len(suffix):
            (many, lm, fm), (few, lf, ff) = sorted(
                ((count, other_lab, other_full), (len(suffix), lab, full)), key=lambda t: -t[0]
            )
            raise CheckFailure(
                "broadcast",
                f"cannot broadcast {other_lab} {fmt_shape(other_full)} with {lab} "
                f"{fmt_shape(full)}: {shown} is followed by {many} "
                f"{'axis' if many == 1 else 'axes'} in {lm} but by {few} in {lf}, so "
                f"the axes of {shown} do not line up (the last axis of "
                f"{shown} in {lf} meets {fmt_dim(fm[len(fm) - few - 1])} of {lm}); this "
                f"works only when {shown} is empty",
            )


def product(entries):
    """The product of sizes as a Dim, or None when one is unknown. The axes of a
    ``*b`` (or of a parameter's ``...``) count as their own size (``rest_product``)."""
    total = ONE
    for d in entries:
        if type(d) is not Dim:
            if type(d) is Rest:
                d = rest_product(d)
                if d is not None:
                    total = total * d
                    continue
            return None
        total = total * d
    return total


def norm_axis(axis: int, rank: int, what: str = "dim", extra: int = 0) -> int:
    """``axis`` (negative counts from the end) as an index into ``rank + extra`` axes."""
    n = rank + extra
    if not -n <= axis < n:
        raise CheckFailure(
            "axis",
            f"{what} {axis} is out of range for an array of rank {rank} (valid: {-n} to {n - 1})",
        )
    return axis % n if n else 0


def matmul_shape(a, b, la: str = "left operand", lb: str = "right operand"):
    """The shape of ``a @ b`` (NumPy/PyTorch matmul with batch broadcasting).

    >>> n, k, m = (dims.symbol(s) for s in "nkm")
    >>> matmul_shape((n, k), (k, m))
    (Dim('n'), Dim('m'))
    >>> matmul_shape(None, (k, m))
    (..., Dim('m'))
    """
    if b is not None and len(b) == 2 and not any(type(d) is Rest for d in b):
        if a is not None and len(a) >= 2 and type(a[-1]) is Rest and not is_implied_rest(a[-1]):
            _rest_meets_rows(a, b, la, lb)
        if a is None or (len(a) >= 1 and type(a[-1]) is Rest):
            # Whatever the rank of the left operand (a vector, a matrix, a batch of
            # them), the last axis of its product with a matrix is the matrix's.
            return (Rest(None), b[-1])
    if a is None or b is None:
        return None
    if len(a) == 0 or len(b) == 0:
        raise CheckFailure(
            "matmul", f"matmul of a 0-d array: {la} {fmt_shape(a)}, {lb} {fmt_shape(b)}"
        )
    ra, rb = split_rest(a)[1], split_rest(b)[1]
    ka = a[-1]
    kb = b[0] if len(b) == 1 and rb is None else (b[-2] if len(b) >= 2 else None)
    if type(kb) is Rest:
        kb = None
    if type(ka) is not Rest and ka is not None and kb is not None:
        sa = ka.dim if type(ka) is Bcast else ka
        sb = kb.dim if type(kb) is Bcast else kb
        if not agree(sa, sb):
            raise CheckFailure(
                "matmul",
                f"matmul: contracted axes differ: {la} {fmt_shape(a)} has "
                f"{fmt_dim(ka)} columns, {lb} {fmt_shape(b)} has {fmt_dim(kb)} "
                f"rows{why_different(sa, sb)}",
            )
    if ra is None and rb is None:
        if len(a) == 1 and len(b) == 1:
            return ()
        if len(a) == 1:
            return (*b[:-2], b[-1])
    if rb is None and len(b) == 1:
        return a[:-1]  # (..., n, k) @ (k,) is (..., n) whatever the leading axes are
    if len(a) < 2 or len(b) < 2:
        return None
    if (
        ra is None
        and len(a) == 2
        and len(b) == 2
        and rb is not None
        and type(a[-1]) is Dim
        and type(b[-1]) is Dim
        and not same_size(a[-1], b[-1])
    ):
        # ``W @ x`` of ``W (a, k)`` and ``x (..., c)``: ``x`` is a vector (its ``...``
        # empty) or a batch of matrices; when ``k`` is not ``c`` it cannot be a vector,
        # so it is the batch ``(..., ?, c)`` and the product ``(..., a, c)``.
        b = (b[0], None, b[1])
    if type(b[-2]) is Rest or (type(a[-2]) is Rest and not (rb is None and len(b) == 2)):
        # A variadic group where the rows are: the operand may be a vector (an empty
        # group) or a batch of matrices, and the result's axes differ with it.
        return None
    batch = broadcast([a[:-2], b[:-2]], [la, lb])
    if batch is None:
        return None
    return (*batch, a[-2], b[-1])


def _rest_meets_rows(a, b, la: str, lb: str) -> None:
    """Refuse ``a @ b`` of ``a (k, *b)`` (``x.T`` of ``x (..., k)``) and a matrix ``b
    (k, m)``: the columns of ``a`` are the last axis of ``*b``, which meets the ``k``
    rows of ``b``, a size of its own; so this works only when ``*b`` is empty (``a`` a
    vector) or its last axis happens to be ``k``, as in :func:`_rest_meets_fixed`."""
    rows = b[0].dim if type(b[0]) is Bcast else b[0]
    if type(b[0]) is not Dim or is_one(rows) or is_anonymous(rows) or is_data_size(rows):
        return
    shown = "'...'" if a[-1].anonymous else f"*{a[-1].name}"
    raise CheckFailure(
        "matmul",
        f"matmul: contracted axes differ: the columns of {la} {fmt_shape(a)} are the "
        f"last axis of {shown}, but {lb} {fmt_shape(b)} has {fmt_dim(rows)} rows, so "
        f"this works only when {shown} is empty (or its last axis is {fmt_dim(rows)})",
    )


def reduce_shape(shape, axes, keepdims: bool):
    """The shape after reducing ``axes`` (None: all axes): all of them leave no axis,
    whatever the rank (``x.sum()`` of an array of unknown rank is ``()``).

    >>> reduce_shape(None, None, False), reduce_shape(None, [0], False)
    ((), None)
    """
    if shape is None:
        return () if axes is None and not keepdims else None
    prefix, rest, suffix = split_rest(shape)
    if axes is None:
        if rest is not None:
            return None if keepdims else ()
        return tuple(ONE for _ in shape) if keepdims else ()
    if rest is not None:
        if all(-len(suffix) <= a < 0 or 0 <= a < len(prefix) for a in axes):
            head = {a for a in axes if a >= 0}
            tail = {len(suffix) + a for a in axes if a < 0}
            new_head = [
                ONE if i in head else d for i, d in enumerate(prefix) if keepdims or i not in head
            ]
            new_tail = [
                ONE if i in tail else d for i, d in enumerate(suffix) if keepdims or i not in tail
            ]
            return (*new_head, rest, *new_tail)
        return None
    rank = len(shape)
    if rank == 0 and all(a in (0, -1) for a in axes):
        return ()  # NumPy reduces a 0-d array over "axis 0" to itself
    drop = {norm_axis(a, rank) for a in axes}
    if keepdims:
        return tuple(ONE if i in drop else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in drop)


def permute_shape(shape, perm, what: str = "permute"):
    """The shape after permuting axes by ``perm`` (a full permutation)."""
    if shape is None or split_rest(shape)[1] is not None:
        return None
    rank = len(shape)
    if len(perm) != rank:
        raise CheckFailure(
            "axis", f"{what}: {len(perm)} dims given for an array of rank {rank} {fmt_shape(shape)}"
        )
    idx = [norm_axis(p, rank) for p in perm]
    if len(set(idx)) != rank:
        raise CheckFailure("axis", f"{what}: repeated dim in {tuple(perm)}")
    return tuple(shape[i] for i in idx)


def swap_shape(shape, a: int, b: int, what: str = "transpose"):
    """The shape with axes ``a`` and ``b`` exchanged."""
    if shape is None or split_rest(shape)[1] is not None:
        return None
    rank = len(shape)
    i, j = norm_axis(a, rank), norm_axis(b, rank)
    out = list(shape)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def concat_shape(shapes, labels, axis: int, what: str = "cat"):
    """The shape of joining ``shapes`` along ``axis``; other axes must agree."""
    known = [
        (s, lab) for s, lab in zip(shapes, labels) if s is not None and split_rest(s)[1] is None
    ]
    if len(known) != len(shapes) or not known:
        return None
    rank = len(known[0][0])
    if rank == 0:
        raise CheckFailure("concat", f"{what}: zero-dimensional arrays cannot be concatenated")
    ax = norm_axis(axis, rank)
    first, first_label = known[0]
    for s, lab in known[1:]:
        if len(s) != rank:
            raise CheckFailure(
                "concat",
                f"{what}: {first_label} has rank {rank} "
                f"{fmt_shape(first)} but {lab} has rank {len(s)} "
                f"{fmt_shape(s)}",
            )
        for i, (x, y) in enumerate(zip(first, s)):
            if i == ax or x is None or y is None:
                continue
            if not agree(x, y):
                raise CheckFailure(
                    "concat",
                    f"{what} along axis {axis}: {first_label} "
                    f"{fmt_shape(first)} and {lab} {fmt_shape(s)} differ on "
                    f"axis {i} ({fmt_dim(x)} vs {fmt_dim(y)})"
                    f"{why_different(x, y)}",
                )
    total: Dim | None = dims.const(0)
    for s, _ in known:
        if type(s[ax]) is not Dim:
            total = None
            break
        total = total + s[ax]
    return tuple(total if i == ax else first[i] for i in range(rank))


def stack_shape(shapes, labels, axis: int, what: str = "stack"):
    """The shape of stacking equal-shaped arrays along a new ``axis``."""
    if shapes and shapes[0] is not None and split_rest(shapes[0])[1] is not None:
        # Arrays of one shape with a ``*rest`` (``torch.stack([u, v])`` of ``(*B,)``):
        # the new axis goes in front of or after the rest, else nothing is known.
        if any(s != shapes[0] for s in shapes[1:]):
            return None
        found = _open_axis(shapes[0], axis, extra=1)
        if found is None:
            return None
        prefix, rest, suffix, (end, i) = found
        new = dims.const(len(shapes))
        if end == "head":
            return (*prefix[:i], new, *prefix[i:], rest, *suffix)
        return (*prefix, rest, *suffix[:i], new, *suffix[i:])
    known = [
        (s, lab) for s, lab in zip(shapes, labels) if s is not None and split_rest(s)[1] is None
    ]
    if len(known) != len(shapes) or not known:
        return None
    first, first_label = known[0]
    for s, lab in known[1:]:
        if len(s) != len(first) or any(
            x is not None and y is not None and not agree(x, y) for x, y in zip(first, s)
        ):
            raise CheckFailure(
                "concat",
                f"{what}: all arrays need the same shape; "
                f"{first_label} is {fmt_shape(first)} but {lab} is "
                f"{fmt_shape(s)}",
            )
    ax = norm_axis(axis, len(first), extra=1)
    return (*first[:ax], dims.const(len(shapes)), *first[ax:])


def _open_axis(shape, axis: int, extra: int = 0):
    """``(prefix, rest, suffix, where)`` for ``axis`` of a shape with a ``*rest``: where
    is ``("head", i)`` or ``("tail", i)`` (``extra`` 1: an insertion point), or None when
    the axis falls in the rest."""
    prefix, rest, suffix = split_rest(shape)
    if 0 <= axis < len(prefix) + extra:
        return prefix, rest, suffix, ("head", axis)
    if -len(suffix) - extra <= axis < 0:
        return prefix, rest, suffix, ("tail", len(suffix) + extra + axis)
    return None


def replace_axis(shape, axis: int, size):
    """``shape`` with entry ``axis`` replaced by ``size``; of a shape with a ``*rest``,
    None (unknown) when the axis falls in the rest.

    >>> n = dims.symbol("n")
    >>> replace_axis((Rest(None), n, ONE), -1, n)
    (..., Dim('n'), Dim('n'))
    """
    if shape is None:
        return None
    if split_rest(shape)[1] is None:
        i = norm_axis(axis, len(shape))
        return (*shape[:i], size, *shape[i + 1 :])
    found = _open_axis(shape, axis)
    if found is None:
        return None
    prefix, rest, suffix, (side, i) = found
    if side == "head":
        return (*prefix[:i], size, *prefix[i + 1 :], rest, *suffix)
    return (*prefix, rest, *suffix[:i], size, *suffix[i + 1 :])


def glu_shape(shape, axis: int):
    """``glu``: the halves of ``axis`` gate each other, so it becomes half as long;
    an odd constant size is an error.

    >>> h = dims.symbol("h")
    >>> glu_shape((dims.const(2), 4 * h), -1)
    (Dim('2'), Dim('2*h'))
    """
    if shape is None:
        return None
    if split_rest(shape)[1] is None:
        d = shape[norm_axis(axis, len(shape))]
    else:
        found = _open_axis(shape, axis)
        if found is None:
            return None
        _, _, _, (side, i) = found
        d = (found[0] if side == "head" else found[2])[i]
    if type(d) is not Dim:
        return replace_axis(shape, axis, None)
    if d.value is not None and d.value % 2:
        raise CheckFailure(
            "axis", f"glu: axis {axis} of {fmt_shape(shape)} has odd size {d.value}, not halved"
        )
    return replace_axis(shape, axis, d // 2)


def squeeze_shape(shape, axis, strict: bool):
    """Remove ``axis`` (or every size-1 axis). NumPy (``strict``) refuses a non-1 axis.

    torch keeps an axis that is not 1. A named size, or an axis of a ``*rest``, is taken
    as not 1, as broadcasting takes it (``#`` marks a size that may be 1): squeezing it
    keeps the shape, as ``squeeze()`` without an axis keeps it."""
    if shape is not None and split_rest(shape)[1] is not None and type(axis) is int:
        found = _open_axis(shape, axis)
        if found is None:
            return None if strict else shape
        prefix, rest, suffix, (side, i) = found
        part = prefix if side == "head" else suffix
        if not is_one(part[i]):
            if type(part[i]) is Dim and strict:
                raise CheckFailure(
                    "axis",
                    f"squeeze: axis {axis} of {fmt_shape(shape)} has "
                    f"size {fmt_dim(part[i])}, not 1",
                )
            return shape if type(part[i]) is Dim else None
        part = part[:i] + part[i + 1 :]
        return (*part, rest, *suffix) if side == "head" else (*prefix, rest, *part)
    if shape is None or split_rest(shape)[1] is not None:
        return None
    if axis is None:
        if any(d is None or type(d) is Bcast for d in shape):
            return None
        return tuple(d for d in shape if not is_one(d))
    i = norm_axis(axis, len(shape))
    d = shape[i]
    if is_one(d):
        return shape[:i] + shape[i + 1 :]
    if type(d) is Dim:
        if strict:
            raise CheckFailure(
                "axis", f"squeeze: axis {axis} of {fmt_shape(shape)} has size {fmt_dim(d)}, not 1"
            )
        return shape
    return None


def unsqueeze_shape(shape, axis: int):
    """Insert an axis of size 1 at ``axis`` (range: -rank-1 .. rank)."""
    return insert_axis(shape, axis, ONE)


def insert_axis(shape, axis: int, size):
    """Insert an axis of ``size`` at ``axis`` (range: -rank-1 .. rank); of a shape with
    a ``*rest``, None (unknown) when the place falls in the rest."""
    if shape is not None and split_rest(shape)[1] is not None:
        found = _open_axis(shape, axis, extra=1)
        if found is None:
            return None
        prefix, rest, suffix, (side, i) = found
        if side == "head":
            return (*prefix[:i], size, *prefix[i:], rest, *suffix)
        return (*prefix, rest, *suffix[:i], size, *suffix[i:])
    if shape is None:
        return None
    i = norm_axis(axis, len(shape), extra=1)
    return (*shape[:i], size, *shape[i:])


def flatten_shape(shape, start: int = 0, end: int = -1):
    """Merge axes ``start..end`` into one (their product). Of an array of open rank,
    the axes from ``start`` (counted from the front) to the last are one axis of
    unknown size: ``x.flatten()`` of any array is one axis.

    >>> n = dims.symbol("n")
    >>> flatten_shape(None), flatten_shape((n, Rest(None)), 1), flatten_shape(None, 1)
    ((None,), (Dim('n'), None), (None, None))
    """
    if shape is None or split_rest(shape)[1] is not None:
        if end != -1 or start < 0:
            return None
        if shape is None:
            return (None,) * (start + 1)  # an input of at least start + 1 axes
        prefix = split_rest(shape)[0]
        return (*prefix[:start], None) if start <= len(prefix) else None
    if not shape:
        return (ONE,)
    rank = len(shape)
    i, j = norm_axis(start, rank), norm_axis(end, rank)
    if i > j:
        raise CheckFailure("axis", f"flatten: start_dim {start} comes after end_dim {end}")
    return (*shape[:i], product(shape[i : j + 1]), *shape[j + 1 :])


def expand_shape(shape, sizes):
    """``expand(*sizes)``: -1 keeps an axis; an existing axis must be 1 or the new size."""
    if shape is None:
        return tuple(None if type(d) is int else d for d in sizes)
    prefix, rest, suffix = split_rest(shape)
    if rest is not None:
        # ``(..., a)`` expanded to ``(*value.shape)`` of ``(..., a, bins)``: the fixed
        # last axes meet the last sizes (NumPy's alignment from the right)
        tail = split_rest(sizes)[2] if any(type(d) is Rest for d in sizes) else sizes
        if prefix or len(tail) < len(suffix):
            return None
        out = list(sizes)
        for k in range(1, len(suffix) + 1):
            out[-k] = _expanded_axis(suffix[-k], out[-k])
        return tuple(None if type(d) is int else d for d in out)
    if len(sizes) < len(shape):
        raise CheckFailure(
            "rank",
            f"expand: {len(sizes)} sizes given for an array of rank "
            f"{len(shape)} {fmt_shape(shape)}",
        )
    lead = len(sizes) - len(shape)
    out = list(sizes[:lead])
    for old, new in zip(shape, sizes[lead:]):
        out.append(_expanded_axis(old, new))
    return tuple(out)


def _expanded_axis(old, new):
    """An existing axis ``old`` expanded to ``new``: -1 keeps it; it must be 1 or
    the new size."""
    if type(new) is int and new == -1:
        return old
    if old is None or new is None or is_one(old) or type(old) is Bcast:
        return new
    if agree(old, new):
        return old
    raise CheckFailure(
        "broadcast",
        f"expand: axis of size {fmt_dim(old)} cannot be "
        f"expanded to {fmt_dim(new)}"
        f"{why_different(old, new, broadcast=True)}",
    )
