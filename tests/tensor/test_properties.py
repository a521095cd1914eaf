"""Lattice laws of TensorType, on generated types (hypothesis)."""

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from tensortypes.tensor import TensorType

DTYPES = ["bool", "int8", "int64", "uint16", "float32", "float64", "complex64"]
ENTRIES = st.one_of(st.none(), st.integers(0, 3), st.sampled_from(["n", "m", "n+1", "2*n"]))


@st.composite
def tensor_types(draw, ndim=None, dtype=None):
    nd = draw(st.integers(0, 3)) if ndim is None else ndim
    dt = draw(st.sampled_from(DTYPES)) if dtype is None else dtype
    return TensorType(dt, tuple(draw(ENTRIES) for _ in range(nd)))


@st.composite
def related_triples(draw):
    nd = draw(st.integers(0, 3))
    dt = draw(st.sampled_from(DTYPES[:3]))
    return tuple(draw(tensor_types(nd, dt)) for _ in range(3))


@given(tensor_types())
def test_is_super_reflexive(t):
    assert t.is_super(t) is True
    assert t.is_super(TensorType(t.dtype, t.shape)) is True


@given(related_triples())
def test_is_super_antisymmetric(triple):
    a, b, _ = triple
    if a.is_super(b) is True and b.is_super(a) is True:
        assert a == b


@given(related_triples())
def test_is_super_transitive(triple):
    a, b, c = triple
    if a.is_super(b) is True and b.is_super(c) is True:
        assert a.is_super(c) is True


@given(related_triples())
def test_in_same_class_is_an_equivalence(triple):
    a, b, c = triple
    assert a.in_same_class(a)
    assert a.in_same_class(b) == b.in_same_class(a)
    if a.in_same_class(b) and b.in_same_class(c):
        assert a.in_same_class(c)


def _value_for(t, rng):
    sizes = {"n": 2, "m": 3}
    shape = []
    for s in t.shape:
        if s is None:
            shape.append(int(rng.integers(0, 4)))
        elif isinstance(s, int):
            shape.append(s)
        else:
            shape.append(s.evaluate(sizes))
    return rng.integers(0, 2, size=tuple(shape)).astype(t.dtype)


@given(tensor_types(), st.integers(0, 2**32 - 1))
def test_filter_strict_returns_the_object(t, seed):
    value = _value_for(t, np.random.default_rng(seed))
    assume(t.is_valid_value(value))
    assert t.filter(value, strict=True) is value


@given(tensor_types(), st.integers(0, 2**32 - 1), st.sampled_from([None, False, True]))
def test_filter_idempotent(t, seed, downcast):
    value = _value_for(t, np.random.default_rng(seed)).tolist()
    try:
        once = t.filter(value, allow_downcast=downcast)
    except TypeError:
        return
    twice = t.filter(once, allow_downcast=downcast)
    assert twice is once
    assert t.values_eq(once, twice)


@given(tensor_types(), tensor_types())
def test_is_super_true_means_values_pass(a, b):
    if a.is_super(b) is True:
        value = _value_for(b, np.random.default_rng(0))
        if b.is_valid_value(value):
            assert a.is_valid_value(value)


@given(related_triples())
def test_is_super_agrees_with_the_core_lattice(triple):
    from tensortypes.core.shapes import shape_is_super

    a, b, _ = triple
    assert a.is_super(b) == shape_is_super(a.shape, b.shape)
