"""TensorType: construction, printing, identity, relations (as in PyTensor)."""

import pickle

import numpy as np
import pytest

from tensortypes import config
from tensortypes.core.dims import parse
from tensortypes.tensor import TensorType, TensorVariable


class TestConstruction:
    def test_dtype_normalised_through_numpy(self):
        assert TensorType("float", (None,)).dtype == "float64"
        assert TensorType(np.float32, ()).dtype == "float32"
        assert TensorType(np.dtype("int16"), ()).dtype == "int16"
        assert TensorType("f4", ()).dtype == "float32"
        assert TensorType(bool, ()).dtype == "bool"

    def test_floatx_resolved_when_built(self, monkeypatch):
        monkeypatch.setattr(config, "floatX", "float32")
        assert TensorType("floatX", (2,)).dtype == "float32"
        monkeypatch.setattr(config, "floatX", "float64")
        assert TensorType("floatX", (2,)).dtype == "float64"

    @pytest.mark.parametrize("dtype", ["float128", "object", "datetime64", "foo", "U3", None])
    def test_unsupported_dtype_is_type_error(self, dtype):
        if dtype == "float128" and not hasattr(np, "float128"):
            pytest.skip("no float128 here")
        with pytest.raises(TypeError, match="dtype"):
            TensorType(dtype, ())

    @pytest.mark.parametrize("shape", [(-1,), (2.0,), (2, 1.5), ("n +",)])
    def test_bad_shape_entries_are_value_errors(self, shape):
        with pytest.raises(ValueError):
            TensorType("float64", shape)

    def test_float_entry_not_confused_with_interned_int(self):
        TensorType("float64", (2,))
        with pytest.raises(ValueError):
            TensorType("float64", (2.0,))

    def test_more_than_64_dims(self):
        TensorType("float64", (None,) * 64)
        with pytest.raises(ValueError):
            TensorType("float64", (None,) * 65)

    def test_symbols_and_expressions(self):
        t = TensorType("float32", ("n", "2*n", 3))
        assert t.shape == (parse("n"), parse("2*n"), 3)
        assert str(t) == "TensorType(float32, (n, 2*n, 3))"

    def test_legacy_bool_entries_and_broadcastable(self):
        assert TensorType("float64", (True, False)).shape == (1, None)
        assert TensorType("float64", broadcastable=(True, False)).shape == (1, None)
        assert TensorType("float64", (1, None, 3)).broadcastable == (True, False, False)


class TestIdentity:
    def test_interned(self):
        assert TensorType("float64", (2, None)) is TensorType("float64", [2, None])
        assert TensorType("float64", (2,)) is TensorType(np.float64, (np.int64(2),))

    def test_name_is_part_of_the_object_not_of_equality(self):
        a = TensorType("float64", (2,), name="a")
        b = TensorType("float64", (2,))
        assert a is not b and a == b and hash(a) == hash(b)
        assert str(a) == "a"

    def test_eq_hash(self):
        assert TensorType("float64", (2, None)) != TensorType("float32", (2, None))
        assert TensorType("float64", (2, None)) != TensorType("float64", (2, 1))
        assert len({TensorType("float64", (2,)), TensorType("float64", (2,))}) == 1

    def test_pickle_round_trip_is_identity(self):
        for t in [
            TensorType("float64", (2, None)),
            TensorType("int8", ("n", "n+1")),
            TensorType("float32", (3,), name="w"),
        ]:
            assert pickle.loads(pickle.dumps(t)) is t

    def test_immutable(self):
        t = TensorType("float64", (2,))
        with pytest.raises(AttributeError):
            t.dtype = "float32"

    def test_repr(self):
        assert repr(TensorType("float64", (2, None))) == "TensorType(float64, (2, ?))"
        assert repr(TensorType("float64", (None,))) == "TensorType(float64, (?,))"
        assert repr(TensorType("int8", ())) == "TensorType(int8, ())"

    def test_clone_keeps_name(self):
        t = TensorType("float64", (2, None), name="x")
        c = t.clone(shape=(2, 3))
        assert c.name == "x" and c.shape == (2, 3)
        assert t.clone(dtype="float32").dtype == "float32"


class TestRelations:
    def test_spec_000_example(self):
        v1 = TensorType("float64", (2, None))
        v2 = TensorType("float64", (2, 1))
        assert v1.is_super(v2) is True
        assert v2.is_super(v1) is False
        assert v1.in_same_class(v2) is False  # the pattern of 1s differs
        assert TensorType("float64", (2, None)).in_same_class(TensorType("float64", (3, 4)))

    def test_dtype_and_rank_must_match(self):
        assert TensorType("float64", (None,)).is_super(TensorType("float32", (2,))) is False
        assert TensorType("float64", (None,)).is_super(TensorType("float64", (2, 2))) is False

    def test_rigid_symbols(self):
        n = TensorType("float32", ("n",))
        assert n.is_super(TensorType("float32", (5,))) is None
        assert n.is_super(TensorType("float32", ("n",))) is True
        assert n.is_super(TensorType("float32", (None,))) is False
        assert TensorType("float32", (None,)).is_super(n) is True
        assert TensorType("float32", ("n+1",)).is_super(n) is False

    def test_non_tensor_types(self):
        from tensortypes.graph import generic

        assert TensorType("float64", ()).is_super(generic) is False


class TestVariables:
    def test_call_makes_tensor_variable(self):
        t = TensorType("float64", (None, 3))
        x = t("x")
        assert isinstance(x, TensorVariable) and x.type is t and x.name == "x"
        assert x.ndim == 2 and x.dtype == "float64"

    def test_call_with_refining_shape(self):
        t = TensorType("float64", (None, 3))
        assert t(shape=(2, 3)).type == TensorType("float64", (2, 3))
        with pytest.raises(ValueError):
            t(shape=(2, 4))
        with pytest.raises(ValueError):
            t(shape=(2,))
