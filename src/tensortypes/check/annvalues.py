"""Values from lattice types: what an annotation gives a parameter (layer 6: ``check``).

The other direction of ``check.typelang``: an annotation's lattice type (read by
``check.annotations``) becomes the checker's value that seeds a parameter, an
attribute or a call's result: an ``ArrayType`` the array of its library, dtype
set and axis entries (``check.shapetext.pattern_entries``), ``Optional[X]`` a
union with None, ``List[X]`` a list of unknown length, a checked class's
``ClassType`` an instance of it; what has no value (``Dict``, ``Callable``,
``Any``) is ``UNKNOWN``.
"""

from __future__ import annotations

from collections import abc

from tensortypes.core.dtypes import DType, dtype_from_name
from tensortypes.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NONE,
    STR,
    AbcType,
    ArrayType,
    ClassType,
    DictType,
    ListType,
    LiteralType,
    OptionalType,
    TupleType,
    UnionType,
)

from .shapetext import pattern_entries
from .symbolic import NONE as NONE_V
from .symbolic import (
    UNKNOWN,
    Arr,
    BoolV,
    DictV,
    FloatV,
    InstV,
    IntV,
    ListV,
    StrV,
    TupleV,
    UnionV,
)
from .typelang import ITERABLE

__all__ = ["array_member", "array_value", "value_of"]

_ARRAYS: dict = {}
_LIMIT = 1 << 12


def array_member(want):
    """The one array type inside ``want`` (itself, or one member of a union), or None.

    >>> array_member(OptionalType(ArrayType("torch"))), array_member(INT)
    (Tensor, None)
    """
    if type(want) is ArrayType:
        return want
    if type(want) in (UnionType, OptionalType):
        arrays = [m for m in want.members if type(m) is ArrayType]
        if len(arrays) == 1:
            return arrays[0]
    return None


def array_value(t: ArrayType) -> Arr:
    """The checker's array for an ``ArrayType`` (library, dtype set, axis entries).

    >>> array_value(ArrayType("torch", "float32", (2, 3)))
    Arr(torch, float32, (2, 3))
    """
    found = _ARRAYS.get(t)
    if found is not None:
        return found
    kind = t.kind if t.kind in ("torch", "numpy", "jax") else None
    dtypes = None
    if t.dtypes is not None:
        core = [dtype_from_name(name) for name in t.dtypes if isinstance(name, str)]
        if len(core) == len(t.dtypes) and all(isinstance(d, DType) for d in core):
            dtypes = frozenset(core)
    shape = pattern_entries(t.shape) if t.shape is not None else None
    found = Arr(kind, dtypes, shape)
    if len(_ARRAYS) < _LIMIT:
        _ARRAYS[t] = found
    return found


def value_of(t, module):
    """The value an annotation of type ``t`` gives a parameter (``UNKNOWN`` for Any).

    ``module`` (a ``check.modinfo.ModuleInfo``) maps checked classes back to
    their ``ClassInfo``.

    >>> value_of(OptionalType(INT), None).describe()
    'int | None'
    """
    found = _VALUES.get(t)
    if found is not None:
        return found
    tt = type(t)
    if tt is ArrayType:
        return array_value(t)
    if tt in (UnionType, OptionalType):
        items = []
        for member in t.members:
            v = value_of(member, module)
            if (
                v is UNKNOWN
                or (type(v) is InstV and v.info.walker is not None)
                or (type(v) is DictV and type(v.value) is InstV)
            ):
                # Optional[AnotherModulesClass]: unknown, as before classes of other
                # modules were read (whether it is None depends on code out of sight).
                return UNKNOWN
            items.append(v)
        return UnionV(tuple(items))
    if tt is TupleType:
        return TupleV(tuple(value_of(e, module) for e in t.elements))
    if tt is ListType:
        return ListV(None, value_of(t.element, module))
    if tt is DictType or (tt is AbcType and t.origin in _MAPPINGS and len(t.args) == 2):
        # a dict of arrays (``dict[str, Float[Tensor, "... C"]]``) reads as its values
        # another dict stays unknown, as before (an Optional value would make every
        # read may-be-None, and ``Optional[dict]`` is followed only for arrays)
        value = value_of(t.value if tt is DictType else t.args[1], module)
        # ... and so does a dict of a checked class's instances (``dict[str, Components]``)
        # or of plain scalars (``dict[str, int]``: ``x[:, key_to_idx[k]]`` drops an axis)
        return DictV(None, value) if type(value) in _DICT_VALUES else UNKNOWN
    if tt is AbcType and t.origin in ITERABLE and t.args:
        return ListV(None, value_of(t.args[0], module))
    if tt is ClassType:
        info = module.by_type.get(t)
        return InstV(info) if info is not None else UNKNOWN
    if tt is LiteralType:
        if len(t.values) == 1 and type(t.values[0]) is str:
            return StrV(t.values[0])  # Literal["scalar"]: narrowed out by == "scalar"
        kinds = {type(v) for v in t.values}
        return {frozenset({str}): StrV(), frozenset({int}): IntV(), frozenset({bool}): BoolV()}.get(
            frozenset(kinds), UNKNOWN
        )
    return UNKNOWN


_MAPPINGS = (abc.Mapping, abc.MutableMapping)
_DICT_VALUES = (Arr, InstV, IntV, FloatV, BoolV, StrV)

_VALUES = {INT: IntV(), FLOAT: FloatV(), BOOL: BoolV(), STR: StrV(), NONE: NONE_V, ANY: UNKNOWN}
