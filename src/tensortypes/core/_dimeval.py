"""Evaluation of dimension normal forms (layer 2: core; standard library only).

``evaluate(d, bindings)`` computes the int value of a Dim with Python's
integer semantics for ``//``, ``%``, ``**``, ``min`` and ``max``. It reads the
Dim's structure (``_value``, ``_name``, ``_terms``, atoms' ``op``/``args``), so
it needs no import of the Dim class.

Work is bounded: no value of more than ``limits.MAX_BITS`` bits is ever computed.
A power whose result would be larger is detected from the bit length of its base
before it is computed (``n**10**8`` with ``n = 3`` stops at once), and the
evaluation raises OverflowError: no array has a size that large, so a check
comparing an axis against it fails.
"""

from __future__ import annotations

import numpy as np

from .limits import MAX_BITS, describe_int

__all__ = ["evaluate"]

_INTS = (int, np.integer)


def _lookup(name: str, bindings, where) -> int:
    try:
        value = bindings[name]
    except KeyError:
        raise KeyError(f"symbol {name!r} is unbound (evaluating {where})") from None
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, _INTS):
        raise TypeError(f"symbol {name!r} is bound to a {type(value).__name__}; sizes are ints")
    return int(value)


def _power(a: int, b: int, where) -> int:
    """``a ** b`` for ``b >= 0``, or OverflowError when it has more than MAX_BITS bits."""
    if b == 0:
        return 1
    if a in (0, 1):
        return a
    if a == -1:
        return -1 if b & 1 else 1
    if (abs(a).bit_length() - 1) * b > MAX_BITS:  # |a|**b >= 2**((bits-1)*b)
        raise OverflowError(
            f"{describe_int(a)}**{describe_int(b)} is too large evaluating "
            f"{where} (over MAX_BITS={MAX_BITS} bits)"
        )
    return _checked(a**b, where)


def _checked(value: int, where) -> int:
    if value.bit_length() > MAX_BITS:
        raise OverflowError(
            f"a value of {value.bit_length()} bits is too large evaluating "
            f"{where} (over MAX_BITS={MAX_BITS} bits)"
        )
    return value


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
            raise ValueError(f"negative exponent {describe_int(b)} evaluating {where}")
        return _power(a, b, where)
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
            coeff = _checked(coeff * _power(_atom_value(atom, bindings, d), exp, d), d)
        total += coeff
    return _checked(total, d)
