"""Calls: library rules, layers, losses, builtins and methods (layer 6: ``check``).

:class:`CallMixin` is the part of the walker that evaluates a call. The callee
decides the path:

- a library function (``Ref`` path) or array method: its rule from
  ``check.rules``; no rule means an unknown result (a ``--strict`` note);
- a ``torch.nn`` layer class: a :class:`~.symbolic.LayerV` holding its
  constructor arguments; calling the layer applies its forward rule;
- a function, method or class of the checked module, or an instance of a
  checked ``nn.Module`` (its ``forward``): parameter binding, in
  ``check.signatures``.
"""

from __future__ import annotations

import ast

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from .host import CheckerHost
from .defs import wrapper_return
from .diagnostics import CheckFailure
from .notes import ShapeNote
from .expr import SOME_TENSOR, Labels, attr_key, label_of, sized_call
from .frame import Frame
from .joins import arrays_union, element_of, join_all, join_values, length_of, may_be_none
from .modinfo import REGISTERS
from .rules import function_rule, layer_rule, loss_rule, method_rule
from .rules import distributions, pretrained
from .rules.base import Call, int_const
from .rules.layers import build_layer, layer_dtype, layer_forward
from .rules.losses import Loss, apply_loss
from .sizes import size_symbol
from .symbolic import (
    fmt_shape,
    DistV,
    LibV,
    NONE,
    anonymized,
    UNKNOWN,
    Arr,
    BoolV,
    CallablesV,
    ClassV,
    DictV,
    DTypeV,
    FloatV,
    FuncV,
    InstV,
    IntV,
    LambdaV,
    LayerV,
    PartialV,
    ListV,
    MethodV,
    NoneV,
    Ref,
    ShapeV,
    StrV,
    TupleV,
    UnionV,
    inputs,
    Unknown,
)

__all__ = ["CallMixin"]

_LIBRARY_ROOTS = ("torch", "numpy", "jax")
# the functions of Python's ``random`` that give one number
_RANDOM_NUMBERS = {
    **{
        f"random.{name}": FloatV
        for name in (
            "random",
            "uniform",
            "gauss",
            "normalvariate",
            "lognormvariate",
            "expovariate",
            "betavariate",
            "gammavariate",
            "triangular",
            "vonmisesvariate",
            "paretovariate",
            "weibullvariate",
        )
    },
    **{f"random.{name}": IntV for name in ("randint", "randrange", "getrandbits")},
}
_LAMBDA_BUDGET = 256  # lambda calls one outermost call of a lambda may evaluate
_LIST_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}
)


class CallMixin(CheckerHost):
    """Call evaluation for the walker."""

    def call_info(
        self, name: str, node, kind=None, args=(), kwargs=None, labels=None, star=False
    ) -> Call:
        call = Call(name, list(args), kwargs or {}, labels or {}, kind, star)
        return call

    def e_Call(self, node, frame):
        if self.inlining:
            # a call in a callee's body walked for a call: counted against the budget
            # of the outermost call (``inlined_result``), so that bodies that call
            # their callers many times stay bounded
            if self.inline_budget[0] <= 0:
                return UNKNOWN
            self.inline_budget[0] -= 1
        if self.is_reveal(node.func, frame) and len(node.args) == 1:
            value = self.eval(node.args[0], frame)
            self.report(
                node,
                "reveal",
                f"revealed: {label_of(node.args[0])} is {value.describe()}",
                severity="note",
            )
            return value
        callee = self.eval(node.func, frame)
        args, kwargs, star = [], {}, False
        label_nodes = {}
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self.eval(a.value, frame)
                if type(value) in (TupleV, ListV) and value.items is not None:
                    args.extend(value.items)  # f(*x.shape[:-1], 3): the items themselves
                elif type(value) is ShapeV and type(callee) in (Ref, MethodV):
                    args.append(value)  # sizes of open rank, for the shape rules
                else:
                    star = True
                continue
            if star:  # after *xs of unknown length, the position of an argument is unknown
                self.eval(a, frame)
                continue
            label_nodes[len(args)] = a
            args.append(self.eval(a, frame))
        for kw in node.keywords:
            if kw.arg is None:
                star = True
                self.eval(kw.value, frame)
                continue
            kwargs[kw.arg] = self.eval(kw.value, frame)
            label_nodes[kw.arg] = kw.value
        result = self.invoke(callee, args, kwargs, node, frame, Labels(label_nodes), star)
        if frame.building is not None and type(callee) is FuncV and not star:
            self.built_by_helper(callee.info, args, kwargs, node, frame)
        if not _keeps_attributes(callee):
            forget_none_attributes(frame)
        if not _pure(callee):
            for arg_node in label_nodes.values():
                key = (
                    attr_key(arg_node)
                    if isinstance(arg_node, ast.Attribute)
                    else getattr(arg_node, "id", None)
                )
                found = frame.vars.get(key) if key is not None else None
                if type(found) is ListV and found.items is not None:
                    # The callee may fill the list (dist.broadcast_object_list(objs)).
                    frame.vars[key] = ListV(None)
                elif type(found) is DictV and found.items is not None:
                    frame.vars[key] = DictV(None, found.value)  # or change the dict
        return result

    def built_by_helper(self, info, args, kwargs, node, frame) -> None:
        """``_init_weights_standard(self)`` while an instance is built (in ``__init__``
        or a method it calls): what the function assigns to attributes of the
        parameter given ``self`` is the instance's (``sae.b_enc = ...``), as if the
        function's body ran in place."""
        me = frame.func.params[0][0] if frame.func is not None and frame.func.params else None
        if me is None or self.inlining >= 2 or not info.params:
            return
        positional = [p[0] for p in info.params if p[3] == "positional"]
        nodes = dict(zip(positional, node.args))
        nodes.update((k.arg, k.value) for k in node.keywords if k.arg is not None)
        target = next((n for n, a in nodes.items() if isinstance(a, ast.Name) and a.id == me), None)
        if target is None or target != info.params[0][0]:
            return
        walker = self._walker_for(info)
        if walker is None:
            return
        inner = Frame(info)
        given = dict(zip(positional, args))
        given.update(kwargs)
        with self._walking(walker, None):
            walker.bind_params(info, inner)
            inner.vars.update((k, v) for k, v in given.items() if k in inner.vars or k == target)
            with inputs(inner.where):
                end = walker.exec_block(info.node.body, inner)
        prefix = target + "."
        for key, value in end.vars.items():
            if key.startswith(prefix) and key.count(".") == 1:
                frame.vars[f"{me}.{key[len(prefix) :]}"] = value

    def is_reveal(self, func, frame) -> bool:
        """Whether ``func`` is mypy's ``reveal_type`` (bare, or from typing)."""
        if isinstance(func, ast.Name) and func.id == "reveal_type":
            return func.id not in frame.vars and func.id not in self.module.functions
        if isinstance(func, ast.Attribute) and func.attr != "reveal_type":
            return False  # most calls: no path to resolve through the imports
        if isinstance(func, ast.Name) and not self.module.aliases.get(func.id, "").endswith(
            "reveal_type"
        ):
            return False  # ``rt(x)`` after ``from typing import reveal_type as rt`` only
        return self.module.path_of(func) in ("typing.reveal_type", "typing_extensions.reveal_type")

    def invoke(self, callee, args, kwargs, node, frame, labels, star=False):
        t = type(callee)
        if t is Ref:
            return self.call_path(callee.path, args, kwargs, node, frame, labels, star)
        if t is MethodV:
            return self.call_method(callee, args, kwargs, node, frame, labels, star)
        if t is LayerV:
            return self.call_layer(callee, args, kwargs, node, frame, labels)
        if t is PartialV:
            merged = dict(callee.keywords)
            merged.update(kwargs)
            if callee.nodes:  # the keywords' syntax, for the notes of an error
                labels = Labels({**dict(callee.nodes), **labels.nodes})
            return self.invoke(callee.callee, args, merged, node, frame, labels, star)
        if t is FuncV:
            return self.call_function(callee.info, args, kwargs, node, frame, labels, None, star)
        if t is LambdaV:
            return self.call_lambda(callee, args, kwargs, frame, star)
        if t is CallablesV:
            # one of several callables: what each gives, joined (an unknown one's result
            # lets the others' arrays stand, as an unknown branch does)
            return join_all(
                [
                    UNKNOWN
                    if type(item) is Unknown
                    else self.invoke(item, args, kwargs, node, frame, labels, star)
                    for item in callee.items
                ]
            )
        if t is ClassV:
            return self.construct(callee.info, args, kwargs, node, frame, labels, star)
        if t is InstV:
            info = callee.info
            self.ensure_schema(info)
            method = self.find_method(info, "forward") if info.is_module else None
            method = method or self.find_method(info, "__call__")
            if method is None:
                return UNKNOWN
            return self.call_function(method, args, kwargs, node, frame, labels, callee, star)
        if t is LibV:  # ``self.unet(latents, t, encoder_hidden_states=text)``
            return self.call_library_object(callee, "__call__", args, kwargs, node, frame, labels)
        if t is UnionV and may_be_none(callee):
            return UNKNOWN
        return UNKNOWN

    def call_library_object(self, lib, name, args, kwargs, node, frame, labels):
        """A call of a modelled library object (``check.rules.pretrained``): its result,
        and an error, with notes on where the arrays got their shapes, for each of its
        requirements these arguments break."""
        problems: list = []
        value = pretrained.call(lib, name, args, kwargs, labels, problems)
        operands = [(labels.nodes.get(k), v) for k, v in (*enumerate(args), *kwargs.items())]
        for failure in problems:
            self.fail(node, self.noted(failure, operands, frame), frame)
        return value

    def call_lambda(self, callee, args, kwargs, frame, star):
        """``f(x)`` of ``f = lambda t: body``: ``body`` evaluated with the arguments in
        the frame that made the lambda. Its errors are reported where it was made,
        when that is the function being walked; a lambda made elsewhere (returned
        by a factory) gives its value only."""
        spec = callee.node.args
        params = [a.arg for a in (*spec.posonlyargs, *spec.args)]
        if star or spec.vararg or spec.kwarg or spec.kwonlyargs or len(args) > len(params):
            return UNKNOWN
        if self.lambda_depth == 0:
            # the lambdas one call evaluates, nested ones included, are bounded (a
            # lambda that calls itself through a variable, ten times a level)
            self.lambda_budget = [_LAMBDA_BUDGET]
        budget = self.lambda_budget
        if self.lambda_depth >= 8 or budget[0] <= 0:
            return UNKNOWN
        budget[0] -= 1
        inner = callee.frame.copy()
        for i, name in enumerate(params):
            inner.vars[name] = args[i] if i < len(args) else kwargs.get(name, UNKNOWN)
        self.lambda_depth += 1
        try:
            if callee.walker is self and callee.frame.func is frame.func:
                # the lambda's parameters are not the loop variables of its caller
                outer, self.loop_bounds = self.loop_bounds, {}
                try:
                    return self.eval(callee.node.body, inner)
                finally:
                    self.loop_bounds = outer
            walker = callee.walker
            with self._walking(walker, None):
                saved = walker.lambda_depth, walker.lambda_budget
                walker.lambda_depth, walker.lambda_budget = self.lambda_depth, budget
                try:
                    return walker.eval(callee.node.body, inner)
                finally:
                    walker.lambda_depth, walker.lambda_budget = saved
        finally:
            self.lambda_depth -= 1

    def _receiver_rule_call(self, rule, method, args, kwargs, node, frame, labels, star):
        """``x.name(...)`` by ``rule``, the receiver its first argument (labels shifted)."""
        receiver = method.receiver
        shifted = Labels({(k + 1 if type(k) is int else k): v for k, v in labels.nodes.items()})
        shifted.nodes[0] = node.func.value if isinstance(node.func, ast.Attribute) else node.func
        return self._rule_call(
            rule,
            f".{method.name}",
            [receiver, *args],
            kwargs,
            node,
            frame,
            shifted,
            receiver.kind,
            star,
        )

    def _rule_call(self, rule, name, args, kwargs, node, frame, labels, kind, star):
        if star:
            # ``f(*sizes)``, ``x.to(**options)``: the arguments the rule would read are
            # unknown, so the result is an array of the first one's library, nothing more.
            first = args[0] if args else None
            return Arr(first.kind, None, None) if type(first) is Arr else UNKNOWN
        at = next((k for k, v in (*enumerate(args), *kwargs.items()) if arrays_union(v)), None)
        if at is not None:
            # ``rearrange(sigma, "b -> b 1 1")`` of ``Float[" b"] | Float[" "]``: each
            # array the argument may be, an error only where every one fails
            def each(v):
                given, named = list(args), dict(kwargs)
                if type(at) is int:
                    given[at] = v
                else:
                    named[at] = v
                return self._rule_call(rule, name, given, named, node, frame, labels, kind, star)

            return self.over_arrays(args[at] if type(at) is int else kwargs[at], each)
        call = Call(name, args, kwargs, labels, kind, star)
        call.facts = frame.facts
        call.line = getattr(node, "lineno", 0)
        operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
        operands += [(labels.nodes.get(k), v) for k, v in kwargs.items() if type(v) is Arr]
        operands += _listed_operands(labels.nodes.get(0), args[0] if args else None)
        # int variables given as sizes (``rearrange(x, p, n=seq)``): where each was set
        operands += [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is IntV]
        operands += [(labels.nodes.get(k), v) for k, v in kwargs.items() if type(v) is IntV]

        def apply(given, named):
            again = Call(name, given, named, labels, kind, star)
            again.facts, again.line = call.facts, call.line
            return rule.apply(again)

        result = self.shape_past_dtype(
            lambda: rule.apply(call), apply, args, kwargs, operands, node, frame
        )
        self.unsure_notes(call, node)
        return result

    def shape_past_dtype(self, compute, again, args, kwargs, operands, node, frame):
        """``compute()`` with notes on a failure; a ``dtype`` failure (``nn.Embedding``
        given float indices an annotation says are floats) is reported and the value
        is ``again`` of the arguments without their dtypes: the shape still follows,
        for what the code does next."""
        try:
            return self.with_notes(compute, operands, frame)
        except CheckFailure as failure:
            if failure.code != "dtype":
                raise
            self.fail(node, failure, frame)
        loose = [a.with_(dtypes=None) if type(a) is Arr else a for a in args]
        named = {k: v.with_(dtypes=None) if type(v) is Arr else v for k, v in kwargs.items()}
        try:
            value = again(loose, named)
        except CheckFailure:
            return UNKNOWN
        return value if type(value) is Arr else UNKNOWN

    def _invoker(self, node, frame, labels=None):
        first = labels.nodes.get(0) if labels is not None else None

        def invoke(callee, values):
            return self.invoke(
                callee,
                list(values),
                {},
                node,
                frame,
                Labels({0: first} if first is not None else {}),
            )

        return invoke

    # -- library functions ------------------------------------------------------------------
    def call_path(self, path, args, kwargs, node, frame, labels, star):
        if (
            path == "functools.partial"
            and len(args) == 1
            and type(args[0]) in (Ref, FuncV, ClassV)
            and not star
        ):
            # partial(nn.Linear, bias=False), partial(PreLayerNorm, dim=dim_pairwise)
            nodes = tuple((k, labels.nodes[k]) for k in kwargs if k in labels.nodes)
            return PartialV(args[0], tuple(kwargs.items()), nodes)
        if path in ("typing.cast", "typing_extensions.cast") and len(node.args) == 2:
            return self.cast_value(node.args[0], frame)
        foreign = self.foreign_function(path)
        if foreign is not None:  # a function of another module of the checked project
            return self.call_function(foreign, args, kwargs, node, frame, labels, None, star)
        cls = self.foreign_class(path)
        if cls is not None:  # a class of another module of the checked project
            return self.construct(cls, args, kwargs, node, frame, labels, star)
        owner, _, name = path.rpartition(".")
        cls = self.foreign_class(owner) if owner and "." in owner else None
        method = self.find_method(cls, name) if cls is not None else None
        if method is not None and (method.is_static or "classmethod" in method.decorators):
            # ``HookedTransformerConfig.unwrap(cfg)``: a class or static method of a
            # class of another module, by its signature there.
            return self.call_function(method, args, kwargs, node, frame, labels, None, star)
        if path.startswith("builtins."):
            return self.call_builtin(path[9:], args, kwargs, node, frame)
        if path.startswith("math."):
            name = path[5:]
            if name in (
                "ceil",
                "floor",
                "trunc",
                "gcd",
                "lcm",
                "comb",
                "perm",
                "isqrt",
                "factorial",
                "prod",
            ):
                return IntV()
            return BoolV() if name.startswith("is") else FloatV()
        if path in _RANDOM_NUMBERS:  # ``random.uniform(*theta_d_range)``: a number, not an array
            return _RANDOM_NUMBERS[path]()
        found = function_rule(path)
        if found is not None:
            rule, kind = found
            name = _short_path(path)
            return self._rule_call(rule, name, args, kwargs, node, frame, labels, kind, star)
        loss = loss_rule(path)
        if loss is not None:
            if path.startswith("torch.nn.functional."):
                call = Call(loss.name, args, kwargs, labels, "torch", star)
                operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
                return self.with_notes(
                    lambda: apply_loss(loss, call, kwargs.get("reduction")), operands, frame
                )
            return LayerV(loss, dict(kwargs), f"{loss.name}(...) at line {node.lineno}", None)
        rule = layer_rule(path)
        if rule is not None:
            return self.build_layer(rule, args, kwargs, node, frame, labels, star)
        if path in ("torch.nn.ModuleList", "torch.nn.ParameterList"):
            given = args[0] if args else None
            return given if type(given) is ListV else ListV(None)
        if path == "torch.nn.Parameter" and args and type(args[0]) is Arr:
            return args[0].with_(origin=None)
        made = pretrained.made_by(path)
        if made is not None:  # ``StableDiffusionPipeline.from_pretrained(...)``
            return made
        if node is self.discarded:
            pass  # the statement drops the result: nothing is lost
        elif path.partition(".")[0] in _LIBRARY_ROOTS:
            self.gave_up(node, f"no rule for {path}: its result is unknown")
        else:
            self.gave_up(
                node,
                f"call of {path}, a function or class the checker has no "
                f"rule or signature for: its result is unknown",
            )
        return UNKNOWN

    def cast_value(self, annotation, frame):
        """``typing.cast(T, value)`` where ``T`` is an array type: an array of ``T``, its
        sizes named only in the annotation unknown (a name the function binds keeps
        its size). Any other ``T`` (``cast(Params4bit, w)``, ``cast(List[Tensor],
        samples)``: casts often tell a type checker what is not so) is unknown."""
        found = self.annotation_value(annotation, frame)
        if type(found) is not Arr:
            return UNKNOWN
        if found.shape is not None:
            found = found.with_(
                shape=tuple(
                    None if type(d) is Dim and d.is_symbol and d.name not in frame.where else d
                    for d in found.shape
                )
            )
        return found

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
            # ``nn.Sequential(*layers)`` of a list of unknown length: layers not known
            bound = {"layers": None if star else tuple(args)}
        elif rule.kind == "einops":  # the axis sizes given by keyword too
            bound = {**bound, "sizes": {k: v for k, v in kwargs.items() if k not in bound}}
        site = f"{label_of(node)} at line {node.lineno}"
        return LayerV(
            rule,
            bound,
            site,
            layer_dtype(bound) if rule.weighted or rule.kind == "embedding" else None,
        )

    def as_size_arg(self, value, node, frame):
        if (
            type(value) is Unknown
            and isinstance(node, ast.Name)
            and frame.func is not None
            and any(p[0] == node.id for p in frame.func.params)
        ):
            found = size_symbol(node.id)
            return IntV(found) if found is not None else value
        return value

    def call_builtin(self, name, args, kwargs, node, frame):
        first = args[0] if args else None
        if name == "len":
            if type(first) is Arr and first.shape:
                d = first.shape[0]
                return IntV(d if type(d) is Dim else None)
            if type(first) in (TupleV,) or (type(first) is ListV and first.items is not None):
                return IntV(dims.const(len(first.items)))
            if type(first) is ListV and first.length is not None:
                return IntV(first.length)  # ``len(names)`` of a list parameter
            return IntV()
        if name == "round" and len(args) > 1:
            return first if type(first) in (FloatV, IntV) else UNKNOWN
        if name in ("int", "round") and type(first) is IntV:
            return first
        if name in ("int", "round"):
            return IntV()
        if name == "float":
            return FloatV()
        if name in ("ord", "hash"):
            return IntV()
        if name == "chr":
            return StrV()
        if name in ("bool", "isinstance", "hasattr", "callable", "all", "any"):
            return BoolV()
        if name == "str" or name == "repr":
            return StrV()
        if name in ("tuple", "list", "sorted") and type(first) in (TupleV, ListV):
            if first.items is not None and name != "sorted":
                return TupleV(first.items) if name == "tuple" else ListV(first.items)
            return UNKNOWN if name == "tuple" else ListV(None, element_of(first))
        if name == "iter" and len(args) == 1 and type(first) in (ListV, TupleV, Arr):
            # ``next(iter(d.values()))``: one value of the dict, with its shape
            items = first.items if type(first) is not Arr else None
            return ListV(items, element_of(first), "iterator", length_of(first))
        if name == "next" and args and type(first) is ListV and first.kind == "iterator":
            found = first.items[0] if first.items else element_of(first)
            return join_values(found, args[1]) if len(args) > 1 else found
        if name in ("max", "min", "sum"):
            return self.extremum(name, args)
        if name == "abs" and type(first) in (IntV, FloatV, Arr):
            return first
        if name in ("print", "setattr", "delattr"):
            return NONE
        if (
            name == "map"
            and len(args) == 2
            and type(first) in (LambdaV, FuncV, PartialV, Ref, CallablesV)
            and type(args[1]) in (TupleV, ListV)
            and args[1].items is not None
            and len(args[1].items) <= 64
        ):
            # ``q, k, v = map(lambda t: rearrange(t, ...), (q, k, v))``: each item's
            return ListV(
                tuple(
                    self.invoke(first, [item], {}, node, frame, Labels({}))
                    for item in args[1].items
                ),
                kind="iterator",
            )
        if name == "range" and args and all(type(a) is IntV for a in args) and len(args) <= 3:
            # ``range(1, x.ndim)`` of a known rank: the axes, for ``dim=tuple(...)``
            bounds = [int_const(a) for a in args]
            if all(b is not None for b in bounds) and (len(bounds) < 3 or bounds[2] != 0):
                values = range(*bounds)
                if len(values) <= 16:
                    items = tuple(IntV(dims.const(v)) for v in values)
                    return ListV(items, IntV(), "range")
        if name in ("range", "zip", "enumerate", "reversed", "map", "filter"):
            return ListV(
                None,
                _iterated(name, args),
                "range" if name == "range" else "iterator",
                _iterated_length(name, args),
            )
        if name == "super":
            return Ref("builtins.super()")
        return UNKNOWN

    @staticmethod
    def extremum(name: str, args):
        """``max``/``min`` of ints (sizes kept), of numbers, or of one list; ``sum`` of one."""
        if len(args) >= 2 and name != "sum":
            if all(type(a) is IntV for a in args):
                if all(a.dim is not None for a in args):
                    fn = dims.dmax if name == "max" else dims.dmin
                    return IntV(fn(*(a.dim for a in args)))
                return IntV()
            return (
                join_all(args) if all(type(a) in (IntV, FloatV, BoolV) for a in args) else UNKNOWN
            )
        if len(args) >= 1 and type(args[0]) in (ListV, TupleV):
            items = args[0].items
            if (
                name != "sum"
                and items
                and len(items) <= 16
                and all(type(a) is IntV and a.dim is not None for a in items)
            ):
                # ``min(x.shape)``: the smallest of the sizes
                if len(items) == 1:
                    return items[0]
                fn = dims.dmax if name == "max" else dims.dmin
                return IntV(fn(*(a.dim for a in items)))
            found = element_of(args[0])
            if name == "sum":
                return {IntV: IntV(), BoolV: IntV(), FloatV: FloatV()}.get(type(found), UNKNOWN)
            return found
        return UNKNOWN

    # -- methods -------------------------------------------------------------------------
    def call_method(self, method: MethodV, args, kwargs, node, frame, labels, star):
        receiver, name = method.receiver, method.name
        t = type(receiver)
        if receiver is SOME_TENSOR and not sized_call(name, args, kwargs, star):
            return UNKNOWN
        if t is Arr:
            rule = method_rule(receiver.kind, name)
            if rule is None:
                if node is not self.discarded:
                    self.gave_up(
                        node, f"no rule for the array method .{name}(): its result is unknown"
                    )
                return UNKNOWN
            return self._receiver_rule_call(rule, method, args, kwargs, node, frame, labels, star)
        if arrays_union(receiver):
            return self.over_arrays(
                receiver,
                lambda v: self.call_method(
                    MethodV(v, name), args, kwargs, node, frame, labels, star
                ),
            )
        if t is LibV:  # ``self.vae.encode(x)``, ``self.scheduler.add_noise(x, noise, t)``
            return self.call_library_object(receiver, name, args, kwargs, node, frame, labels)
        if t is DistV:
            rule = distributions.METHODS.get(name)
            if rule is None:
                return UNKNOWN
            return self._receiver_rule_call(rule, method, args, kwargs, node, frame, labels, star)
        if t is InstV:
            info = receiver.info
            self.ensure_schema(info)
            found = self.find_method(info, name)
            if found is not None:
                return self.call_function(
                    found,
                    args,
                    kwargs,
                    node,
                    frame,
                    labels,
                    None if found.is_static else receiver,
                    star,
                )
            if info.is_module and name in (
                "to",
                "double",
                "float",
                "half",
                "cuda",
                "cpu",
                "train",
                "eval",
                "requires_grad_",
            ):
                return receiver
            if (
                name in REGISTERS
                and len(args) >= 2
                and type(args[0]) is StrV
                and args[0].value is not None
                and info is frame.building
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
            ):
                # self.register_buffer("mask", t) makes the attribute self.mask
                frame.vars[f"{node.func.value.id}.{args[0].value}"] = args[1]
                info.attrs[args[0].value] = anonymized(args[1])
                return NONE
            return UNKNOWN
        if t is LayerV:
            if name == "forward":
                return self.call_layer(receiver, args, kwargs, node, frame, labels)
            if name in ("double", "float", "half", "to"):
                from tensortypes.core.dtypes import float16, float32, float64

                from .rules.base import dtype_arg

                target = {"double": float64, "float": float32, "half": float16}.get(name)
                if name == "to":
                    target = next(
                        (
                            dtype_arg(a)
                            for a in [*args, kwargs.get("dtype")]
                            if a is not None and dtype_arg(a) is not None
                        ),
                        None,
                    )
                    if target is None:
                        return receiver
                return LayerV(
                    receiver.rule,
                    receiver.args,
                    receiver.site,
                    target if receiver.dtype is not None else None,
                )
            if name in ("train", "eval", "cuda", "cpu", "requires_grad_"):
                return receiver
            return UNKNOWN
        if t is Ref and receiver.path == "builtins.super()":
            return UNKNOWN
        if t is DTypeV and name == "is_floating_point":
            return BoolV()
        if t is StrV:
            return (
                StrV()
                if name in ("format", "upper", "lower", "strip", "join", "replace")
                else UNKNOWN
            )
        if t is ListV:
            return self.list_method(receiver, name, args, node, frame)
        if t is DictV:
            return self.dict_method(receiver, name, args, node, frame)
        return UNKNOWN

    def dict_method(self, receiver: DictV, name: str, args, node, frame):
        """``d.get(k)``, ``d.values()``...; any other method may change the dict, which
        then forgets its known items."""
        items = receiver.items
        if (
            name == "get"
            and args
            and type(args[0]) is StrV
            and items is not None
            and args[0].value in items
        ):
            return items[args[0].value]
        value = receiver.value if items is None else UNKNOWN
        if value is not UNKNOWN:
            # any value of a typed dict (``dict[str, Float[Tensor, "... C"]]``)
            if name == "values":
                return ListV(None, value, "iterator")
            if name == "items":
                return ListV(None, TupleV((UNKNOWN, value)), "iterator")
            if name == "get" and len(args) == 2:
                return join_values(value, args[1])  # ``d.get(k, -1)``
        if name in ("values", "items", "keys", "get", "copy"):
            return UNKNOWN
        owner = getattr(node.func, "value", None)
        key = attr_key(owner) if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
        if key is not None and key in frame.vars:
            frame.vars[key] = DictV(None, receiver.value)
        return UNKNOWN

    def list_method(self, receiver: ListV, name: str, args, node, frame):
        """A list method; one that changes the list forgets its known items."""
        element = element_of(receiver)
        if name in _LIST_MUTATORS:
            added = args[-1] if name in ("append", "insert") and args else None
            if name == "extend" and args:
                added = element_of(args[0])
            grown = (
                element
                if added is None
                else (added if receiver.items == () else join_values(element, added))
            )
            owner = getattr(node.func, "value", None)  # None: the method was stored first
            key = (
                attr_key(owner) if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
            )
            if key is not None:
                frame.vars[key] = ListV(None, grown)
            return element if name == "pop" else NONE
        if name in ("index", "count"):
            return IntV()
        if name == "copy":
            return receiver
        return UNKNOWN

    def find_method(self, info, name):
        if name in info.methods:
            return info.methods[name]
        if info.walker is not None and info.walker is not self:
            return info.walker.find_method(info, name)
        for cls in self.mro(info)[1:]:
            if name in cls.methods:
                return cls.methods[name]
        return None

    # -- layers ---------------------------------------------------------------------------------
    def call_layer(self, layer: LayerV, args, kwargs, node, frame, labels):
        if isinstance(layer.rule, Loss):
            call = Call(layer.rule.name, args, kwargs, labels, "torch")
            operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
            return self.with_notes(
                lambda: apply_loss(layer.rule, call, layer.args.get("reduction")), operands, frame
            )
        if args and arrays_union(args[0]):
            return self.over_arrays(
                args[0],
                lambda v: self.call_layer(layer, [v, *args[1:]], kwargs, node, frame, labels),
            )
        call = Call(layer.rule.name, args, kwargs, labels, "torch")
        call.invoke = self._invoker(node, frame, labels)
        call.facts = frame.facts
        operands = [(labels.nodes.get(i), v) for i, v in enumerate(args) if type(v) is Arr]
        made: list = []  # a Sequential's layers run so far: (layer, its input, its output)
        if layer.rule.kind == "seq":
            plain = call.invoke

            def recorded(sub, values):
                out = plain(sub, values)
                made.append((sub, values[0] if values else None, out))
                return out

            call.invoke = recorded

        def forward(given, named):
            again = Call(layer.rule.name, given, named, labels, "torch")
            again.invoke, again.facts = call.invoke, call.facts
            return layer_forward(layer, list(given), again)

        try:
            return self.shape_past_dtype(
                lambda: layer_forward(layer, list(args), call),
                forward,
                args,
                kwargs,
                operands,
                node,
                frame,
            )
        except CheckFailure as failure:
            note = _layers_before(made)
            if note is None:
                raise
            raise CheckFailure(failure.code, failure.message, (*failure.notes, note)) from None


def _layers_before(made: list):
    """A located note on the layers of a ``Sequential`` that ran before the one that
    failed, each where it was built with the shape it gave (the first of them may be
    built with the wrong width: ``LinearNoBias(dim, dim_inner)`` before a ``SwiGLU``),
    or None."""
    sources = []
    for sub, before, after in made:
        site = getattr(sub, "site", "")
        text, _, line = site.rpartition(" at line ")
        if not line.isdigit() or type(after) is not Arr or after.shape is None:
            continue
        if type(before) is Arr and before.shape == after.shape:
            continue
        sources.append((int(line), f"{text} gives {fmt_shape(after.shape)}", text, "said"))
    if not sources:
        return None
    steps = "; ".join(f"{s[1]} (line {s[0]})" for s in sources[-3:])
    return ShapeNote(f"the layers before it: {steps}", 0, "", "", sources=tuple(sources[-3:]))


def _listed_operands(node, value) -> list:
    """The arrays of a list or tuple written as the first argument (``torch.cat([a,
    b])``, ``pack((x, y), ...)``), each with its expression, for the notes."""
    if (
        isinstance(node, (ast.List, ast.Tuple))
        and type(value) in (ListV, TupleV)
        and value.items is not None
        and len(value.items) == len(node.elts)
    ):
        return [(n, v) for n, v in zip(node.elts, value.items) if type(v) is Arr]
    return []


def _pure(callee) -> bool:
    """Whether a callee leaves the lists it is given as they were (rules, builtins, layers)."""
    t = type(callee)
    if t is LayerV:
        return True
    if t is Ref:
        path = callee.path
        return path.startswith(("builtins.", "math.")) or function_rule(path) is not None
    if t is MethodV:
        return type(callee.receiver) is Arr
    return False


# Array methods that set attributes of other values: ``loss.backward()`` fills the
# ``.grad`` of every leaf it reaches.
_ATTRIBUTE_SETTING_METHODS = frozenset({"backward", "register_hook", "retain_grad"})
_PURE_ROOTS = (
    "builtins.",
    "math.",
    "torch.",
    "numpy.",
    "jax.",
    "einops.",
    "typing.",
    "operator.",
    "itertools.",
    "functools.",
)


def _keeps_attributes(callee) -> bool:
    """Whether a call cannot set attributes of the values it reaches (library code)."""
    t = type(callee)
    if t is LayerV:
        return True
    if t is Ref:
        return callee.path.startswith(_PURE_ROOTS) and callee.path != "builtins.setattr"
    if t is MethodV:
        return type(callee.receiver) is Arr and callee.name not in _ATTRIBUTE_SETTING_METHODS
    if t is FuncV:
        return _reads_only(callee.info.node)
    if t is PartialV:
        return _keeps_attributes(callee.callee)  # ``partial(nn.Linear, bias=False)``
    return False


_READING_BUILTINS = frozenset({"isinstance", "len", "hasattr", "callable", "type", "id"})


def _reads_only(node) -> bool:
    """Whether a function of the project is one ``return`` of an expression that calls
    nothing but ``isinstance``, ``len`` and the like (``def exists(v): return v is not
    None``): it cannot set an attribute."""
    expr = wrapper_return(node)
    if expr is None:
        return False
    for sub in ast.walk(expr):
        if isinstance(sub, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(sub, ast.Call) and not (
            isinstance(sub.func, ast.Name) and sub.func.id in _READING_BUILTINS
        ):
            return False
    return True


def forget_none_attributes(frame) -> None:
    """After an opaque call, an attribute (or item) known to be None may not be any more.

    ``a.grad = None; loss.backward(); f(a.grad)``: the call may set ``a.grad``
    through any object it can reach, which the walker cannot follow, so what was
    narrowed to None (or to an ``Optional``) becomes unknown. Attributes known to
    hold something else keep it: a call that replaces them is rare, and forgetting
    them would lose every shape a method's body relies on.
    """
    for key, value in frame.vars.items():
        if ("." in key or "[" in key) and (type(value) is NoneV or may_be_none(value)):
            frame.vars[key] = UNKNOWN


def _iterated(name: str, args):
    """The element a ``for`` loop gets from ``range``, ``enumerate``, ``zip``, ``reversed``."""
    if name == "range":
        return IntV()
    if name == "enumerate" and args:
        return TupleV((IntV(), element_of(args[0])))
    if name == "zip" and args:
        return TupleV(tuple(element_of(a) for a in args))
    if name == "reversed" and args:
        return element_of(args[0])
    return UNKNOWN


def _iterated_length(name: str, args):
    """How many elements ``range``, ``enumerate``, ``zip``, ``reversed`` or ``map`` give,
    when known (``range(n)``: ``n``; ``zip(a, b)`` of two iterables of one length)."""
    if name == "range":
        if len(args) == 1 and type(args[0]) is IntV:
            return args[0].dim
        return None
    if name in ("enumerate", "reversed") and len(args) == 1:
        return length_of(args[0])
    if name in ("zip", "map") and args:
        found = [length_of(a) for a in (args if name == "zip" else args[1:])]
        if found and found[0] is not None and all(f is found[0] for f in found):
            return found[0]
    return None


def _short_path(path: str) -> str:
    """A library function as code usually spells it: ``np.sum``, ``jnp.sum``, ``F.relu``.

    >>> _short_path("jax.numpy.concatenate"), _short_path("numpy.linalg.norm")
    ('jnp.concatenate', 'np.linalg.norm')
    """
    for prefix, short in (
        ("torch.nn.functional.", "F."),
        ("jax.numpy.", "jnp."),
        ("numpy.", "np."),
    ):
        if path.startswith(prefix):
            return short + path[len(prefix) :]
    return path
