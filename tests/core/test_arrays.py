"""Array-library recognisers: kind, dtype name and shape of runtime values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tensortypes.core import dtypes as D
from tensortypes.core.arrays import ARRAY_KINDS, array_info, array_kind, dtype_of


def info_of(x):
    """``array_info(x)`` of a value that is an array (a test fails at None)."""
    found = array_info(x)
    assert found is not None, x
    return found


# -- NumPy -----------------------------------------------------------------------


@pytest.mark.parametrize("name", [d.name for d in D.NUMPY_DTYPES])
def test_numpy_arrays(name):
    x = np.zeros((2, 3), dtype=name)
    assert array_info(x) == ("numpy", name, (2, 3))
    assert array_kind(x) == "numpy"
    assert dtype_of(x) is D.DType(name)


def test_numpy_details():
    info = info_of(np.zeros((4, 0, 1), dtype=">f4"))
    assert info == ("numpy", "float32", (4, 0, 1))
    assert all(type(n) is int for n in info[2])
    assert array_info(np.array(3.0)) == ("numpy", "float64", ())
    assert array_info(np.zeros(3, dtype=np.longlong)) == ("numpy", "int64", (3,))


def test_numpy_subclasses_are_numpy_but_scalars_are_not_arrays():
    class Sub(np.ndarray):
        pass

    sub = np.zeros(2).view(Sub)
    assert array_info(sub) == ("numpy", "float64", (2,))
    assert array_kind(np.ma.masked_array([1, 2])) == "numpy"
    for scalar in (np.float32(1.0), np.int8(3), np.bool_(True)):
        assert array_info(scalar) is None
        assert array_kind(scalar) is None
        assert dtype_of(scalar) is None


def test_numpy_unmodelled_dtypes_use_the_scalar_type_name():
    assert array_info(np.zeros(2, dtype=object)) == ("numpy", "object_", (2,))
    assert info_of(np.zeros(2, dtype="U3"))[1] == "str_"
    assert info_of(np.zeros(2, dtype=np.longdouble))[1] == "longdouble"
    assert dtype_of(np.zeros(2, dtype=object)) is None


def test_numpy_ml_dtypes_arrays():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert array_info(np.zeros(2, dtype=ml_dtypes.bfloat16)) == ("numpy", "bfloat16", (2,))
    assert dtype_of(np.zeros(2, dtype=ml_dtypes.int4)) is D.int4
    assert dtype_of(np.zeros(2, dtype=ml_dtypes.float8_e4m3fn)) is D.float8_e4m3fn


# -- torch -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["float32", "bfloat16", "float8_e4m3fn", "int64", "bool", "uint16", "complex64"]
)
def test_torch_tensors(torch, name):
    x = torch.zeros((2, 3), dtype=getattr(torch, name))
    info = info_of(x)
    assert info == ("torch", name, (2, 3))
    assert type(info[2]) is tuple and all(type(n) is int for n in info[2])
    assert dtype_of(x) is D.DType(name)


def test_torch_parameter_and_subclass(torch):
    p = torch.nn.Parameter(torch.ones(4))
    assert array_info(p) == ("torch", "float32", (4,))

    class MyTensor(torch.Tensor):
        pass

    assert array_kind(torch.ones(1).as_subclass(MyTensor)) == "torch"


def test_torch_unmodelled_dtype_keeps_its_name(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        x = torch.zeros(2, dtype=torch.complex32)
    assert array_info(x) == ("torch", "complex32", (2,))
    assert dtype_of(x) is None


# -- JAX ---------------------------------------------------------------------------


def test_jax_arrays(jax):
    jnp = jax.numpy
    assert array_info(jnp.ones((2, 3))) == ("jax", "float32", (2, 3))
    assert array_info(jnp.ones(2, dtype=jnp.bfloat16)) == ("jax", "bfloat16", (2,))
    assert dtype_of(jnp.ones(2, dtype=jnp.int8)) is D.int8


def test_jax_keys(jax):
    k = jax.random.key(0)
    assert array_info(k) == ("jax", "key<fry>", ())
    assert dtype_of(k) is D.key
    assert array_info(jax.random.split(k, 3)) == ("jax", "key<fry>", (3,))
    assert array_info(jax.random.PRNGKey(0)) == ("jax", "uint32", (2,))


def test_jax_tracers(jax):
    seen = []

    def record(x):
        seen.append((array_kind(x), array_info(x)))
        return x

    jax.jit(record)(jax.numpy.ones((2, 3)))
    jax.vmap(record)(jax.numpy.ones((5, 3)))
    jax.grad(lambda x: record(x).sum())(jax.numpy.ones(4))
    assert seen == [
        ("jax", ("jax", "float32", (2, 3))),
        ("jax", ("jax", "float32", (3,))),
        ("jax", ("jax", "float32", (4,))),
    ]


def test_jax_symbolic_dims_are_kept(jax):
    export = pytest.importorskip("jax.export")
    (b,) = export.symbolic_shape("b")
    seen = []

    def record(x):
        seen.append(array_info(x))
        return x

    export.export(jax.jit(record))(jax.ShapeDtypeStruct((b, 3), jax.numpy.float32))
    kind, name, shape = seen[0]
    assert (kind, name, shape[1]) == ("jax", "float32", 3)
    assert shape[0] is not None and type(shape[0]) is not int
    assert str(shape[0]) == "b"


# -- TensorFlow and MLX, recognised by module name -------------------------------------


def foreign_class(module: str, name: str, namespace: dict, bases: tuple = ()) -> type:
    """A class that looks, by module and name, like another library's."""
    cls = type(name, bases, namespace)
    cls.__module__ = module
    return cls


class _TFShape:
    def __init__(self, dims):
        self._dims = dims

    def __iter__(self):
        return iter(self._dims)


def _tf_init(self, dims, dtype):
    self.shape = _TFShape(dims)
    self.dtype = TFDType(dtype)


def _mlx_init(self, dims, dtype):
    self.shape = list(dims)
    self.dtype = MLXDtype(dtype)


TFDType = foreign_class(
    "tensorflow.python.framework.dtypes",
    "DType",
    {"__init__": lambda self, name: setattr(self, "name", name)},
)
TFTensor = foreign_class("tensorflow.python.framework.tensor", "Tensor", {"__init__": _tf_init})
EagerTensor = foreign_class("tensorflow.python.framework.ops", "EagerTensor", {}, (TFTensor,))
MLXDtype = foreign_class(
    "mlx.core",
    "Dtype",
    {
        "__init__": lambda self, name: setattr(self, "_name", name),
        "__str__": lambda self: f"mlx.core.{self._name}",
    },
)
MLXArray = foreign_class("mlx.core", "array", {"__init__": _mlx_init})


def test_tensorflow_by_module_name():
    assert array_info(EagerTensor((2, None), "bfloat16")) == ("tensorflow", "bfloat16", (2, None))
    assert dtype_of(EagerTensor((1,), "float64")) is D.float64
    assert info_of(EagerTensor((1,), "string"))[1] == "string"


def test_mlx_by_module_name():
    assert array_info(MLXArray((4, 5), "float16")) == ("mlx", "float16", (4, 5))
    assert info_of(MLXArray((), "bool"))[1] == "bool"
    assert info_of(MLXArray((1,), "some_new_type"))[1] == "some_new_type"


# -- duck arrays and non-arrays ----------------------------------------------------


class MyDuckArray:
    def __init__(self, shape=(3, 4, 5), dtype="my_dtype"):
        self.shape = shape
        self.dtype = dtype


class Exploding:
    @property
    def shape(self):
        raise RuntimeError("no shape today")

    dtype = "float32"


def test_duck_arrays():
    x = MyDuckArray()
    assert array_info(x) == ("duck", "my_dtype", (3, 4, 5))
    assert array_kind(x) == "duck"
    assert dtype_of(x) is None
    assert dtype_of(MyDuckArray((2,), "float32")) is D.float32
    assert array_info(MyDuckArray((2,), "key<fry>")) == ("duck", "key<fry>", (2,))


@pytest.mark.parametrize(
    "bad",
    [
        MyDuckArray(shape=[3, 4]),
        MyDuckArray(shape=(3, 4.0)),
        MyDuckArray(shape=(3, None)),
        MyDuckArray(dtype=np.dtype("float32")),
        MyDuckArray(dtype=None),
        Exploding(),
    ],
)
def test_not_quite_duck_arrays(bad):
    assert array_info(bad) is None
    assert array_kind(bad) is None
    assert dtype_of(bad) is None


def test_duck_check_is_per_value_not_per_type():
    assert array_kind(MyDuckArray()) == "duck"
    assert array_kind(MyDuckArray(shape="3 4")) is None
    assert array_kind(MyDuckArray((1,))) == "duck"


@pytest.mark.parametrize(
    "value",
    [3, 2.5, "float32", [1, 2], (1, 2), None, {"shape": (1,)}, object(), np.float32, D.float32],
)
def test_non_arrays(value):
    assert array_info(value) is None
    assert array_kind(value) is None
    assert dtype_of(value) is None


def test_kinds_listed():
    assert ARRAY_KINDS == ("numpy", "torch", "jax", "tensorflow", "mlx", "duck")


# -- importing nothing heavy -----------------------------------------------------------


def test_numpy_path_imports_no_array_library(run_python):
    run_python("""
        import sys
        import numpy as np
        import tensortypes.core.arrays, tensortypes.core.dtypes
        from tensortypes.core.arrays import array_info, dtype_of
        assert array_info(np.zeros((2, 3), dtype="f4")) == ("numpy", "float32", (2, 3))
        assert dtype_of(np.zeros(1)) is tensortypes.core.dtypes.float64
        assert tensortypes.core.dtypes.as_dtype("bfloat16").name == "bfloat16"
        heavy = {"torch", "jax", "jaxlib", "tensorflow", "mlx", "ml_dtypes"} & set(sys.modules)
        assert not heavy, heavy
    """)


def test_works_with_array_libraries_blocked(run_python):
    run_python("""
        import sys
        for name in ("torch", "jax", "jaxlib", "tensorflow", "mlx", "ml_dtypes"):
            sys.modules[name] = None
        import numpy as np
        from tensortypes.core.arrays import array_info
        from tensortypes.core.dtypes import as_dtype, bfloat16
        assert array_info(np.ones(2, dtype=np.int8)) == ("numpy", "int8", (2,))
        assert bfloat16.numpy is None and as_dtype("bfloat16") is bfloat16
    """)


# -- values whose attributes misbehave: one guarded extraction ----------------------------


def _raise(self):
    raise RuntimeError("boom")


def test_broken_attributes_make_no_array_whatever_the_kind():
    from tensortypes.core.arrays import loose_info

    fake_torch = {"__module__": "torch"}
    broken = [
        np.zeros(2).view(type("S", (np.ndarray,), {"shape": property(_raise)})),
        np.zeros(2).view(type("S", (np.ndarray,), {"shape": property(lambda s: None)})),
        np.zeros(2).view(type("S", (np.ndarray,), {"shape": property(lambda s: [2])})),
        np.zeros(2).view(type("S", (np.ndarray,), {"shape": property(lambda s: (-1,))})),
        np.zeros(2).view(type("S", (np.ndarray,), {"shape": property(lambda s: (2.0,))})),
        np.zeros(2).view(type("S", (np.ndarray,), {"shape": property(lambda s: (10**30,))})),
        np.zeros(2).view(type("S", (np.ndarray,), {"shape": property(lambda s: (1,) * 65)})),
        np.zeros(2).view(type("S", (np.ndarray,), {"dtype": property(lambda s: "float64")})),
        type("Tensor", (), {**fake_torch, "shape": property(_raise), "dtype": "float32"})(),
        type("Tensor", (), {**fake_torch, "shape": (2,), "dtype": property(_raise)})(),
        type("Tensor", (), {**fake_torch, "shape": (i for i in (2,)), "dtype": "float32"})(),
        type("Tensor", (), fake_torch)(),
    ]
    for value in broken:
        assert array_info(value) is None, value
        assert array_kind(value) is None
        assert loose_info(value) is None  # not read again as a duck array


def test_sizes_are_normalised_and_library_shapes_kept():
    sub = type("S", (np.ndarray,), {"shape": property(lambda s: (np.int64(2), np.int8(3)))})
    info = info_of(np.zeros((2, 3)).view(sub))
    assert info == ("numpy", "float64", (2, 3)) and all(type(d) is int for d in info[2])
    mlx = type("array", (), {"__module__": "mlx.core", "shape": [2, 3], "dtype": "float32"})
    assert array_info(mlx()) == ("mlx", "float32", (2, 3))
    tf_shape = type("TensorShape", (), {"__iter__": lambda s: iter([None, 3])})
    tf = type(
        "Tensor", (), {"__module__": "tensorflow.python", "shape": tf_shape(), "dtype": "float32"}
    )
    assert array_info(tf()) == ("tensorflow", "float32", (None, 3))


def test_native_kind_trusts_only_the_librarys_own_attributes():
    from tensortypes.core.arrays import memory_info, native_kind

    assert native_kind(np.ndarray) == "numpy" and native_kind(np.matrix) == "numpy"
    assert native_kind(type("Plain", (np.ndarray,), {})) == "numpy"
    assert native_kind(type("S", (np.ndarray,), {"shape": property(lambda s: (1,))})) is None
    assert native_kind(type("G", (np.ndarray,), {"__getattribute__": _raise})) is None
    assert (
        native_kind(type("Tensor", (), {"__module__": "torch", "shape": (1,), "dtype": "float32"}))
        is None
    )
    assert native_kind(int) is None
    odd = np.zeros((2, 3), np.int8).view(type("S", (np.ndarray,), {"shape": property(_raise)}))
    assert memory_info(odd) == ("numpy", "int8", (2, 3)) and memory_info([1]) is None
