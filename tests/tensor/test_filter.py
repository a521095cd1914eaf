"""TensorType.filter and the value comparisons (PyTensor and Theano)."""

import numpy as np
import pytest

from tensortypes import TypeCheckError, config
from tensortypes.tensor import TensorType, constant
from tensortypes.tensor import values_eq, values_eq_approx

f64v = TensorType("float64", (None,))
f32s = TensorType("float32", ())


class TestStrict:
    def test_exact_array_returned_as_is(self):
        x = np.zeros(3)
        assert f64v.filter(x, strict=True) is x

    def test_wrong_dtype_or_not_array(self):
        with pytest.raises(TypeCheckError, match="dtype=float64"):
            f64v.filter(np.zeros(3, dtype="float32"), strict=True)
        with pytest.raises(TypeCheckError, match="ndarray"):
            f64v.filter([1.0, 2.0], strict=True)


class TestCasting:
    def test_safe_casts_only_by_default(self):
        out = f64v.filter(np.arange(3, dtype="int32"))
        assert out.dtype == np.float64
        with pytest.raises(TypeCheckError, match="loss of"):
            TensorType("float32", (None,)).filter(np.zeros(3))

    def test_allow_downcast_casts_anything(self):
        out = TensorType("float32", (None,)).filter(np.zeros(3), allow_downcast=True)
        assert out.dtype == np.float32

    def test_python_float_into_float32_refused_unless_floatx(self, monkeypatch):
        with pytest.raises(TypeCheckError) as info:
            f32s.filter(0.1)
        message = str(info.value)
        assert "cannot store accurately value 0.1" in message
        assert "it would be represented as 0.10000000149011612" in message
        monkeypatch.setattr(config, "floatX", "float32")
        assert f32s.filter(0.1).dtype == np.float32
        with pytest.raises(TypeCheckError):  # False means no downcast at all
            f32s.filter(0.1, allow_downcast=False)

    def test_exact_python_data_accepted(self):
        assert f32s.filter(0.5) == np.float32(0.5)
        assert TensorType("int8", (None,)).filter([1, 2, 3]).dtype == np.int8

    @pytest.mark.parametrize("value", [300, [300], -129, 2**70])
    def test_out_of_range_integers_are_type_check_errors(self, value):
        t = TensorType("int8", np.shape(value))
        with pytest.raises(TypeCheckError):
            t.filter(value)
        assert t.is_valid_value(value, strict=False) is False

    @pytest.mark.parametrize("value", ["abc", None, object(), {"a": 1}])
    def test_non_numeric_data(self, value):
        with pytest.raises(TypeCheckError):
            f32s.filter(value)

    def test_nan_survives_exactness_check(self):
        assert np.isnan(TensorType("float32", ()).filter(float("nan")))


class TestShapes:
    def test_wrong_ndim_message(self):
        with pytest.raises(TypeCheckError) as info:
            f64v.filter(np.zeros((3, 2)))
        assert str(info.value) == "TensorType(float64, (?,)): expected 1 axis, got 2 (shape (3, 2))"

    def test_static_shape_mismatch(self):
        with pytest.raises(TypeCheckError, match="axis 1 has size 3"):
            TensorType("float64", (2, 2)).filter(np.zeros((2, 3)))

    def test_unaligned(self):
        buf = np.zeros(8 * 3 + 1, dtype=np.uint8)
        unaligned = np.frombuffer(buf.data, dtype=np.float64, count=3, offset=1)
        assert not unaligned.flags.aligned
        with pytest.raises(TypeCheckError, match="aligned"):
            f64v.filter(unaligned, strict=True)

    def test_variable_refused(self):
        with pytest.raises(TypeCheckError, match="Variable"):
            f64v.filter(f64v("x"))

    def test_rigid_symbols_consistent_within_a_value(self):
        t = TensorType("float64", ("n", "n"))
        assert t.is_valid_value(np.zeros((3, 3)))
        with pytest.raises(TypeCheckError, match="n=2"):
            t.filter(np.zeros((2, 3)))
        t2 = TensorType("float64", ("n", "2*n"))
        assert t2.is_valid_value(np.zeros((2, 4)))
        assert not t2.is_valid_value(np.zeros((2, 5)))
        t3 = TensorType("float64", ("2*n",))
        assert t3.is_valid_value(np.zeros(4)) and not t3.is_valid_value(np.zeros(5))

    def test_is_valid_value_answers_bool(self):
        assert f64v.is_valid_value(np.zeros(3)) is True
        assert f64v.is_valid_value(np.zeros((3, 3))) is False
        assert f64v.is_valid_value([1.0]) is False  # strict by default
        assert f64v.is_valid_value([1.0], strict=False) is True


class TestFilterInplace:
    def test_reuses_storage_when_dtype_and_shape_match(self):
        storage = np.zeros(3)
        out = f64v.filter_inplace(np.array([1, 2, 3]), storage)
        assert out is storage and storage.tolist() == [1.0, 2.0, 3.0]

    def test_new_array_when_shape_differs(self):
        storage = np.zeros(3)
        out = f64v.filter_inplace(np.ones(4), storage)
        assert out is not storage and out.shape == (4,)


class TestValuesEq:
    def test_nan_aware(self):
        assert values_eq(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
        assert not values_eq(np.array([np.nan, 1.0]), np.array([np.nan, 2.0]))
        assert not values_eq(np.array([np.nan]), np.array([1.0]))

    def test_shape_and_dtype(self):
        assert not values_eq(np.zeros(2), np.zeros(3))
        assert not values_eq(np.zeros(2), np.zeros(2, dtype="float32"))
        assert values_eq(np.zeros(2), np.zeros(2, dtype="float32"), force_same_dtype=False)

    def test_approx_default_tolerances_by_dtype(self):
        assert values_eq_approx(np.float16([1.0]), np.float16([1.0009765625]))
        assert not values_eq_approx(np.float32([1.0]), np.float32([1.001]))
        assert values_eq_approx(np.float32([1.0]), np.float32([1.000005]))
        assert not values_eq_approx(np.float64([1.0]), np.float64([1.0001]))

    def test_approx_nan_inf_by_position(self):
        a = np.array([1.0, np.nan, np.inf])
        assert values_eq_approx(a, np.array([1.0, np.nan, np.inf]))
        assert not values_eq_approx(a, np.array([1.0, np.nan, -np.inf]))
        assert not values_eq_approx(a, np.array([1.0, 2.0, np.inf]))
        assert values_eq_approx(a, np.array([1.0, 2.0, np.inf]), allow_remove_nan=True)
        assert values_eq_approx(np.array([np.inf]), np.array([3.0]), allow_remove_inf=True)

    def test_user_tolerances_honoured_on_every_path(self):
        a, b = np.array([1.0, np.nan]), np.array([1.1, np.nan])
        assert values_eq_approx(a, b, rtol=0.2)
        assert not values_eq_approx(a, b)
        assert not values_eq_approx(np.array([1.0]), np.array([1.1]), rtol=0.0, atol=0.01)

    def test_integers_exact(self):
        assert values_eq_approx(np.arange(3), np.arange(3))
        assert not values_eq_approx(np.arange(3), np.arange(1, 4))


class TestMemory:
    def test_may_share_memory(self):
        a = np.zeros(4)
        assert TensorType.may_share_memory(a, a[1:])
        assert not TensorType.may_share_memory(a, np.zeros(4))
        assert not TensorType.may_share_memory(a, 3)

    def test_shape_info_and_size(self):
        t = TensorType("float32", (None, None))
        info = t.get_shape_info(np.zeros((3, 5), dtype="float32"))
        assert info == (3, 5) and t.get_size(info) == 60

    def test_constant_refuses_bad_data(self):
        with pytest.raises(TypeError):
            constant(object())
