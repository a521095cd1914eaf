"""Elementwise ops: static output types (dtype and symbolic shape), operators, perform."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import tensortypes.tensor as tt
from tensortypes.core.dims import Dim
from tensortypes.tensor import Elemwise, TensorType, elemwise, scalar_ops as so, tensor

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


def test_symbolic_broadcasting_keeps_the_symbol():
    x, y = tensor("float32", ("n", 3), name="x"), tensor("float32", (1, 3), name="y")
    assert (x + y).type == TensorType("float32", ("n", 3))
    assert (tensor("float64", ("n", 1)) * tensor("float64", (1, "m"))).type.shape == TensorType(
        "float64", ("n", "m")
    ).shape


def test_provable_mismatch_is_a_type_error_naming_both_shapes():
    x, y = tensor("float64", (3,), name="x"), tensor("float64", (4,), name="y")
    with pytest.raises(TypeError) as info:
        x + y
    assert "x with shape (3,)" in str(info.value) and "y with shape (4,)" in str(info.value)
    n_plus_2 = tensor("float64", ("n+2",), name="a")
    zero = tensor("float64", (0,), name="b")
    with pytest.raises(TypeError, match="cannot broadcast"):
        n_plus_2 * zero


def test_unknown_sizes_broadcast_to_a_fresh_unknown():
    out = tensor("float64", ("n",)) + tensor("float64", ("m",))
    assert out.type.shape == (None,)


def test_output_dtype_follows_numpy_promotion():
    assert (tt.ivector("i") + tt.fvector("f")).dtype == "float64"
    assert (tt.bvector("b") / 2).dtype == "float64"
    assert tt.exp(tt.wvector("w")).dtype == "float32"
    assert (tt.fvector("f") < 2).dtype == "bool"


@pytest.mark.parametrize(
    ("make", "dtype"),
    [
        (lambda x: x * 2.0, "float32"),
        (lambda x: 2 * x, "float32"),
        (lambda x: x + 1, "float32"),
        (lambda x: x * 1j, "complex64"),
        (lambda x: x**2, "float32"),
        (lambda x: 1 - x, "float32"),
    ],
)
def test_python_scalars_are_weak(make, dtype):
    assert make(tt.fvector("x")).dtype == dtype


def test_numpy_scalars_and_arrays_are_strong():
    x = tt.fvector("x")
    assert (x * np.float64(2.0)).dtype == "float64"
    assert (x + np.array([1.0])).dtype == "float64"
    assert (x + [1, 2]).type.shape == (2,)


def test_numpy_array_on_the_left_builds_a_graph():
    x = tt.dvector("x")
    out = np.array([1.0, 2.0]) + x
    assert isinstance(out, tt.TensorVariable) and out.type.shape == (2,)


def test_refused_dtype_is_a_type_error_naming_the_op():
    with pytest.raises(TypeError, match=r"sub\(.*not defined for dtype bool"):
        tensor("bool", (2,)) - tensor("bool", (2,))
    with pytest.raises(TypeError, match="neg"):
        -tensor("bool", (2,))


def test_bad_operands_are_clear_type_errors():
    with pytest.raises(TypeError, match="add: input 1"):
        tt.dvector("x") + "text"
    from tensortypes.graph import generic

    with pytest.raises(TypeError, match="not a tensor"):
        tt.add(tt.dvector("x"), generic("g"))
    with pytest.raises(TypeError, match="takes 2 input"):
        elemwise("add")(tt.dvector("x"))
    with pytest.raises(TypeError, match="takes a ScalarOp"):
        Elemwise("add")
    with pytest.raises(ValueError, match="no scalar op named"):
        elemwise("plus")


def test_operators_map_to_their_ops():
    x, y = tt.ivector("x"), tt.ivector("y")
    pairs = {
        x + y: "add",
        x - y: "sub",
        x * y: "mul",
        x / y: "true_div",
        x // y: "floor_div",
        x % y: "mod",
        x**y: "pow",
        x & y: "bitwise_and",
        x | y: "bitwise_or",
        x ^ y: "bitwise_xor",
        -x: "neg",
        abs(x): "abs",
        ~x: "invert",
        x < y: "lt",
        x <= y: "le",
        x > y: "gt",
        x >= y: "ge",
    }
    for var, name in pairs.items():
        assert var.owner.op == elemwise(name), name
    assert +x is x


def test_variables_stay_hashable_and_compare_by_identity():
    x = tt.dvector("x")
    assert x == x and x != tt.dvector("x") and {x: 1}[x] == 1
    assert tt.eq(x, x).dtype == "bool"


def test_indexing_with_a_tensor_is_not_provided():
    with pytest.raises(NotImplementedError, match="indexing"):
        tt.dvector("x")[tt.lscalar("i")]


def test_elemwise_is_equal_by_scalar_op_and_cached():
    assert Elemwise(so.add) == elemwise("add") and hash(Elemwise(so.add)) == hash(elemwise("add"))
    assert elemwise("add") is elemwise(so.add)
    assert str(elemwise("exp")) == "Elemwise{exp}"


def test_perform_returns_arrays_of_the_static_dtype_even_for_0d():
    x = tt.dscalar("x")
    value = (x + 1).eval({x: np.array(2.0)})
    assert type(value) is np.ndarray and value.shape == () and value == 3.0


def test_where_and_comparisons_evaluate():
    c, x = tt.bvector("c"), tt.fvector("x")
    out = tt.where(c > 0, x, 0.5)
    got = out.eval({c: np.array([1, 0, 2], "int8"), x: np.array([1, 2, 3], "float32")})
    np.testing.assert_array_equal(got, np.array([1, 0.5, 3], "float32"))
    assert got.dtype == np.float32


# -- property: the static type holds every value NumPy computes -------------------------------
def _symbolic(draw, shape):
    """A static shape for a concrete one: each size kept, unknown, or a rigid symbol."""
    out = []
    for size in shape:
        choice = draw(st.sampled_from(["int", "none", "sym"]))
        out.append(size if choice == "int" else None if choice == "none" else f"s{size}")
    return tuple(out)


def _values(rng, dtype, shape):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if kind in "iu":
        return rng.integers(1, 5, shape).astype(dtype)
    data = rng.uniform(0.5, 3.0, shape)
    if kind == "c":
        data = data + 1j * rng.uniform(-1, 1, shape)
    return data.astype(dtype)


def _concrete(static, bindings):
    return tuple(s.evaluate(bindings) if isinstance(s, Dim) else s for s in static)


@settings(deadline=None, max_examples=300)
@given(data=st.data(), name=st.sampled_from(sorted(so.SCALAR_OPS)))
def test_static_type_is_super_of_the_computed_value(data, name):
    op = elemwise(name)
    nin = op.scalar_op.nin
    dtypes = [data.draw(st.sampled_from(DTYPES)) for _ in range(nin)]
    try:
        op.scalar_op.output_dtype(*dtypes)
    except TypeError:
        assume(False)
    shapes = data.draw(mutually_broadcastable_shapes(num_shapes=nin, max_dims=3, max_side=3))
    statics = [_symbolic(data.draw, s) for s in shapes.input_shapes]
    xs = [tensor(d, s) for d, s in zip(dtypes, statics)]
    out = op(*xs)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    values = [_values(rng, d, s) for d, s in zip(dtypes, shapes.input_shapes)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = op.scalar_op.nfunc(*values)
        got = out.eval(dict(zip(xs, values)))
    expected = np.asarray(expected)
    assert out.dtype == expected.dtype.name == got.dtype.name
    bindings = {f"s{n}": n for n in range(4)}
    static = TensorType(out.dtype, _concrete(out.type.shape, bindings))
    assert static.is_super(TensorType(expected.dtype, expected.shape)) is True
    np.testing.assert_array_equal(got, expected)


def test_ops_and_graphs_pickle():
    import pickle

    from tensortypes.graph import dprint

    x, y = tt.dvector("x"), tt.dvector("y")
    out = tt.exp(x) * y + x.sum()
    again = pickle.loads(pickle.dumps(out))
    assert again.owner.op == out.owner.op and again.type == out.type
    assert pickle.loads(pickle.dumps(elemwise("exp"))) == elemwise("exp")
    text = dprint(out, file="str")
    assert "Elemwise{add}" in text and "sum{axis=(0,)}" in text
