"""Abstract values of the static checker (layer 6: the ``check`` back end).

The checker never runs the code it reads; it evaluates it over these values:

- :class:`Arr`: an array of one library (``"torch"``, ``"numpy"``, ``"jax"`` or
  None when unknown) with a set of possible dtypes (None: any) and a symbolic
  shape (None: unknown rank). A shape is a tuple of axis entries: a
  ``core.dims.Dim`` (a size: ``3``, ``n``, ``2*n``), ``None`` (a size nothing is
  known about), :class:`Bcast` (an axis marked ``#``: that size or 1) and at
  most one :class:`Rest` (``*batch`` or ``...``: zero or more axes);
- :class:`IntV`: an int, with the size it denotes when known (``x.shape[0]``);
- the other Python values a program handles: floats, bools, strings, None,
  tuples, lists, dtypes, modules and library functions (:class:`Ref`), layers,
  functions, classes, instances and unions (for ``Optional``).

``UNKNOWN`` is the top: an unknown value is never an error (the checker is
gradual). Symbols are universally quantified: ``n`` and ``m`` are different
sizes unless the algebra of ``core.dims`` proves them equal, and an axis may be
1 only where an annotation marks it ``#``. Joins of values are in
``check.joins``; their types in the lattice of ``tensortypes.types`` in
``check.typelang``.
"""

from __future__ import annotations

import re

from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import DType
from tensortypes.core.words import array_text, short_dtype

__all__ = [
    "DistV",
    "LibV",
    "is_field_symbol",
    "rest_product",
    "number_form",
    "float_arith",
    "negated",
    "exact_float",
    "Value",
    "Unknown",
    "UNKNOWN",
    "Arr",
    "IntV",
    "FloatV",
    "BoolV",
    "StrV",
    "NoneV",
    "NONE",
    "TupleV",
    "ListV",
    "DTypeV",
    "Ref",
    "LayerV",
    "PartialV",
    "FuncV",
    "LambdaV",
    "CallablesV",
    "ClassV",
    "InstV",
    "MethodV",
    "UnionV",
    "ShapeV",
    "DictV",
    "Bcast",
    "Rest",
    "own_rest",
    "joint_rest",
    "changed_rest",
    "instance",
    "instance_unrelated",
    "signature_sizes",
    "laid_out_together",
    "unpacked_size",
    "implied_size",
    "implied_rest",
    "is_implied_rest",
    "unpacked_unrelated",
    "operand_axes",
    "data_size",
    "is_data_size",
    "call_count",
    "selected_count",
    "list_length",
    "is_list_length",
    "counts_unrelated",
    "field_size",
    "is_field_size",
    "field_named",
    "fields_unrelated",
    "inputs",
    "anonymized",
    "fmt_shape",
    "sequence_value",
    "fmt_dim",
    "fmt_dtypes",
    "fmt_value",
    "short_dtypes",
    "is_one",
    "ONE",
    "anonymous_axis",
    "is_anonymous",
    "complement_origin",
    "complement_count",
    "mask_line",
    "assigned_line",
    "unrelated",
    "pattern_names",
]

ONE = dims.const(1)


class Value:
    """Base of the abstract values; every value is immutable."""

    __slots__ = ()

    def describe(self) -> str:
        return type(self).__name__


class Unknown(Value):
    """A value the checker knows nothing about (the top of the lattice)."""

    __slots__ = ()

    def describe(self) -> str:
        return "unknown"


UNKNOWN = Unknown()


class Bcast:
    """An axis annotated ``#n``: of size ``n`` or 1 (broadcasting allowed there)."""

    __slots__ = ("dim",)
    dim: Any
    _interned: dict = {}

    def __new__(cls, dim: Dim):
        found = cls._interned.get(dim)
        if found is None:
            found = object.__new__(cls)
            object.__setattr__(found, "dim", dim)
            cls._interned[dim] = found
        return found

    def __setattr__(self, name, value):
        raise AttributeError("Bcast is immutable")

    def __repr__(self) -> str:
        return f"#{self.dim}"


class Rest:
    """Zero or more axes: ``*name`` of an annotation, or ``...`` (name None)."""

    __slots__ = ("name",)
    name: Any
    _interned: dict = {}

    def __new__(cls, name: str | None):
        found = cls._interned.get(name)
        if found is None:
            found = object.__new__(cls)
            object.__setattr__(found, "name", name)
            cls._interned[name] = found
        return found

    def __setattr__(self, name, value):
        raise AttributeError("Rest is immutable")

    def __repr__(self) -> str:
        return "..." if self.anonymous else f"*{self.name}"

    @property
    def anonymous(self) -> bool:
        """Whether it is written ``...``: jaxtyping's anonymous axes (no name binds
        them), also when they are the axes of one parameter (:func:`own_rest`)."""
        return self.name is None or self.name.startswith(OWN_REST)


OWN_REST = "\u2026"  # a name's mark (not an identifier) for own_rest


def own_rest(owner: str) -> Rest:
    """The ``...`` axes of parameter ``owner`` of the function checked: anonymous
    (printed ``...``, bound by no name, unrelated to any other parameter's) but the
    same axes wherever a value made from that parameter keeps them, so that
    ``x.norm(dim=-1, keepdim=True)`` of ``x: (..., 3)`` lines up with ``x``."""
    return Rest(OWN_REST + owner)


def changed_rest(rest: Rest, mark: str) -> Rest:
    """The axes of ``rest`` after an operation changed them (``mark``: which): still a
    batch when ``rest`` is one (a ``*b`` or a parameter's ``...``), so that its last
    axis meets other sizes as :func:`own_rest`'s does, but not the same axes; a plain
    ``...`` when ``rest`` is of unknown origin."""
    if rest.name is None:
        return Rest(None)
    owner = rest.name[len(OWN_REST) :] if rest.name.startswith(OWN_REST) else rest.name
    return own_rest(f"{owner}{mark}")


def joint_rest(rests) -> Rest:
    """The leading axes of a broadcast of arrays whose ``...`` differ: the joint ``...``
    of those parameters (:func:`own_rest`), itself the same axes wherever a value made
    from it keeps them; a plain ``...`` when one of them is of unknown origin."""
    owners: set = set()
    for rest in rests:
        if rest.name is None or not rest.name.startswith(OWN_REST):
            return Rest(None)
        owners.update(rest.name[len(OWN_REST) :].split(_JOINT))
    return own_rest(_JOINT.join(sorted(owners)))


_JOINT = "+"  # not in a qualified name: separates the owners of a joint_rest

_PRODUCT = "\u1d56"  # "ᵖ": in no name an annotation gives (see rest_product)
_ESCAPE = "\u02c7"  # "ˇ": wraps the code of a character of a Rest's name


def rest_product(rest: Rest) -> Dim | None:
    """How many elements the axes of ``rest`` hold together: the merged axis of
    ``x.reshape(-1, d)`` or of ``"... d -> (...) d"`` for ``x: (*b, d)``, printed
    ``prod(*b)``. A size of its own, the same wherever the same axes are merged;
    None for a plain ``...`` of unknown origin, whose axes may differ each time.

    >>> fmt_dim(rest_product(Rest("b")) * 3)
    '3*prod(*b)'
    """
    if rest.name is None or rest.name.endswith(IMPLIED_REST):
        return None
    text = "".join(
        c if c.isascii() and c.isalnum() else f"{_ESCAPE}{ord(c):x}{_ESCAPE}" for c in rest.name
    )
    return dims.symbol(_PRODUCT + text)


def _product_printed(symbol: str) -> str:
    """``prod(*b)`` for the symbol :func:`rest_product` makes of ``*b``."""
    parts = symbol[len(_PRODUCT) :].split(_ESCAPE)
    name = "".join(p if i % 2 == 0 else chr(int(p, 16)) for i, p in enumerate(parts))
    return f"prod({Rest(name)!r})"


_PRODUCT_NAME = re.compile(_PRODUCT + r"[0-9A-Za-z" + _ESCAPE + r"]*")
_LENGTH_NAME = re.compile("len\u02e1(\\w+)\u02e1\\w*")


def fmt_dim(d) -> str:
    """The text of one axis entry: ``3``, ``n``, ``?``, ``#n``, ``*b``.

    >>> fmt_dim(dims.parse("2*n")), fmt_dim(None)
    ('2*n', '?')
    """
    if type(d) is Dim:
        text = str(field_named(d)) if _FIELDS and is_field_size(d) else str(d)
        if _COUNTS and _COUNT_MARK in text:
            for name in _COUNTS.keys() & d.free_symbols:
                text = text.replace(name, _COUNTS[name][0])
        if _UNPACKED and _UNPACK_MARK in text:
            for name in _UNPACKED.keys() & d.free_symbols:
                text = text.replace(name, _UNPACKED[name][0])
        if _PRODUCT in text:
            text = _PRODUCT_NAME.sub(lambda m: _product_printed(m.group(0)), text)
        if _LENGTH_MARK in text:
            text = _LENGTH_NAME.sub(lambda m: f"len({m.group(1)})", text)
        return text
    return "?" if d is None else repr(d)


def fmt_shape(shape) -> str:
    """A shape as the user reads it: ``(b, 128)``; ``(?...)`` for an unknown rank.

    >>> fmt_shape((dims.symbol("b"), dims.const(3)))
    '(b, 3)'
    """
    if shape is None:
        return "(unknown rank)"
    if len(shape) == 1:
        return f"({fmt_dim(shape[0])},)"
    return "(" + ", ".join(fmt_dim(d) for d in shape) + ")"


def fmt_dtypes(dtypes) -> str:
    """A dtype set as text: ``float32``, ``float16|float32``, ``?``."""
    if dtypes is None:
        return "?"
    names = sorted(d.name for d in dtypes)
    if len(names) > 3:
        kinds = {d.kind for d in dtypes}
        return {
            frozenset("f"): "floating",
            frozenset("iu"): "integer",
            frozenset("i"): "int",
            frozenset("u"): "uint",
            frozenset("b"): "bool",
        }.get(frozenset(kinds), "/".join(sorted(kinds)))
    return "|".join(names)


_KIND_WORDS = {
    frozenset("f"): "float",
    frozenset("iu"): "int|uint",
    frozenset("i"): "int",
    frozenset("u"): "uint",
    frozenset("b"): "bool",
    frozenset("c"): "complex",
}


def short_dtypes(dtypes) -> str:
    """A dtype set in a value's text: ``f32``, ``f16|f32``, ``float`` (any float), ``?``.

    >>> from tensortypes.core.dtypes import dtype_from_name
    >>> short_dtypes({dtype_from_name("float32")}), short_dtypes(None)
    ('f32', '?')
    """
    if dtypes is None:
        return "?"
    if len(dtypes) > 3:
        kinds = frozenset(d.kind for d in dtypes)
        return _KIND_WORDS.get(kinds) or "|".join(sorted(kinds))
    return "|".join(sorted(short_dtype(d.name) for d in dtypes))


def fmt_value(arr) -> str:
    """An array value as every message writes one (``core.words.array_text``):
    ``f32[b,128](torch)``; ``float[n,d](numpy)`` for any float dtype; ``?`` for an
    unknown dtype or size; ``[...]`` for an unknown rank.

    >>> fmt_value(Arr("numpy", None, (dims.symbol("n"), None)))
    '?[n,?](numpy)'
    """
    shape = arr.shape
    axes = ("...",) if shape is None else tuple(fmt_dim(d) for d in shape)
    return array_text(short_dtypes(arr.dtypes), axes, arr.kind)


class Arr(Value):
    """An array: library ``kind``, possible ``dtypes``, symbolic ``shape``, where it came from.

    ``contiguous`` is the memory layout ``view`` needs: True (contiguous),
    after a torch permute/transpose the memory rank of each axis (``(0, 2, 3, 1)``:
    a view may merge axes adjacent in memory, ``check.rules.layout.viewed_layout``),
    False (not contiguous in a way not followed: ``expand``, ``.mT``) or None
    (not known: no view is reported). ``numpy_scalar`` is True for what a NumPy
    reduction over every axis returns (``x.sum()``): a NumPy scalar, which is
    no ``np.ndarray`` (the runtime checker refuses it for ``Float[np.ndarray, ""]``
    too); any other operation forgets it. ``since`` is the line of the statement
    that gave a variable's value its shape (``check.statements``: a shape equal to
    one of the statement's own variables keeps that variable's line), or None (a
    parameter's shape, an annotation's): a diagnostic's note names it when the
    value is used on another line, as where a wrong shape was made. ``sources``:
    other lines that made its shape, ``((line, shape), ...)``: each branch's
    assignment of a variable the branches gave different shapes, or the variable's
    own previous value a statement made this one from (``eps = eps.mean(-1)``).
    """

    __slots__ = (
        "kind",
        "dtypes",
        "shape",
        "contiguous",
        "origin",
        "numpy_scalar",
        "since",
        "sources",
    )
    contiguous: Any
    dtypes: Any
    kind: Any
    numpy_scalar: Any
    origin: Any
    shape: Any
    since: Any
    sources: Any

    def __init__(
        self,
        kind,
        dtypes,
        shape,
        origin: str | None = None,
        contiguous: bool | tuple | None = True,
        numpy_scalar: bool = False,
        since: int | None = None,
        sources: tuple | None = None,
    ):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "dtypes", dtypes)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "contiguous", contiguous)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "numpy_scalar", numpy_scalar)
        object.__setattr__(self, "since", since)
        object.__setattr__(self, "sources", sources)

    def with_(self, **changes) -> Arr:
        """A copy with some fields changed (the origin is kept unless given; a NumPy
        scalar stays one only when nothing but the origin or ``since`` changes; the
        ``sources`` go with a ``since`` changed, unless given)."""
        fields = {
            "kind": self.kind,
            "dtypes": self.dtypes,
            "shape": self.shape,
            "origin": self.origin,
            "contiguous": self.contiguous,
            "numpy_scalar": self.numpy_scalar and set(changes) <= {"origin", "since", "sources"},
            "since": self.since,
            "sources": None if "since" in changes else self.sources,
        }
        fields.update(changes)
        return Arr(**fields)

    @property
    def rank(self) -> int | None:
        """The number of axes, or None when unknown (unknown shape or a ``*rest``)."""
        shape = self.shape
        if shape is None or any(type(d) is Rest for d in shape):
            return None
        return len(shape)

    @property
    def dtype(self) -> DType | None:
        """The one dtype, when exactly one is possible."""
        if self.dtypes is not None and len(self.dtypes) == 1:
            return next(iter(self.dtypes))
        return None

    def describe(self) -> str:
        return fmt_value(self)

    def __repr__(self) -> str:
        return f"Arr({self.kind}, {fmt_dtypes(self.dtypes)}, {fmt_shape(self.shape)})"


class IntV(Value):
    """An int; ``dim`` is the size it denotes when known (a constant or a symbol)."""

    __slots__ = ("dim",)
    dim: Any

    def __init__(self, dim: Dim | None = None):
        object.__setattr__(self, "dim", dim)

    def describe(self) -> str:
        return "int" if self.dim is None else f"int {fmt_dim(self.dim)}"

    def __repr__(self) -> str:
        return f"IntV({self.dim})"


class FloatV(Value):
    """A Python float (or a scalar of floating dtype).

    ``value``, when known, is ``(c0, c1, d)``: the number ``c0 + c1 / d`` for
    fractions ``c0``, ``c1`` and a size ``d`` (``None`` when ``c1`` is 0), so that
    ``1.0 / n`` and ``0.5 * (1.0 / n)`` are known exactly (see ``float_arith``).
    """

    __slots__ = ("value",)
    value: Any

    def __init__(self, value: tuple | None = None):
        object.__setattr__(self, "value", value)

    def describe(self) -> str:
        return "float"


_EXACT_BITS = 128  # a float's exact value is kept while its fractions stay this small


def exact_float(c0: Fraction, c1: Fraction, d) -> FloatV:
    """``FloatV`` of ``c0 + c1 / d``, or of unknown value once a fraction grows past
    ``_EXACT_BITS`` (``1e-300`` multiplied again and again): work stays bounded."""
    for q in (c0, c1):
        if q.numerator.bit_length() > _EXACT_BITS or q.denominator.bit_length() > _EXACT_BITS:
            return FloatV()
    return FloatV((c0, c1, d if c1 else None))


def number_form(value: Value) -> tuple | None:
    """``(c0, c1, d)`` for ``c0 + c1 / d`` of a known int or float, else None."""
    if type(value) is FloatV:
        return value.value
    if type(value) is IntV and value.dim is not None and value.dim.is_constant:
        return (Fraction(value.dim.value), Fraction(0), None)
    return None


def float_arith(op: str, left: Value, right: Value) -> FloatV:
    """``left op right`` of ints and floats where one is a float or ``op`` is ``/``.

    Kept exact while the result stays ``c0 + c1 / d`` for a single size ``d``
    (``1.0 / n``, ``0.5 * w``, ``1.0 - w / 2``); otherwise a float of unknown value.

    >>> n = IntV(dims.symbol("n"))
    >>> w = float_arith("/", FloatV((Fraction(1), Fraction(0), None)), n)
    >>> float_arith("*", FloatV((Fraction(1, 2), Fraction(0), None)), w).value[1]
    Fraction(1, 2)
    """
    a, b = number_form(left), number_form(right)
    if b is None and op == "/" and type(right) is IntV and right.dim is not None and a is not None:
        # c / n: only a constant over a size
        if a[1] == 0:
            return exact_float(Fraction(0), a[0], right.dim)
        return FloatV()
    if a is None or b is None:
        return FloatV()
    (a0, a1, ad), (b0, b1, bd) = a, b
    if op in ("+", "-"):
        if ad is not None and bd is not None and ad != bd:
            return FloatV()
        sign = 1 if op == "+" else -1
        return exact_float(a0 + sign * b0, a1 + sign * b1, ad if ad is not None else bd)
    if op in ("*", "/"):
        if op == "/" and (b1 != 0 or b0 == 0):
            return FloatV()
        k = b0 if op == "*" else 1 / b0
        if op == "*" and b1 != 0:
            if a1 != 0:
                return FloatV()
            (a0, a1, ad), k = (b0, b1, bd), a0
        return exact_float(a0 * k, a1 * k, ad)
    return FloatV()


def negated(value: FloatV) -> FloatV:
    """``-value``."""
    v = value.value
    return FloatV() if v is None else exact_float(-v[0], -v[1], v[2])


class BoolV(Value):
    """A bool, with its value when known."""

    __slots__ = ("value",)
    value: Any

    def __init__(self, value: bool | None = None):
        object.__setattr__(self, "value", value)

    def describe(self) -> str:
        return "bool"


class StrV(Value):
    """A str, with its value when it is a literal."""

    __slots__ = ("value",)
    value: Any

    def __init__(self, value: str | None = None):
        object.__setattr__(self, "value", value)

    def describe(self) -> str:
        return "str"


class NoneV(Value):
    """``None``."""

    __slots__ = ()

    def describe(self) -> str:
        return "None"


NONE = NoneV()


class TupleV(Value):
    """A tuple of known length (``x.shape`` gives one of ``IntV``). ``plain``: a
    ``tuple`` itself, not a named tuple or ``torch.Size`` (``torch.where(mask)``),
    so it has no attribute but ``count`` and ``index``."""

    __slots__ = ("items", "plain")
    items: Any
    plain: Any

    def __init__(self, items: tuple, plain: bool = False):
        object.__setattr__(self, "items", tuple(items))
        object.__setattr__(self, "plain", plain)

    def describe(self) -> str:
        return "tuple[" + ", ".join(v.describe() for v in self.items) + "]"


class ListV(Value):
    """A list; ``items`` when its elements are known (a literal), else only ``elem``.

    ``kind`` is ``"list"``, or ``"iterator"``/``"range"`` for what ``zip``,
    ``enumerate`` or ``range`` give: iterated like a list, typed as an
    ``Iterator``/``Sequence``; ``"tuple"`` for a tuple of unknown length
    (``x.unbind()``), a ``Sequence`` that fits any declared type.
    """

    __slots__ = ("items", "elem", "kind", "length")
    elem: Any
    items: Any
    kind: Any
    length: Any

    def __init__(self, items: tuple | None, elem: Value = UNKNOWN, kind: str = "list", length=None):
        object.__setattr__(self, "items", None if items is None else tuple(items))
        object.__setattr__(self, "elem", elem)
        object.__setattr__(self, "kind", kind)
        # the length of a list whose items are not known, when something tells it (a
        # comprehension over a list of known length, ``range(n)``): a size, or None
        # (a literal's is its items': see ``joins.length_of``)
        object.__setattr__(self, "length", length)

    def describe(self) -> str:
        return self.kind


class DistV(Value):
    """A ``torch.distributions`` object: its ``family`` (``Normal``), library
    ``kind``, ``batch`` shape (None: unknown), ``event`` shape (``()`` for a
    distribution of numbers, ``(k,)`` for ``MultivariateNormal``) and the dtypes
    of what ``sample`` gives."""

    __slots__ = ("family", "kind", "batch", "event", "dtypes")
    family: Any
    kind: Any
    batch: Any
    event: Any
    dtypes: Any

    def __init__(self, family: str, kind, batch, event, dtypes):
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "batch", batch)
        object.__setattr__(self, "event", event)
        object.__setattr__(self, "dtypes", dtypes)

    def describe(self) -> str:
        return f"{self.family} distribution"


class LibV(Value):
    """An object of a library whose classes the checker models by hand
    (``check.rules.pretrained``): a diffusers pipeline, UNet, VAE or scheduler, a
    transformers text encoder or tokenizer (``kind``: ``"unet"``...), or a record
    one of them returns (``kind``: its class name, ``fields``: its values by name,
    in order: ``out.sample`` and ``out[0]`` of a UNet's output)."""

    __slots__ = ("kind", "fields")
    kind: Any
    fields: Any

    def __init__(self, kind: str, fields: tuple = ()):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "fields", tuple(fields))  # ((name, value), ...)

    def describe(self) -> str:
        return self.kind


class DTypeV(Value):
    """A dtype object such as ``torch.float32`` or ``np.int64``."""

    __slots__ = ("dtype",)
    dtype: Any

    def __init__(self, dtype: DType):
        object.__setattr__(self, "dtype", dtype)

    def describe(self) -> str:
        return f"dtype {self.dtype}"


class Ref(Value):
    """A module, class or function of a library, by its dotted path (``torch.nn.Linear``)."""

    __slots__ = ("path",)
    path: Any

    def __init__(self, path: str):
        object.__setattr__(self, "path", path)

    def describe(self) -> str:
        return self.path


class PartialV(Value):
    """``functools.partial(f, **keywords)`` of a library callable ``f`` (a ``Ref``), or
    a function or class of the checked code: calling it calls ``f`` with those
    keywords first (``LinearNoBias = partial(nn.Linear, bias=False)``)."""

    __slots__ = ("callee", "keywords", "nodes")
    callee: Any
    keywords: Any
    nodes: Any

    def __init__(self, callee, keywords: tuple, nodes: tuple = ()):
        object.__setattr__(self, "callee", callee)
        object.__setattr__(self, "keywords", keywords)  # ((name, value), ...)
        object.__setattr__(self, "nodes", nodes)  # ((name, the keyword's syntax), ...)

    def describe(self) -> str:
        return f"partial({self.callee.describe()})"


class LayerV(Value):
    """An instance of a ``torch.nn`` layer built from known constructor arguments.

    ``rule`` is the layer's rule (``check.rules.layers``), ``args`` its
    arguments by parameter name, ``site`` the constructor call as written and
    its line, for the notes.
    """

    __slots__ = ("rule", "args", "site", "dtype")
    args: Any
    dtype: Any
    rule: Any
    site: Any

    def __init__(self, rule, args: dict, site: str, dtype: DType | None):
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "site", site)
        object.__setattr__(self, "dtype", dtype)

    def describe(self) -> str:
        return self.site


class FuncV(Value):
    """A function defined in the checked module."""

    __slots__ = ("info",)
    info: Any

    def __init__(self, info):
        object.__setattr__(self, "info", info)

    def describe(self) -> str:
        return f"function {self.info.name}"


class LambdaV(Value):
    """``lambda x: body``: a call evaluates ``body`` with the arguments, in the frame
    that made the lambda (its closure)."""

    __slots__ = ("node", "frame", "walker")
    node: Any
    frame: Any
    walker: Any

    def __init__(self, node, frame, walker):
        object.__setattr__(self, "node", node)
        object.__setattr__(self, "frame", frame)
        object.__setattr__(self, "walker", walker)  # the checker of its module

    def describe(self) -> str:
        return f"lambda at line {self.node.lineno}"


class CallablesV(Value):
    """One of several callables, the branches decide which (``get_activation(name)``:
    a lambda per name, else a function of ``torch.nn.functional`` found by name,
    unknown). A call gives the join of what each gives: an array where the known
    ones give it (an unknown one's result, as a branch's, lets it stand)."""

    __slots__ = ("items",)
    items: Any

    def __init__(self, items: tuple):
        object.__setattr__(self, "items", items)

    def describe(self) -> str:
        return " | ".join(v.describe() for v in self.items)


class ClassV(Value):
    """A class defined in the checked module."""

    __slots__ = ("info",)
    info: Any

    def __init__(self, info):
        object.__setattr__(self, "info", info)

    def describe(self) -> str:
        return f"class {self.info.name}"


class InstV(Value):
    """An instance of a checked class; ``env`` binds its constructor's int parameters.

    ``made`` is True for an instance the checked code constructs (``Config(4, 8)``):
    its int fields are what the construction gave, not sizes of their own (those of
    an instance that comes in, ``cfg: Config``, are: see ``check.schema``).
    """

    __slots__ = ("info", "env", "made")
    env: Any
    info: Any
    made: bool

    def __init__(self, info, env: dict | None = None, made: bool = False):
        object.__setattr__(self, "info", info)
        object.__setattr__(self, "env", env or {})
        object.__setattr__(self, "made", made)

    def describe(self) -> str:
        return self.info.name


class MethodV(Value):
    """A method looked up on a value: an array method, a checked class's method, ..."""

    __slots__ = ("receiver", "name")
    name: Any
    receiver: Any

    def __init__(self, receiver: Value, name: str):
        object.__setattr__(self, "receiver", receiver)
        object.__setattr__(self, "name", name)

    def describe(self) -> str:
        return f"method {self.name}"


class UnionV(Value):
    """One of several values (``Optional[X]`` is ``UnionV((NONE, X))``)."""

    __slots__ = ("items",)
    items: Any

    def __init__(self, items: tuple):
        object.__setattr__(self, "items", tuple(items))

    def describe(self) -> str:
        return " | ".join(v.describe() for v in self.items)


class ShapeV(Value):
    """``x.shape`` of an array whose rank is open: its entries, one of them a ``Rest``.

    ``x.shape[-1]`` of a ``(*bs, c)`` array is ``c`` and ``x.shape[:-1]`` is
    ``(*bs,)``; starred into a tuple or a call (``(*x.shape[:-1], k)``,
    ``x.view(*x.shape[:-1], 3, -1)``) it gives the sizes of a new shape.
    """

    __slots__ = ("entries",)
    entries: Any

    def __init__(self, entries: tuple):
        object.__setattr__(self, "entries", tuple(entries))

    def describe(self) -> str:
        return f"shape {fmt_shape(self.entries)}"


class DictV(Value):
    """A dict; ``items`` maps its constant keys to values when it is a literal not
    changed since (None: only that it is a dict); ``value`` is what any of its values
    is, when known (``dict[str, Float[Tensor, "... C"]]``, a comprehension's value)."""

    __slots__ = ("items", "value")
    items: Any
    value: Any

    def __init__(self, items: dict | None, value: Value = UNKNOWN):
        object.__setattr__(self, "items", None if items is None else dict(items))
        object.__setattr__(self, "value", value)

    def get(self, key):
        """The value at a constant key, or any value's when the items are not known."""
        if self.items is None:
            return self.value
        return self.items.get(key, UNKNOWN)

    def describe(self) -> str:
        return "dict"


def sequence_value(found) -> Value:
    """The value of a module's list or tuple of literals, ``(length, "list" or
    "tuple", the items' type name)`` (``modinfo.ModuleInfo.sequences``)."""
    length, shape, kind = found
    item = {"str": StrV, "int": IntV, "float": FloatV}.get(kind)
    elem = item() if item is not None else UNKNOWN
    if shape == "tuple" and length <= 32:
        return TupleV((elem,) * length)
    return ListV(None, elem, shape, dims.const(length))


def _frozen(self, name, value):
    raise AttributeError(f"{type(self).__name__} is immutable")


for _cls in (
    Arr,
    IntV,
    FloatV,
    BoolV,
    StrV,
    NoneV,
    TupleV,
    ListV,
    DTypeV,
    Ref,
    LayerV,
    FuncV,
    ClassV,
    InstV,
    MethodV,
    UnionV,
    ShapeV,
    DictV,
    Unknown,
):
    type.__setattr__(_cls, "__setattr__", _frozen)  # every value is immutable once built
del _cls


# -- sizes ---------------------------------------------------------------------------


def is_one(d) -> bool:
    """Whether an axis entry is provably 1.

    >>> is_one(ONE), is_one(dims.symbol("n")), is_one(None)
    (True, False, False)
    """
    return type(d) is Dim and d.value == 1


_ANONYMOUS: set = set()


def pattern_names(value) -> list:
    """The size names (``n``, ``*b``) in the array shapes of an annotation's value (an
    array, or a union or tuple of arrays)."""
    out: list = []
    for item in value.items if type(value) in (UnionV, TupleV) else (value,):
        if type(item) is not Arr or item.shape is None:
            continue
        for d in item.shape:
            d = d.dim if type(d) is Bcast else d
            if type(d) is Dim:
                out.extend(sorted(d.free_symbols))
            elif type(d) is Rest and not d.anonymous:
                out.append("*" + d.name)
    return out


def anonymous_axis(owner: str, i: int) -> Dim:
    """A size of an axis of ``...`` made explicit (``if x.ndim == 2:`` gives ``x`` of
    ``(..., 3)`` the shape ``(x_0, 3)``).

    Like a named size it is different from every constant and every named size
    unless proven equal (the annotation lets the ``...`` be any axes: ``t`` of
    ``"n ..."`` narrowed to rank 2 is ``(n, t_1)`` for every ``t_1``); unlike one, it
    is never compared with an axis of another ``...`` (two ``...`` are unrelated).

    >>> d = anonymous_axis("rays.d", 0)
    >>> d, is_anonymous(d), is_anonymous(dims.symbol("n"))
    (Dim('rays_d_0'), True, False)
    """
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in owner) + f"_{i}"
    if not name.isidentifier():
        name = f"axis_{name}"
    _ANONYMOUS.add(name)
    return dims.symbol(name)


_DATA: set = set()


def data_size(name: str) -> Dim:
    """A size only the data fixes (``unique_12``: how many distinct values ``torch.unique``
    finds at line 12): a size of its own inside the function that makes it."""
    _DATA.add(name)
    return dims.symbol(name)


_SELECTED: set = set()  # the sizes ``x[mask]`` gives (see selected_count)


_COMPLEMENT = re.compile(r"^the complement of a mask made at line (\d+)$")
_ASSIGNED = re.compile(r"^assigned at line (\d+)$")


def assigned_line(origin: str | None) -> int | None:
    """The line of an origin ``assigned at line N`` (what an assignment gives an array
    that has none), else None."""
    found = _ASSIGNED.match(origin or "")
    return int(found.group(1)) if found else None


def mask_line(mask) -> int | None:
    """The line that made a mask: where its shape was made, else where the variable
    holding it was assigned (a mask a call returns), else None."""
    return mask.since if mask.since is not None else assigned_line(mask.origin)


def failed_origin(qualname: str) -> str:
    """The origin of the declared result of a call of ``qualname`` an argument of which
    did not fit (``signatures.failed_result``): a join treats it as an unknown value,
    which leaves the other branch's array as it is."""
    return f"the declared result of {qualname}(), whose arguments did not fit"


def is_failed_origin(origin: str | None) -> bool:
    """Whether ``origin`` is a :func:`failed_origin`."""
    return origin is not None and origin.endswith(", whose arguments did not fit")


def complement_origin(line: int) -> str:
    """The origin of ``~m`` of a boolean mask ``m`` whose shape was made at ``line``:
    what it selects is what ``m`` does not (:func:`complement_count`)."""
    return f"the complement of a mask made at line {line}"


def complement_count(mask) -> Dim | None:
    """How many items ``~m`` selects (``torch.where(~m)``, ``x[~m]``): the items of
    ``m`` less those ``m`` selects, so ``torch.cat([x[m], x[~m]])`` has every item
    of ``x``; None for another mask or a shape not known."""
    found = _COMPLEMENT.match(mask.origin or "")
    if found is None or mask.shape is None:
        return None
    total = ONE
    for d in mask.shape:
        if type(d) is not Dim:
            return None
        total = total * d
    return total - selected_count(int(found.group(1)))


def selected_count(line: int) -> Dim:
    """How many items a boolean mask whose shape was made at ``line`` selects
    (``x[mask]``): a size only the data fixes, the same for each array the mask selects
    from (``x[mask] / mag[mask]``), compared with itself and with constants, and with
    no other size (an annotation may name it: ``Float[Tensor, "k_groups-1"]``)."""
    name = f"selected_{line}"
    _SELECTED.add(name)
    _DATA.add(name)
    return dims.symbol(name)


# symbol name -> (printed name, the unpacking or parameter it came from, whether it is
# compared only where provably different: an implied size)
_UNPACKED: dict = {}
_UNPACK_MARK = "\u1d58"  # "ᵘ": in no name an annotation gives (see unpacked_size)


def unpacked_size(name: str, line: int, group, module: str = "") -> Dim:
    """The size ``name`` that ``b, c, h, w = x.shape`` at ``line`` of ``module`` gives
    an array ``x`` whose rank nothing told: printed ``name``.

    Nothing ties it to another size, so it is compared only with the sizes of the
    same unpacking (``group``; ``c`` against ``h*w`` of one feature map) and with
    itself (``h`` against ``h-1``): never with a constant (the data may have 3
    channels) nor with a size an annotation or the instance names."""
    scope = re.sub(r"\W", "_", module)
    symbol = f"{name}{_UNPACK_MARK}{line}{_UNPACK_MARK}{scope}"
    _UNPACKED[symbol] = (name, group, False)
    return dims.symbol(symbol)


def implied_size(param: str, axis: int, owner: str) -> Dim:
    """Axis ``axis`` of an unannotated parameter ``param`` of function ``owner`` that its
    body reads as a torch tensor with leading axes (``defs.implied_axes``): printed
    ``x.shape[2]``. Nothing names it, and the function may mean two of them to be
    equal (a square matrix), so it is compared with the sizes of the same parameter
    only where they provably differ (``x.shape[2] - 1`` against ``x.shape[2]``)."""
    scope = re.sub(r"\W", "_", owner)
    symbol = f"{param}_{axis}{_UNPACK_MARK}{scope}"
    _UNPACKED[symbol] = (f"{param}.shape[{axis}]", (owner, param), True)
    return dims.symbol(symbol)


IMPLIED_REST = "\u2025"  # the mark of implied_rest (not an identifier)


def implied_rest(owner: str) -> Rest:
    """The axes after those an unannotated parameter's body reads (``x.size()[3]`` of
    ``tv_loss(x)``): the same axes in every value made from it (as :func:`own_rest`),
    most often none. Unlike an annotation's ``...``, nothing says the function works
    for every number of them, so no rule holds it to that (``rest_product`` is None)."""
    return Rest(OWN_REST + owner + IMPLIED_REST)


def is_implied_rest(rest) -> bool:
    """Whether ``rest`` is an :func:`implied_rest`."""
    return type(rest) is Rest and rest.name is not None and rest.name.endswith(IMPLIED_REST)


def unpacked_unrelated(a: Dim, b: Dim) -> bool | None:
    """How sizes ``a`` and ``b`` meet when one involves an unpacked size
    (:func:`unpacked_size`): True when they are never compared, False when they are
    compared as any two sizes are, None when neither involves one."""
    fa, fb = a.free_symbols, b.free_symbols
    ua, ub = _UNPACKED.keys() & fa, _UNPACKED.keys() & fb
    if not ua and not ub:
        return None
    if not ua or not ub or (fa | fb).difference(_UNPACKED):
        return True  # a constant or another size: never compared
    if len({_UNPACKED[s][1] for s in ua | ub}) != 1:
        return True
    if any(_UNPACKED[s][2] for s in ua | ub):
        return dims.eq(a, b) is not False  # implied sizes: only where provably different
    return False


_LENGTH_MARK = "\u02e1"  # "ˡ": in no name an annotation gives (see list_length)


def list_length(name: str, owner: str = "") -> Dim:
    """The length of a list parameter ``name`` of function ``owner`` (``names:
    list[str]``) nothing else tells: a size only the data fixes, printed
    ``len(names)``, compared with itself and with constants only, as what a mask
    selects (an annotation cannot name it, so it is never taken to differ from an
    array's size). Each function's parameter has its own."""
    scope = re.sub(r"\W", "_", owner)
    symbol = f"len{_LENGTH_MARK}{name}{_LENGTH_MARK}{scope}"
    _SELECTED.add(symbol)
    _DATA.add(symbol)
    _LENGTHS.add(symbol)
    return dims.symbol(symbol)


_LENGTHS: set = set()


def is_list_length(d) -> bool:
    """Whether size ``d`` is (a constant multiple of, or sum with) list lengths only
    (:func:`list_length`): what an annotation's constant may tell."""
    return type(d) is Dim and not d.is_constant and d.free_symbols <= _LENGTHS


def selected_unrelated(a: Dim, b: Dim) -> bool:
    """Whether ``a`` and ``b`` are never compared for involving different selected
    counts (:func:`selected_count`), or one and a size that is not a constant."""
    sa, sb = _SELECTED & a.free_symbols, _SELECTED & b.free_symbols
    if not sa and not sb:
        return False
    if sa == sb:
        return False
    return not (a.is_constant or b.is_constant)


_COUNTS: dict = {}  # symbol name -> (printed name, the sizes it is compared with)
_COUNT_MARK = "\u1d9c"  # "ᶜ": in no name an annotation gives (see call_count)


def call_count(name: str, line: int | str, siblings) -> Dim:
    """A count only the data fixes, made by a call at ``line`` of a function whose
    return annotation names it ``name`` and nothing binds it (``c`` of ``-> Bool[Tensor,
    "... c n"]``, ``torch.unique``'s count in the body): printed ``c@line``.

    The callee's signature says it differs from the sizes the call's arguments bound
    (``siblings``: ``n``, the caller's size its ``n`` took), so it is compared with
    them, and with itself; it is never compared with a constant or with another size
    of the caller, which the caller may know to be that count (a number of chains
    counted elsewhere). ``line`` may instead name the class of a property of ``self``
    (``n@TemplateHit``): the count its properties give each time they are read."""
    symbol = f"{name}{_COUNT_MARK}{line}"
    printed, before = _COUNTS.get(symbol, (f"{name}@{line}", frozenset()))
    _COUNTS[symbol] = (printed, before | frozenset(siblings))
    _DATA.add(symbol)
    return dims.symbol(symbol)


def counts_unrelated(a: Dim, b: Dim) -> bool | None:
    """How sizes ``a`` and ``b`` meet when one involves a count of a call
    (:func:`call_count`): True when they are never compared, False when they are
    compared as any two sizes are, None when neither involves one."""
    ca = _COUNTS.keys() & a.free_symbols
    cb = _COUNTS.keys() & b.free_symbols
    if not ca and not cb:
        return None
    if ca == cb:
        return False  # the same count (``c`` and ``c+1``): compared
    if a.is_constant or b.is_constant:
        return True
    siblings: frozenset = frozenset()
    for name in ca | cb:
        siblings |= _COUNTS[name][1]
    plain = (a.free_symbols | b.free_symbols).difference(_COUNTS)
    return not (plain and plain <= siblings)


_FIELDS: dict = {}  # symbol name -> (field name, the int fields of its class)
_MARK = "\u1da0"  # "ᶠ": in no name an annotation gives (see field_size)


def field_size(name: str, owner: str, siblings=frozenset()):
    """The size an int field ``name`` of class ``owner`` stands for on an instance that
    comes in (``cfg.d_in`` of ``cfg: Config``), or None if no size may be named so.

    It is a symbol of its own (printed ``d_in``), never compared with a constant or
    with a size an annotation names, with two exceptions: a size of the same name
    is the same size (``torch.zeros(cfg.d_in)`` fits ``Float[Tensor, "d_in"]``),
    and a size named like another int field of the class (``siblings``) is a
    different one (``d_sae`` is not ``d_in``). Two fields are different sizes
    unless they have the same name. So a configuration's sizes are checked against
    each other and against the annotations that use their names, and nothing is
    said where the code only assumes a value (``n_output_dims`` is 3 by default).
    """
    if not name.isidentifier() or name in ("min", "max") or not owner.isidentifier():
        return None
    symbol = f"{name}{_MARK}{owner}"
    if symbol not in _FIELDS:
        _FIELDS[symbol] = (name, frozenset(siblings) | {name})
    return dims.symbol(symbol)


def is_field_size(d) -> bool:
    """Whether size ``d`` involves one made by :func:`field_size`."""
    return type(d) is Dim and not d.is_constant and any(_MARK in name for name in d.free_symbols)


def field_named(d: Dim) -> Dim:
    """``d`` with each field size renamed to its field's name (``d_inᶠConfig`` is
    ``d_in``)."""
    names = {n: dims.symbol(_FIELDS[n][0]) for n in d.free_symbols if n in _FIELDS}
    return d.substitute(names) if names else d


_INPUTS: list = [frozenset()]  # the sizes the walked function's parameters bind


_SIGNATURE: list = [None]  # the walked function's annotation names, or how to find them


@contextmanager
def inputs(names, signature=None):
    """Within: the sizes the parameters of the function being walked bind (``frame.where``
    after ``bind_params``), which a field's size is compared with. ``signature``: a
    function giving the size names its parameters' annotations write (read when asked,
    :func:`signature_sizes`)."""
    _INPUTS.append(frozenset(names))
    _SIGNATURE.append(signature)
    try:
        yield
    finally:
        _INPUTS.pop()
        _SIGNATURE.pop()


def signature_sizes(declared: bool = False) -> frozenset:
    """The size names the annotations of the walked function's parameters write, also
    inside containers (``dict[str, Float[Tensor, "1 seq n"]]``): sizes each call may
    choose. Empty outside a function. With ``declared``, also those the attributes
    of the parameters' classes are declared with (``info.alive_masks``): each call
    brings an instance of its own, though one its class's code may build with a size
    fixed as used (a one-atom ``element``)."""
    found = _SIGNATURE[-1]
    if found is None:
        return frozenset()
    if not isinstance(found, tuple):
        own, more = found()
        found = _SIGNATURE[-1] = (frozenset(own), frozenset(own) | frozenset(more))
    return found[1] if declared else found[0]


def fields_unrelated(a: Dim, b: Dim) -> bool | None:
    """How sizes ``a`` and ``b`` meet when one involves a field size (:func:`field_size`):
    True when they are never compared (or equal by their names), False when they
    are compared as any two sizes are, None when neither involves one. A size the
    function's parameters bind under a name of its own (``d_model`` of ``x:
    Float[Tensor, "batch pos d_model"]`` against ``cfg.n_embd``) is named in another
    scope: never compared, as :func:`instance_unrelated` says of an instance's sizes."""
    fa = [n for n in a.free_symbols if n in _FIELDS]
    fb = [n for n in b.free_symbols if n in _FIELDS]
    if not fa and not fb:
        return None
    na, nb = field_named(a), field_named(b)
    if na is nb or dims.eq(na, nb) is True:
        return True
    if a.is_constant or b.is_constant:
        # a field's value: the configuration's, not known here; but a product with it
        # (``3*batch_size`` against 3) is larger for every value of 2 or more, and 1 is
        # the value no size is taken to have (as where arrays broadcast)
        size, constant = (b, a) if a.is_constant else (a, b)
        return not holds_from(dims.gt, size, constant, 2)
    if len({_field_owner(n) for n in (*fa, *fb)}) > 1:
        return True  # fields of two classes (a configuration's, an instance's): not compared
    siblings: set = set()
    for name in (*fa, *fb):
        siblings |= _FIELDS[name][1]
    plain = (a.free_symbols | b.free_symbols).difference(_FIELDS)
    return not plain <= siblings.difference(_RENAMED[-1])


def holds_from(compare, a: Dim, b: Dim, least: int) -> bool:
    """Whether ``compare(a, b)`` (``dims.ge``, ``dims.gt``) provably holds for every value
    of ``least`` or more of each symbol: ``3*n`` is greater than 3 for every ``n`` of 2
    or more; ``n`` is not, nor ``n - 1`` than 1.

    >>> n = dims.symbol("n")
    >>> holds_from(dims.gt, 3 * n, dims.const(3), 2), holds_from(dims.gt, n, dims.const(3), 2)
    (True, False)
    """
    shifted = {name: dims.symbol(name) + least for name in a.free_symbols | b.free_symbols}
    try:
        return compare(a.substitute(shifted), b.substitute(shifted)) is True
    except (ArithmeticError, ValueError):
        return False


def _field_owner(symbol: str) -> str:
    """The class a field size's symbol belongs to (``d_inᶠConfig``: ``Config``)."""
    return symbol.partition(_MARK)[2]


def is_field_symbol(name: str) -> bool:
    """Whether the symbol ``name`` is a configuration field's size (:func:`field_size`)."""
    return name in _FIELDS


def is_data_size(d) -> bool:
    """Whether size ``d`` involves one made by :func:`data_size`."""
    return type(d) is Dim and not d.is_constant and not _DATA.isdisjoint(d.free_symbols)


def is_anonymous(d) -> bool:
    """Whether size ``d`` involves one made by :func:`anonymous_axis` (``3*x_0``)."""
    return type(d) is Dim and not d.is_constant and not _ANONYMOUS.isdisjoint(d.free_symbols)


_INSTANCE: list = [()]  # the size scopes of the instance of the walked method


@contextmanager
def instance(scopes, renamed=frozenset(), given=frozenset()):
    """Within: the scopes of the names of sizes the instance a method is walked on was
    built with, one per class of its resolution order (the parameters of that class's
    ``__init__`` and the names of its declared attributes' shapes); a size the
    method's own parameters bind is named in a scope of its own. ``renamed``: the
    attributes ``__init__`` sets to something other than the configuration's field of
    that name (``self.rotary_dim = self.head_dim``), whose name then means the
    instance's value, not the field (see :func:`fields_unrelated`). ``given``: the
    fields of a dataclass instance (:func:`instance_names`)."""
    _INSTANCE.append(tuple(s for s in scopes if s))
    _RENAMED.append(frozenset(renamed))
    _GIVEN.append(frozenset(given))
    _MET.append({})
    _TOGETHER.append(set())
    try:
        yield
    finally:
        _INSTANCE.pop()
        _RENAMED.pop()
        _GIVEN.pop()
        _MET.pop()
        _TOGETHER.pop()


_RENAMED: list = [frozenset()]  # attribute names the walked method's instance redefines


_GIVEN: list = [frozenset()]  # the fields of the walked method's dataclass instance


def instance_names() -> frozenset:
    """The fields of the dataclass instance a method is walked on: such a name in the
    method's own annotations, where its parameters leave it free, is that field's size
    (``self.k_groups`` of a field ``k_groups: int`` against a return annotation
    ``"k_groups n_components"``). The names in the shapes of declared attributes are
    not: an attribute may be set again with other sizes (a cache that grows)."""
    return _GIVEN[-1]


_AXES: list = [None]  # the operation's array operands (their axes counted when asked)


@contextmanager
def operand_axes(values):
    """Within: the operands of an operation, whose axes :func:`instance_unrelated`
    counts (a size that occurs more than once among them is compared)."""
    _AXES.append(values)
    try:
        yield
    finally:
        _AXES.pop()


def _axis_counts() -> tuple:
    """How often each size occurs among the axes of the current operation's operands,
    and the sizes of each operand."""
    values = _AXES[-1]
    if values is None:
        return {}, ()
    if type(values) is tuple:  # counted already for this operation
        return values
    counts: dict = {}
    shapes = []
    for v in values:
        if type(v) is Arr and v.shape is not None:
            sizes = []
            for d in v.shape:
                d = d.dim if type(d) is Bcast else d
                if type(d) is Dim and not d.is_constant:
                    counts[d] = counts.get(d, 0) + 1
                    sizes.append(d)
            shapes.append(sizes)
    found = _AXES[-1] = (counts, tuple(shapes))
    return found


def instance_unrelated(a: Dim, b: Dim) -> bool:
    """Whether ``a`` and ``b`` are named in different scopes and in no common one: never
    compared.

    ``forward(self, x: Float[Tensor, "... d_in"])`` of a layer built as
    ``nn.Parameter(torch.empty(input_dim, output_dim))``: the method takes any ``d_in``
    and the instance has one ``input_dim``; nothing in either annotation relates the
    two names, so which calls are right is the caller's business (sizes computed
    from them too: ``pae`` of the method's logits against ``pae_breaks+1`` of the
    instance's bin edges). So too a name of a
    base class's ``__init__`` (``u_dim``) and one of the subclass's (``d_out``, which
    it passes as ``u_dim=d_out``). A size of the same name is the same size in every
    scope; two sizes of one scope (``hidden`` and ``2*hidden`` of one ``__init__``;
    ``n`` and ``m`` of one signature) are compared as any two sizes are; a size
    named in no scope (a local annotation's, a count the data fixes) too.

    Where a name of the method first meets a size of the instance, the code needs
    them equal from there on: later, that name stands for that size (``self.norm(x)``
    of a ``LayerNorm(dim)`` makes ``x``'s ``d`` the instance's ``dim``, which a
    ``Linear(dim_cond, dim)`` then meets as ``dim`` against ``dim_cond``).
    """
    built = _INSTANCE[-1]
    if not built:
        return False
    apart = _apart_scopes(a, b, built)
    if not apart:
        return False
    met = _MET[-1]
    if met:
        # a name of the method that met a size of the instance is that size from then on
        ma, mb = met.get(a, a), met.get(b, b)
        if ma is not a or mb is not b:
            if ma is mb or dims.eq(ma, mb) is True:
                return True
            if _apart_scopes(ma, mb, built) is False:
                return False
    if not _laid_out(a, b) and frozenset((a, b)) not in _TOGETHER[-1]:
        # Not compared; but the code needs them equal from here on (``self.norm(x)`` of a
        # ``LayerNorm(dim)`` and ``x: "b n d"``): the method's name stands for the
        # instance's size in later comparisons (``self.to_gamma(normed)`` of a
        # ``Linear(dim_cond, dim)``: ``d`` is ``dim``, not ``dim_cond``).
        if a.is_symbol and apart == "a" and a not in met:
            met[a] = b
        elif b.is_symbol and apart == "b" and b not in met:
            met[b] = a
        return True
    return False


def _apart_scopes(a: Dim, b: Dim, built):
    """Whether ``a`` and ``b`` are named in different scopes and in no common one: then
    which of them is named only by the method (``"a"``, ``"b"``, or True for neither),
    else False."""
    fa, fb = a.free_symbols, b.free_symbols
    if not fa or not fb:
        return False
    inputs = _INPUTS[-1]
    scopes = (inputs, *built)
    in_a = [s for s in scopes if fa <= s]
    in_b = [s for s in scopes if fb <= s]
    if not in_a or not in_b or any(s in in_b for s in in_a):
        return False
    if in_a == [inputs]:
        return "a"
    if in_b == [inputs]:
        return "b"
    return True


_MET: list = [{}]  # a method's name -> the instance's size it met (instance_unrelated)
_TOGETHER: list = [set()]  # pairs of sizes the method laid out as axes of one array


def laid_out_together(shape) -> None:
    """Record that the method being walked holds an array with these axes: two of its
    sizes, one the instance's and one the method's (``(m, sd)`` of atoms against the
    instance's surface dots), are then compared as any two sizes are wherever they meet
    later in the method, as they are within one operation (``_laid_out``)."""
    if len(_INSTANCE) < 2 or shape is None:
        return
    sizes = [d for d in shape if type(d) is Dim and not d.is_constant]
    if len(sizes) < 2 or len(sizes) > 8:
        return
    together = _TOGETHER[-1]
    for i, a in enumerate(sizes):
        for b in sizes[i + 1 :]:
            if a is not b:
                together.add(frozenset((a, b)))


def _laid_out(a: Dim, b: Dim) -> bool:
    """Whether ``a`` or ``b`` is an axis of the operation's operands more than once, and
    one operand has both or one of them twice (``q @ k`` of two ``(b, h, t, hd)``:
    ``hd`` meets ``t``; scores ``(b, h, hd, hd)`` against a ``(t, t)`` mask: a layout).
    Not ``heads`` of two operands built by the instance against ``h`` of a third that
    only the method names (``v.lerp(value_residual, mix)``)."""
    counts, shapes = _axis_counts()
    if not (counts.get(a, 0) > 1 or counts.get(b, 0) > 1):
        return False
    return any(
        (a in sizes and b in sizes) or sizes.count(a) > 1 or sizes.count(b) > 1 for sizes in shapes
    )


def unrelated(a, b) -> bool:
    """Two sizes that are never compared: one involves an axis of a ``...``, and the
    other is not a constant; or what a mask selects or a callee's count meets a size
    it is not compared with (:func:`selected_unrelated`, :func:`counts_unrelated`); or
    a field's size meets a size it is not compared with (:func:`fields_unrelated`,
    unless both are axes of the operands more than once); or a size of the instance
    meets one the method binds under another name (:func:`instance_unrelated`)."""
    if type(a) is not Dim or type(b) is not Dim:
        return False
    if _SELECTED and selected_unrelated(a, b):
        return True
    if _COUNTS:
        found = counts_unrelated(a, b)
        if found is not None:
            return found
    if _UNPACKED:
        found = unpacked_unrelated(a, b)
        if found is not None:
            return found
    if _FIELDS:
        found = fields_unrelated(a, b)
        if found is not None:
            # a layout, as for an instance's sizes: ``q @ k.transpose(1, 2)`` of two
            # arrays that both have the head count and the head size as axes
            return found and not _laid_out(a, b)
    if len(_INSTANCE) > 1 and instance_unrelated(a, b):
        return True
    return is_anonymous(a) and is_anonymous(b) and a.free_symbols != b.free_symbols


def anonymized(value):
    """``value`` with the ``...`` of parameters (:func:`own_rest`) made plain ``...``:
    what leaves the function they belong to (its inferred result, the attributes
    ``__init__`` sets), where another call or method has parameters of the same name."""
    t = type(value)
    if t is Arr:
        shape = value.shape
        if shape is None or not any(
            type(d) is Rest and d.name is not None and d.anonymous for d in shape
        ):
            return value
        return value.with_(
            shape=tuple(Rest(None) if type(d) is Rest and d.anonymous else d for d in shape)
        )
    if t is TupleV:
        return TupleV(tuple(anonymized(v) for v in value.items))
    if t is UnionV:
        return UnionV(tuple(anonymized(v) for v in value.items))
    if t is ListV:
        items = None if value.items is None else tuple(anonymized(v) for v in value.items)
        return ListV(items, anonymized(value.elem), value.kind)
    return value
