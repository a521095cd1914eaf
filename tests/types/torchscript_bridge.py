"""Translate TorchScript's ``torch._C`` types into ours, for the agreement corpus.

TorchScript sometimes has two objects for one type (``Optional[Union[int,
str]]`` and ``Union[int, NoneType, str]``; ``Optional[Any]`` and ``Any``) where
ours has one, so answers are compared as types, not as strings: TorchScript's
answer is translated with ``from_torch`` and must be the very same interned
type as ours.
"""

from __future__ import annotations

import re

import tensortypes.types as T

_SCALARS = {
    "Float": "float32",
    "Double": "float64",
    "Half": "float16",
    "BFloat16": "bfloat16",
    "Char": "int8",
    "Short": "int16",
    "Int": "int32",
    "Long": "int64",
    "Byte": "uint8",
    "Bool": "bool",
    "ComplexFloat": "complex64",
    "ComplexDouble": "complex128",
}
_LEAVES = {
    "AnyType": T.ANY,
    "IntType": T.INT,
    "FloatType": T.FLOAT,
    "ComplexType": T.COMPLEX,
    "BoolType": T.BOOL,
    "StringType": T.STR,
    "NoneType": T.NONE,
    "NumberType": T.NUMBER,
    "DeviceObjType": T.DEVICE,
    "StreamObjType": T.STREAM,
    "GeneratorType": T.GENERATOR,
}


def strip_mangling(text: str) -> str:
    """TorchScript names user classes ``__torch__.<module>.<qualname>``; ours print the
    qualname. Keep the last dotted component of every mangled name."""
    return re.sub(r"__torch__\.(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*)", r"\1", text)


def from_torch(t, classes: dict[str, type] | None = None):
    """Our type for the TorchScript type ``t``; ``classes`` maps qualnames of user
    classes (enums, named tuples, classes) to the classes."""
    classes = classes or {}
    kind = t.kind()
    if kind in _LEAVES:
        return _LEAVES[kind]
    if kind == "TensorType":
        scalar = t.scalarType()
        sizes = t.varyingSizes()
        return T.ArrayType(
            "torch", _SCALARS[scalar] if scalar else None, None if sizes is None else tuple(sizes)
        )
    if kind == "ListType":
        return T.ListType(from_torch(t.getElementType(), classes))
    if kind == "DictType":
        return T.DictType(
            from_torch(t.getKeyType(), classes), from_torch(t.getValueType(), classes)
        )
    if kind == "OptionalType":
        return T.UnionType([*(from_torch(x, classes) for x in t.containedTypes()), T.NONE])
    if kind == "UnionType":
        return T.UnionType([from_torch(x, classes) for x in t.containedTypes()])
    if kind == "FutureType":
        return T.FutureType(from_torch(t.getElementType(), classes))
    if kind == "RRefType":
        return T.RRefType(from_torch(t.containedTypes()[0], classes))
    if kind == "TupleType":
        elements = [from_torch(x, classes) for x in t.containedTypes()]
        if t.str().startswith("NamedTuple("):
            name = strip_mangling(t.annotation_str)
            return T.ann_to_type(classes[name], torchscript=True)
        return T.TupleType(elements)
    if kind == "EnumType":
        return T.EnumClassType(classes[strip_mangling(t.annotation_str)])
    if kind == "ClassType":
        return T.ClassType(classes[strip_mangling(t.annotation_str)])
    if kind == "InterfaceType":
        return T.InterfaceType(classes[strip_mangling(t.annotation_str)])
    raise NotImplementedError(f"no translation for TorchScript kind {kind} ({t})")
