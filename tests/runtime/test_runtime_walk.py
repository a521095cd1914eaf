"""The general checker (``runtime._walk``) on the shared conversions of ``annotate``:
arrays anywhere in a type go through ``annotate.matcher_for``, and a signature's
``{...}`` annotations become the overrides of the checks."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest

from tensortypes.annotate import Bindings, Float, Shaped, matcher_for
from tensortypes.annotate._compile import WALKED
from tensortypes.errors import AnnotationError, TypeCheckError
from tensortypes.runtime import typechecked
from tensortypes.runtime._plan import make_plan
from tensortypes.runtime._walk import _RULES, why
from tensortypes.types import ArrayType, ListType, ann_to_type


def test_the_rules_cover_exactly_the_walked_types():
    # ``has_arrays`` sends exactly these types to ``why``; a missing rule would crash.
    assert set(_RULES) == WALKED


def test_arrays_inside_containers_bind_in_the_call_scope():
    t = ann_to_type(list[Float[np.ndarray, "n"]])
    env = Bindings()
    assert why([np.zeros(3), np.ones(3)], t, env, "xs") is None
    assert env.sizes == {"n": 3} and env.where["n"] == ("xs[0]", 0, 1)
    reason = why([np.zeros(3), np.ones(4)], t, Bindings(), "xs")
    assert "axis 0 of xs[1] has size 4, but n=3 was bound by axis 0 of xs[0]" == reason


def test_graph_form_array_types_mean_what_their_matcher_means():
    t = ListType(ArrayType("numpy", None, ("n", None)))
    assert why([np.zeros((2, 5)), np.zeros((2, 1))], t, Bindings(), "xs") is None
    assert why([np.zeros((2, 5)), np.zeros((3, 5))], t, Bindings(), "xs") is not None
    assert matcher_for(t.element).match(np.zeros((7, 7)), None)


def test_overrides_hold_only_the_templated_annotations():
    def f(
        x: Float[np.ndarray, "n"], k: int, y: Optional[Shaped[np.ndarray, "{k} n"]]
    ) -> Float[np.ndarray, "n"]:
        return x

    plan = make_plan(f)
    templated = Shaped[np.ndarray, "{k} n"]
    assert plan.overrides == {templated.type: templated._tt_matcher}

    def g(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        return x

    assert make_plan(g).overrides is None


def test_a_templated_size_is_checked_per_call():
    @typechecked
    def full(k: int, x: Optional[Shaped[np.ndarray, "{k} 2"]] = None) -> int:
        return k

    assert full(3, np.zeros((3, 2))) == 3
    with pytest.raises(TypeCheckError, match="x"):
        full(4, np.zeros((3, 2)))


def test_annotations_one_type_cannot_tell_apart_are_refused_with_the_function():
    def f(k: int, x: Float[np.ndarray, "{k}"], y: Float[np.ndarray, "_"]) -> None:
        return None

    with pytest.raises(AnnotationError, match=r"cannot check .*f .*differ only in their"):
        typechecked(f)


def test_union_members_that_bind_nothing_and_members_that_bind():
    t = ann_to_type(Float[np.ndarray, "2"] | Float[np.ndarray, "n 3"] | None)
    env = Bindings()
    assert why(np.zeros(2), t, env, "x") is None and env.sizes == {}
    assert why(np.zeros((4, 3)), t, env, "x") is None and env.sizes == {"n": 4}
    assert why(None, t, env, "x") is None
    reason = why(np.zeros((5, 3)), t, env, "x")  # n=4 already
    assert reason is not None and "fits no member" in reason and "n=4" in reason
    assert env.sizes == {"n": 4}
