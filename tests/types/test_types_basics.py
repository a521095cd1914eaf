"""Construction, interning, immutability, printing and the graph.Type contract of the
type language's classes."""

from __future__ import annotations

import copy
import pickle

import pytest

import tensortypes.types as T
from tensortypes.errors import TypeCheckError
from tensortypes.graph import Constant, Type, Variable


ALL_SAMPLES = [
    T.ANY,
    T.NONE,
    T.INT,
    T.FLOAT,
    T.COMPLEX,
    T.BOOL,
    T.STR,
    T.NUMBER,
    T.ListType(T.INT),
    T.DictType(T.STR, T.TENSOR),
    T.TupleType([T.INT, T.STR]),
    T.TupleType([]),
    T.VarTupleType(T.INT),
    T.OptionalType(T.INT),
    T.UnionType([T.INT, T.STR, T.NONE]),
    T.FutureType(T.INT),
    T.RRefType(T.INT),
    T.NamedTupleType("Pair", [("a", T.INT), ("b", T.STR)]),
    T.TENSOR,
    T.ArrayType("numpy", "float32", (2, None)),
    T.DEVICE,
    T.DTYPE,
    T.STREAM,
    T.GENERATOR,
    T.LiteralType([1, "a"]),
    T.CallableType([T.INT], T.STR),
    T.CallableType(None, T.INT),
    T.TypeVarType("T", bound=T.INT),
    T.NewTypeType("UserId", T.INT),
    T.AnnotatedType(T.INT, ["meta"]),
    T.SetType(T.INT),
    T.FrozenSetType(T.STR),
    T.TypeOfType(T.INT),
    T.TypedDictType("Movie", [("name", T.STR)]),
]


@pytest.mark.parametrize("t", ALL_SAMPLES, ids=str)
def test_every_type_is_an_interned_graph_type(t):
    assert isinstance(t, Type) and isinstance(t, T.LatticeType)
    assert t.clone() is t
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    assert pickle.loads(pickle.dumps(t)) is t
    assert hash(t) == hash(t) and t == t


@pytest.mark.parametrize("t", ALL_SAMPLES, ids=str)
def test_types_are_immutable(t):
    with pytest.raises(AttributeError, match="immutable"):
        t.anything = 1
    with pytest.raises(AttributeError, match="immutable"):
        del t._py


def test_construction_returns_the_same_object():
    assert T.ListType(T.INT) is T.ListType(T.INT)
    assert T.TupleType([T.INT, T.STR]) is T.TupleType((T.INT, T.STR))
    assert T.IntType() is T.INT and T.AnyType() is T.ANY
    assert T.ArrayType("torch", ["float32"], [2, 3]) is T.ArrayType("torch", "float32", (2, 3))
    assert T.DictType(T.STR, T.INT) is not T.DictType(T.INT, T.STR)


@pytest.mark.parametrize(
    "t, python, torchscript",
    [
        (T.ANY, "Any", "Any"),
        (T.NONE, "NoneType", "NoneType"),
        (T.NUMBER, "number", "Scalar"),
        (T.ListType(T.TENSOR), "List[Tensor]", "Tensor[]"),
        (T.DictType(T.STR, T.TENSOR), "Dict[str, Tensor]", "Dict(str, Tensor)"),
        (T.TupleType([T.INT, T.STR]), "Tuple[int, str]", "(int, str)"),
        (T.TupleType([]), "Tuple[()]", "()"),
        (T.TupleType([T.INT]), "Tuple[int]", "(int)"),
        (T.OptionalType(T.INT), "Optional[int]", "int?"),
        (T.OptionalType(T.ListType(T.INT)), "Optional[List[int]]", "int[]?"),
        (T.ListType(T.OptionalType(T.INT)), "List[Optional[int]]", "int?[]"),
        (T.UnionType([T.STR, T.INT]), "Union[int, str]", "Union(int, str)"),
        (
            T.UnionType([T.STR, T.INT, T.NONE]),
            "Union[int, NoneType, str]",
            "Union(int, NoneType, str)",
        ),
        (
            T.UnionType([T.FutureType(T.INT), T.INT]),
            "Union[Future[int], int]",
            "Union(Future(int), int)",
        ),
        (T.FutureType(T.INT), "Future[int]", "Future[int]"),
        (T.VarTupleType(T.INT), "Tuple[int, ...]", "Tuple[int, ...]"),
        (T.NamedTupleType("P", [("a", T.INT)]), "P", "NamedTuple(a : int)"),
        (T.TENSOR, "Tensor", "Tensor"),
        (T.DEVICE, "Device", "Device"),
        (T.DTYPE, "dtype", "ScalarType"),
        (T.ArrayType("torch", "float32"), 'Float32[Tensor, "..."]', "FloatTensor"),
        (T.ArrayType("torch", "int64", (2, None)), 'Int64[Tensor, "2 ?"]', "Long(2, *)"),
        (T.ArrayType("torch", None, (2, 3)), 'Shaped[Tensor, "2 3"]', "Tensor(2, 3)"),
        (T.LiteralType(["a", 1]), "Literal[1, 'a']", "Literal[1, 'a']"),
        (
            T.CallableType([T.INT], T.OptionalType(T.STR)),
            "Callable[[int], Optional[str]]",
            "Callable[[int], str?]",
        ),
        (T.SetType(T.INT), "Set[int]", "Set[int]"),
        (T.TypeOfType(T.INT), "Type[int]", "Type[int]"),
    ],
)
def test_printing_in_both_notations(t, python, torchscript):
    assert str(t) == python and repr(t) == python
    assert t.torchscript_str() == torchscript


def test_union_is_canonical():
    u = T.UnionType([T.STR, T.UnionType([T.INT, T.NONE]), T.INT])
    assert u is T.UnionType([T.NONE, T.INT, T.STR])
    assert u.members == (T.INT, T.NONE, T.STR)  # TorchScript's order: by kind
    assert T.UnionType([T.INT]) is T.INT
    assert T.UnionType([T.INT, T.ANY]) is T.ANY
    assert T.UnionType([T.INT, T.NUMBER]) is T.NUMBER
    assert T.UnionType([T.INT, T.FLOAT, T.COMPLEX]) is T.NUMBER
    assert T.UnionType([T.BOOL, T.INT]).members == (T.INT, T.BOOL)  # bool is not below int
    assert T.UnionType([T.LiteralType([1]), T.LiteralType([2])]) is T.LiteralType([1, 2])
    assert T.UnionType([T.LiteralType([1]), T.INT]) is T.INT


def test_optional_is_the_union_with_none():
    opt = T.OptionalType(T.INT)
    assert isinstance(opt, T.OptionalType) and isinstance(opt, T.UnionType)
    assert opt is T.UnionType([T.NONE, T.INT]) and opt.element is T.INT
    assert T.OptionalType(opt) is opt and T.OptionalType(T.NONE) is T.NONE
    bigger = T.OptionalType(T.UnionType([T.INT, T.STR]))
    assert type(bigger) is T.UnionType and bigger.can_hold_none
    assert bigger.without_none() is T.UnionType([T.INT, T.STR])


def test_union_merges_array_dtype_sets():
    f32 = T.ArrayType("torch", "float32", (2,))
    f64 = T.ArrayType("torch", "float64", (2,))
    merged = T.UnionType([f32, f64])
    assert merged is T.ArrayType("torch", ["float32", "float64"], (2,))
    assert str(merged) == 'Union[Float32[Tensor, "2"], Float64[Tensor, "2"]]'
    assert T.ann_to_type(str(T.ListType(T.INT))) is T.ListType(T.INT)


@pytest.mark.parametrize(
    "bad, match",
    [
        (lambda: T.ListType(int), "must be a type"),
        (lambda: T.TupleType(T.INT), "iterable"),
        (lambda: T.DictType(T.STR, "int"), "must be a type"),
        (lambda: T.UnionType([]), "at least one"),
        (lambda: T.UnionType(T.INT), "iterable"),
        (lambda: T.NamedTupleType("P", [("a", T.INT), ("a", T.STR)]), "duplicate"),
        (lambda: T.NamedTupleType("P", [("not valid", T.INT)]), "identifier"),
        (lambda: T.LiteralType([1.5]), "Literal value"),
        (lambda: T.LiteralType([]), "at least one"),
        (lambda: T.TypeVarType("T", bound=T.INT, constraints=[T.INT, T.STR]), "not both"),
        (lambda: T.TypeVarType("T", constraints=[T.INT]), "single constraint"),
        (lambda: T.AbcType(list, [T.INT]), "collections.abc"),
        (lambda: T.ArrayType("cupy"), "kind"),
        (lambda: T.ArrayType("torch", [], None), "dtype"),
        (lambda: T.ClassType(3), "class"),
        (lambda: T.EnumClassType(int), "enum"),
    ],
)
def test_bad_construction_raises_a_clear_error(bad, match):
    with pytest.raises((TypeError, ValueError), match=match):
        bad()


def test_filter_is_check_value():
    t = T.ListType(T.INT)
    assert t.filter([1, 2]) == [1, 2]
    with pytest.raises(TypeCheckError, match=r"at \[1\]: expected int, got str 'a'"):
        t.filter([1, "a"])
    assert t.is_valid_value([1]) is True and t.is_valid_value(["a"]) is False
    assert t.value_validity_msg([1]) == "valid"
    assert "expected List[int]" in t.value_validity_msg(3)


def test_variables_and_constants_of_a_type():
    t = T.DictType(T.STR, T.INT)
    x = t("x")
    assert isinstance(x, Variable) and x.type is t and x.name == "x"
    c = t.make_constant({"a": 1})
    assert isinstance(c, Constant) and c.data == {"a": 1}
    with pytest.raises(TypeCheckError):
        t.make_constant({"a": "b"})
    assert t.filter_variable(x) is x
    with pytest.raises(TypeError, match="Cannot convert"):
        t.filter_variable(T.INT("y"))


def test_is_super_and_in_same_class():
    assert T.OptionalType(T.INT).is_super(T.INT) is True
    assert T.INT.is_super(T.OptionalType(T.INT)) is False
    assert T.INT.in_same_class(T.INT) and not T.INT.in_same_class(T.FLOAT)
    assert T.ListType(T.INT).convert_variable(T.ListType(T.INT)("v")) is not None


def test_values_eq_never_crashes_on_arrays():
    np = pytest.importorskip("numpy")
    assert T.ANY.values_eq(np.zeros(2), np.zeros(2)) is False  # ambiguous truth value
    assert T.ANY.values_eq(1, 1) is True


def test_contained():
    assert T.DictType(T.STR, T.INT).contained() == (T.STR, T.INT)
    assert T.INT.contained() == ()
