"""``torch.nn`` layers: construction checks and forward shapes (layer 6: ``check.rules``).

The layer table (``check.rules.layer_table``) is data; this module applies it.
:func:`build_layer` binds a constructor call's arguments and checks what must
divide (:func:`validate_layer`, again for each construction of a class that
built the layer from its own sizes); :func:`layer_forward` matches an input
against the layer's layouts with the constructor's arguments bound. An input
of any other rank is a ``layer`` error naming the accepted layouts; a size
that differs from the constructor's names the argument it came from; an input
of a dtype other than the weights' is a ``dtype`` error.
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import float32, int64

from ..binding import Binder
from ..diagnostics import CheckFailure
from ..shapetext import parse_shape
from ..symbolic import UNKNOWN, Arr, BoolV, IntV, ListV, Rest, StrV, TupleV, fmt_dtypes, fmt_shape
from . import shapefns as sf
from .base import Call, bool_const, explicit_dtypes, int_const, is_int
from .layer_table import LayerRule
from .patterns import EINOPS

__all__ = ["layer_forward", "build_layer", "layer_dtype", "validate_layer"]


def _pair(value, n: int):
    """A kernel/stride/padding argument as ``n`` sizes (an int repeats), or None.

    Sizes may be symbolic (``stride`` given to ``__init__``): the output length
    is then an expression of them.
    """
    if type(value) is IntV:
        return [value.dim] * n if value.dim is not None else None
    if type(value) in (TupleV, ListV) and value.items is not None and len(value.items) == n:
        out = [v.dim if type(v) is IntV else None for v in value.items]
        return None if any(d is None for d in out) else out
    return None


def build_layer(rule: LayerRule, call: Call) -> dict:
    """The constructor's arguments by parameter name, checked where a rule says so."""
    args = call.bind(rule.params)
    for key, value in rule.defaults.items():
        args.setdefault(key, BoolV(value) if type(value) is bool else IntV(dims.const(value)))
    validate_layer(rule, args)
    return args


def validate_layer(rule: LayerRule, args: dict, env: dict | None = None) -> None:
    """Check the constructor's divisibility constraints, sizes substituted from ``env``.

    ``env`` maps the size names of a class's ``__init__`` to the sizes one
    construction gives them (``Block(dim=100, heads=8)``), so a layer built from
    symbolic sizes is checked again for each construction.
    """
    for dividend, divisor in rule.divides:
        total, parts = (_size(args.get(p), env) for p in (dividend, divisor))
        if total is None or parts is None or (parts.is_constant and parts.value == 0):
            continue
        rest = total % parts
        if rest.is_constant and rest.value != 0:
            raise CheckFailure(
                "layer", f"{rule.name}: {dividend}={total} is not divisible by {divisor}={parts}"
            )


def _size(value, env):
    if type(value) is not IntV or value.dim is None:
        return None
    if env and not value.dim.is_constant:
        known = {k: v for k, v in env.items() if type(v) is Dim}
        return value.dim.substitute(known) if known else value.dim
    return value.dim


def _env(rule: LayerRule, args: dict) -> dict:
    env: dict = {}
    for name in rule.params:
        value = args.get(name.lstrip("*"))
        if type(value) is IntV:
            env[name] = value.dim
    n = rule.spatial
    if rule.kind in ("conv", "convt", "pool"):
        kernel = _pair(args.get("kernel_size"), n)
        stride = _pair(args.get("stride"), n) if args.get("stride") is not None else kernel
        if rule.kind == "pool" and type(args.get("stride")).__name__ == "NoneV":
            stride = kernel
        if bool_const(args.get("ceil_mode"), False) is not False:
            stride = None  # ceil_mode rounds the output up: not the floor formula
        padding = _pair(args.get("padding"), n)
        dilation = _pair(args.get("dilation", IntV(dims.const(1))), n)
        outpad = _pair(args.get("output_padding", IntV(dims.const(0))), n)
        if type(args.get("padding")) is StrV:
            text = args["padding"].value
            if text == "same":
                padding = None
                env["same"] = True
            elif text == "valid":
                padding = [dims.const(0)] * n
        for i in range(n):
            for key, seq in (
                ("k", kernel),
                ("s", stride),
                ("p", padding),
                ("d", dilation),
                ("o", outpad),
            ):
                env[f"{key}{i}"] = seq[i] if seq is not None else None
    if rule.kind == "adaptive":
        sizes = _pair(args.get("output_size"), n)
        for i in range(n):
            env[f"o{i}"] = sizes[i] if sizes is not None else None
    return env


# The kinds of layers whose forward gives one tensor (an LSTM gives a tuple, a
# Sequential what its layers give).
_ONE_ARRAY = frozenset(
    {"map", "conv", "convt", "adaptive", "embedding", "flatten", "softmax", "glu", "layernorm"}
)


def layer_forward(layer, inputs: list, call: Call):
    """The value a layer's forward gives for ``inputs`` (the first one checked)."""
    rule: LayerRule = layer.rule
    if rule.kind == "seq":
        if call.invoke is None:  # no walker to call the layers with
            return UNKNOWN
        value = inputs[0] if inputs else UNKNOWN
        if layer.args.get("layers", ()) is None:
            return UNKNOWN  # built from a list of unknown length
        for sub in layer.args.get("layers", ()):
            value = call.invoke(sub, [value])
        return value
    if not inputs:
        return UNKNOWN
    x = inputs[0]
    if type(x) is not Arr:
        if x is UNKNOWN and rule.kind in _ONE_ARRAY:
            # a layer of one tensor given an input of unknown value (``self.q(h_)`` of
            # an unannotated ``h_``) still gives a tensor, of a shape not known
            return Arr("torch", None, None)
        return UNKNOWN
    label = call.label(0)
    where = f"{layer.site}"
    if rule.kind == "embedding":
        if x.dtypes is not None and not is_int(x.dtypes):
            raise CheckFailure(
                "dtype",
                f"{rule.name}: indices must be an integer tensor, "
                f"{label} has dtype {fmt_dtypes(x.dtypes)}",
                [f"layer: {where}"],
            )
    elif (
        rule.weighted
        and x.dtypes is not None
        and layer.dtype is not None
        and layer.dtype not in x.dtypes
    ):
        raise CheckFailure(
            "dtype",
            f"{rule.name}: input {label} has dtype "
            f"{fmt_dtypes(x.dtypes)} but the layer's weights are "
            f"{layer.dtype} (cast the input with .to({layer.dtype}) "
            f"or the layer with .to(...))",
            [f"layer: {where}"],
        )
    args = layer.args
    if rule.kind == "einops":  # einops.layers.torch.Rearrange / Reduce
        pattern = args.get("pattern")
        if type(pattern) is not StrV:
            return x.with_(shape=None, origin=None)
        given = [x, pattern] + ([args["reduction"]] if "reduction" in args else [])
        op = "reduce" if rule.name == "Reduce" else "rearrange"
        inner = Call(
            f"{rule.name}({pattern.value!r})",
            given,
            dict(args.get("sizes", {})),
            call.labels,
            "torch",
        )
        return EINOPS[op].apply(inner)
    if rule.kind == "flatten":
        s, e = int_const(args.get("start_dim")), int_const(args.get("end_dim"))
        if s is None or e is None:
            return x.with_(shape=None, origin=None)
        return x.with_(shape=sf.flatten_shape(x.shape, s, e), origin=None)
    if rule.kind == "softmax":
        axis = int_const(args.get("dim")) if args.get("dim") is not None else None
        if axis is not None and x.rank is not None:
            sf.norm_axis(axis, x.rank)
        return x.with_(origin=None)
    if rule.kind == "glu":
        axis = int_const(args.get("dim"))
        if axis is None:
            return x.with_(shape=None, origin=None)
        return x.with_(shape=sf.glu_shape(x.shape, axis), origin=None)
    if rule.kind == "opaque":
        return x.with_(shape=None, origin=None)
    if rule.kind == "rnn":
        return _rnn(layer, x, label, where)
    if rule.kind == "layernorm":
        return _layernorm(layer, x, label, where)
    env = _env(rule, args)
    layouts = rule.layouts
    if env.pop("same", False):
        layouts = tuple((i, i, t) for i, _, t in layouts)
    out = _match_layouts(rule, layouts, env, x, label, where, call.facts)
    if rule.kind in ("conv", "convt", "pool") and out is not None:
        for axis, d in enumerate(out):
            if type(d) is Dim and d.value is not None and d.value < 1:
                raise CheckFailure(
                    "layer",
                    f"{rule.name}: output size {d.value} on axis "
                    f"{axis}: {label} {fmt_shape(x.shape)} is too "
                    f"small for the window",
                    [f"layer: {where}"],
                )
    dtype = layer.dtype if rule.weighted or rule.kind == "embedding" else None
    result = x.with_(shape=out, origin=None, contiguous=True)
    if dtype is not None:
        result = result.with_(dtypes=frozenset({dtype}))
    if rule.kind == "mha":
        return TupleV((result, Arr(x.kind, result.dtypes, None)))
    if bool_const(args.get("return_indices"), False) is not False:
        return TupleV((result, result.with_(dtypes=frozenset({int64}))))
    return result


def _match_layouts(rule: LayerRule, layouts, env: dict, x: Arr, label: str, where: str, facts=()):
    if x.shape is None or not layouts:
        return None
    candidates = [lay for lay in layouts if x.rank is None or _rank_fits(lay[0], x.rank)]
    if not candidates:
        forms = " or ".join(
            f"({', '.join(_shown(a, env) for a in t.split())})" for _, _, t in layouts
        )
        raise CheckFailure(
            "layer",
            f"{rule.name} expects an input of layout {forms}, "
            f"{label} has shape {fmt_shape(x.shape)}",
            [f"layer: {where}"],
        )
    pattern, out, _ = candidates[0]
    binder = Binder(env, facts=facts)
    problems = binder.match(pattern, x.shape, f"{label} {fmt_shape(x.shape)}")
    if problems:
        raise CheckFailure("layer", f"{rule.name}: {problems[0].message}", [f"layer: {where}"])
    return binder.substitute(out)


def _shown(axis: str, env: dict) -> str:
    """A layout axis as the user reads it: ``{in_channels}`` shown as its value."""
    if axis.startswith("{") and axis.endswith("}"):
        value = env.get(axis[1:-1])
        return str(value) if type(value) is Dim else axis[1:-1]
    return axis


def _rank_fits(pattern, rank: int) -> bool:
    has_rest = any(type(d) is Rest for d in pattern)
    return rank >= len(pattern) - 1 if has_rest else rank == len(pattern)


def _rnn(layer, x: Arr, label: str, where: str):
    rule, args = layer.rule, layer.args
    hidden = args.get("hidden_size")
    hidden = hidden.dim if type(hidden) is IntV else None
    layers = args.get("num_layers")
    layers = layers.dim if type(layers) is IntV else None
    first = bool_const(args.get("batch_first"), False)
    both = bool_const(args.get("bidirectional"), False)
    if first is None or both is None:
        return UNKNOWN
    d = 2 if both else 1
    env = {"input_size": args["input_size"].dim if type(args.get("input_size")) is IntV else None}
    proj = args.get("proj_size")  # an LSTM with proj_size > 0 outputs that many features
    proj = (
        dims.const(0)
        if proj is None or int_const(proj) == 0
        else (proj.dim if type(proj) is IntV else None)
    )
    if proj is not None and not (proj.is_constant and proj.value == 0):
        hidden_out = proj
    else:
        hidden_out = hidden if proj is not None else None
    env["out"] = hidden_out * d if type(hidden_out) is Dim else None
    env["hid"] = hidden
    env["layers"] = layers * d if type(layers) is Dim else None
    batched = ("n l {input_size}", "n l {out}") if first else ("l n {input_size}", "l n {out}")
    layouts = (
        (parse_shape(batched[0]), parse_shape(batched[1]), batched[0]),
        (parse_shape("l {input_size}"), parse_shape("l {out}"), "l {input_size}"),
    )
    out = _match_layouts(rule, layouts, env, x, label, where)
    h: tuple | None
    c: tuple | None
    if x.rank == 3:
        n = x.shape[0] if first else x.shape[1]
        h, c = ((env["layers"], n, hidden_out), (env["layers"], n, hidden))
    else:
        h, c = (
            ((env["layers"], hidden_out), (env["layers"], hidden)) if x.rank == 2 else (None, None)
        )
    output = x.with_(shape=out, origin=None)
    state, cell = Arr(x.kind, x.dtypes, h), Arr(x.kind, x.dtypes, c)
    if rule.name == "LSTM":
        return TupleV((output, TupleV((state, cell))))
    return TupleV((output, state))


def _layernorm(layer, x: Arr, label: str, where: str):
    given = layer.args.get("normalized_shape")
    if type(given) is IntV:
        sizes = [given.dim]
    elif type(given) in (TupleV, ListV) and given.items is not None:
        sizes = [v.dim if type(v) is IntV else None for v in given.items]
    else:
        return x.with_(origin=None)
    names = [f"ln{i}" for i in range(len(sizes))]
    env = dict(zip(names, sizes))
    text = "*s " + " ".join(names)
    pattern = parse_shape(text)
    _match_layouts(layer.rule, ((pattern, pattern, text),), env, x, label, where)
    return x.with_(origin=None)


def layer_dtype(args: dict):
    """The dtype of a layer's weights: ``dtype=`` when given (None if not known), else float32."""
    found = explicit_dtypes(args.get("dtype"), frozenset({float32}))
    return next(iter(found)) if found is not None else None
