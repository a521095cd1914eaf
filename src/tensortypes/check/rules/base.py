"""What a rule sees of a call, and the helpers rules share (layer 6: ``check.rules``).

A rule is an object with ``apply(call) -> Value`` that computes the abstract
result of one library function or method, raising ``CheckFailure`` when no
size or dtype the annotations allow makes the call valid. Rules are data: the
tables of ``check.rules.torch``/``numpy``/``layers``/``losses`` map names to rule
instances configured by their parameters (which argument is the axis, whether
``keepdim`` exists, the default dtype), or to signatures written in the
annotation language (:class:`tensortypes.check.rules.ops.Sig`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import (
    DType,
    as_dtype,
    bool_,
    float32,
    float64,
    int32,
    int64,
    result_type,
)

from ..diagnostics import CheckFailure
from ..symbolic import (
    Arr,
    BoolV,
    DTypeV,
    FloatV,
    IntV,
    ListV,
    ShapeV,
    StrV,
    TupleV,
    Unknown,
    Value,
)

__all__ = [
    "Call",
    "Rule",
    "ParamRule",
    "int_const",
    "int_list",
    "dim_of",
    "dims_of",
    "dtype_arg",
    "default_float",
    "default_int",
    "promote",
    "scalar_dtype",
    "is_float",
    "is_int",
    "as_array",
    "first_array",
    "bound_array",
    "bool_const",
    "explicit_dtypes",
]


class Call:
    """One call as the rules see it: the values of its arguments and how to name them.

    ``args`` are the positional values, ``kwargs`` the keyword ones; ``labels``
    gives the source text of each (by position, and by keyword name) for
    messages; ``kind`` is the array library the call belongs to (``torch``,
    ``numpy``, ``jax``), which decides default dtypes.
    """

    __slots__ = (
        "name",
        "args",
        "kwargs",
        "labels",
        "kind",
        "star",
        "invoke",
        "facts",
        "unsure",
        "line",
    )

    def __init__(
        self, name: str, args: list, kwargs: dict, labels: Any, kind: str | None, star: bool = False
    ):
        self.name = name
        self.args = args
        self.kwargs = kwargs
        self.labels = labels
        self.kind = kind
        self.star = star  # a *args or **kwargs was passed: binding is unknown
        # set by the walker where a rule calls values (Sequential): invoke(value, args)
        self.invoke: Callable[[Any, list], Any] | None = None
        self.facts = ()  # divisibility facts the code established (assert n % k == 0)
        self.unsure: list = []  # why the rule could not tell (``--strict`` notes)
        self.line = 0  # the line of the call (names the sizes a call makes up)

    def cannot_tell(self, reason: str) -> None:
        """Record why the rule stayed silent or gave an unknown part (``--strict`` says it)."""
        self.unsure.append(f"{self.name}: {reason}")

    def bind(self, params: tuple, defaults: dict | None = None) -> dict:
        """Arguments by parameter name; a name starting with ``*`` collects the rest.

        Arguments the rule does not name are left out; a missing one is simply
        absent (rules treat it as its default).
        """
        out = dict(defaults) if defaults else {}
        positional = list(self.args)
        for name in params:
            if name.startswith("*"):
                out[name[1:]] = tuple(positional)
                positional = []
                break
            if not positional:
                break
            out[name] = positional.pop(0)
        # Positional arguments past the rule's parameters are ones no rule reads
        # (``order=``, ``out=``...): the library's own signature decides, not ours.
        names = {p.lstrip("*") for p in params}
        for key, value in self.kwargs.items():
            if key in names or key in ALIASES and ALIASES[key] in names:
                out[ALIASES.get(key, key) if key not in names else key] = value
        return out

    def label(self, key) -> str:
        """The source text of an argument (by position or keyword), for messages."""
        return self.labels.get(key, str(key))

    def item_label(self, key, i: int) -> str:
        """The source text of item ``i`` of a sequence argument (``[a, b]`` gives ``b``)."""
        item = getattr(self.labels, "item", None)
        found = item(key, i) if item is not None else None
        return found if found is not None else f"{self.label(key)}[{i}]"


# Spellings PyTorch and NumPy accept for the same parameter.
ALIASES = {"axis": "dim", "keepdims": "keepdim", "dim": "axis", "keepdim": "keepdims"}


class Rule:
    """Base class of the rules; subclasses implement :meth:`apply`."""

    __slots__ = ()

    def apply(self, call: Call) -> Value:
        raise NotImplementedError(type(self).__name__)


class ParamRule(Rule):
    """Abstract base of the rules that read arguments by parameter name.

    ``params`` are the names :meth:`Call.bind` binds, the array operand first;
    a table passes its library's spelling (NumPy's ``("a", "axis")``) and a
    subclass's ``PARAMS`` is the default.

    >>> class Neg(ParamRule):
    ...     PARAMS = ("input",)
    >>> Neg().params, Neg(("a",)).params
    (('input',), ('a',))
    """

    __slots__ = ("params",)
    PARAMS: tuple = ()

    def __init__(self, params: tuple | None = None):
        self.params = self.PARAMS if params is None else params

    def bind_input(self, call: Call) -> tuple[dict, Arr | None]:
        """The bound arguments, and the array operand (``params[0]``) or None."""
        bound = call.bind(self.params)
        return bound, bound_array(call, bound, self.params[0])

    def int_arg(self, bound: dict, i: int) -> int | None:
        """The known int bound to ``params[i]``; None when it is absent or not known."""
        return int_const(bound.get(self.params[i]))


# -- reading argument values ------------------------------------------------------------


def int_const(value) -> int | None:
    """The Python int an argument value holds, when it is a known constant."""
    if type(value) is IntV and value.dim is not None and value.dim.is_constant:
        return value.dim.value
    if type(value) is BoolV and value.value is not None:
        return int(value.value)
    return None


def bool_const(value, default: bool | None = False) -> bool | None:
    """A known bool argument (``keepdim=True``), ``default`` when absent, None if unknown."""
    if value is None:
        return default
    if type(value) is BoolV:
        return value.value
    if type(value) is IntV and value.dim is not None and value.dim.is_constant:
        return bool(value.dim.value)
    return None


def int_list(value) -> list | None:
    """A known int or tuple/list of ints (``dim=(0, 1)``), else None."""
    if value is None:
        return None
    single = int_const(value)
    if single is not None:
        return [single]
    items = value.items if type(value) in (TupleV, ListV) else None
    if items is None:
        return None
    out = [int_const(v) for v in items]
    return None if any(v is None for v in out) else out


def dim_of(value):
    """The size an argument denotes: a Dim, -1 for a literal -1, or None when unknown."""
    if type(value) is IntV and value.dim is not None:
        d = value.dim
        if d.is_constant and d.value == -1:
            return -1
        if d.is_constant and d.value < 0:
            raise CheckFailure("reshape", f"invalid size {d.value}: sizes are >= 0 (or -1)")
        return d
    return None


def dims_of(values) -> tuple | None:
    """Sizes given either as several arguments or as one tuple/list (``view(b, -1)``).

    A :class:`ShapeV` (the shape of an array of open rank, starred or whole)
    gives its entries, its ``*rest`` among them.
    """
    if len(values) == 1 and type(values[0]) in (TupleV, ListV):
        if values[0].items is None:
            return None
        values = values[0].items
    elif len(values) == 1 and type(values[0]) is Unknown:
        return None
    out: list = []
    for v in values:
        if type(v) is ShapeV:
            # a literal -1 among them (``batch_dims + (C, -1, -1)``) is -1, as alone
            out.extend(
                -1 if type(d) is Dim and d.is_constant and d.value == -1 else d for d in v.entries
            )
        else:
            out.append(dim_of(v))
    return tuple(out)


def dtype_arg(value) -> DType | None:
    """The dtype a ``dtype=`` argument names (``torch.float32``, ``np.int64``, ``"f4"``)."""
    if type(value) is DTypeV:
        return value.dtype
    if type(value) is StrV and value.value is not None:
        try:
            return as_dtype(value.value)
        except (TypeError, ValueError):
            return None
    return None


def explicit_dtypes(value, default):
    """The dtype set a ``dtype=`` argument gives: ``default`` when it is absent or None,
    the named dtype, or None (unknown) when the argument's value is not known.

    >>> explicit_dtypes(None, "d"), explicit_dtypes(StrV("float32"), "d")
    ('d', frozenset({DType('float32')}))
    """
    if value is None or type(value).__name__ == "NoneV":
        return default
    found = dtype_arg(value)
    return frozenset({found}) if found is not None else None


def default_float(kind) -> DType:
    """The dtype of a new float array: float32 in PyTorch and JAX, float64 in NumPy."""
    return float64 if kind == "numpy" else float32


def default_int(kind) -> DType:
    """The dtype of a new int array (JAX without x64 uses int32)."""
    return int32 if kind == "jax" else int64


def is_float(dtypes) -> bool:
    """Whether every dtype in the set is floating or complex."""
    return dtypes is not None and all(d.kind in ("f", "c") for d in dtypes)


def is_int(dtypes) -> bool:
    """Whether every dtype in the set is an integer or bool."""
    return dtypes is not None and all(d.kind in ("i", "u", "b") for d in dtypes)


def scalar_dtype(value, kind):
    """``(dtypes, weak)`` of an operand: an array's dtypes, or a Python scalar's (weak)."""
    t = type(value)
    if t is Arr:
        return value.dtypes, False
    if t is IntV:
        return frozenset({default_int(kind)}), True
    if t is FloatV:
        return frozenset({default_float(kind)}), True
    if t is BoolV:
        return frozenset({bool_}), True
    return None, True


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _rank(d: DType) -> int:
    return _KIND_RANK.get(d.kind, 4)


def promote(a, b, kind):
    """The dtype set of an elementwise result of operands with dtypes ``a`` and ``b``.

    Each operand is ``(dtypes, weak)``: a weak (Python scalar) operand only
    lifts the category (int array * 1.5 is a float array) and keeps the
    array's precision. PyTorch promotes int with float to the float's dtype;
    NumPy to the least common dtype.
    """
    (da, wa), (db, wb) = a, b
    if da is None or db is None:
        return None
    key = (da, wa, db, wb, kind)
    found = _PROMOTED.get(key)
    if found is None:
        found = _PROMOTED[key] = _promote(da, wa, db, wb, kind)
    return found


_PROMOTED: dict = {}


def _promote(da, wa, db, wb, kind):
    if wa and not wb:
        (da, wa), (db, wb) = (db, wb), (da, wa)
    if wb and not wa:
        out = set()
        for x in da:
            for y in db:
                out.add(x if _rank(y) <= _rank(x) else y)
        return frozenset(out)
    out = set()
    for x in da:
        for y in db:
            if kind == "torch" and _rank(x) != _rank(y):
                out.add(x if _rank(x) > _rank(y) else y)
                continue
            try:
                out.add(result_type(x, y))
            except TypeError:
                return None
    return frozenset(out)


def as_array(value, kind) -> Arr | None:
    """An operand as an array: an Arr, or a Python scalar as a 0-d array; None otherwise."""
    t = type(value)
    if t is Arr:
        return value
    if t in (IntV, FloatV, BoolV):
        return Arr(kind, scalar_dtype(value, kind)[0], ())
    return None


def first_array(call: Call) -> Arr | None:
    """The first positional argument as an array (the ``x`` of ``x.float()``), or None.

    >>> first_array(Call("t", [], {}, {}, "torch")) is None
    True
    """
    return as_array(call.args[0], call.kind) if call.args else None


def bound_array(call: Call, bound: dict, name: str) -> Arr | None:
    """The argument bound to parameter ``name`` as an array, or None when absent or not one.

    >>> bound_array(Call("f", [], {}, {}, "numpy"), {"a": IntV()}, "a").shape
    ()
    """
    value = bound.get(name)
    return as_array(value, call.kind) if value is not None else None
