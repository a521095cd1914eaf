"""ArrayType: kind x dtype set x shape pattern, its relations (also with the graph
TensorType) and its value checks on NumPy, torch, JAX and duck arrays."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tensortypes.types as T
from tensortypes.core.dims import symbol
from tensortypes.core.dtypes import ALL_DTYPES
from tensortypes.core.shapes import DimSpec, ShapePattern
from tensortypes.errors import AnnotationError, TypeCheckError
from tensortypes.tensor import TensorType
from tensortypes.types.arrays import class_kind, dtypes_is_super, kind_is_super, shape_is_super

F32 = "float32"


def pattern(*specs):
    return ShapePattern([DimSpec(*s) if isinstance(s, tuple) else s for s in specs])


N = ("var", "n")
ELLIPSIS_SPEC = DimSpec("anon", variadic=True)


def test_normalisation_of_the_three_coordinates():
    assert T.ArrayType(np.ndarray) is T.ArrayType("numpy")
    assert T.ArrayType("numpy", np.float32) is T.ArrayType("numpy", "float32")
    assert T.ArrayType("numpy", np.dtype("<f4")).dtypes == frozenset({"float32"})
    assert T.ArrayType("jax", "key<fry>").dtypes == frozenset({"key"})
    assert T.ArrayType("any", "my_dtype").dtypes == frozenset({"my_dtype"})  # a duck dtype
    assert T.ArrayType("any", "float").dtypes == frozenset({"float"})  # only canonical names
    every = [d.name for d in ALL_DTYPES]
    assert T.ArrayType("torch", every) is T.TENSOR
    assert T.ArrayType("torch", None, pattern(ELLIPSIS_SPEC)) is T.TENSOR
    static = T.ArrayType("numpy", F32, (2, None, "n"))
    assert static.static_shape == (2, None, symbol("n"))
    assert T.ArrayType("numpy", F32, pattern(N)).static_shape is None
    with pytest.raises(AnnotationError, match="dtype"):
        T.ArrayType("numpy", [])
    with pytest.raises(TypeError, match="kind"):
        T.ArrayType(3)
    with pytest.raises(TypeError, match="shape"):
        T.ArrayType("numpy", F32, "2 3")


@pytest.mark.parametrize(
    "dtypes, text",
    [
        (None, 'Shaped[np.ndarray, "2 3"]'),
        ("bool", 'Bool[np.ndarray, "2 3"]'),
        ("uint8", 'UInt8[np.ndarray, "2 3"]'),
        ("bfloat16", 'BFloat16[np.ndarray, "2 3"]'),
        (
            [
                "float16",
                "float32",
                "float64",
                "bfloat16",
                "float8_e4m3b11fnuz",
                "float8_e4m3fn",
                "float8_e4m3fnuz",
                "float8_e5m2",
                "float8_e5m2fnuz",
            ],
            'Float[np.ndarray, "2 3"]',
        ),
        (["int8", "float32"], 'Union[Float32[np.ndarray, "2 3"], Int8[np.ndarray, "2 3"]]'),
        (re.compile("key<.*>"), "Dtype['key<.*>'][np.ndarray, \"2 3\"]"),
    ],
)
def test_python_notation_uses_jaxtyping_names(dtypes, text):
    assert str(T.ArrayType("numpy", dtypes, (2, 3))) == text


def test_torchscript_notation_of_tensors():
    assert T.ArrayType("torch", "float64", (2, None)).torchscript_str() == "Double(2, *)"
    assert T.ArrayType("torch", "int64").torchscript_str() == "LongTensor"
    assert T.ArrayType("torch", None, (3,)).torchscript_str() == "Tensor(3)"
    assert T.ArrayType("torch", "bool", ()).torchscript_str() == "Bool()"
    assert T.ArrayType("torch", F32, pattern(N, ("fixed", 3))).torchscript_str() == "Float(n, 3)"
    assert T.ArrayType("numpy", F32).torchscript_str() == str(T.ArrayType("numpy", F32))


def test_the_chain_of_the_issue():
    exact = T.ArrayType("torch", F32, (2, 3))
    partial = T.ArrayType("torch", F32, (2, None))
    assert T.is_subtype(exact, partial) is True
    assert T.is_subtype(partial, T.TENSOR) is True
    assert T.is_subtype(exact, T.TENSOR) is True
    assert T.is_subtype(partial, exact) is False
    assert T.is_subtype(T.TENSOR, partial) is False


def test_kinds():
    torch = pytest.importorskip("torch")
    param = T.ArrayType(torch.nn.Parameter)
    assert param.kind is torch.nn.Parameter and T.ArrayType(torch.Tensor) is T.TENSOR
    assert kind_is_super("any", "torch") and kind_is_super("torch", torch.nn.Parameter)
    assert not kind_is_super(torch.nn.Parameter, "torch")
    assert not kind_is_super("numpy", "torch")
    assert class_kind(torch.nn.Parameter) == "torch" and class_kind(dict) is None
    assert T.is_subtype(param, T.TENSOR) is True
    assert T.is_subtype(T.TENSOR, param) is False
    assert T.is_subtype(T.TENSOR, T.ArrayType("any")) is True


def test_dtype_sets():
    assert dtypes_is_super(None, frozenset({"int8"})) is True
    assert dtypes_is_super(frozenset({"int8"}), None) is False
    assert dtypes_is_super(frozenset({"int8", "int16"}), frozenset({"int8"})) is True
    assert dtypes_is_super(frozenset({"int8"}), frozenset({"int8", "int16"})) is False
    keys = re.compile("key<.*>")
    assert dtypes_is_super(frozenset({keys}), frozenset({"key<fry>"})) is True
    assert dtypes_is_super(frozenset({"int8"}), frozenset({keys})) is None


def test_shape_patterns_relations():
    two_n = pattern(("fixed", 2), N)
    assert shape_is_super(two_n, (2, 5)) is True  # a pattern variable binds per value
    assert shape_is_super(two_n, (3, 5)) is False
    assert shape_is_super(two_n, None) is False
    assert shape_is_super(pattern(("var", "b"), ("anon",)), None) is False
    assert shape_is_super(pattern(DimSpec("var", "b", variadic=True)), None) is True
    rigid = ShapePattern.from_static(("n",))
    assert shape_is_super(rigid, (5,)) is None  # a rigid symbol: cannot tell
    n_n = pattern(N, N)
    assert shape_is_super(ShapePattern.from_static((None, None)), n_n) is True
    assert shape_is_super(n_n, ShapePattern.from_static((None, None))) is None
    assert shape_is_super(n_n, ShapePattern.from_static((2, 2))) is True
    assert shape_is_super(pattern(N), n_n) is False
    trailing = pattern(ELLIPSIS_SPEC, ("fixed", 3))
    assert shape_is_super(trailing, ShapePattern.from_static((4, 5, 3))) is True
    assert shape_is_super(ShapePattern.from_static((4, 3)), trailing) is False
    assert shape_is_super(trailing, trailing) is True


def test_graph_tensor_type_in_both_directions():
    graph = TensorType("float32", (5, 3))
    annotation = T.ArrayType("numpy", F32, pattern(N, ("fixed", 3)))
    assert annotation.is_super(graph) is True
    assert T.is_subtype(graph, annotation) is True
    assert T.is_subtype(graph, T.ArrayType("numpy", "float64")) is False
    assert T.is_subtype(graph, T.ArrayType("torch", F32)) is False  # graph values are ndarrays
    assert T.is_subtype(TensorType("float32", ("m", 3)), annotation) is True
    concrete = T.ArrayType("numpy", F32, (5, 3))
    assert concrete.as_tensor_type() is graph
    assert T.is_subtype(concrete, graph) is True
    assert T.ArrayType("torch", F32, (5, 3)).as_tensor_type() is None
    assert annotation.as_tensor_type() is None


def test_check_values_of_numpy_arrays():
    t = T.ArrayType("numpy", F32, pattern(N, N))
    assert T.check_value(np.zeros((2, 2), np.float32), t) is not None
    with pytest.raises(TypeCheckError, match=r"f32\[2,3\]\(numpy\)"):
        T.check_value(np.zeros((2, 3), np.float32), t)
    with pytest.raises(TypeCheckError, match=r"got f64\[2,2\]\(numpy\)"):
        T.check_value(np.zeros((2, 2)), t)
    assert not T.is_instance([[0.0]], t)
    assert T.is_instance(np.zeros(3, np.int8), T.ArrayType("any", "int8"))
    assert T.is_instance(
        np.zeros((7, 3)), T.ArrayType("numpy", None, pattern(ELLIPSIS_SPEC, ("fixed", 3)))
    )
    broadcast = T.ArrayType("numpy", None, pattern(DimSpec("fixed", 3, broadcast=True)))
    assert T.is_instance(np.zeros(1), broadcast) and not T.is_instance(np.zeros(2), broadcast)


def test_check_values_of_torch_tensors():
    torch = pytest.importorskip("torch")
    t = T.ArrayType("torch", F32, (2, None))
    assert T.is_instance(torch.zeros(2, 7), t)
    assert not T.is_instance(torch.zeros(3, 7), t)
    assert not T.is_instance(np.zeros((2, 7), np.float32), t)
    assert T.is_instance(torch.nn.Parameter(torch.zeros(2)), T.ArrayType(torch.nn.Parameter))
    assert not T.is_instance(torch.zeros(2), T.ArrayType(torch.nn.Parameter))


def test_check_values_of_jax_arrays():
    jax = pytest.importorskip("jax")
    assert T.is_instance(jax.numpy.zeros((2, 3)), T.ArrayType("jax", F32, (2, 3)))
    key = jax.random.key(0)
    assert T.is_instance(key, T.ArrayType("jax", "key", ()))
    assert T.is_instance(key, T.ArrayType("jax", re.compile("key<.*>"), ()))
    assert T.infer_type(key) is T.ArrayType("jax", "key", ())


class Duck:
    shape = (3, 4)
    dtype = "my_dtype"


def test_duck_arrays():
    t = T.ArrayType(Duck, "my_dtype", (3, 4))
    assert T.infer_type(Duck()) is t
    assert T.is_instance(Duck(), t) and T.is_instance(Duck(), T.ArrayType("any", "my_dtype"))
    assert not T.is_instance(Duck(), T.ArrayType("numpy"))
    assert not T.is_instance(Duck(), T.ArrayType(Duck, "other"))


def test_unshaped_merge_and_join_of_arrays():
    a = T.ArrayType("torch", F32, (2, 3))
    b = T.ArrayType("torch", F32, (2, 4))
    assert T.unify(a, b) is T.ArrayType("torch", F32, (2, None))
    assert T.unify(a, T.ArrayType("torch", "float64", (2, 3))) is T.ArrayType("torch", None, (2, 3))
    assert T.unify(a, T.ArrayType("numpy", F32, (2, 3))) is None
    assert T.join(a, b) is T.UnionType([a, b])
    assert T.join(a, T.TENSOR) is T.TENSOR
