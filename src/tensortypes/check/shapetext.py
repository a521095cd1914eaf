"""Shape strings found in source, read into checker shapes (layer 6: ``check``).

An annotation such as ``Float[Tensor, "b n-1 #c *rest"]`` carries a shape
string in jaxtyping's language (spec 002). The checker reads it as a tuple of
axis entries (see :mod:`tensortypes.check.symbolic`): a ``core.dims.Dim`` for a
fixed size, a name or an expression (``n-1``, ``2*n``, ``h*w``, ``n//2``),
``None`` for ``_``, ``Bcast`` for ``#``, ``Rest`` for ``*name`` and ``...``.
``name=`` documentation prefixes and ``?`` path markers are dropped: a static
reading of one function has no PyTree paths. jaxtyping's f-string sizes
(``{self.dim}``, ``{dim}``) name the attribute or argument they read, so
``{self.d_in}`` is the size ``d_in``.

The text goes through the annotation front end's parser
(``tensortypes.annotate``) when that package provides one, and otherwise
through the core parsers: ``core.dims.parse`` for every size expression and
``core.shapes.DimSpec``/``ShapePattern`` for the entries, so the two readings
agree on what is valid. A malformed string raises ``AnnotationError`` with a
caret under the bad token.
"""

from __future__ import annotations

import re

from tensortypes.core import dims
from tensortypes.core.shapes import DimSpec, ShapePattern
from tensortypes.errors import AnnotationError

from .symbolic import Bcast, Rest

__all__ = ["parse_shape", "pattern_entries"]

_FSTRING = re.compile(r"\{\s*(?:self\.)?([A-Za-z_][A-Za-z_0-9]*)\s*\}")
_CACHE: dict[str, tuple] = {}


def _annotate_parser():
    """The annotation front end's shape-string parser, when that package has one."""
    try:
        from tensortypes.annotate import parse_shape_string  # type: ignore[attr-defined]
    except ImportError:
        return None
    return parse_shape_string


def _token_spec(token: str, text: str, start: int) -> DimSpec:
    body = token
    variadic = broadcast = path = False
    doc = None
    if body == "...":
        return DimSpec("anon", variadic=True)
    while body[:1] in ("*", "#", "?"):
        flag, body = body[0], body[1:]
        variadic |= flag == "*"
        broadcast |= flag == "#"
        path |= flag == "?"
    if "=" in body:
        doc, _, body = body.partition("=")
        if not doc.isidentifier():
            raise AnnotationError(f"{doc!r} is not a valid documentation name", text,
                                  start, start + len(token))
    if not body:
        raise AnnotationError("empty dimension", text, start, start + len(token))
    if body[0] == "_":  # "_" and "_name": an axis that is not checked
        return DimSpec("anon", variadic=variadic, broadcast=broadcast)
    offset = start + len(token) - len(body)
    try:
        expr = dims.parse(body)
    except AnnotationError as error:
        position = offset + (error.position or 0)
        raise AnnotationError(error.message, text, position,
                              None if error.end is None else offset + error.end) from None
    try:
        return DimSpec("var", expr, broadcast=broadcast, variadic=variadic, path=path,
                       doc=None)
    except AnnotationError as error:
        raise AnnotationError(error.message, text, start, start + len(token)) from None


def _core_pattern(text: str) -> ShapePattern:
    specs = []
    for match in re.finditer(r"\S+", text):
        specs.append(_token_spec(match.group(), text, match.start()))
    try:
        return ShapePattern(specs)
    except AnnotationError as error:
        raise AnnotationError(error.message, text, 0, len(text)) from None


def pattern_entries(pattern: ShapePattern) -> tuple:
    """The checker's axis entries for a ``core.shapes.ShapePattern``.

    >>> pattern_entries(_core_pattern("b #n *r"))
    (Dim('b'), #n, *r)
    """
    out = []
    for spec in pattern.specs:
        kind = spec.kind
        if spec.variadic:
            out.append(Rest(spec.expr.name if kind == "var" else None))
        elif kind in ("anon", "unknown"):
            out.append(None)
        else:
            d = dims.as_dim(spec.expr)
            out.append(Bcast(d) if spec.broadcast else d)
    return tuple(out)


def parse_shape(text: str) -> tuple:
    """The axis entries of a jaxtyping shape string (cached by text).

    >>> parse_shape("b n-1 _")
    (Dim('b'), Dim('n-1'), None)
    >>> parse_shape("{self.d_in} 3")
    (Dim('d_in'), Dim('3'))
    """
    found = _CACHE.get(text)
    if found is not None:
        return found
    cleaned = _FSTRING.sub(lambda m: m.group(1).ljust(len(m.group())), text)
    parser = _annotate_parser()
    pattern = parser(cleaned) if parser is not None else _core_pattern(cleaned)
    if type(pattern) is not ShapePattern:
        pattern = ShapePattern(tuple(pattern))
    found = pattern_entries(pattern)
    _CACHE[text] = found
    return found
