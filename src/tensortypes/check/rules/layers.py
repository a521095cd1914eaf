"""``torch.nn`` layers as data: constructor parameters and forward shapes (layer 6).

Each :class:`LayerRule` names the constructor's parameters (in positional
order, with defaults) and gives its forward rule as pairs of shape strings in
the annotation language: an input pattern and the output it gives, where
``{param}`` stands for a constructor argument. ``Linear`` is
``"*b {in_features}" -> "*b {out_features}"``; ``Conv2d``'s output sizes are
the convolution formula written as a dim expression. An input of any other
rank is a ``layer`` error naming the accepted layouts; a size that differs
from the constructor's names the argument it came from.
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import float32

from ..binding import Binder
from ..diagnostics import CheckFailure
from ..shapetext import parse_shape
from ..symbolic import UNKNOWN, Arr, BoolV, IntV, ListV, Rest, StrV, TupleV, fmt_dtypes, fmt_shape
from . import shapefns as sf
from .base import Call, bool_const, dtype_arg, int_const, is_int

__all__ = ["LayerRule", "LAYERS", "layer_forward", "build_layer", "layer_dtype"]

_CONV = "(({x}+2*p{i}-d{i}*(k{i}-1)-1)//s{i}+1)"
_CONVT = "(({x}-1)*s{i}-2*p{i}+d{i}*(k{i}-1)+o{i}+1)"


class LayerRule:
    """One layer class: parameters, forward layouts, dtype and construction checks."""

    __slots__ = ("name", "params", "defaults", "layouts", "kind", "weighted", "spatial")

    def __init__(self, name: str, params: tuple, defaults: dict, layouts=(), kind: str = "map",
                 weighted: bool = True, spatial: int = 0):
        self.name = name
        self.params = params
        self.defaults = defaults
        self.layouts = tuple((parse_shape(i), parse_shape(o), i) for i, o in layouts)
        self.kind = kind          # "map", "conv", "convt", "pool", "rnn", "seq", "flatten"...
        self.weighted = weighted  # has float parameters: the input needs their dtype
        self.spatial = spatial


def _conv_layouts(n: int, transpose: bool = False, channels: bool = True):
    axes = "hwd"[:n] if n > 1 else "l"
    fmt = _CONVT if transpose else _CONV
    outs = " ".join(fmt.format(x=a, i=i) for i, a in enumerate(axes))
    cin = "{in_channels}" if channels else "c"
    cout = "{out_channels}" if channels else "c"
    return ((f"n {cin} {' '.join(axes)}", f"n {cout} {outs}"),
            (f"{cin} {' '.join(axes)}", f"{cout} {outs}"))


_CONV_PARAMS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
                "groups", "bias")
_CONV_DEFAULTS = {"stride": 1, "padding": 0, "dilation": 1, "groups": 1}
_POOL_PARAMS = ("kernel_size", "stride", "padding", "dilation")
_RNN_PARAMS = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
               "bidirectional")
_RNN_DEFAULTS = {"num_layers": 1, "batch_first": False, "bidirectional": False}
_ACT = (("*s", "*s"),)

LAYERS: dict = {
    "Linear": LayerRule("Linear", ("in_features", "out_features", "bias"), {},
                        (("*b {in_features}", "*b {out_features}"),)),
    "Bilinear": LayerRule("Bilinear", ("in1_features", "in2_features", "out_features"), {},
                          (("*b {in1_features}", "*b {out_features}"),)),
    "Conv1d": LayerRule("Conv1d", _CONV_PARAMS, _CONV_DEFAULTS, _conv_layouts(1), "conv",
                        spatial=1),
    "Conv2d": LayerRule("Conv2d", _CONV_PARAMS, _CONV_DEFAULTS, _conv_layouts(2), "conv",
                        spatial=2),
    "Conv3d": LayerRule("Conv3d", _CONV_PARAMS, _CONV_DEFAULTS, _conv_layouts(3), "conv",
                        spatial=3),
    "ConvTranspose1d": LayerRule("ConvTranspose1d", _CONV_PARAMS[:5] + ("output_padding",),
                                 {**_CONV_DEFAULTS, "output_padding": 0},
                                 _conv_layouts(1, True), "convt", spatial=1),
    "ConvTranspose2d": LayerRule("ConvTranspose2d", _CONV_PARAMS[:5] + ("output_padding",),
                                 {**_CONV_DEFAULTS, "output_padding": 0},
                                 _conv_layouts(2, True), "convt", spatial=2),
    "MaxPool1d": LayerRule("MaxPool1d", _POOL_PARAMS, {"padding": 0, "dilation": 1},
                           _conv_layouts(1, channels=False), "pool", False, 1),
    "MaxPool2d": LayerRule("MaxPool2d", _POOL_PARAMS, {"padding": 0, "dilation": 1},
                           _conv_layouts(2, channels=False), "pool", False, 2),
    "AvgPool1d": LayerRule("AvgPool1d", _POOL_PARAMS[:3], {"padding": 0},
                           _conv_layouts(1, channels=False), "pool", False, 1),
    "AvgPool2d": LayerRule("AvgPool2d", _POOL_PARAMS[:3], {"padding": 0},
                           _conv_layouts(2, channels=False), "pool", False, 2),
    "AdaptiveAvgPool2d": LayerRule("AdaptiveAvgPool2d", ("output_size",), {},
                                   (("n c h w", "n c {o0} {o1}"), ("c h w", "c {o0} {o1}")),
                                   "adaptive", False, 2),
    "AdaptiveMaxPool2d": LayerRule("AdaptiveMaxPool2d", ("output_size",), {},
                                   (("n c h w", "n c {o0} {o1}"), ("c h w", "c {o0} {o1}")),
                                   "adaptive", False, 2),
    "AdaptiveAvgPool1d": LayerRule("AdaptiveAvgPool1d", ("output_size",), {},
                                   (("n c l", "n c {o0}"), ("c l", "c {o0}")),
                                   "adaptive", False, 1),
    "BatchNorm1d": LayerRule("BatchNorm1d", ("num_features",), {},
                             (("n {num_features}", "n {num_features}"),
                              ("n {num_features} l", "n {num_features} l"))),
    "BatchNorm2d": LayerRule("BatchNorm2d", ("num_features",), {},
                             (("n {num_features} h w", "n {num_features} h w"),)),
    "BatchNorm3d": LayerRule("BatchNorm3d", ("num_features",), {},
                             (("n {num_features} d h w", "n {num_features} d h w"),)),
    "InstanceNorm2d": LayerRule("InstanceNorm2d", ("num_features",), {},
                                (("n {num_features} h w", "n {num_features} h w"),
                                 ("{num_features} h w", "{num_features} h w"))),
    "GroupNorm": LayerRule("GroupNorm", ("num_groups", "num_channels"), {},
                           (("n {num_channels} *s", "n {num_channels} *s"),), "groupnorm"),
    "LayerNorm": LayerRule("LayerNorm", ("normalized_shape",), {}, (), "layernorm"),
    "Embedding": LayerRule("Embedding", ("num_embeddings", "embedding_dim", "padding_idx"), {},
                           (("*s", "*s {embedding_dim}"),), "embedding", False),
    "LSTM": LayerRule("LSTM", _RNN_PARAMS, _RNN_DEFAULTS, (), "rnn"),
    "GRU": LayerRule("GRU", _RNN_PARAMS, _RNN_DEFAULTS, (), "rnn"),
    "RNN": LayerRule("RNN", _RNN_PARAMS, _RNN_DEFAULTS, (), "rnn"),
    "Flatten": LayerRule("Flatten", ("start_dim", "end_dim"), {"start_dim": 1, "end_dim": -1},
                         (), "flatten", False),
    "Softmax": LayerRule("Softmax", ("dim",), {}, _ACT, "softmax", False),
    "LogSoftmax": LayerRule("LogSoftmax", ("dim",), {}, _ACT, "softmax", False),
    "Sequential": LayerRule("Sequential", ("*layers",), {}, (), "seq", False),
    "MultiheadAttention": LayerRule("MultiheadAttention",
                                    ("embed_dim", "num_heads", "dropout", "bias"), {},
                                    (("l n {embed_dim}", "l n {embed_dim}"),
                                     ("l {embed_dim}", "l {embed_dim}")), "mha"),
    "TransformerEncoderLayer": LayerRule("TransformerEncoderLayer",
                                         ("d_model", "nhead", "dim_feedforward", "dropout"), {},
                                         (("*s {d_model}", "*s {d_model}"),), "heads"),
}
for _name in ("ReLU", "GELU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SiLU", "Softplus",
              "Mish", "Hardtanh", "ReLU6", "PReLU", "Dropout", "Dropout1d", "Dropout2d",
              "AlphaDropout", "Identity", "Hardswish", "Hardsigmoid", "SELU", "CELU", "GLU"):
    LAYERS[_name] = LayerRule(_name, ("*args",), {}, _ACT, "map", _name == "PReLU")
LAYERS["GLU"] = LayerRule("GLU", ("dim",), {"dim": -1}, (), "opaque", False)
del _name


def _pair(value, n: int):
    """A kernel/stride/padding argument as ``n`` ints (an int repeats), or None."""
    single = int_const(value)
    if single is not None:
        return [single] * n
    if type(value) in (TupleV, ListV) and value.items is not None and len(value.items) == n:
        out = [int_const(v) for v in value.items]
        return None if any(v is None for v in out) else out
    return None


def build_layer(rule: LayerRule, call: Call) -> dict:
    """The constructor's arguments by parameter name, checked where a rule says so."""
    args = call.bind(rule.params)
    for key, value in rule.defaults.items():
        args.setdefault(key, BoolV(value) if type(value) is bool else IntV(dims.const(value)))
    if rule.kind == "mha" or rule.kind == "heads":
        total, heads = (args.get(p) for p in (rule.params[0], rule.params[1]))
        if type(total) is IntV and type(heads) is IntV and total.dim is not None \
                and heads.dim is not None:
            rest = total.dim % heads.dim
            if rest.is_constant and rest.value != 0:
                raise CheckFailure("layer", f"{rule.name}: {rule.params[0]}={total.dim} is not "
                                            f"divisible by {rule.params[1]}={heads.dim}")
    if rule.kind == "groupnorm":
        groups, channels = args.get("num_groups"), args.get("num_channels")
        if type(groups) is IntV and type(channels) is IntV and groups.dim is not None \
                and channels.dim is not None:
            rest = channels.dim % groups.dim
            if rest.is_constant and rest.value != 0:
                raise CheckFailure("layer", f"GroupNorm: num_channels={channels.dim} is not "
                                            f"divisible by num_groups={groups.dim}")
    return args


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
        padding = _pair(args.get("padding"), n)
        dilation = _pair(args.get("dilation", IntV(dims.const(1))), n)
        outpad = _pair(args.get("output_padding", IntV(dims.const(0))), n)
        if type(args.get("padding")) is StrV:
            text = args["padding"].value
            if text == "same":
                padding = None
                env["same"] = True
            elif text == "valid":
                padding = [0] * n
        for i in range(n):
            for key, seq in (("k", kernel), ("s", stride), ("p", padding), ("d", dilation),
                             ("o", outpad)):
                env[f"{key}{i}"] = dims.const(seq[i]) if seq is not None else None
    if rule.kind == "adaptive":
        sizes = _pair(args.get("output_size"), n)
        for i in range(n):
            env[f"o{i}"] = dims.const(sizes[i]) if sizes is not None else None
    return env


def layer_forward(layer, inputs: list, call: Call):
    """The value a layer's forward gives for ``inputs`` (the first one checked)."""
    rule: LayerRule = layer.rule
    if rule.kind == "seq":
        value = inputs[0] if inputs else UNKNOWN
        for sub in layer.args.get("layers", ()):
            value = call.invoke(sub, [value])
        return value
    if not inputs:
        return UNKNOWN
    x = inputs[0]
    if type(x) is not Arr:
        return UNKNOWN
    label = call.label(0)
    where = f"{layer.site}"
    if rule.kind == "embedding":
        if x.dtypes is not None and not is_int(x.dtypes):
            raise CheckFailure("dtype", f"{rule.name}: indices must be an integer tensor, "
                                        f"{label} has dtype {fmt_dtypes(x.dtypes)}",
                               [f"layer: {where}"])
    elif rule.weighted and x.dtypes is not None and layer.dtype is not None \
            and layer.dtype not in x.dtypes:
        raise CheckFailure("dtype", f"{rule.name}: input {label} has dtype "
                                    f"{fmt_dtypes(x.dtypes)} but the layer's weights are "
                                    f"{layer.dtype} (cast the input with .to({layer.dtype}) "
                                    f"or the layer with .to(...))", [f"layer: {where}"])
    args = layer.args
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
    out = _match_layouts(rule, layouts, env, x, label, where)
    dtype = layer.dtype if rule.weighted or rule.kind == "embedding" else None
    result = x.with_(shape=out, origin=None, contiguous=True)
    if dtype is not None:
        result = result.with_(dtypes=frozenset({dtype}))
    if rule.kind == "mha":
        return TupleV((result, Arr(x.kind, result.dtypes, None)))
    return result


def _match_layouts(rule: LayerRule, layouts, env: dict, x: Arr, label: str, where: str):
    if x.shape is None or not layouts:
        return None
    candidates = [lay for lay in layouts if x.rank is None or _rank_fits(lay[0], x.rank)]
    if not candidates:
        forms = " or ".join(f"({', '.join(t.split())})" for _, _, t in layouts)
        raise CheckFailure("layer", f"{rule.name} expects an input of layout {forms}, "
                                    f"{label} has shape {fmt_shape(x.shape)}",
                           [f"layer: {where}"])
    pattern, out, _ = candidates[0]
    binder = Binder(env)
    problems = binder.match(pattern, x.shape, f"{label} {fmt_shape(x.shape)}")
    if problems:
        raise CheckFailure("layer", f"{rule.name}: {problems[0].message}",
                           [f"layer: {where}"])
    return binder.substitute(out)


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
    env = {"input_size": args["input_size"].dim if type(args.get("input_size")) is IntV
           else None}
    env["out"] = hidden * d if type(hidden) is Dim else None
    env["hid"] = hidden
    env["layers"] = layers * d if type(layers) is Dim else None
    batched = ("n l {input_size}", "n l {out}") if first else ("l n {input_size}", "l n {out}")
    layouts = ((parse_shape(batched[0]), parse_shape(batched[1]), batched[0]),
               (parse_shape("l {input_size}"), parse_shape("l {out}"), "l {input_size}"))
    out = _match_layouts(rule, layouts, env, x, label, where)
    if x.rank == 3:
        n = x.shape[0] if first else x.shape[1]
        state = Arr(x.kind, x.dtypes, (env["layers"], n, hidden))
    else:
        state = Arr(x.kind, x.dtypes, (env["layers"], hidden)) if x.rank == 2 else \
            Arr(x.kind, x.dtypes, None)
    output = x.with_(shape=out, origin=None)
    if rule.name == "LSTM":
        return TupleV((output, TupleV((state, state))))
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
    """The dtype of a layer's weights: ``dtype=`` when given, else float32."""
    found = dtype_arg(args.get("dtype")) if args.get("dtype") is not None else None
    return found or float32
