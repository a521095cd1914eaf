"""Leaf checks (``pytree._leaves``) on the shared conversions of ``annotate``: a leaf's
arrays are matched by ``annotate.matcher_for`` (or by the annotation's own matcher,
for ``{...}`` sizes), so a leaf means what the same type means to the runtime
checker."""

from __future__ import annotations

import numpy as np
import pytest

from tensortypes.annotate import Bindings, Float, Shaped, matcher_for, scope
from tensortypes.errors import AnnotationError
from tensortypes.pytree import PyTree
from tensortypes.pytree._leaves import compile_leaf
from tensortypes.pytree.lattice import PyTreeType
from tensortypes.runtime._walk import why
from tensortypes.types import INT, ArrayType, ListType, OptionalType, TupleType


def test_an_array_leaf_uses_the_shared_matcher():
    t = ArrayType("numpy", "float64", ("n", None))
    check = compile_leaf(t)
    assert check.match == matcher_for(t).match
    b = Bindings()
    assert check.match(np.zeros((3, 5)), b) and b.sizes == {"n": 3}
    assert not check.match(np.zeros((4, 5)), b)
    assert "n=3" in check.explain(np.zeros((4, 5)), b)


@pytest.mark.parametrize(
    "t",
    [
        ArrayType("numpy", None, ("n", "n")),
        ListType(ArrayType("numpy", None, ("n",))),
        OptionalType(ArrayType("numpy", "float64", ("n", 2))),
        TupleType([INT, ArrayType("numpy", None, ("n",))]),
    ],
)
@pytest.mark.parametrize(
    "value",
    [
        np.zeros((2, 2)),
        np.zeros((2, 3)),
        np.zeros((3, 2)),
        [np.zeros(2), np.zeros(2)],
        [np.zeros(2), np.zeros(3)],
        (1, np.zeros(4)),
        ("a", np.zeros(4)),
        None,
        7,
    ],
)
def test_a_leaf_accepts_and_binds_what_the_runtime_checker_does(t, value):
    leaf, general = Bindings(), Bindings()
    accepted = compile_leaf(t).match(value, leaf)
    assert accepted == (why(value, t, general, "x") is None)
    if accepted:  # on failure the general checker's scope is thrown away by its caller
        assert leaf.sizes == general.sizes
    else:
        assert leaf.sizes == {}


def test_a_tree_of_graph_form_arrays_binds_rigid_sizes_across_leaves():
    t = PyTreeType(ArrayType("numpy", None, ("n",)))
    with scope() as b:
        assert t.check([np.zeros(3), np.zeros(3)], b) and b.sizes == {"n": 3}
        assert not t.check([np.zeros(4)], b)


def test_braced_sizes_keep_the_annotation_matcher():
    hint = PyTree[Shaped[np.ndarray, "{k}"]]
    with scope({"k": 2}):
        assert isinstance([np.zeros(2), np.zeros(2)], hint)
        assert not isinstance([np.zeros(3)], hint)


def test_leaf_annotations_one_type_cannot_tell_apart_are_refused():
    with pytest.raises(AnnotationError, match=r"differ only in their \{\.\.\.\} sizes"):
        PyTree[tuple[Float[np.ndarray, "{k}"], Float[np.ndarray, "{m}"]]]
