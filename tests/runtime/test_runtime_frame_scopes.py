"""Scopes of plain checked calls, found on the stack: helpers, threads, nesting, recursion."""

from __future__ import annotations

import gc
import sys
import threading
import weakref

import numpy as np
import pytest

from tensortypes.annotate import Float, current, scope
from tensortypes.annotate._scope import FRAMES
from tensortypes.errors import TypeCheckError
from tensortypes.runtime import typechecked
from tensortypes.runtime.scopes import ACTIVE, current_bindings

N = Float[np.ndarray, "n"]
M = Float[np.ndarray, "m"]


def _helper_sees(size: int) -> bool:
    return isinstance(np.zeros(size), N)


def test_unchecked_helpers_called_from_the_body_see_the_call_bindings():
    def deeper(size: int) -> bool:
        return _helper_sees(size)

    @typechecked
    def f(x: N) -> None:
        assert deeper(x.shape[0]) and not deeper(x.shape[0] + 1)
        assert current_bindings().sizes == {"n": x.shape[0]}

    f(np.zeros(3))
    assert not ACTIVE and current() is None


def test_sizes_an_isinstance_binds_in_a_helper_are_used_by_the_return_check():
    def bind_m(size: int) -> None:
        assert isinstance(np.zeros(size), M)

    @typechecked
    def f(x: N, m: int) -> M:
        bind_m(m)
        return np.zeros(4)  # tensortypes: ignore[return] (m is bound at run time)

    assert f(np.zeros(2), 4).shape == (4,)
    with pytest.raises(TypeCheckError, match="m=5"):
        f(np.zeros(2), 5)
    assert not ACTIVE


def test_a_thread_started_from_the_body_does_not_see_the_call_scope():
    seen: dict = {}

    def worker() -> None:
        seen["scope"] = current()
        seen["alone"] = isinstance(np.zeros(9), N)

    @typechecked
    def f(x: N) -> None:
        assert current() is not None
        t = threading.Thread(target=worker)
        t.start()
        t.join()

    f(np.zeros(2))
    assert seen == {"scope": None, "alone": True}


def test_after_a_nested_checked_call_the_body_sees_its_own_bindings_again():
    @typechecked
    def inner(x: N) -> N:
        assert isinstance(np.zeros(7), N)
        return x

    @typechecked
    def outer(x: N) -> M:
        assert isinstance(np.zeros(3), M)  # binds m=3 before the nested call
        inner(np.zeros(7))
        assert isinstance(np.zeros(2), N) and not isinstance(np.zeros(7), N)
        assert current_bindings().sizes == {"n": 2, "m": 3}
        return np.zeros(3)

    assert outer(np.zeros(2)).shape == (3,)
    assert not ACTIVE


def test_deep_recursion_keeps_every_call_its_own_scope():
    limit = sys.getrecursionlimit()
    depth = min(300, limit // 4)

    @typechecked
    def down(x: N, k: int) -> N:
        assert isinstance(np.zeros(x.shape[0]), N)
        if k:
            down(np.zeros(k), k - 1)
        assert current_bindings().sizes["n"] == x.shape[0]
        assert not isinstance(np.zeros(x.shape[0] + 1), N)
        return x

    assert down(np.zeros(depth + 1), depth).shape == (depth + 1,)
    assert not ACTIVE


def test_an_exception_after_the_body_read_its_scope_leaves_nothing_behind():
    @typechecked
    def boom(x: N) -> None:
        assert isinstance(x, N)
        raise KeyError("inside")

    for _ in range(3):
        with pytest.raises(KeyError):
            boom(np.zeros(2))
    assert not ACTIVE and current() is None


def test_a_context_scope_opened_in_the_body_wins_inside_its_block():
    @typechecked
    def f(x: N) -> None:
        with scope() as inner:
            assert isinstance(np.zeros(5), N)  # a fresh scope: n=5 here
            assert current() is inner
        assert current_bindings().sizes == {"n": x.shape[0]}

    f(np.zeros(2))


def test_a_checked_call_inside_a_context_block_gets_its_own_scope():
    @typechecked
    def f(x: N) -> None:
        assert current_bindings().sizes == {"n": x.shape[0]}

    with scope() as outer:
        assert isinstance(np.zeros(4), N)
        f(np.zeros(2))
        assert current() is outer and outer.sizes == {"n": 4}


def test_a_generator_driven_from_a_plain_body_uses_its_own_scope():
    from typing import Iterator

    @typechecked
    def gen(x: N) -> Iterator[N]:
        yield x
        assert current_bindings().sizes["n"] == x.shape[0]
        yield np.zeros(x.shape[0])

    @typechecked
    def f(x: N) -> None:
        assert [y.shape for y in gen(np.zeros(6))] == [(6,), (6,)]
        assert current_bindings().sizes == {"n": x.shape[0]}

    f(np.zeros(2))


def test_a_collected_checked_function_leaves_its_registration():
    def make() -> tuple:
        @typechecked
        def f(x: N) -> N:
            return x

        f(np.zeros(1))
        code = f.__code__
        assert id(code) in FRAMES
        return id(code), weakref.ref(code)

    key, ref = make()
    gc.collect()
    assert ref() is None and key not in FRAMES
