"""The limits on work done for text and sizes read from outside (layer 2: core; stdlib only).

Annotation strings, dimension expressions and the values read through braces come
from users, from files the static checker reads and from data. Every one of them
is parsed, normalised and evaluated under the limits below, so no input can make
the library hang or exhaust memory: going over a limit is an ``AnnotationError``
that names the limit (with a caret where the parser knows the position), and an
evaluation that would exceed :data:`MAX_BITS` stops at once and makes the check
fail instead of computing a huge integer.

The figures are far above anything a real shape needs and low enough that the worst
input within them is accepted or refused in milliseconds.
``docs/annotations.md`` lists them for users.

>>> MAX_BITS, MAX_DIGITS
(4096, 1234)
"""

from __future__ import annotations

__all__ = [
    "MAX_LENGTH",
    "MAX_OPERANDS",
    "MAX_NESTING",
    "MAX_BITS",
    "MAX_DIGITS",
    "MAX_TERMS",
    "describe_int",
]

MAX_LENGTH = 1000
"""Characters in one shape string or dimension expression."""

MAX_OPERANDS = 256
"""Numbers and names in one dimension expression (``a+b+c`` has 3)."""

MAX_NESTING = 32
"""Depth of nested parentheses, unary signs, ``**`` chains, ``min``/``max`` calls and
braces in one expression, and of opaque terms inside opaque terms (``n//2//3`` is 2
deep) in a normal form."""

MAX_BITS = 4096
"""Bits of any integer in a normal form (a constant, a coefficient, an exponent) and of
any value computed while evaluating a size: beyond it a size is too large to exist."""

MAX_DIGITS = len(str(1 << MAX_BITS))
"""Digits of an integer literal (a number of :data:`MAX_BITS` bits has at most this many)."""

MAX_TERMS = 256
"""Terms of a normal form: a product of sums (``(a+b)*(c+d)*...``) is expanded only
while the result has at most this many terms."""


def describe_int(value: int) -> str:
    """``value`` as text for a message, shortened when it has more than 30 digits.

    Never converts a huge int to decimal (Python refuses beyond 4,300 digits, and the
    conversion is quadratic).

    >>> describe_int(12), describe_int(1 << 200)
    ('12', 'an integer of 201 bits')
    """
    if value.bit_length() <= 96:  # at most 29 digits
        return str(value)
    return f"{'a negative' if value < 0 else 'an'} integer of {abs(value).bit_length()} bits"
