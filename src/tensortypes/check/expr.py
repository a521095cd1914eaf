"""Expressions: the abstract value of each expression node (layer 6: ``check``).

:class:`ExprMixin` is the part of the walker (``check.infer.Checker``) that
evaluates expressions over the values of ``check.symbolic``: names, constants,
attributes (``x.shape``, ``x.T``, ``self.fc``), arithmetic and comparisons with
broadcasting, ``@``, tuples and lists. Indexing is in ``check.indexing``,
calls in ``check.calls``. A rule that fails raises ``CheckFailure``; it is reported at
the node being evaluated and the expression becomes ``UNKNOWN``, so one bug
gives one error rather than a cascade.
"""

from __future__ import annotations

import ast
from fractions import Fraction

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import bool_

from .host import CheckerHost
from .diagnostics import CheckFailure
from .joins import (
    arrays_union,
    element_of,
    join_values,
    length_of,
    may_be_none,
    strip_none,
    union_of,
)
from .rules import dtype_object
from .rules import shapefns as sf
from .rules import distributions, pretrained
from .rules.access import shape_value, sizes_value
from .rules.base import int_const
from .rules.ops import binary, matmul
from .symbolic import (
    sequence_value,
    DistV,
    LibV,
    NONE,
    UNKNOWN,
    Arr,
    BoolV,
    ClassV,
    DictV,
    DTypeV,
    FloatV,
    FuncV,
    InstV,
    IntV,
    LayerV,
    PartialV,
    ListV,
    MethodV,
    NoneV,
    Ref,
    Rest,
    ShapeV,
    StrV,
    TupleV,
    UnionV,
    Unknown,
    exact_float,
    float_arith,
    fmt_shape,
    changed_rest,
    negated,
    LambdaV,
    complement_origin,
    mask_line,
)

__all__ = [
    "ExprMixin",
    "Labels",
    "ELLIPSIS",
    "SIZED_METHODS",
    "SOME_TENSOR",
    "sized_call",
    "label_of",
    "attr_key",
    "read_keys",
]

# Float constants of the libraries (``math.pi``, ``torch.inf``), read as Python floats.
_FLOAT_CONSTANTS = frozenset(
    (
        "math.pi",
        "math.e",
        "math.tau",
        "math.inf",
        "math.nan",
        "numpy.pi",
        "numpy.e",
        "numpy.inf",
        "numpy.nan",
        "jax.numpy.pi",
        "jax.numpy.inf",
        "torch.pi",
        "torch.e",
        "torch.inf",
        "torch.nan",
    )
)

_UNROLL = 8  # items of a literal a comprehension over it is evaluated for, one by one

ELLIPSIS = Ref("builtins.Ellipsis")

# Methods whose call with sizes only a PyTorch tensor takes, and whose result's shape
# the sizes fix: ``.view(b, n, -1)``, ``.expand(b, -1, d)``, ``.repeat(b, 1, 1)``. On a
# value nothing is known about (``self.network(x).view(b, h, w, c)``) they give that
# shape; a call of another form (``.view(dtype)``, ``.repeat(n)`` as NumPy's and
# pandas' take) stays unknown (``sized_call``).
SIZED_METHODS = {"view": 1, "expand": 2, "repeat": 3}
SOME_TENSOR = Arr("torch", None, None)
_BROADCASTING = frozenset({"+", "-", "*", "/", "//", "%", "**"})
_ARITH = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}


class Labels:
    """Source text of call arguments, made only when a message needs it."""

    __slots__ = ("nodes", "cache")

    def __init__(self, nodes: dict):
        self.nodes = nodes
        self.cache: dict = {}

    def item(self, key, i: int) -> str | None:
        """The source text of item ``i`` of a list or tuple literal argument, else None."""
        node = self.nodes.get(key)
        if (
            isinstance(node, (ast.List, ast.Tuple))
            and i < len(node.elts)
            and not isinstance(node.elts[i], ast.Starred)
        ):
            return label_of(node.elts[i])
        return None

    def get(self, key, default=None):
        found = self.cache.get(key)
        if found is None:
            node = self.nodes.get(key)
            if node is None:
                return default
            found = label_of(node)
            self.cache[key] = found
        return found


_OPERANDS = (Arr, IntV, FloatV, BoolV)


def _open_transposed(shape, attr: str):
    """``x.T``/``x.mT`` of a shape with a ``*rest``. ``.mT`` swaps the last two axes
    when both are fixed. ``.T`` reverses every axis: the fixed axes after the rest
    come first, reversed, and the rest's axes follow, reversed too, as a ``...`` of
    their own (a batch, as its source is: ``x.T`` of ``x (..., d)`` is ``(d, ...)``,
    whose last axis is the first of the batch). None when not known so."""
    prefix, rest, suffix = sf.split_rest(shape)
    if attr in ("mT", "mH"):
        if len(suffix) < 2:
            return None
        return (*prefix, rest, *suffix[:-2], suffix[-1], suffix[-2])
    return (*reversed(suffix), changed_rest(rest, ".T"), *reversed(prefix))


def _repeated(left, right):
    """``[x] * 2`` (or ``2 * (a, b)``): a list or tuple of known items repeated a small
    constant number of times; ``[x] * k`` of a count not known: a list of ``x`` of
    length ``k`` (``torch.cat([x] * k, dim=1)``); else None."""
    seq, count = (left, right) if type(left) in (ListV, TupleV) else (right, left)
    if type(seq) not in (ListV, TupleV) or seq.items is None or type(count) is not IntV:
        return None
    k = count.dim.value if count.dim is not None else None
    if k is None:
        items = seq.items
        if type(seq) is not ListV or not items or any(v is not items[0] for v in items):
            return None
        return ListV(None, items[0], length=None if count.dim is None else count.dim * len(items))
    if not 0 <= k * len(seq.items) <= 64:
        return None
    return ListV(seq.items * k) if type(seq) is ListV else TupleV(seq.items * k)


def label_of(node) -> str:
    """Short source text of a node for messages."""
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _int_dim(value: IntV, op: str, other: IntV):
    a, b = value.dim, other.dim
    if a is None or b is None:
        return None
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "//":
            return None if b.is_constant and b.value == 0 else a // b
        if op == "%":
            return None if b.is_constant and b.value == 0 else a % b
        if op == "**" and b.is_constant and 0 <= b.value <= 8:
            return a**b.value
    except (ValueError, ArithmeticError, TypeError):
        return None
    return None


class ExprMixin(CheckerHost):
    """Expression evaluation for the walker (needs ``report``, ``module``, ``call_node``)."""

    # -- entry -------------------------------------------------------------------------
    def eval(self, node, frame):
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child, frame)
            return UNKNOWN
        try:
            value = method(node, frame)
        except CheckFailure as failure:
            self.fail(node, failure, frame)
            return UNKNOWN
        if self.record is not None:
            # The editor's hover: what each expression is (the last walk of it wins).
            self.record[node] = value
        return value

    def e_Constant(self, node, frame):
        v = node.value
        if v is None:
            return NONE
        if v is True or v is False:
            return BoolV(v)
        if type(v) is int:
            return IntV(dims.const(v)) if abs(v) < (1 << 62) else IntV()
        if type(v) is float:
            if v != v or abs(v) == float("inf"):
                return FloatV()
            return exact_float(Fraction(v), Fraction(0), None)
        if type(v) is str:
            return StrV(v)
        if v is Ellipsis:
            return ELLIPSIS
        return UNKNOWN

    def partial_value(self, path: str, keywords: tuple) -> PartialV:
        """The value of a module-level ``partial(path, k=constant, ...)``."""
        return PartialV(Ref(path), tuple((k, self.e_Constant(v, None)) for k, v in keywords))

    def e_Name(self, node, frame):
        name = node.id
        found = frame.vars.get(name)
        if found is not None:
            return found
        module = self.module
        if name in module.functions:
            return FuncV(module.functions[name])
        if name in module.classes:
            return ClassV(module.classes[name])
        if name in module.constants:
            return IntV(dims.const(module.constants[name]))
        if name in module.sequences and name not in frame.globals:
            # a module-level list or tuple of literals: its length
            return sequence_value(module.sequences[name])
        if name in frame.globals:
            return frame.globals[name]
        if name in module.partials:
            return self.partial_value(*module.partials[name])
        path = module.path_of(node)
        if path is not None:
            if path in _FLOAT_CONSTANTS:  # ``from math import pi``
                return FloatV()
            found = dtype_object(path)
            if found is None and module.project is not None:
                value = _project_constant(module, path)
                if value is not None:  # ``from .config import HIDDEN, residue_types``
                    return value
                bound = module.project.partial(path, module.local)
                if bound is not None:  # ``from .layers import LinearNoBias``
                    return self.partial_value(*bound)
            return DTypeV(found) if found is not None else Ref(path)
        return UNKNOWN

    def e_JoinedStr(self, node, frame):
        return StrV()

    def e_Tuple(self, node, frame):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            items = self.starred_items(node.elts, frame)
            return TupleV(items) if type(items) is tuple else items
        return TupleV(tuple(self.eval(e, frame) for e in node.elts))

    def e_List(self, node, frame):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            items = self.starred_items(node.elts, frame)
            return (
                ListV(items) if type(items) is tuple else ListV(None) if items is UNKNOWN else items
            )
        return ListV(tuple(self.eval(e, frame) for e in node.elts))

    def starred_items(self, elts, frame):
        """The items of ``(a, *t, b)``: a tuple of values when each starred part is of
        known length, a ``ShapeV`` when one is the shape of an array of open rank
        (``(*x.shape[:-1], k)``), else UNKNOWN."""
        items: list = []
        known = True
        for e in elts:
            if not isinstance(e, ast.Starred):
                items.append(self.eval(e, frame))
                continue
            value = self.eval(e.value, frame)
            if type(value) in (TupleV, ListV) and value.items is not None:
                items.extend(value.items)
            elif type(value) is ShapeV:
                items.append(value)
            else:
                known = False
        if not known:
            return UNKNOWN
        if any(type(v) is ShapeV for v in items):
            return sizes_value(items)
        return tuple(items)

    def e_Dict(self, node, frame):
        items: dict | None = {}
        for key, value in zip(node.keys, node.values):
            v = self.eval(value, frame)
            if key is not None:
                self.eval(key, frame)  # for its diagnostics; the constant key is read below
            const = (
                key.value
                if isinstance(key, ast.Constant) and type(key.value) in (str, int)
                else None
            )
            if const is None or items is None:
                items = None  # ``**other`` or a key only known at run time
            else:
                items[const] = v
        return DictV(items)

    def e_ListComp(self, node, frame):
        """``[f(x) for x in xs if c]``: a list of unknown length of ``f(x)``'s value;
        over a literal list or tuple (``for i in [a, b, c]``, no ``if``), the list of
        ``f`` of each item (:meth:`unrolled`)."""
        items = self.unrolled(node, frame)
        if items is not None:
            return ListV(items)
        lengths: list = []
        elem = self.comprehension(node.generators, node.elt, frame, lengths)
        return ListV(None, elem, length=lengths[0] if lengths else None)

    def unrolled(self, node, frame) -> tuple | None:
        """The values of a comprehension's element for each item of the literal it runs
        over (at most ``_UNROLL`` items, one ``for``, no ``if``), or None. An error is
        reported for the first item that has one; the later items are evaluated quietly.
        Not within another such comprehension: the work stays linear in the source."""
        if len(node.generators) != 1 or self.unrolling:
            return None
        gen = node.generators[0]
        source = gen.iter
        if (
            gen.ifs
            or gen.is_async
            or not isinstance(source, (ast.List, ast.Tuple))
            or not 0 < len(source.elts) <= _UNROLL
            or any(isinstance(e, ast.Starred) for e in source.elts)
        ):
            return None
        values = [self.eval(e, frame) for e in source.elts]
        out = []
        quiet = 0
        self.unrolling = True
        try:
            for value in values:
                inner = frame.copy()
                self.quiet += 1
                try:
                    self.assign(gen.target, value, inner, source, declared=False)
                finally:
                    self.quiet -= 1
                before = len(self.diagnostics)
                out.append(self.eval(node.elt, inner))
                if len(self.diagnostics) > before and not quiet:
                    quiet = 1
                    self.quiet += 1
        finally:
            self.quiet -= quiet
            self.unrolling = False
        return tuple(out)

    def e_GeneratorExp(self, node, frame):
        """As :meth:`e_ListComp`, an iterator: ``tuple(pad(t) for t in (q, k, v))``
        gives the three padded arrays."""
        items = self.unrolled(node, frame)
        if items is not None:
            return ListV(items, kind="iterator")
        lengths: list = []
        elem = self.comprehension(node.generators, node.elt, frame, lengths)
        return ListV(None, elem, "iterator", lengths[0] if lengths else None)

    def e_SetComp(self, node, frame):
        self.comprehension(node.generators, node.elt, frame)
        return UNKNOWN

    def e_DictComp(self, node, frame):
        return DictV(None, self.comprehension(node.generators, node.value, frame))

    def comprehension(self, generators, elt, frame, lengths=None):
        """The value of ``elt`` for one element of the generators (its own scope).
        ``lengths`` gets the number of elements when one ``for`` without ``if`` runs
        over an iterable of known length."""
        inner = frame.copy()
        for gen in generators:
            iterable = self.eval(gen.iter, inner)
            if lengths is not None and len(generators) == 1 and not gen.ifs:
                found = length_of(iterable)
                if found is not None:
                    lengths.append(found)
            self.quiet += 1  # unpacking a joined element is approximate: no report
            try:
                self.assign(gen.target, element_of(iterable), inner, gen.iter, declared=False)
            finally:
                self.quiet -= 1
            for test in gen.ifs:
                self.eval(test, inner)
                inner = self.narrow(test, inner, True)
        return self.eval(elt, inner)

    def e_IfExp(self, node, frame):
        test = self.eval(node.test, frame)
        if type(test) is BoolV and test.value is not None:
            # ``(-dim - 1) if dim < 0 else ...`` of a literal ``dim``: one branch runs
            return self.eval(node.body if test.value else node.orelse, frame)
        yes = self.eval(node.body, self.narrow(node.test, frame, True))
        no = self.eval(node.orelse, self.narrow(node.test, frame, False))
        self.last_ifexp = (node, yes, no)  # for an assignment's flag correlation
        return join_values(yes, no)

    def e_BoolOp(self, node, frame):
        values = []
        current = frame
        for value_node in node.values:
            values.append(self.eval(value_node, current))
            current = self.narrow(value_node, current, isinstance(node.op, ast.And))
        if all(type(v) is BoolV for v in values):
            return BoolV()
        out = values[0]
        for v in values[1:]:
            out = join_values(strip_none(out) if isinstance(node.op, ast.Or) else out, v)
        return out

    def e_NamedExpr(self, node, frame):
        value = self.eval(node.value, frame)
        frame.vars[node.target.id] = value
        return value

    def e_Lambda(self, node, frame):
        return LambdaV(node, frame, self)

    def e_UnaryOp(self, node, frame):
        value = self.eval(node.operand, frame)
        if isinstance(node.op, ast.Not):
            return BoolV()
        value = self.check_optional(value, node.operand, frame)
        if type(value) is IntV and isinstance(node.op, ast.USub):
            return IntV(-value.dim if value.dim is not None else None)
        if type(value) is FloatV and isinstance(node.op, ast.USub):
            return negated(value)
        if type(value) in (Arr, FloatV, IntV):
            if type(value) is not Arr:
                return value
            made = (
                mask_line(value)
                if isinstance(node.op, ast.Invert) and value.dtypes == frozenset({bool_})
                else None
            )
            if made is not None:
                # ``~m`` selects what ``m`` does not (``symbolic.complement_count``);
                # ``~~m`` is ``m`` again
                twice = value.origin == complement_origin(made)
                return value.with_(origin=None if twice else complement_origin(made))
            return value.with_(origin=None)
        return UNKNOWN

    # -- attributes ----------------------------------------------------------------------
    def e_Attribute(self, node, frame):
        key = attr_key(node)
        if key is not None and key in frame.vars:
            return frame.vars[key]
        receiver = self.eval(node.value, frame)
        found = self.attribute(receiver, node.attr, node, frame)
        if key is not None and key.count(".") == 2 and type(found) is UnionV:
            # ``self.config.path``, which __init__ left not None (``if ... is None:
            # self.config.path = "x"``) and no other method assigns.
            me = frame.vars.get(key.partition(".")[0])
            if (
                type(me) is InstV
                and key.partition(".")[2] in me.info.chains
                and not self.is_mutated(me.info, key.split(".")[1])
            ):
                found = strip_none(found)
        return found

    def attribute(self, receiver, attr: str, node, frame):
        t = type(receiver)
        if attr == "value" and isinstance(node, ast.Attribute):
            found = self.enum_value(receiver, node.value)
            if found is not None:
                return found
        if t is Ref:
            path = f"{receiver.path}.{attr}"
            if path in _FLOAT_CONSTANTS:
                return FloatV()
            if path in ("numpy.newaxis", "jax.numpy.newaxis"):
                return NONE
            found = dtype_object(path)
            if found is None and self.module is not None and self.module.project is not None:
                value = _project_constant(self.module, path)
                if value is not None:  # ``rc.NUM_TOKENS``, ``rc.residue_types``
                    return value
            return DTypeV(found) if found is not None else Ref(path)
        if t is UnionV and may_be_none(receiver):
            receiver = self.check_optional(receiver, node.value, frame)
            return self.attribute(receiver, attr, node, frame)
        if t is NoneV:
            return UNKNOWN
        if t is Arr:
            return self.array_attribute(receiver, attr, node)
        if t is ClassV:
            found = self.find_method(receiver.info, attr)
            if found is not None and found.is_static:
                # ``ComponentModel._create_components(...)``: a static method, called
                # as through an instance (it takes none)
                return MethodV(InstV(receiver.info), attr)
            return UNKNOWN
        if arrays_union(receiver):
            if type(self.array_attribute(receiver.items[0], attr, node)) is MethodV:
                return MethodV(receiver, attr)  # called on each member (``call_method``)
            return self.over_arrays(receiver, lambda v: self.array_attribute(v, attr, node))
        if t is InstV:
            return self.instance_attribute(receiver, attr, node, frame)
        if t is LayerV:
            return self.layer_attribute(receiver, attr)
        if t is LibV:
            return pretrained.attribute(receiver, attr)
        if t is DistV:
            if attr in distributions.METHODS:
                return MethodV(receiver, attr)
            return distributions.attribute(receiver, attr)
        if t is TupleV and attr in ("values", "indices") and len(receiver.items) == 2:
            return receiver.items[attr == "indices"]
        if (
            (t is TupleV and receiver.plain) or (t is ListV and receiver.kind == "tuple")
        ) and not hasattr(tuple, attr):
            # ``idx = torch.where(mask)`` then ``idx.item()``: a tuple of arrays
            self.report(
                node,
                "attr",
                f"tuple has no attribute {attr!r}: {label_of(node.value)} is a tuple of "
                f"arrays (unpack it, `{label_of(node.value)}, *_ = ...`, or take [0])",
                self.assigned_note(node.value, "a tuple of arrays", frame),
            )
            return UNKNOWN
        if t in (StrV, ListV, TupleV, IntV, FloatV, DTypeV, DictV):
            if t is DTypeV and attr == "is_floating_point":
                return MethodV(receiver, attr)
            return MethodV(receiver, attr)
        if t is Unknown and attr in SIZED_METHODS:
            return MethodV(SOME_TENSOR, attr)
        return UNKNOWN

    def enum_value(self, member, node):
        """``Color.RED.value`` of an ``Enum`` of the project whose member is a literal
        number (``RED = 1``), or None."""
        found = None
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.module.classes
        ):
            found = self.module.enum_values.get(f"{node.value.id}.{node.attr}")
        elif type(member) is Ref and self.project is not None:
            found = self.project.enum_value(
                self.project.canonical(member.path, self.module.local), self.module.local
            )
        if type(found) is int:
            return IntV(dims.const(found))
        return FloatV() if type(found) is float else None

    def array_attribute(self, x: Arr, attr: str, node):
        if attr == "shape":
            return shape_value(x)
        if attr in ("T", "mT", "H", "mH"):
            if attr == "T" and x.rank is not None:
                if x.kind == "torch" and x.rank > 2:
                    return x.with_(shape=tuple(reversed(x.shape)), origin=None, contiguous=False)
                return x.with_(shape=tuple(reversed(x.shape)), origin=None, contiguous=x.rank < 2)
            if attr in ("mT", "mH") and x.rank is not None:
                if x.rank < 2:
                    raise CheckFailure("rank", f".{attr} needs rank >= 2, got {fmt_shape(x.shape)}")
                return x.with_(
                    shape=(*x.shape[:-2], x.shape[-1], x.shape[-2]), origin=None, contiguous=False
                )
            if x.shape is not None:
                # its layout is not known: a view that splits an axis still works
                return x.with_(shape=_open_transposed(x.shape, attr), origin=None, contiguous=None)
            return x.with_(shape=None, origin=None)
        if attr == "ndim":
            return IntV(dims.const(x.rank)) if x.rank is not None else IntV()
        if attr == "dtype":
            return DTypeV(x.dtype) if x.dtype is not None else UNKNOWN
        if attr == "size" and x.kind in ("numpy", "jax"):
            return IntV(sf.product(x.shape)) if x.rank is not None else IntV()
        if attr in ("data", "grad", "real"):
            return x.with_(origin=None)
        if attr in (
            "device",
            "is_cuda",
            "requires_grad",
            "itemsize",
            "nbytes",
            "strides",
            "layout",
            "imag",
            "flat",
            "at",
            "names",
        ):
            return UNKNOWN
        return MethodV(x, attr)

    def layer_attribute(self, layer: LayerV, attr: str):
        args = layer.args
        if attr in args:
            return args[attr]
        if attr == "weight" and layer.rule.name == "Linear":
            out, inp = args.get("out_features"), args.get("in_features")
            shape = tuple(v.dim if type(v) is IntV else None for v in (out, inp))
            return Arr("torch", frozenset({layer.dtype}) if layer.dtype else None, shape)
        if attr in ("weight", "bias"):
            return Arr("torch", frozenset({layer.dtype}) if layer.dtype else None, None)
        return MethodV(layer, attr)

    # -- arithmetic ------------------------------------------------------------------------
    def e_BinOp(self, node, frame):
        left = self.check_optional(self.eval(node.left, frame), node.left, frame)
        right = self.check_optional(self.eval(node.right, frame), node.right, frame)
        if isinstance(node.op, ast.MatMult):
            return self.with_notes(
                lambda: matmul(
                    self.call_info("@", node),
                    left,
                    right,
                    label_of(node.left),
                    label_of(node.right),
                ),
                [(node.left, left), (node.right, right)],
                frame,
            )
        if isinstance(node.op, ast.Mult):
            repeated = _repeated(left, right)
            if repeated is not None:
                return repeated
        return self.arith(node, type(node.op), left, right, frame)

    def over_arrays(self, union, use):
        """``use`` of each array of a union of arrays (``Float["b m 3"] | Float["m 3"]``,
        or the arrays two branches made): the results of the members it fits, kept as
        one of them; an error only where every member fails, and only for members of
        one rank (of several layouts, which one the code has is not known)."""
        fits = self.members_that_fit(union.items, use)
        if fits:
            return union_of(fits)
        if len({v.rank for v in union.items}) > 1:
            return UNKNOWN
        return union_of([use(v) for v in union.items])

    def members_that_fit(self, members, use) -> list:
        """The results of ``use(member)`` for the members of a union it reports no error
        for, each tried quietly."""
        saved, self.caught = self.caught, []
        self.quiet += 1
        fits = []
        try:
            for member in members:
                before = len(self.caught)
                try:
                    result = use(member)
                except CheckFailure:  # this member's operation fails
                    continue
                if len(self.caught) == before:
                    fits.append(result)
        finally:
            self.quiet -= 1
            self.caught = saved
        return fits

    def arith(self, node, op_type, left, right, frame, nodes=None):
        op = _ARITH.get(op_type, "?")
        tl, tr = type(left), type(right)
        if tl is UnionV or tr is UnionV:
            # ``x - scale`` of ``scale: Union[float, Float[Tensor, "D"]]``: each member
            # (an array member may fail), the results kept as one of them.
            union, other = (left, right) if tl is UnionV else (right, left)
            if (
                type(other) in (*_OPERANDS, UnionV)
                and all(type(v) in _OPERANDS for v in union.items)
                and (type(other) is UnionV or any(type(v) is Arr for v in (other, *union.items)))
            ):

                def each(v):
                    return self.arith(
                        node,
                        op_type,
                        v if tl is UnionV else left,
                        right if tl is UnionV else v,
                        frame,
                        nodes,
                    )

                if sum(type(v) is Arr for v in union.items) > 1:
                    # One of several arrays (``Float[Tensor, "b n"] | Float[Tensor, "b d"]``,
                    # which a flag decides): an error only where every one of them fails.
                    fits = self.members_that_fit(union.items, each)
                    if fits:
                        return union_of(fits)
                    if len({v.rank for v in union.items if type(v) is Arr}) > 1:
                        # arrays of several layouts (a helper's ``Float["b m ..."] |
                        # Int["b m"]`` result), each failing here: which one the code
                        # has is not known, so no failure is either
                        return UNKNOWN
                return union_of([each(v) for v in union.items])
        if (
            op in _BROADCASTING
            and (tl is Unknown or (tl is Arr and left.shape is None))
            and (tr is Unknown or (tr is Arr and right.shape is None))
        ):
            # ``x / x.sum(1)`` of an ``x`` of unknown rank (known shapes are compared as
            # shapes); of a value not known to be an array, only after a library's
            # reduction (``torch.sum(x**2, dim=1)``), not any object's ``.sum(1)``
            ln, rn = nodes if nodes is not None else (node.left, node.right)
            self.against_reduction(ln, rn, node.lineno, frame, tl is not Arr or tr is not Arr)
        if tl is Arr or tr is Arr:
            kind = left.kind if tl is Arr else right.kind
            if op in ("&", "|", "^", "<<", ">>"):
                result = "promote"
            else:
                result = "float" if op == "/" else "promote"
            call = self.call_info(op, node, kind)
            ln, rn = nodes if nodes is not None else (node.left, node.right)
            value = self.with_notes(
                lambda: binary(call, left, right, result, label_of(ln), label_of(rn)),
                [(ln, left), (rn, right)],
                frame,
            )
            self.unsure_notes(call, node)
            return value
        if tl is IntV and tr is IntV:
            if op == "/":
                return float_arith(op, left, right)
            return IntV(_int_dim(left, op, right))
        if tl is BoolV and tr is BoolV and op in ("&", "|", "^"):
            return BoolV()
        if tl in (IntV, FloatV) and tr in (IntV, FloatV) and FloatV in (tl, tr):
            return float_arith(op, left, right)
        if tl in (IntV, FloatV, BoolV) and tr in (IntV, FloatV, BoolV):
            return FloatV() if FloatV in (tl, tr) or op == "/" else IntV()
        if tl is TupleV and tr is TupleV and op == "+":
            return TupleV(left.items + right.items)
        if op == "+" and ShapeV in (tl, tr) and tl in (TupleV, ShapeV) and tr in (TupleV, ShapeV):
            return sizes_value(
                [
                    *(left.items if tl is TupleV else (left,)),
                    *(right.items if tr is TupleV else (right,)),
                ]
            )
        if (
            op == "+"
            and Unknown in (tl, tr)
            and TupleV in (tl, tr)
            and all(type(v) is IntV for v in (left if tl is TupleV else right).items)
        ):
            # ``batch_dims + (C, H, W)`` of a tuple not known: some sizes, then these
            # (or these, then some sizes)
            some = ShapeV((Rest(None),))
            known = (left if tl is TupleV else right).items
            return sizes_value([some, *known] if tl is Unknown else [*known, some])
        if tl is TupleV and tr is IntV and op == "*" and int_const(right) is not None:
            return TupleV(left.items * max(int_const(right), 0))
        if tl is ListV and tr is ListV and op == "+":
            if left.items is not None and right.items is not None:
                return ListV(left.items + right.items)
            return ListV(None)
        if tl is StrV:
            return StrV()
        return UNKNOWN

    def unsure_notes(self, call, node) -> None:
        """``--strict``: why a rule could not tell (``Call.cannot_tell``)."""
        for reason in call.unsure:
            self.gave_up(node, reason)

    def e_Compare(self, node, frame):
        values = [self.eval(node.left, frame)] + [self.eval(c, frame) for c in node.comparators]
        arrays = [v for v in values if type(v) is Arr]
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            if (
                len(node.ops) == 1
                and isinstance(node.ops[0], (ast.Is, ast.IsNot))
                and type(values[1]) is NoneV
                and type(values[0]) in _NEVER_NONE
            ):
                # ``v is not None`` of a None or of a value that is never None (a
                # wrapper ``default(v, d)`` given None): known
                same = type(values[0]) is NoneV
                return BoolV(same if isinstance(node.ops[0], ast.Is) else not same)
            return BoolV()
        if not arrays:
            # Unknown operands may be arrays, whose comparison is an array, not a bool.
            if any(type(v) is Unknown for v in values):
                return UNKNOWN
            return BoolV(_constant_comparison(node.ops, values))
        out = None
        nodes = [node.left, *node.comparators]
        for i in range(len(node.ops)):
            a, b = values[i], values[i + 1]
            a = self.check_optional(a, nodes[i], frame)
            b = self.check_optional(b, nodes[i + 1], frame)
            if type(a) is not Arr and type(b) is not Arr:
                continue
            kind = a.kind if type(a) is Arr else b.kind
            call = self.call_info("comparison", node, kind)
            # The lambda is called at once by with_notes, inside this iteration.
            left, right = label_of(nodes[i]), label_of(nodes[i + 1])
            out = self.with_notes(
                lambda: binary(call, a, b, "bool", left, right),  # noqa: B023
                [(nodes[i], a), (nodes[i + 1], b)],
                frame,
            )
        return out if out is not None else BoolV()


_ORDER = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}


def _project_constant(module, path: str):
    """The value of another project module's int constant, or of its list or tuple
    of literals (a length), named by a canonical ``path``; None if it is neither."""
    constant = module.project.constant(path, module.local)
    if constant is not None:
        return IntV(dims.const(constant))
    found = module.project.sequence(path, module.local)
    return sequence_value(found) if found is not None else None


# What ``x is None`` is known for: None itself, and values that are never None.
_NEVER_NONE = (NoneV, Arr, IntV, FloatV, BoolV, StrV, TupleV, ListV, DictV, ShapeV, DTypeV)


def _constant_comparison(ops, values) -> bool | None:
    """The value of a comparison of int literals (``dim < 0`` of ``dim = -1``), or of an
    equality of sizes or of shapes that holds, or fails, for every size (``(n-1,) ==
    (n,)`` fails; ``(n,) == (m,)`` may hold), else None."""
    numbers = [int_const(v) if type(v) is IntV else None for v in values]
    if any(n is None for n in numbers) or not all(type(op) in _ORDER for op in ops):
        if len(ops) == 1 and type(ops[0]) in (ast.Eq, ast.NotEq):
            same = _same_sizes(values[0], values[1])
            if same is not None:
                return same if type(ops[0]) is ast.Eq else not same
        return None
    return all(_ORDER[type(op)](a, b) for op, a, b in zip(ops, numbers, numbers[1:]))


def _same_sizes(a, b) -> bool | None:
    """Whether two sizes (ints) or two shapes (tuples of them) are equal for every
    size the annotations allow (True), for none (False), or it depends (None)."""
    if type(a) is IntV and type(b) is IntV:
        if type(a.dim) is not Dim or type(b.dim) is not Dim:
            return None
        return dims.eq(a.dim, b.dim)
    if type(a) is TupleV and type(b) is TupleV:
        if len(a.items) != len(b.items):
            known = all(type(v) is IntV for v in (*a.items, *b.items))
            return False if known else None
        found: bool | None = True
        for x, y in zip(a.items, b.items):
            same = _same_sizes(x, y)
            if same is False:
                return False
            if same is None:
                found = None
        return found
    return None


def item_key(node) -> str | None:
    """``"lst[0]"`` for a constant subscript of a name or attribute chain, the key
    refinement narrows (``if lst[0] is not None:``), else None."""
    if not isinstance(node, ast.Subscript):
        return None
    index = node.slice
    if not isinstance(index, ast.Constant) or type(index.value) not in (int, str):
        return None
    base = node.value.id if isinstance(node.value, ast.Name) else attr_key(node.value)
    return None if base is None else f"{base}[{index.value!r}]"


def attr_key(node) -> str | None:
    """``"self.fc"`` for an attribute chain rooted at a name, the key refinement uses."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and parts:
        return ".".join([node.id, *reversed(parts)])
    return None


def read_keys(node) -> frozenset:
    """The names and whole attribute chains (``self.enabled``, not ``self``) it reads."""
    keys = set()
    todo = [node]
    while todo:
        n = todo.pop()
        key = (
            n.id
            if isinstance(n, ast.Name)
            else attr_key(n)
            if isinstance(n, ast.Attribute)
            else None
        )
        if key is not None:
            keys.add(key)
            continue
        todo.extend(ast.iter_child_nodes(n))
    return frozenset(keys)


def sized_call(name: str, args, kwargs, star: bool) -> bool:
    """Whether ``.name(*args)`` on a value of unknown type is a tensor's call with sizes:
    at least as many sizes as only a tensor's method takes, each an int (or the sizes of
    a shape), and no keyword."""
    if star or kwargs or len(args) < SIZED_METHODS[name]:
        return False
    return all(type(a) in (IntV, ShapeV) for a in args)
