"""Fuzz: hostile values (alone and nested in containers) and random arrays against
random annotations, through ``@typechecked``, ``isinstance`` and ``check_value``.

What may happen: the value is accepted, or refused with a ``TypeCheckError`` that has a
message and whose chained cause (if any) was raised by the value's own code, never by
tensortypes; ``isinstance`` answers ``True`` or ``False``; a checked call and
``isinstance`` give the same answer. Each check runs under ``time_guard``. The
exhaustive matrix over every hostile value and a fixed list of annotations is
``test_hostile_values.py``; this one explores combinations. Run longer with
``TENSORTYPES_FUZZ_EXAMPLES`` (see ``docs/fuzzing.md``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from _fuzz import HOSTILE, fuzz_settings, time_guard
from tensortypes import (
    Bool,
    Complex,
    Float,
    Float32,
    Int,
    PyTree,
    Shaped,
    TypeCheckError,
    UInt8,
    typechecked,
)
from tensortypes.errors import raised_by_value
from tensortypes.types import ann_to_type, check_value

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

_GUARD = 10.0


class Sub(np.ndarray):
    pass


_SHAPES = [
    "b c",
    "2 3",
    "*batch 3",
    "...",
    "",
    "#n m",
    "n n+1",
    "_ ...",
    "n",
    "*b",
    "b c d",
    "#*b c",
    "n 2*n",
    "1 n",
    "batch=b c",
]
_DTYPES = [Float, Float32, Int, Shaped, Bool, Complex, UInt8]
_KINDS = [np.ndarray, Any, Sub]
_PLAIN = [
    int,
    float,
    str,
    bool,
    List[int],
    Tuple[int, str],
    Dict[str, int],
    Optional[int],
    Tuple[int, ...],
    Any,
]


def _array_annotations() -> st.SearchStrategy[Any]:
    return st.builds(
        lambda d, k, s: d[k, s],
        st.sampled_from(_DTYPES),
        st.sampled_from(_KINDS),
        st.sampled_from(_SHAPES),
    )


def _wrap(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        inner,
        inner.map(lambda a: Optional[a]),
        inner.map(lambda a: List[a]),
        inner.map(lambda a: Tuple[a, ...]),
        inner.map(lambda a: Dict[str, a]),
        inner.map(lambda a: Union[int, a]),
        inner.map(lambda a: Tuple[a, int]),
    )


def annotations() -> st.SearchStrategy[Any]:
    arrays = _array_annotations()
    return st.one_of(_wrap(arrays), arrays.map(lambda a: PyTree[a]), _wrap(st.sampled_from(_PLAIN)))


def _nested(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Values, or lists, tuples and dicts of them (a hostile value inside a container)."""
    return st.recursive(
        values,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.tuples(inner, inner),
            st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
        ),
        max_leaves=4,
    )


_CHECKED: dict = {}


def _checked(ann: Any):
    key = repr(ann)
    found = _CHECKED.get(key)
    if found is None:

        @typechecked
        def f(x: ann):  # type: ignore[valid-type]
            return x

        found = _CHECKED[key] = (f, ann_to_type(ann))
    return found


def _clean(error: TypeCheckError) -> None:
    assert str(error).strip(), "TypeCheckError with an empty message"
    cause = error.__cause__
    assert cause is None or raised_by_value(cause), f"our own exception wrapped: {cause!r}"


def _outcome(call) -> bool:
    try:
        with time_guard(_GUARD, "check"):
            call()
    except TypeCheckError as error:
        _clean(error)
        return False
    return True


def _run(ann: Any, make) -> None:
    f, t = _checked(ann)
    accepted = _outcome(lambda: f(make()))
    _outcome(lambda: check_value(make(), t))
    if (isinstance(ann, type) and hasattr(ann, "_tt_match")) or repr(ann).startswith("PyTree"):
        with time_guard(_GUARD, "isinstance"):
            answer = isinstance(make(), ann)
        assert answer is accepted, (
            f"typechecked {'accepts' if accepted else 'rejects'}, isinstance says {answer}"
        )


_FACTORIES = dict(HOSTILE)


def _build(plan: Any) -> Any:
    """A fresh value from a plan of hostile value names nested in containers."""
    if isinstance(plan, str):
        return _FACTORIES[plan]()
    if isinstance(plan, list):
        return [_build(x) for x in plan]
    if isinstance(plan, tuple):
        return tuple(_build(x) for x in plan)
    return {k: _build(v) for k, v in plan.items()}


@fuzz_settings(200)
@given(annotations(), _nested(st.sampled_from([name for name, _ in HOSTILE])))
def test_hostile_values_refused_cleanly(ann: Any, plan: Any) -> None:
    # Each path gets a fresh value (a generator or a stateful value is used up once).
    _run(ann, lambda: _build(plan))


_ARRAYS = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.int8, np.uint8, np.bool_, np.complex64]),
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
)


@fuzz_settings(200)
@given(annotations(), _nested(_ARRAYS))
def test_random_arrays_agree_across_paths(ann: Any, value: Any) -> None:
    _run(ann, lambda: value)
