"""Shapes: static shapes, shape patterns and the relations between them (layer 2: core).

Standard library and NumPy only. Two forms of shape meet here (ARCHITECTURE,
Decision "Dims come in two kinds"):

- a **static shape** (graph ``TensorType``): a tuple of ints, ``None`` and
  *rigid* symbolic sizes. ``shape_is_super(("n",), (5,))`` is None: ``n`` is
  one fixed size of the graph, which may or may not be 5. Normalisation,
  relations, merging and broadcasting are in ``_staticshape`` and re-exported
  here.
- a **shape pattern** (annotation): :class:`ShapePattern` of :class:`DimSpec`,
  whose names are *pattern variables* bound per call.
  :func:`pattern_is_super` asks whether some binding matches: the pattern
  ``2 n`` accepts the static shape ``(2, 5)`` (True).

Matching a pattern against a static shape binds variables from the axes whose
size is forced: known sizes and rigid sizes, and expressions such as ``n+1``
solved for their one unbound variable. An unknown (``None``) axis matches a
variable seen nowhere else; against a size that is known (``3``, or a variable
bound to 3 elsewhere) it is False, since the unknown axis admits other sizes.
The answer is None (cannot tell) when rigid sizes may or may not be equal, an
axis may or may not be 1 under ``#``, a variable is tied only to unknown axes
(``n n`` against ``(None, None)``), or an expression cannot be solved
(``n*m`` against 6).
"""

from __future__ import annotations

from typing import Any

from ._dimcmp import split_linear
from ._dimexpr import symbol_dim
from ._pattern import KINDS, DimSpec, ShapePattern
from ._staticshape import (
    MAX_NDIM,
    _is_one,
    broadcast_compatible,
    broadcast_static_shapes,
    dim_is_super,
    format_static_shape,
    merge_dims,
    merge_shapes,
    normalize_static_shape,
    normalized_shape_is_super,
    shape_is_super,
)
from .dims import Dim, const, eq, ge

__all__ = [
    "MAX_NDIM",
    "normalize_static_shape",
    "format_static_shape",
    "dim_is_super",
    "shape_is_super",
    "normalized_shape_is_super",
    "merge_dims",
    "merge_shapes",
    "broadcast_static_shapes",
    "broadcast_compatible",
    "KINDS",
    "DimSpec",
    "ShapePattern",
    "pattern_is_super",
    "match_static",
]

# A placeholder for the variable being solved for; not an identifier, so it
# cannot clash with a rigid symbol that a binding brought into the expression.
_HOLE_NAME = "\x00"
_HOLE = symbol_dim(_HOLE_NAME)
_DEFER = object()
_MISSING = object()


def _combine(a, b):
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _compare(expected, actual, broadcast: bool) -> bool | None:
    """Does an axis of (static) size ``actual`` match the size the pattern expects?

    ``expected`` None means the pattern's size is an unknown one.
    """
    if broadcast and type(actual) is int and actual == 1:
        return True
    if actual is None:
        return None if expected is None else False
    if expected is None:
        return None
    if expected is actual:
        return True
    same = (
        expected == actual
        if type(expected) is int and type(actual) is int
        else eq(expected, actual)
    )
    if same or not broadcast:
        return same
    one = _is_one(actual)
    if one:
        return True
    return False if same is False and one is False else None


def _expected(expr: Dim, env: dict):
    """The size ``expr`` denotes under ``env`` (every symbol bound); None if unknown."""
    if expr.is_symbol:
        return env[expr.name]
    mapping = {}
    for name in expr.free_symbols:
        value = env[name]
        if value is None:
            return None
        mapping[name] = value
    result = expr.substitute(mapping)
    return result.value if result.is_constant else result


def _solve(expr: Dim, name: str, env: dict, target):
    """Solve ``expr == target`` for ``name``; ``(solution, nonneg)``, False or None.

    False: no integer solution (or only a negative one); None: not solvable here.
    """
    mapping: dict = {}
    for other in expr.free_symbols:
        if other != name:
            value = env[other]
            if value is None:
                return None
            mapping[other] = value
    mapping[name] = _HOLE
    split = split_linear(expr.substitute(mapping), _HOLE_NAME)
    if split is None:
        return None
    c, k = split
    diff = (const(target) if type(target) is int else target) - k
    if diff.is_constant:
        q, r = divmod(diff.value or 0, c)  # a constant: value is its int
        if r or q < 0:
            return False
        return q, True
    if c in (1, -1):
        solution = diff * c
    elif (diff % c).value == 0:  # c divides every coefficient: an exact quotient
        solution = diff // c
    else:
        return None
    if solution.is_constant:
        return (solution.value, True) if (solution.value or 0) >= 0 else False
    nonneg = ge(solution, 0)
    return False if nonneg is False else (solution, nonneg)


def _try_entry(spec: DimSpec, actual, env: dict):
    """Decide one pattern-variable entry, or return _DEFER when no binding is forced yet."""
    expr = spec.expr
    unbound = [s for s in expr.free_symbols if s not in env]
    if not unbound:
        return _compare(_expected(expr, env), actual, spec.broadcast)
    if actual is None or len(unbound) > 1:
        return _DEFER
    if spec.broadcast and _is_one(actual) is not False:
        return _DEFER  # the axis may be 1, so it does not force the variable
    name = unbound[0]
    if expr.is_symbol:
        env[name] = actual
        return True
    solved = _solve(expr, name, env, actual)
    if solved is None:
        return _DEFER
    if solved is False:
        return False
    env[name] = solved[0]
    return True if solved[1] is True else None


def _resolve(pending: list, env: dict):
    """Decide the pattern-variable entries, forced bindings first."""
    result = True
    while pending:
        progress = True
        while progress and pending:
            progress = False
            rest = []
            for spec, actual in pending:
                r = _try_entry(spec, actual, env)
                if r is _DEFER:
                    rest.append((spec, actual))
                    continue
                progress = True
                result = _combine(result, r)
                if result is False:
                    return False
            pending = rest
        if not pending:
            break
        # Nothing is forced any more: settle the first entry by choice.
        spec, actual = pending.pop(0)
        expr = spec.expr
        alone = (
            not any(expr.name in other.expr.free_symbols for other, _ in pending)
            if expr.is_symbol
            else False
        )
        if alone:
            env[expr.name] = actual  # its only occurrence: the variable is this size
        else:
            for name in expr.free_symbols:
                env.setdefault(name, None)  # tied to sizes we cannot relate: unknown
            result = _combine(result, None)
    return result


def _match_variadic(spec: DimSpec, entries: tuple, env: dict):
    if spec.kind == "anon":
        return True
    key = "*" + spec.expr.name
    bound = env.get(key, _MISSING)
    if bound is _MISSING:
        env[key] = entries
        return True
    if bound is None:
        return None
    if spec.broadcast:
        result = broadcast_compatible(bound, entries)
        if result:
            env[key] = broadcast_static_shapes(bound, entries)
        return result
    if len(bound) != len(entries):
        return False
    result = True
    for expected, actual in zip(bound, entries):
        result = _combine(result, _compare(expected, actual, False))
        if result is False:
            return False
    return result


def _initial_env(bindings) -> dict:
    env: dict = {}
    if not bindings:
        return env
    for key, value in bindings.items():
        if not isinstance(key, str):
            raise TypeError(f"binding names are str, got {key!r}")
        try:
            if key.startswith("*"):
                env[key] = None if value is None else normalize_static_shape(value)
            else:
                env[key] = normalize_static_shape((value,))[0]
        except ValueError as error:
            raise type(error)(f"binding {key!r}: {error}") from None
    return env


def match_static(pattern: ShapePattern, shape, bindings=None) -> tuple:
    """``(result, bindings)``: does some binding of ``pattern`` match static ``shape``?

    ``result`` is True, False or None (cannot tell; see the module docstring).
    ``bindings`` maps names already bound (an int, a rigid Dim, or None for
    an unknown size; ``"*name"`` to a tuple for a variadic entry); it is not
    modified. The returned dict extends it with the bindings found; it is
    meaningful only when the result is not False.

    >>> from tensortypes.core.shapes import DimSpec, ShapePattern
    >>> p = ShapePattern([DimSpec("fixed", 2), DimSpec("var", "n")])
    >>> match_static(p, (2, 5))
    (True, {'n': 5})
    """
    if type(pattern) is not ShapePattern:
        raise TypeError(f"match_static() takes a ShapePattern, got {type(pattern).__name__}")
    shape = normalize_static_shape(shape)
    env = _initial_env(bindings)
    specs = pattern.specs
    v = pattern.variadic_index
    n = len(shape)
    result = True
    if v is None:
        if len(specs) != n:
            return False, env
        pairs: Any = zip(specs, shape)
    else:
        fixed = len(specs) - 1
        if n < fixed:
            return False, env
        stop = n - (fixed - v)
        pairs = [*zip(specs[:v], shape[:v]), *zip(specs[v + 1 :], shape[stop:])]
        result = _match_variadic(specs[v], shape[v:stop], env)
        if result is False:
            return False, env
    pending = []
    for spec, actual in pairs:
        kind = spec.kind
        if kind == "fixed":
            r = _compare(spec.expr, actual, spec.broadcast)
        elif kind == "var":
            if spec.broadcast and type(actual) is int and actual == 1:
                continue
            pending.append((spec, actual))
            continue
        elif kind == "rigid":
            r = dim_is_super(spec.expr, actual)
        else:  # unknown and anon accept any size
            continue
        result = _combine(result, r)
        if result is False:
            return False, env
    return _combine(result, _resolve(pending, env)), env


def pattern_is_super(pattern: ShapePattern, shape, bindings=None) -> bool | None:
    """Tri-state: does some binding of ``pattern``'s variables match the static ``shape``?

    >>> from tensortypes.core.shapes import DimSpec, ShapePattern
    >>> p = ShapePattern([DimSpec("fixed", 2), DimSpec("var", "n")])
    >>> pattern_is_super(p, (2, 5)), pattern_is_super(ShapePattern.from_static(("n",)), (5,))
    (True, None)
    """
    return match_static(pattern, shape, bindings)[0]
