"""``is_subtype``: TorchScript's rules, their extension to arrays, and Python's rules for
the kinds TorchScript does not have."""

from __future__ import annotations

import collections.abc as abc
import enum
import typing
from typing import NamedTuple, Protocol

import pytest

import tensortypes.types as T
from tensortypes.types.relations import SUPER_RULES, concrete_type_classes, equivalent

I, F, C, B, S, N, A = T.INT, T.FLOAT, T.COMPLEX, T.BOOL, T.STR, T.NONE, T.ANY
L, D, O, U = T.ListType, T.DictType, T.OptionalType, T.UnionType


@pytest.mark.parametrize(
    "sub, sup, expected",
    [
        # primitives and number
        (I, T.NUMBER, True),
        (F, T.NUMBER, True),
        (C, T.NUMBER, True),
        (B, T.NUMBER, False),
        (B, I, False),
        (I, F, False),
        (T.NUMBER, I, False),
        # Any: everything below it, it below nothing else
        (L(I), A, True),
        (N, A, True),
        (A, I, False),
        (A, O(I), False),
        # Optional and unions
        (N, O(I), True),
        (I, O(I), True),
        (O(I), I, False),
        (O(I), U([I, S, N]), True),
        (U([I, S]), U([I, S, F]), True),
        (U([I, S]), I, False),
        (I, U([I, S]), True),
        (U([I, F]), T.NUMBER, True),
        # List and Dict invariant; Tuple, Optional and Future covariant; RRef invariant
        (L(I), L(O(I)), False),
        (L(T.TENSOR), L(A), False),
        (D(S, I), D(S, O(I)), False),
        (T.TupleType([I]), T.TupleType([O(I)]), True),
        (T.FutureType(I), T.FutureType(O(I)), True),
        (T.RRefType(I), T.RRefType(O(I)), False),
        (T.TupleType([I, S]), T.TupleType([A, A]), True),
        (T.TupleType([I, S]), T.TupleType([I, S, S]), False),
        (L(I), O(L(A)), False),
        # named tuples below the matching tuple, not the other way
        (T.NamedTupleType("P", [("a", I)]), T.TupleType([I]), True),
        (T.TupleType([I]), T.NamedTupleType("P", [("a", I)]), False),
        (T.NamedTupleType("P", [("a", I)]), T.NamedTupleType("Q", [("a", I)]), False),
        (T.NamedTupleType("P", [("a", I)]), T.NamedTupleType("P", [("a", O(I))]), True),
        (T.NamedTupleType("P", [("a", O(I))]), T.NamedTupleType("P", [("a", I)]), False),
        # Python's homogeneous tuple
        (T.TupleType([I, I]), T.VarTupleType(I), True),
        (T.TupleType([]), T.VarTupleType(S), True),
        (T.VarTupleType(I), T.TupleType([I]), False),
        (T.VarTupleType(I), T.VarTupleType(O(I)), True),
    ],
)
def test_torchscript_rules(sub, sup, expected):
    assert T.is_subtype(sub, sup) is expected
    assert sup.is_super(sub) is expected


def test_reflexive_as_an_identity_check():
    for t in (I, L(D(S, O(T.TENSOR))), T.ArrayType("numpy", "float32", ("n",))):
        assert T.is_subtype(t, t) is True


def test_literals_newtypes_annotated():
    assert T.is_subtype(T.LiteralType([1, 2]), I) is True
    assert T.is_subtype(T.LiteralType([1, "a"]), U([I, S])) is True
    assert T.is_subtype(T.LiteralType([True]), I) is False  # bool is not below int
    assert T.is_subtype(T.LiteralType([1]), T.LiteralType([1, 2])) is True
    assert T.is_subtype(T.LiteralType([1, 3]), T.LiteralType([1, 2])) is False
    assert T.is_subtype(B, T.LiteralType([True, False])) is True
    user_id = T.NewTypeType("UserId", I)
    assert T.is_subtype(user_id, I) is True and T.is_subtype(I, user_id) is False
    assert T.is_subtype(user_id, U([user_id, S])) is True
    assert T.is_subtype(T.NewTypeType("Admin", user_id), user_id) is True
    meta = T.AnnotatedType(I, ["positive"])
    assert equivalent(meta, I) is True and T.is_subtype(L(meta), L(I)) is True


def test_typevars_are_tri_state():
    bound = T.TypeVarType("T", bound=I)
    assert T.is_subtype(bound, T.NUMBER) is True
    assert T.is_subtype(bound, S) is None
    assert T.is_subtype(I, bound) is None  # depends on what T is bound to
    assert T.is_subtype(S, bound) is False
    constrained = T.TypeVarType("K", constraints=[I, S])
    assert T.is_subtype(constrained, U([I, S, F])) is True
    assert T.is_subtype(T.TypeVarType("X"), I) is None


def test_callables():
    f = T.CallableType([T.NUMBER], I)
    assert T.is_subtype(f, T.CallableType([I], T.NUMBER)) is True  # contravariant params
    assert T.is_subtype(T.CallableType([I], I), f) is False
    assert T.is_subtype(f, T.CallableType(None, I)) is True
    assert T.is_subtype(f, T.CallableType([I, I], I)) is False


def test_sets_type_of_and_abc_containers():
    assert T.is_subtype(T.SetType(I), T.SetType(O(I))) is False
    assert T.is_subtype(T.FrozenSetType(I), T.FrozenSetType(O(I))) is True
    assert T.is_subtype(T.TypeOfType(T.ClassType(MyInt)), T.TypeOfType(I)) is True
    assert T.is_subtype(T.TypeOfType(I), T.TypeOfType(T.ClassType(MyInt))) is False
    seq = T.AbcType(abc.Sequence, [O(I)])
    assert T.is_subtype(L(I), seq) is True
    assert T.is_subtype(T.TupleType([I, N]), seq) is True
    assert T.is_subtype(T.TupleType([]), seq) is True
    assert T.is_subtype(S, T.AbcType(abc.Sequence, [S])) is True
    assert T.is_subtype(D(S, I), T.AbcType(abc.Mapping, [S, T.NUMBER])) is True
    assert T.is_subtype(D(S, I), T.AbcType(abc.Mapping, [O(S), I])) is False  # keys invariant
    assert T.is_subtype(D(S, I), T.AbcType(abc.Iterable, [S])) is True  # iterates keys
    assert T.is_subtype(L(I), T.AbcType(abc.MutableSequence, [O(I)])) is False
    gen = T.AbcType(abc.Generator, [I, N, S])
    assert T.is_subtype(gen, T.AbcType(abc.Iterator, [T.NUMBER])) is True
    assert T.is_subtype(T.AbcType(abc.Coroutine, [A, A, I]), T.AbcType(abc.Awaitable, [I]))
    assert T.is_subtype(T.AbcType(abc.Iterator, [I]), L(I)) is False
    assert T.is_subtype(I, T.AbcType(abc.Hashable)) is True


class Base:
    pass


class MyInt(int):
    pass


class Child(Base):
    def close(self) -> None:
        pass


class Closer(Protocol):
    def close(self) -> None: ...


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Level(enum.IntEnum):
    LOW = 1


class Pair(NamedTuple):
    a: int


class Greeter:
    def greet(self, name: str) -> str: ...


class English:
    def greet(self, name: str) -> str:
        return "hello " + name


class Rude:
    def greet(self, name: int) -> str:
        return "?"


def test_nominal_classes_protocols_interfaces_enums():
    assert T.is_subtype(T.ClassType(Child), T.ClassType(Base)) is True
    assert T.is_subtype(T.ClassType(Base), T.ClassType(Child)) is False
    assert T.is_subtype(T.ClassType(Child), T.ProtocolType(Closer)) is True
    assert T.is_subtype(T.ClassType(Base), T.ProtocolType(Closer)) is False
    assert T.is_subtype(T.ClassType(English), T.InterfaceType(Greeter)) is True
    assert T.is_subtype(T.ClassType(Rude), T.InterfaceType(Greeter)) is False
    assert T.is_subtype(T.LiteralType([Color.RED]), T.EnumClassType(Color)) is True
    assert T.is_subtype(T.EnumClassType(Color), T.LiteralType([Color.RED, Color.GREEN])) is True
    assert T.is_subtype(T.EnumClassType(Level), I) is True  # an IntEnum is an int
    assert T.is_subtype(T.EnumClassType(Color), I) is False
    assert T.is_subtype(T.ann_to_type(Pair), T.ClassType(tuple)) is True
    assert T.is_subtype(I, T.ClassType(int)) is True
    assert T.is_subtype(T.ClassType(bool), B) is True
    assert T.is_subtype(T.ClassType(bool), I) is False  # bool is not below int


def test_typed_dicts():
    movie = T.TypedDictType("Movie", [("name", S), ("year", I)], required=["name"])
    same = T.TypedDictType("Film", [("name", S), ("year", I), ("extra", B)], required=["name"])
    assert T.is_subtype(same, movie) is True
    assert T.is_subtype(movie, same) is False
    assert T.is_subtype(D(S, S), movie) is False
    assert T.is_subtype(movie, T.AbcType(abc.Mapping, [S, A])) is True


def test_modules_compare_their_schemas():
    class Box:
        pass

    small = T.ModuleType(Box, {"size": I})
    richer = T.ModuleType(Box, {"size": I, "name": S})
    assert T.is_subtype(richer, small) is True
    assert T.is_subtype(small, richer) is False
    assert T.is_subtype(T.ModuleType(Box, {"size": F}), small) is False
    assert T.is_subtype(small, T.ClassType(Box)) is True
    assert T.is_subtype(T.ClassType(Box), small) is None  # depends on the instance


def test_every_type_class_has_a_rule():
    classes = concrete_type_classes()
    assert len(classes) >= 35
    assert all(c in SUPER_RULES for c in classes)


def test_bad_arguments():
    with pytest.raises(TypeError, match="ann_to_type"):
        T.is_subtype(int, I)
    with pytest.raises(TypeError, match="ann_to_type"):
        T.is_subtype(I, typing.List[int])
