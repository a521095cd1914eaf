"""Shape strings found in source, read into checker shapes (layer 6: ``check``).

An annotation such as ``Float[Tensor, "b n-1 #c *rest"]`` carries a shape
string in jaxtyping's language (as in jaxtyping). It goes through the one parser of
that language in the library, ``tensortypes.annotate.parse_shape``, so the
checker accepts exactly the strings the runtime checker accepts and refuses a
malformed one with the same ``AnnotationError`` and caret. Two readings of the
parsed entries:

- :func:`shape_pattern`: the ``core.shapes.ShapePattern`` that a lattice
  ``types.ArrayType`` carries;
- :func:`parse_shape`: the checker's tuple of axis entries (see
  :mod:`tensortypes.check.symbolic`): a ``core.dims.Dim`` for a fixed size, a
  name or an expression (``n-1``, ``2*n``, ``h*w``, ``n//2``), ``None`` for
  ``_``, ``Bcast`` for ``#``, ``Rest`` for ``*name`` and ``...``.

``name=`` documentation prefixes and ``?`` path markers carry no meaning for a
static reading of one function. jaxtyping's braces (``{self.dim}``, ``{dim}``,
``{self.k}+1``), which the runtime resolves from a call's arguments, are read
as the size the attribute or argument names: ``{self.d_in}`` is the size
``d_in``, the constructor argument of the same name.
"""

from __future__ import annotations

from tensortypes.annotate import Template
from tensortypes.annotate import parse_shape as parse_shape_text
from tensortypes.core import dims
from tensortypes.core.shapes import DimSpec, ShapePattern
from tensortypes.errors import AnnotationError

from .symbolic import Bcast, Rest

__all__ = ["parse_shape", "shape_pattern", "pattern_entries"]

_PATTERNS: dict[str, ShapePattern] = {}
_ENTRIES: dict[ShapePattern, tuple] = {}
_CACHE_LIMIT = 1 << 12
_ANON = DimSpec("anon")


def _brace_name(path: tuple) -> str:
    """The size a brace names: its last attribute (``{self.d_in}`` -> ``d_in``)."""
    last = path[-1]
    if last.isidentifier() and last not in ("min", "max"):
        return last
    return "_".join(path)


def _named(inner: dims.Dim) -> dims.Dim:
    """A brace's expression over sizes named by its paths (``self.d_in`` -> ``d_in``)."""
    return inner.substitute(
        {path: dims.symbol(_brace_name(tuple(path.split(".")))) for path in inner.free_symbols}
    )


def _template_spec(template: Template) -> DimSpec:
    try:
        expr = template.with_braces(_named)
    except AnnotationError:
        return _ANON  # a size the checker cannot name or compute
    kind = "fixed" if expr.is_constant else "var"
    return DimSpec(
        kind,
        expr.value if expr.is_constant else expr,
        broadcast=template.broadcast and kind == "var",
    )


def shape_pattern(text: str) -> ShapePattern:
    """The ``ShapePattern`` of a shape string, braces read as sizes (cached by text).

    A malformed string raises ``AnnotationError`` with a caret under the bad token.

    >>> str(shape_pattern("b {self.d_in} #c"))
    'b d_in #c'
    """
    found = _PATTERNS.get(text)
    if found is not None:
        return found
    parsed = parse_shape_text(text)
    if any(type(d) is Template for d in parsed.dims):
        found = ShapePattern(
            tuple(_template_spec(d) if type(d) is Template else d for d in parsed.dims)
        )
    else:
        found = parsed.pattern
    if len(_PATTERNS) < _CACHE_LIMIT:
        _PATTERNS[text] = found
    return found


def pattern_entries(pattern: ShapePattern) -> tuple:
    """The checker's axis entries for a ``core.shapes.ShapePattern`` (cached).

    >>> pattern_entries(shape_pattern("b #n *r"))
    (Dim('b'), #n, *r)
    """
    found = _ENTRIES.get(pattern)
    if found is not None:
        return found
    out: list = []
    for spec in pattern.specs:
        kind = spec.kind
        if spec.variadic:
            out.append(Rest(spec.expr.name if kind == "var" else None))
        elif kind in ("anon", "unknown"):
            out.append(None)
        else:
            d = dims.as_dim(spec.expr)
            out.append(Bcast(d) if spec.broadcast else d)
    found = tuple(out)
    if len(_ENTRIES) < _CACHE_LIMIT:
        _ENTRIES[pattern] = found
    return found


def parse_shape(text: str) -> tuple:
    """The axis entries of a jaxtyping shape string.

    >>> parse_shape("b n-1 _")
    (Dim('b'), Dim('n-1'), None)
    >>> parse_shape("{self.d_in} 3")
    (Dim('d_in'), Dim('3'))
    """
    return pattern_entries(shape_pattern(text))
