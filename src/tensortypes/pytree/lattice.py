"""``PyTreeType``: the lattice type of ``PyTree[Leaf, "T"]``, and its check (layer 5, ``pytree``).

A ``graph.Type`` outside the type language's tables (it lives above them, as
the annotations do). Its values are the trees whose leaves are values of the
leaf type; ``is_super`` relates it to other types, tri-state; ``filter`` and
``is_valid_value`` check a value in the current dimension scope.

The interface the runtime checker uses (kept stable on purpose):

- ``t.check(value, bindings) -> bool``: the fast answer. ``bindings`` is the
  call's ``annotate._scope.Bindings`` (None: check the value alone). On success
  it gains the structure names (key ``"structure T"``, see ``_spec``) and the
  leaves' sizes (a ``?name`` size of leaf ``i`` under the tree path
  ``"(leaf i of T) "``); on failure it is left as it was. A composite
  (``"S T"``, ``"... T"``, ``"T ..."``) with a name not bound yet raises
  ``AnnotationError`` saying which (the annotation cannot be checked there: jaxtyping's
  class for it) (checked alone, with ``bindings`` None, it
  simply fails: nothing can be bound there).
- ``None`` passes every structured annotation (``PyTree[..., "T"]``, composites)
  and binds nothing, as in jaxtyping (``x: Optional[PyTree[..., "T"]] = None`` is
  an absent tree, not one of structure ``None``).
- ``t.explain(value, bindings, label) -> str | None``: the slow path: None when
  ``check`` would pass (``bindings`` then extended the same way), else one
  line naming the leaf by path (``x['params'][3].weight``), the expected leaf
  type and the reason.
- ``t.is_valid_value(value)`` is ``t.check(value, annotate._scope.current())``,
  so any checker that sets the call's scope current and falls back on
  ``is_valid_value`` for Types it does not know checks PyTrees correctly.

Flattening uses the backend in use (``flatten``); instances of the leaf type
are leaves (``_leaves``).
"""

from __future__ import annotations

from functools import reduce
from typing import Any

from tensortypes.annotate._compile import annotation_matchers, has_arrays
from tensortypes.annotate._scope import Bindings, current
from tensortypes.core.words import annotation_text, value_text
from tensortypes.errors import AnnotationError, TypeCheckError, describe_raised, raised_by_value
from tensortypes.graph.type import Type
from tensortypes.pytree._leaves import compile_leaf, has_path_dims
from tensortypes.pytree._spec import StructureSpec, parse_structure
from tensortypes.pytree.backends import get_backend
from tensortypes.pytree.paths import keystr
from tensortypes.types import (
    ANY,
    NONE,
    DictType,
    ListType,
    NamedTupleType,
    OptionalType,
    TupleType,
    UnionType,
    VarTupleType,
    is_subtype,
)
from tensortypes.types.classrules import all_of

__all__ = ["PyTreeType", "resolve_bindings"]

_MISSING = object()
_INTERNED: dict[tuple, PyTreeType] = {}


class PyTreeType(Type):
    """Trees whose leaves are values of ``leaf``, with an optional structure string.

    >>> from tensortypes.types import INT
    >>> t = PyTreeType(INT, "T")
    >>> t, t.is_valid_value({"a": (1, 2)}), t.is_valid_value([1, "x"])
    (PyTree[int, 'T'], True, False)
    >>> t is PyTreeType(INT, "T")
    True
    """

    __slots__ = ("leaf", "spec", "leaf_check", "path_dims", "binds", "_prefixes", "_annotation")
    _prefixes: Any
    binds: Any
    leaf: Any
    leaf_check: Any
    path_dims: Any
    spec: Any
    is_pytree_type = True  # how ``_leaves`` recognises a nested tree

    def __new__(cls, leaf: Any, structure: str | None = None, annotation: Any = None):
        # The lattice type is the key, unless the annotation has ``{...}`` sizes,
        # which only its own matchers check: then the annotation is part of it.
        matchers = None if annotation is None else annotation_matchers(annotation)
        templated = matchers is not None and any(m.templated for m in matchers.values())
        key = (leaf, structure, annotation if templated else None)
        found = _INTERNED.get(key)
        if found is not None:
            return found
        if not isinstance(leaf, Type):
            raise TypeError(f"PyTreeType takes a lattice type as its leaf, got {leaf!r}")
        self = object.__new__(cls)
        set_ = object.__setattr__
        set_(self, "leaf", leaf)
        set_(self, "spec", None if structure is None else parse_structure(structure))
        set_(self, "leaf_check", compile_leaf(leaf, matchers))
        set_(self, "path_dims", has_path_dims(leaf))
        # Whether leaf checks may touch the scope (arrays, nested trees): only then
        # does a check snapshot the bindings to restore them on failure.
        set_(self, "binds", has_arrays(leaf))
        set_(self, "_prefixes", [])
        set_(self, "_annotation", annotation if templated else None)
        return _INTERNED.setdefault(key, self)

    def __init__(self, leaf: Any, structure: str | None = None, annotation: Any = None) -> None:
        """Nothing to do: ``__new__`` builds and interns."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("PyTreeType is immutable")

    def __reduce__(self):
        return (
            PyTreeType,
            (self.leaf, None if self.spec is None else self.spec.text, self._annotation),
        )

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        return self

    def __repr__(self) -> str:
        if self.spec is None:
            return f"PyTree[{self.leaf}]"
        return f"PyTree[{self.leaf}, {self.spec.text!r}]"

    __str__ = __repr__

    def message_str(self) -> str:
        """This type in an error message, its leaf as ``core.words`` writes it:
        ``PyTree[Float[np.ndarray, 'n'], 'T']``."""
        leaf = annotation_text(self.leaf)
        return f"PyTree[{leaf}]" if self.spec is None else f"PyTree[{leaf}, {self.spec.text!r}]"

    def contained(self) -> tuple:
        return (self.leaf,)

    # -- graph.Type contract ----------------------------------------------------------
    def filter(self, data, strict=False, allow_downcast=None):
        """``data`` if it is such a tree (in the current scope), else ``TypeCheckError``."""
        try:
            reason = self.explain(data, current(), None)
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if not raised_by_value(error):
                raise
            raise TypeCheckError(
                f"expected {self.message_str()}: checking the value raised {describe_raised(error)}"
            ) from error
        if reason is not None:
            raise TypeCheckError(f"expected {self.message_str()}: {reason}")
        return data

    def is_valid_value(self, data, strict=True) -> bool:
        try:
            return self.check(data, current())
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if not raised_by_value(error):
                raise
            return False

    def is_super(self, otype) -> bool | None:
        """Whether every value of ``otype`` is such a tree (structure names as pattern
        variables: some binding fits; a composite cannot be told)."""
        if self.spec is not None and self.spec.mode != "name":
            return None
        return _tree_of(otype, self.leaf)

    # -- the check --------------------------------------------------------------------
    def _structure(self, value: Any):
        backend = get_backend()
        return backend, backend.flatten(value, self.leaf_check.is_leaf)

    def _prefixes_for(self, n: int) -> list[str]:
        """The tree paths of leaves ``0..n-1``: their ``?name`` sizes are bound under them.

        Grown by building a new list and swapping it in, so threads never see one
        half built."""
        prefixes = self._prefixes
        if len(prefixes) < n:
            text = self.spec.text
            prefixes = prefixes + [f"(leaf {i} of {text}) " for i in range(len(prefixes), n)]
            object.__setattr__(self, "_prefixes", prefixes)
        return prefixes

    def check(self, value: Any, bindings: Bindings | None) -> bool:
        """The fast answer (see the module docstring)."""
        if value is None and self.spec is not None:
            return True  # None passes a structured tree and binds nothing, as in jaxtyping
        backend, (leaves, structure) = self._structure(value)
        if bindings is None and not self.binds and self.spec is None:
            # Nothing to bind and no one to share it with: the leaves alone decide.
            match = self.leaf_check.match
            return all(match(leaf, None) for leaf in leaves)
        b = Bindings() if bindings is None else resolve_bindings(bindings)
        spec = self.spec
        if (
            spec is not None
            and _structure_reason(self, spec, structure, b, backend, bindings is None) is not None
        ):
            return False
        saved = _snapshot(b) if self.binds else None
        label, treepath = b.label, b.treepath
        match = self.leaf_check.match
        ok = True
        try:
            if self.path_dims:
                for leaf, prefix in zip(leaves, self._prefixes_for(len(leaves))):
                    b.treepath = prefix
                    if not match(leaf, b):
                        ok = False
                        break
            else:
                for leaf in leaves:
                    if not match(leaf, b):
                        ok = False
                        break
        except BaseException:
            _restore(b, saved)
            raise
        finally:
            b.label, b.treepath = label, treepath
        if not ok:
            _restore(b, saved)
            return False
        if spec is not None and spec.mode == "name" and spec.keys[0] not in b.sizes:
            b.bind(spec.keys[0], structure, (label, None, None))
        return True

    def explain(self, value: Any, bindings: Bindings | None, label: str | None) -> str | None:
        """The slow path: why ``value`` fails (None: it fits; see the module docstring)."""
        if value is None and self.spec is not None:
            return None  # as ``check``
        b = Bindings() if bindings is None else resolve_bindings(bindings)
        root = label if label is not None else (b.label or "")
        try:
            backend, (_, structure) = self._structure(value)
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            # A value the flattener cannot take (dict keys that do not sort): the
            # message says so, as the own checker's does, rather than raise it.
            if not raised_by_value(error):
                raise
            return f"checking {root or 'the value'} raised {describe_raised(error)}"
        spec = self.spec
        if spec is not None:
            reason = _structure_reason(
                self, spec, structure, b, backend, bindings is None, root or "the tree"
            )
            if reason is not None:
                return reason
        pairs = backend.flatten_with_path(value, self.leaf_check.is_leaf)
        prefixes = self._prefixes_for(len(pairs)) if self.path_dims else None
        saved = _snapshot(b)
        old_label, treepath = b.label, b.treepath
        check = self.leaf_check
        try:
            for i, (path, leaf) in enumerate(pairs):
                where = root + keystr(path) if root or path else "(the root)"
                b.label = where if root else f"leaf {where}"
                if prefixes is not None:
                    b.treepath = prefixes[i]
                reason = check.explain(leaf, b)
                if reason is not None:
                    _restore(b, saved)
                    head = (
                        f"leaf {where} is {value_text(leaf)}, expected {annotation_text(self.leaf)}"
                    )
                    return f"{head}: {reason}" if reason else head
                check.match(leaf, b)
        except BaseException:
            _restore(b, saved)
            raise
        finally:
            b.label, b.treepath = old_label, treepath
        if spec is not None and spec.mode == "name" and spec.keys[0] not in b.sizes:
            b.bind(spec.keys[0], structure, (root or None, None, None))
        return None


def resolve_bindings(b: Any) -> Bindings:
    """The bindings behind a scope object: a checker may push a stand-in that fills
    itself in on first use (``resolve``); resolving once saves doing it per access."""
    if type(b) is Bindings:
        return b
    resolve = getattr(type(b), "resolve", None)
    return b if resolve is None else resolve(b)


def _snapshot(b: Bindings) -> tuple:
    # A tuple of copies, not ``b.copy()``: this runs on every check of a tree with
    # arrays, and a new Bindings costs twice as much.
    return (dict(b.sizes), dict(b.where), None if b.broadcast is None else set(b.broadcast))


def _restore(b: Bindings, saved: tuple | None) -> None:
    if saved is not None:
        b.sizes, b.where, b.broadcast = saved


def _bound_by(b: Bindings, key: str) -> str:
    where = b.where.get(key)
    return "an earlier check" if where is None or where[0] is None else str(where[0])


def _structure_reason(
    t: PyTreeType,
    spec: StructureSpec,
    structure: Any,
    b: Bindings,
    backend: Any,
    alone: bool,
    root: str | None = None,
) -> str | None:
    """None when ``structure`` fits ``spec`` under ``b``; else why (message only when
    ``root`` is given). An unbound name of a composite raises ``AnnotationError``, but
    only in a scope: checked ``alone`` (no scope at all) it is a reason."""
    sizes = b.sizes
    if spec.mode == "name":
        bound = sizes.get(spec.keys[0], _MISSING)
        if bound is _MISSING or _same(bound, structure):
            return None
        if root is None:
            return "mismatch"
        return (
            f"{root} has structure {structure}, but {spec.names[0]}={bound} was bound "
            f"by {_bound_by(b, spec.keys[0])}"
        )
    pieces = [sizes.get(key, _MISSING) for key in spec.keys]
    missing = [name for name, p in zip(spec.names, pieces) if p is _MISSING]
    if missing:
        these = ", ".join(missing)
        message = (
            f"cannot check {annotation_text(t)} of {root or b.label or 'a value'}: the structure "
            f"name{'s' if len(missing) > 1 else ''} {these} "
            f"{'are' if len(missing) > 1 else 'is'} not bound yet; a composite "
            f"{spec.text!r} needs each name bound first by a "
            f"PyTree[..., {missing[0]!r}] checked earlier in the call"
        )
        if alone:
            # Outside any scope nothing can be bound, so the value cannot match; a
            # checker probing ``isinstance(None, hint)`` at decoration time (beartype)
            # must get an answer, not an exception.
            return message
        raise AnnotationError(message)
    try:
        named = reduce(backend.compose, pieces)
        ok = (
            _same(named, structure)
            if spec.mode == "compose"
            else backend.matches_suffix(structure, named)
            if spec.mode == "suffix"
            else backend.is_prefix(named, structure)
        )
    except TypeError as error:  # structures of two different backends
        ok = False
        named = f"{pieces} ({error})"
    if ok:
        return None
    if root is None:
        return "mismatch"
    parts = ", ".join(
        f"{n}={p} from {_bound_by(b, k)}" for n, p, k in zip(spec.names, pieces, spec.keys)
    )
    what = {
        "compose": f"the composition {spec.text!r} = {named}",
        "suffix": f"every lower subtree to be {named} ({spec.text!r})",
        "prefix": f"a tree that starts with {named} ({spec.text!r})",
    }[spec.mode]
    return f"{root} has structure {structure}, expected {what}; {parts}"


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 (aux data with an odd __eq__, or two backends)
        return False


def _tree_of(sub: Any, leaf: Any) -> bool | None:
    """Tri-state: is every value of ``sub`` a tree of ``leaf`` values?"""
    if leaf is ANY:
        return True
    if type(sub) is PyTreeType:
        return _tree_of(sub.leaf, leaf)
    direct = is_subtype(sub, leaf)
    if direct is True or sub is NONE:
        return True
    cls = type(sub)
    if cls is TupleType or cls is NamedTupleType:
        return all_of(_tree_of(e, leaf) for e in sub.elements)
    if cls is ListType or cls is VarTupleType:
        return _tree_of(sub.element, leaf)
    if cls is DictType:
        return _tree_of(sub.value, leaf)
    if cls is UnionType or cls is OptionalType:
        return all_of(_tree_of(m, leaf) for m in sub.members)
    return direct
