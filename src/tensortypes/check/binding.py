"""Binding annotated shapes to the shapes of arguments (layer 6: ``check``).

One matcher serves every place where a signature meets values: calls to the
checked module's own annotated functions, the signature rules of
``check.rules`` (written in the annotation language), layer inputs, and
return values. A :class:`Binder` holds the bindings of one call: each
pattern name (``n``, ``*batch``) maps to the caller's size (a ``Dim``, or None
when unknown) and remembers which argument and axis bound it, for the notes.

The contract is universal: a bound size and another size agree only when the
dims algebra proves them equal (``dims.eq`` is True). "Cannot tell" is a
mismatch, since the code must hold for every size its annotations allow; an
unknown size (None) is never a mismatch (gradual). Expressions such as ``n-1``
or ``2*n`` are solved for their one unbound name when linear.
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim, split_linear

from .sizes import agree, equal_under_facts, same_size
from .symbolic import OWN_REST, Bcast, Rest, fmt_dim, fmt_shape, is_list_length

__all__ = ["Binder", "Mismatch", "dtype_problem"]


class Mismatch:
    """One disagreement found while binding: a message and the names it involves."""

    __slots__ = ("message", "names")

    def __init__(self, message: str, names: tuple = ()):
        self.message = message
        self.names = names


def _solve(expr: Dim, name: str, target: Dim):
    """``name`` such that ``expr == target`` (linear ``c*name + k``), or None."""
    split = split_linear(expr, name)
    if split is None:
        return None
    c, k = split
    diff = target - k
    if c in (1, -1):
        return diff * c
    if diff.value is not None:
        q, r = divmod(diff.value, c)
        return dims.const(q) if not r and q >= 0 else None
    if (diff % c).value == 0:
        return diff // c
    return None


class Binder:
    """The bindings of one call: pattern name -> caller's size, and who bound it.

    >>> b = Binder()
    >>> b.match((dims.symbol("n"), dims.const(3)), (dims.const(5), dims.const(3)), "x")
    []
    >>> b.env["n"], b.where["n"]
    (Dim('5'), 'x axis 0')
    """

    __slots__ = (
        "env",
        "where",
        "facts",
        "failed",
        "dtype_only",
        "tainted",
        "soft",
        "keep_unbound",
        "source",
        "origins",
    )

    def __init__(self, env: dict | None = None, where: dict | None = None, facts: tuple = ()):
        self.env = dict(env) if env else {}
        self.where = dict(where) if where else {}
        self.facts = facts  # divisibility facts of the caller: (name, k) pairs
        self.failed = False  # an argument did not fit: the bindings are not to be trusted
        # the size names the arguments that did not fit read (their bindings are off),
        # or None when not known (an argument for a union or a scalar, or none failed)
        self.tainted: set | None = None
        # the last argument that did not fit had only a wrong dtype: its shape bound its
        # sizes, which are still to be trusted
        self.dtype_only = False
        # Names a local annotation introduced: they contradict a size only when provably
        # different (the author's annotation is all that ties them).
        self.soft: frozenset = frozenset()
        # Names no argument bound stay symbols in results (a return annotation's own
        # names, read by the caller to know which axes the annotation names).
        self.keep_unbound = False
        # The argument being matched, (expression, value), and for each name the one
        # that bound it: where a contradicted size came from, for the notes.
        self.source = None
        self.origins: dict = {}

    # -- one axis ----------------------------------------------------------------------
    def _expected(self, expr: Dim):
        """``expr`` under the bindings: a Dim, None (some binding unknown) or _UNBOUND."""
        if expr.is_constant:
            return expr
        mapping = {}
        for name in expr.free_symbols:
            if name not in self.env:
                return _UNBOUND
            value = self.env[name]
            if value is None:
                return None
            mapping[name] = value
        return expr.substitute(mapping)

    def _axis(self, p, a, label: str, axis: int, deferred: list | None, out: list) -> None:
        if p is None:
            return
        if type(a) is Bcast:
            a = a.dim
        if type(p) is Bcast:
            if type(a) is Dim and a.value == 1:
                return
            p = p.dim
        if a is None or type(a) is Rest:
            for name in p.free_symbols:
                self.env.setdefault(name, None)
            return
        expected = self._expected(p)
        if expected is _UNBOUND:
            unbound = [s for s in p.free_symbols if s not in self.env]
            if p.is_symbol:
                self.env[p.name] = a
                self.where[p.name] = f"{label} axis {axis}"
                if self.source is not None:
                    self.origins[p.name] = self.source
                return
            if len(unbound) == 1 and deferred is not None:
                deferred.append((p, a, label, axis))
                return
            if len(unbound) == 1:
                mapping = {
                    n: v
                    for n, v in self.env.items()
                    if n in p.free_symbols and not n.startswith("*") and v is not None
                }
                solution = _solve(p.substitute(mapping), unbound[0], a)
                if solution is not None:
                    self.env[unbound[0]] = solution
                    self.where[unbound[0]] = f"{label} axis {axis} ({p} = {a})"
                    if self.source is not None:
                        self.origins[unbound[0]] = self.source
                    return
                known = p.substitute(mapping)
                step = self._indivisible(known, unbound[0], a)
                if step is not None:
                    self.env[unbound[0]] = None
                    out.append(
                        Mismatch(
                            f"{label} axis {axis} has size {fmt_dim(a)}, expected "
                            f"{known} (a multiple of {step} for every size)",
                            tuple(sorted(p.free_symbols)),
                        )
                    )
                    return
            for name in unbound:
                self.env[name] = None  # tied to sizes we cannot solve for: unknown
            return
        if expected is None or expected is a:
            return
        if type(a) is Dim and same_size(expected, a, self.facts):
            return
        if is_list_length(a) and type(expected) is Dim and expected.is_constant:
            return  # ``-> Int[Tensor, "3"]`` of a list's items: the annotation tells its length
        if self.soft and p.free_symbols & self.soft and dims.eq(expected, a) is not False:
            return
        names = tuple(sorted(p.free_symbols))
        bound = ", ".join(
            f"{n} = {fmt_dim(self.env[n])} from {self.where[n]}"
            for n in names
            if n in self.where and not self._self_bound(n)
        )
        why = "" if dims.eq(expected, a) is False else " (not provably equal for every size)"
        if why and _a_name(a) and _a_name(expected):
            # Two sizes named differently (an axis "c" against a layer's in_ch): the
            # code may know more than the annotations; say how to tell the checker.
            why = (
                f" (not provably equal for every size: if {fmt_dim(a)} is always "
                f"{fmt_dim(expected)}, an assert on the shape or one name for both says so)"
            )
        message = f"{label} axis {axis} has size {fmt_dim(a)}, expected {fmt_dim(expected)}"
        if not p.is_constant and str(p) != str(expected):
            message += f" ({p})"
        out.append(Mismatch(message + why + (f"; {bound}" if bound else ""), names))

    def _indivisible(self, expr: Dim, name: str, target: Dim):
        """The step ``c`` when ``expr = c*name + k`` cannot meet ``target`` for every size."""
        split = split_linear(expr, name)
        if split is None or abs(split[0]) < 2:
            return None
        c, k = split
        diff = target - k
        rest = diff % c
        if rest.is_constant:
            return c if rest.value != 0 or (diff.value is not None and diff.value < 0) else None
        if dims.eq(rest, 0) is True:
            return None
        if self.facts and equal_under_facts((diff // c) * c, diff, self.facts):
            return None
        return c

    # -- a whole shape -------------------------------------------------------------------
    def match(self, pattern, shape, label: str) -> list:
        """Bind ``pattern`` (annotation entries) to the actual ``shape``; the mismatches."""
        out: list = []
        if pattern is None or shape is None:
            return out
        rest_p = next((i for i, d in enumerate(pattern) if type(d) is Rest), None)
        rest_a = next((i for i, d in enumerate(shape) if type(d) is Rest), None)
        pairs = []
        pending = None  # a mismatch of the rank, when the axes fit
        if rest_a is not None and rest_p is not None and pattern[rest_p].name is not None:
            aligned = self._open_rests(pattern, rest_p, shape, rest_a, label, out)
            if aligned is not None:
                return self._pairs(aligned, out)
        if rest_a is not None:
            # The caller's rank is open: match the ends we can see.
            head = min(rest_a, rest_p if rest_p is not None else len(pattern))
            tail_a = len(shape) - rest_a - 1
            # A pattern without a ``*rest`` meets the shape's last axes at its own end.
            tail_p = len(pattern) - (rest_p + 1 if rest_p is not None else 0)
            if rest_p is None and rest_a + tail_a > len(pattern):
                out.append(
                    Mismatch(
                        f"{label} has rank at least {rest_a + tail_a} "
                        f"{fmt_shape(shape)}, expected rank {len(pattern)} "
                        f"{fmt_shape(pattern)}"
                    )
                )
                return out
            returned = label.startswith("return value") or " of return value of " in label
            if rest_p is None and _batch(shape[rest_a]) and returned:
                # ``x.sum(-1)`` of ``x: (..., n)`` returned for ``""``: the parameter's
                # ``...`` (a batch, any number of axes) would have to be just so many
                # (reported when the axes it can see fit: else those are the error)
                left = len(pattern) - rest_a - tail_a
                many = "empty" if left == 0 else f"{left} axes" if left > 1 else "one axis"
                pending = Mismatch(
                    f"{_with_shape(label, shape)} keeps the '...' of a parameter, "
                    f"expected rank {len(pattern)} {fmt_shape(pattern)}, so this "
                    f"works only when '...' is {many}"
                )
            tail = min(tail_a, tail_p)
            if (
                rest_p is not None
                and pattern[rest_p].name is None
                and tail_p > tail_a
                and _batch(shape[rest_a])
                and returned
            ):
                # ``(..., n)`` returned for ``"... n n"``: the parameter's ``...`` (a
                # batch) would have to end with the axes the annotation names there.
                extra = fmt_shape(pattern[len(pattern) - tail_p : len(pattern) - tail_a])
                out.append(
                    Mismatch(
                        f"{label}: {_axes(tail_a)} after '...', "
                        f"expected {tail_p} as in {fmt_shape(pattern)}, so this works "
                        f"only when '...' ends with {extra}"
                    )
                )
                return out
            pairs = [(i, pattern[i], shape[i]) for i in range(head)]
            pairs += [
                (-k, pattern[len(pattern) - k], shape[len(shape) - k]) for k in range(1, tail + 1)
            ]
            if rest_p is not None and pattern[rest_p].name is not None:
                self.env.setdefault("*" + pattern[rest_p].name, None)
        elif rest_p is None:
            if len(pattern) != len(shape):
                out.append(
                    Mismatch(
                        f"{_with_shape(label, shape)} has rank {len(shape)}, "
                        f"expected rank {len(pattern)} {fmt_shape(pattern)}"
                    )
                )
                return out
            pairs = list(zip(range(len(shape)), pattern, shape))
        else:
            fixed = len(pattern) - 1
            if len(shape) < fixed:
                out.append(
                    Mismatch(
                        f"{_with_shape(label, shape)} has rank {len(shape)}, "
                        f"expected at least {fixed} {fmt_shape(pattern)}"
                    )
                )
                return out
            stop = len(shape) - (fixed - rest_p)
            pairs = [(i, pattern[i], shape[i]) for i in range(rest_p)]
            pairs += [
                (stop + k, pattern[rest_p + 1 + k], shape[stop + k]) for k in range(fixed - rest_p)
            ]
            self._rest(pattern[rest_p], tuple(shape[rest_p:stop]), label, out)
        found = self._pairs([(axis, p, a, label) for axis, p, a in pairs], out)
        if pending is not None and not found:
            found.append(pending)
        return found

    def _pairs(self, pairs, out: list) -> list:
        """Match ``(axis, pattern entry, actual entry, label)`` pairs into ``out``."""
        deferred: list = []
        # Bare names first, so that expressions meet their names already bound.
        for axis, p, a, label in sorted(
            pairs, key=lambda t: not (type(t[1]) is Dim and t[1].is_symbol)
        ):
            self._axis(p, a, label, axis, deferred, out)
        for p, a, lab, axis in deferred:
            self._axis(p, a, lab, axis, None, out)
        return out

    def _open_rests(self, pattern, rest_p: int, shape, rest_a: int, label: str, out: list):
        """Pairs for a pattern ``*name`` against a shape with a ``*rest`` of its own.

        A ``*name`` not bound yet takes the axes of the shape between the
        pattern's fixed ends, the shape's ``*rest`` among them (``(*b, k)``
        against ``(*bs, c)`` binds ``*b`` to ``(*bs,)``). A ``*name`` bound to
        axes holding the same ``*rest`` as the shape (a second argument, or the
        function's own ``*b`` in a return) fixes how many axes come before and
        after that rest: ``(*b,)`` returned for ``(*b, n)`` is a rank error for
        every ``*b``. None when the ends cannot be matched this way.
        """
        name = "*" + pattern[rest_p].name
        head_p, tail_p = rest_p, len(pattern) - rest_p - 1
        tail_a = len(shape) - rest_a - 1
        bound = self.env.get(name)
        if bound is None and name not in self.env:
            if head_p > rest_a or tail_p > tail_a:
                return None
            self.env[name] = tuple(shape[head_p : len(shape) - tail_p])
            self.where[name] = label
            pairs = [(i, pattern[i], shape[i], label) for i in range(head_p)]
            pairs += [
                (
                    k - tail_p,
                    pattern[len(pattern) - tail_p + k],
                    shape[len(shape) - tail_p + k],
                    label,
                )
                for k in range(tail_p)
            ]
            return pairs
        cut = next((i for i, d in enumerate(bound or ()) if type(d) is Rest), None)
        if (
            cut is None
            or bound is None
            or bound[cut] is not shape[rest_a]
            or bound[cut].name is None
        ):
            return None
        before, after = bound[:cut], bound[cut + 1 :]
        want_head, want_tail = head_p + len(before), tail_p + len(after)
        if want_head != rest_a or want_tail != tail_a:
            rest = shape[rest_a]
            rest = shape[rest_a]
            want = fmt_shape((*pattern[:rest_p], *bound, *pattern[rest_p + 1 :]))
            where = (
                f"{_axes(tail_a)} after {rest!r}, expected {want_tail}"
                if want_tail != tail_a
                else f"{_axes(rest_a)} before {rest!r}, expected {want_head}"
            )
            out.append(Mismatch(f"{label}: {where} as in {want}, whatever {rest!r} is"))
            return []
        for x, y in zip(
            (*before, *after), (*shape[head_p:rest_a], *shape[rest_a + 1 : rest_a + 1 + len(after)])
        ):
            x = x.dim if type(x) is Bcast else x
            y = y.dim if type(y) is Bcast else y
            if type(x) is Dim and type(y) is Dim and not same_size(x, y, self.facts):
                out.append(
                    Mismatch(
                        f"{label}: {name} holds {fmt_shape(bound)} (from "
                        f"{self.where.get(name, 'the function')}), but the shape "
                        f"{fmt_shape(shape)} has {fmt_dim(y)} there"
                    )
                )
                return []
        pairs = [(i, pattern[i], shape[i], label) for i in range(head_p)]
        pairs += [
            (k - tail_p, pattern[len(pattern) - tail_p + k], shape[len(shape) - tail_p + k], label)
            for k in range(tail_p)
        ]
        return pairs

    def _rest(self, spec: Rest, entries: tuple, label: str, out: list) -> None:
        if spec.name is None:
            return
        key = "*" + spec.name
        if key not in self.env:
            self.env[key] = entries
            self.where[key] = f"{label}"
            return
        bound = self.env[key]
        if bound is None:
            return
        open_b = any(type(d) is Rest for d in bound)
        open_e = any(type(d) is Rest for d in entries)
        if open_b and open_e:
            # both of unknown length: comparable axis by axis only around one same rest
            rests = [d for d in (*bound, *entries) if type(d) is Rest]
            if len(rests) != 2 or rests[0] != rests[1]:
                return
        elif open_b or open_e:
            # one side of unknown length (``*bs`` bound to a parameter's own ``*bs``):
            # wrong only when the other has fewer axes than the open side's fixed ones
            fixed, closed = (bound, entries) if open_b else (entries, bound)
            least = sum(1 for d in fixed if type(d) is not Rest)
            if len(closed) < least:
                out.append(
                    Mismatch(
                        f"{label}: *{spec.name} has {'at least ' if open_e else ''}"
                        f"{least if open_e else len(entries)} axes {fmt_shape(entries)}, "
                        f"but {self.where[key]} bound it to {'at least ' if open_b else ''}"
                        f"{least if open_b else len(bound)} axes {fmt_shape(bound)}"
                    )
                )
            return
        if len(bound) != len(entries):
            out.append(
                Mismatch(
                    f"{label}: *{spec.name} has {len(entries)} axes "
                    f"{fmt_shape(entries)}, but {self.where[key]} bound it to "
                    f"{len(bound)} axes {fmt_shape(bound)}"
                )
            )
            return
        for i, (x, y) in enumerate(zip(bound, entries)):
            if not agree(x, y):
                out.append(
                    Mismatch(
                        f"{label}: *{spec.name} axis {i} is {fmt_dim(y)}, but "
                        f"{self.where[key]} bound it to {fmt_dim(x)}"
                    )
                )

    # -- results ---------------------------------------------------------------------------
    def substitute(self, entries):
        """The shape an annotation's ``entries`` denote under the bindings (None if open)."""
        if entries is None:
            return None
        out = []
        for d in entries:
            if type(d) is Rest:
                if d.name is None:
                    # ``...``: anonymous, bound by nothing (as in jaxtyping); the
                    # result has some leading axes, then the axes named after it.
                    out.append(d)
                    continue
                bound = self.env.get("*" + d.name)
                if bound is None:
                    return None
                out.extend(bound)
            elif type(d) is Bcast:
                value = self._expected(d.dim)
                out.append(None if value is _UNBOUND or value is None else Bcast(value))
            elif d is None:
                out.append(None)
            else:
                value = self._expected(d)
                if value is _UNBOUND and self.keep_unbound:
                    value = self._kept(d)
                out.append(None if value is _UNBOUND else value)
        return tuple(out)

    def _kept(self, expr: Dim):
        """``expr`` with its bound names replaced and its unbound ones kept."""
        mapping = {}
        for name in expr.free_symbols:
            if name in self.env:
                if self.env[name] is None:
                    return None
                mapping[name] = self.env[name]
        return expr.substitute(mapping) if mapping else expr

    def bound_notes(self, names) -> list:
        """``n = 128 (from x axis 1)`` for each of ``names`` bound to another size."""
        return [
            f"{n} = {fmt_dim(self.env[n])} (bound by {self.where[n]})"
            for n in names
            if n in self.where and self.env.get(n) is not None and not self._self_bound(n)
        ]

    def _self_bound(self, name: str) -> bool:
        """``n`` bound to the symbol ``n`` itself: the function's own size, no news."""
        value = self.env.get(name)
        return type(value) is Dim and value.is_symbol and value.name == name


_UNBOUND = object()


def _batch(rest) -> bool:
    """Whether a ``*rest`` is a parameter's own ``...`` (``symbolic.own_rest``): a batch."""
    return type(rest) is Rest and rest.name is not None and rest.name.startswith(OWN_REST)


def _a_name(size) -> bool:
    """Whether ``size`` is one named size (``c``, ``in_ch``), not a number or a formula."""
    return type(size) is Dim and size.is_symbol


def _with_shape(label: str, shape) -> str:
    """``label`` followed by ``shape``, unless the label ends with it already
    (callers label a value ``x (3,)``)."""
    text = fmt_shape(shape)
    return label if label.endswith(text) else f"{label} {text}"


def _axes(count: int) -> str:
    return f"{count} axis" if count == 1 else f"{count} axes"


def dtype_problem(expected, actual) -> bool:
    """Whether no dtype of ``actual`` is allowed by ``expected`` (None: any).

    >>> from tensortypes.core.dtypes import FLOATING, int64
    >>> dtype_problem(FLOATING, frozenset({int64}))
    True
    """
    if expected is None or actual is None:
        return False
    return not (actual & expected)
