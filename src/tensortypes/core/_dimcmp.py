"""Tri-state comparison of dimension expressions (layer 2: core; standard library only).

Every answer is ``True``, ``False`` or ``None`` ("cannot tell"). The decision
uses the normal form of ``a - b``: a constant difference decides at once;
otherwise an interval ``[lo, hi]`` of the difference is computed from the
assumption that **every symbol denotes a non-negative integer** (a size), and
decides when the interval excludes or pins down zero. So ``n+1 > 0``,
``le(n, n+m)`` and ``ne(n+1, 0)`` are True, while ``eq(n, m)`` is None.

The interval of a Dim is computed once and cached on it; the difference
``a - b`` is a cached arithmetic result, so repeated comparisons cost two
dictionary look-ups.
"""

from __future__ import annotations

from ._dimexpr import _INTS, Dim, _from_terms, const, sub

__all__ = ["bounds", "eq", "ne", "lt", "le", "gt", "ge", "solve_linear", "split_linear"]

_INF = float("inf")
_NONNEG = (0, _INF)
_ANY = (-_INF, _INF)
_HUGE_BITS = 4096


def _mul(x, y):
    # Values are finite; an infinite endpoint only says "unbounded", so 0*inf is 0.
    if x == 0 or y == 0:
        return 0
    return x * y


def _interval_mul(a: tuple, b: tuple) -> tuple:
    products = (_mul(a[0], b[0]), _mul(a[0], b[1]), _mul(a[1], b[0]), _mul(a[1], b[1]))
    return min(products), max(products)


def _ipow(x, e: int):
    if x in (_INF, -_INF) or abs(x) <= 1 or (abs(x).bit_length() - 1) * e <= _HUGE_BITS:
        return x**e
    return _INF if x > 0 or e % 2 == 0 else -_INF


def _interval_pow(iv: tuple, e: int) -> tuple:
    lo, hi = iv
    if lo >= 0:
        return _ipow(lo, e), _ipow(hi, e)
    if e % 2:
        return _ipow(lo, e), _ipow(hi, e)
    if hi <= 0:
        return _ipow(hi, e), _ipow(lo, e)
    return 0, max(_ipow(lo, e), _ipow(hi, e))


def _floor_div(x, c):
    """``floor(x / c)`` for an endpoint ``x`` (maybe infinite) and a positive ``c``."""
    if x in (_INF, -_INF):
        return x
    if c == _INF:
        return 0 if x >= 0 else -1
    return x // c


def _atom_interval(atom) -> tuple:
    op = atom.op
    if op == "sym":
        return _NONNEG
    ivs = [bounds(a) for a in atom.args]
    if op == "min":
        return min(i[0] for i in ivs), min(i[1] for i in ivs)
    if op == "max":
        return max(i[0] for i in ivs), max(i[1] for i in ivs)
    (alo, ahi), (blo, bhi) = ivs
    if op == "//":
        if bhi < 1 and blo > -1:  # the divisor is always 0: never defined
            return _ANY
        if blo >= 0:  # where defined the divisor is >= 1
            blo = max(blo, 1)
            lo = _floor_div(alo, blo) if alo < 0 else _floor_div(alo, bhi)
            hi = _floor_div(ahi, blo) if ahi >= 0 else _floor_div(ahi, bhi)
            return lo, hi
        return _ANY
    if op == "%":
        # The result has the sign of the divisor and is smaller than it in magnitude.
        lo = 0 if blo >= 0 else blo + 1
        hi = 0 if bhi <= 0 else bhi - 1
        if blo >= 0 and alo >= 0:
            hi = min(hi, ahi)
        return lo, hi
    # op == "**": defined only for a non-negative exponent
    elo, ehi = max(blo, 0), bhi
    if ehi < 0 or alo < 0:
        return _ANY
    lo = _ipow(alo, elo) if alo >= 1 else 0  # 0**e is 0 or 1
    if ahi == _INF or ehi == _INF:
        hi = _INF if ahi > 1 else 1
    else:
        hi = _ipow(ahi, ehi) if ahi > 1 else 1
    return lo, hi


def bounds(d: Dim) -> tuple:
    """An interval ``(lo, hi)`` holding every value of ``d`` when symbols are >= 0.

    Endpoints are ints or ``±inf``.

    >>> from tensortypes.core.dims import parse
    >>> bounds(parse("min(n,3)+1"))
    (1, 4)
    """
    found = d._bounds
    if found is not None:
        return found
    if d._value is not None:
        found = (d._value, d._value)
    else:
        lo = hi = 0
        for mono, coeff in d._terms:
            iv = (coeff, coeff)
            for atom, exp in mono:
                iv = _interval_mul(iv, _interval_pow(_atom_interval(atom), exp))
            lo += iv[0]
            hi += iv[1]
        found = (lo, hi)
    object.__setattr__(d, "_bounds", found)
    return found


def _as_dim(x) -> Dim:
    if type(x) is Dim:
        return x
    if type(x) is int or (isinstance(x, _INTS) and not isinstance(x, bool)):
        return const(int(x))
    raise TypeError(f"dimension comparison takes ints or Dims, got {type(x).__name__} {x!r}")


_DIFFERENCES: dict[tuple, tuple] = {}
_DIFFERENCES_LIMIT = 1 << 16


def _difference(a, b) -> tuple:
    """The interval of ``a - b``, cached by identity (interned Dims live forever)."""
    if type(a) is not Dim:
        a = _as_dim(a)
    if type(b) is not Dim:
        b = _as_dim(b)
    key = (id(a), id(b))
    found = _DIFFERENCES.get(key)
    if found is None:
        found = bounds(sub(a, b))
        if len(_DIFFERENCES) >= _DIFFERENCES_LIMIT:
            _DIFFERENCES.clear()
        _DIFFERENCES[key] = found
    return found


def _both_ints(a, b) -> bool:
    return type(a) is int and type(b) is int


def eq(a, b) -> bool | None:
    """Whether ``a == b`` for every value of the symbols: True, False or None (cannot tell).

    >>> from tensortypes.core.dims import parse
    >>> eq(parse("n+1"), 0), eq(parse("n"), parse("m"))
    (False, None)
    """
    if a is b:
        return True
    if _both_ints(a, b):
        return a == b
    lo, hi = _difference(a, b)
    if lo > 0 or hi < 0:
        return False
    if lo == 0 and hi == 0:
        return True
    return None


def ne(a, b) -> bool | None:
    """Tri-state ``a != b`` (see :func:`eq`).

    >>> from tensortypes.core.dims import parse
    >>> ne(parse("n+1"), parse("n"))
    True
    """
    result = eq(a, b)
    return None if result is None else not result


def lt(a, b) -> bool | None:
    """Tri-state ``a < b``, symbols being non-negative.

    >>> from tensortypes.core.dims import parse
    >>> lt(parse("n"), parse("n+1"))
    True
    """
    if _both_ints(a, b):
        return a < b
    lo, hi = _difference(a, b)
    if hi < 0:
        return True
    if lo >= 0:
        return False
    return None


def le(a, b) -> bool | None:
    """Tri-state ``a <= b``, symbols being non-negative.

    >>> from tensortypes.core.dims import parse
    >>> le(parse("n"), parse("n+m"))
    True
    """
    if a is b:
        return True
    if _both_ints(a, b):
        return a <= b
    lo, hi = _difference(a, b)
    if hi <= 0:
        return True
    if lo > 0:
        return False
    return None


def gt(a, b) -> bool | None:
    """Tri-state ``a > b`` (``lt(b, a)``).

    >>> from tensortypes.core.dims import parse
    >>> gt(parse("n+1"), 0)
    True
    """
    return lt(b, a)


def ge(a, b) -> bool | None:
    """Tri-state ``a >= b`` (``le(b, a)``).

    >>> from tensortypes.core.dims import parse
    >>> ge(parse("n"), 0)
    True
    """
    return le(b, a)


def solve_linear(d, value) -> dict | bool | None:
    """Solve ``d == value`` for the one symbol of a linear ``d = c*n + k``.

    Returns ``{name: int}`` with the non-negative integer solution; ``False``
    when ``d`` has that form but no non-negative integer solves it; ``None``
    when ``d`` is not of that form (several symbols, non-linear terms) or
    ``value`` is not an int. A constant ``d`` gives ``{}`` when it equals
    ``value`` (nothing to bind) and ``False`` otherwise. Never raises for
    those reasons.

    >>> from tensortypes.core.dims import parse
    >>> solve_linear(parse("2*n+1"), 7), solve_linear(parse("2*n+1"), 8)
    ({'n': 3}, False)
    """
    if type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, _INTS):
            return None
        value = int(value)
    if type(d) is not Dim:
        if type(d) is int or (isinstance(d, _INTS) and not isinstance(d, bool)):
            return {} if int(d) == value else False
        return None
    if d._value is not None:
        return {} if d._value == value else False
    names = d.free_symbols
    if len(names) != 1:
        return None
    (name,) = names
    split = split_linear(d, name)
    if split is None or split[1]._value is None:
        return None
    c, k = split
    q, r = divmod(value - k._value, c)
    if r or q < 0:
        return False
    return {name: q}


def split_linear(d: Dim, name: str) -> tuple[int, Dim] | None:
    """``(c, k)`` with ``d == c*name + k``, ``c`` a nonzero int and ``k`` free of ``name``.

    None when ``d`` is not linear in ``name`` (``name`` absent, raised to a
    power, multiplied by another atom, or inside an opaque term).

    >>> from tensortypes.core.dims import parse
    >>> split_linear(parse("2*n+m"), "n")
    (2, Dim('m'))
    """
    c = 0
    rest = []
    for mono, coeff in d._terms:
        if (
            len(mono) == 1
            and mono[0][1] == 1
            and mono[0][0].op == "sym"
            and mono[0][0].args == name
        ):
            c = coeff
        else:
            rest.append((mono, coeff))
    if not c:
        return None
    k = _from_terms(tuple(rest))  # a sub-tuple of a normal form is in normal form
    if name in k.free_symbols:
        return None
    return c, k
