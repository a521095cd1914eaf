"""``torch.nn.functional`` forms of layers, resizing and one-hot encoding (layer 6).

A functional form takes the layer's constructor arguments after its input:
``F.max_pool2d(x, 2)`` is ``nn.MaxPool2d(2)(x)``. :class:`Functional` builds
the layer rule of ``check.rules.layers`` from those arguments and applies its
forward, so the two spellings share one rule (the table ``FUNCTIONAL``).

:class:`Interpolate` gives ``F.interpolate``'s output sizes from ``size`` or an
integer ``scale_factor``; :class:`OneHot` gives ``F.one_hot``'s extra class axis
and refuses a float input.
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import int64

from ..diagnostics import CheckFailure
from ..symbolic import (
    UNKNOWN,
    Arr,
    BoolV,
    IntV,
    LayerV,
    ListV,
    Rest,
    TupleV,
    fmt_dtypes,
    fmt_shape,
)
from . import shapefns as sf
from .base import Call, Rule, default_float
from .layer_table import LAYERS
from .layers import build_layer, layer_forward

__all__ = ["Functional", "Interpolate", "OneHot", "ScaledDotProductAttention", "FUNCTIONAL"]


class _Shifted:
    """The labels of a call seen without its first argument (the layer's arguments)."""

    __slots__ = ("labels",)

    def __init__(self, labels):
        self.labels = labels

    def get(self, key, default=None):
        return self.labels.get(key + 1 if type(key) is int else key, default)


class Functional(Rule):
    """``F.<name>(input, ...)``: the layer ``LAYERS[layer]`` built and applied.

    ``params`` are the functional's own parameters after the input, in its
    positional order (``F.max_pool2d`` puts ``ceil_mode`` before
    ``return_indices``; ``nn.MaxPool2d`` the other way round); those the layer
    has are passed to it by name, the rest (``weight=`` of ``F.layer_norm``)
    are read by nothing.
    """

    __slots__ = ("layer", "params")

    def __init__(self, layer: str, params: tuple):
        if layer not in LAYERS:
            raise KeyError(f"no layer rule {layer!r} for a functional form")
        self.layer = layer
        self.params = params

    def apply(self, call: Call):
        rule = LAYERS[self.layer]
        bound = call.bind(("input", *self.params))
        known = {p.lstrip("*") for p in rule.params}
        return self._forward(call, {k: v for k, v in bound.items() if k in known}, bound)

    def _forward(self, call: Call, args: dict, bound: dict):
        """The layer built from constructor arguments ``args``, applied to the input."""
        rule = LAYERS[self.layer]
        built = Call(rule.name, [], args, _Shifted(call.labels), "torch", call.star)
        layer = LayerV(rule, build_layer(rule, built), f"{call.name}(...)", None)
        return layer_forward(layer, [bound.get("input")], call)


class FunctionalConv(Functional):
    """``F.conv2d(input, weight, bias, stride, padding, dilation, groups)``: the layer
    ``nn.Conv2d`` whose weight it is, ``(out_channels, in_channels / groups,
    *kernel_size)``; unknown when the weight's shape is not known."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", *self.params))
        weight = bound.get("weight")
        groups = bound.get("groups", IntV(dims.const(1)))
        spatial = LAYERS[self.layer].spatial
        if type(bound.get("input")) is not Arr:
            return UNKNOWN
        if (
            type(weight) is not Arr
            or weight.rank != spatial + 2
            or not all(type(d) is Dim for d in weight.shape)
            or type(groups) is not IntV
            or groups.dim is None
        ):
            return Arr("torch", bound["input"].dtypes, None)
        out_channels, per_group, *kernel = weight.shape
        args = {
            "in_channels": IntV(per_group * groups.dim),
            "out_channels": IntV(out_channels),
            "kernel_size": TupleV(tuple(IntV(d) for d in kernel)),
            **{k: bound[k] for k in ("stride", "padding", "dilation") if k in bound},
            "groups": groups,
        }
        return self._forward(call, args, bound)


_CONV = ("weight", "bias", "stride", "padding", "dilation", "groups")
_MAX = ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")
_AVG = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
FUNCTIONAL = {
    "max_pool1d": Functional("MaxPool1d", _MAX),
    "max_pool2d": Functional("MaxPool2d", _MAX),
    "avg_pool1d": Functional("AvgPool1d", _AVG),
    "avg_pool2d": Functional("AvgPool2d", _AVG),
    "adaptive_avg_pool1d": Functional("AdaptiveAvgPool1d", ("output_size",)),
    "adaptive_avg_pool2d": Functional("AdaptiveAvgPool2d", ("output_size",)),
    "adaptive_max_pool2d": Functional("AdaptiveMaxPool2d", ("output_size", "return_indices")),
    "layer_norm": Functional("LayerNorm", ("normalized_shape", "weight", "bias", "eps")),
    "conv1d": FunctionalConv("Conv1d", _CONV),
    "conv2d": FunctionalConv("Conv2d", _CONV),
    "conv3d": FunctionalConv("Conv3d", _CONV),
}


def _sizes(value, n: int, what: str):
    """``n`` sizes from an int or a tuple of ints (None where unknown)."""
    if type(value) is IntV:
        return [value.dim] * n
    if type(value) in (TupleV, ListV) and value.items is not None:
        if len(value.items) != n:
            raise CheckFailure(
                "rank", f"F.interpolate: {what} has {len(value.items)} entries for {n} spatial axes"
            )
        return [v.dim if type(v) is IntV else None for v in value.items]
    return [None] * n


class Interpolate(Rule):
    """``F.interpolate(x, size=None, scale_factor=None)`` of an ``(N, C, *spatial)`` input."""

    __slots__ = ()

    def apply(self, call: Call):
        bound = call.bind(("input", "size", "scale_factor", "mode", "align_corners"))
        x = bound.get("input")
        if type(x) is not Arr:
            return UNKNOWN
        size, scale = bound.get("size"), bound.get("scale_factor")
        if size is None and scale is None and not call.star:
            raise CheckFailure("call", "F.interpolate: give either size or scale_factor")
        if x.rank is None:
            return x.with_(shape=None, origin=None)
        if not 3 <= x.rank <= 5:
            raise CheckFailure(
                "rank",
                f"F.interpolate: expects (N, C, *spatial) with 1 to 3 "
                f"spatial axes, {call.label(0)} has shape "
                f"{fmt_shape(x.shape)}",
            )
        n = x.rank - 2
        if size is not None:
            out = _sizes(size, n, "size")
        else:
            factors = _sizes(scale, n, "scale_factor")
            out = [
                d * f if type(d) is Dim and f is not None else None
                for d, f in zip(x.shape[2:], factors)
            ]
        return x.with_(shape=(*x.shape[:2], *out), origin=None, contiguous=True)


class OneHot(Rule):
    """``one_hot(labels, num_classes)``: a new last axis of ``num_classes``.

    PyTorch's ``F.one_hot`` needs integer labels and gives int64; JAX's
    ``jax.nn.one_hot`` (``params`` ``("x", "num_classes")``) compares any labels
    and gives the default float dtype.
    """

    __slots__ = ("params",)

    def __init__(self, params=("tensor", "num_classes")):
        self.params = params

    def apply(self, call: Call):
        bound = call.bind(self.params)
        x, classes = bound.get(self.params[0], call.kwargs.get("input")), bound.get("num_classes")
        if type(x) is not Arr:
            return UNKNOWN
        size = classes.dim if type(classes) is IntV else None
        shape = None if x.shape is None else (*x.shape, size)
        if call.kind != "torch":
            return Arr(call.kind, frozenset({default_float(call.kind)}), shape)
        if x.dtypes is not None and not all(d.kind in "iu" for d in x.dtypes):
            raise CheckFailure(
                "dtype",
                f"F.one_hot: class values must be an integer tensor, "
                f"{call.label(0)} has dtype {fmt_dtypes(x.dtypes)}",
            )
        return Arr("torch", frozenset({int64}), shape)


class ScaledDotProductAttention(Rule):
    """``F.scaled_dot_product_attention(q, k, v)``: ``softmax(q @ k.mT) @ v``.

    ``q`` is ``(..., L, E)``, ``k`` ``(..., S, E)`` and ``v`` ``(..., S, Ev)``; the
    result is ``(..., L, Ev)``, the leading axes of the three broadcast together.
    The two products check that the queries and keys share ``E`` and that keys and
    values share ``S``, as the kernel does. With ``enable_gqa`` (keys and values with
    fewer heads than the queries) the head axis is not compared.
    """

    PARAMS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale")

    def apply(self, call: Call):
        bound = call.bind(self.PARAMS)
        q, k, v = (bound.get(p) for p in ("query", "key", "value"))
        if type(q) is not Arr or type(k) is not Arr or type(v) is not Arr:
            return UNKNOWN
        dtypes = q.dtypes
        if q.shape is None or k.shape is None or v.shape is None:
            return Arr(q.kind or "torch", dtypes, None)
        if any(x.rank is not None and x.rank < 2 for x in (q, k, v)):
            raise CheckFailure(
                "rank", f"{call.name}: query, key and value need at least 2 axes each"
            )
        gqa = call.kwargs.get("enable_gqa")
        if gqa is not None and not (type(gqa) is BoolV and gqa.value is False):
            return Arr(q.kind or "torch", dtypes, None)
        if any(type(d) is Rest for x in (q, k, v) for d in x.shape[-2:]):
            return Arr(q.kind or "torch", dtypes, None)
        lq, lk, lv = (
            call.label(p) if p in call.kwargs else call.label(i)
            for i, p in enumerate(("query", "key", "value"))
        )
        keys_t = (*k.shape[:-2], k.shape[-1], k.shape[-2])
        try:
            scores = sf.matmul_shape(q.shape, keys_t, lq, f"{lk}.mT")
            shape = sf.matmul_shape(scores, v.shape, f"the scores {lq} @ {lk}.mT", lv)
        except CheckFailure as failure:
            raise CheckFailure(
                failure.code, f"{call.name}: {failure.message}", failure.notes
            ) from None
        return Arr(q.kind or "torch", dtypes, shape)
