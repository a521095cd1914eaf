"""Atoms and ordering keys of dimension normal forms (layer 2: core; standard library only).

A monomial of a dimension's normal form is a product of *atoms* raised to
positive powers. An atom is a symbol or an opaque non-polynomial term
(``a//b``, ``a%b``, ``min(...)``, ``max(...)``, ``a**e``) over Dims. Atoms are
interned on ``(op, args)``, so identity is equality and the default (C-level)
hash is used. Their ``key`` is a structural total order, the same in every
process, which sorts factors, terms and ``min``/``max`` arguments
canonically. Dims are only read through their ``_key``, so this module does
not import the Dim class.
"""

from __future__ import annotations

from typing import Any

from ..errors import AnnotationError
from .limits import MAX_NESTING

__all__ = ["Atom", "atom", "mono_key", "term_order", "factor_order"]

_OP_RANK = {"//": 0, "%": 1, "**": 2, "max": 3, "min": 4}


class Atom:
    """One indivisible factor: ``op`` is ``"sym"`` (``args`` the name) or an operator.

    For an operator, ``args`` is a tuple of Dims. ``dim`` caches the Dim made of
    this atom alone; ``depth`` is how many opaque terms nest here (0 for a symbol),
    at most ``limits.MAX_NESTING``. Build atoms with :func:`atom` only.
    """

    __slots__ = ("op", "args", "key", "dim", "depth", "__weakref__")
    args: Any
    depth: Any
    dim: Any
    key: Any
    op: Any

    def __init_subclass__(cls, **kwargs):
        raise TypeError("Atom is final and cannot be subclassed")

    def __reduce__(self):
        return (atom, (self.op, self.args))

    def __repr__(self) -> str:
        return f"Atom({self.op!r}, {self.args!r})"


_ATOMS: dict[tuple, Atom] = {}


def atom(op: str, args) -> Atom:
    """The interned atom ``op(args)`` (``args`` a name for ``"sym"``, else a tuple of Dims).

    >>> atom("sym", "n") is atom("sym", "n")
    True
    """
    key = (op, args)
    found = _ATOMS.get(key)
    if found is not None:
        return found
    depth = 0
    if op != "sym":
        depth = 1 + max((a.depth for d in args for mono, _ in d._terms for a, _ in mono), default=0)
        if depth > MAX_NESTING:
            raise AnnotationError(
                f"the normal form nests opaque terms (//, %, min, max, **) more than "
                f"{MAX_NESTING} deep; the limit is {MAX_NESTING} (MAX_NESTING in "
                f"tensortypes.core.limits)"
            )
    made = object.__new__(Atom)
    made.op = op
    made.args = args
    made.key = (0, args) if op == "sym" else (1, _OP_RANK[op], tuple(a._key for a in args))
    made.dim = None
    made.depth = depth
    _ATOMS[key] = made
    return made


_MONO_KEYS: dict[tuple, tuple] = {(): (1,)}


def mono_key(mono: tuple) -> tuple:
    """Sort key of a monomial: constants last, higher degree first, then structure.

    >>> mono_key(()) > mono_key(((atom("sym", "n"), 1),))
    True
    """
    key = _MONO_KEYS.get(mono)
    if key is None:
        key = (0, -sum(e for _, e in mono), tuple((a.key, -e) for a, e in mono))
        _MONO_KEYS[mono] = key
    return key


def term_order(term: tuple) -> tuple:
    """Sort key of a ``(monomial, coefficient)`` term."""
    return mono_key(term[0])


def factor_order(factor: tuple) -> tuple:
    """Sort key of an ``(atom, exponent)`` factor."""
    return factor[0].key
