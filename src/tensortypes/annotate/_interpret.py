"""The explaining matcher: one value against one array annotation, walked axis by axis
(layer 5: ``annotate``).

``run(m, value, bindings, commit)`` returns None when the value matches and otherwise
the reason in one line ("axis 0 of y has size 4, but c=3 was bound by axis 1 of x").
It is the slow path that builds messages, and the fast path itself for the shapes
the generated matchers leave out (expressions such as ``n-1`` and ``{size}`` braces).

Semantics, shared with the generated matchers:

1. the value must be an array of the annotation's kind, with an accepted dtype;
2. the number of axes must match (at least ``len - 1`` with a ``*name``/``...``);
3. axes are taken left to right: a fixed size must be equal (or 1 under ``#``); a
   name takes the size already bound in the scope or in this value, or binds it; ``#``
   skips axes of size 1; ``_`` accepts anything; ``*name`` binds the tuple of axes it
   covers under ``"*name"`` (``merge_variadic`` decides against an earlier binding);
   names under ``?`` are keyed with the scope's tree path;
4. then expressions and braces, each evaluated once its names are bound, or solved for
   its one unbound name when it is linear in it (``n-1`` against 4 binds ``n=5``). One
   whose names stay unbound is an ``AnnotationError``, as in jaxtyping;
5. only when everything matched, and ``commit`` is true, are the new bindings added to
   ``bindings`` (with where they came from), so a failed check leaves no trace.
"""

from __future__ import annotations

from typing import Any

from tensortypes.annotate._extract import merge_variadic
from tensortypes.annotate._scope import describe_where
from tensortypes.annotate._shape import Template
from tensortypes.core.dims import solve_linear
from tensortypes.core.words import kind_mismatch, value_text
from tensortypes.errors import AnnotationError

__all__ = ["outside_tree", "run", "short", "tree_path"]

_M = object()
ISINSTANCE_LABEL = "a value checked with isinstance"


def short(x: Any) -> str:
    """A value in a message, in the one form of ``core.words.value_text``.

    >>> import numpy as np
    >>> short(np.zeros((2, 3), np.float32)), short([1, 2])
    ('f32[2,3](numpy)', 'list [1, 2]')
    """
    return value_text(x)


def outside_tree(dim_str: str) -> AnnotationError:
    """A ``?name`` size checked outside a structured ``PyTree[..., "T"]`` (no tree path
    to key it by): an ``AnnotationError`` at the check, as jaxtyping raises one."""
    return AnnotationError(
        "a '?' size varies between the leaves of a structured PyTree and is checked only "
        "inside one (PyTree[..., 'T']), not alone",
        dim_str,
        dim_str.find("?"),
    )


def tree_path(m: Any, b: Any) -> str:
    """The scope's tree path for a ``?`` size of ``m``; raises outside a structured tree."""
    if b is None or not b.treepath:
        raise outside_tree(m.dim_str)
    return str(b.treepath)


def _axis(label: str | None, i: int) -> str:
    return f"axis {i}" if label is None else f"axis {i} of {label}"


class _Walk:
    """The state of one check: the scope read, and the bindings it would add."""

    __slots__ = ("m", "b", "label", "sizes", "new", "where", "flags")

    def __init__(self, m: Any, b: Any):
        self.m, self.b = m, b
        self.label = None if b is None else b.label
        self.sizes = {} if b is None else b.sizes
        self.new: dict[str, Any] = {}
        self.where: dict[str, tuple] = {}
        self.flags: dict[str, bool] = {}

    def lookup(self, key: str) -> Any:
        found = self.new.get(key, _M)
        return self.sizes.get(key, _M) if found is _M else found

    def origin(self, key: str) -> str:
        where = self.where.get(key)
        if where is None and self.b is not None:
            where = self.b.where.get(key)
        return "earlier" if where is None else f"by {describe_where(where)}"

    def bind(self, key: str, value: Any, start: int, stop: int) -> None:
        self.new[key] = value
        self.where[key] = (self.label, start, stop)

    def single(self, spec: Any, i: int, a: Any) -> str | None:
        kind = spec.kind
        if kind == "anon" or (spec.broadcast and a == 1):
            return None
        if kind == "fixed":
            if a != spec.expr:
                alt = " (or 1)" if spec.broadcast else ""
                return f"{_axis(self.label, i)} has size {a}, not {spec.expr}{alt}"
            return None
        name = spec.expr.name
        key = tree_path(self.m, self.b) + name if spec.path else name
        bound = self.lookup(key)
        if bound is _M:
            self.bind(key, a, i, i + 1)
        elif bound != a:
            return (
                f"{_axis(self.label, i)} has size {a}, but {name}={bound} was bound "
                f"{self.origin(key)}"
            )
        return None

    def variadic(self, spec: Any, start: int, seg: tuple) -> str | None:
        if spec.kind == "anon":
            return None
        name = spec.expr.name
        tree = tree_path(self.m, self.b) if spec.path else ""
        key = "*" + tree + name
        prev = self.sizes.get(key, _M)
        if prev is _M:
            self.bind(key, seg, start, start + len(seg))
            self.flags[key] = spec.broadcast
            return None
        had = self.b.broadcast
        prev_flag = had is not None and key in had
        merged = merge_variadic(prev, seg, prev_flag, spec.broadcast)
        if merged is None:
            axes = describe_where((self.label, start, start + len(seg)))
            how = "does not broadcast with" if spec.broadcast or prev_flag else "is not"
            if len(seg) != len(prev) and not (spec.broadcast or prev_flag):
                return (
                    f"*{name} matches {len(seg)} {'axis' if len(seg) == 1 else 'axes'} "
                    f"here ({axes}, shape {seg}), but *{name}={prev} ({len(prev)} "
                    f"{'axis' if len(prev) == 1 else 'axes'}) was bound "
                    f"{self.origin(key)}"
                )
            verb = "has" if len(seg) == 1 else "have"
            return f"{axes} {verb} shape {seg}, which {how} *{name}={prev} bound {self.origin(key)}"
        if merged != (prev, prev_flag):
            self.new[key] = merged[0]
            self.flags[key] = merged[1]
        return None

    def expressions(self, pending: list) -> str | None:
        arguments = None if self.b is None else self.b.arguments
        todo = []
        for i, entry, a in pending:
            if entry.broadcast and a == 1:
                continue
            if type(entry) is Template:
                expr, reason = entry.resolve(arguments)
                if reason is not None:
                    return f"{_axis(self.label, i)}: {reason}"
                todo.append((i, entry.text, expr, a))
            else:
                todo.append((i, str(entry.expr), entry.expr, a))
        while todo:
            rest = []
            for item in todo:
                reason = self.expression(*item)
                if reason is _M:
                    rest.append(item)
                elif reason is not None:
                    return reason
            if len(rest) == len(todo):
                i, text, expr, a = rest[0]
                names = sorted(s for s in expr.free_symbols if self.lookup(s) is _M)
                raise AnnotationError(
                    f"cannot check {_axis(self.label, i)} against {text!r}: "
                    f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} not bound by "
                    f"any other axis. Name each size in an argument's annotation before "
                    f"using it in an expression (usually the return annotation)"
                )
            todo = rest
        return None

    def expression(self, i: int, text: str, expr: Any, a: Any) -> Any:
        """None when the axis matches, a reason, or _M when it cannot be decided yet."""
        bound, unbound = {}, []
        for s in expr.free_symbols:
            value = self.lookup(s)
            if value is _M:
                unbound.append(s)
            else:
                bound[s] = value
        try:
            if not unbound:
                want = expr.evaluate(bound)
                if want == a:
                    return None
                shown = ", ".join(f"{s}={v}" for s, v in sorted(bound.items()))
                with_ = f" with {shown}" if shown else ""
                return f"{_axis(self.label, i)} has size {a}, but {text} is {want}{with_}"
            if len(unbound) > 1:
                return _M
            solved = solve_linear(expr.substitute(bound), a)
        except (ArithmeticError, ValueError, TypeError) as error:
            return f"{_axis(self.label, i)}: cannot evaluate {text}: {error}"
        if solved is None:
            return _M
        if solved is False:
            return (
                f"{_axis(self.label, i)} has size {a}, but no size {unbound[0]} makes "
                f"{text} equal {a}"
            )
        for name, value in solved.items():
            self.bind(name, value, i, i + 1)
        return None

    def commit(self) -> None:
        b = self.b
        b.sizes.update(self.new)
        if self.label is None:
            # A bare isinstance names no value; once its sizes are in the scope, later
            # messages say what bound them ("axis 0 of a value checked with isinstance").
            b.where.update(
                {
                    k: (ISINSTANCE_LABEL, w[1], w[2]) if w[0] is None else w
                    for k, w in self.where.items()
                }
            )
        else:
            b.where.update(self.where)
        for key, flag in self.flags.items():
            b.mark_broadcast(key, flag)


def run(m: Any, x: Any, b: Any = None, commit: bool = True) -> str | None:
    """Check ``x`` against the matcher ``m``; None if it matches, else the reason.

    ``b`` is the scope's ``Bindings`` (None: check the value alone). With ``commit``,
    a match adds its new bindings to ``b``.

    >>> import numpy as np
    >>> from tensortypes.annotate import Float
    >>> run(Float[np.ndarray, "n n"]._tt_matcher, np.zeros((2, 3)))
    'axis 1 has size 3, but n=2 was bound by axis 0'
    """
    got = m.extract(x)
    if got is None:
        return kind_mismatch(m.kind_text, x, m.dim_str)
    name, shape = got
    if not m.dtype.accepts(x, name):
        return f"its dtype is {name}, not {m.dtype.describe()}"
    dims, v = m.dims, m.index_variadic
    k, n = len(dims), len(shape)
    if v is None and n != k:
        want = "a scalar (shape '')" if k == 0 else f"{k} ({m.dim_str!r})"
        return f"it has {_axes(n)} ({_shape_text(shape)}), but the annotation expects {want}"
    if v is not None and n < k - 1:
        return f"it has {_axes(n)} ({_shape_text(shape)}), but {m.dim_str!r} needs at least {k - 1}"
    if m.path_dims:
        tree_path(m, b)  # raises outside a structured PyTree
    walk = _Walk(m, b)
    pending = []
    for j, spec in enumerate(dims):
        if j == v:
            stop = n - (k - v - 1)
            reason = walk.variadic(spec, v, tuple(shape[v:stop]))
        else:
            i = j if v is None or j < v else n - (k - j)
            a = shape[i]
            if type(spec) is Template or (spec.kind == "var" and not spec.expr.is_symbol):
                pending.append((i, spec, a))
                continue
            reason = walk.single(spec, i, a)
        if reason is not None:
            return reason
    if pending:
        reason = walk.expressions(pending)
        if reason is not None:
            return reason
    if commit and b is not None:
        walk.commit()
    return None


def _axes(n: int) -> str:
    return "1 axis" if n == 1 else f"{n} axes"


def _shape_text(shape: tuple) -> str:
    return "shape (" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
