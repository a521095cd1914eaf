"""Array kinds: NumPy, torch, JAX (tracers included), TensorFlow and MLX by module name,
duck arrays, typing.Any, unions, TypeVars, type aliases, the scalar forms, and nested
annotations."""

from __future__ import annotations

import re
import sys
from typing import Any, TypeVar, Union

import numpy as np
import pytest

import tensortypes.annotate as A
from tensortypes.annotate import (
    AbstractArray,
    AbstractDtype,
    Bool,
    Float,
    Float32,
    Int,
    Shaped,
    scope,
)
from tensortypes.errors import AnnotationError


def test_numpy_arrays_and_subclasses():
    hint = Float32[np.ndarray, "2 n"]
    assert isinstance(np.zeros((2, 5), np.float32), hint)
    assert isinstance(np.ma.zeros((2, 5), np.float32), hint)  # a subclass of ndarray
    assert not isinstance(np.zeros((2, 5), np.float64), hint)
    assert not isinstance(np.float32(1.0), Float32[np.ndarray, ""])  # a NumPy scalar
    assert issubclass(hint, np.ndarray) and issubclass(hint, AbstractArray)


def test_torch_tensors(torch):
    hint = Float32[torch.Tensor, "b c"]
    assert isinstance(torch.zeros(2, 3), hint)
    assert not isinstance(torch.zeros(2, 3, dtype=torch.float64), hint)
    assert not isinstance(np.zeros((2, 3), np.float32), hint)
    assert issubclass(hint, torch.Tensor)
    # The value in the one short form of every message: dtype, shape, library.
    assert "expected a torch tensor, got f32[2,3](numpy)" in hint.__instancecheck_str__(
        np.zeros((2, 3), np.float32)
    )
    param = Float[torch.nn.Parameter, "n"]
    assert isinstance(torch.nn.Parameter(torch.zeros(3)), param)
    assert not isinstance(torch.zeros(3), param)  # a plain tensor is no Parameter


def test_jax_arrays_and_tracers(jax):
    import jax.numpy as jnp

    hint = Float32[jax.Array, "b c"]
    assert isinstance(jnp.zeros((2, 3)), hint)
    assert not isinstance(jnp.zeros((2, 3), jnp.int32), hint)
    seen = []

    @jax.jit
    def f(x):
        seen.append((isinstance(x, hint), isinstance(x, Float32[jax.Array, "b"])))
        return x * 2

    f(jnp.ones((2, 3)))

    @jax.vmap
    def g(row):
        seen.append((isinstance(row, Float32[jax.Array, "c"]), False))
        return row

    g(jnp.ones((2, 3)))
    assert seen == [(True, False), (True, False)]


def test_jax_keys_and_the_jax_names(jax):
    assert A.Array is jax.Array
    assert A.Scalar is Shaped[jax.Array, ""]
    assert isinstance(jax.random.key(0), A.PRNGKeyArray)
    assert isinstance(jax.random.PRNGKey(0), A.PRNGKeyArray)
    assert not isinstance(jax.numpy.zeros(3, jax.numpy.uint32), A.PRNGKeyArray)
    assert isinstance(jax.random.split(jax.random.key(0)), Shaped[A.PRNGKeyArray, "2"])
    assert isinstance(3.0, A.ScalarLike) and isinstance(np.zeros(()), A.ScalarLike)
    assert not isinstance(np.zeros(2), A.ScalarLike)
    assert "DTypeLike" in A.JAX_NAMES and A.DTypeLike is jax.typing.DTypeLike


def _standin(module, name, **attrs):
    return type(name, (), {"__module__": module, **attrs})


def _init_array(dtype_cls):
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype_cls(dtype)

    return __init__


TFDType = _standin(
    "tensorflow.python.framework.dtypes",
    "DType",
    __init__=lambda self, name: setattr(self, "name", name),
)
TFTensor = _standin("tensorflow.python.framework.ops", "Tensor", __init__=_init_array(TFDType))
MXDtype = _standin(
    "mlx.core",
    "Dtype",
    __init__=lambda self, n: setattr(self, "n", n),
    __str__=lambda self: f"mlx.core.{self.n}",
)
MXArray = _standin("mlx.core", "array", __init__=_init_array(MXDtype))


def test_tensorflow_and_mlx_are_recognised_by_module_name():
    tf_hint = Float32[TFTensor, "b 3"]
    assert tf_hint.type.kind == "tensorflow"
    assert isinstance(TFTensor((2, 3), "float32"), tf_hint)
    assert not isinstance(TFTensor((2, 3), "int32"), tf_hint)
    assert not isinstance(np.zeros((2, 3), np.float32), tf_hint)
    mx_hint = Int[MXArray, "n"]
    assert mx_hint.type.kind == "mlx"
    assert isinstance(MXArray((4,), "int16"), mx_hint)
    assert not isinstance(MXArray((4,), "float16"), mx_hint)
    assert "tensorflow" not in sys.modules and "mlx" not in sys.modules


class MyDuckArray:
    def __init__(self, shape=(3, 4, 5), dtype="my_dtype"):
        self._shape, self._dtype = shape, dtype

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype


class MyDtype(AbstractDtype):
    dtypes = ["my_dtype"]


def test_duck_arrays():
    hint = MyDtype[MyDuckArray, "3 4 5"]
    assert isinstance(MyDuckArray(), hint)
    assert not isinstance(MyDuckArray((3, 4)), hint)
    assert not isinstance(MyDuckArray(dtype="other"), hint)
    assert not isinstance(np.zeros((3, 4, 5)), hint)  # the class is checked
    assert hint.type.kind is MyDuckArray and hint.type.dtypes == frozenset({"my_dtype"})
    # A duck array whose dtype is a NumPy dtype is read through it.
    assert isinstance(MyDuckArray((2,), np.dtype("float32")), Float32[MyDuckArray, "n"])


def test_any_checks_only_shape_and_dtype(torch):
    hint = Float[Any, "n 2"]
    assert hint.array_type is Any and hint.type.kind == "any"
    assert isinstance(np.zeros((3, 2)), hint) and isinstance(torch.zeros(3, 2), hint)
    assert isinstance(MyDuckArray((3, 2), "float32"), hint)
    assert isinstance(np.float64(1.0), Float[Any, ""])  # NumPy scalars have shape and dtype
    assert not isinstance([[1.0, 2.0]], hint) and not isinstance(np.zeros((3, 2), int), hint)
    assert str(hint) == "Float[typing.Any, 'n 2']"


def test_unions_are_unpacked(torch):
    hint = Float[np.ndarray | torch.Tensor, "n"]
    assert hint == Float[np.ndarray, "n"] | Float[torch.Tensor, "n"]
    assert Float[Union[np.ndarray, torch.Tensor], "n"] == hint
    assert isinstance(np.zeros(2), hint) and isinstance(torch.zeros(2), hint)
    assert not isinstance([0.0], hint)
    assert Float[np.ndarray | None, "n"] == Float[np.ndarray, "n"] | None
    with scope() as b:
        assert isinstance(torch.zeros(2), hint) and not isinstance(np.zeros(3), hint)
        assert b.sizes == {"n": 2}


def test_typevars_use_bound_or_constraints(torch):
    bound = TypeVar("bound", bound=np.ndarray)
    assert Float[bound, "n"] is Float[np.ndarray, "n"]
    constrained = TypeVar("constrained", np.ndarray, torch.Tensor)
    assert Float[constrained, "n"] == Float[np.ndarray, "n"] | Float[torch.Tensor, "n"]
    free = TypeVar("free")
    assert Float[free, "n"] is Float[Any, "n"]
    with pytest.raises(AnnotationError, match="class itself"):
        Float[TypeVar("fwd", bound="np.ndarray"), "n"]


def test_type_aliases(torch):
    typing_extensions = pytest.importorskip("typing_extensions")
    alias = typing_extensions.TypeAliasType("Arrays", np.ndarray | torch.Tensor)
    assert Float[alias, "n"] == Float[np.ndarray, "n"] | Float[torch.Tensor, "n"]


def test_parametrised_classes_use_their_class():
    from numpy.typing import NDArray

    assert Float[NDArray[np.float32], "n"] is Float[np.ndarray, "n"]


@pytest.mark.parametrize(
    "hint, scalar",
    [
        ((Float, float, ""), float),
        ((Float, float, "..."), float),
        ((Int, int, ""), int),
        ((Bool, bool, ""), bool),
        ((A.Complex, complex, "*b"), complex),
        ((Shaped, int, ""), int),
        ((A.Num, int, ""), int),
        ((Shaped, np.generic, ""), np.generic),
        ((Float, np.number, ""), np.number),
        ((Bool, np.bool_, ""), np.bool_),
    ],
)
def test_scalar_forms_give_the_scalar_type(hint, scalar):
    dtype_cls, array_type, shape = hint
    assert dtype_cls[array_type, shape] is scalar


@pytest.mark.parametrize(
    "dtype_cls, array_type, shape",
    [
        (Float, bool, "..."),
        (Float, int, ""),
        (Int, float, ""),
        (Float, float, "3"),
        (Bool, complex, ""),
    ],
)
def test_bad_scalar_forms_are_annotation_errors(dtype_cls, array_type, shape):
    with pytest.raises(AnnotationError) as info:
        dtype_cls[array_type, shape]
    error = info.value
    assert error.text == f"{dtype_cls.__name__}[{array_type.__name__}, {shape!r}]"
    assert error.text[error.position : error.end] == array_type.__name__
    assert "scalar type" in error.message


def test_scalar_members_of_a_union_that_do_not_fit_are_dropped():
    assert Float[np.ndarray | int | float, ""] == Float[np.ndarray, ""] | float
    with pytest.raises(AnnotationError, match=re.escape("no member of int | bool fits")):
        Float[int | bool, ""]
    with pytest.raises(AnnotationError, match="None is not an array type"):
        Float[None, ""]


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ("np.ndarray", "class itself"),
        (3, "not an array type"),
        (list, "not an array type"),
        (object, "not an array type"),
    ],
)
def test_bad_array_types(bad, fragment):
    with pytest.raises(AnnotationError, match=fragment):
        Float[bad, "n"]


def test_nested_annotations_prepend_axes_and_intersect_dtypes(jax):
    Image = Float[jax.Array, "channels height width"]
    BatchImage = Float[Image, "batch"]
    assert BatchImage is Float[jax.Array, "batch channels height width"]
    assert Shaped[Image, "batch"].dtypes == Float.dtypes
    assert Shaped[Image, "batch"].dim_str == "batch channels height width"
    assert Float[Float32[np.ndarray, "c"], "b"].dtypes == ("float32",)
    assert Float[Float32[np.ndarray, "*c"], "b"].index_variadic == 1
    assert Float[Shaped[np.ndarray, "c"], ""] is Float[np.ndarray, "c"]
    assert isinstance(jax.numpy.zeros((2, 3, 4, 5)), BatchImage)


def test_nested_annotations_with_no_common_dtype_are_errors():
    with pytest.raises(AnnotationError) as info:
        Bool[Float[np.ndarray, "c h w"], "batch"]
    error = info.value
    assert "no dtype is both Bool and Float" in error.message
    assert error.text[error.position : error.end] == "Bool"
    with pytest.raises(AnnotationError, match="at most one entry"):
        Float[Float[np.ndarray, "*a"], "*b"]


def test_nested_regexes_intersect_with_names():
    import re

    class Floaty(AbstractDtype):
        dtypes = [re.compile(r"float\d+")]

    assert Floaty[Float[np.ndarray, "n"], "b"].dtypes == ("float16", "float32", "float64")
