"""``check_value``: Python's run-time meaning of every kind of type, and its messages."""

from __future__ import annotations

import collections
import collections.abc as abc
import enum
from typing import NamedTuple, Protocol, runtime_checkable

import pytest

import tensortypes.types as T
from tensortypes._config import config
from tensortypes.errors import TypeCheckError

I, F, S, N, B = T.INT, T.FLOAT, T.STR, T.NONE, T.BOOL


@pytest.mark.parametrize(
    "value, t, expected",
    [
        (True, I, True),
        (1, I, True),
        (1.0, I, False),
        (1, F, True),
        (1.5, F, True),
        (1, T.COMPLEX, True),
        (1.5, T.COMPLEX, True),
        ("1", F, False),
        (1j, F, False),
        (1j, T.COMPLEX, True),
        (1, B, False),
        (True, B, True),
        ("a", S, True),
        (b"a", S, False),
        (None, N, True),
        (0, N, False),
        (1, T.NUMBER, True),
        (1.5, T.NUMBER, True),
        (True, T.NUMBER, True),
        ("1", T.NUMBER, False),
        (object(), T.ANY, True),
        ([1, 2], T.ListType(I), True),
        ([1, "a"], T.ListType(I), False),
        ((1,), T.ListType(I), False),
        ((1, "a"), T.TupleType([I, S]), True),
        ((1,), T.TupleType([I, S]), False),
        ((), T.TupleType([]), True),
        ((1, 2, 3), T.VarTupleType(I), True),
        ((1, "x"), T.VarTupleType(I), False),
        ({"a": 1}, T.DictType(S, I), True),
        ({1: 1}, T.DictType(S, I), False),
        (None, T.OptionalType(I), True),
        (3, T.OptionalType(I), True),
        ("x", T.OptionalType(I), False),
        ({1}, T.SetType(I), True),
        (frozenset({1}), T.SetType(I), False),
        (frozenset({1}), T.FrozenSetType(I), True),
        (1, T.LiteralType([1, 2]), True),
        (True, T.LiteralType([1]), False),
        (1, T.LiteralType([True]), False),
        ("b", T.LiteralType(["a"]), False),
        (len, T.CallableType([T.ANY], I), True),
        (3, T.CallableType(None, T.ANY), False),
        (3, T.NewTypeType("UserId", I), True),
        ("3", T.NewTypeType("UserId", I), False),
        (3, T.AnnotatedType(I, ["positive"]), True),
        (3, T.TypeVarType("T", bound=I), True),
        ("a", T.TypeVarType("T", bound=I), False),
        ("a", T.TypeVarType("K", constraints=[I, S]), True),
        (object(), T.TypeVarType("X"), True),
        (bool, T.TypeOfType(I), True),
        (int, T.TypeOfType(B), False),
        (int, T.TypeOfType(T.ANY), True),
        (3, T.TypeOfType(I), False),
        (str, T.TypeOfType(T.UnionType([I, S])), True),
    ],
)
def test_python_semantics(value, t, expected):
    assert T.is_instance(value, t) is expected
    assert (T.explain(value, t) is None) is expected
    if expected:
        assert T.check_value(value, t) is value
    else:
        with pytest.raises(TypeCheckError, match="expected"):
            T.check_value(value, t)


def test_numeric_tower_is_on_by_default_and_a_configuration():
    assert T.is_instance(1, F) and T.is_instance(1.0, T.COMPLEX) and T.is_instance(1, T.COMPLEX)
    assert not T.is_instance(1j, F) and not T.is_instance("1", F)
    assert T.check_value([1, 2.5], T.ListType(F)) == [1, 2.5]
    config.numeric_tower = False
    assert not T.is_instance(1, F) and not T.is_instance(1.0, T.COMPLEX)
    assert T.is_instance(True, T.INT) and T.is_instance(1.5, F)


def test_a_refusal_under_strict_numbers_names_the_setting():
    config.numeric_tower = False
    for value, t in ((1, F), (1, T.COMPLEX), (2.5, T.COMPLEX), ([1], T.ListType(F))):
        with pytest.raises(TypeCheckError, match="config.numeric_tower = False") as info:
            T.check_value(value, t)
        assert T.explain(value, t) == str(info.value)
    with pytest.raises(TypeCheckError) as info:  # not a tower case: no word about it
        T.check_value("x", F)
    assert "numeric_tower" not in str(info.value)


def test_container_check_one_samples_the_first_element():
    config.container_check = "one"
    assert T.is_instance([1, "a"], T.ListType(I))
    assert not T.is_instance(["a", 1], T.ListType(I))
    assert T.explain([1, "a"], T.ListType(I)) is None
    assert T.is_instance({"a": 1, "b": "x"}, T.DictType(S, I))


def test_messages_say_where_and_what():
    with pytest.raises(TypeCheckError) as info:
        T.check_value({"a": [1, 2, "x"]}, T.DictType(S, T.ListType(I)))
    message = str(info.value)
    assert "expected Dict[str, List[int]]" in message
    assert "at ['a'][2]: expected int, got str 'x'" in message
    assert "key 3" in T.explain({3: 1}, T.DictType(S, I))


class Pair(NamedTuple):
    a: int
    b: str


def test_named_tuples():
    t = T.ann_to_type(Pair)
    assert T.is_instance(Pair(1, "x"), t)
    assert not T.is_instance((1, "x"), t)  # a plain tuple is not a Pair
    assert "at .b: expected str" in T.explain(Pair(1, 2), t)  # tensortypes: ignore[arg-type]
    plain = collections.namedtuple("plain", "a")
    by_name = T.NamedTupleType("plain", [("a", I)])
    assert T.is_instance(plain(1), by_name) and not T.is_instance((1,), by_name)


def test_typed_dicts():
    movie = T.TypedDictType("Movie", [("name", S), ("year", I)], required=["name"])
    assert T.is_instance({"name": "x"}, movie)
    assert T.is_instance({"name": "x", "year": 1}, movie)
    assert "missing required key(s) 'name'" in T.explain({"year": 1}, movie)
    assert "unexpected key 'z'" in T.explain({"name": "x", "z": 1}, movie)
    assert "at ['year']" in T.explain({"name": "x", "year": "y"}, movie)


class Color(enum.Enum):
    RED = 1


class Closer(Protocol):
    def close(self) -> None: ...


@runtime_checkable
class Sized(Protocol):
    def __len__(self) -> int: ...


class Resource:
    def close(self) -> None:
        pass


def test_nominal_and_structural_classes():
    assert T.is_instance(Color.RED, T.EnumClassType(Color))
    assert not T.is_instance(1, T.EnumClassType(Color))
    assert T.is_instance(Color.RED, T.LiteralType([Color.RED]))
    assert T.is_instance(Resource(), T.ClassType(Resource))
    assert T.is_instance(Resource(), T.ProtocolType(Closer))
    assert "lacks close" in T.explain(3, T.ProtocolType(Closer))
    assert T.is_instance([1], T.ProtocolType(Sized))


def test_abc_containers():
    seq = T.AbcType(abc.Sequence, [I])
    assert T.is_instance((1, 2), seq) and T.is_instance([1], seq)
    assert not T.is_instance([1, "a"], seq) and not T.is_instance({1}, seq)
    assert T.is_instance({"a": 1}, T.AbcType(abc.Mapping, [S, I]))
    assert not T.is_instance({"a": "b"}, T.AbcType(abc.Mapping, [S, I]))
    assert T.is_instance({"a": 1}.items(), T.AbcType(abc.ItemsView, [S, I]))
    iterator = iter([1, "a"])
    assert T.is_instance(iterator, T.AbcType(abc.Iterator, [I]))  # checked by class only
    assert next(iterator) == 1  # and not consumed
    assert T.is_instance("abc", T.AbcType(abc.Sequence, [S]))


def test_torch_builtins_are_recognised_by_name():
    torch = pytest.importorskip("torch")
    assert T.is_instance(torch.device("cpu"), T.DEVICE)
    assert T.is_instance(torch.float32, T.DTYPE) and not T.is_instance(torch.float32, I)
    assert T.is_instance(torch.Generator(), T.GENERATOR)
    assert not T.is_instance("cpu", T.DEVICE)
    future = torch.futures.Future()
    assert T.is_instance(future, T.FutureType(I)) and not T.is_instance(3, T.FutureType(I))


def test_modules_check_their_schema():
    class Box:
        def __init__(self, size):
            self.size = size

    t = T.ModuleType.from_instance(Box(3))
    assert T.is_instance(Box(4), t)
    assert "at .size: expected int" in T.explain(Box("x"), t)
    box = Box(1)
    del box.size
    assert "attribute 'size' is missing" in T.explain(box, t)


def test_foreign_types_inside_containers():
    np = pytest.importorskip("numpy")
    from tensortypes.tensor import TensorType

    t = T.ListType(TensorType("float64", (2,)))
    assert T.is_instance([np.zeros(2)], t)
    assert not T.is_instance([np.zeros(3)], t)


def test_bad_type_argument():
    with pytest.raises(TypeError, match="ann_to_type"):
        T.check_value(1, int)
