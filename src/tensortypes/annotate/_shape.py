"""The shape strings of array annotations, parsed into core shape patterns (layer 5:
``annotate``).

``parse_shape("*batch c h-1")`` reads jaxtyping's shape language (as in jaxtyping) into a
:class:`ParsedShape`: one entry per space-separated token, each a
``core.shapes.DimSpec`` or, for a size written with f-string braces, a
:class:`Template` kept to be resolved per call. Sizes and expressions go through the
core dimension parser (no ``eval``). Every malformed token raises ``AnnotationError``
with a caret under it.

Tokens: ``4`` (fixed), ``n`` (a name bound per call), ``n-1``/``min(h,w)`` (an
expression), ``_`` (any size), ``...`` (any number of axes), ``{size}``,
``{self.k}+3`` and ``n*{dim-1}`` (each brace a dimension expression over the call's
arguments and their attributes, evaluated per call and substituted as a number).
Modifiers, in any order, at most once each: ``*`` (several axes), ``#`` (size 1 also
matches), ``_`` (documentation only, not checked), ``?`` (may vary inside a PyTree),
``name=`` (the name is documentation; what follows is checked).
"""

from __future__ import annotations

import operator
import re
from typing import Any
from collections.abc import Callable

import numpy as np

from tensortypes.core.dims import Dim, const, parse, parse_braced
from tensortypes.core.limits import MAX_BITS, MAX_DIGITS, MAX_LENGTH, describe_int
from tensortypes.core._dimparse import over_limit
from tensortypes.core.shapes import DimSpec, ShapePattern
from tensortypes.errors import AnnotationError

__all__ = ["ParsedShape", "Template", "parse_shape"]

_TOKENS = re.compile(r"\S+")
_DIGITS = re.compile(r"[0-9]+")
_ANON = DimSpec("anon")
_ELLIPSIS = DimSpec("anon", variadic=True)


class Template:
    """A size with ``{...}`` braces, resolved per call from the call's arguments.

    Each brace holds a dimension expression over the call's arguments and their
    attributes (``{size}``, ``{self.k}``, ``{dim-1}``, ``{a*b}``; no dunder attribute,
    no call, no ``eval``), and is a whole operand of the size around it (``{k}+3``,
    ``n*{k}``): its value is substituted as a number, never pasted in as text, so
    ``"n{k}"`` and ``"{a}{b}"`` are refused when the annotation is made.

    ``dim`` is the size with brace ``i`` as the placeholder symbol ``{i}``; ``braces``
    holds ``(expression, source text)`` per brace, whose symbols are argument names or
    dotted paths (``"self.k"``).

    >>> t = parse_shape("{self.k}+3").dims[0]
    >>> class C: k = 5
    >>> t.resolve({"self": C()})
    (Dim('8'), None)
    """

    __slots__ = ("text", "dim", "braces", "broadcast", "doc")

    def __init__(self, text: str, dim: Dim, braces: tuple, broadcast: bool, doc: str | None):
        self.text = text
        self.dim = dim
        self.braces = braces
        self.broadcast = broadcast
        self.doc = doc

    def resolve(self, arguments: dict[str, Any] | None) -> tuple[Dim | None, str | None]:
        """``(dim, None)``, or ``(None, reason)`` when a brace's value is not a size.

        A name missing from ``arguments`` (or no arguments at all: outside a checked
        call) is an ``AnnotationError``: the annotation cannot mean anything there. A
        value that is no int, an attribute that cannot be read, or sizes that cannot
        be computed (a zero divisor, a negative exponent, a size over
        ``limits.MAX_BITS`` bits) give a reason; a reason never shows a value reached
        through a brace, only its type (or the number, for a number).
        """
        values = {}
        for i, (inner, shown) in enumerate(self.braces):
            env = {}
            for path in inner.free_symbols:
                value, reason = _read(self, path, shown, arguments)
                if reason is not None:
                    return None, reason
                env[path] = value
            try:
                values[f"{{{i}}}"] = inner.evaluate(env)
            except (ArithmeticError, ValueError) as error:
                return None, f"cannot compute {shown}: {error}"
        if len(values) == 1 and self.dim.name is not None:  # the whole size is one brace
            return const(values["{0}"]), None
        try:
            return self.dim.substitute(values), None
        except (AnnotationError, ArithmeticError, ValueError) as error:
            message = error.message if isinstance(error, AnnotationError) else str(error)
            shown = ", ".join(
                f"{b[1]}={describe_int(values[f'{{{i}}}'])}" for i, b in enumerate(self.braces)
            )
            return None, f"cannot compute {self.text} with {shown}: {message}"

    def with_braces(self, replace: Callable[[Dim], Dim]) -> Dim:
        """The size with each brace replaced by ``replace(its expression)`` (for a
        reading that knows no argument values, such as the static checker's).

        >>> t = parse_shape("n*{self.k}").dims[0]
        >>> t.with_braces(lambda inner: inner.substitute({"self.k": 4}))
        Dim('4*n')
        """
        return self.dim.substitute(
            {f"{{{i}}}": replace(inner) for i, (inner, _) in enumerate(self.braces)}
        )

    def __repr__(self) -> str:
        return f"Template({self.text!r})"

    def __str__(self) -> str:
        return ("#" if self.broadcast else "") + (f"{self.doc}=" if self.doc else "") + self.text


def _read(
    template: Template, path: str, shown: str, arguments: dict[str, Any] | None
) -> tuple[int | None, str | None]:
    """The int value of the argument or attribute path ``path`` (``"self.k"``)."""
    if arguments is None:
        raise AnnotationError(
            f"cannot resolve {shown} in shape {template.text!r}: braces "
            f"are read from a checked call's arguments, and there is no "
            f"checked call here"
        )
    names = path.split(".")
    try:
        value = arguments[names[0]]
    except KeyError:
        raise AnnotationError(
            f"cannot resolve {shown} in shape {template.text!r}: the call "
            f"has no argument {names[0]!r} (arguments: "
            f"{', '.join(arguments) or 'none'})"
        ) from None
    for depth, attr in enumerate(names[1:], 1):
        try:
            value = getattr(value, attr)
        except Exception as error:  # noqa: BLE001 (a property may raise anything)
            return None, (
                f"cannot read {shown}: {'.'.join(names[:depth])} gave "
                f"{_type_name(error)} reading .{attr}"
            )
    return _size(value, path, shown)


def _size(value: Any, path: str, shown: str) -> tuple[int | None, str | None]:
    """``value`` as an int size (an int, a NumPy int, anything with ``__index__``)."""
    where = shown if path == shown[1:-1] else f"{path} in {shown}"
    if type(value) is not int:
        if isinstance(value, bool):
            return None, f"{where} is {value} (bool), not an int size"
        try:
            value = int.__index__(operator.index(value))  # an exact int
        except Exception:  # noqa: BLE001 (__index__ may raise anything)
            return None, f"{where} is {_describe(value)}, not an int size"
    if value.bit_length() > MAX_BITS:
        return None, (
            f"{where} is an integer of {value.bit_length()} bits; sizes have at "
            f"most {MAX_BITS} (MAX_BITS in tensortypes.core.limits)"
        )
    return value, None


def _describe(value: Any) -> str:
    """A value's type, and the value itself only for a plain number (never a repr that
    an object defines: it may hold anything, secrets included)."""
    name = _type_name(value)
    if type(value) in (float, complex) or type(value) in _NUMPY_NUMBERS:
        return f"{value!r} ({name})"
    return f"a {name}"


def _type_name(value: Any) -> str:
    name = type.__dict__["__name__"].__get__(type(value))  # not a metaclass's override
    return name if type(name) is str else "object"


_NUMPY_NUMBERS = frozenset({np.float16, np.float32, np.float64, np.complex64, np.complex128})


class ParsedShape:
    """A parsed shape string.

    ``dims``: one ``DimSpec`` or :class:`Template` per token; ``index_variadic``: the
    index of the multiple-axes entry or None; ``dim_str``: the tokens joined by single
    spaces; ``pattern``: the ``ShapePattern`` of the lattice type (a template counts
    as ``_`` there); ``simple``: no expressions or templates (only fixed sizes, names
    and ``_``), the form the generated matchers handle inline.
    """

    __slots__ = ("dims", "index_variadic", "dim_str", "pattern", "simple")

    def __init__(self, dims: tuple, index_variadic: int | None, dim_str: str):
        self.dims = dims
        self.index_variadic = index_variadic
        self.dim_str = dim_str
        self.pattern = ShapePattern(tuple(_ANON if type(d) is Template else d for d in dims))
        self.simple = all(
            type(d) is DimSpec and (d.kind != "var" or d.expr.is_symbol) for d in dims
        )

    def __repr__(self) -> str:
        return f"ParsedShape({self.dim_str!r})"


_PARSED: dict[str, ParsedShape] = {}


def parse_shape(text: str) -> ParsedShape:
    """Parse a shape string of jaxtyping's array annotations; cached by text.

    >>> p = parse_shape("*batch #c=3 h-1")
    >>> [str(d) for d in p.dims], p.index_variadic
    (['*batch', '#c=3', 'h-1'], 0)
    """
    if type(text) is not str:
        raise AnnotationError(
            f"a shape is a string of space-separated axes such as "
            f"'batch channels', got {type(text).__name__} {text!r}"
        )
    found = _PARSED.get(text)
    if found is not None:
        return found
    if len(text) > MAX_LENGTH:
        raise AnnotationError(
            over_limit(f"the shape string has {len(text)} characters", "MAX_LENGTH", MAX_LENGTH),
            text,
            MAX_LENGTH,
            len(text),
        )
    dims: list = []
    tokens: list = []
    index_variadic: int | None = None
    for match in _TOKENS.finditer(text):
        token, start = match.group(), match.start()
        entry = _entry(token, start, text)
        if entry.variadic if type(entry) is DimSpec else False:
            if index_variadic is not None:
                raise AnnotationError(
                    f"at most one entry may match several axes ('*name' or '...'); "
                    f"{tokens[index_variadic]!r} already does",
                    text,
                    start,
                    start + len(token),
                )
            index_variadic = len(dims)
        dims.append(entry)
        tokens.append(token)
    parsed = ParsedShape(tuple(dims), index_variadic, " ".join(tokens))
    if len(_PARSED) < 4096:
        _PARSED[text] = parsed
    return parsed


def _fail(message: str, text: str, start: int, end: int) -> AnnotationError:
    return AnnotationError(message, text, start, end)


def _entry(token: str, start: int, text: str) -> DimSpec | Template:
    """One token as a DimSpec or Template; ``start`` is its offset in ``text``."""
    end = start + len(token)
    comma = token.find(",")
    if comma >= 0 and "(" not in token:
        raise _fail(
            "axes are separated by spaces, not commas", text, start + comma, start + comma + 1
        )
    if "..." in token:
        if token != "...":
            at = start + token.index("...")
            raise _fail(
                f"'...' (any number of axes) stands on its own, got {token!r}", text, at, at + 3
            )
        return _ELLIPSIS
    if len(token) > 1 and token.endswith("#") and "#" not in token[:-1]:
        raise _fail(
            f"a broadcastable axis is written '#{token[:-1]}' (# first), not {token!r}",
            text,
            end - 1,
            end,
        )
    flags = {"#": False, "*": False, "_": False, "?": False}
    doc, i = None, 0
    while i < len(token):
        c = token[i]
        if c in flags:
            if flags[c]:
                raise _fail(
                    f"the modifier {c!r} appears twice in {token!r}", text, start + i, start + i + 1
                )
            flags[c] = True
            i += 1
            continue
        eq = token.find("=", i)
        if eq < 0:
            break
        name = token[i:eq]
        if token.find("=", eq + 1) >= 0:
            at = token.find("=", eq + 1)
            raise _fail("only one 'name=' may document an axis", text, start + at, start + at + 1)
        if doc is not None or not name.isidentifier():
            raise _fail(
                f"the documentation name before '=' must be one identifier, got {name!r}",
                text,
                start + i,
                start + eq + 1,
            )
        doc, i = name, eq + 1
    body, at = token[i:], start + i
    broadcast, variadic, anon, path = flags["#"], flags["*"], flags["_"], flags["?"]
    if not body:
        if anon and broadcast:
            raise _fail(
                f"an axis cannot be both ignored (_) and broadcastable (#): {token!r}",
                text,
                start,
                end,
            )
        if anon or variadic and not broadcast and not path:
            # "*" alone is jaxtyping's anonymous variadic, as "*_" and "...".
            return _spec("anon", None, text, start, end, variadic=variadic, doc=doc)
        raise _fail(f"{token!r} has modifiers but no size or name after them", text, start, end)
    if "{" in body or "}" in body:
        _refuse(token, text, start, end, "braces", variadic=variadic, anon=anon, path=path)
        return _template(body, at, text, broadcast, doc)
    if _DIGITS.fullmatch(body):
        _refuse(token, text, start, end, "a fixed size", variadic=variadic, anon=anon, path=path)
        if len(body) > MAX_DIGITS:
            raise _fail(
                over_limit(f"the size has {len(body)} digits", "MAX_DIGITS", MAX_DIGITS),
                text,
                at,
                end,
            )
        return _spec("fixed", int(body), text, at, end, broadcast=broadcast, doc=doc)
    if body.isidentifier():
        if anon:
            if broadcast:
                raise _fail(
                    f"an axis cannot be both ignored (_) and broadcastable (#): {token!r}",
                    text,
                    start,
                    end,
                )
            # "_name": the name only documents the axis.
            return _spec("anon", None, text, at, end, variadic=variadic, doc=doc or body)
        return _spec(
            "var", body, text, at, end, broadcast=broadcast, variadic=variadic, path=path, doc=doc
        )
    _refuse(token, text, start, end, "an expression", variadic=variadic, anon=anon, path=path)
    try:
        expr = parse(body)
    except AnnotationError as error:
        raise _shifted(error, text, at) from None
    return _spec("var", expr, text, at, end, broadcast=broadcast, doc=doc)


def _refuse(
    token: str,
    text: str,
    start: int,
    end: int,
    what: str,
    *,
    variadic: bool,
    anon: bool,
    path: bool,
) -> None:
    """Modifiers that make no sense on a fixed size, an expression or braces."""
    for flag, modifier, meaning in (
        (variadic, "*", "match several axes"),
        (anon, "_", "be ignored"),
        (path, "?", "vary inside a PyTree"),
    ):
        if flag:
            raise _fail(f"{what} cannot {meaning} ({modifier}): {token!r}", text, start, end)


def _spec(kind: str, expr: Any, text: str, start: int, end: int, **flags: Any) -> DimSpec:
    try:
        return DimSpec(kind, expr, **flags)
    except AnnotationError as error:
        if error.text is not None:
            raise _shifted(error, text, start) from None
        raise _fail(error.message, text, start, end) from None


def _shifted(error: AnnotationError, text: str, offset: int) -> AnnotationError:
    """Move a caret from the token's own text to its place in the whole shape."""
    position = (error.position or 0) + offset
    end = None if error.end is None else error.end + offset
    return AnnotationError(error.message, text, position, end)


def _template(body: str, at: int, text: str, broadcast: bool, doc: str | None) -> Template:
    try:
        dim, braces = parse_braced(body)
    except AnnotationError as error:
        raise _shifted(error, text, at) from None
    return Template(body, dim, braces, broadcast, doc)
