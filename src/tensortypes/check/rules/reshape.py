"""Element counts: reshape and view with ``-1`` and divisibility (layer 6: ``check.rules``).

``reshape_shape`` decides whether a reshape keeps the number of elements for
every size the annotations allow: the two products must be provably equal in
the normal form of ``core.dims`` (``(b, 2*n)`` to ``(b, n, 2)`` is fine,
``(b, n)`` to ``(b, n//2, 2)`` is not: odd ``n`` has no such reshape), and a
``-1`` takes the quotient, which must divide exactly. Quotients by a symbolic
size (``dim // heads``) are opaque to the normal form; divisibility facts the
code established (``assert dim % heads == 0``) make them exact
(``check.sizes.equal_under_facts``).
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from ..diagnostics import CheckFailure
from ..sizes import equal_under_facts, indivisible_example, only_remainders
from ..symbolic import (
    Rest,
    field_named,
    fmt_dim,
    fmt_shape,
    is_field_size,
    is_data_size,
    is_field_symbol,
    rest_product,
    unrelated,
)
from .shapefns import product

__all__ = ["reshape_shape"]


def _divide(total: Dim, known: Dim, have=(), given=()):
    """``total / known`` when it divides exactly (proven), else None.

    Tried first on the factors (the axes of the input and of the new shape),
    cancelling equal sizes and constants that divide a size, then on the
    products.
    """
    if known.is_constant and known.value == 0:
        return None
    have = [rest_product(d) if type(d) is Rest else d for d in have]
    given = [rest_product(d) if type(d) is Rest else d for d in given]
    rest = [d for d in have if type(d) is Dim]
    ok = len(rest) == len(have)
    for f in given:
        if not ok or type(f) is not Dim:
            ok = False
            break
        if f in rest:
            rest.remove(f)
            continue
        if f.is_constant:
            for i, h in enumerate(rest):
                if (h % f).value == 0:
                    rest[i] = h // f
                    break
            else:
                ok = False
            continue
        ok = False
    if ok:
        q = product(rest)
        if q is not None and dims.eq(q * known, total):
            return q
    q = total // known
    if dims.eq(q * known, total):
        return q
    return None


def _unrelated_counts(total: Dim, known: Dim) -> bool:
    """Whether two element counts differ only in sizes never compared (a field of a
    configuration against a name of the method's own, ``symbolic.unrelated``), or
    only in fields of configurations, once the sizes both have (``batch``, ``pos``)
    are left out."""
    common = total.free_symbols & known.free_symbols
    ones = {name: dims.const(1) for name in common}
    a, b = (total.substitute(ones), known.substitute(ones)) if ones else (total, known)
    if a.is_constant or b.is_constant:
        return False
    if all(is_field_symbol(n) for n in a.free_symbols | b.free_symbols):
        # fields of a configuration on both sides and no other size (``d_model``
        # against ``n_heads*d_head``): the configuration may tie them
        # (``d_head = d_model // n_heads``), so it cannot tell
        return True
    return unrelated(a, b)


def reshape_shape(shape, new, what: str = "reshape", facts=(), shown=None):
    """The shape of ``reshape(new)``; ``new`` holds Dims, None (unknown) and -1 markers.

    The element counts must be provably equal; ``-1`` takes the quotient, which
    must divide exactly. ``facts`` are divisibility facts established by the
    code (see ``check.sizes.equal_under_facts``); ``shown`` is the ``(shape, new)``
    messages name, when the shapes compared lost a ``*rest`` they share.

    >>> b, n = dims.symbol("b"), dims.symbol("n")
    >>> reshape_shape((b, 2 * n), (b, -1, dims.const(2)))
    (Dim('b'), Dim('n'), Dim('2'))
    """
    holes = [i for i, d in enumerate(new) if type(d) is int and d == -1]
    if len(holes) > 1:
        raise CheckFailure("reshape", f"{what}: only one dimension can be -1, got {len(holes)}")
    if shape is None:
        return tuple(None if type(d) is int else d for d in new)
    rests = [d for d in shape if type(d) is Rest]
    if rests and rests[0].name is not None and rests[0] in new:
        # The same ``*b`` on both sides (``x.view(*x.shape[:-1], 3, -1)``) holds the
        # same elements: compare what is around it.
        found = reshape_shape(
            tuple(d for d in shape if d is not rests[0]),
            tuple(d for d in new if d is not rests[0]),
            what,
            facts,
            (shape, new),
        )
        cut = new.index(rests[0])
        return (*found[:cut], rests[0], *found[cut:])
    total = product(shape)
    known = product(d for d in new if not (type(d) is int and d == -1))
    if total is None or known is None:
        return tuple(None if type(d) is int else d for d in new)
    shown_shape, shown_new = shown or (shape, new)
    text_new = "(" + ", ".join("-1" if type(d) is int else fmt_dim(d) for d in shown_new) + ")"
    if holes:
        if known.is_constant and known.value == 0:
            return tuple(None if type(d) is int else d for d in new)
        q = _divide(total, known, shape, [d for d in new if not (type(d) is int and d == -1)])
        if q is None and facts and equal_under_facts((total // known) * known, total, facts):
            q = total // known
        if q is None and (is_field_size(total) or is_field_size(known)):
            # a configuration's field is the size of its name (``view(-1,
            # cfg.geo_feat_dim)`` of ``(*batch, geo_feat_dim)``); fields it does not
            # cancel may be tied by the configuration, so nothing is said
            named = [field_named(d) if type(d) is Dim else d for d in new]
            q = _divide(
                field_named(total),
                field_named(known),
                [field_named(d) if type(d) is Dim else d for d in shape],
                [d for d in named if not (type(d) is int and d == -1)],
            )
            return tuple((q if type(d) is int else d) for d in new)
        if q is None:
            if dims.eq(known, 0) is False and total.is_constant and known.is_constant:
                raise CheckFailure(
                    "reshape",
                    f"{what}: cannot reshape "
                    f"{fmt_shape(shown_shape)} "
                    f"({fmt_dim(total)} elements) to {text_new}: {fmt_dim(total)} is not a "
                    f"multiple of {fmt_dim(known)}",
                )
            example = _indivisible(total, known, facts, (*shape, *new))
            if example is not None:
                names = sorted(total.free_symbols | known.free_symbols)
                sizes = ", ".join(
                    f"{fmt_dim(dims.symbol(n))}={example[n]}" for n in names if n in example
                )
                raise CheckFailure(
                    "reshape",
                    f"{what}: cannot reshape "
                    f"{fmt_shape(shown_shape)} "
                    f"({fmt_dim(total)} elements) to {text_new}: {fmt_dim(total)} is not "
                    f"a multiple of {fmt_dim(known)} for every size"
                    + (f": it fails for {sizes}" if sizes else ""),
                )
            return tuple(None if type(d) is int else d for d in new)
        return tuple(q if type(d) is int else d for d in new)
    same = dims.eq(total, known)
    if not same and facts:
        same = equal_under_facts(total, known, facts) or same
    if same or (same is None and only_remainders(total, known)):
        return tuple(new)
    if same is None and _unrelated_counts(total, known):
        return tuple(new)
    reason = "" if same is False else " (not provably equal for every size)"
    raise CheckFailure(
        "reshape",
        f"{what}: cannot reshape {fmt_shape(shown_shape)} to "
        f"{text_new}: "
        f"{fmt_dim(total)} elements vs {fmt_dim(known)}{reason}",
    )


def _indivisible(total: Dim, known: Dim, facts, axes):
    """Sizes the annotations allow for which ``known`` does not divide ``total``, or None.

    A constant remainder decides; otherwise the facts may make the quotient
    exact, and else an example is searched for (``check.sizes.indivisible_example``):
    ``reshape(b, -1, 2)`` of ``(b, n)`` fails for ``n = 1``; ``n*(n+1)`` elements
    always split in two, and there is no example. A count only the data fixes (how
    many items a mask selects, ``torch.argwhere(d == 2)``) has none either: the data
    may hold a multiple (the pairs of a mesh's faces come in threes).
    """
    r = total % known
    if r.is_constant:
        return {} if r.value != 0 else None
    if is_data_size(total):
        return None
    if dims.eq(r, 0) is True:
        return None
    if facts and equal_under_facts((total // known) * known, total, facts):
        return None
    positive = [d for d in axes if type(d) is Dim and not d.is_constant]
    return indivisible_example(total, known, facts, positive)
