"""Expressions: the abstract value of each expression node (layer 6: ``check``).

:class:`ExprMixin` is the part of the walker (``check.infer.Checker``) that
evaluates expressions over the values of ``check.symbolic``: names, constants,
attributes (``x.shape``, ``x.T``, ``self.fc``), arithmetic and comparisons with
broadcasting, ``@``, indexing and slicing, tuples and lists. Calls are in
``check.calls``. A rule that fails raises ``CheckFailure``; it is reported at
the node being evaluated and the expression becomes ``UNKNOWN``, so one bug
gives one error rather than a cascade.
"""

from __future__ import annotations

import ast

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from .diagnostics import CheckFailure
from .rules import dtype_object
from .rules import shapefns as sf
from .rules.access import shape_value
from .rules.base import int_const, is_float
from .rules.ops import binary, matmul
from .symbolic import (
    NONE,
    ONE,
    UNKNOWN,
    Arr,
    BoolV,
    ClassV,
    DTypeV,
    FloatV,
    FuncV,
    InstV,
    IntV,
    LayerV,
    ListV,
    MethodV,
    NoneV,
    Ref,
    StrV,
    TupleV,
    UnionV,
    fmt_dim,
    fmt_dtypes,
    fmt_shape,
    join_values,
    may_be_none,
    strip_none,
)

__all__ = ["ExprMixin", "Labels", "ELLIPSIS"]

ELLIPSIS = Ref("builtins.Ellipsis")
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
          ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
          ast.LShift: "<<", ast.RShift: ">>"}


class Labels:
    """Source text of call arguments, made only when a message needs it."""

    __slots__ = ("nodes", "cache")

    def __init__(self, nodes: dict):
        self.nodes = nodes
        self.cache: dict = {}

    def get(self, key, default=None):
        found = self.cache.get(key)
        if found is None:
            node = self.nodes.get(key)
            if node is None:
                return default
            found = label_of(node)
            self.cache[key] = found
        return found


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
            return a ** b.value
    except (ValueError, ArithmeticError, TypeError):
        return None
    return None


class ExprMixin:
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
            return method(node, frame)
        except CheckFailure as failure:
            self.fail(node, failure, frame)
            return UNKNOWN

    def e_Constant(self, node, frame):
        v = node.value
        if v is None:
            return NONE
        if v is True or v is False:
            return BoolV(v)
        if type(v) is int:
            return IntV(dims.const(v)) if abs(v) < (1 << 62) else IntV()
        if type(v) is float:
            return FloatV()
        if type(v) is str:
            return StrV(v)
        if v is Ellipsis:
            return ELLIPSIS
        return UNKNOWN

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
        if name in frame.globals:
            return frame.globals[name]
        path = module.path_of(node)
        if path is not None:
            found = dtype_object(path)
            return DTypeV(found) if found is not None else Ref(path)
        return UNKNOWN

    def e_JoinedStr(self, node, frame):
        return StrV()

    def e_Tuple(self, node, frame):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            for e in node.elts:
                self.eval(e.value if isinstance(e, ast.Starred) else e, frame)
            return UNKNOWN
        return TupleV(tuple(self.eval(e, frame) for e in node.elts))

    def e_List(self, node, frame):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return ListV(None)
        return ListV(tuple(self.eval(e, frame) for e in node.elts))

    def e_IfExp(self, node, frame):
        self.eval(node.test, frame)
        yes = self.eval(node.body, self.narrow(node.test, frame, True))
        no = self.eval(node.orelse, self.narrow(node.test, frame, False))
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

    def e_UnaryOp(self, node, frame):
        value = self.eval(node.operand, frame)
        if isinstance(node.op, ast.Not):
            return BoolV()
        value = self.check_optional(value, node.operand, frame)
        if type(value) is IntV and isinstance(node.op, ast.USub):
            return IntV(-value.dim if value.dim is not None else None)
        if type(value) in (Arr, FloatV, IntV):
            return value if type(value) is not Arr else value.with_(origin=None)
        return UNKNOWN

    # -- attributes ----------------------------------------------------------------------
    def e_Attribute(self, node, frame):
        key = attr_key(node)
        if key is not None and key in frame.vars:
            return frame.vars[key]
        receiver = self.eval(node.value, frame)
        return self.attribute(receiver, node.attr, node, frame)

    def attribute(self, receiver, attr: str, node, frame):
        t = type(receiver)
        if t is Ref:
            path = f"{receiver.path}.{attr}"
            if path in ("math.pi", "math.e", "math.tau", "math.inf", "numpy.pi", "numpy.e",
                        "numpy.inf", "numpy.nan", "jax.numpy.pi", "jax.numpy.inf"):
                return FloatV()
            found = dtype_object(path)
            return DTypeV(found) if found is not None else Ref(path)
        if t is UnionV and may_be_none(receiver):
            receiver = self.check_optional(receiver, node.value, frame)
            return self.attribute(receiver, attr, node, frame)
        if t is NoneV:
            return UNKNOWN
        if t is Arr:
            return self.array_attribute(receiver, attr, node)
        if t is InstV:
            return self.instance_attribute(receiver, attr, node, frame)
        if t is LayerV:
            return self.layer_attribute(receiver, attr)
        if t is TupleV and attr in ("values", "indices") and len(receiver.items) == 2:
            return receiver.items[attr == "indices"]
        if t in (StrV, ListV, TupleV, IntV, FloatV, DTypeV):
            if t is DTypeV and attr == "is_floating_point":
                return MethodV(receiver, attr)
            return MethodV(receiver, attr)
        return UNKNOWN

    def array_attribute(self, x: Arr, attr: str, node):
        if attr == "shape":
            return shape_value(x)
        if attr in ("T", "mT", "H", "mH"):
            if attr == "T" and x.rank is not None:
                if x.kind == "torch" and x.rank > 2:
                    return x.with_(shape=tuple(reversed(x.shape)), origin=None,
                                   contiguous=False)
                return x.with_(shape=tuple(reversed(x.shape)), origin=None,
                               contiguous=x.rank < 2)
            if attr in ("mT", "mH") and x.rank is not None:
                if x.rank < 2:
                    raise CheckFailure("rank", f".{attr} needs rank >= 2, got "
                                               f"{fmt_shape(x.shape)}")
                return x.with_(shape=(*x.shape[:-2], x.shape[-1], x.shape[-2]), origin=None,
                               contiguous=False)
            return x.with_(shape=None, origin=None)
        if attr == "ndim":
            return IntV(dims.const(x.rank)) if x.rank is not None else IntV()
        if attr == "dtype":
            return DTypeV(x.dtype) if x.dtype is not None else UNKNOWN
        if attr == "size" and x.kind in ("numpy", "jax"):
            return IntV(sf.product(x.shape)) if x.rank is not None else IntV()
        if attr in ("data", "grad", "real"):
            return x.with_(origin=None)
        if attr in ("device", "is_cuda", "requires_grad", "itemsize", "nbytes", "strides",
                    "layout", "imag", "flat", "at", "names"):
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
            return self.with_notes(lambda: matmul(self.call_info("@", node), left, right,
                                                  label_of(node.left), label_of(node.right)),
                                   [(node.left, left), (node.right, right)], frame)
        return self.arith(node, type(node.op), left, right, frame)

    def arith(self, node, op_type, left, right, frame, nodes=None):
        op = _ARITH.get(op_type, "?")
        tl, tr = type(left), type(right)
        if tl is Arr or tr is Arr:
            kind = left.kind if tl is Arr else right.kind
            if op in ("&", "|", "^", "<<", ">>"):
                result = "promote"
            else:
                result = "float" if op == "/" else "promote"
            call = self.call_info(op, node, kind)
            ln, rn = nodes if nodes is not None else (node.left, node.right)
            return self.with_notes(lambda: binary(call, left, right, result,
                                                  label_of(ln), label_of(rn)),
                                   [(ln, left), (rn, right)], frame)
        if tl is IntV and tr is IntV:
            if op == "/":
                return FloatV()
            return IntV(_int_dim(left, op, right))
        if tl in (IntV, FloatV, BoolV) and tr in (IntV, FloatV, BoolV):
            return FloatV() if FloatV in (tl, tr) or op == "/" else IntV()
        if tl is TupleV and tr is TupleV and op == "+":
            return TupleV(left.items + right.items)
        if tl is TupleV and tr is IntV and op == "*" and int_const(right) is not None:
            return TupleV(left.items * max(int_const(right), 0))
        if tl is ListV and tr is ListV and op == "+":
            if left.items is not None and right.items is not None:
                return ListV(left.items + right.items)
            return ListV(None)
        if tl is StrV:
            return StrV()
        return UNKNOWN

    def e_Compare(self, node, frame):
        values = [self.eval(node.left, frame)] + [self.eval(c, frame) for c in node.comparators]
        arrays = [v for v in values if type(v) is Arr]
        if not arrays or any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                             for op in node.ops):
            return BoolV()
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
            out = self.with_notes(lambda: binary(call, a, b, "bool", label_of(nodes[i]),
                                                 label_of(nodes[i + 1])),
                                  [(nodes[i], a), (nodes[i + 1], b)], frame)
        return out if out is not None else BoolV()

    # -- indexing -----------------------------------------------------------------------------
    def e_Subscript(self, node, frame):
        receiver = self.check_optional(self.eval(node.value, frame), node.value, frame)
        t = type(receiver)
        if t is Arr:
            index = self.eval_index(node.slice, frame)
            return self.with_notes(lambda: index_array(receiver, index, label_of(node.value)),
                                   [(node.value, receiver)], frame)
        if t is TupleV or (t is ListV and receiver.items is not None):
            items = receiver.items
            if isinstance(node.slice, ast.Slice):
                bounds = [int_const(self.eval(b, frame)) if b is not None else None
                          for b in (node.slice.lower, node.slice.upper, node.slice.step)]
                if all(b is not None or n is None for b, n in
                       zip(bounds, (node.slice.lower, node.slice.upper, node.slice.step))):
                    part = items[slice(*bounds)]
                    return TupleV(part) if t is TupleV else ListV(part)
                return UNKNOWN
            i = int_const(self.eval(node.slice, frame))
            if i is None:
                return join_all(items)
            if not -len(items) <= i < len(items):
                raise CheckFailure("index", f"tuple index {i} out of range for "
                                            f"{label_of(node.value)} of length {len(items)}")
            return items[i]
        if t is ListV:
            self.eval(node.slice, frame)
            return receiver.elem
        if t is LayerV and receiver.rule.name == "Sequential":
            i = int_const(self.eval(node.slice, frame))
            layers = receiver.args.get("layers", ())
            if i is not None and -len(layers) <= i < len(layers):
                return layers[i]
            return UNKNOWN
        self.eval(node.slice, frame)
        return UNKNOWN

    def eval_index(self, node, frame) -> list:
        parts = node.elts if isinstance(node, ast.Tuple) else [node]
        out = []
        for part in parts:
            if isinstance(part, ast.Slice):
                out.append(("slice", [self.eval(p, frame) if p is not None else None
                                      for p in (part.lower, part.upper, part.step)]))
            else:
                out.append(("item", self.eval(part, frame)))
        return out


def join_all(items):
    """The join of several values (UNKNOWN for none)."""
    if not items:
        return UNKNOWN
    out = items[0]
    for v in items[1:]:
        out = join_values(out, v)
    return out


def attr_key(node) -> str | None:
    """``"self.fc"`` for an attribute chain rooted at a name, the key refinement uses."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and parts:
        return ".".join([node.id, *reversed(parts)])
    return None


def _slice_size(n, bounds):
    start, stop, step = (int_const(b) if type(b) is IntV else b for b in bounds)
    sym = [b.dim if type(b) is IntV else None for b in bounds]
    if step is not None and (type(step) is not int or step <= 0):
        return None
    step = step or 1
    if type(n) is Dim and n.is_constant and all(b is None or type(b) is int
                                                 for b in (start, stop)):
        return dims.const(len(range(n.value)[slice(start, stop, step)]))
    if type(n) is not Dim:
        return None

    def position(b, symbolic, default):
        if b is None and symbolic is None:
            return default
        if type(b) is int:
            return n + b if b < 0 else dims.const(b)
        return symbolic

    lo = position(start, sym[0] if start is None and bounds[0] is not None else None,
                  dims.const(0))
    hi = position(stop, sym[1] if stop is None and bounds[1] is not None else None, n)
    if lo is None or hi is None:
        return None
    if dims.le(hi, n) is not True:
        hi = dims.dmin(hi, n) if type(hi) is Dim else None
        if hi is None:
            return None
    size = hi - lo
    if dims.ge(size, 0) is not True and not (size.is_constant and size.value >= 0):
        if size.is_constant:
            return dims.const(0)
    return size if step == 1 else (size + (step - 1)) // step


def index_array(x: Arr, index: list, label: str):
    """The value of ``x[index]`` (basic and advanced indexing)."""
    shape = x.shape
    if shape is None or x.rank is None:
        return x.with_(shape=None, origin=None)
    consuming = 0
    for kind, v in index:
        if kind == "slice":
            consuming += 1
        elif type(v) is Arr and v.dtypes is not None and all(d.kind == "b" for d in v.dtypes):
            consuming += v.rank if v.rank is not None else 1
        elif v is not NONE and v is not ELLIPSIS:
            consuming += 1
    if consuming > len(shape):
        raise CheckFailure("index", f"too many indices for {label}: it has rank {len(shape)} "
                                    f"{fmt_shape(shape)} but {consuming} were given")
    out = []
    axis = 0
    advanced = None
    for kind, v in index:
        if v is ELLIPSIS:
            skip = len(shape) - consuming
            out.extend(shape[axis:axis + skip])
            axis += skip
            continue
        if kind == "slice":
            out.append(_slice_size(shape[axis], v))
            axis += 1
            continue
        if type(v) is NoneV:
            out.append(ONE)
            continue
        if type(v) is IntV:
            size = shape[axis]
            i = int_const(v)
            if i is not None and type(size) is Dim and size.is_constant and \
                    not -size.value <= i < size.value:
                raise CheckFailure("index", f"index {i} is out of bounds for axis {axis} of "
                                            f"{label} with size {size.value}")
            axis += 1
            continue
        if type(v) is Arr:
            if v.dtypes is not None and is_float(v.dtypes):
                raise CheckFailure("dtype", f"indices of {label} must be integers or bools, "
                                            f"got an array of dtype {fmt_dtypes(v.dtypes)}")
            if v.dtypes is not None and all(d.kind == "b" for d in v.dtypes):
                r = v.rank if v.rank is not None else 1
                if v.shape is not None and v.rank is not None:
                    for k, (m, s) in enumerate(zip(v.shape, shape[axis:axis + r])):
                        if type(m) is Dim and type(s) is Dim and dims.eq(m, s) is False:
                            raise CheckFailure("index", f"boolean mask of shape "
                                                        f"{fmt_shape(v.shape)} does not match "
                                                        f"axis {axis + k} of {label} "
                                                        f"{fmt_shape(shape)} ({fmt_dim(m)} vs "
                                                        f"{fmt_dim(s)})")
                out.append(None)
                axis += r
                continue
            if advanced is None:
                advanced = v.shape
                if v.shape is None:
                    return x.with_(shape=None, origin=None)
                out.extend(v.shape)
            axis += 1
            continue
        if type(v) in (ListV, TupleV) and v.items is not None:
            out.append(dims.const(len(v.items)))
            axis += 1
            continue
        return x.with_(shape=None, origin=None)
    out.extend(shape[axis:])
    return x.with_(shape=tuple(out), origin=None)


