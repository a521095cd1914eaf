"""Evaluation of dimension normal forms (layer 2: core; standard library only).

``evaluate(d, bindings)`` computes the int value of a Dim with Python's
integer semantics for ``//``, ``%``, ``**``, ``min`` and ``max``. It reads the
Dim's structure (``_value``, ``_name``, ``_terms``, atoms' ``op``/``args``), so
it needs no import of the Dim class.
"""

from __future__ import annotations

import numpy as np

__all__ = ["evaluate"]

_INTS = (int, np.integer)
_MAX_EVAL_BITS = 1 << 20  # a power beyond a million bits is no size: stop early


def _lookup(name: str, bindings, where) -> int:
    try:
        value = bindings[name]
    except KeyError:
        raise KeyError(f"symbol {name!r} is unbound (evaluating {where})") from None
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, _INTS):
        raise TypeError(f"symbol {name!r} is bound to {value!r}; sizes are ints")
    return int(value)


def _atom_value(atom, bindings, where) -> int:
    op = atom.op
    if op == "sym":
        return _lookup(atom.args, bindings, where)
    values = [evaluate(arg, bindings) for arg in atom.args]
    if op == "min":
        return min(values)
    if op == "max":
        return max(values)
    a, b = values
    if op == "**":
        if b < 0:
            raise ValueError(f"negative exponent {b} evaluating {where}")
        if abs(a) > 1 and (abs(a).bit_length() - 1) * b > _MAX_EVAL_BITS:
            raise OverflowError(f"{a}**{b} is too large evaluating {where}")
        return a ** b
    if b == 0:
        raise ZeroDivisionError(f"division by zero evaluating {where}")
    return a // b if op == "//" else a % b


def evaluate(d, bindings) -> int:
    """The value of Dim ``d`` under ``bindings`` (symbol name -> int).

    An unbound symbol raises KeyError naming it, a zero divisor
    ZeroDivisionError, a negative exponent ValueError.

    >>> from tensortypes.core.dims import parse
    >>> evaluate(parse("n//2+1"), {"n": 7})
    4
    """
    value = d._value
    if value is not None:
        return value
    if d._name is not None:
        return _lookup(d._name, bindings, d)
    total = 0
    for mono, coeff in d._terms:
        for atom, exp in mono:
            coeff *= _atom_value(atom, bindings, d) ** exp
        total += coeff
    return total
