"""Constructors, constants and shared variables."""

import pickle

import numpy as np
import pytest

from tensortypes import TypeCheckError, config
from tensortypes import tensor as tt
from tensortypes.tensor import TensorSharedVariable, TensorType, shared


@pytest.mark.parametrize(
    "name,dtype,shape",
    [
        ("fscalar", "float32", ()),
        ("dvector", "float64", (None,)),
        ("imatrix", "int32", (None, None)),
        ("lrow", "int64", (1, None)),
        ("bcol", "int8", (None, 1)),
        ("wtensor3", "int16", (None,) * 3),
        ("ctensor4", "complex64", (None,) * 4),
        ("zscalar", "complex128", ()),
    ],
)
def test_prefixed_constructors(name, dtype, shape):
    x = getattr(tt, name)("x")
    assert x.type == TensorType(dtype, shape) and x.name == "x"


def test_unprefixed_default_to_floatx(monkeypatch):
    monkeypatch.setattr(config, "floatX", "float32")
    assert tt.matrix().dtype == "float32"
    assert tt.vector(dtype="int8").dtype == "int8"
    assert tt.tensor("float64", (2, None)).type == TensorType("float64", (2, None))
    assert tt.matrix(shape=(2, 3)).type.shape == (2, 3)
    with pytest.raises(ValueError):
        tt.matrix(shape=(2,))
    with pytest.raises(ValueError):
        tt.tensor("float64")


class TestShared:
    def test_get_and_set_value(self):
        w = shared(np.arange(3.0), name="w")
        assert isinstance(w, TensorSharedVariable)
        assert w.type == TensorType("float64", (None,))
        got = w.get_value()
        got[0] = 99.0
        assert w.get_value()[0] == 0.0  # a copy unless borrow
        storage = w.get_value(borrow=True)
        w.set_value(np.array([5.0, 6.0, 7.0]))
        assert w.get_value(borrow=True) is storage  # storage reused
        assert w.get_value().tolist() == [5.0, 6.0, 7.0]
        w.set_value(np.zeros(5))
        assert w.get_value().shape == (5,)

    def test_set_value_filtered(self):
        w = shared(np.zeros(3, dtype="float32"))
        with pytest.raises(TypeCheckError):
            w.set_value(np.zeros((2, 2), dtype="float32"))
        with pytest.raises(TypeCheckError):
            w.set_value(np.zeros(3))  # float64 into float32 loses precision
        w.set_value(np.zeros(3, dtype="int8"))  # safe cast
        assert w.get_value().dtype == np.float32

    def test_shared_in_eval(self):
        from tensortypes.tensor import specify_shape

        w = shared(np.ones((2, 2)))
        y = specify_shape(w, (2, 2))
        assert y.eval().tolist() == [[1.0, 1.0], [1.0, 1.0]]
        w.set_value(np.zeros((2, 2)))
        assert y.eval().tolist() == [[0.0, 0.0], [0.0, 0.0]]

    def test_shared_refuses_bad_data(self):
        with pytest.raises(TypeError):
            shared(object())
        with pytest.raises(TypeError):
            shared(tt.vector())


def test_variables_pickle():
    x = tt.dmatrix("x")
    y = pickle.loads(pickle.dumps(x))
    assert y.type is x.type and y.name == "x"
