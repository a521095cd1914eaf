"""The dtype classes (against core.dtypes.CATEGORIES), custom AbstractDtype subclasses
with names, regexes and dtype objects, and make_numpy_struct_dtype."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

import tensortypes.annotate as A
from tensortypes.annotate import AbstractDtype, make_numpy_struct_dtype
from tensortypes.core.dtypes import ALL_DTYPES, CATEGORIES, as_dtype
from tensortypes.errors import AnnotationError

CATEGORY_CLASSES = {
    "Bool": "bool",
    "Key": "key",
    "Num": "num",
    "Inexact": "inexact",
    "Float": "floating",
    "Complex": "complex",
    "Integer": "integer",
    "UInt": "unsigned",
    "Int": "signed",
    "Real": "real",
}
SINGLE_CLASSES = {
    "BFloat16": "bfloat16",
    "Float16": "float16",
    "Float32": "float32",
    "Float64": "float64",
    "Float8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "Float8e4m3fn": "float8_e4m3fn",
    "Float8e4m3fnuz": "float8_e4m3fnuz",
    "Float8e5m2": "float8_e5m2",
    "Float8e5m2fnuz": "float8_e5m2fnuz",
    "Complex64": "complex64",
    "Complex128": "complex128",
    "UInt2": "uint2",
    "UInt4": "uint4",
    "UInt8": "uint8",
    "UInt16": "uint16",
    "UInt32": "uint32",
    "UInt64": "uint64",
    "Int2": "int2",
    "Int4": "int4",
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
}


@pytest.mark.parametrize("name, category", sorted(CATEGORY_CLASSES.items()))
def test_category_classes_hold_exactly_their_category(name, category):
    cls = getattr(A, name)
    assert issubclass(cls, AbstractDtype)
    assert set(cls.dtypes) == {d.name for d in CATEGORIES[category]}
    assert list(cls.dtypes) == [d.name for d in ALL_DTYPES if d in CATEGORIES[category]]


@pytest.mark.parametrize("name, dtype", sorted(SINGLE_CLASSES.items()))
def test_single_dtype_classes(name, dtype):
    assert getattr(A, name).dtypes == (dtype,)


def test_shaped_accepts_any_dtype_and_every_dtype_has_a_class():
    assert A.Shaped.dtypes is None
    assert set(SINGLE_CLASSES.values()) | {"bool", "key"} == {d.name for d in ALL_DTYPES}


@pytest.mark.parametrize(
    "name",
    ["Float", "Int", "Bool", "Real", "Num", "Integer", "UInt", "Inexact", "Complex", "Shaped"],
)
def test_every_numpy_dtype_is_accepted_exactly_by_its_categories(name):
    cls = getattr(A, name)
    annotation = cls[np.ndarray, "..."]
    for d in ALL_DTYPES:
        if not d.is_numpy:
            continue
        accepted = cls.dtypes is None or d.name in cls.dtypes
        assert isinstance(np.zeros(2, d.numpy), annotation) is accepted, (name, d.name)


def test_custom_dtype_with_names_regexes_and_dtype_objects():
    class Mixed(AbstractDtype):
        dtypes = ["uint8", re.compile(r"float(16|32)"), np.int16, "bool_"]

    assert Mixed.dtypes == ("uint8", re.compile(r"float(16|32)"), "int16", "bool")
    hint = Mixed[np.ndarray, "n"]
    for dtype, ok in [
        (np.uint8, True),
        (np.float16, True),
        (np.float32, True),
        (np.float64, False),
        (np.int16, True),
        (np.bool_, True),
        (np.int8, False),
    ]:
        assert isinstance(np.zeros(3, dtype), hint) is ok, dtype


def test_regex_is_a_full_match():
    class Prefix(AbstractDtype):
        dtypes = re.compile("float")

    assert not isinstance(np.zeros(1, np.float32), Prefix[np.ndarray, "n"])


def test_a_single_string_and_inheritance():
    class One(AbstractDtype):
        dtypes = "float64"

    class Child(One):
        pass

    assert One.dtypes == Child.dtypes == ("float64",)
    assert isinstance(np.zeros(1), Child[np.ndarray, "1"])


def test_torch_dtype_objects_name_their_dtypes(torch):
    class TorchInts(AbstractDtype):
        dtypes = [torch.int8, torch.int32]

    assert TorchInts.dtypes == ("int8", "int32")
    assert isinstance(torch.zeros(2, dtype=torch.int32), TorchInts[torch.Tensor, "n"])


@pytest.mark.parametrize(
    "dtypes, fragment, bad",
    [
        (["float32", "f4"], "NumPy's spelling of float32", "'f4'"),
        (["double"], "write 'float64'", "'double'"),
        (["flaot32"], "did you mean 'float32'", "'flaot32'"),
        (["float32", object()], "unknown dtype", None),
        (["float32", 3], "unknown dtype", "3"),
        (["a b"], "not a dtype name", "'a b'"),
        ([""], "not a dtype name", "''"),
        ([], "empty", None),
        ([re.compile(b"x")], "not bytes", None),
    ],
)
def test_bad_custom_dtypes_are_annotation_errors(dtypes, fragment, bad):
    with pytest.raises(AnnotationError) as info:
        type("Bad", (AbstractDtype,), {"dtypes": dtypes})
    error = info.value
    assert fragment in error.message
    if bad is not None:
        assert error.text is not None
        assert error.text[error.position : error.end] == bad


def test_duck_names_are_kept_as_written():
    class Mine(AbstractDtype):
        dtypes = ["my_dtype", "object_"]

    assert Mine.dtypes == ("my_dtype", "object_")


def test_a_custom_dtype_needs_dtypes():
    with pytest.raises(AnnotationError, match="needs a 'dtypes'"):

        class Nothing(AbstractDtype):
            pass


def test_dtype_classes_are_not_instances_or_checks():
    with pytest.raises(AnnotationError, match="cannot be instantiated"):
        A.Float32("b c")
    with pytest.raises(AnnotationError, match=r"Float\[np.ndarray, '...'\]"):
        isinstance(np.zeros(1), A.Float)


def test_subscript_needs_an_array_type_and_a_shape():
    with pytest.raises(AnnotationError, match="takes an array type and a shape"):
        A.Float[np.ndarray]
    with pytest.raises(AnnotationError, match="takes an array type and a shape"):
        A.Float[np.ndarray, "a", "b"]


def test_dtype_classes_pickle_by_reference():
    for name in ("Float", "Int8", "Shaped", "Key"):
        cls = getattr(A, name)
        assert pickle.loads(pickle.dumps(cls)) is cls


LABEL = np.dtype([("first", np.uint8), ("second", np.int8)])


def test_numpy_struct_dtype_matches_its_exact_dtype():
    Label = make_numpy_struct_dtype(LABEL, "Label")
    assert Label.__name__ == "Label" and issubclass(Label, AbstractDtype)
    assert make_numpy_struct_dtype(LABEL, "Label") is Label
    hint = Label[np.ndarray, "a b"]
    assert isinstance(np.array([[(1, 0), (0, 1)]], dtype=LABEL), hint)
    other = np.dtype([("first", np.uint8), ("third", np.int8)])
    assert not isinstance(np.zeros((1, 2), dtype=other), hint)
    assert not isinstance(np.zeros((1, 2), dtype=np.uint8), hint)
    assert "its dtype is void" in hint.__instancecheck_str__(np.zeros((1, 2), dtype=other))
    assert pickle.loads(pickle.dumps(Label)) is Label
    assert pickle.loads(pickle.dumps(hint)) is hint


@pytest.mark.parametrize(
    "dtype, name", [(np.dtype(np.float32), "F"), ("x", "F"), (LABEL, "not an identifier")]
)
def test_numpy_struct_dtype_validates_its_arguments(dtype, name):
    with pytest.raises(AnnotationError):
        make_numpy_struct_dtype(dtype, name)


def test_as_dtype_agrees_with_the_single_classes():
    for cls_name, dtype in SINGLE_CLASSES.items():
        assert as_dtype(dtype).name == getattr(A, cls_name).dtypes[0]
