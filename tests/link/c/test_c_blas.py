"""``dot`` and ``matmul`` in C compute what NumPy computes: through SciPy's BLAS
(float32/float64, when SciPy is installed) and through the loop every dtype has
(integers, booleans, and floats built without BLAS), over ranks 1-3, batch
broadcasting, 0-size axes, transposed, strided, reversed and broadcast operands."""

from __future__ import annotations

import importlib.util
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c_toys import fgraph, needs_cc
from tensortypes.errors import TypeCheckError
from tensortypes.link.c import blas
from tensortypes.tensor import tensor
from tensortypes.tensor.math import dot, matmul
from tensortypes.tensor.type import TensorType

pytestmark = needs_cc

HAVE_SCIPY = importlib.util.find_spec("scipy") is not None
# (first operand's dtype, second's): same dtypes, and mixed ones that cast first
PAIRS = [
    ("float64", "float64"),
    ("float32", "float32"),
    ("int64", "int64"),
    ("int8", "int8"),
    ("uint8", "uint8"),
    ("bool", "bool"),
    ("int32", "float64"),
    ("float32", "float64"),
]
MODES = ["blas", "loop"]


def _data(dtype, shape, rng):
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)  # the full range: products and sums wrap around
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    return rng.normal(0, 3, shape).astype(dtype)


def _layout(value, layout):
    if value.ndim == 0:
        return value
    if layout == "transposed":
        return np.ascontiguousarray(value.T).T
    if layout == "sliced":
        return np.concatenate([value, value], axis=-1)[..., ::2]
    if layout == "reversed":
        return np.ascontiguousarray(value[..., ::-1])[..., ::-1]
    if layout == "broadcast" and value.shape[-1:] not in ((0,),):
        # the last axis read with stride 0 where it has one element
        row = np.ascontiguousarray(value[..., :1])
        return np.broadcast_to(row, value.shape) if value.shape[-1] == 1 else value
    return value


@pytest.fixture(scope="module")
def compiled(shared_cache):
    """``get(op, na, nb, mode)``: one compiled graph with the product of each pair of
    dtypes, operands of ranks ``na`` and ``nb`` with unknown sizes; ``mode`` "loop"
    builds without BLAS."""
    from tensortypes.link.c import CLinker

    cache: dict = {}

    def get(op, na, nb, mode):
        key = (op, na, nb, mode)
        if key not in cache:
            fn = matmul if op == "matmul" else dot
            xs, outs = [], []
            for k, (da, db) in enumerate(PAIRS):
                a = tensor(da, (None,) * na, name=f"a{k}")
                b = tensor(db, (None,) * nb, name=f"b{k}")
                xs += [a, b]
                outs.append(fn(a, b))
            if mode == "loop":
                with mock.patch.object(blas, "blas_module", lambda: None):
                    graph = CLinker(shared_cache).compile(fgraph(xs, outs))
            else:
                graph = CLinker(shared_cache).compile(fgraph(xs, outs))
            cache[key] = (graph, [o.type for o in outs])
        return cache[key]

    return get


@st.composite
def _matmul_cases(draw):
    na, nb = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    size = st.integers(0, 5)
    m, k, n = draw(size), draw(size), draw(size)
    nbatch = max(na, nb) - 2
    batch = [draw(size) for _ in range(max(nbatch, 0))]
    # each operand's batch axes: its trailing ones, some of them 1 (broadcast)
    ba = [1 if draw(st.booleans()) else s for s in batch[len(batch) - max(na - 2, 0) :]]
    bb = [1 if draw(st.booleans()) else s for s in batch[len(batch) - max(nb - 2, 0) :]]
    sa = tuple(ba) + ((m, k) if na > 1 else (k,))
    sb = tuple(bb) + ((k, n) if nb > 1 else (k,))
    return sa, sb


@st.composite
def _dot_cases(draw):
    na, nb = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    size = st.integers(0, 4)
    k = draw(size)
    sa = tuple(draw(size) for _ in range(na - 1)) + (k,)
    sb = tuple(draw(size) for _ in range(nb - 2)) + ((k, draw(size)) if nb > 1 else (k,))
    return sa, sb


def _check(op, case, layouts, mode, seed, compiled):
    if mode == "blas" and not HAVE_SCIPY:
        pytest.skip("SciPy is not installed: no BLAS path to test (the loop is tested)")
    sa, sb = case
    rng = np.random.default_rng(seed)
    graph, types = compiled(op, len(sa), len(sb), mode)
    assert not graph.fallbacks
    values = []
    for da, db in PAIRS:
        values += [_layout(_data(da, sa, rng), layouts[0]), _layout(_data(db, sb, rng), layouts[1])]
    got = graph(values)
    fn = np.matmul if op == "matmul" else np.dot
    for k, (da, db) in enumerate(PAIRS):
        with np.errstate(all="ignore"):
            want = np.asarray(fn(values[2 * k], values[2 * k + 1]))
        assert got[k].dtype == types[k].numpy_dtype == want.dtype, (da, db)
        assert got[k].shape == want.shape, (da, db, got[k].shape, want.shape)
        if want.dtype.kind == "f":
            rtol = 1e-4 if want.dtype == np.float32 else 1e-10
            np.testing.assert_allclose(
                got[k], want, rtol=rtol, atol=rtol * 10, err_msg=str((da, db))
            )
        else:
            np.testing.assert_array_equal(got[k], want, err_msg=str((da, db)))


LAYOUTS = st.tuples(*[st.sampled_from(["c", "transposed", "sliced", "reversed", "broadcast"])] * 2)


@settings(max_examples=40, deadline=None)
@given(_matmul_cases(), LAYOUTS, st.sampled_from(MODES), st.integers(0, 99))
def test_matmul_matches_numpy(compiled, case, layouts, mode, seed):
    _check("matmul", case, layouts, mode, seed, compiled)


@settings(max_examples=40, deadline=None)
@given(_dot_cases(), LAYOUTS, st.sampled_from(MODES), st.integers(0, 99))
def test_dot_matches_numpy(compiled, case, layouts, mode, seed):
    _check("dot", case, layouts, mode, seed, compiled)


@pytest.mark.parametrize("mode", MODES)
def test_large_products_and_every_blas_routine(compiled, mode):
    """gemm, gemv (both orientations) and dot, past the size where the GIL is released."""
    if mode == "blas" and not HAVE_SCIPY:
        pytest.skip("SciPy is not installed: no BLAS path to test (the loop is tested)")
    rng = np.random.default_rng(3)
    for sa, sb in [((70, 90), (90, 60)), ((70, 90), (90,)), ((90,), (90, 60)), ((300,), (300,))]:
        graph, _ = compiled("dot", len(sa), len(sb), mode)
        for layout in ("c", "transposed"):
            values = []
            for da, db in PAIRS:
                values += [_layout(_data(da, sa, rng), layout), _data(db, sb, rng)]
            got = graph(values)
            for k in (0, 1, 6, 7):  # the float pairs
                want = np.dot(values[2 * k], values[2 * k + 1])
                rtol = 1e-4 if want.dtype == np.float32 else 1e-10
                np.testing.assert_allclose(got[k], want, rtol=rtol, atol=1e-3)


def test_nan_and_inf_as_numpy(compiled):
    graph, _ = compiled("matmul", 2, 2, "blas" if HAVE_SCIPY else "loop")
    a = np.array([[1.0, np.nan], [np.inf, 0.0], [0.0, 0.0]])
    b = np.array([[2.0, 0.0], [1.0, np.inf]])
    values = []
    with np.errstate(all="ignore"):
        for da, db in PAIRS:
            values += [a.astype(da), b.astype(db)]
        got = graph(values)
        want = a @ b
    np.testing.assert_array_equal(got[0], want)


def test_blas_is_found_at_build_time(linker):
    a, b = tensor("float64", (None, None)), tensor("float64", (None, None))
    source = linker.source(fgraph([a, b], [matmul(a, b)]))
    assert ("#define TT_BLAS_MODULE" in source) == HAVE_SCIPY
    with mock.patch.object(blas, "blas_module", lambda: None):
        assert "#define TT_BLAS_MODULE" not in linker.source(fgraph([a, b], [matmul(a, b)]))


def test_blas_module_missing_at_import_runs_the_loops(linker):
    """A module built for BLAS whose BLAS cannot be imported when it is loaded."""
    a, b = tensor("float64", (None, None)), tensor("float64", (None,))
    with mock.patch.object(blas, "blas_module", lambda: "tensortypes_no_such_blas_module"):
        graph = linker.compile(fgraph([a, b], [matmul(a, b), dot(b, b)]))
    assert '#define TT_BLAS_MODULE "tensortypes_no_such_blas_module"' in graph.source
    x, v = np.arange(12.0).reshape(3, 4), np.arange(4.0)
    got = graph([x.T.copy().T, v])
    np.testing.assert_allclose(got[0], x @ v)
    assert got[1] == v @ v


def test_bad_input_is_an_error(compiled):
    graph, _ = compiled("matmul", 2, 2, "blas" if HAVE_SCIPY else "loop")
    rng = np.random.default_rng(0)
    good = []
    for da, db in PAIRS:
        good += [_data(da, (2, 3), rng), _data(db, (3, 4), rng)]
    bad = list(good)
    bad[1] = good[1][:2]
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        graph(bad)
    bad = list(good)
    bad[0] = good[0].astype("float32")
    with pytest.raises(TypeCheckError):
        graph(bad)
    bad[0] = good[0][0]
    with pytest.raises(TypeCheckError):
        graph(bad)
    graph3, _ = compiled("matmul", 3, 3, "blas" if HAVE_SCIPY else "loop")
    batched = []
    for da, db in PAIRS:
        batched += [_data(da, (2, 2, 3), rng), _data(db, (3, 3, 4), rng)]
    with pytest.raises(ValueError, match="batch axes of the operands do not broadcast"):
        graph3(batched)
    graphd, _ = compiled("dot", 2, 2, "loop")
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(2, 4\) not aligned"):
        graphd([v[:2] if i % 2 else v for i, v in enumerate(good)])


def test_dot_by_a_scalar_runs_through_perform(linker):
    a, s = tensor("float64", (3,)), tensor("float64", ())
    graph = linker.compile(fgraph([a, s], [dot(a, s)]))
    assert [type(node.op).__name__ for node, _ in graph.fallbacks] == ["Dot"]
    np.testing.assert_array_equal(graph([np.arange(3.0), np.array(2.0)])[0], [0.0, 2.0, 4.0])


def test_symbolic_sizes_are_checked_before_the_product(linker):
    a, b = tensor("float64", ("n", "k")), tensor("float64", ("k", "m"))
    graph = linker.compile(fgraph([a, b], [matmul(a, b)]))
    assert TensorType.values_eq_approx(
        graph([np.ones((2, 3)), np.ones((3, 4))])[0], np.full((2, 4), 3.0)
    )
    with pytest.raises(TypeCheckError):
        graph([np.ones((2, 3)), np.ones((4, 4))])
