"""The fuzz suite's own pieces work: the time guard interrupts, budgets follow the
environment, every hostile value can be built and every strategy draws text."""

from __future__ import annotations

import time

import pytest
from hypothesis import given

from _fuzz import (
    ENV,
    FUZZ_TESTS,
    HOSTILE,
    FuzzTimeout,
    dim_texts,
    examples,
    fuzz_settings,
    hostile_values,
    known_issue,
    shape_strings,
    time_guard,
)


def test_time_guard_interrupts_a_busy_block() -> None:
    start = time.monotonic()
    with pytest.raises(FuzzTimeout, match="spin"):
        with time_guard(0.05, "spin"):
            while True:
                pass
    assert time.monotonic() - start < 30  # interrupted, not run to some outer timeout


def test_time_guard_is_not_an_exception_the_library_could_swallow() -> None:
    caught = []
    with pytest.raises(FuzzTimeout):
        with time_guard(0.05, "swallow"):
            try:
                while True:
                    pass
            except Exception as error:  # what a careless library would write
                caught.append(error)
    assert caught == []


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_time_guard_fires_again_when_a_finalizer_swallows_it() -> None:
    import gc
    import weakref

    class Slow:
        pass

    def spin() -> None:  # a finalizer that outlasts the guard: its exception is dropped
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            pass

    with pytest.raises(FuzzTimeout):
        with time_guard(0.05, "finalizer"):
            obj = Slow()
            weakref.finalize(obj, spin)
            del obj
            gc.collect()
            end = time.monotonic() + 5
            while time.monotonic() < end:
                pass
            pytest.fail("the guard's first alarm was dropped and it never fired again")


def test_time_guard_leaves_no_alarm_behind() -> None:
    with time_guard(0.05, "quick"):
        pass
    time.sleep(0.1)  # an alarm left armed would raise here


def test_budget_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert examples(50) == 50
    monkeypatch.setenv(ENV, "100_000")
    assert examples(50) == -(-100_000 // FUZZ_TESTS)
    assert fuzz_settings(50).max_examples == examples(50)
    monkeypatch.setenv(ENV, "10")
    assert examples(50) == 50  # a long run never runs fewer than an ordinary one
    monkeypatch.setenv(ENV, "many")
    with pytest.raises(ValueError, match=ENV):
        examples(50)


@pytest.mark.parametrize("name, make", HOSTILE, ids=[name for name, _ in HOSTILE])
def test_every_hostile_value_builds_fresh(name: str, make) -> None:
    first, second = make(), make()
    assert first is not second or name in (
        "None",
        "bool",
        "class-int",
        "class-ndarray-itself",
        "int",
        "float-nan",
        "float-inf",
        "str",
        "bytes",
    )


@fuzz_settings(30)
@given(shape_strings(), dim_texts(), hostile_values())
def test_strategies_draw(shape: str, dim: str, named: tuple) -> None:
    assert isinstance(shape, str) and isinstance(dim, str)
    assert named[0] in {name for name, _ in HOSTILE}


def test_no_known_issue_matches_plain_text() -> None:
    assert known_issue("n m") is None
