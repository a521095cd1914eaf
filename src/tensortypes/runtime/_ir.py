"""The intermediate form between lattice types and generated check code (layer 6).

A lattice type is lowered to a small tree of :class:`Node`\\ s, each one kind of
test on one value: ``Instance(int)``, ``Each(list, Instance(int))``,
``Or(IsNone(), ...)``, ``Accept(t)`` (``types.check``'s own test, for the rare
kinds), ``Walk(t)`` (the general checker, for arrays inside containers and
unions). An array at the top of a parameter becomes an :class:`ArrayCheck`: a
kind test, a dtype test and a list of shape operations (``("bind", 1, "c")``:
axis 1 binds ``c``; ``("same", 0, "c")``: axis 0 must equal ``c``) in which the
sizes live in local variables.

:class:`Binder` follows which names are bound, maybe bound (behind an
``Optional`` or a ``#`` axis) or not yet bound as parameters are lowered in
order, and says when a signature needs the general checker for everything
(``needs_env``): an expression over a name not bound yet, a ``#*name`` or
``?name`` entry, an array class of the user's, names inside containers.
"""

from __future__ import annotations

from typing import Any

from tensortypes.types import (
    ANY,
    BOOL,
    INT,
    NONE,
    NUMBER,
    STR,
    AnnotatedType,
    ArrayType,
    ClassType,
    DictType,
    EnumClassType,
    FrozenSetType,
    ListType,
    NewTypeType,
    OptionalType,
    SetType,
    TupleType,
    TypeOfType,
    TypeVarType,
    UnionType,
    VarTupleType,
)
from tensortypes.types import COMPLEX, FLOAT
from tensortypes.annotate._compile import has_arrays, scope_aware, type_parts

__all__ = [
    "Node",
    "Always",
    "IsNone",
    "Instance",
    "Subclass",
    "Numeric",
    "Accept",
    "Or",
    "Each",
    "Mapping",
    "Fixed",
    "Walk",
    "ArrayCheck",
    "Binder",
    "lower",
    "has_names",
    "LIBRARY_KINDS",
]

LIBRARY_KINDS = ("numpy", "torch", "jax", "tensorflow", "mlx", "any")


class Node:
    """A test on one value."""

    __slots__ = ()

    def __repr__(self) -> str:
        fields = ", ".join(repr(getattr(self, f)) for f in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Always(Node):
    """Every value passes (``Any``)."""

    __slots__ = ()


class IsNone(Node):
    """``value is None``."""

    __slots__ = ()


class Instance(Node):
    """``isinstance(value, cls)`` (``cls`` a class or a tuple of classes)."""

    __slots__ = ("cls",)

    def __init__(self, cls: Any):
        self.cls = cls


class Subclass(Node):
    """``isinstance(value, type) and issubclass(value, cls)`` (``type[cls]``)."""

    __slots__ = ("cls",)

    def __init__(self, cls: type):
        self.cls = cls


class Numeric(Node):
    """``float`` or ``complex``, widened by ``config.numeric_tower`` at call time."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class Accept(Node):
    """``types.check``'s own boolean test of ``t``."""

    __slots__ = ("t",)

    def __init__(self, t: Any):
        self.t = t


class Or(Node):
    """Any of ``parts`` passes."""

    __slots__ = ("parts",)

    def __init__(self, parts: tuple):
        self.parts = parts


class Each(Node):
    """An instance of ``cls`` whose elements (or one, per config) pass ``element``."""

    __slots__ = ("cls", "element")

    def __init__(self, cls: type, element: Node):
        self.cls = cls
        self.element = element


class Mapping(Node):
    """A dict whose keys pass ``key`` and values pass ``value``."""

    __slots__ = ("key", "value")

    def __init__(self, key: Node, value: Node):
        self.key = key
        self.value = value


class Fixed(Node):
    """A tuple of exactly ``len(elements)`` elements, each passing its node."""

    __slots__ = ("elements",)

    def __init__(self, elements: tuple):
        self.elements = elements


class Walk(Node):
    """The general checker (``_walk.why``) on ``t``, with the call's bindings."""

    __slots__ = ("t",)

    def __init__(self, t: Any):
        self.t = t


class Match(Node):
    """An array type with no named size, as a member of a union: its matcher, no
    bindings (the general checker gives the same answer, dearer)."""

    __slots__ = ("t",)

    def __init__(self, t: Any):
        self.t = t


class ArrayCheck(Node):
    """An array at the top of a parameter, its sizes in local variables.

    ``ops`` are tuples: ``("rank", n)``, ``("min_rank", n)``, ``("shape", tuple)``
    (every axis fixed), ``("fixed", axis, size, broadcast)``, ``("bind"|"same"|"maybe",
    axis, name, broadcast)``, ``("expr", axis, dim, broadcast)``, and for a
    ``*name`` entry ``("vbind"|"vsame"|"vmaybe", start, tail, name)`` (the axes
    from ``start`` to ``tail`` axes before the end). ``optional``: None passes.
    """

    __slots__ = ("t", "ops", "optional")

    def __init__(self, t: ArrayType, ops: list, optional: bool):
        self.t = t
        self.ops = ops
        self.optional = optional


_SEQUENCES = {ListType: list, SetType: set, FrozenSetType: frozenset, VarTupleType: tuple}
_NAMED_KINDS = ("var", "rigid")


def has_names(t: Any) -> bool:
    """Whether checking ``t`` may bind a size (an array with named or ``*name`` axes).

    >>> from tensortypes.core.shapes import ShapePattern
    >>> from tensortypes.types import ListType
    >>> has_names(ArrayType("numpy", None, (2, 3))), has_names(ListType(ArrayType(
    ...     "numpy", None, ShapePattern.from_static(("n",)))))
    (False, True)
    """
    if type(t) is ArrayType:
        return t.shape is not None and any(s.kind in _NAMED_KINDS for s in t.shape.specs)
    if scope_aware(t):
        return True
    if not has_arrays(t):
        return False
    return any(has_names(p) for p in type_parts(t))


def lower(t: Any) -> Node:
    """The test tree of a value of ``t`` (sizes, if any, through the general checker).

    >>> from tensortypes.types import ListType, INT
    >>> lower(ListType(INT))
    Each(<class 'list'>, Instance(<class 'int'>))
    """
    if t is ANY:
        return Always()
    if t is NONE:
        return IsNone()
    if t is INT or t is BOOL or t is STR:
        return Instance(t.py_class)
    if t is FLOAT or t is COMPLEX:
        return Numeric(t.py_class.__name__)
    if t is NUMBER:
        return Instance((int, float, complex))
    cls = type(t)
    if has_arrays(t):
        if (cls is UnionType or cls is OptionalType) and not has_names(t):
            # Each member tried in turn (an array member by its matcher): what the
            # general checker does for such a union, without a walk per call.
            return Or(tuple(_member(m) for m in t.members))
        return Walk(t)
    if cls is ClassType or cls is EnumClassType:
        return Instance(t.cls)
    if cls in _SEQUENCES:
        element = lower(t.element)
        return (
            Instance(_SEQUENCES[cls]) if type(element) is Always else Each(_SEQUENCES[cls], element)
        )
    if cls is DictType:
        key, value = lower(t.key), lower(t.value)
        if type(key) is Always and type(value) is Always:
            return Instance(dict)
        return Mapping(key, value)
    if cls is TupleType:
        return Fixed(tuple(lower(e) for e in t.elements))
    if cls is UnionType or cls is OptionalType:
        return Or(tuple(lower(m) for m in t.members))
    if cls is AnnotatedType:
        return lower(t.inner)
    if cls is NewTypeType:
        return lower(t.supertype)
    if cls is TypeVarType:
        return Always() if t.upper is None else lower(t.upper)
    if cls is TypeOfType:
        element = t.element
        if type(element) is TypeVarType and element.constraints == ():
            # type[T] for T bound to C: the classes below C (below object, unbounded).
            element = element.bound
            if element is None:
                return Subclass(object)
        if type(element) is ClassType:
            return Subclass(element.cls)
    return Accept(t)


def _member(t: Any) -> Node:
    """The test of one member of a union whose members bind no size."""
    return Match(t) if type(t) is ArrayType else lower(t)


class Binder:
    """Lowers the values of one signature in order, tracking which sizes are bound.

    ``state`` maps a name (``"*name"`` for multiple axes) to ``"bound"`` or
    ``"maybe"``; a name not in it is unbound. ``needs_env`` turns True when a
    value needs the general checker with the call's bindings.
    """

    __slots__ = ("state", "needs_env")

    def __init__(self) -> None:
        self.state: dict[str, str] = {}
        self.needs_env = False

    def top(self, t: Any, skippable: bool = False) -> Node:
        """The node of a whole parameter (or return value) of type ``t``; ``skippable``:
        the check may not run (a parameter holding its default is not checked), so the
        sizes it binds are only maybe bound after it."""
        optional = False
        inner = t
        if type(t) is OptionalType and type(t.element) is ArrayType:
            optional, inner = True, t.element
        if type(inner) is ArrayType:
            check = self.array(inner, optional, skippable)
            if check is not None:
                return check
        node = lower(t)
        if has_names(t):
            self.needs_env = True
        return node

    def array(self, t: ArrayType, optional: bool, skippable: bool = False) -> ArrayCheck | None:
        """The local-variable form of an array check, or None if it needs the env."""
        maybe = optional or skippable
        if not isinstance(t.kind, str) or t.kind not in LIBRARY_KINDS:
            return self._give_up()
        ops: list = []
        if t.shape is None:
            return ArrayCheck(t, ops, optional)
        specs = t.shape.specs
        v = t.shape.variadic_index
        if v is None and all(s.kind == "fixed" and not s.broadcast for s in specs):
            ops.append(("shape", tuple(s.expr for s in specs)))
            return ArrayCheck(t, ops, optional)
        ops.append(("rank", len(specs)) if v is None else ("min_rank", len(specs) - 1))
        state = dict(self.state)
        later = []
        for j, spec in enumerate(specs):
            axis = j if v is None or j < v else j - len(specs)
            if spec.path or spec.kind == "rigid":
                return self._give_up()
            if spec.variadic:
                if spec.kind == "anon":
                    continue
                if spec.broadcast:
                    return self._give_up()
                name = "*" + spec.expr.name
                ops.append((_verb(state, name, optional), v, len(specs) - 1 - v, name))
                if state.get(name) != "bound":
                    state[name] = "maybe" if maybe else "bound"
            elif spec.kind == "fixed":
                ops.append(("fixed", axis, spec.expr, spec.broadcast))
            elif spec.kind == "var" and spec.expr.is_symbol:
                name = spec.expr.name
                ops.append((_verb(state, name, optional), axis, name, spec.broadcast))
                if state.get(name) != "bound":
                    state[name] = "maybe" if maybe or spec.broadcast else "bound"
            elif spec.kind == "var":
                later.append((axis, spec))
        for axis, spec in later:
            if any(state.get(n) != "bound" for n in spec.expr.free_symbols):
                return self._give_up()
            ops.append(("expr", axis, spec.expr, spec.broadcast))
        self.state = state
        return ArrayCheck(t, ops, optional)

    def _give_up(self) -> None:
        self.needs_env = True
        return None


def _verb(state: dict, name: str, optional: bool) -> str:
    """``bind``, ``same`` or ``maybe`` for one occurrence of ``name``."""
    known = state.get(name)
    prefix = "v" if name.startswith("*") else ""
    if known == "bound":
        return prefix + "same"
    if known == "maybe":
        return prefix + "maybe"
    return prefix + "bind"
