"""Module instance types under TorchScript's type system, with the spec's example #49650."""

from __future__ import annotations

import pytest

import tensortypes.types as T
from tensortypes.errors import AnnotationError, TypeCheckError

I, F = T.INT, T.FLOAT

torch = pytest.importorskip("torch")


class SpecSubModule(torch.nn.Module):  # the spec's TestSubModule
    def __init__(self):
        super().__init__()
        self.v = torch.rand((2, 3))

    def forward(self):
        return self.v


class SpecModule(torch.nn.Module):  # the spec's TestModule
    sub: SpecSubModule  # TorchScript's type system, issue #49650: this annotation must be accepted

    def __init__(self):
        super().__init__()
        self.sub = SpecSubModule()

    def forward(self):
        return self.sub()


class Declared(torch.nn.Module):
    weight: torch.Tensor
    size: int

    def __init__(self, size: int):
        super().__init__()
        self.size = size
        self.weight = torch.zeros(size)
        self.scale = 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.weight


def test_module_instance_classes_under_torchscript():
    # A module class whose attributes have no static type is an instance class:
    # not an annotation (as in TorchScript) ...
    with pytest.raises(AnnotationError, match="instance class.*attributes v"):
        T.ann_to_type(SpecSubModule, torchscript=True)
    # ... except as the annotated attribute of a module (#49650) ...
    module = T.ModuleType.from_class(SpecModule, torchscript=True)
    assert module.attribute("sub") is T.ModuleType.from_class(SpecSubModule, torchscript=True)
    assert T.ann_to_type(SpecModule, torchscript=True) is module
    # ... or when every attribute is declared statically.
    declared = T.ann_to_type(Declared, torchscript=True)
    assert dict(declared.attributes) == {"size": I, "weight": T.TENSOR, "scale": F}
    assert declared.attribute("forward") is T.CallableType([T.TENSOR], T.TENSOR)


def test_module_types_from_instances():
    a, b = T.infer_type(SpecModule()), T.infer_type(Declared(3))
    assert isinstance(a, T.ModuleType) and a.attribute("sub").attribute("v") is T.ArrayType(
        "torch", "float32", (2, 3)
    )
    assert b.attribute("weight") is T.ArrayType("torch", "float32", (3,))
    assert T.infer_type(Declared(4)) is not b  # instances of one class, different schemas
    assert T.is_instance(Declared(3), b) and not T.is_instance(Declared(4), b)
    assert T.is_subtype(b, T.ann_to_type(Declared)) is False  # weight: exact vs Tensor
    assert T.is_subtype(b, T.ClassType(Declared)) is True
    with pytest.raises(AttributeError, match="Declared has no attribute 'nope'"):
        b.attribute("nope")


class Branchy(torch.nn.Module):  # x-transformers' AttentionLayers: rel_pos is None or a module
    def __init__(self, rel_pos: bool = False):
        super().__init__()
        self.rel_pos = None
        if rel_pos:
            self.rel_pos = torch.nn.Linear(2, 2)


def test_module_class_annotation_is_nominal_for_values():
    # Python's meaning of an annotation naming a class: an instance of it. The schema
    # read from __init__ (first assignment, TorchScript's rule) is not held against
    # a value, which could have reassigned anything since.
    t = T.ann_to_type(Branchy)
    assert t.nominal and dict(t.attributes)["rel_pos"] is T.NONE
    for value in (Branchy(), Branchy(rel_pos=True)):
        assert T.is_instance(value, t)
        assert T.check_value(value, t) is value
    assert not T.is_instance(Declared(3), t)
    with pytest.raises(TypeCheckError):
        T.check_value(Declared(3), t)
    # Inferred from an instance, the type stays structural (test above), and so does
    # TorchScript's.
    assert not T.infer_type(Branchy()).nominal
    assert not T.ModuleType.from_class(Branchy, torchscript=True).nominal
