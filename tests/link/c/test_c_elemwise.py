"""Elementwise graphs in C compute what NumPy computes: dtypes, broadcasting, layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c_toys import fgraph, needs_cc
from tensortypes.tensor import constant, dvector, tensor
from tensortypes.tensor.elemwise import Elemwise, exp, log, mul, where
from tensortypes.tensor.scalar_ops import SCALAR_OPS, Composite, ScalarExpr, op_expr

BINARY = [
    "add",
    "sub",
    "mul",
    "true_div",
    "floor_div",
    "mod",
    "pow",
    "maximum",
    "minimum",
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "neq",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
]
UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "invert"]
PAIRS = [
    ("float64", "float64"),
    ("float32", "float32"),
    ("int64", "int64"),
    ("int8", "uint8"),
    ("int32", "float32"),
    ("uint64", "int64"),
    ("bool", "bool"),
    ("uint16", "float64"),
]

pytestmark = needs_cc


def _values(dtype, n, rng):
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        edge = np.array([0, 1, info.max, info.min, 7], dtype=dtype)
        return np.concatenate(
            [edge, rng.integers(max(info.min, -50), min(info.max, 50), n - 5, dtype=dtype)]
        )
    edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.5], dtype=dtype)
    return np.concatenate([edge, rng.normal(0, 10, n - 7).astype(dtype)])


def _applicable(names, dtypes):
    ops, outs, xs = [], [], [tensor(d, (None,), name=f"x{i}") for i, d in enumerate(dtypes)]
    for name in names:
        try:
            out = Elemwise(SCALAR_OPS[name])(*xs)
        except TypeError:
            continue  # not defined for these dtypes (NumPy refuses too)
        if name == "pow" and out.dtype[0] in "iub":
            continue  # integer pow: see test_integer_pow_runs_through_perform
        outs.append(out)
        ops.append(name)
    return xs, ops, outs


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
def test_every_binary_op_agrees_with_numpy(linker, pair):
    xs, names, outs = _applicable(BINARY, pair)
    compiled = linker.compile(fgraph(xs, outs))
    rng = np.random.default_rng(0)
    a, b = _values(pair[0], 40, rng), _values(pair[1], 40, rng)[::-1].copy()
    for name, got, node_out in zip(names, compiled.function([a, b]), outs):
        expected = node_out.owner.op.perform  # NumPy, through the op's perform
        cell = [[None]]
        with np.errstate(all="ignore"):
            expected(node_out.owner, [a, b], cell)
        assert got.dtype == cell[0][0].dtype, name
        ok = (
            np.isclose(got, cell[0][0], rtol=1e-6, equal_nan=True)
            if got.dtype.kind == "f"
            else got == cell[0][0]
        )
        assert np.all(ok), (name, a[~ok], b[~ok], got[~ok], cell[0][0][~ok])
    assert compiled.fallbacks == []


def test_integer_pow_runs_through_perform(linker):
    x, y = tensor("int64", (None,), name="x"), tensor("int64", (None,), name="y")
    compiled = linker.compile(fgraph([x, y], [x**y]))
    [(node, reason)] = compiled.fallbacks
    assert "negative integer exponents" in reason
    assert list(compiled.function([np.array([2, 3]), np.array([3, 2])])[0]) == [8, 9]
    with pytest.raises(ValueError, match="negative integer powers"):
        compiled.function([np.array([2]), np.array([-1])])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool"])
def test_every_unary_op_agrees_with_numpy(linker, dtype):
    xs, names, outs = _applicable(UNARY, (dtype,))
    compiled = linker.compile(fgraph(xs, outs))
    a = _values(dtype, 30, np.random.default_rng(1))
    with np.errstate(all="ignore"):
        for name, got in zip(names, compiled.function([a])):
            expected = SCALAR_OPS[name].impl(a)
            assert got.dtype == expected.dtype
            assert np.allclose(
                got, expected, rtol=1e-3 if got.dtype == np.float16 else 1e-6, equal_nan=True
            ), name
    # NumPy computes exp(bool) in float16, which has no C form: those run in perform.
    assert all("float16" in reason for _, reason in compiled.fallbacks)
    assert len(compiled.fallbacks) == (6 if dtype == "bool" else 0)


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 1), (1, 4)),
        ((2, 3, 4), (4,)),
        ((), (5,)),
        ((0, 3), (1, 3)),
        ((2, 1, 3), (1, 5, 1)),
        ((1,), ()),
    ],
)
def test_broadcasting(linker, shapes):
    x = tensor("float64", (None,) * len(shapes[0]), name="x")
    y = tensor("float64", (None,) * len(shapes[1]), name="y")
    f = linker.make_function(fgraph([x, y], [mul(exp(x), y)]))
    a, b = np.asarray(np.random.rand(*shapes[0])), np.asarray(np.random.rand(*shapes[1]))
    (out,) = f([a, b])
    assert out.shape == np.broadcast_shapes(a.shape, b.shape)
    assert np.allclose(out, np.exp(a) * b)


def test_a_constant_is_inlined_as_a_literal(linker):
    x = dvector("x")
    compiled = linker.compile(fgraph([x], [mul(x, 2.5)]))
    assert "((npy_float64)2.5)" in compiled.source
    assert "tt_consts, 0" not in compiled.source  # nothing to extract at run time
    assert np.array_equal(compiled.function([np.arange(3.0)])[0], [0.0, 2.5, 5.0])


def test_an_array_constant_is_extracted(linker):
    x = dvector("x")
    c = constant(np.array([1.0, 2.0, 3.0]))
    compiled = linker.compile(fgraph([x], [mul(x, c)]))
    assert "tt_consts, 0" in compiled.source
    assert np.array_equal(compiled.function([np.ones(3)])[0], [1.0, 2.0, 3.0])


def test_a_composite_with_two_outputs(linker):
    a, b = ScalarExpr.input("float64"), ScalarExpr.input("float64")
    e = op_expr(SCALAR_OPS["exp"], a)
    comp = Composite([a, b], [op_expr(SCALAR_OPS["mul"], e, b), op_expr(SCALAR_OPS["add"], e, b)])
    x, y = dvector("x"), dvector("y")
    p, q = Elemwise(comp)(x, y)
    compiled = linker.compile(fgraph([x, y], [p, q]))
    assert compiled.fallbacks == [] and "tt_tmp_" in compiled.source
    u, v = np.random.rand(5), np.random.rand(5)
    got_p, got_q = compiled.function([u, v])
    assert np.allclose(got_p, np.exp(u) * v) and np.allclose(got_q, np.exp(u) + v)


# -- any layout: hypothesis over shapes, broadcasting, strides and offsets -------------------


@st.composite
def _layouts(draw):
    ndim = draw(st.integers(1, 3))
    shape = draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    arrays = []
    for _ in range(3):
        # Every input has the output's rank (left-padding is test_broadcasting's job);
        # any axis may be 1 (broadcast), reversed or strided, and the layout transposed.
        own = tuple(1 if draw(st.booleans()) else s for s in shape)
        steps = tuple(draw(st.sampled_from([1, 2, -1])) for _ in own)
        arrays.append((own, steps, draw(st.booleans())))
    if draw(st.booleans()):  # sometimes a shape that cannot broadcast
        own, steps, t = arrays[1]
        arrays[1] = (tuple(s + 2 if s > 1 else s for s in own), steps, t)
    return arrays


def _make(shape, steps, transpose, rng):
    big = rng.normal(size=tuple(max(1, s * abs(k)) for s, k in zip(shape, steps)))
    view = big[tuple(slice(None, None, k) for k in steps)]
    view = view[tuple(slice(0, s) for s in shape)]
    if transpose:
        view = np.asfortranarray(view)  # same values, the other memory order
    assert view.shape == shape
    return view


@pytest.fixture(scope="module")
def fused_graphs(shared_cache):
    """One fused graph per rank: where(a > 0, exp(b) * c - 1.5, log(|c| + 1))."""
    from tensortypes.link.c import CLinker
    from tensortypes.tensor.rewriting import default_rewriter

    fns = {}
    for nd in (1, 2, 3):
        a, b, c = (tensor("float64", (None,) * nd, name=n) for n in "abc")
        graph = fgraph([a, b, c], [where(a > 0, exp(b) * c - 1.5, log(abs(c) + 1.0))])
        default_rewriter().apply(graph)  # fuses the chain into one composite loop
        compiled = CLinker(shared_cache).compile(graph)
        assert compiled.fallbacks == [] and len(graph.toposort()) == 1
        fns[nd] = compiled.function
    return fns


@settings(deadline=None, max_examples=80)
@given(layout=_layouts(), seed=st.integers(0, 2**16))
def test_fused_loop_matches_numpy_on_any_layout(fused_graphs, layout, seed):
    rng = np.random.default_rng(seed)
    a, b, c = values = [_make(s, k, t, rng) for s, k, t in layout]
    f = fused_graphs[a.ndim]
    try:
        expected = np.where(a > 0, np.exp(b) * c - 1.5, np.log(np.abs(c) + 1.0))
    except ValueError:
        with pytest.raises(ValueError, match="could not be broadcast"):
            f(values)
        return
    (got,) = f(values)
    assert got.shape == expected.shape and got.flags.c_contiguous
    assert np.allclose(got, expected, equal_nan=True)
