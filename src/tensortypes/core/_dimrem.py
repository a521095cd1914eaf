"""Sizes equal but for the remainders of their divisions (layer 2: core; standard library only).

``eq`` answers "cannot tell" for ``(n+1)//2`` against ``n//2``, ``3*(c//3)``
against ``c`` or ``h*(n//h)`` against ``n``: they are equal for some sizes (an
even ``n``, a ``c`` that 3 divides) and not for others. What decides is only
whether each division is exact. :func:`eq_for_some_remainders` tells such pairs
apart from pairs that differ anyway (``4*(c//3)`` against ``c``, ``n`` against
``m``): each ``e // d`` is read as ``(e - r) / d`` and each ``e % d`` as ``r``,
with ``r`` a remainder the divisor allows (every ``0 <= r < d`` for a small
constant ``d``, only ``r = 0`` for a symbolic one, each division on its own),
and the two sides must then agree as functions of the symbols. The identity is
tested with exact fractions on random sizes: a non-zero polynomial vanishes on
all of several random points with negligible probability (Schwartz-Zippel).
"""

from __future__ import annotations

import functools
import itertools
import random
from fractions import Fraction

from ._dimexpr import Dim

__all__ = ["eq_for_some_remainders"]

_SMALL_DIVISOR = 8  # every remainder of a constant divisor up to this is tried
_MAX_CHOICES = 256  # beyond this many combinations only the exact divisions are tried
_POINTS = 6


def _divisions(d: Dim, found: list) -> None:
    for mono, _ in d._terms:
        for atom, _ in mono:
            if atom.op == "sym":
                continue
            if atom.op in ("//", "%") and atom not in found:
                found.append(atom)
            for arg in atom.args:
                _divisions(arg, found)


def _value(d: Dim, env: dict, rem: dict):
    if d._value is not None:
        return d._value
    total: Fraction | int = 0
    for mono, coeff in d._terms:
        term: Fraction | int = coeff
        for atom, exp in mono:
            term *= _atom(atom, env, rem) ** exp
        total += term
    return total


def _atom(atom, env: dict, rem: dict):
    op = atom.op
    if op == "sym":
        return env[atom.args]
    values = [_value(arg, env, rem) for arg in atom.args]
    if op == "min":
        return min(values)
    if op == "max":
        return max(values)
    a, b = values
    if op == "**":
        if Fraction(b).denominator != 1 or b < 0 or b > 64:
            raise ValueError("exponent")
        return a ** int(b)
    if b == 0:
        raise ZeroDivisionError("divisor")
    r = rem[atom]
    return Fraction(a - r, b) if op == "//" else r


def eq_for_some_remainders(a: Dim, b: Dim) -> bool:
    """Whether ``a`` and ``b`` agree once each division's remainder is fixed (module doc).

    False when neither side divides (the question is then plain equality).

    >>> from tensortypes.core.dims import parse
    >>> eq_for_some_remainders(parse("(n+1)//2"), parse("n//2"))
    True
    >>> eq_for_some_remainders(parse("h*(n//h)"), parse("n"))
    True
    >>> eq_for_some_remainders(parse("4*(c//3)"), parse("c"))
    False
    >>> eq_for_some_remainders(parse("n"), parse("m"))
    False
    """
    return _decide(a, b)


@functools.lru_cache(maxsize=1 << 12)
def _decide(a: Dim, b: Dim) -> bool:
    atoms: list = []
    _divisions(a, atoms)
    _divisions(b, atoms)
    if not atoms:
        return False
    choices = []
    for atom in atoms:
        k = atom.args[1]._value
        choices.append(range(k) if k is not None and 1 <= k <= _SMALL_DIVISOR else (0,))
    count = 1
    for c in choices:
        count *= len(c)
    if count > _MAX_CHOICES:
        choices = [(0,)] * len(atoms)
    names = sorted(a.free_symbols | b.free_symbols)
    rng = random.Random(0x4D0D)
    points = [{n: rng.randint(2, 997) for n in names} for _ in range(_POINTS)]
    for combo in itertools.product(*choices):
        rem = dict(zip(atoms, combo))
        try:
            if all(_value(a, p, rem) == _value(b, p, rem) for p in points):
                return True
        except (ArithmeticError, ValueError, TypeError):
            continue
    return False
