"""The type language: TorchScript's types plus Python's, with arrays that carry dtype and
shape (layer 3, after ``graph``).

Types (all interned, immutable ``graph.Type`` subclasses):

- meta and primitives: ``AnyType``, ``NeverType``, ``NoneType``, ``IntType``,
  ``FloatType``, ``ComplexType``, ``BoolType``, ``StrType``, ``NumberType`` (constants
  ``ANY``, ``NEVER``, ``NONE``, ``INT``, ``FLOAT``, ``COMPLEX``, ``BOOL``, ``STR``,
  ``NUMBER``);
- structural: ``TupleType``, ``VarTupleType``, ``NamedTupleType``, ``ListType``,
  ``DictType``, ``UnionType``, ``OptionalType``, ``FutureType``, ``RRefType``;
- nominal: ``ArrayType`` (``TENSOR``), ``DeviceType``, ``DTypeType``, ``StreamType``,
  ``GeneratorType``, ``ClassType``, ``EnumClassType``, ``InterfaceType``, ``ModuleType``;
- for the runtime checker: ``LiteralType``, ``CallableType``, ``ProtocolType``,
  ``TypeVarType``, ``NewTypeType``, ``AnnotatedType``, ``TypedDictType``, ``SetType``,
  ``FrozenSetType``, ``AbcType``, ``TypeOfType``.

Operations: ``ann_to_type``, ``infer_type``, ``is_subtype``, ``join``, ``unify``,
``unify_list``, ``check_value`` (and ``is_instance``, ``explain``).

>>> from typing import List, Optional
>>> t = ann_to_type(Optional[List[int]])
>>> str(t), t.torchscript_str(), is_subtype(infer_type([1, 2]), t)
('Optional[List[int]]', 'int[]?', True)
"""

from tensortypes.types.base import LatticeType
from tensortypes.types.primitives import (
    ANY,
    BOOL,
    COMPLEX,
    FLOAT,
    INT,
    NEVER,
    NONE,
    NUMBER,
    STR,
    AnyType,
    BoolType,
    ComplexType,
    FloatType,
    IntType,
    NeverType,
    NoneType,
    NumberType,
    StrType,
)
from tensortypes.types.structural import (
    DictType,
    FutureType,
    ListType,
    NamedTupleType,
    OptionalType,
    RRefType,
    TupleType,
    UnionType,
    VarTupleType,
)
from tensortypes.types.arrays import TENSOR, ArrayType
from tensortypes.types.nominal import (
    DEVICE,
    DTYPE,
    GENERATOR,
    STREAM,
    ClassType,
    StreamType,
    DeviceType,
    DTypeType,
    EnumClassType,
    GeneratorType,
    InterfaceType,
    ModuleType,
)
from tensortypes.types.extras import (
    AnnotatedType,
    CallableType,
    LiteralType,
    NewTypeType,
    ProtocolType,
    TypedDictType,
    TypeVarType,
)
from tensortypes.types.containers import AbcType, FrozenSetType, SetType, TypeOfType
from tensortypes.types.relations import is_subtype
from tensortypes.types.joins import join, unify, unify_list
from tensortypes.types.accept import is_instance
from tensortypes.types.check import check_value, explain
from tensortypes.types.annotations import ann_to_type
from tensortypes.types.infer import infer_type
from tensortypes.types.schema import class_schema, instance_schema

__all__ = [
    "LatticeType",
    "AnyType",
    "NoneType",
    "IntType",
    "FloatType",
    "ComplexType",
    "BoolType",
    "StrType",
    "NumberType",
    "NeverType",
    "ANY",
    "NEVER",
    "NONE",
    "INT",
    "FLOAT",
    "COMPLEX",
    "BOOL",
    "STR",
    "NUMBER",
    "TupleType",
    "VarTupleType",
    "NamedTupleType",
    "ListType",
    "DictType",
    "UnionType",
    "OptionalType",
    "FutureType",
    "RRefType",
    "ArrayType",
    "TENSOR",
    "DeviceType",
    "DTypeType",
    "StreamType",
    "GeneratorType",
    "DEVICE",
    "DTYPE",
    "STREAM",
    "GENERATOR",
    "ClassType",
    "EnumClassType",
    "InterfaceType",
    "ModuleType",
    "LiteralType",
    "CallableType",
    "ProtocolType",
    "TypeVarType",
    "NewTypeType",
    "AnnotatedType",
    "TypedDictType",
    "SetType",
    "FrozenSetType",
    "AbcType",
    "TypeOfType",
    "ann_to_type",
    "infer_type",
    "is_subtype",
    "join",
    "unify",
    "unify_list",
    "check_value",
    "is_instance",
    "explain",
    "class_schema",
    "instance_schema",
]
