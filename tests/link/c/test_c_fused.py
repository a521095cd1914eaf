"""Reductions fused with their elementwise neighbours compute what NumPy computes.

Each graph is written as a user writes it; ``tensortypes.function`` fuses it into
one ``FusedReduce`` (checked), and the C and Python linkers are compared with
NumPy over shapes (empty ones too), layouts and dtypes.
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
from tensortypes.tensor.rewriting import ReduceFusion
from tensortypes.tensor.type import TensorType

pytestmark = needs_cc


def _softmax(xp, s):
    e = xp.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layernorm(xp, x):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) * (x - mu)).mean(axis=-1, keepdims=True)
    return (x - mu) / xp.sqrt(var + 1e-5)


def _logsumexp(xp, x):
    return xp.log(xp.exp(x).sum(axis=-1))


def _chain_sum(xp, x):
    return (x * x + 1).sum(axis=-1)


def _two_outputs(xp, x):
    m = x.max(axis=-1, keepdims=True)
    return [x - m, (x * 2).min(axis=-1)]


def _standardise_3d(xp, x):
    mu = x.mean(axis=(1, 2), keepdims=True)
    d = x - mu
    return d / xp.sqrt((d * d).sum(axis=(1, 2), keepdims=True) + 1.0)


class _NP:
    exp, log, sqrt = np.exp, np.log, np.sqrt


class _TT:
    exp, log, sqrt = tt.exp, tt.log, tt.sqrt


GRAPHS = {
    "softmax": (_softmax, 2),
    "layernorm": (_layernorm, 2),
    "logsumexp": (_logsumexp, 2),
    "chain_sum": (_chain_sum, 2),
    "two_outputs": (_two_outputs, 2),
    "standardise_3d": (_standardise_3d, 3),
}
DTYPES = {
    "softmax": ["float64", "float32"],
    "layernorm": ["float64"],
    "logsumexp": ["float64"],
    "chain_sum": ["float64", "int32", "float32"],
    "two_outputs": ["float64", "int64"],
    "standardise_3d": ["float64"],
}


@pytest.fixture(scope="module")
def functions(shared_cache):
    from tensortypes._config import config

    config.cache_dir = shared_cache.directory
    cache: dict = {}

    def get(name, dtype, mode, sizes="symbolic"):
        key = (name, dtype, mode, sizes)
        if key not in cache:
            build, nd = GRAPHS[name]
            names = ("a", "b", "c") if sizes == "symbolic" else (None, None, None)
            x = tt.tensor(dtype, names[:nd], name="x")
            f = tensortypes.function([x], build(_TT, x), mode=mode)
            ops = [type(n.op) for n in f.fgraph.toposort()]
            assert FusedReduce in ops, (name, ops)
            cache[key] = f
        return cache[key]

    return get


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(GRAPHS)),
    st.lists(st.integers(0, 7), min_size=3, max_size=3),
    st.sampled_from(["c", "transposed", "sliced"]),
    st.integers(0, 99),
    st.integers(0, 2),
    st.sampled_from(["symbolic", "unknown"]),
)
def test_fused_graphs_match_numpy(functions, name, sizes, layout, seed, which, known):
    build, nd = GRAPHS[name]
    dtype = DTYPES[name][which % len(DTYPES[name])]
    value = array_value(dtype, tuple(sizes[:nd]), layout, np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            want = build(_NP, value)
        except ValueError as exc:
            assert "no identity" in str(exc)
            for mode in ("c", "py"):
                with pytest.raises(ValueError, match="no identity"):
                    functions(name, dtype, mode, known)(value)
            return
        wants = want if isinstance(want, list) else [want]
        for mode in ("c", "py"):
            got = functions(name, dtype, mode, known)(value)
            gots = got if isinstance(got, list) else [got]
            for g, w in zip(gots, wants):
                w = np.asarray(w).astype(g.dtype)
                assert g.shape == w.shape, (mode, g.shape, w.shape)
                assert TensorType.values_eq_approx(
                    g, w, rtol=1e-4 if g.dtype == np.float32 else None
                ), (mode, g, w)


def test_the_fused_node_runs_in_c(functions):
    f = functions("softmax", "float64", "c")
    compiled = CLinker().compile(f.fgraph)
    assert compiled.fallbacks == []
    assert "tt_row_" in compiled.source


def test_extreme_values_as_numpy(functions):
    x = np.array(
        [[1000.0, -1000.0, 0.0], [-np.inf, 0.0, 1.0], [np.nan, 1.0, 2.0], [np.inf, 1.0, 2.0]]
    )
    with np.errstate(all="ignore"):
        for name in ("softmax", "logsumexp"):
            # symbolic sizes may be 0: log-sum-exp is not rewritten to the stable form
            want = GRAPHS[name][0](_NP, x)
            for mode in ("c", "py"):
                got = functions(name, "float64", mode)(x)
                assert TensorType.values_eq_approx(got, want), (name, mode, got, want)


def test_bad_inputs_are_type_check_errors(functions):
    f = functions("layernorm", "float64", "c")
    with pytest.raises(TypeCheckError):
        f(np.zeros((2, 3), dtype=np.complex128))
    with pytest.raises(TypeCheckError):
        f(np.zeros(3))


def test_fusion_keeps_every_type():
    x = tt.tensor("float64", ("n", 4), name="x")
    out = tt.exp(x) / tt.sum(tt.exp(x), axis=1, keepdims=True)
    fg = FunctionGraph([x], [out], clone=True)
    before = fg.outputs[0].type
    assert ReduceFusion().apply(fg) == {"reduce_fusion": 1}
    assert fg.outputs[0].type == before
    z = tt.tensor("float64", ("n", "m"), name="z")
    fg = FunctionGraph([z], [tt.sum(tt.exp(z), axis=0)], clone=True)
    before = fg.outputs[0].type
    assert ReduceFusion().apply(fg) == {"reduce_fusion": 1}  # a leading axis too
    assert fg.outputs[0].type == before and fg.outputs[0].owner.op.axes == (0,)


def _fusions(inputs, outputs) -> dict:
    return ReduceFusion().apply(FunctionGraph(inputs, outputs, clone=True))


def test_unknown_sizes_fuse_when_every_value_has_the_unfused_shape():
    y, z = tt.dmatrix("y"), tt.dmatrix("z")
    assert _fusions([y], [tt.sum(tt.exp(y), axis=1)]) == {"reduce_fusion": 1}
    # both inputs feed the reduction and the output: the space is their broadcast
    assert _fusions([y, z], [tt.sum(tt.exp(y * z), axis=1)]) == {"reduce_fusion": 1}
    # z is not in the sum: z of (3, 4) with y of (3, 1) would sum y over 4 columns
    assert _fusions([y, z], [tt.sum(tt.exp(y), axis=1, keepdims=True) * z]) == {}
    # a value read outside that does not see z: its shape could be smaller than the space
    r = tt.tensor("float64", (None, 1), name="r")
    s = tt.sum(tt.exp(y), axis=1, keepdims=True)
    assert _fusions([y, r], [s, s * r]) == {}
    assert _fusions([y, r], [s * r]) == {"reduce_fusion": 1}


@settings(max_examples=30, deadline=None)
@given(
    st.tuples(st.integers(0, 4), st.integers(0, 4)),
    st.tuples(st.booleans(), st.booleans()),
    st.tuples(st.booleans(), st.booleans()),
)
def test_unknown_sizes_broadcast_as_numpy(shared_cache, shape, ones_y, ones_z):
    from tensortypes._config import config

    config.cache_dir = shared_cache.directory
    y, z = tt.dmatrix("y"), tt.dmatrix("z")
    outs = [
        tt.sum(tt.log(1 + tt.exp(-y * z)), axis=1),
        tt.exp(y * z) / tt.sum(tt.exp(y * z), axis=1, keepdims=True),
        tt.sum(tt.exp(y), axis=1, keepdims=True) * z,
    ]
    f = tensortypes.function([y, z], outs, mode="c")
    kinds = [type(n.op).__name__ for n in f.fgraph.toposort()]
    assert kinds.count("FusedReduce") == 2, kinds
    sy = tuple(1 if one else s for one, s in zip(ones_y, shape))
    sz = tuple(1 if one else s for one, s in zip(ones_z, shape))
    rng = np.random.default_rng(sum(shape))
    vy, vz = rng.normal(size=sy), rng.normal(size=sz)
    with np.errstate(all="ignore"):
        wants = [
            np.log(1 + np.exp(-vy * vz)).sum(axis=1),
            np.exp(vy * vz) / np.exp(vy * vz).sum(axis=1, keepdims=True),
            np.exp(vy).sum(axis=1, keepdims=True) * vz,
        ]
        for g, w in zip(f(vy, vz), wants):
            assert g.shape == w.shape
            assert TensorType.values_eq_approx(g, w)


def test_a_value_read_outside_is_an_output():
    x = tt.tensor("float64", ("n", "m"), name="x")
    m = tt.max(x, axis=1, keepdims=True)
    e = tt.exp(x - m)
    f = tensortypes.function([x], [e / tt.sum(e, axis=1, keepdims=True), m], mode="c")
    v = np.random.default_rng(1).normal(size=(5, 6))
    got_softmax, got_max = f(v)
    assert np.allclose(got_softmax, _softmax(np, v)) and np.allclose(
        got_max, v.max(1, keepdims=True)
    )


def test_a_region_never_reads_its_own_result_through_an_outside_node():
    x = tt.tensor("float64", ("n", "m"), name="x")
    s = tt.sum(tt.exp(x), axis=1, keepdims=True)
    w = tt.reshape(s, ("n", 1))  # not fusable: the division must stay outside
    f = tensortypes.function([x], tt.exp(x) / w, mode="c")
    for node in f.fgraph.toposort():
        if isinstance(node.op, FusedReduce):  # it may not take the reshaped sum back in
            assert all(
                v.owner is None or type(v.owner.op).__name__ != "Reshape" for v in node.inputs
            )
    v = np.random.default_rng(2).normal(size=(4, 3))
    assert np.allclose(f(v), np.exp(v) / np.exp(v).sum(1, keepdims=True))
