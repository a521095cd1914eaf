"""Rules for ``torch.distributions`` (layer 6: ``check.rules``).

A distribution is a :class:`~tensortypes.check.symbolic.DistV`: its batch shape
(the broadcast of its parameters' shapes, or their leading axes for the families
whose last axis is a category or an event) and its event shape. ``sample(shape)``
and ``rsample`` give ``(*shape, *batch, *event)``; ``log_prob(x)``, ``cdf`` and
``icdf`` the broadcast of ``x``'s leading axes with the batch; ``entropy()`` the
batch; ``mean``, ``mode``, ``stddev`` and ``variance`` ``(*batch, *event)``.

>>> from tensortypes.core import dims
>>> n = dims.symbol("n")
>>> d = DistV("Geometric", "torch", (dims.const(1),), (), None)
>>> Sample().apply(Call(".sample", [d, TupleV((IntV(n), IntV(n)))], {}, {}, "torch")).shape
(Dim('n'), Dim('n'), Dim('1'))
"""

from __future__ import annotations

from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import int64

from ..diagnostics import CheckFailure
from ..symbolic import UNKNOWN, Arr, DistV, FloatV, IntV, TupleV, fmt_shape
from . import shapefns as sf
from .base import Call, Rule, default_float, dims_of

__all__ = ["Distribution", "Sample", "LogProb", "Entropy", "FAMILIES", "METHODS", "attribute"]

# family -> (its parameters in order, how they give the shapes, sample dtype)
#   "scalar": the batch is the broadcast of the parameters (numbers are 0-d)
#   "category": the batch is the parameter's leading axes; its last axis is the
#               categories (``Categorical``: samples are indices)
#   "event": the batch is the parameter's leading axes, its last axis the event
#   "mvn": ``loc`` ``(*b, k)`` and a ``(*b, k, k)`` matrix: the event is ``(k,)``
_SCALAR = "scalar"
FAMILIES: dict = {
    "Normal": (("loc", "scale"), _SCALAR, "float"),
    "Uniform": (("low", "high"), _SCALAR, "float"),
    "Bernoulli": (("probs", "logits"), _SCALAR, "float"),
    "Geometric": (("probs", "logits"), _SCALAR, "float"),
    "Beta": (("concentration1", "concentration0"), _SCALAR, "float"),
    "Gamma": (("concentration", "rate"), _SCALAR, "float"),
    "Exponential": (("rate",), _SCALAR, "float"),
    "Poisson": (("rate",), _SCALAR, "float"),
    "Laplace": (("loc", "scale"), _SCALAR, "float"),
    "LogNormal": (("loc", "scale"), _SCALAR, "float"),
    "Cauchy": (("loc", "scale"), _SCALAR, "float"),
    "Gumbel": (("loc", "scale"), _SCALAR, "float"),
    "HalfNormal": (("scale",), _SCALAR, "float"),
    "HalfCauchy": (("scale",), _SCALAR, "float"),
    "Chi2": (("df",), _SCALAR, "float"),
    "StudentT": (("df", "loc", "scale"), _SCALAR, "float"),
    "Binomial": (("total_count", "probs", "logits"), _SCALAR, "float"),
    "VonMises": (("loc", "concentration"), _SCALAR, "float"),
    "Kumaraswamy": (("concentration1", "concentration0"), _SCALAR, "float"),
    "Categorical": (("probs", "logits"), "category", "int"),
    "OneHotCategorical": (("probs", "logits"), "event", "float"),
    "Dirichlet": (("concentration",), "event", "float"),
    "MultivariateNormal": (
        ("loc", "covariance_matrix", "precision_matrix", "scale_tril"),
        "mvn",
        "float",
    ),
}

# the modules of torch.distributions that define each family
_MODULES = {
    "Normal": "normal",
    "Uniform": "uniform",
    "Bernoulli": "bernoulli",
    "Geometric": "geometric",
    "Beta": "beta",
    "Gamma": "gamma",
    "Exponential": "exponential",
    "Poisson": "poisson",
    "Laplace": "laplace",
    "LogNormal": "log_normal",
    "Cauchy": "cauchy",
    "Gumbel": "gumbel",
    "HalfNormal": "half_normal",
    "HalfCauchy": "half_cauchy",
    "Chi2": "chi2",
    "StudentT": "studentT",
    "Binomial": "binomial",
    "VonMises": "von_mises",
    "Kumaraswamy": "kumaraswamy",
    "Categorical": "categorical",
    "OneHotCategorical": "one_hot_categorical",
    "Dirichlet": "dirichlet",
    "MultivariateNormal": "multivariate_normal",
}


def _shape_of(value):
    """The shape a parameter gives: an array's, ``()`` of a number, else None."""
    if type(value) is Arr:
        return value.shape
    if type(value) in (IntV, FloatV):
        return ()
    return None


class Distribution(Rule):
    """``torch.distributions.Normal(loc, scale)`` and the other families of
    :data:`FAMILIES`: a :class:`DistV` of their batch and event shapes."""

    __slots__ = ("family",)

    def __init__(self, family: str):
        self.family = family

    def apply(self, call: Call):
        params, how, sampled = FAMILIES[self.family]
        bound = call.bind(params)
        dtypes = frozenset({int64}) if sampled == "int" else frozenset({default_float(call.kind)})
        given = [(p, bound[p]) for p in params if p in bound and bound[p] is not None]
        given = [(p, v) for p, v in given if type(v).__name__ != "NoneV"]
        shapes = [_shape_of(v) for _p, v in given]
        batch: tuple | None = None
        event: tuple | None = None
        if how == _SCALAR:
            if given and all(s is not None for s in shapes):
                batch = sf.broadcast(shapes, [call.label(p) for p, _v in given])
            event = ()
        elif how in ("category", "event"):
            if len(given) == 1 and shapes[0] is not None and len(shapes[0]) >= 1:
                shape = shapes[0]
                batch = tuple(shape[:-1])
                event = () if how == "category" else (shape[-1],)
        else:  # mvn
            found = dict(zip((p for p, _v in given), shapes))
            loc = found.get("loc")
            matrix = next((found[p] for p in params[1:] if p in found), None)
            if loc is not None and matrix is not None and len(loc) >= 1 and len(matrix) >= 2:
                batch = sf.broadcast(
                    [tuple(loc[:-1]), tuple(matrix[:-2])],
                    [call.label("loc"), call.label(next(p for p in params[1:] if p in found))],
                )
                event = (loc[-1],)
        kind = next((v.kind for _p, v in given if type(v) is Arr and v.kind), None) or call.kind
        return DistV(self.family, kind, batch, event, dtypes)


def _full(d: DistV):
    if d.batch is None or d.event is None:
        return None
    return (*d.batch, *d.event)


class Sample(Rule):
    """``d.sample(sample_shape=())``/``d.rsample``: ``(*sample_shape, *batch, *event)``."""

    __slots__ = ()

    def apply(self, call: Call):
        d = call.args[0]
        shape = call.args[1] if len(call.args) > 1 else call.kwargs.get("sample_shape")
        sizes = () if shape is None else dims_of([shape])
        full = _full(d)
        if sizes is None or full is None:
            return Arr(d.kind, d.dtypes, None)
        sizes = tuple(None if type(s) is int else s for s in sizes)
        return Arr(d.kind, d.dtypes, (*sizes, *full))


class LogProb(Rule):
    """``d.log_prob(x)`` (``cdf``, ``icdf``): ``x``'s axes before the event,
    broadcast with the batch."""

    __slots__ = ()

    def apply(self, call: Call):
        d = call.args[0]
        x = call.args[1] if len(call.args) > 1 else call.kwargs.get("value")
        dtypes = frozenset({default_float(call.kind)})
        if type(x) is not Arr or x.shape is None or d.batch is None or d.event is None:
            return Arr(d.kind, dtypes, None)
        k = len(d.event)
        if k and len(x.shape) < k:
            raise CheckFailure(
                "rank",
                f"{call.name}: {call.label(1)} of shape {fmt_shape(x.shape)} has no "
                f"event axes {fmt_shape(d.event)} of the {d.family} distribution",
            )
        lead = tuple(x.shape[: len(x.shape) - k])
        shape = sf.broadcast([lead, d.batch], [call.label(1), f"the {d.family}'s batch"])
        return Arr(d.kind, dtypes, shape)


class Entropy(Rule):
    """``d.entropy()``: one value per distribution of the batch."""

    __slots__ = ()

    def apply(self, call: Call):
        d = call.args[0]
        return Arr(d.kind, frozenset({default_float(call.kind)}), d.batch)


METHODS: dict = {
    "sample": Sample(),
    "rsample": Sample(),
    "log_prob": LogProb(),
    "cdf": LogProb(),
    "icdf": LogProb(),
    "entropy": Entropy(),
}


def attribute(d: DistV, attr: str):
    """``d.mean`` (``mode``, ``stddev``, ``variance``) and ``d.batch_shape``/``event_shape``."""
    if attr in ("mean", "mode", "stddev", "variance"):
        return Arr(d.kind, frozenset({default_float(d.kind)}), _full(d))
    if attr in ("batch_shape", "event_shape"):
        shape = d.batch if attr == "batch_shape" else d.event
        if shape is None or any(type(s) is not Dim for s in shape):
            return UNKNOWN
        return TupleV(tuple(IntV(s) for s in shape))
    return UNKNOWN


def table() -> dict:
    """The constructors, by each name they are reached under."""
    out = {}
    for family, module in _MODULES.items():
        rule = Distribution(family)
        out[f"torch.distributions.{family}"] = rule
        out[f"torch.distributions.{module}.{family}"] = rule
    return out
