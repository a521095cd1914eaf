"""Reductions over leading, middle or several axes fused with their elementwise
neighbours (``link.c.fused_walk``) compute what NumPy computes.

Each graph is written as a user writes it (a column sum of ``exp``, column
standardisation, column softmax, log-sum-exp over axis 0, a batch norm with
per-channel scale); ``tensortypes.function`` fuses it into ``FusedReduce`` nodes
whose axes are not the trailing ones, and the C and Python linkers are compared
with NumPy over shapes (0-size and size-1 axes), layouts (transposed, sliced,
reversed, broadcast), axes, ``keepdims`` and dtypes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortypes
import tensortypes.tensor as tt
from c_toys import array_value, needs_cc
from tensortypes.errors import TypeCheckError
from tensortypes.graph import FunctionGraph
from tensortypes.link.c import CLinker
from tensortypes.tensor.fused import FusedReduce
from tensortypes.tensor.math import Reduce
from tensortypes.tensor.rewriting import ReduceFusion
from tensortypes.tensor.type import TensorType

pytestmark = needs_cc


class _NP:
    exp, log, sqrt = np.exp, np.log, np.sqrt

    @staticmethod
    def red(kind, x, axes, keepdims):
        return getattr(x, kind)(axis=axes, keepdims=keepdims)


class _TT:
    exp, log, sqrt = tt.exp, tt.log, tt.sqrt

    @staticmethod
    def red(kind, x, axes, keepdims):
        return getattr(tt, kind)(x, axis=axes, keepdims=keepdims)


def _graphs(xp, x, axes, keepdims) -> list:
    """What users write over ``axes``: every one fuses into a ``FusedReduce``."""
    red = xp.red
    mu = red("mean", x, axes, True)
    d = x - mu
    e = xp.exp(x - red("max", x, axes, True))
    return [
        red("sum", xp.exp(x), axes, keepdims),  # no temporary for exp(x)
        d / xp.sqrt(red("mean", d * d, axes, True) + 1.0),  # standardisation
        e / red("sum", e, axes, True),  # softmax over axes
        xp.log(red("sum", xp.exp(x), axes, keepdims)),  # log-sum-exp (sizes may be 0: naive)
        red("min", x * 2, axes, keepdims),
        red("sum", x * x + 1, axes, keepdims),
        red("prod", x * 0.5, axes, keepdims),
    ]


AXES = {2: [(0,)], 3: [(0,), (1,), (0, 1), (0, 2)], 4: [(1, 2)]}
DTYPES = ["float64", "float32", "int32"]
LAYOUTS = ["c", "transposed", "sliced", "reversed", "broadcast"]


@pytest.fixture(scope="module")
def functions(shared_cache):
    from tensortypes._config import config

    config.cache_dir = shared_cache.directory
    cache: dict = {}

    def get(nd, axes, keepdims, dtype, mode, sizes):
        key = (nd, axes, keepdims, dtype, mode, sizes)
        if key not in cache:
            names = "abcd"[:nd] if sizes == "symbolic" else (None,) * nd
            x = tt.tensor(dtype, tuple(names), name="x")
            f = tensortypes.function([x], _graphs(_TT, x, axes, keepdims), mode=mode)
            nodes = f.fgraph.toposort()
            assert not any(isinstance(n.op, Reduce) for n in nodes), [str(n.op) for n in nodes]
            fused = [n.op for n in nodes if isinstance(n.op, FusedReduce)]
            assert fused and all(op.axes == axes for op in fused), [str(op) for op in fused]
            cache[key] = f
        return cache[key]

    return get


def _assert_like_numpy(f, value, want_fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            wants = want_fn(value)
        except ValueError as exc:  # an empty max/min: NumPy's error, not a value
            assert "no identity" in str(exc)
            with pytest.raises(ValueError, match="no identity"):
                f(value)
            return
        gots = f(value)
    for k, (g, w) in enumerate(zip(gots, wants)):
        w = np.asarray(w).astype(g.dtype)
        assert g.shape == w.shape, (k, g.shape, w.shape)
        assert TensorType.values_eq_approx(g, w, rtol=1e-4 if g.dtype == np.float32 else None), (
            k,
            g,
            w,
        )


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([(nd, axes) for nd, cases in AXES.items() for axes in cases]),
    st.booleans(),
    st.sampled_from(DTYPES),
    st.lists(st.sampled_from([0, 1, 1, 2, 3, 5, 7]), min_size=4, max_size=4),
    st.sampled_from(LAYOUTS),
    st.sampled_from(["symbolic", "unknown"]),
    st.integers(0, 99),
)
def test_fused_over_other_axes_match_numpy(
    functions, case, keepdims, dtype, sizes, layout, known, seed
):
    nd, axes = case
    value = array_value(dtype, tuple(sizes[:nd]), layout, np.random.default_rng(seed))
    for mode in ("c", "py"):
        f = functions(nd, axes, keepdims, dtype, mode, known)
        _assert_like_numpy(f, value, lambda v: _graphs(_NP, v, axes, keepdims))


def _batch_norm(xp, x, gamma, beta, axes):
    d = x - xp.red("mean", x, axes, True)
    return [d / xp.sqrt(xp.red("mean", d * d, axes, True) + 1e-5) * gamma + beta]


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 2, 3, 6]), min_size=3, max_size=3),
    st.sampled_from(["c", "transposed", "sliced"]),
    st.integers(0, 99),
)
def test_batch_norm_with_per_channel_scale(shared_cache, sizes, layout, seed):
    """Channels in the middle (``n c hw``, axes 0 and 2), scale and shift of shape
    ``(c, 1)``: row inputs read once per kept position."""
    from tensortypes._config import config

    config.cache_dir = shared_cache.directory
    x = tt.tensor("float64", ("n", "c", "hw"), name="x")
    gamma = tt.tensor("float64", ("c", 1), name="gamma")
    beta = tt.tensor("float64", ("c", 1), name="beta")
    rng = np.random.default_rng(seed)
    value = array_value("float64", tuple(sizes), layout, rng)
    g, b = rng.normal(size=(sizes[1], 1)), rng.normal(size=(sizes[1], 1))
    for mode in ("c", "py"):
        f = tensortypes.function(
            [x, gamma, beta], _batch_norm(_TT, x, gamma, beta, (0, 2)), mode=mode
        )
        assert [str(n.op) for n in f.fgraph.toposort()] == ["FusedReduce{mean,mean;axes=(0, 2)}"]
        _assert_like_numpy(lambda v: f(v, g, b), value, lambda v: _batch_norm(_NP, v, g, b, (0, 2)))


def test_column_graphs_run_in_c_with_no_temporary():
    x = tt.tensor("float64", ("n", "m"), name="x")
    f = tensortypes.function([x], tt.sum(tt.exp(x), axis=0), mode="c")
    assert [str(n.op) for n in f.fgraph.toposort()] == ["FusedReduce{sum;axes=(0,)}"]
    compiled = CLinker().compile(f.fgraph)
    assert compiled.fallbacks == []
    assert "tt_w0_" in compiled.source and "tt_row_" not in compiled.source
    v = np.random.default_rng(0).normal(size=(300, 70))
    assert np.allclose(f(v), np.exp(v).sum(0))
    assert np.allclose(f(v.T.copy().T), np.exp(v).sum(0))  # read in memory order


def test_extreme_values_as_numpy():
    x = tt.dmatrix("x")
    e = tt.exp(x - tt.max(x, axis=0, keepdims=True))
    f = tensortypes.function([x], [e / tt.sum(e, axis=0, keepdims=True), tt.min(x, axis=0)])
    v = np.array([[1000.0, -np.inf, np.nan, np.inf], [-1000.0, 0.0, 1.0, 1.0], [0.0, 1.0, 2.0, 2]])
    with np.errstate(all="ignore"):
        e = np.exp(v - v.max(0, keepdims=True))
        wants = [e / e.sum(0, keepdims=True), v.min(0)]
        for got, want in zip(f(v), wants):
            assert TensorType.values_eq_approx(got, want), (got, want)


def test_integer_sums_wrap_as_numpy():
    x = tt.tensor("int8", ("n", "m"), name="x")
    f = tensortypes.function([x], [tt.sum(x * 3, axis=0), tt.mean(x * 3, axis=0)])
    v = np.full((1000, 3), 127, dtype=np.int8)
    got_sum, got_mean = f(v)
    assert got_sum.dtype == (v * 3).sum(0).dtype and np.array_equal(got_sum, (v * 3).sum(0))
    assert np.allclose(got_mean, (v * 3).mean(0))


def test_empty_mean_warns_as_numpy():
    x = tt.dmatrix("x")
    f = tensortypes.function([x], x - tt.mean(x, axis=0, keepdims=True))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = f(np.zeros((0, 3)))
    assert got.shape == (0, 3)
    with pytest.raises(ValueError, match="no identity"):
        tensortypes.function([x], x - tt.max(x, axis=0, keepdims=True))(np.zeros((0, 3)))


def test_bad_inputs_are_type_check_errors():
    x = tt.tensor("float64", ("n", "m"), name="x")
    mu = tt.mean(x, axis=0, keepdims=True)
    f = tensortypes.function([x], (x - mu) / tt.sqrt(tt.mean((x - mu) ** 2, axis=0, keepdims=True)))
    with pytest.raises(TypeCheckError):
        f(np.zeros((2, 3), dtype=np.complex128))
    with pytest.raises(TypeCheckError):
        f(np.zeros(3))


def _fusions(inputs, outputs) -> dict:
    return ReduceFusion().apply(FunctionGraph(inputs, outputs, clone=True))


def test_unknown_sizes_over_leading_axes_fuse_only_when_shapes_are_sure():
    y, z = tt.dmatrix("y"), tt.dmatrix("z")
    assert _fusions([y], [tt.sum(tt.exp(y), axis=0)]) == {"reduce_fusion": 1}
    assert _fusions([y, z], [tt.sum(tt.exp(y * z), axis=0)]) == {"reduce_fusion": 1}
    # z is not in the sum: z of (4, 3) with y of (1, 3) would sum y over 4 rows
    assert _fusions([y, z], [tt.sum(tt.exp(y), axis=0, keepdims=True) * z]) == {}


def test_known_sizes_must_match_over_the_kept_axes():
    x = tt.tensor("float64", (4, 3), name="x")
    w = tt.tensor("float64", (4, 1), name="w")  # not a row value of axis 0: a column
    assert _fusions([x], [x / tt.sum(x * x, axis=0, keepdims=True)]) == {"reduce_fusion": 1}
    fg = FunctionGraph([x, w], [tt.sum(tt.exp(x) * w, axis=0)], clone=True)
    assert ReduceFusion().apply(fg) == {"reduce_fusion": 1}
    f = tensortypes.function([x, w], tt.sum(tt.exp(x) * w, axis=0))
    vx, vw = np.random.default_rng(3).normal(size=(4, 3)), np.arange(4.0).reshape(4, 1)
    assert np.allclose(f(vx, vw), (np.exp(vx) * vw).sum(0))


@pytest.mark.parametrize("axes", [(0,), (0, 2), (1,)])
def test_stable_log_sum_exp_is_one_fused_node_and_a_view(axes):
    x = tt.tensor("float64", (3, 4, 5), name="x")
    f = tensortypes.function([x], tt.log(tt.sum(tt.exp(x), axis=axes)))
    ops = [type(n.op).__name__ for n in f.fgraph.toposort()]
    assert ops == ["FusedReduce", "Squeeze"], ops
    v = np.random.default_rng(4).normal(0, 300, (3, 4, 5))
    v[0, 0, :] = -np.inf
    top = v.max(axis=axes, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0)
    with np.errstate(all="ignore"):
        want = (np.log(np.exp(v - safe).sum(axis=axes, keepdims=True)) + safe).squeeze(axes)
    np.testing.assert_allclose(f(v), want, rtol=1e-13)
    assert np.isfinite(f(v)).any()  # the naive form overflows everywhere here
