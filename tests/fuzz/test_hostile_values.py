"""Every hostile value against every annotation, through every way of checking it.

A data-driven matrix (``HOSTILE`` from ``_fuzz`` x ``ANNOTATIONS`` below) over four
paths: a ``@typechecked`` call, ``isinstance`` where the annotation is a class, and
``check_value``/``Type.filter``/``Type.is_valid_value`` of the annotation's lattice type. Whatever a value's
attributes do (``.shape``/``.dtype`` raising or returning garbage, ``__class__``
lying, raising ``__iter__``/``__eq__``/``__hash__``/``__repr__``, a library's module
name on a fake class), a rejection is a ``TypeCheckError`` with a message, and
``isinstance`` answers True or False. An exception the value itself raised may be
chained as the error's cause; one raised inside tensortypes may not (that would be
our bug, wrapped). ``@typechecked`` and ``isinstance`` agree on every value.
"""

from __future__ import annotations

import typing
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import pytest

from _fuzz import HOSTILE, time_guard
from tensortypes import (
    Bool,
    Complex,
    Float,
    Float32,
    Int,
    PyTree,
    Shaped,
    TypeCheckError,
    typechecked,
)
from tensortypes.errors import raised_by_value
from tensortypes.types import ann_to_type, check_value

nd = np.ndarray


class Sub(np.ndarray):
    pass


ANNOTATIONS: list[tuple[str, Any]] = [
    ("Float[nd,'b c']", Float[nd, "b c"]),
    ("Float32[nd,'2 3']", Float32[nd, "2 3"]),
    ("Int[nd,'*batch 3']", Int[nd, "*batch 3"]),
    ("Shaped[nd,'...']", Shaped[nd, "..."]),
    ("Float[nd,'']", Float[nd, ""]),
    ("Float[nd,'#n m']", Float[nd, "#n m"]),
    ("Float[nd,'n n+1']", Float[nd, "n n+1"]),
    ("Float[nd,'_ ...']", Float[nd, "_ ..."]),
    ("Shaped[Any,'b c']", Shaped[Any, "b c"]),
    ("Float[Any,'b c']", Float[Any, "b c"]),
    ("Bool[nd,'b c']", Bool[nd, "b c"]),
    ("Complex[nd,'b c']", Complex[nd, "b c"]),
    ("Optional[Float]", Optional[Float[nd, "b c"]]),
    ("Union[int,Float]", Union[int, Float[nd, "b c"]]),
    ("List[Float]", List[Float[nd, "b"]]),
    ("Tuple[Float,...]", Tuple[Float[nd, "b"], ...]),
    ("Dict[str,Float]", Dict[str, Float[nd, "b"]]),
    ("PyTree[Float]", PyTree[Float[nd, "c"]]),
    ("Float[Sub,'b c']", Float[Sub, "b c"]),
    ("int", int),
    ("List[int]", List[int]),
]

_LIMIT = 10.0  # seconds for one check: far above any real one, a guard against hangs


def _problem(path: str, name: str, error: BaseException) -> str:
    return f"{path}: {name}: {type(error).__name__}: {str(error)[:160]!r}"


def _rejected(path: str, name: str, error: TypeCheckError, problems: list[str]) -> None:
    text = str(error)
    if not text.strip():
        problems.append(f"{path}: {name}: TypeCheckError with an empty message")
    cause = error.__cause__
    if cause is not None and not raised_by_value(cause):
        problems.append(_problem(f"{path} (wrapped cause)", name, cause))


def _through(
    path: str, name: str, call: typing.Callable[[], Any], problems: list[str]
) -> bool | None:
    """Run one check: True accepted, False rejected cleanly, None a problem."""
    try:
        with time_guard(_LIMIT, f"{path} {name}"):
            call()
    except TypeCheckError as error:
        _rejected(path, name, error, problems)
        return False
    except BaseException as error:  # noqa: BLE001 (anything else is what we look for)
        problems.append(_problem(path, name, error))
        return None
    return True


@pytest.mark.parametrize("label, ann", ANNOTATIONS, ids=[a for a, _ in ANNOTATIONS])
def test_hostile_values_are_refused_cleanly(label: str, ann: Any) -> None:
    @typechecked
    def f(x: ann):  # type: ignore[valid-type]
        return x

    t = ann_to_type(ann)
    problems: list[str] = []
    for name, make in HOSTILE:
        accepted = _through("typechecked", name, lambda: f(make()), problems)
        _through("check_value", name, lambda: check_value(make(), t), problems)
        _through("filter", name, lambda: t.filter(make()), problems)
        try:
            with time_guard(_LIMIT, f"is_valid_value {name}"):
                valid = t.is_valid_value(make())
            if valid is not True and valid is not False:
                problems.append(f"is_valid_value: {name}: answered {valid!r}")
        except BaseException as error:  # noqa: BLE001
            problems.append(_problem("is_valid_value", name, error))
        if not isinstance(ann, type) or ann is int:
            continue  # isinstance(x, int) is Python's own
        try:
            with time_guard(_LIMIT, f"isinstance {name}"):
                answer = isinstance(make(), ann)
        except BaseException as error:  # noqa: BLE001
            problems.append(_problem("isinstance", name, error))
            continue
        if answer is not True and answer is not False:
            problems.append(f"isinstance: {name}: answered {answer!r}")
        elif accepted is not None and answer != accepted:
            problems.append(
                f"disagreement: {name}: typechecked "
                f"{'accepts' if accepted else 'rejects'}, isinstance says {answer}"
            )
    assert not problems, f"{label}: {len(problems)} problems:\n" + "\n".join(problems)
