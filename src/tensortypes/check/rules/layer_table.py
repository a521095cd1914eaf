"""``torch.nn`` layers as data: constructor parameters and forward layouts (layer 6).

Each :class:`LayerRule` names the constructor's parameters in PyTorch's
positional order, with defaults, and gives its forward rule as pairs of shape
strings in the annotation language: an input layout and the output it gives,
where ``{param}`` stands for a constructor argument. ``Linear`` is
``"*b {in_features}" -> "*b {out_features}"``; ``Conv2d``'s output sizes are
the convolution formula written as a dim expression (``k0``, ``s0``, ``p0``,
``d0``: kernel, stride, padding and dilation of the first spatial axis).
``divides`` lists the parameter pairs that must divide (``embed_dim`` by
``num_heads``). The rules themselves are in ``check.rules.layers``.
"""

from __future__ import annotations

from ..shapetext import parse_shape

__all__ = ["LayerRule", "LAYERS"]

_CONV = "(({x}+2*p{i}-d{i}*(k{i}-1)-1)//s{i}+1)"
_CONVT = "(({x}-1)*s{i}-2*p{i}+d{i}*(k{i}-1)+o{i}+1)"


class LayerRule:
    """One layer class: parameters, forward layouts, dtype and construction checks."""

    __slots__ = ("name", "params", "defaults", "layouts", "kind", "weighted", "spatial", "divides")

    def __init__(
        self,
        name: str,
        params: tuple,
        defaults: dict,
        layouts=(),
        kind: str = "map",
        weighted: bool = True,
        spatial: int = 0,
        divides: tuple = (),
    ):
        self.name = name
        self.params = params
        self.defaults = defaults
        self.layouts = tuple((parse_shape(i), parse_shape(o), i) for i, o in layouts)
        self.kind = kind  # "map", "conv", "convt", "pool", "rnn", "seq", "flatten"...
        self.weighted = weighted  # has float parameters: the input needs their dtype
        self.spatial = spatial
        self.divides = divides  # (dividend, divisor) parameter pairs that must divide


def _conv_layouts(n: int, transpose: bool = False, channels: bool = True):
    axes = "hwd"[:n] if n > 1 else "l"
    fmt = _CONVT if transpose else _CONV
    outs = " ".join(fmt.format(x=a, i=i) for i, a in enumerate(axes))
    cin = "{in_channels}" if channels else "c"
    cout = "{out_channels}" if channels else "c"
    return (
        (f"n {cin} {' '.join(axes)}", f"n {cout} {outs}"),
        (f"{cin} {' '.join(axes)}", f"{cout} {outs}"),
    )


# Each constructor's parameters in PyTorch's positional order (so that a call with
# all of them positionally binds like PyTorch does).
_DEV = ("device", "dtype")
_CONV_PARAMS = (
    "in_channels",
    "out_channels",
    "kernel_size",
    "stride",
    "padding",
    "dilation",
    "groups",
    "bias",
    "padding_mode",
    *_DEV,
)
_CONVT_PARAMS = (
    "in_channels",
    "out_channels",
    "kernel_size",
    "stride",
    "padding",
    "output_padding",
    "groups",
    "bias",
    "dilation",
    "padding_mode",
    *_DEV,
)
_NORM_PARAMS = ("num_features", "eps", "momentum", "affine", "track_running_stats", *_DEV)
_CONV_DEFAULTS = {"stride": 1, "padding": 0, "dilation": 1, "groups": 1}
_POOL_PARAMS = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
_AVG_PARAMS = (
    "kernel_size",
    "stride",
    "padding",
    "ceil_mode",
    "count_include_pad",
    "divisor_override",
)
_RNN_PARAMS = (
    "input_size",
    "hidden_size",
    "num_layers",
    "bias",
    "batch_first",
    "dropout",
    "bidirectional",
    "proj_size",
    *_DEV,
)
_ELMAN_PARAMS = (
    "input_size",
    "hidden_size",
    "num_layers",
    "nonlinearity",
    "bias",
    "batch_first",
    "dropout",
    "bidirectional",
    *_DEV,
)
_RNN_DEFAULTS = {"num_layers": 1, "batch_first": False, "bidirectional": False}
_ACT = (("*s", "*s"),)
_GROUPS = (("in_channels", "groups"), ("out_channels", "groups"))

LAYERS: dict = {
    "Linear": LayerRule(
        "Linear",
        ("in_features", "out_features", "bias", *_DEV),
        {},
        (("*b {in_features}", "*b {out_features}"),),
    ),
    "Bilinear": LayerRule(
        "Bilinear",
        ("in1_features", "in2_features", "out_features", "bias", *_DEV),
        {},
        (("*b {in1_features}", "*b {out_features}"),),
    ),
    "Conv1d": LayerRule(
        "Conv1d", _CONV_PARAMS, _CONV_DEFAULTS, _conv_layouts(1), "conv", spatial=1, divides=_GROUPS
    ),
    "Conv2d": LayerRule(
        "Conv2d", _CONV_PARAMS, _CONV_DEFAULTS, _conv_layouts(2), "conv", spatial=2, divides=_GROUPS
    ),
    "Conv3d": LayerRule(
        "Conv3d", _CONV_PARAMS, _CONV_DEFAULTS, _conv_layouts(3), "conv", spatial=3, divides=_GROUPS
    ),
    "ConvTranspose1d": LayerRule(
        "ConvTranspose1d",
        _CONVT_PARAMS,
        {**_CONV_DEFAULTS, "output_padding": 0},
        _conv_layouts(1, True),
        "convt",
        spatial=1,
        divides=_GROUPS,
    ),
    "ConvTranspose2d": LayerRule(
        "ConvTranspose2d",
        _CONVT_PARAMS,
        {**_CONV_DEFAULTS, "output_padding": 0},
        _conv_layouts(2, True),
        "convt",
        spatial=2,
        divides=_GROUPS,
    ),
    "MaxPool1d": LayerRule(
        "MaxPool1d",
        _POOL_PARAMS,
        {"padding": 0, "dilation": 1},
        _conv_layouts(1, channels=False),
        "pool",
        False,
        1,
    ),
    "MaxPool2d": LayerRule(
        "MaxPool2d",
        _POOL_PARAMS,
        {"padding": 0, "dilation": 1},
        _conv_layouts(2, channels=False),
        "pool",
        False,
        2,
    ),
    "AvgPool1d": LayerRule(
        "AvgPool1d", _AVG_PARAMS, {"padding": 0}, _conv_layouts(1, channels=False), "pool", False, 1
    ),
    "AvgPool2d": LayerRule(
        "AvgPool2d", _AVG_PARAMS, {"padding": 0}, _conv_layouts(2, channels=False), "pool", False, 2
    ),
    "AdaptiveAvgPool2d": LayerRule(
        "AdaptiveAvgPool2d",
        ("output_size",),
        {},
        (("n c h w", "n c {o0} {o1}"), ("c h w", "c {o0} {o1}")),
        "adaptive",
        False,
        2,
    ),
    "AdaptiveMaxPool2d": LayerRule(
        "AdaptiveMaxPool2d",
        ("output_size", "return_indices"),
        {},
        (("n c h w", "n c {o0} {o1}"), ("c h w", "c {o0} {o1}")),
        "adaptive",
        False,
        2,
    ),
    "AdaptiveAvgPool1d": LayerRule(
        "AdaptiveAvgPool1d",
        ("output_size",),
        {},
        (("n c l", "n c {o0}"), ("c l", "c {o0}")),
        "adaptive",
        False,
        1,
    ),
    "BatchNorm1d": LayerRule(
        "BatchNorm1d",
        _NORM_PARAMS,
        {},
        (("n {num_features}", "n {num_features}"), ("n {num_features} l", "n {num_features} l")),
    ),
    "BatchNorm2d": LayerRule(
        "BatchNorm2d", _NORM_PARAMS, {}, (("n {num_features} h w", "n {num_features} h w"),)
    ),
    "BatchNorm3d": LayerRule(
        "BatchNorm3d", _NORM_PARAMS, {}, (("n {num_features} d h w", "n {num_features} d h w"),)
    ),
    "InstanceNorm2d": LayerRule(
        "InstanceNorm2d",
        _NORM_PARAMS,
        {},
        (
            ("n {num_features} h w", "n {num_features} h w"),
            ("{num_features} h w", "{num_features} h w"),
        ),
    ),
    "GroupNorm": LayerRule(
        "GroupNorm",
        ("num_groups", "num_channels", "eps", "affine", *_DEV),
        {},
        (("n {num_channels} *s", "n {num_channels} *s"),),
        divides=(("num_channels", "num_groups"),),
    ),
    "LayerNorm": LayerRule(
        "LayerNorm",
        ("normalized_shape", "eps", "elementwise_affine", "bias", *_DEV),
        {},
        (),
        "layernorm",
    ),
    "RMSNorm": LayerRule(
        "RMSNorm",
        ("normalized_shape", "eps", "elementwise_affine", *_DEV),
        {},
        (),
        "layernorm",
    ),
    "Embedding": LayerRule(
        "Embedding",
        (
            "num_embeddings",
            "embedding_dim",
            "padding_idx",
            "max_norm",
            "norm_type",
            "scale_grad_by_freq",
            "sparse",
            "_weight",
            "_freeze",
            *_DEV,
        ),
        {},
        (("*s", "*s {embedding_dim}"),),
        "embedding",
        False,
    ),
    "LSTM": LayerRule("LSTM", _RNN_PARAMS, _RNN_DEFAULTS, (), "rnn"),
    "GRU": LayerRule("GRU", _RNN_PARAMS[:7] + _DEV, _RNN_DEFAULTS, (), "rnn"),
    "RNN": LayerRule("RNN", _ELMAN_PARAMS, _RNN_DEFAULTS, (), "rnn"),
    "Flatten": LayerRule(
        "Flatten", ("start_dim", "end_dim"), {"start_dim": 1, "end_dim": -1}, (), "flatten", False
    ),
    "Softmax": LayerRule("Softmax", ("dim",), {}, _ACT, "softmax", False),
    "GLU": LayerRule("GLU", ("dim",), {"dim": -1}, (), "glu", False),
    "LogSoftmax": LayerRule("LogSoftmax", ("dim",), {}, _ACT, "softmax", False),
    "Sequential": LayerRule("Sequential", ("*layers",), {}, (), "seq", False),
    "PixelShuffle": LayerRule(
        "PixelShuffle",
        ("upscale_factor",),
        {},
        (("*s c*{upscale_factor}**2 h w", "*s c h*{upscale_factor} w*{upscale_factor}"),),
        "map",
        False,
    ),
    "PixelUnshuffle": LayerRule(
        "PixelUnshuffle",
        ("downscale_factor",),
        {},
        (("*s c h*{downscale_factor} w*{downscale_factor}", "*s c*{downscale_factor}**2 h w"),),
        "map",
        False,
    ),
    "MultiheadAttention": LayerRule(
        "MultiheadAttention",
        (
            "embed_dim",
            "num_heads",
            "dropout",
            "bias",
            "add_bias_kv",
            "add_zero_attn",
            "kdim",
            "vdim",
            "batch_first",
            *_DEV,
        ),
        {},
        (("l n {embed_dim}", "l n {embed_dim}"), ("l {embed_dim}", "l {embed_dim}")),
        "mha",
        divides=(("embed_dim", "num_heads"),),
    ),
    "TransformerEncoderLayer": LayerRule(
        "TransformerEncoderLayer",
        (
            "d_model",
            "nhead",
            "dim_feedforward",
            "dropout",
            "activation",
            "layer_norm_eps",
            "batch_first",
            "norm_first",
            "bias",
            *_DEV,
        ),
        {},
        (("*s {d_model}", "*s {d_model}"),),
        divides=(("d_model", "nhead"),),
    ),
}
for _name in (
    "ReLU",
    "GELU",
    "Tanh",
    "Sigmoid",
    "LeakyReLU",
    "ELU",
    "SiLU",
    "Softplus",
    "Mish",
    "Hardtanh",
    "ReLU6",
    "PReLU",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "AlphaDropout",
    "Identity",
    "Hardswish",
    "Hardsigmoid",
    "SELU",
    "CELU",
):
    LAYERS[_name] = LayerRule(_name, ("*args",), {}, _ACT, "map", _name == "PReLU")
del _name

# Layers of other libraries that models are built of, by their full path.
OTHER_LAYERS = {
    # TransformerLens's hook: the identity, where hooks may read or patch the value.
    "transformer_lens.hook_points.HookPoint": LayerRule("HookPoint", (), {}, _ACT, "map", False),
    # einops's layers: the pattern (and sizes by keyword) given when built, applied in forward
    "einops.layers.torch.Rearrange": LayerRule("Rearrange", ("pattern",), {}, (), "einops", False),
    "einops.layers.torch.Reduce": LayerRule(
        "Reduce", ("pattern", "reduction"), {}, (), "einops", False
    ),
}
