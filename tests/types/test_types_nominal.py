"""Nominal types: class schemas read without running them, modules (TorchScript's type system, #49650),
enums, interfaces."""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import List, Optional

import pytest

import tensortypes.types as T
from tensortypes.types.schema import class_schema

I, F, S, A = T.INT, T.FLOAT, T.STR, T.ANY

calls = []


class Node:
    label: str
    count = 0

    def __init__(self, value: int, parent: Optional["Node"] = None, *, tag=None):
        calls.append("init")  # must never run
        self.value = value
        self.parent = parent
        self.children: List[Node] = []
        self.weights = {"a": 1.0}
        if value > 0:
            self.sign = 1
        self.tag = tag
        self.cache = compute()
        self.value = "shadowed"  # only the first assignment counts

    def depth(self, limit: int = 10) -> int:
        return 0

    @staticmethod
    def make(value: int) -> "Node":
        return Node(value)

    @classmethod
    def root(cls) -> "Node":
        return cls(0)

    @property
    def name(self) -> str:
        return ""

    def broken(self, x: "Missing") -> None:  # noqa: F821 (deliberately unresolvable)
        pass

    def __call__(self, x: float) -> float:
        return x


def compute():
    return 1


def test_class_schema_is_read_without_running_the_class():
    node = T.ClassType(Node)
    assert node.attribute("value") is I
    assert node.attribute("parent") is T.OptionalType(node)
    assert node.attribute("children") is T.ListType(node)
    assert node.attribute("weights") is T.DictType(S, F)
    assert node.attribute("sign") is I  # found inside an if block
    assert node.attribute("label") is S and node.attribute("count") is I
    assert node.attribute("name") is S  # a property's return annotation
    assert node.attribute("depth") is T.CallableType([I], I)
    assert node.attribute("make") is T.CallableType([I], node)
    assert node.attribute("root") is T.CallableType([], node)
    assert node.attribute("__call__") is T.CallableType([F], F)
    assert calls == []


def test_attribute_errors_name_the_class_and_the_attribute():
    node = T.ClassType(Node)
    with pytest.raises(AttributeError, match=r"Node has no attribute 'nope'"):
        node.attribute("nope")
    with pytest.raises(TypeError, match=r"Node.cache cannot be resolved: .*compute\(\)"):
        node.attribute("cache")
    with pytest.raises(TypeError, match=r"Node.tag cannot be resolved: parameter 'tag'"):
        node.attribute("tag")
    with pytest.raises(TypeError, match=r"Node.broken\(\) cannot be resolved"):
        node.attribute("broken")
    assert node.methods["depth"].checkable and not node.methods["broken"].checkable
    assert "Missing" in node.methods["broken"].reason


def test_a_class_is_a_type_even_when_parts_do_not_resolve():
    # The spec's proposal: only what is used must resolve.
    assert T.ann_to_type(Node, torchscript=True) is T.ClassType(Node)
    assert T.is_instance(object.__new__(Node), T.ClassType(Node))


def test_classes_without_source_use_annotations_alone():
    namespace: dict = {"__name__": "repl"}
    exec("class Repl:\n    x: int\n    def __init__(self):\n        self.y = 1\n", namespace)
    repl = T.ClassType(namespace["Repl"])
    assert repl.attribute("x") is I
    with pytest.raises(AttributeError, match="no attribute 'y'"):
        repl.attribute("y")


@dataclasses.dataclass
class Point:
    x: int
    y: float = 0.0


def test_dataclasses_are_class_types_with_fields():
    point = T.ann_to_type(Point)
    assert point.is_dataclass and point.schema.fields == ("x", "y")
    assert point.attribute("y") is F
    assert T.is_instance(Point(1), point)


class Greeter:
    def greet(self, name: str) -> str: ...


class English:
    def greet(self, name: str) -> str:
        return "hello " + name


def test_interfaces():
    iface = T.InterfaceType(Greeter)
    assert iface.torchscript_str() == "InterfaceType<Greeter>"
    assert set(iface.methods) == {"greet"}
    assert T.is_subtype(T.ClassType(English), iface) is True
    assert T.is_instance(English(), iface) and not T.is_instance(3, iface)


class Animal(enum.Enum):
    CAT = "cat"
    DOG = "dog"


class Base(enum.Enum):
    def describe(self) -> str:
        return self.name


class Derived(Base):
    ONE = 1


def test_enums():
    animal = T.EnumClassType(Animal)
    assert animal.value_type is S and animal.names == ("CAT", "DOG")
    assert T.ann_to_type(Derived, torchscript=True) is T.EnumClassType(Derived)
    assert T.is_subtype(T.EnumClassType(Derived), T.EnumClassType(Base)) is True


def test_schema_cache_and_self_reference():
    assert class_schema(Node) is class_schema(Node)
    assert typing.get_type_hints(Node)["label"] is str  # the class itself is untouched
