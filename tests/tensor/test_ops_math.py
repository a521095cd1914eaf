"""Reductions, dot and matmul: static types, build-time errors, values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import tensortypes.tensor as tt
from tensortypes.tensor import TensorType, tensor
from tensortypes.tensor.math import Reduce, normalize_axes

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
REDUCTIONS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}


@pytest.mark.parametrize("kind", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_dtype_is_numpys(kind, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = REDUCTIONS[kind](np.ones((2, 3), dtype), axis=0).dtype.name
    assert getattr(tt, kind)(tensor(dtype, (2, 3)), axis=0).dtype == want


def test_reduction_shapes_with_axes_and_keepdims():
    x = tensor("float32", ("n", 3, "m"))
    assert x.sum(axis=0).type.shape == (3, TensorType("float32", ("m",)).shape[0])
    assert x.sum().type.shape == ()
    assert x.max(axis=(0, -1), keepdims=True).type.shape == (1, 3, 1)
    assert x.mean(axis=-2).type.shape == TensorType("float32", ("n", "m")).shape
    assert str(x.prod(axis=1).owner.op) == "prod{axis=(1,)}"


def test_reduction_axis_errors():
    x = tt.dmatrix("x")
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        x.sum(axis=2)
    with pytest.raises(ValueError, match="repeats an axis"):
        x.sum(axis=(0, -2))
    with pytest.raises(TypeError, match="must be an int"):
        x.sum(axis=1.5)
    with pytest.raises(ValueError, match="no identity"):
        tensor("float64", (0, 3)).max(axis=0)
    with pytest.raises(ValueError, match="unknown reduction"):
        Reduce("median", (0,))


def test_normalize_axes():
    assert normalize_axes(None, 3) == (0, 1, 2)
    assert normalize_axes((-1, 0), 3) == (0, 2)
    assert normalize_axes(np.int64(1), 2) == (1,)


def test_matmul_symbolic_and_batched():
    b_k = tensor("float32", ("b", "k"))
    k_m = tensor("float32", ("k", "m"))
    assert (b_k @ k_m).type == TensorType("float32", ("b", "m"))
    batched = tensor("float64", (5, 1, "n", 3)) @ tensor("float64", (4, 3, 2))
    assert batched.type.shape == (5, 4, TensorType("float64", ("n",)).shape[0], 2)
    assert (tensor("float64", (3,)) @ tensor("float64", (3, 7))).type.shape == (7,)
    assert (tensor("float64", (2, 3)) @ tensor("float64", (3,))).type.shape == (2,)
    assert (tensor("float64", (3,)) @ tensor("float64", (3,))).type.shape == ()
    assert (tensor("int8", (2, 2)) @ tensor("uint8", (2, 2))).dtype == "int16"


def test_matmul_mismatch_names_both_shapes():
    a, b = tensor("float64", (3, 4), name="a"), tensor("float64", (5, 6), name="b")
    with pytest.raises(TypeError) as info:
        a @ b
    message = str(info.value)
    assert "(3, 4)" in message and "(5, 6)" in message and "a" in message and "b" in message
    with pytest.raises(TypeError, match="0-d"):
        tt.matmul(tt.dscalar("s"), a)
    with pytest.raises(TypeError, match="batch axes"):
        tensor("float64", (2, 3, 4)) @ tensor("float64", (5, 4, 1))


def test_dot_follows_numpy_dot():
    assert tt.dot(tensor("float64", (2, 3, 4)), tensor("float64", (5, 4, 6))).type.shape == (
        2,
        3,
        5,
        6,
    )
    assert tt.dot(tensor("float64", (2, 3)), 2.0).type.shape == (2, 3)
    with pytest.raises(TypeError, match="do not match"):
        tt.dot(tensor("float64", (2, 3)), tensor("float64", (4,)))
    x = tt.dmatrix("x")
    assert x.dot(x.T).type.shape == (None, None)


def test_values():
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal((x @ y).eval({x: a, y: b}), a @ b)
    np.testing.assert_array_equal(tt.dot(x, y).eval({x: a, y: b}), a.dot(b))
    np.testing.assert_array_equal(x.sum(axis=1).eval({x: a}), a.sum(axis=1))
    total = x.sum().eval({x: a})
    assert type(total) is np.ndarray and total.shape == () and total == 15.0


# -- property: static types hold the values NumPy computes --------------------------------------
@settings(deadline=None, max_examples=200)
@given(
    data=st.data(),
    kind=st.sampled_from(sorted(REDUCTIONS)),
    dtype=st.sampled_from(DTYPES),
    keepdims=st.booleans(),
)
def test_reduction_static_type_is_super_of_value(data, kind, dtype, keepdims):
    shape = data.draw(array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    axis = data.draw(
        st.none()
        | st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True, max_size=len(shape)).map(
            tuple
        )
    )
    static = tuple(data.draw(st.sampled_from([s, None])) for s in shape)
    x = tensor(dtype, static)
    out = getattr(tt, kind)(x, axis=axis, keepdims=keepdims)
    value = np.ones(shape, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.asarray(REDUCTIONS[kind](value, axis=axis, keepdims=keepdims))
    got = out.eval({x: value})
    assert out.type.is_super(TensorType(want.dtype, want.shape)) is True
    assert got.dtype == want.dtype and got.shape == want.shape


@settings(deadline=None, max_examples=150)
@given(data=st.data(), da=st.sampled_from(DTYPES), db=st.sampled_from(DTYPES))
def test_matmul_static_type_is_super_of_value(data, da, db):
    shapes = data.draw(
        mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2, max_side=3)
    )
    sa, sb = shapes.input_shapes
    a = tensor(da, tuple(data.draw(st.sampled_from([s, None])) for s in sa))
    b = tensor(db, tuple(data.draw(st.sampled_from([s, None])) for s in sb))
    out = a @ b
    va, vb = np.ones(sa, da), np.ones(sb, db)
    want = np.asarray(np.matmul(va, vb))
    assert out.type.is_super(TensorType(want.dtype, want.shape)) is True
    assert out.eval({a: va, b: vb}).dtype == want.dtype


def test_argmax_types_and_errors():
    from tensortypes.tensor.math import Argmax

    x = tensor("float32", ("n", 3), name="x")
    assert tt.argmax(x).type == TensorType("int64", ())
    assert x.argmin(axis=-1).type == TensorType("int64", ("n",))
    assert tt.argmax(x, axis=0, keepdims=True).type == TensorType("int64", (1, 3))
    with pytest.raises(ValueError, match="out of bounds"):
        tt.argmax(x, axis=2)
    with pytest.raises(TypeError, match="axis must be an int or None"):
        Argmax("argmax", (0, 1))
    with pytest.raises(ValueError, match="empty axis"):
        tt.argmax(tensor("float64", (0, 3)), axis=0)
    assert tt.argmax(tensor("float64", (0, 3)), axis=1).type.shape == (0,)
