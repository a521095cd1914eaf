"""Comparing sizes under the checker's contract (layer 6: ``check``).

Two sizes agree only when the dims algebra of ``core.dims`` proves them equal
for every value of their symbols (``dims.eq`` is True): "cannot tell" counts
as different, since the code must be right for every size its annotations
allow. Quotients by a symbolic size (``dim // heads``) are opaque to the normal
form, so :func:`same_size` also takes the divisibility facts the code
established (``assert dim % heads == 0``, in the function or in ``__init__``)
and then decides by :func:`equal_under_facts`.

Sizes that differ only through the remainders of their divisions
(``(n+1)//2`` and ``n//2``, ``3*(c//3)`` and ``c``, ``h*(n//h)`` and ``n``:
equal exactly when a division is exact, ``dims.eq_for_some_remainders``) are
"cannot tell" instead: the code may rely on an evenness or a divisibility it
never states. :func:`agree` treats them as equal and keeps a ``--strict`` note
(:func:`drain_unsure`); a change of a constant (``4*(c//3)`` and ``c``) is
still different.
"""

from __future__ import annotations

import keyword
import random

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from .symbolic import (
    fields_unrelated,
    fmt_dim,
    instance_unrelated,
    selected_unrelated,
    unpacked_unrelated,
    unrelated,
)

__all__ = [
    "same_size",
    "agree",
    "only_remainders",
    "drain_unsure",
    "equal_under_facts",
    "size_symbol",
    "indivisible_example",
]

_UNSURE: list = []  # --strict notes of sizes taken as equal but not proven so

_RESERVED = frozenset({"min", "max"})


def size_symbol(name: str):
    """The size a parameter named ``name`` stands for, or None if no dim may be named so.

    >>> size_symbol("d_in"), size_symbol("min")
    (Dim('d_in'), None)
    """
    if not name.isidentifier() or name in _RESERVED or keyword.iskeyword(name):
        return None
    return dims.symbol(name)


def same_size(a: Dim, b: Dim, facts=(), remainders: bool = True) -> bool:
    """Whether sizes ``a`` and ``b`` may be taken as equal for every size the facts allow.

    Equal but for a division's remainder counts as equal ("cannot tell", see the
    module doc) unless ``remainders`` is False (a quotient taken as exact, a
    run of axes matched); an unrelated difference does not.

    >>> n, m = dims.symbol("n"), dims.symbol("m")
    >>> same_size(2 * (n // 2), n), same_size(2 * (n // 2), n + 1), same_size(n, m)
    (True, False, False)
    >>> same_size(n // m * m, n, (("n", m),))
    True
    """
    if a is b or unrelated(a, b):
        return True  # an axis of a ``...`` is never compared with a named size
    found = dims.eq(a, b)
    if found is None and facts and equal_under_facts(a, b, facts):
        return True
    if found is None:
        return remainders and only_remainders(a, b)
    return found


def agree(a, b) -> bool:
    """``a is b or dims.eq(a, b)``, but also True for sizes equal but for remainders.

    Non-Dim entries (None, an unknown size) agree with anything.

    >>> n = dims.symbol("n")
    >>> agree((n + 1) // 2, n // 2), agree(4 * (n // 3), n), agree(None, n)
    (True, False, True)
    """
    if a is b or type(a) is not Dim or type(b) is not Dim:
        return True
    if fields_unrelated(a, b) or instance_unrelated(a, b) or selected_unrelated(a, b):
        return True
    if unpacked_unrelated(a, b):
        return True
    found = dims.eq(a, b)
    return only_remainders(a, b) if found is None else found


def only_remainders(a: Dim, b: Dim) -> bool:
    """Whether ``a`` and ``b`` (not provably equal) differ only through remainders.

    When they do, a ``--strict`` note is kept for the statement being checked.
    """
    if not dims.eq_for_some_remainders(a, b):
        return False
    note = (
        f"sizes {fmt_dim(a)} and {fmt_dim(b)} are equal only when the divisions in "
        f"them are exact: taken as equal, not reported"
    )
    if note not in _UNSURE:
        _UNSURE.append(note)
    return True


def drain_unsure() -> list:
    """The ``--strict`` notes :func:`only_remainders` kept since the last call, cleared."""
    found = list(_UNSURE)
    _UNSURE.clear()
    return found


def equal_under_facts(a: Dim, b: Dim, facts) -> bool:
    """Whether ``a == b`` given divisibility facts ``(name, k)`` (``k`` divides ``name``).

    Quotients such as ``dim // heads`` are opaque to the normal form, so the
    identity is tested on sizes that satisfy the facts: an identity of such
    expressions that holds on many independent random points holds everywhere
    but with negligible probability (Schwartz-Zippel), and a failure here only
    keeps an error that the algebra could not rule out either.
    """
    names = sorted(a.free_symbols | b.free_symbols)
    divisors = {name: k for name, k in facts}
    rng = random.Random(0x7E45)
    for _ in range(12):
        env = {}
        for name in names:
            if name not in divisors:
                env[name] = rng.randint(2, 97)
        for name, k in divisors.items():
            if name in env or name not in names:
                continue
            try:
                kv = k.evaluate({n: env.setdefault(n, rng.randint(2, 97)) for n in k.free_symbols})
            except (KeyError, ArithmeticError, ValueError):
                return False
            env[name] = kv * rng.randint(1, 97)
        try:
            if a.evaluate(env) != b.evaluate(env):
                return False
        except (KeyError, ArithmeticError, ValueError):
            return False
    return True


def indivisible_example(total: Dim, divisor: Dim, facts=(), positive=()) -> dict | None:
    """Sizes for which ``divisor`` does not divide ``total``, or None when none is found.

    The sizes satisfy the divisibility facts and make every expression of
    ``positive`` (the axes involved) at least 1, so the example is a call the
    annotations allow: ``reshape(b, -1, 2)`` of ``(b, n)`` fails for ``n = 3``.
    A size the algebra cannot decide (``n*(n+1)`` is always even) has no
    example, and then nothing is reported.

    >>> b, n = dims.symbol("b"), dims.symbol("n")
    >>> indivisible_example(b * n, 2 * b)
    {'b': 1, 'n': 1}
    >>> indivisible_example(n * (n + 1), dims.const(2)) is None
    True
    """
    names = sorted(
        total.free_symbols | divisor.free_symbols | {n for d in positive for n in d.free_symbols}
    )
    divisors = dict(facts)
    rng = random.Random(0x51DE)
    small = [1, 2, 3, 5, 7]
    for attempt in range(48):
        env: dict = {}
        for i, name in enumerate(names):
            env[name] = (
                small[(attempt // (len(small) ** i)) % len(small)]
                if attempt < 25
                else rng.randint(1, 64)
            )
        try:
            for name, k in divisors.items():
                if name in env:
                    kv = k.evaluate({m: env.setdefault(m, 1) for m in k.free_symbols})
                    if kv <= 0:
                        break
                    env[name] = kv * max(1, env[name] // kv)
            else:
                if any(d.evaluate(env) < 1 for d in positive):
                    continue
                q = divisor.evaluate(env)
                if q > 0 and total.evaluate(env) % q:
                    return env
        except (KeyError, ArithmeticError, ValueError):
            return None
    return None
