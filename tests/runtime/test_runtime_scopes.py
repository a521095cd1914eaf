"""Dimension scopes of checked calls: per call, per thread, per task, never left behind."""

from __future__ import annotations

import asyncio
import io
import threading

import numpy as np
import pytest

from tensortypes.annotate import Float, current
from tensortypes.errors import TypeCheckError
from tensortypes.runtime import jaxtyped, print_bindings, typechecked
from tensortypes.runtime.scopes import current_bindings


def test_isinstance_in_the_body_sees_and_extends_the_call_bindings():
    @typechecked
    def f(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "m"]:
        assert isinstance(np.zeros(3), Float[np.ndarray, "n"])
        assert not isinstance(np.zeros(4), Float[np.ndarray, "n"])
        assert isinstance(np.zeros(5), Float[np.ndarray, "m"])  # binds m=5
        return np.zeros(5)

    assert f(np.zeros(3)).shape == (5,)

    @typechecked
    def g(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "m"]:
        assert isinstance(np.zeros(5), Float[np.ndarray, "m"])
        return np.zeros(6)

    with pytest.raises(TypeCheckError, match="m=5"):
        g(np.zeros(3))


def test_return_checked_against_bindings_an_isinstance_extended():
    @typechecked
    def f(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        assert isinstance(x, Float[np.ndarray, "n"])  # reads the scope
        return np.zeros(4)  # tensortypes: ignore[return] (the bug under test)

    with pytest.raises(TypeCheckError, match="n=3"):
        f(np.zeros(3))


def test_nested_checked_calls_get_fresh_scopes():
    @typechecked
    def inner(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        return x

    @typechecked
    def outer(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        inner(np.zeros(7))  # its own n
        assert current_bindings().sizes["n"] == 2
        return x

    assert outer(np.zeros(2)).shape == (2,)


def test_recursion_keeps_each_call_its_own_sizes():
    @typechecked
    def depth(x: Float[np.ndarray, "n"], k: int) -> Float[np.ndarray, "n"]:
        if k:
            depth(np.zeros(k), k - 1)
        assert current_bindings().sizes["n"] == x.shape[0]
        return x

    assert depth(np.zeros(9), 4).shape == (9,)


def test_an_exception_in_the_body_leaves_no_scope_behind():
    @typechecked
    def boom(x: Float[np.ndarray, "n"]) -> None:
        assert current() is not None
        raise KeyError("inside")

    with pytest.raises(KeyError):
        boom(np.zeros(2))
    assert current() is None
    with pytest.raises(TypeCheckError):
        boom(np.zeros((2, 2)))
    assert current() is None


def test_threads_have_separate_scopes():
    barrier = threading.Barrier(4)
    errors: list = []

    @typechecked
    def work(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        barrier.wait(timeout=10)
        for _ in range(200):
            assert isinstance(np.zeros(x.shape[0]), Float[np.ndarray, "n"])
        return x

    def run(n: int) -> None:
        try:
            work(np.zeros(n))
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_asyncio_tasks_have_separate_scopes():
    @typechecked
    async def work(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        for _ in range(5):
            await asyncio.sleep(0)
            assert isinstance(np.zeros(x.shape[0]), Float[np.ndarray, "n"])
        return x

    async def main() -> list:
        return await asyncio.gather(*(work(np.zeros(n)) for n in (1, 2, 3)))

    assert [r.shape for r in asyncio.run(main())] == [(1,), (2,), (3,)]
    assert current() is None


def test_print_bindings_inside_a_call():
    out = io.StringIO()

    @typechecked
    def f(x: Float[np.ndarray, "b c"]) -> None:
        print_bindings(out)
        print_bindings(out, where=True)

    f(np.zeros((2, 3)))
    heading = "The current values for each jaxtyping axis annotation are as follows.\n"
    # jaxtyping's own form first (its users' tests compare it whole), then ours.
    assert out.getvalue() == (
        heading + "b=2\nc=3\n" + heading + "b=2 (axis 0 of x)\nc=3 (axis 1 of x)\n"
    )


def test_print_bindings_outside_any_scope():
    out = io.StringIO()
    print_bindings(out)
    assert "no dimension scope" in out.getvalue()


def test_jaxtyped_context_opens_a_scope():
    with jaxtyped("context"):
        assert isinstance(np.zeros(2), Float[np.ndarray, "n"])
        assert not isinstance(np.zeros(3), Float[np.ndarray, "n"])
    assert current() is None
    assert isinstance(np.zeros(3), Float[np.ndarray, "n"])  # alone again
    with pytest.raises(ValueError):
        jaxtyped("context", typechecker=None)


def test_jaxtyped_none_is_a_scope_without_checks():
    @jaxtyped(typechecker=None)
    def f(x: Float[np.ndarray, "n"], y) -> tuple:
        return isinstance(y, Float[np.ndarray, "n"]), isinstance(x, Float[np.ndarray, "n"])

    assert f(np.zeros(3), np.zeros(2)) == (True, False)  # y bound n=2 in this call's scope
    assert f("not checked", np.zeros(2)) == (True, False)  # tensortypes: ignore[arg-type]
    assert current() is None


def test_scope_marker_outliving_its_call_starts_empty():
    tasks: list = []

    @typechecked
    def spawn(x: Float[np.ndarray, "n"]) -> None:
        tasks.append(asyncio.ensure_future(later()))

    async def later() -> bool:
        return isinstance(np.zeros(5), Float[np.ndarray, "n"])

    async def main() -> bool:
        spawn(np.zeros(2))
        return await tasks[0]

    assert asyncio.run(main()) is True
