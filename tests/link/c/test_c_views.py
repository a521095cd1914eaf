"""The view ops in C (``reshape``, ``transpose``, ``expand_dims``, ``squeeze``, basic
indexing) give NumPy's values, and share memory with their input exactly when
NumPy's results do: over shapes with 0-size axes and transposed, strided and
reversed inputs; bad indices and sizes are NumPy's errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensortypes
import tensortypes.tensor as tt
from c_toys import fgraph, needs_cc
from tensortypes.errors import TypeCheckError
from tensortypes.tensor import tensor

pytestmark = needs_cc

# (name, graph op, the same with NumPy): every one valid for any sizes of x (a, b, c)
VIEWS = [
    ("reshape -1", lambda x: x.reshape(-1), lambda v: v.reshape(-1)),
    (
        "reshape (a, c, b)",
        lambda x: x.reshape(("a", "c", "b")),
        lambda v: v.reshape(v.shape[0], v.shape[2], v.shape[1]),
    ),
    ("reshape (a, b, c, 1)", lambda x: x.reshape(("a", "b", "c", 1)), lambda v: v[..., None]),
    ("transpose", lambda x: x.transpose(2, 0, 1), lambda v: v.transpose(2, 0, 1)),
    ("T", lambda x: x.T, lambda v: v.T),
    ("expand_dims", lambda x: tt.expand_dims(x, (0, 2)), lambda v: np.expand_dims(v, (0, 2))),
    ("expand_dims -1", lambda x: tt.expand_dims(x, -1), lambda v: np.expand_dims(v, -1)),
    ("squeeze", lambda x: x[:, None].squeeze(1), lambda v: v[:, None].squeeze(1)),
    ("squeeze new", lambda x: x[None, ..., None].squeeze(), lambda v: v),
    ("x[1:]", lambda x: x[1:], lambda v: v[1:]),
    ("x[::-1]", lambda x: x[::-1], lambda v: v[::-1]),
    ("x[:, ::2]", lambda x: x[:, ::2], lambda v: v[:, ::2]),
    ("x[..., 1:3:2]", lambda x: x[..., 1:3:2], lambda v: v[..., 1:3:2]),
    ("x[::-2, None, -1:]", lambda x: x[::-2, None, -1:], lambda v: v[::-2, None, -1:]),
    ("x[-10:10, 5:0:-1]", lambda x: x[-10:10, 5:0:-1], lambda v: v[-10:10, 5:0:-1]),
    ("x[2:-1:3, :, -2::-1]", lambda x: x[2:-1:3, :, -2::-1], lambda v: v[2:-1:3, :, -2::-1]),
    ("x[None]", lambda x: x[None], lambda v: v[None]),
    ("chain", lambda x: x.T[1:].reshape(-1)[::2], lambda v: v.T[1:].reshape(-1)[::2]),
]
# int indices: an IndexError on an axis too short for them
INDEXED = [
    ("x[0]", lambda x: x[0], lambda v: v[0, ...]),
    ("x[-1, :, 1]", lambda x: x[-1, :, 1], lambda v: v[-1, :, 1, ...]),
    ("x[0, 0, 0]", lambda x: x[0, 0, 0], lambda v: v[0, 0, 0, ...]),
    ("x[..., -2]", lambda x: x[..., -2], lambda v: v[..., -2]),
]


@pytest.fixture(scope="module")
def graphs(shared_cache):
    from tensortypes.link.c import CLinker

    x = tensor("float64", ("a", "b", "c"), name="x")
    out = {}
    for key, table in (("views", VIEWS), ("indexed", INDEXED)):
        out[key] = CLinker(shared_cache).compile(fgraph([x], [op(x) for _, op, _ in table]))
        out[key + " py"] = tensortypes.function([x], [op(x) for _, op, _ in table], mode="py")
    return out


def _layout(value, layout):
    if layout == "transposed":
        return np.ascontiguousarray(value.transpose(2, 1, 0)).transpose(2, 1, 0)
    if layout == "sliced":
        return np.concatenate([value, value], axis=1)[:, ::2]
    if layout == "reversed":
        return np.ascontiguousarray(value[::-1])[::-1]
    return value


def _compare(table, got, value):
    for (name, _, ref), g in zip(table, got):
        want = ref(value)
        assert g.shape == want.shape and g.dtype == want.dtype, name
        np.testing.assert_array_equal(g, want, err_msg=name)
        assert np.shares_memory(g, value) == np.shares_memory(want, value), name
        assert g.flags.writeable == want.flags.writeable, name


SHAPES = st.tuples(*[st.integers(0, 4)] * 3)
LAYOUTS = st.sampled_from(["c", "transposed", "sliced", "reversed"])


@settings(max_examples=60, deadline=None)
@given(SHAPES, LAYOUTS, st.booleans())
def test_views_match_numpy_and_share_memory_as_numpy(graphs, shape, layout, readonly):
    value = _layout(np.arange(float(np.prod(shape))).reshape(shape), layout)
    if readonly:
        value.flags.writeable = False
    assert not graphs["views"].fallbacks
    _compare(VIEWS, graphs["views"]([value]), value)
    _compare(VIEWS, graphs["views py"](value), value)


@settings(max_examples=40, deadline=None)
@given(SHAPES, LAYOUTS)
def test_int_indices_match_numpy_and_check_bounds(graphs, shape, layout):
    value = _layout(np.arange(float(np.prod(shape))).reshape(shape), layout)
    assert not graphs["indexed"].fallbacks
    try:
        for _, _, ref in INDEXED:
            ref(value)
    except IndexError as exc:
        with pytest.raises(IndexError, match="out of bounds for axis"):
            graphs["indexed"]([value])
        with pytest.raises(IndexError, match=str(exc).split(" is out")[0]):
            graphs["indexed py"](value)
        return
    _compare(INDEXED, graphs["indexed"]([value]), value)
    _compare(INDEXED, graphs["indexed py"](value), value)


def test_a_view_writes_through_as_numpy(linker):
    x = tensor("float64", (None, None))
    graph = linker.compile(fgraph([x], [x[1:, ::2], x.T]))
    value = np.zeros((3, 4))
    sliced, transposed = graph([value])
    sliced[0, 1] = 5.0
    transposed[0, 0] = 7.0
    assert value[1, 2] == 5.0 and value[0, 0] == 7.0


def test_squeeze_of_an_axis_not_of_size_1_is_numpys_error(linker):
    x = tensor("float64", (None, 3))
    graph = linker.compile(fgraph([x], [x.squeeze(0)]))
    assert graph([np.ones((1, 3))])[0].shape == (3,)
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        graph([np.ones((2, 3))])
    with pytest.raises(TypeCheckError):
        graph([np.ones((1, 4))])


def test_reshape_mismatch_is_numpys_error_and_symbolic_sizes_fall_back(linker):
    x = tensor("float64", (None, None))
    graph = linker.compile(fgraph([x], [x.reshape((3, -1))]))
    assert graph([np.ones((3, 4))])[0].shape == (3, 4)
    with pytest.raises(ValueError, match="cannot reshape array of size 8"):
        graph([np.ones((2, 4))])
    z = tensor("float64", ("a", "c"))
    graph = linker.compile(fgraph([z], [z.reshape((-1, "c"))]))
    np.testing.assert_array_equal(graph([np.eye(3)[:, 1:]])[0], np.eye(3)[:, 1:])
    with pytest.raises(ValueError, match="cannot reshape array of size 0"):
        graph([np.ones((2, 0))])  # NumPy cannot infer -1 beside a 0 either
    graph = linker.compile(fgraph([z], [z.reshape(("a", -1))]))
    for value in (np.eye(3), np.eye(3).T, np.eye(4)[::2, ::2]):
        got = graph([value])[0]
        np.testing.assert_array_equal(got, value.reshape(value.shape[0], -1))
        assert np.shares_memory(got, value) == np.shares_memory(
            value.reshape(len(value), -1), value
        )
    y = tensor("float64", ("n", "m"))
    graph = linker.compile(fgraph([y], [y.reshape(("n*m",)), y.reshape(("m", "n"))]))
    assert [type(node.op).__name__ for node, _ in graph.fallbacks] == ["Reshape"]
    got = graph([np.arange(6.0).reshape(2, 3)])
    np.testing.assert_array_equal(got[0], np.arange(6.0))
    np.testing.assert_array_equal(got[1], np.arange(6.0).reshape(3, 2))
