"""The type language of TorchScript's type system applied to the checker's values (layer 6: ``check``).

The checker's values (``check.symbolic``) describe what a program computes; the
lattice of ``tensortypes.types`` says what an annotation allows. This module is
the bridge, so that parameter binding, assignment, return types and
control-flow joins follow the lattice's rules (``types.is_subtype``,
``types.unify``, ``types.join``) wherever the values are not arrays (arrays keep
their symbolic shapes: ``check.binding`` matches them under the universal
contract):

- :func:`type_of`: the lattice type of a value (``IntV`` is ``int``, a list
  literal of ints ``List[int]``, an instance of a checked class its
  ``ClassType``), read against the type it is checked against: an unknown part
  takes the expected type (gradual typing), a list literal takes the expected
  element type when its items fit it (as mypy infers it), and PEP 484's numeric
  tower applies (an int where a float is expected is a float): the checked
  code is Python, and ``def f(lr: float)`` called as ``f(1)`` is correct; a
  tuple whose items fit is accepted for a ``List`` (TorchScript converts it, as
  in ``F.pad(x, (1, 1))`` against ``pad: List[int]``);
- :func:`fits`: whether a value is allowed by a type: True, False, or None
  (cannot tell), which is never an error;
- :func:`class_type`: a checked class as a nominal ``types.ClassType``. The
  class is not imported: a stand-in class with the same name and the same
  checked base classes carries the subclass relation;
- :func:`join_kinds`: the control-flow join of two values of different kinds:
  ``types.unify`` (TorchScript's merge), else ``types.join`` (a union, since
  Python may rebind a name to a new type; the union only matters where a use
  needs more than it).
"""

from __future__ import annotations

import builtins
import collections.abc as abc

from tensortypes.types import (
    ANY,
    BOOL,
    COMPLEX,
    DTYPE,
    FLOAT,
    INT,
    NONE,
    NUMBER,
    STR,
    AbcType,
    ArrayType,
    ClassType,
    ListType,
    LiteralType,
    OptionalType,
    TupleType,
    UnionType,
    VarTupleType,
    is_subtype,
    join,
    unify,
)

from .symbolic import (
    UNKNOWN,
    Arr,
    BoolV,
    DTypeV,
    FloatV,
    InstV,
    IntV,
    ListV,
    NoneV,
    StrV,
    TupleV,
    UnionV,
    Unknown,
)

__all__ = [
    "type_of",
    "fits",
    "class_type",
    "join_kinds",
    "describe",
    "allows_none",
    "NOMINAL_BASES",
]

# Library bases that leave a class a plain nominal type (``typing.NamedTuple`` makes
# it a tuple); any other library base (a protocol, an enum, torch.Tensor, a
# Dataset...) makes it Any.
NOMINAL_BASES = frozenset(
    {
        "torch.nn.Module",
        "abc.ABC",
        "typing.Generic",
        "typing_extensions.Generic",
        "flax.linen.Module",
        "equinox.Module",
        "pydantic.BaseModel",
        "pydantic.main.BaseModel",
    }
)
_NUMERIC = (INT, FLOAT, COMPLEX, NUMBER)
_TOWER = {
    BOOL: (INT, FLOAT, COMPLEX, NUMBER),
    INT: (FLOAT, COMPLEX, NUMBER),
    FLOAT: (COMPLEX, NUMBER),
}
ITERABLE = frozenset({abc.Iterable, abc.Collection, abc.Sequence, abc.Reversible})
_CONTAINERS = {"iterator": abc.Iterator, "range": abc.Sequence}
_PLAIN = {IntV: INT, FloatV: FLOAT, BoolV: BOOL, StrV: STR, NoneV: NONE, DTypeV: DTYPE}
_STAND_INS: dict = {}
_STAND_IN_LIMIT = 1 << 12


# -- checked classes -----------------------------------------------------------------


def class_type(info, module):
    """The lattice type of the instances of checked class ``info`` (memoised on it).

    >>> import ast
    >>> from tensortypes.check.modinfo import ModuleInfo
    >>> m = ModuleInfo(ast.parse("class A: pass\\nclass B(A): pass"))
    >>> a, b = class_type(m.classes["A"], m), class_type(m.classes["B"], m)
    >>> str(b), is_subtype(b, a)
    ('B', True)


    ``ANY`` for a class with a library base other than ``NOMINAL_BASES`` and
    ``typing.NamedTuple`` (a protocol, an enum, ``torch.Tensor``...), and for a class
    whose bases cannot be combined. The stand-in class is shared by every
    checked module with a class of that name and those bases, so checking many
    files does not grow the lattice's tables without bound.
    """
    found = info.lattice
    if found is not None:
        return found
    info.lattice = ANY  # a class that names itself among its bases stays Any
    bases = []
    project = getattr(module, "project", None)
    for base in info.bases:
        local = module.classes.get(base)
        foreign = (
            project.foreign_class(project.canonical(base, module.local), module.local)
            if local is None and project is not None and "." in base
            else None
        )
        if local is not None or (foreign is not None and foreign.walker is not None):
            t = (
                class_type(local, module)
                if local is not None
                else class_type(foreign, foreign.walker.module)
            )
            if t is ANY:
                return ANY
            bases.append(t.cls)
        elif base.startswith("builtins."):
            cls = getattr(builtins, base[9:], None)
            if not isinstance(cls, type):
                return ANY
            if cls is not object:
                bases.append(cls)
        elif base == "typing.NamedTuple":
            bases.append(tuple)  # its instances are tuples of the declared fields
        elif base not in NOMINAL_BASES:
            # A library base (a Dataset, a Mapping, torch.Tensor, a Protocol...) may make
            # the instances something the stand-in cannot say: leave them unchecked.
            return ANY
    key = (info.name, tuple(bases))
    stand_in = _STAND_INS.get(key)
    if stand_in is None:
        try:
            stand_in = type(
                info.name, tuple(bases), {"__module__": "<checked>", "__qualname__": info.name}
            )
        except TypeError:  # bases whose layouts conflict: leave the class unchecked
            return ANY
        if len(_STAND_INS) < _STAND_IN_LIMIT:
            _STAND_INS[key] = stand_in
    found = ClassType(stand_in)
    info.lattice = found
    module.by_type[found] = info
    return found


# -- values to types -----------------------------------------------------------------


def _members(t) -> tuple:
    return t.members if type(t) in (UnionType, OptionalType) else (t,)


def type_of(value, hint=None):
    """The lattice type of ``value`` as read against ``hint`` (see the module docstring).

    >>> type_of(IntV()), type_of(IntV(), FLOAT), type_of(UNKNOWN, STR)
    (int, float, str)
    """
    if type(value) is UnionV:
        return UnionType([type_of(v, hint) for v in value.items])
    if type(value) is Unknown and hint is not None:
        return hint
    if hint is None or hint is ANY:
        found = _plain(value)
        return ANY if found is None else found
    first = None
    for member in _members(hint):
        t = _against(value, member)
        if is_subtype(t, member) is not False:
            return t
        if first is None:
            first = t
    return first


def _plain(value):
    """The type of a value on its own, or None when the lattice has no word for it."""
    t = type(value)
    found = _PLAIN.get(t)
    if found is not None:
        return found
    if t is TupleV:
        return TupleType([type_of(v) for v in value.items])
    if t is ListV:
        items = value.items
        if value.kind == "tuple":
            return AbcType(abc.Sequence, [type_of(value.elem)])  # unknown length
        if value.kind != "list":
            return AbcType(_CONTAINERS[value.kind], [type_of(value.elem)])
        if items is None:
            return ListType(type_of(value.elem))
        return ListType(
            join(*(type_of(v) for v in items))
            if len(items) > 1
            else type_of(items[0])
            if items
            else ANY
        )
    if t is InstV:
        return value.info.lattice if value.info.lattice is not None else ANY
    if t is Arr:
        return ArrayType(value.kind or "any")
    return None


def _against(value, want):
    t = type(value)
    if t is Unknown:
        return want
    if t is Arr:
        return _array_against(value, want)
    if type(want) is ArrayType and t in (IntV, FloatV, BoolV, ListV):
        return want  # library functions take scalars and nested lists as arrays
    if t is TupleV:
        return _tuple_against(value, want)
    if t is ListV:
        return _list_against(value, want)
    if type(want) is LiteralType and t in (StrV, IntV, BoolV):
        literal = (
            value.value
            if t is not IntV
            else (value.dim.value if value.dim is not None and value.dim.is_constant else None)
        )
        return want if literal is None else LiteralType([literal])
    found = _plain(value)
    if found is None or found is ANY:
        return want  # a value the lattice has no word for (a layer, a function): gradual
    if found in _TOWER and want in _TOWER[found]:
        return want
    if found is INT and want is DTYPE:
        return want  # TorchScript's dtypes are ints (ScalarType)
    if type(found) is ClassType and type(want) is AbcType:
        return want  # a checked class may implement the protocol (__iter__, __len__...)
    if type(found) is ClassType and type(want) is not ClassType:
        return _builtin_against(found, want)
    return found


# Builtin classes a checked class may derive from, and what each one's instances fit
# (a subclass's items are not known: gradual).
_BUILTIN_FITS = (
    (tuple, lambda w: type(w) in (TupleType, VarTupleType) or _iterable(w)),
    (list, lambda w: type(w) is ListType or _iterable(w)),
    (str, lambda w: w is STR or _iterable(w)),
    (bool, lambda w: w in _TOWER[BOOL] or w is BOOL),
    (int, lambda w: w in _TOWER[INT] or w is INT),
    (float, lambda w: w in _TOWER[FLOAT] or w is FLOAT),
    (complex, lambda w: w in (COMPLEX, NUMBER)),
)


def _iterable(want) -> bool:
    return type(want) is AbcType and want.origin in ITERABLE


def _builtin_against(found: ClassType, want):
    """A checked subclass of a builtin (``class Pair(tuple)``) against a structural type.

    Python's subclassing is nominal: a ``Pair`` is a ``tuple``, so it fits ``tuple``
    and ``Tuple[int, int]`` (its items are not known: gradual), and a subclass of
    ``int`` fits ``float``. The lattice's ``ClassType`` does not relate to the
    structural types, so the builtin base answers here.
    """
    for cls, fits_want in _BUILTIN_FITS:
        if issubclass(found.cls, cls):
            return want if fits_want(want) else found
    return found


def _array_against(value: Arr, want):
    tw = type(want)
    if tw is ArrayType:
        if (
            value.kind is not None
            and isinstance(want.kind, str)
            and want.kind != "any"
            and "torch" in (value.kind, want.kind)
            and value.kind != want.kind
        ):
            return ArrayType(value.kind)  # a NumPy/JAX array is no torch.Tensor
        return want
    if want in _NUMERIC or want is BOOL:
        if value.rank in (0, None):
            return want  # a 0-d array converts to a Python scalar
    if tw is AbcType and want.origin in ITERABLE:
        return want
    return ArrayType(value.kind or "any")


def _tuple_against(value: TupleV, want):
    tw, items = type(want), value.items
    if tw is TupleType and len(want.elements) == len(items):
        return TupleType([type_of(v, e) for v, e in zip(items, want.elements)])
    if tw is VarTupleType:
        return TupleType([type_of(v, want.element) for v in items])
    if tw is AbcType and want.args:
        return TupleType([type_of(v, want.args[0]) for v in items])
    if tw is ListType and all(fits(v, want.element) is not False for v in items):
        return want  # TorchScript turns a tuple into the list a parameter asks for
    if tw is ArrayType and want.kind != "torch":
        return want
    return TupleType([type_of(v) for v in items])


def _list_against(value: ListV, want):
    tw = type(want)
    if value.kind != "list":
        if tw is AbcType and want.args and fits(value.elem, want.args[0]) is not False:
            return AbcType(_CONTAINERS[value.kind], [want.args[0]])
        return _plain(value)
    element = (
        want.element if tw is ListType else (want.args[0] if tw is AbcType and want.args else None)
    )
    if element is None:
        return _plain(value)
    if value.items is None:
        if fits(value.elem, element) is not False:
            return ListType(element)
        return ListType(type_of(value.elem, element))
    found = [type_of(v, element) for v in value.items]
    if all(is_subtype(f, element) is not False for f in found):
        return ListType(element)
    return ListType(join(*found) if len(found) > 1 else found[0])


def fits(value, want) -> bool | None:
    """Whether ``want`` allows ``value``: True, False, or None when it cannot be told.

    >>> fits(StrV(), INT), fits(IntV(), FLOAT), fits(UNKNOWN, INT)
    (False, True, True)
    """
    if want is ANY or type(value) is Unknown or type(value) is ListV and value.kind == "tuple":
        return True  # unknown, or a tuple of unknown length (``x.unbind()``): gradual
    return is_subtype(type_of(value, want), want)


def allows_none(want) -> bool:
    """Whether ``want`` admits None (``Optional``, ``None``, ``Any``).

    >>> allows_none(OptionalType(INT)), allows_none(INT)
    (True, False)
    """
    return is_subtype(NONE, want) is not False


def describe(value) -> str:
    """A value's type in a message: ``str``, ``List[int]``, ``f32[b,n](torch)``.

    >>> describe(ListV((StrV(),))), describe(UnionV((IntV(), NoneV())))
    ('List[str]', 'Optional[int]')
    """
    if type(value) is Arr:
        return value.describe()
    if type(value) is UnionV and any(type(v) is Arr for v in value.items):
        return value.describe()
    return type_of(value).message_str()


# -- joins -------------------------------------------------------------------------------


def join_kinds(a, b):
    """The join of two non-array values of different kinds, through the lattice.

    The value whose type is the join when the lattice absorbs the other
    (``unify``/``join`` give one of the two types), else their union.

    >>> join_kinds(IntV(), StrV()).describe()
    'int | str'
    """
    ta, tb = _plain(a), _plain(b)
    if ta is None or tb is None or ta is ANY or tb is ANY:
        return UNKNOWN
    joined = unify(ta, tb)
    if joined is None:
        joined = join(ta, tb)
    if joined is ta:
        return a
    if joined is tb:
        return b
    items = list(a.items) if type(a) is UnionV else [a]
    items += list(b.items) if type(b) is UnionV else [b]
    return UnionV(tuple(items))
