"""Symbolic dimension expressions in normal form (layer 2: core; standard library only).

This module holds the ``Dim`` class and the algebra that keeps every ``Dim`` in
a canonical normal form; :mod:`tensortypes.core.dims` is the public face.

Normal form: a polynomial, i.e. a sum of monomials with nonzero integer
coefficients, where a monomial is a product of *atoms* with positive integer
exponents. An atom is a symbol or an opaque term for what is not polynomial:
``a//b``, ``a%b``, ``min(...)``, ``max(...)`` and ``a**e`` (non-constant ``e``).
Terms, factors and ``min``/``max`` arguments are sorted by a structural key, so
equal normal forms are built from equal tuples and interning makes them the
same object. Every rewrite here is valid for all integer values of the
symbols; the non-negativity of sizes is used only by the comparisons of
:mod:`tensortypes.core._dimcmp`.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

from ..errors import AnnotationError
from ._dimatom import Atom, factor_order, mono_key, term_order
from ._dimatom import atom as make_atom
from ._dimeval import _INTS, evaluate
from ._dimfmt import format_dim
from .limits import MAX_BITS, MAX_TERMS, describe_int

__all__ = [
    "Dim",
    "const",
    "symbol_dim",
    "atom_dim",
    "add",
    "sub",
    "mul",
    "neg",
    "floordiv",
    "mod",
    "power",
    "minmax",
    "coerce_operand",
    "add_all",
]

_MAX_EXPANDED_POWER = 64  # (p+q+...)**k is expanded only for exponents up to this
_CACHE_LIMIT = 1 << 16
_LIMITS = "tensortypes.core.limits"


class Dim:
    """A symbolic dimension size: an integer-valued expression in normal form.

    Instances are interned: two Dims with the same normal form are the same
    object, ``==`` is that structural identity (a constant Dim also equals the
    int it holds) and never means "provably equal at run time"; use
    :func:`tensortypes.core.dims.eq` for that. ``bool(dim)`` raises TypeError so
    that ``if dim:`` cannot silently mean "nonzero". Build Dims with
    ``symbol``, ``const``, ``parse`` or arithmetic on them.
    """

    __slots__ = (
        "_terms",
        "_key",
        "_hash",
        "_value",
        "_name",
        "_symbols",
        "_text",
        "_bounds",
        "__weakref__",
    )
    _bounds: Any
    _name: Any
    _symbols: Any
    _terms: Any
    _text: Any
    _value: Any

    def __init_subclass__(cls, **kwargs):
        raise TypeError("Dim is final and cannot be subclassed")

    def __new__(cls, *args, **kwargs):
        raise TypeError("build a Dim with symbol(), const(), parse() or arithmetic")

    def __setattr__(self, name, value):
        raise AttributeError("Dim is immutable")

    def __delattr__(self, name):
        raise AttributeError("Dim is immutable")

    if TYPE_CHECKING:
        # The arithmetic operators are installed below the class (``_operator``);
        # their signatures, for a static checker. An int operand is coerced.
        def __add__(self, other: Dim | int) -> Dim: ...
        def __radd__(self, other: Dim | int) -> Dim: ...
        def __sub__(self, other: Dim | int) -> Dim: ...
        def __rsub__(self, other: Dim | int) -> Dim: ...
        def __mul__(self, other: Dim | int) -> Dim: ...
        def __rmul__(self, other: Dim | int) -> Dim: ...
        def __floordiv__(self, other: Dim | int) -> Dim: ...
        def __rfloordiv__(self, other: Dim | int) -> Dim: ...
        def __mod__(self, other: Dim | int) -> Dim: ...
        def __rmod__(self, other: Dim | int) -> Dim: ...
        def __rpow__(self, other: Dim | int) -> Dim: ...

    __array_ufunc__ = None  # let NumPy integers defer to our reflected operators

    # -- identity --------------------------------------------------------------------
    def __eq__(self, other):
        if self is other:
            return True
        if type(other) is int or isinstance(other, _INTS):
            return self._value is not None and self._value == other
        return False if isinstance(other, Dim) else NotImplemented

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return self._hash

    def __bool__(self):
        raise TypeError(
            "the truth value of a Dim is ambiguous; use dims.eq()/ne() for "
            "tri-state comparison or .is_constant/.value"
        )

    def __reduce__(self):
        return (_from_terms, (self._terms,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # -- queries ---------------------------------------------------------------------
    @property
    def is_constant(self) -> bool:
        """Whether the expression has no symbols (its value is known)."""
        return self._value is not None

    @property
    def value(self) -> int | None:
        """The int value of a constant Dim, else None."""
        return self._value

    @property
    def is_symbol(self) -> bool:
        """Whether the Dim is a bare symbol such as ``n``."""
        return self._name is not None

    @property
    def name(self) -> str | None:
        """The name of a bare symbol, else None."""
        return self._name

    @property
    def free_symbols(self) -> frozenset:
        """The names of the symbols the expression mentions."""
        found = self._symbols
        if found is None:
            names: set = set()
            for mono, _ in self._terms:
                for atom, _ in mono:
                    if atom.op == "sym":
                        names.add(atom.args)
                    else:
                        for arg in atom.args:
                            names |= arg.free_symbols
            found = frozenset(names)
            object.__setattr__(self, "_symbols", found)
        return found

    def evaluate(self, bindings) -> int:
        """The value under ``bindings`` (symbol name -> int), with Python's integer rules.

        An unbound symbol raises KeyError naming it, a zero divisor
        ZeroDivisionError, a negative exponent ValueError.

        >>> from tensortypes.core.dims import parse
        >>> parse("2*n+1").evaluate({"n": 3})
        7
        """
        return evaluate(self, bindings)

    def substitute(self, mapping) -> Dim:
        """Replace symbols by ints or Dims and renormalise.

        >>> from tensortypes.core.dims import parse
        >>> str(parse("n*m+1").substitute({"m": 2}))
        '2*n+1'
        """
        if self._value is not None or not mapping:
            return self
        converted = {}
        for name, value in mapping.items():
            if not isinstance(name, str):
                raise TypeError(f"substitute() keys are symbol names, got {name!r}")
            converted[name] = coerce_operand(value, "substitute()")
        if converted.keys().isdisjoint(self.free_symbols):
            return self
        return _substitute(self, converted)

    # -- text ------------------------------------------------------------------------
    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = format_dim(self)
            object.__setattr__(self, "_text", text)
        return text

    def __repr__(self) -> str:
        return f"Dim({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    # -- arithmetic: the operators are attached at the end of the module ---------------
    def __pow__(self, other, modulo=None):
        if modulo is not None:
            raise TypeError("three-argument pow() is not defined for Dim")
        other = _operand(other)
        return NotImplemented if other is None else power(self, other)

    def __truediv__(self, other):
        raise TypeError("dimension sizes are integers: use // for floor division")

    __rtruediv__ = __truediv__

    def __neg__(self):
        return neg(self)

    def __pos__(self):
        return self


def _operand(x) -> Dim | None:
    """``x`` as a Dim for an operator, or None for an unsupported operand type."""
    if type(x) is Dim:
        return x
    if type(x) is int or (isinstance(x, _INTS) and not isinstance(x, bool)):
        return const(int(x))
    return None


def coerce_operand(x, where: str) -> Dim:
    """``x`` (Dim, int or NumPy int, not bool) as a Dim, else TypeError naming ``where``.

    >>> coerce_operand(2, "here").value
    2
    """
    d = _operand(x)
    if d is None:
        raise TypeError(f"{where} takes an int or a Dim, got {type(x).__name__} {x!r}")
    return d


# -- construction ----------------------------------------------------------------------

_INTERN: dict[tuple, Dim] = {}
_new_object = object.__new__
_set = object.__setattr__


def _from_terms(terms: tuple) -> Dim:
    """The interned Dim of canonically ordered ``((monomial, coeff), ...)``."""
    found = _INTERN.get(terms)
    if found is not None:
        return found
    _check_size(terms)
    d = _new_object(Dim)
    value = None
    if not terms:
        value = 0
    elif len(terms) == 1 and not terms[0][0]:
        value = terms[0][1]
    _set(d, "_terms", terms)
    _set(d, "_key", tuple((mono_key(m), c) for m, c in terms))
    _set(d, "_hash", hash(value) if value is not None else hash(terms))
    _set(d, "_value", value)
    name = None
    if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
        atom, exp = terms[0][0][0]
        if exp == 1 and atom.op == "sym":
            name = atom.args
    _set(d, "_name", name)
    _set(d, "_symbols", frozenset() if value is not None else None)
    _set(d, "_text", None)
    _set(d, "_bounds", None)
    _INTERN[terms] = d
    return d


def _check_size(terms: tuple) -> None:
    """Refuse a normal form over the limits: too many terms, or an integer too large."""
    if len(terms) > MAX_TERMS:
        raise AnnotationError(
            f"the normal form has {len(terms)} terms; the limit is "
            f"{MAX_TERMS} (MAX_TERMS in {_LIMITS})"
        )
    for mono, coeff in terms:
        if coeff.bit_length() > MAX_BITS:
            what = "constant" if not mono else "coefficient"
            raise AnnotationError(
                f"a {what} of {coeff.bit_length()} bits is too large to "
                f"be a dimension size; the limit is {MAX_BITS} bits "
                f"(MAX_BITS in {_LIMITS})"
            )
        for _, exp in mono:
            if exp.bit_length() > MAX_BITS:
                raise AnnotationError(
                    f"an exponent of {exp.bit_length()} bits is too "
                    f"large; the limit is {MAX_BITS} bits (MAX_BITS in "
                    f"{_LIMITS})"
                )


def _make(acc: dict) -> Dim:
    """The Dim of a ``{monomial: coeff}`` accumulator (zero coefficients dropped)."""
    items = [(m, c) for m, c in acc.items() if c]
    if len(items) > 1:
        items.sort(key=term_order)
    return _from_terms(tuple(items))


_CONSTS: dict[int, Dim] = {}


def const(value: int) -> Dim:
    """The constant Dim ``value`` (an int; negative values are allowed inside expressions).

    >>> const(3).value
    3
    """
    found = _CONSTS.get(value) if type(value) is int else None
    if found is not None:
        return found
    if isinstance(value, bool) or not isinstance(value, _INTS):
        raise TypeError(f"const() takes an int, got {type(value).__name__} {value!r}")
    value = int(value)
    if value.bit_length() > MAX_BITS:
        raise AnnotationError(
            f"a constant of {value.bit_length()} bits is too large to "
            f"be a dimension size; the limit is {MAX_BITS} bits (MAX_BITS "
            f"in {_LIMITS})"
        )
    d = _from_terms((((), value),) if value else ())
    if len(_CONSTS) < _CACHE_LIMIT:
        _CONSTS[value] = d
    return d


def atom_dim(atom: Atom) -> Dim:
    """The Dim made of the single atom ``atom``.

    >>> atom_dim(make_atom("sym", "n")) is symbol_dim("n")
    True
    """
    d = atom.dim
    if d is None:
        d = _from_terms(((((atom, 1),), 1),))
        atom.dim = d
    return d


def symbol_dim(name: str) -> Dim:
    """The bare-symbol Dim ``name`` (the caller validated the name).

    >>> symbol_dim("n").name
    'n'
    """
    return atom_dim(make_atom("sym", name))


# -- polynomial arithmetic ---------------------------------------------------------------

_BIN_CACHE: dict[tuple, Dim] = {}


def _cached(op: str, a: Dim, b: Dim, compute) -> Dim:
    # Keyed by id: every Dim stays alive in _INTERN for the life of the process,
    # so an id is never reused, and hashing ints avoids Dim.__hash__ calls.
    key = (op, id(a), id(b))
    found = _BIN_CACHE.get(key)
    if found is None:
        found = compute(a, b)
        if len(_BIN_CACHE) >= _CACHE_LIMIT:
            _BIN_CACHE.clear()
        _BIN_CACHE[key] = found
    return found


def _add(a: Dim, b: Dim) -> Dim:
    acc = dict(a._terms)
    for mono, coeff in b._terms:
        acc[mono] = acc.get(mono, 0) + coeff
    return _make(acc)


def add(a: Dim, b: Dim) -> Dim:
    """``a + b`` in normal form.

    >>> str(add(symbol_dim("n"), const(1)))
    'n+1'
    """
    if not b._terms:
        return a
    if not a._terms:
        return b
    if a._value is not None and b._value is not None:
        return const(a._value + b._value)
    return _cached("+", a, b, _add)


def add_all(parts) -> Dim:
    """The sum of ``(sign, Dim)`` pairs (``sign`` 1 or -1) in one pass, in normal form.

    Equal to folding :func:`add`, without building the partial sums.

    >>> n = symbol_dim("n")
    >>> add_all([(1, n), (1, const(2)), (-1, n)]).value
    2
    """
    acc: dict = {}
    for sign, d in parts:
        for mono, coeff in d._terms:
            acc[mono] = acc.get(mono, 0) + sign * coeff
        if len(acc) > 4 * MAX_TERMS:  # terms may still cancel, but not without bound
            raise AnnotationError(
                f"the sum has more than {4 * MAX_TERMS} distinct terms; "
                f"the limit is {MAX_TERMS} (MAX_TERMS in {_LIMITS})"
            )
    return _make(acc)


def neg(a: Dim) -> Dim:
    """``-a`` in normal form.

    >>> str(neg(symbol_dim("n")))
    '-n'
    """
    if a._value is not None:
        return const(-a._value)
    return _from_terms(tuple((m, -c) for m, c in a._terms))


def sub(a: Dim, b: Dim) -> Dim:
    """``a - b`` in normal form.

    >>> sub(symbol_dim("n"), symbol_dim("n")).value
    0
    """
    if a is b:
        return _ZERO
    if a._value is not None and b._value is not None:
        return const(a._value - b._value)
    return _cached("-", a, b, lambda x, y: add(x, neg(y)))


def _mono_mul(m1: tuple, m2: tuple) -> tuple:
    if not m1:
        return m2
    if not m2:
        return m1
    acc = dict(m1)
    for atom, exp in m2:
        acc[atom] = acc.get(atom, 0) + exp
    return tuple(sorted(acc.items(), key=factor_order))


def _mul(a: Dim, b: Dim) -> Dim:
    acc: dict = {}
    for m1, c1 in a._terms:
        for m2, c2 in b._terms:
            mono = _mono_mul(m1, m2)
            acc[mono] = acc.get(mono, 0) + c1 * c2
    return _make(acc)


def mul(a: Dim, b: Dim) -> Dim:
    """``a * b`` in normal form (products are expanded).

    >>> n = symbol_dim("n")
    >>> str(mul(add(n, const(1)), add(n, const(1))))
    'n**2+2*n+1'
    """
    if a._value is not None and b._value is not None:
        return const(a._value * b._value)
    if a._value == 1:
        return b
    if b._value == 1:
        return a
    if not a._terms or not b._terms:
        return _ZERO
    if len(a._terms) * len(b._terms) > MAX_TERMS:
        raise AnnotationError(
            f"expanding this product would give up to "
            f"{len(a._terms) * len(b._terms)} terms; the limit is "
            f"{MAX_TERMS} (MAX_TERMS in {_LIMITS})"
        )
    return _cached("*", a, b, _mul)


def _content(d: Dim) -> int:
    """The gcd of the coefficients of ``d``."""
    return math.gcd(*(c for _, c in d._terms))


def _leading_negative(d: Dim) -> bool:
    return d._terms[0][1] < 0


def _split(d: Dim, c: int) -> tuple[Dim, Dim]:
    """``(q, r)`` with ``d == c*q + r`` and every coefficient of ``r`` in ``[0, c)``."""
    quot, rem = {}, {}
    for mono, coeff in d._terms:
        quot[mono], rem[mono] = divmod(coeff, c)
    return _make(quot), _make(rem)


def _scale_down(d: Dim, g: int) -> Dim:
    return d if g == 1 else _from_terms(tuple((m, c // g) for m, c in d._terms))


def _exact_quotient(a: Dim, b: Dim) -> Dim | None:
    """``a / b`` when ``b`` is one term (``2*h``) that divides every term of ``a``
    (``2*h*d + 4*h`` by ``2*h`` is ``d + 2``), else None: then ``a // b`` is that
    quotient for every size (a product of integers divided by one of its factors)."""
    if len(b._terms) != 1:
        return None
    ((bmono, bc),) = b._terms
    if bc == 0:
        return None
    want = dict(bmono)
    acc: dict = {}
    for mono, coeff in a._terms:
        if coeff % bc:
            return None
        have = dict(mono)
        if any(have.get(atom, 0) < exp for atom, exp in want.items()):
            return None
        rest = tuple(
            sorted(
                (
                    (atom, exp - want.get(atom, 0))
                    for atom, exp in have.items()
                    if exp != want.get(atom, 0)
                ),
                key=factor_order,
            )
        )
        acc[rest] = acc.get(rest, 0) + coeff // bc
    return _make(acc)


def _floordiv(a: Dim, b: Dim) -> Dim:
    c = b._value
    if c is None:
        exact = _exact_quotient(a, b)
        if exact is not None:
            return exact
        if _leading_negative(b):  # a//b == (-a)//(-b): keep one sign of divisor
            a, b = neg(a), neg(b)
        return atom_dim(make_atom("//", (a, b)))
    if c < 0:
        a, c = neg(a), -c
    if c == 1:
        return a
    q, r = _split(a, c)  # (c*q + r)//c == q + r//c for integer q
    if r._value is not None:
        return add(q, const(r._value // c))
    g = math.gcd(_content(r), c)  # (g*r')//(g*c') == r'//c'
    return add(q, atom_dim(make_atom("//", (_scale_down(r, g), const(c // g)))))


def _mod(a: Dim, b: Dim) -> Dim:
    c = b._value
    if c is None:
        if _exact_quotient(a, b) is not None:
            return _ZERO  # (b*q) % b
        if _leading_negative(b):  # a % b == -((-a) % (-b))
            return neg(mod(neg(a), neg(b)))
        return atom_dim(make_atom("%", (a, b)))
    if c < 0:
        return neg(mod(neg(a), const(-c)))
    if c == 1:
        return _ZERO
    _, r = _split(a, c)  # (c*q + r) % c == r % c
    if r._value is not None:
        return const(r._value % c)
    g = math.gcd(_content(r), c)  # (g*r') % (g*c') == g*(r' % c')
    return mul(const(g), atom_dim(make_atom("%", (_scale_down(r, g), const(c // g)))))


def _check_divisor(b: Dim, op: str) -> None:
    if b._value == 0:
        raise AnnotationError(f"division by zero: the divisor of {op} is the constant 0")


def floordiv(a: Dim, b: Dim) -> Dim:
    """``a // b`` in normal form (Python floor semantics); a constant zero divisor is an error.

    >>> n = symbol_dim("n")
    >>> floordiv(add(mul(const(2), n), const(1)), const(2)) is n
    True
    """
    _check_divisor(b, "//")
    if a._value is not None and b._value is not None:
        return const(a._value // b._value)
    return _cached("//", a, b, _floordiv)


def mod(a: Dim, b: Dim) -> Dim:
    """``a % b`` in normal form (Python semantics); a constant zero divisor is an error.

    >>> mod(add(mul(const(2), symbol_dim("n")), const(1)), const(2)).value
    1
    """
    _check_divisor(b, "%")
    if a._value is not None and b._value is not None:
        return const(a._value % b._value)
    return _cached("%", a, b, _mod)


def _power(base: Dim, exp: Dim) -> Dim:
    k = exp._value
    if k is None:
        return atom_dim(make_atom("**", (base, exp)))
    if k == 0:
        return _ONE
    if k == 1:
        return base
    if base._value is not None:
        b = base._value
        if abs(b) > 1 and (abs(b).bit_length() - 1) * k > MAX_BITS:
            raise AnnotationError(
                f"{describe_int(b)}**{describe_int(k)} is too large to be "
                f"a dimension size; the limit is {MAX_BITS} bits "
                f"(MAX_BITS in {_LIMITS})"
            )
        return const(b**k)
    terms = base._terms
    if len(terms) == 1:
        mono, coeff = terms[0]
        if abs(coeff) > 1 and (abs(coeff).bit_length() - 1) * k > MAX_BITS:
            raise AnnotationError(
                f"the coefficient {describe_int(coeff)}**{describe_int(k)}"
                f" is too large; the limit is {MAX_BITS} bits (MAX_BITS "
                f"in {_LIMITS})"
            )
        return _from_terms(((tuple((a, e * k) for a, e in mono), coeff**k),))
    if k > _MAX_EXPANDED_POWER or math.comb(k + len(terms) - 1, len(terms) - 1) > MAX_TERMS:
        return atom_dim(make_atom("**", (base, exp)))  # kept opaque: expansion too large
    return _expand_power(terms, k)


def _expand_power(terms: tuple, k: int) -> Dim:
    """``(sum of terms)**k`` by the multinomial theorem: one product per term of the
    result (at most MAX_TERMS of them), where repeated squaring multiplied partial
    sums of up to that many terms pairwise."""
    for _, coeff in terms:
        if abs(coeff) > 1 and (abs(coeff).bit_length() - 1) * k > MAX_BITS:
            raise AnnotationError(
                f"the coefficient {describe_int(coeff)}**{k} is too "
                f"large; the limit is {MAX_BITS} bits (MAX_BITS in "
                f"{_LIMITS})"
            )
    top = math.factorial(k)
    acc: dict = {}
    for chosen in itertools.combinations_with_replacement(range(len(terms)), k):
        counts: dict = {}
        for i in chosen:
            counts[i] = counts.get(i, 0) + 1
        coeff = top
        for count in counts.values():
            coeff //= math.factorial(count)
        factors: dict = {}
        for i, count in counts.items():
            mono, c = terms[i]
            coeff *= c**count
            for atom, e in mono:
                factors[atom] = factors.get(atom, 0) + e * count
        mono = tuple(sorted(factors.items(), key=factor_order))
        acc[mono] = acc.get(mono, 0) + coeff
    return _make(acc)


def power(base: Dim, exp: Dim) -> Dim:
    """``base ** exp`` in normal form; a negative constant exponent is an error.

    >>> str(power(const(2), symbol_dim("n")))
    '2**n'
    """
    if exp._value is not None and exp._value < 0:
        raise AnnotationError(
            f"negative exponent {exp._value}: a dimension size must be "
            f"an integer, and n**{exp._value} is not"
        )
    return _cached("**", base, exp, _power)


def minmax(op: str, args) -> Dim:
    """``min(*args)`` or ``max(*args)`` (``op`` names which) in normal form.

    Nested calls of the same function are flattened, duplicates dropped,
    constants folded, and an argument that differs from another by a constant
    is dropped when it can never be the answer; one remaining argument is the
    result, otherwise the rest are sorted.

    >>> n = symbol_dim("n")
    >>> minmax("min", [n, add(n, const(1))]) is n
    True
    """
    pick = min if op == "min" else max
    flat: list[Dim] = []
    for a in args:
        terms = a._terms
        if (
            len(terms) == 1
            and terms[0][1] == 1
            and len(terms[0][0]) == 1
            and terms[0][0][0][1] == 1
            and terms[0][0][0][0].op == op
        ):
            flat.extend(terms[0][0][0][0].args)
        else:
            flat.append(a)
    # Arguments that differ by a constant share their non-constant terms: of each such
    # group only the one with the extreme constant can be the answer. Grouping by
    # those terms takes one pass (comparing every pair took quadratic time).
    best: dict = {}
    for a in flat:
        terms = a._terms
        if terms and not terms[-1][0]:
            variable, offset = terms[:-1], terms[-1][1]
        else:
            variable, offset = terms, 0
        found = best.get(variable)
        if found is None or pick(found[0], offset) != found[0]:
            best[variable] = (offset, a)
    kept = [a for _, a in best.values()]
    if len(kept) == 1:
        return kept[0]
    if len(kept) > MAX_TERMS:
        raise AnnotationError(
            f"{op}() has {len(kept)} distinct arguments; the limit is "
            f"{MAX_TERMS} (MAX_TERMS in {_LIMITS})"
        )
    kept.sort(key=lambda d: d._key)
    return atom_dim(make_atom(op, tuple(kept)))


# -- evaluation and substitution ---------------------------------------------------------

_REBUILD = {"//": floordiv, "%": mod, "**": power}


def _substitute(d: Dim, mapping: dict) -> Dim:
    total = _ZERO
    for mono, coeff in d._terms:
        term = const(coeff)
        for atom, exp in mono:
            if atom.op == "sym":
                factor = mapping.get(atom.args)
                if factor is None:
                    factor = atom_dim(atom)
            else:
                args = tuple(
                    _substitute(a, mapping) if not mapping.keys().isdisjoint(a.free_symbols) else a
                    for a in atom.args
                )
                factor = (
                    minmax(atom.op, args) if atom.op in ("min", "max") else _REBUILD[atom.op](*args)
                )
            term = mul(term, power(factor, const(exp)))
        total = add(total, term)
    return total


_ZERO = const(0)
_ONE = const(1)


def _operator(fn, reflected: bool):
    """A binary operator method of Dim computing ``fn`` (ints and NumPy ints coerced)."""
    if reflected:

        def method(self, other):
            other = _operand(other)
            return NotImplemented if other is None else fn(other, self)
    else:

        def method(self, other):
            other = _operand(other)
            return NotImplemented if other is None else fn(self, other)

    return method


for _name, _fn in (
    ("add", add),
    ("sub", sub),
    ("mul", mul),
    ("floordiv", floordiv),
    ("mod", mod),
    ("pow", power),
):
    if _name != "pow":
        setattr(Dim, f"__{_name}__", _operator(_fn, False))
    setattr(Dim, f"__r{_name}__", _operator(_fn, True))
del _name, _fn
