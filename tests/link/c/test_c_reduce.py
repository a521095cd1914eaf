"""Reductions in C compute what NumPy computes: dtypes, axes, layouts, empty axes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c_toys import fgraph, needs_cc
from tensortypes.errors import TypeCheckError
from tensortypes.tensor import tensor
from tensortypes.tensor.math import Reduce
from tensortypes.tensor.type import TensorType

pytestmark = needs_cc

KINDS = ["sum", "prod", "max", "min", "mean"]
DTYPES = ["float64", "float32", "int8", "uint8", "int32", "int64", "uint64", "bool"]


def _expected(kind, value, axes, keepdims):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return getattr(np, kind)(value, axis=axes, keepdims=keepdims)


def _data(dtype, shape, rng):
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(
            max(info.min, -100), min(info.max, 100), shape, dtype=dtype, endpoint=True
        )
    return (rng.normal(0, 3, shape)).astype(dtype)


@st.composite
def _cases(draw):
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=nd, max_size=nd)))
    axes = tuple(sorted(draw(st.sets(st.integers(0, nd - 1)))))
    return (
        shape,
        axes or None,
        draw(st.sampled_from(["c", "transposed", "sliced"])),
        draw(st.integers(0, 99)),
    )


@pytest.fixture(scope="module")
def compiled(shared_cache):
    """``get(kinds, dtypes, nd, axes, keepdims)``: one compiled graph reducing one input
    of each dtype by each kind (outputs kind-major; ``keepdims`` None: both, False
    first), and the output types."""
    from tensortypes.link.c import CLinker
    import tensortypes.tensor as tt

    cache: dict = {}

    def get(kinds, dtypes, nd, axes, keepdims):
        key = (tuple(kinds), tuple(dtypes), nd, axes, keepdims)
        if key not in cache:
            xs = [tensor(d, (None,) * nd, name=f"x_{d}") for d in dtypes]
            kds = (False, True) if keepdims is None else (keepdims,)
            outs = [
                getattr(tt, k)(x, axis=axes, keepdims=kd) for k in kinds for kd in kds for x in xs
            ]
            cache[key] = (CLinker(shared_cache).compile(fgraph(xs, outs)), [o.type for o in outs])
        return cache[key]

    return get


def _layout(value, layout):
    if layout == "transposed":
        return np.ascontiguousarray(value.T).T
    if layout == "sliced":
        return np.concatenate([value, value], axis=-1)[..., ::2]
    return value


@settings(max_examples=40, deadline=None)
@given(_cases())
def test_reductions_match_numpy(compiled, case):
    shape, axes, layout, seed = case
    rng = np.random.default_rng(seed)
    values = [_layout(_data(d, shape, rng), layout) for d in DTYPES]
    empty = any(shape[a] == 0 for a in (range(len(shape)) if axes is None else axes))
    for kinds in (["sum", "prod", "mean"], ["max", "min"]):
        graph, types = compiled(kinds, DTYPES, len(shape), axes, None)
        assert not graph.fallbacks
        if empty and kinds[0] == "max":
            with pytest.raises(ValueError, match="no identity"):
                graph(values)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = graph(values)
        cases = [(k, kd, d) for k in kinds for kd in (False, True) for d in DTYPES]
        for k, (kind, keepdims, dtype) in enumerate(cases):
            want = np.asarray(_expected(kind, values[DTYPES.index(dtype)], axes, keepdims)).astype(
                types[k].dtype
            )
            assert got[k].dtype == want.dtype and got[k].shape == want.shape
            assert TensorType.values_eq_approx(
                got[k], want, rtol=1e-4 if dtype == "float32" else None
            ), (kind, dtype, got[k], want)


def test_nan_and_inf_propagate_as_in_numpy(compiled):
    x = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf], [np.inf, np.inf, 5.0]])
    for axes in ((0,), (1,), (0, 1)):
        graph, _ = compiled(KINDS, ["float64"], 2, axes, False)
        for kind, got in zip(KINDS, graph([x])):
            want = _expected(kind, x, axes, False)
            assert TensorType.values_eq_approx(got, np.asarray(want)), (kind, axes)


def test_integer_sums_wrap_around_as_in_numpy(compiled):
    x = np.array([np.iinfo(np.int64).max, 1, 5], dtype=np.int64)
    graph, _ = compiled(["sum", "prod"], ["int64"], 1, None, False)
    assert graph([x]) == [np.sum(x), np.prod(x)]


def test_mean_of_an_empty_slice_warns_as_numpy_does(compiled):
    graph, _ = compiled(["mean"], ["float64"], 2, (1,), False)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        (got,) = graph([np.zeros((3, 0))])
    assert got.shape == (3,) and np.isnan(got).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            graph([np.zeros((3, 0))])


def test_bad_input_is_a_type_check_error(compiled):
    graph, _ = compiled(["sum"], ["float64"], 2, (1,), False)
    with pytest.raises(TypeCheckError):
        graph([np.zeros((3, 2), dtype=np.float32)])
    with pytest.raises(TypeCheckError):
        graph([np.zeros(3)])


def test_float16_runs_through_perform(linker):
    x = tensor("float16", (None,), name="x")
    graph = linker.compile(fgraph([x], [Reduce("sum", (0,), False)(x)]))
    assert [type(node.op).__name__ for node, _ in graph.fallbacks] == ["Reduce"]
    assert graph([np.ones(4, dtype=np.float16)])[0] == 4


@st.composite
def _arg_cases(draw):
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=nd, max_size=nd)))
    axis = draw(st.sampled_from([None, *range(nd)]))
    return (
        shape,
        axis,
        draw(st.sampled_from(["c", "transposed", "sliced"])),
        draw(st.integers(0, 99)),
        draw(st.booleans()),
    )


@settings(max_examples=40, deadline=None)
@given(_arg_cases())
def test_argmax_and_argmin_match_numpy(shared_cache, case):
    import tensortypes.tensor as tt
    from tensortypes.link.c import CLinker

    shape, axis, layout, seed, nan = case
    rng = np.random.default_rng(seed)
    dtypes = ["float64", "float32", "int8", "uint64", "bool"]
    values = [_layout(_data(d, shape, rng), layout) for d in dtypes]
    if nan and values[0].size:
        values[0].flat[rng.integers(values[0].size)] = np.nan
    xs = [tensor(d, (None,) * len(shape), name=f"x_{d}") for d in dtypes]
    outs = [
        getattr(tt, k)(x, axis=axis, keepdims=kd)
        for k in ("argmax", "argmin")
        for kd in (False, True)
        for x in xs
    ]
    graph = CLinker(shared_cache).compile(fgraph(xs, outs))
    assert not graph.fallbacks
    empty = any(shape[a] == 0 for a in (range(len(shape)) if axis is None else (axis,)))
    if empty:
        with pytest.raises(ValueError, match="empty sequence"):
            graph(values)
        return
    got = graph(values)
    cases = [(k, kd, v) for k in ("argmax", "argmin") for kd in (False, True) for v in values]
    for g, (kind, keepdims, v) in zip(got, cases):
        want = getattr(np, kind)(v, axis=axis, keepdims=keepdims)
        assert g.dtype == np.int64 and g.shape == np.shape(want) and np.array_equal(g, want)
