"""``infer_type``: the type of a value."""

from __future__ import annotations

import collections
import enum
from typing import NamedTuple

import numpy as np
import pytest

import tensortypes.types as T

I, F, S, N = T.INT, T.FLOAT, T.STR, T.NONE


@pytest.mark.parametrize(
    "value, expected",
    [
        (1, I),
        (1.5, F),
        (True, T.BOOL),
        ("a", S),
        (None, N),
        (1j, T.COMPLEX),
        ([1, 2, 3], T.ListType(I)),
        ({"a": 1.0, "b": 2.0}, T.DictType(S, F)),
        ([], T.ListType(T.TENSOR)),
        ({}, T.DictType(S, T.TENSOR)),
        ((1, "a"), T.TupleType([I, S])),
        ((), T.TupleType([])),
        ([None, 1], T.ListType(T.OptionalType(I))),
        ([1, None, 2], T.ListType(T.OptionalType(I))),
        ([(1, "a"), (2, None)], T.ListType(T.TupleType([I, T.OptionalType(S)]))),
        ([[1], [2, 3]], T.ListType(T.ListType(I))),
        ({1, 2}, T.SetType(I)),
        (set(), T.SetType(T.ANY)),
        (frozenset({"a"}), T.FrozenSetType(S)),
        (b"x", T.ClassType(bytes)),
        (np.zeros((2, 3), np.float32), T.ArrayType("numpy", "float32", (2, 3))),
        ([np.zeros(2), np.zeros(3)], T.ListType(T.ArrayType("numpy", "float64", (None,)))),
        (int, T.TypeOfType(I)),
    ],
)
def test_inferred_types(value, expected):
    assert T.infer_type(value) is expected


@pytest.mark.parametrize(
    "value, first, second",
    [
        ([1, "a"], "int", "str"),
        ([1, 1.0], "int", "float"),
        ([True, 1], "bool", "int"),
        ({"a": 1, "b": "x"}, "int", "str"),
        ({1: 0, "a": 0}, "int", "str"),
        ([[1], ["a"]], "List[int]", "List[str]"),
    ],
)
def test_mixed_containers_name_both_element_types(value, first, second):
    with pytest.raises(TypeError) as info:
        T.infer_type(value)
    message = str(info.value)
    assert f"{first} (the elements before" in message and f"{second} (element" in message


def test_recursive_values_are_a_type_error():
    loop: list = []
    loop.append(loop)
    with pytest.raises(TypeError, match="contains itself"):
        T.infer_type(loop)


class Color(enum.Enum):
    RED = 1


class Pair(NamedTuple):
    a: int
    b: str


class Thing:
    pass


def test_classes_enums_named_tuples():
    assert T.infer_type(Color.RED) is T.EnumClassType(Color)
    wrong = Pair(1, 2)  # tensortypes: ignore[arg-type]
    assert T.infer_type(wrong) is T.ann_to_type(Pair)  # the declared type
    plain = collections.namedtuple("plain", "x y")
    inferred = T.infer_type(plain(1, "a"))
    assert inferred is T.NamedTupleType(plain, [("x", I), ("y", S)])
    assert T.is_subtype(inferred, T.infer_type(plain("a", 1))) is False
    assert T.is_subtype(inferred, T.ann_to_type(plain)) is True  # fields Any
    assert T.infer_type(Thing()) is T.ClassType(Thing)
    assert T.infer_type(Thing) is T.TypeOfType(T.ClassType(Thing))


def test_functions():
    def f(x: int, y: "str") -> float:
        return 1.0

    def g(*args):
        return None

    assert T.infer_type(f) is T.CallableType([I, S], F)
    assert T.infer_type(g) is T.CallableType(None, T.ANY)
    assert T.infer_type(lambda x: x) is T.CallableType([T.ANY], T.ANY)
    assert T.infer_type(len) is T.CallableType([T.ANY], T.ANY)


def test_torch_values():
    torch = pytest.importorskip("torch")
    assert T.infer_type(torch.zeros(2, 3)) is T.ArrayType("torch", "float32", (2, 3))
    assert T.infer_type({"w": torch.zeros(4, dtype=torch.int64)}) is T.DictType(
        S, T.ArrayType("torch", "int64", (4,))
    )
    assert T.infer_type(torch.device("cpu")) is T.DEVICE
    assert T.infer_type(torch.float16) is T.DTYPE
    linear = T.infer_type(torch.nn.Linear(2, 3))
    assert isinstance(linear, T.ModuleType)
    assert linear.attribute("weight") is T.ArrayType("torch", "float32", (3, 2))
    assert linear.attribute("in_features") is I


def test_every_inferred_type_holds_its_value():
    for value in ([1, None], {"a": (1, 2.0)}, np.ones(3), Pair(1, "x"), {1.5}, Thing()):
        assert T.is_instance(value, T.infer_type(value))
