"""Symbolic dimensions: sizes as integer expressions (layer 2: core; stdlib and NumPy only).

A dimension is a constant, a symbol, or an expression of them with
``+ - * // % **``, unary minus, parentheses, ``min`` and ``max``. Every
:class:`Dim` is kept in a canonical normal form (a polynomial over symbols and
opaque terms, see :mod:`tensortypes.core._dimexpr`) and interned, so
``parse("n+n") is parse("2*n")`` and ``==`` is structural identity.

Dims are kind-neutral: whether ``n`` is a *rigid* size of a graph or a
*pattern variable* of an annotation depends on where it sits (a shape entry);
:mod:`tensortypes.core.shapes` takes that into account.

Comparisons are module functions returning ``True``, ``False`` or ``None``
(cannot tell): :func:`eq`, :func:`ne`, :func:`lt`, :func:`le`, :func:`gt`,
:func:`ge`. They assume every symbol denotes a non-negative integer, as sizes
do. Ordering operators (``<``) are deliberately not defined on ``Dim``, and
``bool(dim)`` raises TypeError.

Evaluation follows the normal form: where a subterm that would divide by zero
cancels out (``n//m - n//m`` is ``0``), ``evaluate`` does not raise.
"""

from __future__ import annotations


from ..errors import AnnotationError
from ._dimcmp import bounds, eq, ge, gt, le, lt, ne, solve_linear
from ._dimcmp import split_linear as _split_linear
from ._dimexpr import (
    _INTS,
    Dim,
    add,
    add_all,
    const,
    floordiv,
    minmax,
    mod,
    mul,
    neg,
    power,
    sub,
    symbol_dim,
)
from ._dimparse import FUNCTIONS, parse_tree
from ._dimrem import eq_for_some_remainders

__all__ = [
    "Dim",
    "const",
    "symbol",
    "as_dim",
    "parse",
    "parse_braced",
    "dmin",
    "dmax",
    "eq",
    "eq_for_some_remainders",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "solve_linear",
    "split_linear",
    "bounds",
]

_PARSED: dict[str, Dim] = {}
_PARSE_CACHE_LIMIT = 1 << 14

_BINARY = {"+": add, "-": sub, "*": mul, "//": floordiv, "%": mod, "**": power}


def symbol(name: str) -> Dim:
    """The symbol ``name``: a valid Python identifier other than ``min`` or ``max``.

    Keywords are plain names here (``"batch in"`` is a jaxtyping shape), since
    expressions are parsed by our own parser, never by Python's.

    >>> symbol("batch")
    Dim('batch')
    """
    if not isinstance(name, str):
        raise TypeError(f"symbol() takes a str, got {type(name).__name__} {name!r}")
    if not name.isidentifier():
        raise AnnotationError(
            f"{name!r} is not a valid dimension name (it must be a Python identifier)",
            name,
            0,
            len(name),
        )
    if name in FUNCTIONS:
        raise AnnotationError(
            f"{name!r} is reserved and cannot name a dimension", name, 0, len(name)
        )
    return symbol_dim(name)


def _spine(node: tuple, ops: tuple) -> tuple[tuple, list]:
    """The leftmost operand of a left-associative chain of ``ops`` and the
    ``(op, right operand)`` pairs after it, in order (``a-b+c``: ``a``, ``[-b, +c]``)."""
    rest = []
    while node[0] == "bin" and node[3] in ops:
        rest.append((node[3], node[5]))
        node = node[4]
    rest.reverse()
    return node, rest


def _build(node: tuple, text: str, braces: list | None = None) -> Dim:
    """The Dim of a syntax tree. Left-associative chains (``a+b+...``, ``a*b//c``) are
    walked in a loop, so a long chain costs no recursion; a sum is accumulated at once.
    A brace becomes the placeholder symbol ``{i}`` (not an identifier, so no name in the
    text can be it) and its inner expression is appended to ``braces``."""
    kind = node[0]
    if kind == "name":
        return symbol_dim(node[3])  # the tokenizer validated the name
    try:
        if kind == "int":
            return const(node[3])
        if kind == "neg":
            return neg(_build(node[3], text, braces))
        if kind == "pos":
            return _build(node[3], text, braces)
        if kind == "brace":
            if braces is None:  # a brace inside a brace, or braces where none may be
                raise AnnotationError("a brace cannot stand here")
            braces.append((_build(node[3], text, None), text[node[1] : node[2]]))
            return symbol_dim(f"{{{len(braces) - 1}}}")
        if kind == "call":
            return minmax(node[3], [_build(arg, text, braces) for arg in node[4]])
        op = node[3]
        if op in ("+", "-"):
            first, rest = _spine(node, ("+", "-"))
            parts = [(1, _build(first, text, braces))]
            parts += [(1 if o == "+" else -1, _build(r, text, braces)) for o, r in rest]
            return add_all(parts)
        if op == "**":
            return _binary(op, _build(node[4], text, braces), node[1], node[5], text, braces)
        first, rest = _spine(node, ("*", "//", "%"))
        result = _build(first, text, braces)
        for o, right in rest:
            result = _binary(o, result, node[1], right, text, braces)
        return result
    except AnnotationError as error:
        if error.text is not None:
            raise
        raise AnnotationError(error.message, text, node[1], node[2]) from None


def _binary(op: str, a: Dim, start: int, right: tuple, text: str, braces: list | None) -> Dim:
    """``a op right``, where ``a`` is the Dim of ``text[start:right's start]``."""
    b = _build(right, text, braces)
    if op in ("//", "%") and b._value == 0:
        raise AnnotationError(
            f"division by zero: the divisor of {op} is 0", text, right[1], right[2]
        )
    if op == "**" and b._value is not None and b._value < 0:
        raise AnnotationError(
            f"negative exponent {b._value}: a dimension size must be an integer",
            text,
            right[1],
            right[2],
        )
    try:
        return _BINARY[op](a, b)
    except AnnotationError as error:  # a limit: point at the operation that hit it
        if error.text is not None:
            raise
        raise AnnotationError(error.message, text, start, right[2]) from None


def parse(text: str) -> Dim:
    """Parse a dimension expression such as ``"2*n+1"`` into its interned normal form.

    Malformed text raises AnnotationError with a caret under the bad token, and so does
    text over one of the limits of :mod:`tensortypes.core.limits`. Results are cached,
    so parsing the same text again is a dictionary hit.

    >>> parse("n+1-1") is parse("n")
    True
    """
    found = _PARSED.get(text)
    if found is not None:
        return found
    try:
        result = _build(parse_tree(text), text)
    except RecursionError:  # the limits keep well inside Python's; kept as a guard
        raise AnnotationError(
            "dimension expression is nested too deeply", text, 0, len(text)
        ) from None
    if len(_PARSED) >= _PARSE_CACHE_LIMIT:
        _PARSED.clear()
    _PARSED[text] = result
    return result


def parse_braced(text: str) -> tuple[Dim, tuple]:
    """Parse an expression that may hold braces ``{...}`` (shape strings of annotations).

    Returns the Dim, in which brace ``i`` is the placeholder symbol ``"{i}"``, and a
    tuple of ``(Dim, text)`` per brace: its expression, whose symbols are names or
    attribute paths (``"self.size"``), and its source text. The caller substitutes
    each brace's value for its placeholder: a brace is a whole operand, never pasted
    into the text.

    >>> d, braces = parse_braced("n*{k-1}")
    >>> str(d), braces
    ('n*{0}', ((Dim('k-1'), '{k-1}'),))
    """
    braces: list = []
    try:
        result = _build(parse_tree(text, braces=True), text, braces)
    except RecursionError:
        raise AnnotationError(
            "dimension expression is nested too deeply", text, 0, len(text)
        ) from None
    return result, tuple(braces)


def as_dim(x) -> Dim:
    """``x`` as a Dim: a Dim itself, an int (NumPy ints too, not bool) or a str to parse.

    >>> as_dim(3) is const(3), as_dim("n") is symbol("n")
    (True, True)
    """
    if type(x) is Dim:
        return x
    if type(x) is str:
        return parse(x)
    if type(x) is int or (isinstance(x, _INTS) and not isinstance(x, bool)):
        return const(int(x))
    raise TypeError(
        f"a dimension is an int, a str expression or a Dim, got {type(x).__name__} {x!r}"
    )


def dmin(a, b, *more) -> Dim:
    """``min`` of two or more dimensions, in normal form.

    >>> dmin("n", "n+1")
    Dim('n')
    """
    return minmax("min", [as_dim(x) for x in (a, b, *more)])


def dmax(a, b, *more) -> Dim:
    """``max`` of two or more dimensions, in normal form.

    >>> dmax(2, 3, "n")
    Dim('max(n,3)')
    """
    return minmax("max", [as_dim(x) for x in (a, b, *more)])


def split_linear(d, name: str) -> tuple[int, Dim] | None:
    """``(c, k)`` with ``d == c*name + k``: ``c`` a nonzero int, ``k`` a Dim free of ``name``.

    None when ``d`` is not linear in ``name``: the symbol is absent, raised to a
    power, multiplied by another symbol, or inside an opaque term (``n//2``,
    ``min(n, m)``). Solving ``d == target`` for ``name`` is then
    ``(target - k) / c`` where that divides exactly.

    >>> split_linear("2*n+m", "n")
    (2, Dim('m'))
    >>> split_linear("n*m", "n") is None, split_linear("n//2", "n") is None
    (True, True)
    """
    if type(name) is not str:
        raise TypeError(
            f"split_linear: the symbol is given by its name (a str), "
            f"got {type(name).__name__} {name!r}"
        )
    return _split_linear(as_dim(d), name)
