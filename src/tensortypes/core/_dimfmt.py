"""Canonical text of a dimension expression (layer 2: core; standard library only).

``format_dim(d)`` prints a normal-form ``Dim`` with Python's operator syntax,
no spaces (in a shape string a space separates axes) and only the
parentheses that precedence requires, so that parsing the text gives the
same Dim back. It reads the Dim's structure (``_value``, ``_terms`` and the
atoms' ``op``/``args``) and imports nothing, so the expression module can use
it without an import cycle.

Precedence facts the rules below rely on (Python's): unary minus binds tighter
than ``* // %`` but looser than ``**``; ``* // %`` are left associative;
``**`` is right associative.
"""

from __future__ import annotations

__all__ = ["format_dim"]

_CALLS = ("sym", "min", "max")


def _single_factor(d):
    """``(atom, exp)`` when ``d`` is one atom power with coefficient 1, else None."""
    terms = d._terms
    if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
        return terms[0][0][0]
    return None


def _is_operand_of_power(d) -> bool:
    """Whether ``d`` may stand bare right of ``**`` or ``//``/``%`` (binds as tight as **)."""
    if d._value is not None:
        return d._value >= 0
    factor = _single_factor(d)
    if factor is None:
        return False
    atom, exp = factor
    return atom.op in _CALLS or (atom.op == "**" and exp == 1)


def _is_primary(d) -> bool:
    """Whether ``d`` may stand bare as the base of ``**``."""
    if d._value is not None:
        return d._value >= 0
    factor = _single_factor(d)
    return factor is not None and factor[1] == 1 and factor[0].op in _CALLS


def _wrap(text: str, bare: bool) -> str:
    return text if bare else f"({text})"


def _format_atom(atom) -> str:
    op = atom.op
    if op == "sym":
        return atom.args
    if op in ("min", "max"):
        return f"{op}({','.join(format_dim(a) for a in atom.args)})"
    left, right = atom.args
    if op == "**":
        return (
            f"{_wrap(format_dim(left), _is_primary(left))}**"
            f"{_wrap(format_dim(right), _is_operand_of_power(right))}"
        )
    # a//b and a%b: a sum on the left needs parentheses, a single term does not
    # (a*b//c is (a*b)//c); on the right anything below ** needs them.
    return (
        f"{_wrap(format_dim(left), len(left._terms) <= 1)}{op}"
        f"{_wrap(format_dim(right), _is_operand_of_power(right))}"
    )


def _format_factor(atom, exp: int, bare_division: bool) -> str:
    text = _format_atom(atom)
    if atom.op in ("//", "%"):
        # Bare only where nothing binds to its left: not after "2*", "x*" or a
        # leading unary minus, and not raised to a power.
        if not bare_division or exp != 1:
            text = f"({text})"
    elif atom.op == "**" and exp != 1:
        text = f"({text})"
    return text if exp == 1 else f"{text}**{exp}"


def _format_term(mono: tuple, magnitude: int, leading_unary: bool) -> str:
    if not mono:
        return str(magnitude)
    plain_start = magnitude == 1 and not leading_unary
    factors = [
        _format_factor(atom, exp, plain_start and i == 0) for i, (atom, exp) in enumerate(mono)
    ]
    body = "*".join(factors)
    return body if magnitude == 1 else f"{magnitude}*{body}"


def _print_order(terms: tuple) -> tuple:
    """Positive terms first, so that ``n-m`` and ``1-n`` read naturally.

    The order stays a function of the normal form, so the text is canonical.
    """
    constant = terms[-1] if not terms[-1][0] else None
    variable = terms[:-1] if constant is not None else terms
    positive = tuple(t for t in variable if t[1] > 0)
    negative = tuple(t for t in variable if t[1] < 0)
    if positive or constant is None or constant[1] < 0:
        return positive + negative + ((constant,) if constant is not None else ())
    return (constant,) + negative


def format_dim(d) -> str:
    """The canonical text of the normal-form Dim ``d``.

    >>> from tensortypes.core.dims import parse
    >>> format_dim(parse("(n+1)**2"))
    'n**2+2*n+1'
    """
    if d._value is not None:
        return str(d._value)
    parts = []
    for index, (mono, coeff) in enumerate(_print_order(d._terms)):
        negative = coeff < 0
        body = _format_term(mono, -coeff if negative else coeff, negative and index == 0)
        if negative:
            parts.append("-" + body)
        elif index:
            parts.append("+" + body)
        else:
            parts.append(body)
    return "".join(parts)
