"""Methods, descriptors, generators, coroutines and dataclasses under the checker."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from typing import AsyncIterator, Generator, Iterator

import numpy as np
import pytest

from tensortypes.annotate import Float, current
from tensortypes.errors import AnnotationError, TypeCheckError
from tensortypes.runtime import typechecked
from tensortypes.runtime.scopes import current_bindings

Vec = Float[np.ndarray, "n"]


class Model:
    def __init__(self, width: int):
        self.width = width
        self._weights = np.zeros(width)

    @typechecked
    def apply(self, x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        return x * 2

    @typechecked
    @classmethod
    def build(cls, width: int) -> Model:
        return cls(width)

    @typechecked
    @staticmethod
    def norm(x: Float[np.ndarray, "n"]) -> float:
        return float(np.abs(x).sum())

    @typechecked
    @property
    def weights(self) -> Float[np.ndarray, "n"]:
        return self._weights

    @weights.setter
    def weights(self, value: Float[np.ndarray, "n"]) -> None:
        self._weights = value


def test_methods_classmethods_staticmethods():
    model = Model.build(3)
    assert isinstance(model, Model)
    assert model.apply(np.ones(3)).shape == (3,)
    assert Model.norm(np.ones(2)) == 2.0
    with pytest.raises(TypeCheckError, match="parameter x"):
        model.apply(np.ones((2, 2)))
    with pytest.raises(TypeCheckError, match="parameter width"):
        Model.build("3")
    with pytest.raises(TypeCheckError):
        Model.norm([1.0])


def test_properties_getter_and_setter():
    model = Model(2)
    assert model.weights.shape == (2,)
    model._weights = "oops"
    with pytest.raises(TypeCheckError, match="return value"):
        _ = model.weights


def test_class_decorator_checks_every_method():
    @typechecked
    class Scaler:
        def __init__(self, factor: float):
            self.factor = factor

        def scale(self, x: Vec) -> Vec:
            return x * self.factor

        @staticmethod
        def unit(n: int) -> Vec:
            return np.ones(n)

    with pytest.raises(TypeCheckError):
        Scaler("2")
    s = Scaler(2.0)
    assert s.scale(np.ones(3)).shape == (3,)
    with pytest.raises(TypeCheckError):
        s.scale(np.ones((3, 3)))
    with pytest.raises(TypeCheckError):
        Scaler.unit("3")


def test_generator_checks_yields_sends_and_return():
    @typechecked
    def counter(x: Vec) -> Generator[Float[np.ndarray, "n"], int, str]:
        got = yield x
        assert isinstance(x, Float[np.ndarray, "n"]) and current() is not None
        while got is not None:
            got = yield np.zeros(got)
        return "done"

    assert inspect.isgeneratorfunction(counter.__wrapped__)
    gen = counter(np.zeros(2))
    assert next(gen).shape == (2,)
    assert current() is None  # the scope is only current while the body runs
    assert gen.send(2).shape == (2,)
    with pytest.raises(TypeCheckError, match="value yielded"):
        gen.send(5)  # n=2 was bound by x
    gen = counter(np.zeros(2))
    next(gen)
    with pytest.raises(TypeCheckError, match="value sent"):
        gen.send("two")
    with pytest.raises(TypeCheckError, match="parameter x"):
        counter(np.zeros((1, 1)))


def test_generator_return_value_is_checked():
    @typechecked
    def gives(n: int) -> Generator[int, None, str]:
        yield n
        return n  # not a str

    with pytest.raises(TypeCheckError, match="return value"):
        list(gives(1))


def test_generator_throw_and_close_reach_the_body():
    closed = []

    @typechecked
    def body() -> Iterator[int]:
        try:
            while True:
                try:
                    yield 1
                except ValueError:
                    yield 2
        finally:
            closed.append(True)

    gen = body()
    assert next(gen) == 1
    assert gen.throw(ValueError()) == 2
    gen.close()
    assert closed == [True]


def test_generator_needs_an_iterator_annotation():
    with pytest.raises(AnnotationError, match="yields"):

        @typechecked
        def bad() -> int:
            yield 1


def test_async_generator():
    @typechecked
    async def stream(x: Vec) -> AsyncIterator[Float[np.ndarray, "n"]]:
        yield x
        yield np.zeros(x.shape[0] + 1)

    async def collect() -> list:
        return [item async for item in stream(np.zeros(3))]

    with pytest.raises(TypeCheckError, match="value yielded"):
        asyncio.run(collect())


def test_coroutine_return_is_checked_against_the_awaited_value():
    @typechecked
    async def fetch(x: Vec) -> Float[np.ndarray, "n"]:
        await asyncio.sleep(0)
        assert current_bindings().sizes["n"] == x.shape[0]
        return x

    assert inspect.iscoroutinefunction(fetch)
    assert asyncio.run(fetch(np.zeros(4))).shape == (4,)

    @typechecked
    async def wrong(x: Vec) -> Float[np.ndarray, "n"]:
        return np.zeros(x.shape[0] + 1)  # tensortypes: ignore[return] (the bug under test)

    with pytest.raises(TypeCheckError, match="return value"):
        asyncio.run(wrong(np.zeros(4)))


@typechecked
@dataclasses.dataclass
class Pair:
    a: Float[np.ndarray, "n"]
    b: Float[np.ndarray, "n"]
    label: str = "pair"


def test_dataclass_fields_are_checked_after_init():
    Pair(np.zeros(2), np.zeros(2))
    with pytest.raises(TypeCheckError, match="field b") as info:
        Pair(np.zeros(2), np.zeros(3))
    assert "Pair" in str(info.value) and "n=2 (axis 0 of a)" in str(info.value)
    with pytest.raises(TypeCheckError, match="field label"):
        Pair(np.zeros(2), np.zeros(2), label=3)


def test_dataclass_post_init_conversion_is_checked_after_converting():
    @typechecked
    @dataclasses.dataclass
    class Converted:
        x: Float[np.ndarray, "n"]

        def __post_init__(self):
            self.x = np.asarray(self.x, dtype=float)

    assert Converted([1, 2]).x.shape == (2,)


def test_dataclass_assignment_is_checked_only_when_asked():
    pair = Pair(np.zeros(2), np.zeros(2))
    pair.b = np.zeros(5)  # not checked by default

    @typechecked(check_assignment=True)
    @dataclasses.dataclass
    class Guarded:
        a: Float[np.ndarray, "n"]
        b: Float[np.ndarray, "n"]

    g = Guarded(np.zeros(2), np.zeros(2))
    with pytest.raises(TypeCheckError, match="field b"):
        g.b = np.zeros(3)
    assert g.b.shape == (2,)  # restored
    g.b = np.ones(2)
    g.other = "not a field"


def test_dataclass_uninitialised_fields_are_skipped_and_subclass_init_checks_once():
    @typechecked
    @dataclasses.dataclass
    class Lazy:
        x: Float[np.ndarray, "n"]
        y: Float[np.ndarray, "n"] = dataclasses.field(init=False)

    lazy = Lazy(np.zeros(2))
    assert not hasattr(lazy, "y")

    @dataclasses.dataclass
    class Child(Pair):
        c: int = 0

    assert Child(np.zeros(2), np.zeros(3)).c == 0  # Child's own __init__ is not checked


def test_frozen_and_slots_dataclasses():
    @typechecked
    @dataclasses.dataclass(frozen=True, slots=True)
    class Frozen:
        x: Float[np.ndarray, "n"]

    Frozen(np.zeros(1))
    with pytest.raises(TypeCheckError):
        Frozen(np.zeros((1, 1)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        Frozen(np.zeros(1)).x = np.zeros(1)
