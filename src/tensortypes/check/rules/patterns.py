"""Operations whose shapes are spelled in a string: ``einsum`` and einops (layer 6).

``torch.einsum("bnd,bmd->bnm", q, k)`` and ``np.einsum``: each operand's axes
are named by one letter; a letter names one size wherever it appears, ``...``
stands for the broadcast of the axes no letter names, and the output is the
letters after ``->`` (or, without an arrow, those that appear once, in
alphabetical order). ``einops.rearrange``/``repeat``/``reduce`` and
``einops.einsum``: axes are words, ``(h d)`` is one axis of size ``h*d``, a
number is an axis of that size, and sizes may be given as keywords (``h=8``).

A letter or word that meets two sizes the algebra proves different, an
operand of the wrong rank, or an output axis no input names is an error (the
library raises for each). A group split by a size that does not provably
divide it gives an unknown size for the part (einops checks it at run time),
never an error.
"""

from __future__ import annotations

import re

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import bool_

from ..diagnostics import CheckFailure
from ..sizes import indivisible_example, same_size
from ..symbolic import (
    UNKNOWN,
    Arr,
    Bcast,
    IntV,
    Rest,
    ShapeV,
    ListV,
    StrV,
    TupleV,
    Unknown,
    fmt_dim,
    fmt_shape,
    unrelated,
)
from . import shapefns as sf
from .base import Call, Rule, default_int, promote

__all__ = ["Einsum", "Einops", "EINOPS", "EINX", "pattern_helper"]

_TOKEN = re.compile(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+|\S")


def _written_size(group, d, what: str, label: str) -> None:
    """A number on the left of an einops pattern (``"b 1 -> b n"``): the axis must
    have that size, so another constant, or a named size not proven equal to it, is
    an error (not an axis marked ``#``, one of a ``...`` or a field's, which
    ``same_size`` never compares)."""
    if len(group) != 1 or not group[0].isdigit() or type(d) is not Dim:
        return
    written = dims.const(int(group[0]))
    if same_size(d, written):
        return
    raise CheckFailure(
        "reshape",
        f"{what}: axis of size {fmt_dim(d)} in {label} is written {group[0]}"
        f"{sf.why_different(d, written)}",
    )


def _size(d):
    """An axis entry as a size: ``#n`` is ``n`` (it may also be 1), a ``*rest`` unknown."""
    if type(d) is Bcast:
        return d.dim
    return d if type(d) is Dim else None


def _joint_dtypes(arrays, kind):
    """The dtype set of a result made of ``arrays`` together (each promoted with the next)."""
    dtypes = arrays[0].dtypes
    for x in arrays[1:]:
        dtypes = promote((dtypes, False), (x.dtypes, False), x.kind or kind)
    return dtypes


def _array_axes(shape, count: int, has_ellipsis: bool, head: int, what: str, label: str):
    """``(named axes, ellipsis axes)`` of an operand, or None when its rank is open.

    ``count`` axes are named, ``head`` of them before the ``...``.
    """
    if shape is None:
        return None
    prefix, rest, suffix = sf.split_rest(shape)
    tail = count - head
    if rest is not None:
        if not has_ellipsis and len(prefix) + len(suffix) <= count:
            # ``"B N Cc"`` of a ``(..., Cc)`` array: the pattern fixes the rank, the
            # axes of the ``...`` are the named ones it leaves (sizes not known)
            return (*prefix, *(None,) * (count - len(prefix) - len(suffix)), *suffix), ()
        if not has_ellipsis or head > len(prefix) or tail > len(suffix):
            return None
        named = (*shape[:head], *shape[len(shape) - tail :])
        return named, shape[head : len(shape) - tail]
    if (len(shape) != count and not has_ellipsis) or len(shape) < count:
        want = f"at least {count}" if has_ellipsis else str(count)
        raise CheckFailure(
            "rank",
            f"{what}: {label} has rank {len(shape)} "
            f"{fmt_shape(shape)} but the pattern names {want} axes",
        )
    return (*shape[:head], *shape[len(shape) - tail :]), shape[head : len(shape) - tail]


class _Sizes:
    """Sizes bound to axis names, with where each came from, for one call."""

    __slots__ = ("sizes", "where", "what", "facts", "code", "unsure")

    def __init__(self, what: str, facts=(), code: str = "reshape"):
        self.sizes: dict = {}
        self.where: dict = {}
        self.what = what
        self.facts = facts
        self.code = code  # a conflict is a contraction (einsum) or a reshape (einops)
        self.unsure: list = []

    def bind(self, name: str, d, where: str) -> None:
        """Bind ``name`` to size ``d`` (None: unknown); a provable conflict is an error."""
        old = self.sizes.get(name)
        if name not in self.sizes or old is None or sf.is_one(old):
            if name not in self.sizes or d is not None:
                self.sizes[name] = d
                self.where[name] = where
            return
        if d is None or sf.is_one(d) or old is d:
            return
        if not same_size(old, d, self.facts):
            raise CheckFailure(
                self.code,
                f"{self.what}: axis {name} is {fmt_dim(old)} in "
                f"{self.where[name]} but {fmt_dim(d)} in {where}"
                f"{sf.why_different(old, d)}",
            )


# -- einsum ------------------------------------------------------------------------------


class Einsum(Rule):
    """``einsum(equation, *operands)`` (PyTorch, NumPy, JAX), one letter per axis."""

    __slots__ = ()

    def apply(self, call: Call):
        if not call.args or type(call.args[0]) is not StrV or call.args[0].value is None:
            return UNKNOWN
        operands = list(call.args[1:])
        if len(operands) == 1 and type(operands[0]) in (ListV, TupleV):
            operands = list(operands[0].items or ())
        labels = [call.label(i + 1) for i in range(len(operands))]
        return einsum(call, call.args[0].value, operands, labels, "einsum", words=False)


def _einsum_terms(equation: str, words: bool, ones: bool = False):
    """``([operand terms], output term or None)``; a term is ``(names, ellipsis index)``.

    ``ones``: the output may have axes of size 1, written ``1``.
    """
    lhs, arrow, rhs = equation.partition("->")

    def term(text: str, out: bool = False):
        if words:
            names = text.split()
        else:
            names = [c for c in text.replace("...", ".") if not c.isspace()]
        if not all(
            n == "..." or n == "." or n.isidentifier() or (out and ones and n == "1") for n in names
        ):
            return None
        names = ["..." if n in (".", "...") else n for n in names]
        if names.count("...") > 1:
            return None
        cut = names.index("...") if "..." in names else None
        return [n for n in names if n != "..."], cut

    terms = [term(t) for t in lhs.split(",")]
    out = term(rhs, out=True) if arrow else None
    if any(t is None for t in terms) or (arrow and out is None):
        return None
    return terms, out


def einsum(
    call: Call,
    equation: str,
    operands,
    labels,
    what: str,
    words: bool,
    ones: bool = False,
    code: str = "matmul",
):
    """The value of an einsum over ``operands`` (``words``: einops' axis names;
    ``ones``: ``1`` is an output axis of size 1; ``code``: that of a conflict)."""
    parsed = _einsum_terms(equation, words, ones)
    if parsed is None:
        return UNKNOWN
    terms, out = parsed
    if len(terms) != len(operands):
        raise CheckFailure(
            "call",
            f"{what}: the equation {equation!r} has {len(terms)} "
            f"operands but {len(operands)} are given",
        )
    if any(type(x) is not Arr for x in operands):
        # an unknown operand binds nothing; the others still bind the result's names
        if not any(type(x) is Arr for x in operands) or any(
            type(x) not in (Arr, Unknown) for x in operands
        ):
            return UNKNOWN
        known = next(x for x in operands if type(x) is Arr)
        operands = [x if type(x) is Arr else Arr(known.kind, None, None) for x in operands]
    sizes = _Sizes(f"{what} {equation!r}", call.facts, code)
    ellipses: list = []
    counts: dict = {}
    for (names, cut), x, label in zip(terms, operands, labels):
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        axes = _array_axes(
            x.shape,
            len(names),
            cut is not None,
            cut if cut is not None else len(names),
            what,
            label,
        )
        if axes is None:
            for n in names:
                sizes.bind(n, None, label)
            ellipses.append(None if cut is not None else ())  # no ``...``: no axes there
            continue
        named, rest = axes
        for n, d in zip(names, named):
            sizes.bind(n, _size(d), f"{label} {fmt_shape(x.shape)}")
        ellipses.append(rest if cut is not None else ())
    if out is None:
        has = any(cut is not None for _, cut in terms)
        names = sorted(n for n, c in counts.items() if c == 1)
        out = (names, 0 if has else None)
    names, cut = out
    for n in names:
        if n not in sizes.sizes and n != "1":
            raise CheckFailure("axis", f"{what}: output axis {n} of {equation!r} is in no operand")
    dtypes = _joint_dtypes(operands, call.kind)
    kind = operands[0].kind or call.kind
    shape = [dims.const(1) if n == "1" else sizes.sizes[n] for n in names]
    if cut is not None:
        if any(e is None for e in ellipses):
            return Arr(kind, dtypes, None)
        middle = sf.broadcast(list(ellipses), labels) if len(ellipses) > 1 else ellipses[0]
        if middle is None:
            return Arr(kind, dtypes, None)
        shape[cut:cut] = list(middle)
    return Arr(kind, dtypes, tuple(shape))


# -- einops ---------------------------------------------------------------------------------


def _groups(text: str):
    """The axes of one side of an einops pattern: each a list of names and numbers
    (``"(h d)"`` is ``["h", "d"]``), ``"..."`` for the ellipsis; None if malformed."""
    out: list = []
    group: list | None = None
    for tok in _TOKEN.findall(text):
        if tok == "(":
            if group is not None:
                return None
            group = []
        elif tok == ")":
            if group is None:
                return None
            out.append(group)
            group = None
        elif tok == "..." and group is not None:
            group.append(_GROUPED)  # ``(...)``: the ellipsis's axes merged into one
        elif tok == "..." or tok.isidentifier() or tok.isdigit():
            (group if group is not None else out).append(tok if group is not None else [tok])
        else:
            return None
    if group is not None or sum(g == ["..."] for g in out) > 1:
        return None
    return out


_GROUPED = "(...)"  # the ellipsis inside a group of an einops pattern


def _member(tok: str, sizes: _Sizes):
    if tok.isdigit():
        return dims.const(int(tok))
    return sizes.sizes.get(tok)


class Einops(Rule):
    """``einops.rearrange``/``repeat``/``reduce(tensor, pattern, [reduction], **sizes)``."""

    __slots__ = ("mode",)

    def __init__(self, mode: str):
        self.mode = mode  # "rearrange", "repeat", "reduce"

    def apply(self, call: Call):
        x = call.args[0] if call.args else call.kwargs.get("tensor")
        pattern = call.args[1] if len(call.args) > 1 else call.kwargs.get("pattern")
        if type(x) is not Arr or type(pattern) is not StrV or pattern.value is None:
            return UNKNOWN
        what = f"einops.{self.mode}"
        lhs, arrow, rhs = pattern.value.partition("->")
        left, right = _groups(lhs), _groups(rhs)
        if not arrow or left is None or right is None:
            return UNKNOWN
        sizes = _Sizes(f"{what} {pattern.value!r}", call.facts)
        for key, value in call.kwargs.items():
            if key not in ("tensor", "pattern", "reduction"):
                sizes.bind(key, value.dim if type(value) is IntV else None, f"{key}=")
        if any(_GROUPED in g for g in left):
            return x.with_(shape=None, origin=None)  # ``(...) d -> ...``: not followed
        has = ["..."] in left
        head = left.index(["..."]) if has else len(left)
        count = len(left) - has
        axes = _array_axes(x.shape, count, has, head, what, call.label(0))
        if axes is None:
            return x.with_(shape=None, origin=None)
        named, ellipsis = axes
        label = f"{call.label(0)} {fmt_shape(x.shape)}"
        for group, d in zip((g for g in left if g != ["..."]), named):
            _written_size(group, d, sizes.what, label)
            self._split(group, _size(d), sizes, label)
        for reason in sizes.unsure:
            call.cannot_tell(reason)
        shape = []
        for group in right:
            if group == ["..."]:
                if not has:
                    return x.with_(shape=None, origin=None)
                shape.extend(ellipsis)
                continue
            total: Dim | None = dims.const(1)
            for tok in group:
                if tok == _GROUPED:
                    if not has:
                        return x.with_(shape=None, origin=None)
                    merged = sf.product(ellipsis)  # None for axes of unknown number
                    total = None if merged is None or total is None else total * merged
                    continue
                if not tok.isdigit() and tok not in sizes.sizes:
                    given = " or given" if self.mode == "repeat" else ""
                    raise CheckFailure(
                        "axis",
                        f"{what}: axis {tok} on the right of "
                        f"{pattern.value!r} has no size (it is not "
                        f"on the left{given})",
                    )
                d = _member(tok, sizes)
                total = None if d is None or total is None else total * d
            shape.append(total)
        dtypes = x.dtypes
        reduction = call.args[2] if len(call.args) > 2 else call.kwargs.get("reduction")
        if (
            self.mode == "reduce"
            and dtypes is not None
            and any(d.kind == "b" for d in dtypes)
            and type(reduction) is StrV
            and reduction.value in ("sum", "prod")
        ):
            # A sum of bools counts: an int array (as x.sum() of a bool array).
            dtypes = frozenset(default_int(x.kind) if d.kind == "b" else d for d in dtypes)
        return x.with_(
            shape=tuple(shape),
            origin=None,
            dtypes=dtypes,
            contiguous=True if self.mode != "rearrange" else x.contiguous,
        )

    @staticmethod
    def _split(group, d, sizes: _Sizes, label: str) -> None:
        """Bind the names of one left-hand axis of size ``d`` (``(h d)`` splits it)."""
        if len(group) == 1:
            tok = group[0]
            if tok.isdigit():
                return  # checked by _written_size
            sizes.bind(tok, d, label)
            return
        known, unknown = dims.const(1), []
        for tok in group:
            m = _member(tok, sizes)
            if m is None:
                unknown.append(tok)
            else:
                known = known * m
        if len(unknown) != 1 or d is None:
            for tok in unknown:
                sizes.sizes.setdefault(tok, None)
            if not unknown and d is not None and not same_size(known, d, sizes.facts):
                # every member given: the axis must be their product, for every size
                # (as ``reshape`` holds it)
                raise CheckFailure(
                    "reshape",
                    f"{sizes.what}: axis of size {fmt_dim(d)} in "
                    f"{label} cannot be split into "
                    f"({' '.join(group)}) = {fmt_dim(known)}{sf.why_different(d, known)}",
                )
            return
        q = d // known if not (known.is_constant and known.value == 0) else None
        exact = q is not None and same_size(q * known, d, sizes.facts, remainders=False)
        if q is not None and not exact and d.is_constant and known.is_constant:
            raise CheckFailure(
                "reshape",
                f"{sizes.what}: axis of size {d} in {label} cannot "
                f"be split into ({' '.join(group)}): {d} is not a "
                f"multiple of {known}",
            )
        if q is not None and not exact and "%" in fmt_dim(d):
            # a size padded to a multiple (``m + (w - m % w) % w``): the padding must be
            # computed from the size it pads; an example says when it is not
            example = indivisible_example(
                d, known, sizes.facts, [x for x in (d, known) if not x.is_constant]
            )
            if example:
                shown = ", ".join(f"{k}={v}" for k, v in sorted(example.items()))
                raise CheckFailure(
                    "reshape",
                    f"{sizes.what}: axis of size {fmt_dim(d)} in {label} cannot be split "
                    f"into ({' '.join(group)}): it is not a multiple of {fmt_dim(known)} "
                    f"for every size: it fails for {shown}",
                )
        if not exact:
            sizes.unsure.append(
                f"axis {fmt_dim(d)} of {label} split into "
                f"({' '.join(group)}) is not provably a multiple of {known}: "
                f"{unknown[0]} is unknown (einops checks it at run time)"
            )
        sizes.bind(unknown[0], q if exact else None, label)


def pattern_helper(call: Call, what: str):
    """The value of a call of a project's own helper in einops notation, or None.

    ``und(a, b, "b i, b j -> b 1 i j")``: arrays, then a pattern with one
    comma-separated group per array, an arrow and the result's axes (names the
    groups have, ``...``, or ``1``). Whatever the helper computes from its arrays
    (a product or an ``&`` of their rearranged forms, an einsum), an einops
    pattern says the result's axes: each name is the size it has in the arrays
    (an axis of size 1 broadcasts), and a name with two sizes proven different is
    an error. Used only where the helper's own result is not known (no
    annotation, or an array of any shape); anything else gives None.
    """
    if len(call.args) < 2 or call.kwargs:
        return None
    pattern = call.args[-1]
    operands = call.args[:-1]
    if type(pattern) is not StrV or pattern.value is None or "->" not in pattern.value:
        return None
    if any(type(x) is not Arr for x in operands):
        return None
    parsed = _einsum_terms(pattern.value, words=True, ones=True)
    if parsed is None or len(parsed[0]) != len(operands) or parsed[1] is None:
        return None
    terms, (out, cut) = parsed
    named = {n for names, _ in terms for n in names}
    if any(n != "1" and n not in named for n in out):
        return None  # a new axis whose size the helper takes from elsewhere
    if (cut is not None) != any(c is not None for _, c in terms):
        return None
    labels = [call.label(i) for i in range(len(operands))]
    return einsum(
        call, pattern.value, operands, labels, what, words=True, ones=True, code="broadcast"
    )


def _einops_einsum(call: Call):
    """``einops.einsum(x, y, "b n d, b m d -> b n m")``: the pattern comes last."""
    if not call.args or type(call.args[-1]) is not StrV or call.args[-1].value is None:
        return UNKNOWN
    operands = list(call.args[:-1])
    labels = [call.label(i) for i in range(len(operands))]
    return einsum(call, call.args[-1].value, operands, labels, "einops.einsum", words=True)


class _EinopsPack(Rule):
    """``einops.pack([a, b], "b n *")``: ``(packed, shapes)``; the named axes are the
    same in every array (by position from the front before ``*``, from the back
    after it) and the ``*`` axis holds, for each array, the product of its axes
    there (1 for an array that has none)."""

    __slots__ = ()

    def apply(self, call: Call):
        if len(call.args) < 2 or type(call.args[1]) is not StrV or call.args[1].value is None:
            return UNKNOWN
        seq = call.args[0]
        if type(seq) not in (ListV, TupleV) or seq.items is None:
            return UNKNOWN
        names = call.args[1].value.split()
        if names.count("*") != 1 or not all(n == "*" or n.isidentifier() for n in names):
            return UNKNOWN
        arrays = list(seq.items)
        if not arrays or any(type(x) is not Arr for x in arrays):
            return TupleV((UNKNOWN, UNKNOWN))
        cut = names.index("*")
        head, tail = names[:cut], names[cut + 1 :]
        what = f"einops.pack {call.args[1].value!r}"
        sizes = _Sizes(what, call.facts, "concat")
        total: Dim | None = dims.const(0)
        middles: list = []  # each array's axes the ``*`` holds (None: unknown)
        for i, x in enumerate(arrays):
            label = call.item_label(0, i)
            before, rest, after = sf.split_rest(x.shape) if x.shape is not None else ((), None, ())
            if x.shape is None or (
                rest is not None and (len(before) < len(head) or len(after) < len(tail))
            ):
                for n in head + tail:
                    sizes.bind(n, None, label)
                total = None
                middles.append(None)
                continue
            if len(x.shape) < len(head) + len(tail):
                raise CheckFailure(
                    "rank",
                    f"{what}: {label} {fmt_shape(x.shape)} has rank {len(x.shape)}, "
                    f"the pattern needs at least {len(head) + len(tail)}",
                )
            named = (*x.shape[: len(head)], *x.shape[len(x.shape) - len(tail) :])
            for n, d in zip(head + tail, named):
                sizes.bind(n, _size(d), f"{label} {fmt_shape(x.shape)}")
            # the ``*`` holds the axes between; a ``...`` among them (``pack([t], "three *
            # d")`` of ``(3, ..., d)``) counts as one size of its own (``prod(...)``)
            middle = tuple(x.shape[len(head) : len(x.shape) - len(tail)])
            middles.append(middle)
            part = sf.product(middle)
            total = total + part if total is not None and type(part) is Dim else None
        dtypes = _joint_dtypes(arrays, call.kind)
        shape = (
            *(sizes.sizes.get(n) for n in head),
            total,
            *(sizes.sizes.get(n) for n in tail),
        )
        packed = Arr(arrays[0].kind or call.kind, dtypes, shape)
        if any(m is None for m in middles):
            return TupleV((packed, ListV(None)))
        return TupleV((packed, ListV(tuple(_packed_shape(m) for m in middles))))


def _packed_shape(middle: tuple):
    """What ``pack`` records of one array: the sizes of its axes the ``*`` holds."""
    if any(type(d) is Rest for d in middle):
        return ShapeV(middle)
    return TupleV(tuple(IntV(d if type(d) is Dim else None) for d in middle))


def _unpacked_axes(entry):
    """The axes one entry of ``pack``'s shapes stands for, or None."""
    if type(entry) is ShapeV:
        return entry.entries
    if type(entry) is TupleV and all(type(v) is IntV for v in entry.items):
        return tuple(v.dim for v in entry.items)
    return None


class _EinopsUnpack(Rule):
    """``einops.unpack(packed, ps, "b * d")``: one array per entry of ``ps`` (what
    ``pack`` gave), its ``*`` axis split back into the axes that entry records; the
    ``*`` axis must hold them all."""

    __slots__ = ()

    def apply(self, call: Call):
        if len(call.args) < 3 or type(call.args[2]) is not StrV or call.args[2].value is None:
            return UNKNOWN
        x, ps, pattern = call.args[0], call.args[1], call.args[2].value
        names = pattern.split()
        if type(x) is not Arr or names.count("*") != 1:
            return UNKNOWN
        if type(ps) is not ListV or ps.items is None:
            return ListV(None, Arr(x.kind, x.dtypes, None))
        parts = [_unpacked_axes(e) for e in ps.items]
        if x.shape is None or any(p is None for p in parts) or sf.split_rest(x.shape)[1]:
            return ListV(tuple(Arr(x.kind, x.dtypes, None) for _ in parts))
        cut = names.index("*")
        what = f"einops.unpack {pattern!r}"
        if len(x.shape) != len(names):
            raise CheckFailure(
                "rank",
                f"{what}: {call.label(0)} {fmt_shape(x.shape)} has rank {len(x.shape)}, "
                f"the pattern names {len(names)} axes",
            )
        packed = x.shape[cut]
        products = [sf.product(p) for p in parts]  # each array's share of the axis
        total = None if any(q is None for q in products) else sum(products, dims.const(0))
        if type(packed) is Dim and total is not None:
            same = dims.eq(packed, total)
            if same is False or (same is None and not unrelated(packed, total)):
                raise CheckFailure(
                    "reshape",
                    f"{what}: the '*' axis of {call.label(0)} {fmt_shape(x.shape)} has size "
                    f"{fmt_dim(packed)}, but the packed shapes hold {fmt_dim(total)}"
                    + ("" if same is False else " (not provably equal for every size)"),
                )
        head, tail = x.shape[:cut], x.shape[cut + 1 :]
        return ListV(tuple(Arr(x.kind, x.dtypes, (*head, *p, *tail)) for p in parts))


class _EinopsEinsum(Rule):
    __slots__ = ()

    def apply(self, call: Call):
        return _einops_einsum(call)


EINOPS = {
    "rearrange": Einops("rearrange"),
    "repeat": Einops("repeat"),
    "reduce": Einops("reduce"),
    "einsum": _EinopsEinsum(),
    "pack": _EinopsPack(),
    "unpack": _EinopsUnpack(),
}


# -- einx -----------------------------------------------------------------------------------

_EINX_PLAIN = re.compile(r"^(\.\.\.|[A-Za-z_][A-Za-z0-9_]*|1|,|->)$")


def _einx_plain(pattern: str) -> bool:
    """Whether an einx pattern uses only what einops' notation means alike: names, a
    standalone ``...``, ``1`` and at most one arrow (no brackets, compositions,
    ``x...``)."""
    if pattern.count("->") > 1:
        return False
    spaced = pattern.replace(",", " , ").replace("->", " -> ")
    return all(_EINX_PLAIN.match(tok) for tok in spaced.split())


def _einx_output(groups: list) -> str | None:
    """The result of an einx elementwise pattern written without an arrow (``"b n d,
    b n"``): as einx decides it, the one operand whose names hold every other
    operand's (1s left out), or None when no single operand does."""
    names = [set(g.split()) - {"1"} for g in groups]
    found = [g for g, own in zip(groups, names) if all(other <= own for other in names)]
    distinct = {" ".join(n for n in g.split() if n != "1") for g in found}
    if len(distinct) != 1:
        return None
    return distinct.pop()


def _ranked(group: str, value, kind):
    """An operand of an einx pattern: an unknown value given for a group of names
    alone (``"b m"``) is an array of that rank whose sizes are not known, so the
    other operands still bind the result's names."""
    if type(value) is Unknown:
        names = group.split()
        if "..." not in names:
            return Arr(kind, None, (None,) * len(names))
        if names.count("...") == 1:
            # ``"b t ..."``: its named axes, then some (``einx.where("b t, b t ..., ->
            # b t ...", mask, feats, 0.0)`` of feats not known is ``(b, t, ...)``)
            return Arr(kind, None, tuple(Rest(None) if n == "..." else None for n in names))
    return value


class EinxElementwise(Rule):
    """``einx.subtract("thresholds, ... -> ... thresholds", t, d)`` and the other
    elementwise operations of einx: the pattern first, then one operand per
    comma-separated group (a scalar's group is empty), then an arrow and the
    result's axes.

    A name is one size in every operand (an axis of size 1 broadcasts), ``...`` the
    broadcast of the axes no name covers; the result has the axes after the arrow.
    A name bound to two sizes proven different is a ``broadcast`` error, as einx
    raises for it. Patterns with einx's own notation (brackets, compositions, an
    ellipsis after a name) are left unknown.
    """

    __slots__ = ("op", "result")

    def __init__(self, op: str, result: str = "promote"):
        self.op = op
        self.result = result  # "promote", "bool" or "where" (the dtype of the values)

    def apply(self, call: Call):
        if not call.args or type(call.args[0]) is not StrV or call.args[0].value is None:
            return UNKNOWN
        pattern = call.args[0].value
        if not _einx_plain(pattern):
            return UNKNOWN
        lhs, arrow, rhs = pattern.partition("->")
        groups = [g.strip() for g in lhs.split(",")]
        if not arrow:
            found = _einx_output([g for g in groups if g])
            if found is None:
                return UNKNOWN
            rhs = found
        operands = list(call.args[1:])
        kind = next((x.kind for x in operands if type(x) is Arr), call.kind)
        what = f"einx.{self.op}"
        if len(groups) != len(operands):
            raise CheckFailure(
                "call",
                f"{what}: the pattern {pattern!r} has {len(groups)} operands "
                f"but {len(operands)} are given",
            )
        kept = [(g, _ranked(g, x, kind), i) for i, (g, x) in enumerate(zip(groups, operands)) if g]
        if not kept or any(type(x) is not Arr for _, x, _ in kept):
            return UNKNOWN
        if all(x.shape is None or all(d is None for d in x.shape) for _, x, _ in kept):
            return UNKNOWN  # nothing known to bind
        equation = ", ".join(g for g, _, _ in kept) + " -> " + rhs.strip()
        labels = [call.label(i + 1) for _, _, i in kept]
        value = einsum(
            call,
            equation,
            [x for _, x, _ in kept],
            labels,
            what,
            words=True,
            ones=True,
            code="broadcast",
        )
        if type(value) is not Arr:
            return value
        if self.result == "bool":
            return value.with_(dtypes=frozenset({bool_}))
        if self.result == "where":
            values = [x for _, x, i in kept if i > 0]
            return value.with_(dtypes=values[0].dtypes if values else None)
        return value


_EINX_OPS = {
    **{
        n: "promote"
        for n in (
            "add",
            "subtract",
            "multiply",
            "divide",
            "true_divide",
            "floor_divide",
            "maximum",
            "minimum",
            "power",
            "logaddexp",
        )
    },
    **{
        n: "bool"
        for n in (
            "less",
            "less_equal",
            "greater",
            "greater_equal",
            "equal",
            "not_equal",
            "logical_and",
            "logical_or",
            "logical_xor",
        )
    },
    "where": "where",
}
EINX = {name: EinxElementwise(name, result) for name, result in _EINX_OPS.items()}
