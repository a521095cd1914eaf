"""Calls: library rules, layers, losses, and the checked module's own functions (layer 6).

:class:`CallMixin` is the part of the walker that evaluates a call. The callee
decides the path:

- a library function (``Ref`` path) or array method: its rule from
  ``check.rules``; no rule means an unknown result (a ``--strict`` note);
- a ``torch.nn`` layer class: a :class:`~.symbolic.LayerV` holding its
  constructor arguments; calling the layer applies its forward rule;
- a function, method or class of the checked module: parameter binding
  (spec 003): each argument is matched against its parameter's annotation,
  sizes bound through a :class:`~.binding.Binder`, and the result is the
  return annotation (or the inferred return value) under those bindings;
- an instance of a checked ``nn.Module``: its ``forward``.
"""

from __future__ import annotations

import ast

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from .binding import Binder, dtype_problem
from .diagnostics import CheckFailure
from .expr import Labels, label_of
from .rules import function_rule, layer_rule, loss_rule, method_rule
from .rules.base import Call
from .rules.layers import build_layer, layer_dtype, layer_forward
from .rules.losses import Loss, apply_loss
from .symbolic import (
    NONE,
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
    Unknown,
    fmt_dtypes,
    fmt_shape,
    may_be_none,
)

__all__ = ["CallMixin", "subst_value"]

_LIBRARY_ROOTS = ("torch", "numpy", "jax")


def subst_value(value, binder: Binder):
    """``value`` with the callee's sizes replaced by the caller's (via ``binder``)."""
    t = type(value)
    if t is Arr:
        return value.with_(shape=binder.substitute(value.shape), origin=None)
    if t is TupleV:
        return TupleV(tuple(subst_value(v, binder) for v in value.items))
    if t is IntV and value.dim is not None:
        found = binder.substitute((value.dim,))
        return IntV(found[0] if found and type(found[0]) is Dim else None)
    if t is UnionV:
        return UnionV(tuple(subst_value(v, binder) for v in value.items))
    return value


class CallMixin:
    """Call evaluation for the walker."""

    def call_info(self, name: str, node, kind=None, args=(), kwargs=None, labels=None,
                  star=False) -> Call:
        call = Call(name, list(args), kwargs or {}, labels or {}, kind, star)
        return call

    def e_Call(self, node, frame):
        callee = self.eval(node.func, frame)
        args, kwargs, star = [], {}, False
        label_nodes = {}
        for i, a in enumerate(node.args):
            if isinstance(a, ast.Starred):
                star = True
                self.eval(a.value, frame)
                continue
            args.append(self.eval(a, frame))
            label_nodes[i] = a
        for kw in node.keywords:
            if kw.arg is None:
                star = True
                self.eval(kw.value, frame)
                continue
            kwargs[kw.arg] = self.eval(kw.value, frame)
            label_nodes[kw.arg] = kw.value
        return self.invoke(callee, args, kwargs, node, frame, Labels(label_nodes), star)

    def invoke(self, callee, args, kwargs, node, frame, labels, star=False):
        t = type(callee)
        if t is Ref:
            return self.call_path(callee.path, args, kwargs, node, frame, labels, star)
        if t is MethodV:
            return self.call_method(callee, args, kwargs, node, frame, labels, star)
        if t is LayerV:
            return self.call_layer(callee, args, kwargs, node, frame, labels)
        if t is FuncV:
            return self.call_function(callee.info, args, kwargs, node, frame, labels, None, star)
        if t is ClassV:
            return self.construct(callee.info, args, kwargs, node, frame, labels, star)
        if t is InstV:
            info = callee.info
            self.ensure_schema(info)
            method = info.methods.get("forward") if info.is_module else None
            method = method or info.methods.get("__call__")
            if method is None:
                return UNKNOWN
            return self.call_function(method, args, kwargs, node, frame, labels, callee, star)
        if t is UnionV and may_be_none(callee):
            return UNKNOWN
        return UNKNOWN

    def _rule_call(self, rule, name, args, kwargs, node, frame, labels, kind, star):
        call = Call(name, args, kwargs, labels, kind, star)
        call.facts = frame.facts
        operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
        operands += [(labels.nodes.get(k), v) for k, v in kwargs.items() if type(v) is Arr]
        return self.with_notes(lambda: rule.apply(call), operands, frame)

    def _invoker(self, node, frame, labels=None):
        first = labels.nodes.get(0) if labels is not None else None

        def invoke(callee, values):
            return self.invoke(callee, list(values), {}, node, frame,
                               Labels({0: first} if first is not None else {}))
        return invoke

    # -- library functions ------------------------------------------------------------------
    def call_path(self, path, args, kwargs, node, frame, labels, star):
        if path.startswith("builtins."):
            return self.call_builtin(path[9:], args, kwargs, node, frame)
        if path.startswith("math."):
            name = path[5:]
            if name in ("ceil", "floor", "trunc", "gcd", "lcm", "comb", "perm", "isqrt",
                        "factorial", "prod"):
                return IntV()
            return BoolV() if name.startswith("is") else FloatV()
        found = function_rule(path)
        if found is not None:
            rule, kind = found
            name = path.replace("torch.nn.functional.", "F.").replace("numpy.", "np.")
            return self._rule_call(rule, name, args, kwargs, node, frame, labels, kind, star)
        loss = loss_rule(path)
        if loss is not None:
            if path.startswith("torch.nn.functional."):
                call = Call(loss.name, args, kwargs, labels, "torch", star)
                operands = [(labels.nodes.get(i), v) for i, v in enumerate(args)
                            if type(v) is Arr]
                return self.with_notes(lambda: apply_loss(loss, call, kwargs.get("reduction")),
                                       operands, frame)
            return LayerV(loss, dict(kwargs), f"{loss.name}(...) at line {node.lineno}", None)
        rule = layer_rule(path)
        if rule is not None:
            return self.build_layer(rule, args, kwargs, node, frame, labels, star)
        if path in ("torch.nn.ModuleList", "torch.nn.ParameterList"):
            given = args[0] if args else None
            return given if type(given) is ListV else ListV(None)
        if path == "torch.nn.Parameter" and args and type(args[0]) is Arr:
            return args[0].with_(origin=None)
        if path == "torch.nn.functional.one_hot":
            return self.one_hot(args, kwargs, labels)
        if path.partition(".")[0] in _LIBRARY_ROOTS:
            self.gave_up(node, f"no rule for {path}: its result is unknown")
        return UNKNOWN

    def one_hot(self, args, kwargs, labels):
        x = args[0] if args else kwargs.get("tensor")
        classes = args[1] if len(args) > 1 else kwargs.get("num_classes")
        if type(x) is not Arr:
            return UNKNOWN
        if x.dtypes is not None and not all(d.kind in "iu" for d in x.dtypes):
            raise CheckFailure("dtype", f"F.one_hot: class values must be an integer tensor, "
                                        f"{labels.get(0, 'the input')} has dtype "
                                        f"{fmt_dtypes(x.dtypes)}")
        size = classes.dim if type(classes) is IntV else None
        from tensortypes.core.dtypes import int64
        shape = None if x.shape is None else (*x.shape, size)
        return Arr("torch", frozenset({int64}), shape)

    def build_layer(self, rule, args, kwargs, node, frame, labels, star):
        # An unannotated parameter passed as a size is that size: ``Linear(d_in, ...)``.
        args = [self.as_size_arg(v, labels.nodes.get(i), frame) for i, v in enumerate(args)]
        kwargs = {k: self.as_size_arg(v, labels.nodes.get(k), frame) for k, v in kwargs.items()}
        call = Call(rule.name, args, kwargs, labels, "torch", star)
        try:
            bound = build_layer(rule, call)
        except CheckFailure as failure:
            self.fail(node, failure, frame)
            bound = call.bind(rule.params)
        if rule.kind == "seq":
            bound = {"layers": tuple(args)}
        site = f"{label_of(node)} at line {node.lineno}"
        return LayerV(rule, bound, site, layer_dtype(bound) if rule.weighted or
                      rule.kind == "embedding" else None)

    def as_size_arg(self, value, node, frame):
        if type(value) is Unknown and isinstance(node, ast.Name) and frame.func is not None \
                and any(p[0] == node.id for p in frame.func.params):
            return IntV(dims.symbol(node.id)) if node.id.isidentifier() else value
        return value

    def call_builtin(self, name, args, kwargs, node, frame):
        first = args[0] if args else None
        if name == "len":
            if type(first) is Arr and first.shape:
                d = first.shape[0]
                return IntV(d if type(d) is Dim else None)
            if type(first) in (TupleV,) or (type(first) is ListV and first.items is not None):
                return IntV(dims.const(len(first.items)))
            return IntV()
        if name in ("int", "round") and type(first) is IntV:
            return first
        if name in ("int", "round"):
            return IntV()
        if name == "float":
            return FloatV()
        if name in ("bool", "isinstance", "hasattr", "callable", "all", "any"):
            return BoolV()
        if name == "str" or name == "repr":
            return StrV()
        if name in ("tuple", "list") and type(first) in (TupleV, ListV):
            items = first.items
            if items is None:
                return ListV(None)
            return TupleV(items) if name == "tuple" else ListV(items)
        if name in ("max", "min") and len(args) >= 2 and all(type(a) is IntV for a in args):
            if all(a.dim is not None for a in args):
                fn = dims.dmax if name == "max" else dims.dmin
                return IntV(fn(*(a.dim for a in args)))
            return IntV()
        if name == "abs" and type(first) in (IntV, FloatV, Arr):
            return first
        if name in ("print", "setattr", "delattr"):
            return NONE
        if name in ("range", "zip", "enumerate", "reversed", "sorted", "map", "filter"):
            return Ref(f"builtins.{name}()")
        if name == "super":
            return Ref("builtins.super()")
        return UNKNOWN

    # -- methods -------------------------------------------------------------------------
    def call_method(self, method: MethodV, args, kwargs, node, frame, labels, star):
        receiver, name = method.receiver, method.name
        t = type(receiver)
        if t is Arr:
            rule = method_rule(receiver.kind, name)
            if rule is None:
                self.gave_up(node, f"no rule for the array method .{name}(): its result is "
                                   f"unknown")
                return UNKNOWN
            shifted = Labels({(k + 1 if type(k) is int else k): v
                              for k, v in labels.nodes.items()})
            shifted.nodes[0] = node.func.value if isinstance(node.func, ast.Attribute) \
                else node.func
            return self._rule_call(rule, f".{name}", [receiver, *args], kwargs, node, frame,
                                   shifted, receiver.kind, star)
        if t is InstV:
            info = receiver.info
            self.ensure_schema(info)
            found = self.find_method(info, name)
            if found is not None:
                return self.call_function(found, args, kwargs, node, frame, labels,
                                          None if found.is_static else receiver, star)
            if info.is_module and name in ("to", "double", "float", "half", "cuda", "cpu",
                                           "train", "eval", "requires_grad_"):
                return receiver
            return UNKNOWN
        if t is LayerV:
            if name == "forward":
                return self.call_layer(receiver, args, kwargs, node, frame, labels)
            if name in ("double", "float", "half", "to"):
                from tensortypes.core.dtypes import float16, float32, float64

                from .rules.base import dtype_arg
                target = {"double": float64, "float": float32, "half": float16}.get(name)
                if name == "to":
                    target = next((dtype_arg(a) for a in [*args, kwargs.get("dtype")]
                                   if a is not None and dtype_arg(a) is not None), None)
                    if target is None:
                        return receiver
                return LayerV(receiver.rule, receiver.args, receiver.site,
                              target if receiver.dtype is not None else None)
            if name in ("train", "eval", "cuda", "cpu", "requires_grad_"):
                return receiver
            return UNKNOWN
        if t is Ref and receiver.path == "builtins.super()":
            return UNKNOWN
        if t is DTypeV and name == "is_floating_point":
            return BoolV()
        if t is StrV:
            return StrV() if name in ("format", "upper", "lower", "strip", "join",
                                      "replace") else UNKNOWN
        if t is ListV and name == "append":
            return NONE
        return UNKNOWN

    def find_method(self, info, name):
        if name in info.methods:
            return info.methods[name]
        for base in info.bases:
            if base in self.module.classes:
                found = self.find_method(self.module.classes[base], name)
                if found is not None:
                    return found
        return None

    # -- layers ---------------------------------------------------------------------------------
    def call_layer(self, layer: LayerV, args, kwargs, node, frame, labels):
        if isinstance(layer.rule, Loss):
            call = Call(layer.rule.name, args, kwargs, labels, "torch")
            operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
            return self.with_notes(
                lambda: apply_loss(layer.rule, call, layer.args.get("reduction")),
                operands, frame)
        call = Call(layer.rule.name, args, kwargs, labels, "torch")
        call.invoke = self._invoker(node, frame, labels)
        operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
        return self.with_notes(lambda: layer_forward(layer, list(args), call), operands, frame)

    # -- the checked module's functions ---------------------------------------------------------
    def construct(self, info, args, kwargs, node, frame, labels, star):
        self.ensure_schema(info)
        init = self.find_method(info, "__init__")
        env = {}
        if init is not None:
            binder = self.bind_call(init, args, kwargs, node, frame, labels, InstV(info), star)
            env = {k: v for k, v in binder.env.items() if not k.startswith("*")}
        elif info.is_dataclass:
            names = [f.target.id for f in info.fields]
            bound = dict(zip(names, args))
            bound.update(kwargs)
            for f in info.fields:
                want = self.annotation_value(f.annotation, frame)
                got = bound.get(f.target.id)
                if got is not None:
                    self.check_binding(want, got, f"field {f.target.id}", Binder(), node, frame)
        return InstV(info, env)

    def call_function(self, info, args, kwargs, node, frame, labels, self_value, star):
        binder = self.bind_call(info, args, kwargs, node, frame, labels, self_value, star)
        if info.returns is not None:
            ret = self.annotation_value(info.returns, frame)
        else:
            ret = self.inferred_return(info)
        if type(self_value) is InstV and self_value.env:
            for k, v in self_value.env.items():
                binder.env.setdefault(k, v)
        return subst_value(ret, binder)

    def bind_call(self, info, args, kwargs, node, frame, labels, self_value, star) -> Binder:
        params = list(info.params)
        if self_value is not None and params and params[0][3] == "positional":
            params = params[1:]
        elif info.cls is not None and not info.is_static and self_value is None and params:
            params = params[1:]  # an unbound method looked up on the class
        binder = Binder(self_value.env if type(self_value) is InstV else None)
        positional = [p for p in params if p[3] == "positional"]
        has_star = any(p[3] == "star" for p in params)
        has_kw = any(p[3] == "starstar" for p in params)
        if len(args) > len(positional) and not has_star and not star:
            self.fail(node, CheckFailure("call", f"{info.qualname}() takes {len(positional)} "
                                                 f"positional arguments but {len(args)} were "
                                                 f"given"), frame)
        given = {}
        for p, value, i in zip(positional, args, range(len(args))):
            given[p[0]] = (value, labels.nodes.get(i))
        names = {p[0] for p in params}
        for key, value in kwargs.items():
            if key not in names and not has_kw:
                self.fail(node, CheckFailure("call", f"{info.qualname}() got an unexpected "
                                                     f"keyword argument {key!r}"), frame)
                continue
            given[key] = (value, labels.nodes.get(key))
        if not star:
            missing = [p[0] for p in params if p[3] in ("positional", "keyword")
                       and p[2] is None and p[0] not in given]
            if missing:
                self.fail(node, CheckFailure("call", f"{info.qualname}() is missing "
                                                     f"argument {missing[0]!r}"), frame)
        ordered = sorted(params, key=lambda p: not self._is_array_param(p, frame))
        for name, ann, default, kind in ordered:
            if name not in given or ann is None:
                continue
            value, arg_node = given[name]
            want = self.annotation_value(ann, frame)
            if type(want) is IntV and type(value) is IntV:
                self.bind_int(binder, name, value, arg_node or node, info, frame)
                continue
            self.check_binding(want, value, f"argument {name!r} of {info.qualname}()", binder,
                               arg_node or node, frame, default)
        return binder

    def _is_array_param(self, p, frame) -> bool:
        return p[1] is not None and type(self.annotation_value(p[1], frame)) is Arr

    def bind_int(self, binder, name, value, node, info, frame):
        if value.dim is None:
            binder.env.setdefault(name, None)
            return
        bound = binder.env.get(name)
        if bound is None:
            binder.env[name] = value.dim
            binder.where[name] = f"argument {name!r}"
            return
        if not dims.eq(bound, value.dim):
            self.fail(node, CheckFailure(
                "arg-type", f"argument {name!r} of {info.qualname}() is {value.dim}, but "
                            f"{binder.where.get(name, 'another argument')} makes {name} = "
                            f"{bound}"), frame)

    def check_binding(self, want, got, what, binder, node, frame, default=None,
                      code="arg-type"):
        """Parameter binding and assignment (spec 003): does ``got`` fit ``want``?"""
        if type(want) is Unknown or type(got) is Unknown:
            return
        if type(got) is UnionV and may_be_none(got) and not _allows_none(want):
            if default is None or not (isinstance(default, ast.Constant)
                                       and default.value is None):
                self.fail(node, CheckFailure("optional", f"{what} may be None, but its "
                                                         f"annotation does not allow None"),
                          frame)
                return
        if type(got) is NoneV and not _allows_none(want):
            self.fail(node, CheckFailure(code, f"{what} is None, expected "
                                                     f"{want.describe()}"), frame)
            return
        want_arr = _array_part(want)
        got_arr = _array_part(got)
        if want_arr is not None and got_arr is not None:
            if dtype_problem(want_arr.dtypes, got_arr.dtypes):
                self.fail(node, CheckFailure(code, f"{what} has dtype "
                                                         f"{fmt_dtypes(got_arr.dtypes)}, "
                                                         f"expected {fmt_dtypes(want_arr.dtypes)}"),
                          frame)
                return
            problems = binder.match(want_arr.shape, got_arr.shape,
                                    f"{what} {fmt_shape(got_arr.shape)}")
            if problems:
                notes = binder.bound_notes(problems[0].names)
                self.fail(node, CheckFailure(code, problems[0].message, notes), frame)
            return
        if want_arr is not None and type(got) in (IntV, FloatV, StrV, BoolV, TupleV):
            if type(got) is StrV or (type(got) is TupleV and want_arr.kind == "torch"):
                self.fail(node, CheckFailure(code, f"{what} is {got.describe()}, "
                                                         f"expected an array"), frame)
            return
        if type(want) is IntV and type(got) in (StrV, Arr, FloatV):
            if type(got) is Arr and got.rank == 0:
                return
            self.fail(node, CheckFailure(code, f"{what} is {got.describe()}, expected "
                                                     f"int"), frame)
        if type(want) is TupleV and type(got) is TupleV:
            if len(want.items) != len(got.items):
                self.fail(node, CheckFailure(code, f"{what} has {len(got.items)} items, "
                                                         f"expected {len(want.items)}"), frame)
                return
            for i, (w, g) in enumerate(zip(want.items, got.items)):
                self.check_binding(w, g, f"{what}[{i}]", binder, node, frame)


def _allows_none(want) -> bool:
    return type(want) in (NoneV, Unknown) or (type(want) is UnionV and any(
        type(v) is NoneV for v in want.items))


def _array_part(value):
    if type(value) is Arr:
        return value
    if type(value) is UnionV:
        arrays = [v for v in value.items if type(v) is Arr]
        if len(arrays) == 1 and all(type(v) in (Arr, NoneV) for v in value.items):
            return arrays[0]
    return None


