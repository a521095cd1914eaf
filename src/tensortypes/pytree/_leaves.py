"""Leaf checks: one leaf type compiled into a test that binds sizes (layer 5, ``pytree``).

``compile_leaf(t)`` turns the lattice type of a ``PyTree``'s leaf annotation
into a :class:`LeafCheck` with

- ``match(value, bindings) -> bool``: the fast test. Array sizes bind in
  ``bindings`` (the call's scope, an ``annotate._scope.Bindings``; ``?name``
  sizes under its ``treepath``); on failure ``bindings`` is left as it was;
- ``explain(value, bindings) -> str | None``: why it fails (None: it fits;
  ``bindings`` unchanged either way);
- ``is_leaf``: None, or a predicate saying which subtrees are instances of the
  leaf type and therefore leaves not to flatten further (jaxtyping's rule for
  ``PyTree[eqx.Module]``). Arrays, numbers and strings are leaves anyway, so
  they need none, and ``Any`` never stops flattening.

Arrays go through ``annotate``'s compiled matchers (the same code ``isinstance``
runs); unions try their members in order and keep the first that fits;
tuples, lists and dicts holding arrays check each element; a nested ``PyTree``
runs its own check; every other type is ``types.is_instance``, Python's
run-time meaning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortypes.annotate._compile import has_arrays, matcher_for, scope_aware, type_parts
from tensortypes.core.words import annotation_text
from tensortypes.graph.type import Type
from tensortypes.types import (
    ANY,
    BOOL,
    COMPLEX,
    FLOAT,
    INT,
    NONE,
    NUMBER,
    STR,
    AnnotatedType,
    ArrayType,
    DictType,
    ListType,
    NamedTupleType,
    NewTypeType,
    OptionalType,
    TupleType,
    UnionType,
    VarTupleType,
    explain,
    is_instance,
)

__all__ = ["LeafCheck", "compile_leaf", "has_path_dims", "contains"]

_NEVER_NODES = frozenset({ANY, INT, FLOAT, COMPLEX, BOOL, STR, NUMBER})
_CACHE: dict[Any, LeafCheck] = {}


class LeafCheck:
    """The compiled check of one leaf type (see the module docstring)."""

    __slots__ = ("type", "match", "explain", "is_leaf")

    def __init__(self, t: Any, match: Callable, why: Callable, is_leaf: Callable | None):
        self.type = t
        self.match = match
        self.explain = why
        self.is_leaf = is_leaf

    def __repr__(self) -> str:
        return f"LeafCheck({self.type})"


def contains(t: Any, test: Callable[[Any], bool]) -> bool:
    """Whether ``t`` or a type inside it passes ``test``."""
    return test(t) or any(contains(p, test) for p in type_parts(t))


def has_path_dims(t: Any) -> bool:
    """Whether ``t`` holds an array with a path-dependent size (``?name``) that is not
    owned by a structured ``PyTree`` inside it (whose leaves those sizes follow)."""
    if type(t) is ArrayType:
        return t.shape is not None and any(s.path for s in t.shape.specs)
    if _is_pytree(t) and t.spec is not None:
        return False
    return any(has_path_dims(p) for p in type_parts(t))


def _is_pytree(t: Any) -> bool:
    # ``lattice.PyTreeType`` says so with a class attribute (it imports this module,
    # so this one cannot import it back).
    return getattr(type(t), "is_pytree_type", False) is True


def compile_leaf(t: Any, matchers: dict | None = None) -> LeafCheck:
    """The :class:`LeafCheck` of the lattice type ``t``.

    ``matchers`` maps array types to the compiled matchers of the annotations
    they came from (``annotate.annotation_matchers``), which keep what the lattice
    type leaves out (``{...}`` sizes). Without it, checks are cached per type.

    >>> import numpy as np
    >>> from tensortypes.annotate._scope import Bindings
    >>> from tensortypes.core.shapes import DimSpec, ShapePattern
    >>> c = compile_leaf(ArrayType("numpy", None, ShapePattern([DimSpec("var", "n")])))
    >>> b = Bindings(); c.match(np.zeros(3), b), b.sizes
    (True, {'n': 3})
    """
    if not isinstance(t, Type):
        raise TypeError(f"compile_leaf takes a lattice type, got {t!r}")
    if matchers:
        return _compile(t, matchers)
    found = _CACHE.get(t)
    if found is None:
        found = _compile(t, None)
        if len(_CACHE) < 4096:
            _CACHE[t] = found
    return found


def _compile(t: Any, matchers: dict | None) -> LeafCheck:
    cls = type(t)
    if t is ANY:
        return LeafCheck(t, lambda v, b: True, lambda v, b: None, None)
    if cls is ArrayType:
        return _array(t, matchers)
    if cls is UnionType or cls is OptionalType:
        return _union(t, matchers)
    if scope_aware(t):  # a nested PyTree: it checks its own leaves in the scope
        return LeafCheck(t, t.check, lambda v, b: t.explain(v, b, None), lambda v: t.check(v, None))
    if cls is AnnotatedType:
        inner = compile_leaf(t.inner, matchers)
        return LeafCheck(t, inner.match, inner.explain, inner.is_leaf)
    if cls is NewTypeType:
        inner = compile_leaf(t.supertype, matchers)
        return LeafCheck(t, inner.match, inner.explain, inner.is_leaf)
    if cls in _CONTAINERS and has_arrays(t):
        return _container(t, matchers)
    return _plain(t)


def _leaf_predicate(t: Any) -> Callable | None:
    if t in _NEVER_NODES:
        return None
    if t is NONE:
        return lambda v: v is None
    return lambda v: is_instance(v, t)


def _plain(t: Any) -> LeafCheck:
    def why(value, b):
        if is_instance(value, t):
            return None
        # The caller names the leaf, its value and the type; keep only what is
        # deeper inside the leaf ("at [1]: expected int, got str 'x'").
        detail = explain(value, t) or ""
        inner = detail.partition(": at ")[2]
        return "at " + inner if inner else ""

    return LeafCheck(t, lambda v, b: is_instance(v, t), why, _leaf_predicate(t))


def _array(t: ArrayType, matchers: dict | None) -> LeafCheck:
    matcher = matcher_for(t, matchers)
    return LeafCheck(t, matcher.match, matcher.explain, None)


def _union(t: Any, matchers: dict | None) -> LeafCheck:
    members = tuple(compile_leaf(m, matchers) for m in t.members)

    def match(value, b):
        for m in members:
            if m.match(value, b):
                return True
        return False

    def why(value, b):
        reasons = []
        for m in members:
            reason = m.explain(value, b)
            if reason is None:
                return None
            reasons.append(f"{m.type}: {reason}")
        return f"matches no member of {annotation_text(t)} ({'; '.join(reasons)})"

    preds = [m.is_leaf for m in members if m.is_leaf is not None]
    is_leaf = (
        None if not preds else (preds[0] if len(preds) == 1 else lambda v: any(p(v) for p in preds))
    )
    return LeafCheck(t, match, why, is_leaf)


# -- containers holding arrays: every element binds in one trial copy --------------------


def _container(t: Any, matchers: dict | None) -> LeafCheck:
    cls = type(t)
    if cls is TupleType or cls is NamedTupleType:
        checks = tuple(compile_leaf(e, matchers) for e in t.elements)

        def parts(value):
            if not isinstance(value, tuple) or len(value) != len(checks):
                return None
            if cls is NamedTupleType and t.cls is not None and not isinstance(value, t.cls):
                return None
            return [(f"[{i}]", x, c) for i, (x, c) in enumerate(zip(value, checks))]
    elif cls is DictType:
        check = compile_leaf(t.value, matchers)

        def parts(value):
            if not isinstance(value, dict) or not all(is_instance(k, t.key) for k in value):
                return None
            return [(f"[{k!r}]", x, check) for k, x in value.items()]
    else:
        check = compile_leaf(t.element, matchers)
        want = list if cls is ListType else tuple

        def parts(value):
            if not isinstance(value, want):
                return None
            return [(f"[{i}]", x, check) for i, x in enumerate(value)]

    def match(value, b):
        found = parts(value)
        if found is None:
            return False
        trial = b.copy()
        if all(c.match(x, trial) for _, x, c in found):
            b.adopt(trial)
            return True
        return False

    def why(value, b):
        found = parts(value)
        if found is None:
            detail = (explain(value, t) or "").partition(": at ")[2]
            return "at " + detail if detail else ""
        trial = b.copy()
        for where, x, c in found:
            reason = c.explain(x, trial)
            if reason is not None:
                return f"at {where}: {reason}" if reason else f"at {where}"
            c.match(x, trial)
        return None

    return LeafCheck(t, match, why, _leaf_predicate(t))


_CONTAINERS = frozenset({TupleType, NamedTupleType, DictType, ListType, VarTupleType})
