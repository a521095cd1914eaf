"""jaxtyped with other checkers (beartype, typeguard 2.x) and jaxtyping's call forms."""

from __future__ import annotations

import asyncio
import dataclasses

import numpy as np
import pytest

from tensortypes.annotate import Float, Float32, current
from tensortypes.errors import TypeCheckError
from tensortypes.runtime import jaxtyped, typechecked

X = Float32[np.ndarray, "b c"]
Y = Float32[np.ndarray, "c d"]


def _checkers():
    found = []
    try:
        from beartype import beartype
    except ImportError:
        pass
    else:
        found.append(pytest.param(beartype, id="beartype"))
    try:
        import typeguard
    except ImportError:
        pass
    else:
        if hasattr(typeguard, "typechecked") and not hasattr(typeguard, "TypeCheckError"):
            found.append(pytest.param(typeguard.typechecked, id="typeguard2"))
    if not found:
        found.append(
            pytest.param(
                None,
                marks=pytest.mark.skip(reason="neither beartype nor typeguard 2.x is installed"),
            )
        )
    return found


CHECKERS = _checkers()


@pytest.mark.parametrize("checker", CHECKERS)
def test_other_checker_inside_our_scope(checker):
    @jaxtyped(typechecker=checker)
    def f(x: X, y: Y) -> Float32[np.ndarray, "b d"]:
        return np.zeros((x.shape[0], y.shape[1]), np.float32)

    x = np.zeros((2, 3), np.float32)
    assert f(x, np.zeros((3, 4), np.float32)).shape == (2, 4)
    with pytest.raises(TypeCheckError) as info:
        f(x, np.zeros((4, 4), np.float32))
    text = str(info.value)
    assert "parameter y" in text
    assert "axis 0 of y has size 4, but c=3 was bound by axis 1 of x" in text
    assert current() is None


@pytest.mark.parametrize("checker", CHECKERS)
def test_other_checker_return_value(checker):
    @jaxtyped(typechecker=checker)
    def f(x: X) -> Float32[np.ndarray, "c b"]:
        return x  # tensortypes: ignore[return] (the bug under test)

    with pytest.raises(TypeCheckError) as info:
        f(np.zeros((2, 3), np.float32))
    assert "return value" in str(info.value)
    assert "c=3 was bound by axis 1 of x" in str(info.value)


@pytest.mark.parametrize("checker", CHECKERS)
def test_other_checker_coroutine_checks_the_awaited_value(checker):
    @jaxtyped(typechecker=checker)
    async def f(x: X) -> int:
        await asyncio.sleep(0)
        return x.shape[0]

    assert asyncio.run(f(np.zeros((2, 3), np.float32))) == 2


@pytest.mark.parametrize("checker", CHECKERS)
def test_other_checker_dataclass(checker):
    @jaxtyped(typechecker=checker)
    @dataclasses.dataclass
    class D:
        a: X
        b: Y

    D(np.zeros((2, 3), np.float32), np.zeros((3, 5), np.float32))
    with pytest.raises(TypeCheckError, match="field b"):
        D(np.zeros((2, 3), np.float32), np.zeros((4, 5), np.float32))

    @jaxtyped(typechecker=checker, check_assignment=True)
    @dataclasses.dataclass
    class E:
        a: X
        b: Y

    e = E(np.zeros((2, 3), np.float32), np.zeros((3, 5), np.float32))
    with pytest.raises(TypeCheckError, match="field b"):
        e.b = np.zeros((4, 5), np.float32)
    assert e.b.shape == (3, 5)


@pytest.mark.parametrize("checker", CHECKERS)
def test_other_checker_by_dotted_name(checker):
    name = f"{checker.__module__.split('.')[0]}.{checker.__name__}"

    @jaxtyped(typechecker=name)
    def f(x: X) -> int:
        return 1

    with pytest.raises(TypeCheckError):
        f(np.zeros(3, np.float32))


@pytest.mark.parametrize("checker", CHECKERS)
def test_bare_jaxtyped_over_another_checker_is_ours_around_it(checker):
    with pytest.warns(UserWarning, match="As of jaxtyping version 0.2.24"):

        @jaxtyped
        @checker
        def f(x: X, y: Y) -> int:
            return 1

    assert f(np.zeros((2, 3), np.float32), np.zeros((3, 1), np.float32)) == 1
    with pytest.raises(TypeCheckError, match="c=3 was bound by axis 1 of x"):
        f(np.zeros((2, 3), np.float32), np.zeros((4, 1), np.float32))


def test_bare_jaxtyped_is_our_checker():
    # jaxtyping's warning (its users' tests expect it); the checker is ours.
    with pytest.warns(UserWarning, match="As of jaxtyping version 0.2.24"):

        @jaxtyped
        def f(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
            return x

    assert f.__tensortypes_checker__ is not None

    with pytest.warns(UserWarning, match="prefers the syntax"):

        @jaxtyped()
        def g(x: int) -> int:
            return x

    with pytest.raises(TypeCheckError):
        g("1")
    assert jaxtyped(typechecker=typechecked)(g) is g

    @jaxtyped(check_assignment=True)
    @dataclasses.dataclass
    class Guarded:
        a: Float[np.ndarray, "n"]

    guarded = Guarded(np.zeros(2))
    with pytest.raises(TypeCheckError, match="field a"):
        guarded.a = "no"


def test_jaxtyped_rejects_other_strings_and_non_callables():
    with pytest.raises(ValueError):
        jaxtyped("not-context")
    with pytest.raises(TypeError):
        jaxtyped(lambda x: x, typechecker=3)
    with pytest.raises(ImportError):
        jaxtyped(lambda x: x, typechecker="nodots")
    with pytest.raises(ValueError, match="never evaluated"):
        jaxtyped(lambda x: x, typechecker="beartype.beartype if 1 else 2")


@pytest.mark.parametrize("checker", CHECKERS)
def test_other_checker_binds_arguments_as_the_function_would(checker):
    # Defaults filled in for the `{name}` parts of shapes; a bad call is the TypeError
    # calling the function itself gives, naming it.
    @jaxtyped(typechecker=checker)
    def pad(
        x: Float[np.ndarray, "n"], /, width: int = 2, *rest: int, fill: float = 0.0, **extra: int
    ) -> Float[np.ndarray, "{width}+n"]:
        assert current().arguments == {
            "x": x,
            "width": width,
            "rest": rest,
            "fill": fill,
            "extra": extra,
        }
        return np.zeros(width + x.shape[0])

    assert pad(np.zeros(3)).shape == (5,)
    assert pad(np.zeros(3), 1, 7, 8, fill=1.0, more=4).shape == (4,)
    with pytest.raises(TypeCheckError, match="return value"):
        jaxtyped(typechecker=checker)(_wrong_width)(np.zeros(3))
    with pytest.raises(TypeError, match=r"pad\(\) missing 1 required positional argument"):
        pad()
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        pad(x=np.zeros(3))  # positional-only: the keyword goes to **extra


def _wrong_width(x: Float[np.ndarray, "n"], width: int = 2) -> Float[np.ndarray, "{width}+n"]:
    return x


@pytest.mark.parametrize("checker", CHECKERS)
def test_other_checker_scopes_nest_with_ours(checker):
    # Our checker inside the other's call keeps its own scope, and the other's scope
    # is the one a bare isinstance in its body sees, before and after.
    @typechecked
    def inner(y: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        return y

    @jaxtyped(typechecker=checker)
    def outer(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        assert current().sizes == {"n": 3}
        inner(np.zeros(5))  # another n: its own scope
        assert isinstance(x, Float[np.ndarray, "n"])
        assert not isinstance(np.zeros(5), Float[np.ndarray, "n"])
        return x

    assert outer(np.zeros(3)).shape == (3,)
    assert current() is None
