"""``PyTree`` annotations, jaxtyping's spelling, with or without JAX (layer 5, ``pytree``).

jaxtyping's forms::

    a: PyTree                       # any value (every value is a PyTree)
    b: PyTree[int]                  # every leaf an int
    c: PyTree[Float[Array, "n"], "T"]   # and the structure binds to T
    d: PyTree[int, "S T"]           # S with T at every leaf (both bound before)
    e: PyTree[int, "... T"]         # the lower levels are T
    f: PyTree[int, "T ..."]         # T is a prefix of the tree

``PyTree[...]`` is an interned class (beartype takes only classes as hints):
``PyTree[int, "T"] is PyTree[int, "T"]``, it pickles to itself, prints as
``PyTree[int, 'T']`` and carries jaxtyping's attributes ``leaftype`` and
``structure`` plus ``.type``, its lattice ``PyTreeType`` (``ann_to_type``
accepts it; bare ``PyTree`` is ``Any``). ``isinstance(x, PyTree[...])``
checks in the current dimension scope, binding structure names and sizes
there like array annotations do, and ``__instancecheck_str__`` gives the
reason for beartype and typeguard.

Structure names bind in the call's scope like sizes; sizes written ``?name``
in the leaf annotation may differ between leaves but must agree between the
leaves at the same position of trees with the same structure name. A ``?``
size needs a structure name (``PyTree[Float[Array, "?n"], "T"]``), and a
structured tree of ``?`` sizes inside another structured tree is ambiguous:
both are ``AnnotationError``s when the annotation is written.
"""

from __future__ import annotations

import copyreg
import sys
import types
import typing
from typing import Any

from tensortypes.annotate._scope import current_at
from tensortypes.core.words import annotation_text
from tensortypes.errors import AnnotationError, describe_raised, raised_by_value
from tensortypes.pytree._leaves import contains, has_path_dims
from tensortypes.pytree._spec import parse_structure
from tensortypes.pytree.api import tree_leaves
from tensortypes.pytree.lattice import PyTreeType, resolve_bindings
from tensortypes.types import ANY, ann_to_type

__all__ = ["PyTree"]

_SUBSCRIPTED: dict[Any, type] = {}  # by the subscript as written
_CANONICAL: dict[tuple, type] = {}  # by (leaf annotation, normalised structure)


class _PyTreeMeta(type):
    """Metaclass of ``PyTree``: subscription, ``isinstance``, printing, pickling."""

    # Set on each PyTree[...] class when it is made.
    type: Any
    leaftype: Any
    structure: Any

    def __call__(cls, *args: Any, **kwargs: Any):
        raise TypeError(f"{cls.__name__} is an annotation and cannot be instantiated")

    def __instancecheck__(cls, obj: Any) -> bool:
        refusal = cls.__dict__.get("type")
        if isinstance(refusal, _Refusal) and not any(
            hasattr(leaf, "shape") for leaf in tree_leaves(obj)
        ):
            # No leaf is an array, so none reaches a '?' size (beartype asks about None
            # when it decorates): as in jaxtyping, only a size check is the error.
            return False
        t = cls.type
        if t is ANY:
            return True
        try:
            return t.check(obj, current_at(sys._getframe(1)))
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if raised_by_value(error):
                return False  # a value that raises while being looked at is no instance
            raise

    def __instancecheck_str__(cls, obj: Any) -> str:
        """ "" when ``obj`` passes ``isinstance``; else the reason (beartype, typeguard)."""
        t = cls.type
        if t is ANY:
            return ""
        scope = current_at(sys._getframe(1))
        # A copy: the reason is wanted, not the bindings a passing value would add.
        trial = None if scope is None else resolve_bindings(scope).copy()
        try:
            reason = t.explain(obj, trial, None)
        except Exception as error:  # noqa: BLE001 (the value's own exceptions only)
            if not raised_by_value(error):
                raise
            reason = f"checking the value raised {describe_raised(error)}"
        return "" if reason is None else reason

    def __getitem__(cls, item: Any) -> type:
        if cls is not PyTree:
            raise AnnotationError(f"{cls.__name__} is already subscripted")
        try:
            found = _SUBSCRIPTED.get(item)
        except TypeError:  # an unhashable leaf annotation: build without the cache
            return _subscript(item)
        if found is None:
            found = _SUBSCRIPTED.setdefault(item, _subscript(item))
        return found

    def __str__(cls) -> str:
        return cls.__name__

    def __pdoc__(cls, **kwargs: Any) -> Any:
        """The annotation as a ``wadler_lindig`` document, laid out as jaxtyping's
        (called by ``wadler_lindig.pformat``, so that library is there)."""
        import wadler_lindig as wl

        if cls is PyTree:
            return wl.TextDoc("PyTree")
        parts = [wl.pdoc(cls.leaftype, **kwargs)]
        if cls.structure is not None:
            parts.append(wl.pdoc(cls.structure, **kwargs))
        return wl.bracketed(
            begin=wl.TextDoc("PyTree["),
            docs=parts,
            sep=wl.comma,
            end=wl.TextDoc("]"),
            indent=kwargs["indent"],
        )


class PyTree(metaclass=_PyTreeMeta):
    """A PyTree annotation: ``PyTree``, ``PyTree[Leaf]``, ``PyTree[Leaf, "T"]`` (as in jaxtyping).

    >>> isinstance({"a": (1, 2)}, PyTree[int]), isinstance([1, "x"], PyTree[int])
    (True, False)
    >>> PyTree[int, "S T"].type
    PyTree[int, 'S T']
    """

    leaftype: Any = Any
    structure: str | None = None
    type: Any = ANY


# As for the subscripted classes below: ``PyTree | int`` prints as ``PyTree | int``,
# the way ``PyTree`` prints alone (beartype refuses a union member whose repr differs).
PyTree.__module__ = "builtins"
__test__ = {"PyTree": PyTree}  # doctest finds only classes whose module is this one


def _leaf_name(leaf: Any) -> str:
    """The leaf annotation as the user wrote it: ``int``, ``Float[ndarray, 'b'] | None``."""
    if leaf is None or leaf is type(None):
        return "None"
    if isinstance(leaf, type):
        return leaf.__qualname__
    if isinstance(leaf, types.UnionType) or typing.get_origin(leaf) is typing.Union:
        # Optional[X] too: jaxtyping prints what was written, None | X.
        return " | ".join(_leaf_name(a) for a in typing.get_args(leaf))
    return repr(leaf).replace("typing.", "").replace("collections.abc.", "")


def _subscript(item: Any) -> type:
    if isinstance(item, tuple):
        if len(item) != 2:
            raise AnnotationError(
                f"PyTree[...] takes a leaf type, or a leaf type and a structure string "
                f"(PyTree[int, 'T']); got {len(item)} arguments"
            )
        leaf, text = item
        spec = parse_structure(text)
    else:
        leaf, spec = item, None
    refusal = None
    try:
        leaf_type = ann_to_type(leaf)
    except (AnnotationError, TypeError) as error:
        if not getattr(error, "deferred", False):
            raise AnnotationError(
                f"PyTree[{annotation_text(leaf)}]: the leaf type cannot be checked: {error}"
            ) from None
        leaf_type, refusal = ANY, str(error)
    if refusal is None and spec is None and has_path_dims(leaf_type):
        refusal = (
            f"PyTree[{annotation_text(leaf)}]: a size written '?name' depends on the "
            f"leaf's position in a structure, so it cannot be used except when "
            f"contained with structured PyTree annotations: "
            f"PyTree[{annotation_text(leaf)}, 'T']"
        )
    if (
        refusal is None
        and spec is not None
        and contains(
            leaf_type, lambda u: type(u) is PyTreeType and u.spec is not None and u.path_dims
        )
    ):
        refusal = (
            f"PyTree[{annotation_text(leaf)}, {spec.text!r}]: it is ambiguous which PyTree "
            f"the '?' sizes refer to, the outer structure or the inner one; name the "
            f"structure of only one of the two trees"
        )
    text = None if spec is None else spec.text
    try:  # "T" and " T " are one annotation: one class per leaf and structure
        found = _CANONICAL.get((leaf, text))
    except TypeError:
        found = None
    if found is not None:
        return found
    name = (
        f"PyTree[{_leaf_name(leaf)}]" if spec is None else f"PyTree[{_leaf_name(leaf)}, {text!r}]"
    )
    trivial = leaf_type is ANY and spec is None and refusal is None
    # Module "builtins": ``PyTree[int] | None`` then prints as ``PyTree[int] | None``,
    # the way the class prints alone; beartype refuses hints whose repr differs inside
    # a union (pickling goes through ``_reduce``, not the module).
    namespace = {
        "leaftype": leaf,
        "structure": text,
        "__module__": "builtins",
        "__qualname__": name,
        "__doc__": f"The annotation {name} (as in jaxtyping).",
        "type": _Refusal(refusal)
        if refusal is not None
        else ANY
        if trivial
        else PyTreeType(leaf_type, text, leaf),
    }
    # type.__new__ directly: the metaclass's __call__ refuses instantiation.
    made = type.__new__(_PyTreeMeta, name, (PyTree,), namespace)
    try:
        return _CANONICAL.setdefault((leaf, text), made)
    except TypeError:  # an unhashable leaf annotation
        return made


class _Refusal:
    """The ``type`` of an annotation that cannot be checked (``?`` sizes outside a
    named structure, or under two): reading it raises the ``AnnotationError``. As in
    jaxtyping, the annotation may be written; checking a value against it is the
    error (tensortypes' own checker reads it when it decorates the function)."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        error = AnnotationError(self.message)
        error.deferred = True  # an enclosing PyTree is refused the same way
        raise error


def _rebuild(leaf: Any, structure: str | None) -> type:
    return PyTree[leaf] if structure is None else PyTree[leaf, structure]


def _bare() -> type:
    return PyTree


def _reduce(cls: _PyTreeMeta):
    if cls is PyTree:
        return (_bare, ())
    return (_rebuild, (cls.leaftype, cls.structure))


copyreg.pickle(_PyTreeMeta, _reduce)
