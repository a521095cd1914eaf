"""A nested function decorated at every call of its outer function is compiled once.

No ``from __future__ import annotations`` here: the reuse applies to evaluated
annotations (a string is resolved again at each definition).
"""

import gc
import weakref

import numpy as np
import pytest

from tensortypes.annotate import Float
from tensortypes.errors import TypeCheckError
from tensortypes.runtime import jaxtyped, typechecked


def _checkers():
    found = [pytest.param(typechecked, id="ours")]
    try:
        from beartype import beartype
    except ImportError:
        pass
    else:
        found.append(pytest.param(jaxtyped(typechecker=beartype), id="beartype"))
    return found


CHECKERS = _checkers()


@pytest.mark.parametrize("decorate", CHECKERS)
def test_each_definition_calls_its_own_closure_and_is_checked(decorate):
    def outer(k):
        def inner(x: Float[np.ndarray, "n"], scale: float = 1.0) -> Float[np.ndarray, "n"]:
            return x * scale + k

        return decorate(inner)

    first, second = outer(1.0), outer(2.0)
    assert first(np.zeros(2)).tolist() == [1.0, 1.0]
    assert second(np.zeros(2), 3.0).tolist() == [2.0, 2.0]
    assert first.__name__ == "inner" and first.__wrapped__ is not second.__wrapped__
    with pytest.raises(TypeCheckError, match="inner") as info:
        second(np.zeros((2, 2)))
    assert "parameter x" in str(info.value)


def test_our_checker_shares_the_generated_code():
    def outer(k):
        def inner(x: int) -> int:
            return x + k

        return typechecked(inner)

    first, second = outer(1), outer(2)
    assert first.__code__ is second.__code__
    assert first.__tensortypes_checker__ is second.__tensortypes_checker__


@pytest.mark.parametrize("decorate", CHECKERS)
def test_other_annotations_or_defaults_are_compiled_afresh(decorate):
    def outer(kind, default):
        def inner(x: kind = default) -> kind:
            return x

        return decorate(inner)

    ints, strs = outer(int, 0), outer(str, "")
    assert ints() == 0 and strs() == "" and strs("a") == "a"
    with pytest.raises(TypeCheckError):
        ints("a")
    with pytest.raises(TypeCheckError):
        strs(1)


@pytest.mark.parametrize("decorate", CHECKERS)
def test_a_local_class_in_an_annotation_is_the_one_of_its_definition(decorate):
    def outer():
        class Local:
            pass

        def inner(x: Local) -> Local:
            return x

        return decorate(inner), Local

    first, first_cls = outer()
    second, second_cls = outer()
    assert isinstance(second(second_cls()), second_cls)
    with pytest.raises(TypeCheckError):
        second(first_cls())
    with pytest.raises(TypeCheckError):
        first(second_cls())


@pytest.mark.parametrize("decorate", CHECKERS)
def test_kept_checks_hold_no_closure_alive(decorate):
    class Big:
        pass

    def outer(held):
        def inner(x: int) -> int:
            return x + (held is not None)

        return decorate(inner)

    big = Big()
    ref = weakref.ref(big)
    checked = outer(big)
    assert checked(1) == 2
    del big, checked
    gc.collect()
    assert ref() is None
    assert outer(None)(1) == 1  # the kept check serves the next definition


@pytest.mark.parametrize("decorate", CHECKERS)
def test_string_annotations_are_resolved_at_each_definition(decorate):
    def outer(kind):
        Kind = kind  # noqa: N806 (named as a class in the annotation)

        def inner(x: "Kind") -> "Kind":
            return x

        return decorate(inner)

    assert outer(int)(1) == 1
    with pytest.raises(TypeCheckError):
        outer(str)(1)


def test_another_checker_decorates_once_per_code():
    made = []

    def counting(f):  # a checker that never objects, counting what it decorates
        made.append((f.__qualname__, sorted(f.__annotations__)))
        return f

    def outer(k):
        def inner(x: int) -> int:
            return x + k

        return jaxtyped(typechecker=counting)(inner)

    assert [outer(k)(1) for k in range(3)] == [1, 2, 3]
    # One function for the parameters, one for the return value, each named as the
    # decorated function (the other checker's own message names it).
    name = "test_another_checker_decorates_once_per_code.<locals>.outer.<locals>.inner"
    assert made == [(name, ["x"]), (name, ["return"])]


def test_an_array_parameter_holding_its_default_is_not_walked():
    # `key: PRNGKeyArray | None = None`: the general checker would try each array
    # member before None; the parameter holding its default skips it.
    @typechecked
    def f(x: Float[np.ndarray, "2"] | Float[np.ndarray, "3"] | None = None) -> int:
        return 0 if x is None else x.shape[0]

    assert "x is not" in f.__tensortypes_checker__.source
    assert f() == 0 and f(None) == 0 and f(np.zeros(3)) == 3
    with pytest.raises(TypeCheckError, match="fits no member"):
        f(np.zeros(4))
