"""The generated fast path and the explaining slow path agree on every call.

Each signature below is checked on random arguments and random return values:
the compiled wrapper's verdict (raises ``TypeCheckError`` or not) must equal the
general checker's (``Checker.bind_params`` over the arguments, then the return
value in the same bindings), and a rejected call's message must carry a reason,
never the "please report" fallback.
"""

from __future__ import annotations

import inspect
import typing
from typing import List, Optional

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.annotate import Bindings, Float, Float32, Int, Shaped, Template
from tensortypes.errors import TypeCheckError
from tensortypes.runtime import typechecked
from tensortypes.runtime._messages import DISAGREE
from tensortypes.runtime._walk import why

RET: list = [None]


@typechecked
def matmul(
    x: Float32[np.ndarray, "b c"], y: Float32[np.ndarray, "c d"]
) -> Float32[np.ndarray, "b d"]:
    return RET[0]


@typechecked
def batched(
    x: Float[np.ndarray, "*batch n"], y: Float[np.ndarray, "*batch n"]
) -> Float[np.ndarray, "*batch"]:
    return RET[0]


@typechecked
def broadcast(x: Float[np.ndarray, "#n"], y: Float[np.ndarray, "#n 2"]) -> Float[np.ndarray, "#n"]:
    return RET[0]


@typechecked
def shrink(x: Float[np.ndarray, "n m"]) -> Float[np.ndarray, "n-1 m*2"]:
    return RET[0]


@typechecked
def optional(
    x: Float[np.ndarray, "n"], y: Optional[Float[np.ndarray, "n"]] = None
) -> Float[np.ndarray, "n"]:
    return RET[0]


@typechecked
def fixed(x: Float32[np.ndarray, "3 _"], k: int) -> Shaped[np.ndarray, "..."]:
    return RET[0]


@typechecked
def stacked(xs: List[Float[np.ndarray, "n"]], y: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
    return RET[0]


@typechecked
def full(size: int) -> Float[np.ndarray, "{size} 2"]:
    return RET[0]


@typechecked
def dtypes(x: Int[np.ndarray, "n"], y: Float[np.ndarray, "n"]) -> Int[np.ndarray, "n"]:
    return RET[0]


@typechecked
def maybe_batch(
    x: Optional[Float[np.ndarray, "*batch n"]], y: Float[np.ndarray, "*batch n"]
) -> Float[np.ndarray, "n//2 min(n,3)"]:
    return RET[0]


SIGNATURES = [
    matmul,
    batched,
    broadcast,
    shrink,
    optional,
    fixed,
    stacked,
    full,
    dtypes,
    maybe_batch,
]

_DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64}


def _size(draw, env: dict, key: str, make):
    if key not in env:
        env[key] = make()
    return env[key]


def _conforming(draw, ann, env: dict, arguments: dict):
    """An array that fits ``ann`` under ``env`` (extended), or one slightly off."""
    shape = []
    for d in ann.dims:
        if isinstance(d, Template):
            expr, _ = d.resolve(arguments)
            shape.append(max(expr.value, 0))
        elif d.variadic:
            if d.kind == "anon":
                shape += draw(st.lists(st.integers(1, 3), max_size=2))
            else:
                shape += _size(
                    draw,
                    env,
                    "*" + d.expr.name,
                    lambda: tuple(draw(st.lists(st.integers(1, 3), max_size=2))),
                )
        elif d.kind == "fixed":
            shape.append(d.expr)
        elif d.kind == "anon":
            shape.append(draw(st.integers(1, 3)))
        elif d.expr.is_symbol:
            size = _size(draw, env, d.expr.name, lambda: draw(st.integers(1, 4)))
            shape.append(1 if d.broadcast and draw(st.booleans()) else size)
        else:
            for name in d.expr.free_symbols:
                _size(draw, env, name, lambda: draw(st.integers(1, 4)))
            shape.append(max(d.expr.evaluate(env), 0))
    names = [n for n in (ann.dtypes or ("float64",)) if n in _DTYPES]
    dtype = _DTYPES[draw(st.sampled_from(names or ["float64"]))]
    if draw(st.integers(0, 3)) == 0:  # one change that may break it
        change = draw(st.sampled_from(["axis", "rank", "dtype"]))
        if change == "axis" and shape:
            i = draw(st.integers(0, len(shape) - 1))
            shape[i] += 1
        elif change == "rank":
            shape = shape[1:] if shape and draw(st.booleans()) else [2, *shape]
        else:
            dtype = draw(st.sampled_from(list(_DTYPES.values())))
    return np.zeros(tuple(shape), dtype=dtype)


def _value(draw, ann, env: dict, arguments: dict):
    if ann is int:
        return draw(st.integers(0, 4))
    origin = typing.get_origin(ann)
    if origin is typing.Union:
        inner = [a for a in typing.get_args(ann) if a is not type(None)][0]
        return None if draw(st.integers(0, 2)) == 0 else _value(draw, inner, env, arguments)
    if origin is list:
        (inner,) = typing.get_args(ann)
        return [_value(draw, inner, env, arguments) for _ in range(draw(st.integers(0, 3)))]
    return _conforming(draw, ann, env, arguments)


def _values(draw, fn) -> tuple[list, dict, object]:
    hints = typing.get_type_hints(fn.__wrapped__, include_extras=True)
    env: dict = {}
    arguments: dict = {}
    for name, ann in hints.items():
        if name != "return":
            arguments[name] = _value(draw, ann, env, arguments)
    return list(arguments.values()), {}, _value(draw, hints["return"], env, arguments)


def _slow_verdict(checked, args: list, kwargs: dict) -> bool:
    checker = checked.__tensortypes_checker__
    plan = checker.plan
    bound = inspect.signature(plan.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    values = tuple(bound.arguments[name] for name in plan.names)
    env = Bindings(checker.arguments(values))
    if checker.bind_params(values, env) is not None:
        return False
    result = plan.fn(*args, **kwargs)
    return why(result, plan.ret, env, "the return value", plan.overrides) is None


def _fast_verdict(checked, args: list, kwargs: dict) -> bool:
    try:
        checked(*args, **kwargs)
    except TypeCheckError as error:
        assert DISAGREE not in str(error), str(error)
        return False
    return True


@pytest.mark.parametrize("fn", SIGNATURES, ids=[f.__name__ for f in SIGNATURES])
@settings(deadline=None, max_examples=150)
@given(data=st.data())
def test_fast_and_slow_paths_agree(fn, data):
    args, kwargs, RET[0] = _values(data.draw, fn)
    assert _fast_verdict(fn, args, kwargs) == _slow_verdict(fn, args, kwargs)


GOOD_AND_BAD = [
    (
        matmul,
        [np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)],
        np.zeros((2, 4), np.float32),
        True,
    ),
    (
        matmul,
        [np.zeros((2, 3), np.float32), np.zeros((4, 4), np.float32)],
        np.zeros((2, 4), np.float32),
        False,
    ),
    (
        matmul,
        [np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)],
        np.zeros((4, 2), np.float32),
        False,
    ),
    (batched, [np.zeros((5, 6, 2)), np.zeros((5, 6, 2))], np.zeros((5, 6)), True),
    (batched, [np.zeros((5, 6, 2)), np.zeros((5, 7, 2))], np.zeros((5, 6)), False),
    (broadcast, [np.zeros(1), np.zeros((3, 2))], np.zeros(3), True),
    (broadcast, [np.zeros(4), np.zeros((3, 2))], np.zeros(3), False),
    (shrink, [np.zeros((4, 3))], np.zeros((3, 6)), True),
    (shrink, [np.zeros((4, 3))], np.zeros((4, 6)), False),
    (optional, [np.zeros(3), None], np.zeros(3), True),
    (optional, [np.zeros(3), np.zeros(4)], np.zeros(3), False),
    (stacked, [[np.zeros(2), np.zeros(2)], np.zeros(2)], np.zeros(2), True),
    (stacked, [[np.zeros(2), np.zeros(3)], np.zeros(2)], np.zeros(2), False),
    (full, [3], np.zeros((3, 2)), True),
    (full, [3], np.zeros((4, 2)), False),
    (dtypes, [np.zeros(2, int), np.zeros(2)], np.zeros(2, int), True),
    (dtypes, [np.zeros(2), np.zeros(2)], np.zeros(2, int), False),
    (maybe_batch, [None, np.zeros((2, 5))], np.zeros((2, 3)), True),
    (maybe_batch, [np.zeros((7, 5)), np.zeros((2, 5))], np.zeros((2, 3)), False),
    (maybe_batch, [np.zeros((2, 5)), np.zeros((2, 5))], np.zeros((2, 2)), False),
]


@pytest.mark.parametrize("fn, args, ret, ok", GOOD_AND_BAD)
def test_corpus_of_good_and_bad_calls(fn, args, ret, ok):
    RET[0] = ret
    assert _fast_verdict(fn, args, {}) is ok
    assert _slow_verdict(fn, args, {}) is ok


def test_simple_signatures_keep_sizes_in_local_variables():
    # The fast form is what the benchmark measures: no general checker involved.
    source = matmul.__tensortypes_checker__.source
    assert "why" not in source.split("finally")[0]
    assert not matmul.__tensortypes_checker__.env_mode
    assert not maybe_batch.__tensortypes_checker__.env_mode
    assert "vmaybe" not in maybe_batch.__tensortypes_checker__.source  # ops become code
    assert stacked.__tensortypes_checker__.env_mode
    assert full.__tensortypes_checker__.env_mode
