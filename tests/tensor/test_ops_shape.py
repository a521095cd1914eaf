"""Shape ops: reshape (element counts), transpose, concatenate, expand_dims, squeeze,
basic indexing with static bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

import tensortypes.tensor as tt
from tensortypes.errors import TypeCheckError
from tensortypes.tensor import TensorType, tensor


def shape_of(*entries):
    return TensorType("float64", entries).shape


def test_concatenate_adds_symbolic_sizes():
    a = tensor("float32", ("a", "c"))
    assert tt.concatenate([a, a], axis=0).type == TensorType("float32", ("2*a", "c"))
    b = tensor("float32", ("b", "c"))
    assert tt.concatenate([a, b, a], axis=0).type.shape == shape_of("2*a+b", "c")
    assert tt.concatenate([a, tensor("float32", (None, "c"))]).type.shape == shape_of(None, "c")
    assert tt.concatenate([tensor("int8", (2, 3)), tensor("float32", (4, 3))]).type == TensorType(
        "float32", (6, 3)
    )
    assert tt.concatenate([a, a], axis=-1).type.shape == shape_of("a", "2*c")


def test_concatenate_errors():
    with pytest.raises(TypeError, match="axis 1"):
        tt.concatenate([tensor("float64", (2, 3)), tensor("float64", (2, 4))])
    with pytest.raises(TypeError, match="same number"):
        tt.concatenate([tt.dmatrix(), tt.dvector()])
    with pytest.raises(ValueError, match="at least one"):
        tt.concatenate([])
    with pytest.raises(ValueError, match="out of bounds"):
        tt.concatenate([tt.dvector(), tt.dvector()], axis=1)


def test_reshape_reasons_on_element_counts():
    assert tensor("float64", ("n", 3)).reshape(-1).type.shape == shape_of("3*n")
    assert tensor("float64", ("b", "k")).reshape(("b", -1)).type.shape == shape_of("b", "k")
    assert tensor("float64", ("n", 4)).reshape((2, -1)).type.shape == shape_of(2, "2*n")
    assert tensor("float64", ("n", 3)).reshape((2, -1)).type.shape == (2, None)
    assert tensor("float64", (2, 6)).reshape((3, -1)).type.shape == (3, 4)
    assert tensor("float64", (None, 6)).reshape((3, 2, -1)).type.shape == (3, 2, None)
    assert tensor("float64", ("n", 3)).reshape(("3*n",)).type.shape == shape_of("3*n")


def test_reshape_provably_wrong_counts_are_errors():
    with pytest.raises(ValueError, match=r"\(6 elements\) into \(4, 2\) \(8 elements\)"):
        tensor("float64", (2, 3)).reshape((4, 2))
    with pytest.raises(ValueError, match="cannot reshape"):
        tensor("float64", (2, 3)).reshape((4, -1))
    with pytest.raises(ValueError, match="cannot reshape"):
        tensor("float64", ("n", 2)).reshape(("2*n+1",))
    with pytest.raises(ValueError, match="at most one -1"):
        tt.dmatrix().reshape((-1, -1))
    with pytest.raises(ValueError, match="does not determine"):
        tt.dvector().reshape(("m",))
    with pytest.raises(TypeError, match="expected an int"):
        tt.dvector().reshape((1.5,))


def test_reshape_evaluates_symbols_at_run_time():
    x = tensor("float64", ("n", 3), name="x")
    y = x.reshape((3, "n"))
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(y.eval({x: value}), value.reshape(3, 2))
    flat = x.flatten()
    assert flat.eval({x: value}).shape == (6,)


def test_reshape_checks_the_symbols_it_evaluates():
    x = tensor("float64", ("n", "n"), name="x")
    node = x.reshape(("n", "n")).owner
    cells = [[None]]
    with pytest.raises(TypeCheckError, match="axis 1"):
        node.op.perform(node, [np.zeros((2, 3))], cells)


def test_transpose():
    x = tensor("int8", (2, "n", 4))
    assert x.T.type.shape == shape_of(4, "n", 2)
    assert x.transpose(1, 0, 2).type.shape == shape_of("n", 2, 4)
    assert x.transpose((0, 2, 1)).type.shape == shape_of(2, 4, "n")
    assert tt.transpose(x, (-1, 0, 1)).type.shape == shape_of(4, 2, "n")
    with pytest.raises(ValueError, match="not a permutation"):
        tt.transpose(x, (0, 0, 1))
    with pytest.raises(ValueError, match="3 dimension"):
        tt.transpose(x, (1, 0))
    value = np.arange(2 * 3 * 4, dtype="int8").reshape(2, 3, 4)
    np.testing.assert_array_equal(x.T.eval({x: value}), value.T)


def test_expand_dims():
    x = tensor("float64", ("n", 3))
    assert tt.expand_dims(x, 0).type.shape == shape_of(1, "n", 3)
    assert tt.expand_dims(x, (0, -1)).type.shape == shape_of(1, "n", 3, 1)
    with pytest.raises(ValueError, match="out of bounds"):
        tt.expand_dims(x, 5)
    value = np.ones((2, 3))
    assert tt.expand_dims(x, 1).eval({x: value}).shape == (2, 1, 3)


def test_squeeze():
    x = tensor("float64", (1, "n", None, 1))
    assert tt.squeeze(x).type.shape == shape_of("n", None)
    assert x.squeeze((0, 2)).type.shape == shape_of("n", 1)
    with pytest.raises(ValueError, match="axis 1 .* does not have size 1"):
        x.squeeze(1)
    with pytest.raises(ValueError, match="out of bounds"):
        x.squeeze(4)
    assert x.squeeze(2).eval({x: np.ones((1, 2, 1, 1))}).shape == (1, 2, 1)
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        x.squeeze(2).eval({x: np.ones((1, 2, 3, 1))})


def test_indexing_types_and_errors():
    x = tensor("float32", (4, "n", None))
    assert x[1:3].type.shape == shape_of(2, "n", None)
    assert x[::-1, :, 0].type.shape == shape_of(4, "n")
    assert x[..., None, -1].type.shape == shape_of(4, "n", 1)
    assert x[-1, 1:].type.shape == shape_of(None, None)
    assert x[0, 0, 0].type.shape == ()
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0"):
        x[4]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]
    with pytest.raises(NotImplementedError, match="only Python ints or None"):
        x[1.5:]
    with pytest.raises(NotImplementedError, match="basic indexing with static bounds"):
        x[[0, 1]]
    with pytest.raises(NotImplementedError, match="basic indexing with static bounds"):
        x[True]
    assert str(x[1:, ::2, None].owner.op) == "Subtensor{1:, ::2, None}"


@settings(deadline=None, max_examples=150)
@given(data=st.data(), shape=array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
def test_indexing_static_types_hold_their_values(data, shape):
    static = tuple(data.draw(st.sampled_from([s, None, f"s{s}"])) for s in shape)
    x = tensor("float32", static)
    value = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    bound = st.one_of(st.none(), st.integers(-6, 6))
    index = []
    for s in shape:
        if s and data.draw(st.booleans()):
            index.append(data.draw(st.integers(-s, s - 1)))
        else:
            step = data.draw(st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
            index.append(slice(data.draw(bound), data.draw(bound), step))
        if data.draw(st.booleans()):
            index.append(None)
    out = x[tuple(index)]
    _type_holds(out, out.eval({x: value}), value[(*index, Ellipsis)])


def _type_holds(out, got, want):
    """``out``'s static type (symbols ``s<n>`` bound to n) holds ``want``, which ``got`` equals."""
    bindings = {f"s{n}": n for n in range(5)}
    concrete = tuple(s.evaluate(bindings) if hasattr(s, "evaluate") else s for s in out.type.shape)
    assert TensorType("float32", concrete).is_super(TensorType("float32", want.shape))
    np.testing.assert_array_equal(got, want)


@settings(deadline=None, max_examples=150)
@given(data=st.data(), shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
def test_shape_ops_static_types_hold_their_values(data, shape):
    static = tuple(data.draw(st.sampled_from([s, None, f"s{s}"])) for s in shape)
    x = tensor("float32", static)
    value = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    axis = data.draw(st.integers(0, len(shape) - 1))
    size = int(np.prod(shape))
    cases = [
        (x.transpose(perm), np.transpose(value, perm)),
        (x.reshape(-1), value.reshape(-1)),
        (x.reshape((shape[0], -1)), value.reshape(shape[0], -1)),
        (tt.concatenate([x, x], axis=axis), np.concatenate([value, value], axis=axis)),
        (tt.expand_dims(x, axis), np.expand_dims(value, axis)),
        (x.reshape((size,)), value.reshape(size)),
    ]
    for out, want in cases:
        _type_holds(out, out.eval({x: value}), want)
