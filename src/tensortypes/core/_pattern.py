"""Shape patterns: the general form of array shapes (layer 2: core; stdlib and NumPy only).

A :class:`ShapePattern` is a tuple of :class:`DimSpec` entries. It covers both
forms of a shape:

- the graph form of a ``TensorType`` (``fixed`` ints, ``unknown`` None,
  ``rigid`` symbolic sizes), see :meth:`ShapePattern.from_static`;
- the annotation form of jaxtyping's shape strings (pattern variables and
  expressions bound per call, ``_``, ``*name``/``...``, ``#``, ``?``,
  ``name=``), which the annotation layer builds from text.

Both are interned and immutable; ``str`` gives jaxtyping's syntax. The
relation between a pattern and a static shape lives in
:mod:`tensortypes.core.shapes`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import AnnotationError
from ._staticshape import normalize_static_shape
from .dims import Dim, as_dim

__all__ = ["DimSpec", "ShapePattern", "KINDS"]

KINDS = ("fixed", "unknown", "rigid", "var", "anon")

_SPECS: dict[tuple, DimSpec] = {}
_PATTERNS: dict[tuple, ShapePattern] = {}
_FAST_EXPR = (int, str, Dim, type(None))


def _flag(value, name: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"DimSpec {name} must be a bool, got {value!r}")
    return value


def _canonical(kind, expr, broadcast, variadic, path, doc) -> tuple:
    """Validate one entry and return its canonical key (AnnotationError/TypeError if bad)."""
    if kind not in KINDS:
        raise AnnotationError(
            f"unknown dimension kind {kind!r}; expected one of {', '.join(KINDS)}"
        )
    broadcast, variadic, path = (
        _flag(broadcast, "broadcast"),
        _flag(variadic, "variadic"),
        _flag(path, "path"),
    )
    if doc is not None and (not isinstance(doc, str) or not doc.isidentifier()):
        raise AnnotationError(
            f"a dimension's documentation name must be an identifier, got {doc!r}"
        )
    if kind in ("unknown", "anon"):
        if expr is not None:
            raise AnnotationError(f"a {kind!r} dimension has no expression, got {expr!r}")
    elif kind == "fixed":
        value = expr.value if type(expr) is Dim else expr
        if type(expr) is str:
            value = as_dim(expr).value
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise AnnotationError(f"a fixed dimension is an int >= 0, got {expr!r}")
        expr = int(value)
    else:
        try:
            expr = as_dim(expr)
        except TypeError as error:
            raise AnnotationError(f"a {kind!r} dimension needs an expression: {error}") from None
        if expr.value is not None:  # a constant expression is a fixed size
            if expr.value < 0:
                raise AnnotationError(f"dimension size {expr.value} is negative")
            kind, expr = "fixed", expr.value
    if kind in ("unknown", "rigid") and (broadcast or variadic or path or doc is not None):
        raise AnnotationError(f"a {kind!r} (graph) dimension takes no modifiers")
    if variadic and not (
        kind == "anon" or (kind == "var" and type(expr) is Dim and expr.is_symbol)
    ):
        raise AnnotationError(
            f"only a name or '_' can match several axes (*name); got {kind} {expr}"
        )
    if path and kind != "var":
        raise AnnotationError("only a named dimension can be path-dependent (?name)")
    return (kind, expr, broadcast, variadic, path, doc)


class DimSpec:
    """One entry of a :class:`ShapePattern` (interned, immutable).

    ``kind``: ``"fixed"`` (``expr`` an int), ``"unknown"`` (graph None),
    ``"rigid"`` (``expr`` a graph-wide symbolic size), ``"var"`` (``expr`` a
    pattern variable or expression, bound per call) or ``"anon"`` (``_``).
    Modifiers: ``broadcast`` (``#``: size 1 also matches), ``variadic``
    (``*name``, or ``...`` when anonymous), ``path`` (``?``: may vary inside a
    PyTree), ``doc`` (the ``name=`` documentation prefix). A constant
    expression makes a ``fixed`` entry.

    >>> str(DimSpec("var", "n", broadcast=True))
    '#n'
    """

    __slots__ = ("kind", "expr", "broadcast", "variadic", "path", "doc", "__weakref__")
    broadcast: Any
    doc: Any
    expr: Any
    kind: Any
    path: Any
    variadic: Any

    def __new__(
        cls,
        kind: str,
        expr=None,
        *,
        broadcast: bool = False,
        variadic: bool = False,
        path: bool = False,
        doc: str | None = None,
    ):
        raw = (kind, expr, broadcast, variadic, path, doc)
        if type(expr) in _FAST_EXPR:
            found = _SPECS.get(raw)
            if found is not None:
                return found
        key = _canonical(*raw)
        found = _SPECS.get(key)
        if found is None:
            found = object.__new__(cls)
            for name, value in zip(cls.__slots__, key):
                object.__setattr__(found, name, value)
            _SPECS[key] = found
        if type(expr) in _FAST_EXPR and type(kind) is str:
            _SPECS[raw] = found
        return found

    def __init_subclass__(cls, **kwargs):
        raise TypeError("DimSpec is final and cannot be subclassed")

    def __setattr__(self, name, value):
        raise AttributeError("DimSpec is immutable")

    def __reduce__(self):
        return (_spec, (self.kind, self.expr, self.broadcast, self.variadic, self.path, self.doc))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    @classmethod
    def from_static(cls, entry) -> DimSpec:
        """The graph-form entry for a normalised static-shape entry (int, None or Dim).

        >>> DimSpec.from_static(None).kind
        'unknown'
        """
        if entry is None:
            return cls("unknown")
        if type(entry) is int:
            return cls("fixed", entry)
        return cls("rigid", entry)

    def __str__(self) -> str:
        if self.kind == "anon" and self.variadic and not (self.broadcast or self.doc):
            return "..."
        prefix = (
            ("*" if self.variadic else "")
            + ("#" if self.broadcast else "")
            + ("?" if self.path else "")
            + (f"{self.doc}=" if self.doc else "")
        )
        kind = self.kind
        if kind == "unknown":
            body = "?"
        elif kind == "anon":
            body = "_"
        else:
            body = str(self.expr)
        return prefix + body

    def __repr__(self) -> str:
        parts = [repr(self.kind)]
        if self.expr is not None:
            parts.append(repr(self.expr))
        for name in ("broadcast", "variadic", "path"):
            if getattr(self, name):
                parts.append(f"{name}=True")
        if self.doc is not None:
            parts.append(f"doc={self.doc!r}")
        return f"DimSpec({', '.join(parts)})"


def _spec(kind, expr, broadcast, variadic, path, doc) -> DimSpec:
    return DimSpec(kind, expr, broadcast=broadcast, variadic=variadic, path=path, doc=doc)


class ShapePattern:
    """A shape as a tuple of :class:`DimSpec` with at most one variadic entry (interned).

    ``str`` is jaxtyping's shape syntax (``"b c"``, ``"*batch 3"``, ``"... c"``,
    ``"#n"``; ``""`` for a scalar).

    >>> p = ShapePattern([DimSpec("var", "b"), DimSpec("fixed", 3)])
    >>> str(p), len(p)
    ('b 3', 2)
    """

    __slots__ = ("specs", "variadic_index", "__weakref__")
    specs: Any
    variadic_index: Any

    def __new__(cls, specs=()):
        if type(specs) is not tuple:
            if isinstance(specs, (str, bytes)) or not hasattr(specs, "__iter__"):
                raise TypeError(
                    f"ShapePattern takes an iterable of DimSpec, got {type(specs).__name__}"
                )
            specs = tuple(specs)
        found = _PATTERNS.get(specs)
        if found is not None:
            return found
        variadic_index = None
        for index, spec in enumerate(specs):
            if type(spec) is not DimSpec:
                raise TypeError(
                    f"ShapePattern entry {index} is {type(spec).__name__} {spec!r}, not a DimSpec"
                )
            if spec.variadic:
                if variadic_index is not None:
                    raise AnnotationError(
                        f"at most one entry may match several axes; "
                        f"entries {variadic_index} ({specs[variadic_index]})"
                        f" and {index} ({spec}) both do"
                    )
                variadic_index = index
        pattern = object.__new__(cls)
        object.__setattr__(pattern, "specs", specs)
        object.__setattr__(pattern, "variadic_index", variadic_index)
        _PATTERNS[specs] = pattern
        return pattern

    def __init_subclass__(cls, **kwargs):
        raise TypeError("ShapePattern is final and cannot be subclassed")

    def __setattr__(self, name, value):
        raise AttributeError("ShapePattern is immutable")

    def __reduce__(self):
        return (ShapePattern, (self.specs,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    @classmethod
    def from_static(cls, shape) -> ShapePattern:
        """The graph form of a static shape: fixed, unknown and rigid entries.

        >>> str(ShapePattern.from_static((2, None, "n")))
        '2 ? n'
        """
        return cls(tuple(DimSpec.from_static(x) for x in normalize_static_shape(shape)))

    @property
    def is_static(self) -> bool:
        """Whether this is a graph-form pattern (fixed, unknown and rigid entries only)."""
        return all(s.kind in ("fixed", "unknown", "rigid") for s in self.specs)

    def to_static(self) -> tuple:
        """The static shape of a graph-form pattern; ValueError for an annotation pattern.

        >>> ShapePattern.from_static((2, None)).to_static()
        (2, None)
        """
        if not self.is_static:
            raise ValueError(
                f"shape pattern {str(self)!r} has pattern entries; only fixed, "
                f"unknown and rigid entries form a static shape"
            )
        return tuple(None if s.kind == "unknown" else s.expr for s in self.specs)

    @property
    def min_rank(self) -> int:
        """The fewest axes a matching shape can have."""
        return len(self.specs) - (self.variadic_index is not None)

    @property
    def rank(self) -> int | None:
        """The number of axes, or None when a variadic entry makes it open."""
        return None if self.variadic_index is not None else len(self.specs)

    def __len__(self) -> int:
        return len(self.specs)

    def __iter__(self):
        return iter(self.specs)

    def __getitem__(self, index):
        return self.specs[index]

    def __str__(self) -> str:
        return " ".join(str(s) for s in self.specs)

    def __repr__(self) -> str:
        return f"ShapePattern({str(self)!r})"
