"""Loss functions: the target shapes and dtypes each one takes (layer 6: ``check.rules``).

``LOSSES`` maps each loss (functional name and module class name) to a
:class:`Loss` describing its contract:

- ``"class"`` (``cross_entropy``, ``nll_loss``): input ``(N, C, *d)`` or
  ``(C,)``; target either class indices of an integer dtype with shape
  ``(N, *d)``, or (``cross_entropy`` only) class probabilities, floating, with
  the input's shape;
- ``"same"`` (``binary_cross_entropy``, ``..._with_logits``): target of the
  input's exact shape, floating;
- ``"broadcast"`` (``mse_loss``, ``l1_loss``, ``smooth_l1_loss``,
  ``huber_loss``): PyTorch broadcasts a target of another shape with only a
  warning, which is almost always a bug (``(N, 1)`` against ``(N,)`` gives an
  ``(N, N)`` loss), so it is an error here.

The result is a 0-d float tensor, or the elementwise loss with
``reduction="none"``.
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim

from ..diagnostics import CheckFailure
from ..symbolic import UNKNOWN, Arr, StrV, fmt_dtypes, fmt_shape, unrelated
from . import shapefns as sf
from .base import Call, default_float, is_float, is_int

__all__ = ["Loss", "LOSSES", "apply_loss"]


class Loss:
    """The contract of one loss: ``kind`` (``class``, ``same``, ``broadcast``)."""

    __slots__ = ("name", "kind", "probabilities")

    def __init__(self, name: str, kind: str, probabilities: bool = False):
        self.name = name
        self.kind = kind
        self.probabilities = probabilities


LOSSES = {
    "cross_entropy": Loss("cross_entropy", "class", probabilities=True),
    "CrossEntropyLoss": Loss("CrossEntropyLoss", "class", probabilities=True),
    "nll_loss": Loss("nll_loss", "class"),
    "NLLLoss": Loss("NLLLoss", "class"),
    "binary_cross_entropy": Loss("binary_cross_entropy", "same"),
    "BCELoss": Loss("BCELoss", "same"),
    "binary_cross_entropy_with_logits": Loss("binary_cross_entropy_with_logits", "same"),
    "BCEWithLogitsLoss": Loss("BCEWithLogitsLoss", "same"),
    "mse_loss": Loss("mse_loss", "broadcast"),
    "MSELoss": Loss("MSELoss", "broadcast"),
    "l1_loss": Loss("l1_loss", "broadcast"),
    "L1Loss": Loss("L1Loss", "broadcast"),
    "smooth_l1_loss": Loss("smooth_l1_loss", "broadcast"),
    "SmoothL1Loss": Loss("SmoothL1Loss", "broadcast"),
    "huber_loss": Loss("huber_loss", "broadcast"),
    "HuberLoss": Loss("HuberLoss", "broadcast"),
}


def _same(a, b) -> bool:
    """Whether two sizes are taken as the same (or never compared: ``unrelated``)."""
    if a is None or b is None or a is b or bool(dims.eq(a, b)):
        return True
    return type(a) is Dim and type(b) is Dim and dims.eq(a, b) is None and unrelated(a, b)


def apply_loss(loss: Loss, call: Call, reduction=None):
    """Check ``loss(input, target)`` and give its value."""
    bound = call.bind(("input", "target", "weight"))
    x, t = bound.get("input"), bound.get("target")
    if type(x) is not Arr or type(t) is not Arr:
        return _half_known(loss, call, x, t, reduction)
    lx, lt = call.label(0), call.label(1)
    name = loss.name
    if x.dtypes is not None and not is_float(x.dtypes):
        raise CheckFailure(
            "dtype",
            f"{name}: the input (scores) must be floating, {lx} has dtype {fmt_dtypes(x.dtypes)}",
        )
    shape_note = [f"input {lx}: {x.describe()}; target {lt}: {t.describe()}"]
    if loss.kind == "class":
        _class_target(loss, x, t, lx, lt, shape_note)
    elif loss.kind == "same":
        if t.dtypes is not None and not is_float(t.dtypes):
            raise CheckFailure(
                "loss",
                f"{name}: the target must be floating (0./1. "
                f"probabilities), {lt} has dtype "
                f"{fmt_dtypes(t.dtypes)}: use {lt}.float()",
                shape_note,
            )
        if (
            x.rank is not None
            and t.rank is not None
            and (x.rank != t.rank or not all(_same(a, b) for a, b in zip(x.shape, t.shape)))
        ):
            raise CheckFailure(
                "loss",
                f"{name}: target {lt} {fmt_shape(t.shape)} must have the "
                f"input's shape {fmt_shape(x.shape)}",
                shape_note,
            )
    else:
        if (
            x.rank is not None
            and t.rank is not None
            and (x.rank != t.rank or not all(_same(a, b) for a, b in zip(x.shape, t.shape)))
        ):
            try:
                joined = sf.broadcast([x.shape, t.shape], [lx, lt])
                extra = f": they broadcast to {fmt_shape(joined)}, almost surely not intended"
            except CheckFailure:
                extra = ": they do not even broadcast"
            raise CheckFailure(
                "loss",
                f"{name}: target {lt} {fmt_shape(t.shape)} and input {lx} "
                f"{fmt_shape(x.shape)} differ in shape{extra}",
                shape_note,
            )
    mode = _mode(reduction)
    dtypes = x.dtypes if x.dtypes is not None else frozenset({default_float(call.kind)})
    if mode in ("mean", "sum"):
        return Arr(x.kind, dtypes, ())
    if mode == "none":
        return Arr(x.kind, dtypes, t.shape if loss.kind == "class" else x.shape)
    return Arr(x.kind, dtypes, None)


def _mode(reduction):
    """The ``reduction=`` a loss is given: its text, ``"mean"`` when not given, None
    when not known."""
    return reduction.value if type(reduction) is StrV else ("mean" if reduction is None else None)


def _half_known(loss: Loss, call: Call, x, t, reduction):
    """The value of a loss one of whose operands is unknown (the other an array): a
    0-d float for a reduction, else the known operand's shape where the contract
    makes the two alike (the elementwise losses; the target of a class loss)."""
    known = x if type(x) is Arr else t if type(t) is Arr else None
    if known is None or (x is not UNKNOWN and t is not UNKNOWN):
        return UNKNOWN
    mode = _mode(reduction)
    dtypes = x.dtypes if type(x) is Arr and x.dtypes is not None else None
    if mode in ("mean", "sum"):
        return Arr(known.kind, dtypes or frozenset({default_float(call.kind)}), ())
    if mode == "none" and (loss.kind != "class" or known is t):
        return Arr(known.kind, dtypes, known.shape)
    return UNKNOWN


def _class_target(loss: Loss, x: Arr, t: Arr, lx: str, lt: str, notes) -> None:
    name = loss.name
    int_target = t.dtypes is not None and is_int(t.dtypes)
    float_target = t.dtypes is not None and is_float(t.dtypes)
    if x.rank is None or t.rank is None:
        if float_target and not loss.probabilities:
            raise CheckFailure(
                "loss",
                f"{name}: the target must hold class indices of an "
                f"integer dtype, {lt} has dtype {fmt_dtypes(t.dtypes)}",
                notes,
            )
        return
    if x.rank == 0:
        raise CheckFailure("loss", f"{name}: the input must have a class axis, {lx} is 0-d", notes)
    batched = x.rank >= 2
    index_shape = (x.shape[0], *x.shape[2:]) if batched else ()
    if t.rank == len(index_shape):
        if float_target:
            raise CheckFailure(
                "loss",
                f"{name}: target {lt} {fmt_shape(t.shape)} has the shape "
                f"of class indices but dtype {fmt_dtypes(t.dtypes)}; "
                f"class indices must be integers (use {lt}.long())",
                notes,
            )
        for a, b in zip(index_shape, t.shape):
            if not _same(a, b):
                raise CheckFailure(
                    "loss",
                    f"{name}: target {lt} {fmt_shape(t.shape)} does not "
                    f"match input {lx} {fmt_shape(x.shape)}: expected "
                    f"target shape {fmt_shape(index_shape)} ({name} "
                    f"reads axis 1 of the input as the classes)"
                    f"{sf.why_different(a, b)}",
                    notes,
                )
        return
    if t.rank == x.rank and loss.probabilities:
        if int_target:
            raise CheckFailure(
                "loss",
                f"{name}: target {lt} {fmt_shape(t.shape)} has the "
                f"input's rank, so it is read as class probabilities, "
                f"which must be floating, not {fmt_dtypes(t.dtypes)}; "
                f"for class indices the target shape is "
                f"{fmt_shape(index_shape)}",
                notes,
            )
        for a, b in zip(x.shape, t.shape):
            if not _same(a, b):
                raise CheckFailure(
                    "loss",
                    f"{name}: probability target {lt} "
                    f"{fmt_shape(t.shape)} must match input {lx} "
                    f"{fmt_shape(x.shape)}{sf.why_different(a, b)}",
                    notes,
                )
        return
    raise CheckFailure(
        "loss",
        f"{name}: target {lt} has shape {fmt_shape(t.shape)}; for input "
        f"{lx} {fmt_shape(x.shape)} it must be class indices of shape "
        f"{fmt_shape(index_shape)}"
        + (f" or probabilities of shape {fmt_shape(x.shape)}" if loss.probabilities else ""),
        notes,
    )
