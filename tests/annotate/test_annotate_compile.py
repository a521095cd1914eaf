"""Lattice array types and annotations to matchers (``annotate._compile``): one
conversion shared by the runtime checker and the PyTree leaf checks."""

from __future__ import annotations

import typing
from typing import Optional

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.annotate import (
    Bindings,
    Float,
    Float32,
    Int,
    Matcher,
    Shaped,
    annotation_matchers,
    matcher_for,
)
from tensortypes.annotate._compile import WALKED, has_arrays, scope_aware, type_parts
from tensortypes.core.shapes import DimSpec, ShapePattern
from tensortypes.errors import AnnotationError
from tensortypes.types import (
    INT,
    STR,
    TENSOR,
    ArrayType,
    DictType,
    FutureType,
    ListType,
    NewTypeType,
    OptionalType,
    TupleType,
    TypeVarType,
    ann_to_type,
)


def test_matcher_for_an_array_type_checks_kind_dtype_and_shape():
    m = matcher_for(ArrayType("numpy", "float32", (2, None)))
    assert isinstance(m, Matcher)
    assert m.match(np.zeros((2, 7), np.float32), None)
    assert not m.match(np.zeros((3, 7), np.float32), None)
    assert not m.match(np.zeros((2, 7), np.float64), None)
    assert not m.match([[0.0] * 7] * 2, None)
    assert "axis 0" in m.explain(np.zeros((3, 7), np.float32))


def test_matcher_for_is_built_once_per_type():
    t = ArrayType("numpy", None, ShapePattern([DimSpec("var", "n")]))
    assert matcher_for(t) is matcher_for(
        ArrayType("numpy", None, ShapePattern([DimSpec("var", "n")]))
    )


def test_matcher_for_an_annotation_is_its_own_matcher():
    A = Float[np.ndarray, "b {k}"]
    assert matcher_for(A) is A._tt_matcher
    assert A._tt_matcher.templated and not Float[np.ndarray, "b k"]._tt_matcher.templated


def test_overrides_win_over_the_type():
    A = Shaped[np.ndarray, "{k}"]
    m = matcher_for(A.type, {A.type: A._tt_matcher})
    assert m is A._tt_matcher
    assert matcher_for(A.type, {}) is not A._tt_matcher  # the type alone reads {k} as _
    assert matcher_for(A.type).match(np.zeros(9), None)


def test_matcher_for_refuses_what_is_not_an_array_type():
    for bad in (INT, "n", None, np.ndarray):
        with pytest.raises(TypeError, match="ArrayType or an array annotation"):
            matcher_for(bad)


def test_graph_form_sizes_unknown_matches_anything_and_rigid_binds_per_call():
    unknown = matcher_for(ArrayType("numpy", None, (None, 3)))
    assert unknown.match(np.zeros((5, 3)), None) and unknown.match(np.zeros((1, 3)), None)
    rigid = ArrayType("numpy", None, ("n", "n"))
    assert [s.kind for s in rigid.shape.specs] == ["rigid", "rigid"]
    m = matcher_for(rigid)
    assert m.match(np.zeros((2, 2)), None) and not m.match(np.zeros((2, 3)), None)
    b = Bindings()
    assert m.match(np.zeros((4, 4)), b) and b.sizes == {"n": 4}
    assert not m.match(np.zeros((5, 5)), b)


def test_no_shape_means_any_number_of_axes():
    m = matcher_for(ArrayType("numpy", "int64", None))
    assert all(m.match(np.zeros(s, np.int64), None) for s in [(), (3,), (2, 3, 4)])


_SHAPES = ["", "3", "n", "n n", "b c", "*batch c", "... 2", "#n 3", "_ n", "n-1 n", "2*n n", "?n"]


@settings(deadline=None)
@given(
    text=st.sampled_from(_SHAPES),
    shape=st.lists(st.integers(0, 4), max_size=4).map(tuple),
    dtype=st.sampled_from(["float32", "float64", "int64"]),
)
def test_the_type_and_its_annotation_agree(text, shape, dtype):
    # What the runtime and the PyTree leaves build from the lattice type accepts the
    # same values, and binds the same sizes, as the annotation class itself.
    for ann in (Float32[np.ndarray, text], Shaped[np.ndarray, text], Int[np.ndarray, text]):
        value = np.zeros(shape, dtype)
        from_type, from_ann = Bindings(), Bindings()
        # A '?' size is checked inside a structured PyTree: a leaf's tree path.
        from_type.treepath = from_ann.treepath = "(leaf 0 of T) "
        assert matcher_for(ann.type).match(value, from_type) == ann._tt_matcher.match(
            value, from_ann
        )
        assert from_type.sizes == from_ann.sizes


def test_annotation_matchers_finds_annotations_anywhere_in_an_annotation():
    A, B = Float[np.ndarray, "n"], Int[np.ndarray, "{k} 2"]
    found = annotation_matchers(dict[str, tuple[Optional[A], list[B]]])
    assert found == {A.type: A._tt_matcher, B.type: B._tt_matcher}
    assert annotation_matchers(int) == {} and annotation_matchers("A") == {}


def test_annotation_matchers_accumulates_into_a_map():
    A, B = Float[np.ndarray, "n"], Int[np.ndarray, "{k}"]
    into: dict = {}
    assert annotation_matchers(A, into) is into
    annotation_matchers(typing.Union[B, None], into)
    assert into == {A.type: A._tt_matcher, B.type: B._tt_matcher}
    annotation_matchers(B, into)  # the same annotation again is no conflict
    assert len(into) == 2


def test_annotations_that_differ_only_in_braces_conflict():
    a, b = Float[np.ndarray, "{k}"], Float[np.ndarray, "{m}"]
    assert a.type is b.type
    with pytest.raises(AnnotationError, match=r"differ only in their \{\.\.\.\} sizes"):
        annotation_matchers(tuple[a, b])
    with pytest.raises(AnnotationError, match="differ only"):
        annotation_matchers(tuple[a, Float[np.ndarray, "_"]])


def test_plain_annotations_with_one_type_share_it_without_conflict():
    class Half(Float32):  # another name for the same dtypes
        pass

    A, B = Float32[np.ndarray, "n"], Half[np.ndarray, "n"]
    assert A.type is B.type and A is not B
    assert annotation_matchers(tuple[A, B]) == {A.type: A._tt_matcher}


def test_type_parts():
    assert type_parts(DictType(STR, INT)) == (STR, INT)
    assert type_parts(TypeVarType("T", bound=ListType(INT))) == (ListType(INT),)
    assert type_parts(TypeVarType("T")) == ()
    assert type_parts(NewTypeType("UserId", INT)) == (INT,)
    assert type_parts(INT) == () and type_parts(object()) == ()


def test_has_arrays_sees_arrays_inside_walked_types_only():
    assert has_arrays(TENSOR)
    assert has_arrays(ListType(TENSOR)) and has_arrays(OptionalType(TENSOR))
    assert has_arrays(TupleType([INT, DictType(STR, TENSOR)]))
    assert has_arrays(TypeVarType("T", bound=TENSOR))
    assert not has_arrays(ListType(INT)) and not has_arrays(INT)
    # A future's value is not walked: its check cannot bind sizes.
    assert FutureType not in WALKED and not has_arrays(FutureType(TENSOR))
    assert has_arrays(ann_to_type(list[Float[np.ndarray, "n"]]))


def test_scope_aware_types_count_as_arrays():
    class Tree:
        def check(self, value, bindings):
            return True

        def explain(self, value, bindings, label):
            return None

    assert scope_aware(Tree()) and not scope_aware(INT) and not scope_aware(TENSOR)
    assert has_arrays(Tree())


def test_adopt_takes_over_the_sizes_of_another_scope():
    b = Bindings()
    b.bind("n", 2, ("x", 0, 1))
    trial = b.copy()
    trial.bind("m", 3, ("y", 0, 1))
    trial.broadcast = {"*b"}
    assert b.sizes == {"n": 2}
    b.adopt(trial)
    assert b.sizes == {"n": 2, "m": 3} and b.where["m"] == ("y", 0, 1)
    assert b.broadcast == {"*b"}
    saved = Bindings()
    b.adopt(saved)
    assert b.sizes == {} and b.where == {} and b.broadcast is None
