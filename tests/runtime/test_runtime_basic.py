"""typechecked on plain functions: every annotation form, parameter kinds, generated code."""

from __future__ import annotations

import collections.abc as abc
import dataclasses
import enum
import inspect
import linecache
import typing
from typing import (
    Annotated,
    Any,
    Callable,
    Dict,
    FrozenSet,
    List,
    Literal,
    NewType,
    Optional,
    Protocol,
    Sequence,
    Set,
    Tuple,
    Type,
    TypedDict,
    TypeVar,
    Union,
)

import numpy as np
import pytest

from tensortypes._config import config
from tensortypes.annotate import Float, Float32, Int, Shaped
from tensortypes.errors import AnnotationError, TypeCheckError
from tensortypes.runtime import typechecked


class Color(enum.Enum):
    RED = 1
    BLUE = 2


class Movie(TypedDict):
    name: str
    year: int


@dataclasses.dataclass
class Point:
    x: int


class Closer(Protocol):
    def close(self) -> None: ...


class HasClose:
    def close(self) -> None:
        pass


UserId = NewType("UserId", int)
T = TypeVar("T", bound=Sequence)
N = TypeVar("N", int, str)


def _passes(ann: Any, value: Any) -> bool:
    def f(x):
        return x

    f.__annotations__ = {"x": ann}
    checked = typechecked(f)
    try:
        checked(value)
    except TypeCheckError:
        return False
    return True


# (annotation, good values, bad values): every form ann_to_type accepts.
CASES = [
    (int, [1, True, -3], [1.0, "1", None]),
    (float, [1.0, 1], ["x", 1j]),  # PEP 484's numeric tower, the default
    (complex, [1j, 1.0, 1], ["x"]),
    (bool, [True], [1]),
    (str, ["a"], [b"a"]),
    (type(None), [None], [0]),
    (Any, [object(), None], []),
    (List[int], [[], [1, 2]], [[1, "a"], (1,), None]),
    (list, [[1, "a"]], [(1,)]),
    (Dict[str, int], [{}, {"a": 1}], [{"a": "b"}, {1: 1}, []]),
    (Tuple[int, str], [(1, "a")], [(1,), (1, 2), [1, "a"]]),
    (Tuple[int, ...], [(), (1, 2, 3)], [(1, "a")]),
    (Tuple[()], [()], [(1,)]),
    (Set[int], [{1}], [{1, "a"}, [1]]),
    (FrozenSet[str], [frozenset({"a"})], [{"a"}]),
    (Optional[int], [None, 3], ["3"]),
    (Union[int, str], [1, "a"], [1.0]),
    (int | None, [None, 1], [1.5]),
    (Literal[1, "a"], [1, "a"], [2, True, "b"]),
    (Callable[[int], int], [len, lambda x: x], [3]),
    (Closer, [HasClose()], [object()]),
    (T, [[1], "ab"], [3]),
    (N, [1, "a"], [1.0]),
    (UserId, [UserId(3)], ["3"]),
    (Annotated[int, "positive"], [3], ["3"]),
    (Movie, [{"name": "x", "year": 1}], [{"name": "x"}, {"name": "x", "year": "y"}]),
    (Point, [Point(1)], [(1,)]),
    (Color, [Color.RED], [1]),
    (Sequence[int], [[1], (1, 2)], [[1, "a"], {1}]),
    (abc.Mapping[str, int], [{"a": 1}], [{"a": "b"}]),
    (abc.Iterator[int], [iter([1])], [[1]]),
    (Type[int], [int, bool], [str, 3]),
    (type, [int], [3]),
    (np.ndarray, [np.zeros(2)], [[1.0]]),
    (
        Float32[np.ndarray, "2 n"],
        [np.zeros((2, 5), np.float32)],
        [np.zeros((3, 5), np.float32), np.zeros((2, 5))],
    ),
    (List[Float[np.ndarray, "n"]], [[np.zeros(3), np.zeros(3)]], [[np.zeros(3), np.zeros(4)]]),
    (Dict[str, Int[np.ndarray, "2"]], [{"a": np.zeros(2, int)}], [{"a": np.zeros(3, int)}]),
    (Optional[Shaped[np.ndarray, "..."]], [None, np.zeros(())], [3]),
    (
        Union[Float[np.ndarray, "n"], Int[np.ndarray, "n n"]],
        [np.zeros(3), np.zeros((2, 2), int)],
        [np.zeros((2, 3), int)],
    ),
]


@pytest.mark.parametrize("ann, good, bad", CASES, ids=[str(c[0]) for c in CASES])
def test_every_form_is_checked(ann, good, bad):
    for value in good:
        assert _passes(ann, value), (ann, value)
    for value in bad:
        assert not _passes(ann, value), (ann, value)


def test_numeric_tower_follows_config_at_call_time():
    @typechecked
    def f(x: float, z: complex = 0j) -> float:
        return x

    assert f(1) == 1 and f(1.0, 2) == 1.0 and f(1, 2.5) == 1  # PEP 484, the default
    config.numeric_tower = False
    with pytest.raises(TypeCheckError, match="config.numeric_tower = False"):
        f(1)
    with pytest.raises(TypeCheckError, match="config.numeric_tower = False"):
        f(1.0, 2.5)
    with pytest.raises(TypeCheckError) as info:
        f("1")
    assert "config.numeric_tower" not in str(info.value)
    config.numeric_tower = True
    assert f(1) == 1


def test_container_check_one_samples_the_first_element():
    @typechecked
    def f(xs: List[int]) -> int:
        return len(xs)

    with pytest.raises(TypeCheckError):
        f([1, "a"])
    config.container_check = "one"
    assert f([1, "a"]) == 2  # tensortypes: ignore[arg-type] (sampled check accepts it)
    with pytest.raises(TypeCheckError):
        f(["a", 1])


def test_parameter_kinds_and_defaults_pass_through():
    seen = {}

    @typechecked
    def f(a: int, /, b: str = "b", *args: int, c: float = 1.0, **kwargs: bool) -> None:
        seen.update(a=a, b=b, args=args, c=c, kwargs=kwargs)

    f(1, "x", 2, 3, c=2.5, flag=True)
    assert seen == {"a": 1, "b": "x", "args": (2, 3), "c": 2.5, "kwargs": {"flag": True}}
    f(1)
    assert seen["b"] == "b" and seen["args"] == () and seen["c"] == 1.0
    with pytest.raises(TypeCheckError, match="parameter args"):
        f(1, "x", 2, "three")
    with pytest.raises(TypeCheckError, match="parameter kwargs"):
        f(1, flag=3)
    with pytest.raises(TypeError):
        f(a=1)  # positional-only, as in the wrapped function


def test_wrapper_looks_like_the_function():
    def original(x: int, *, y: str = "a") -> int:
        """Doc."""
        return x

    checked = typechecked(original)
    assert checked.__name__ == "original" and checked.__doc__ == "Doc."
    assert checked.__wrapped__ is original
    assert inspect.signature(checked) == inspect.signature(original)
    assert checked.__code__.co_name == "original"


def test_generated_source_is_registered_with_linecache():
    @typechecked
    def f(x: Float[np.ndarray, "b c"]) -> int:
        return 1

    checker = f.__tensortypes_checker__
    assert checker.filename.startswith("<tensortypes check ")
    lines = linecache.getlines(checker.filename)
    assert "".join(lines) == checker.source
    assert "x.shape" in checker.source


def test_parameter_names_cannot_clash_with_generated_names():
    @typechecked
    def f(_tt_s: Float[np.ndarray, "n"], _tt_r: Float[np.ndarray, "n"]) -> int:
        return _tt_s.shape[0] + _tt_r.shape[0]

    assert f(np.zeros(2), np.zeros(2)) == 4
    with pytest.raises(TypeCheckError):
        f(np.zeros(2), np.zeros(3))


def test_parameters_named_like_builtins_do_not_change_the_checks():
    @typechecked
    def f(
        type: float, len: Float[np.ndarray, "n"], tuple: Tuple[int, ...], isinstance: List[int]
    ) -> Float[np.ndarray, "n"]:
        return len

    assert f(1.0, np.zeros(2), (1,), [1]).shape == (2,)
    with pytest.raises(TypeCheckError, match="parameter type"):
        f("1", np.zeros(2), (1,), [1])
    with pytest.raises(TypeCheckError, match="parameter isinstance"):
        f(1.0, np.zeros(2), (1,), ["1"])


def test_string_annotations_resolve_at_the_first_call():
    @typechecked
    def f(x: "LaterDefined") -> "LaterDefined":  # noqa: F821
        return x

    global LaterDefined

    class LaterDefined:
        pass

    try:
        value = LaterDefined()
        assert f(value) is value
        with pytest.raises(TypeCheckError):
            f(3)
    finally:
        del LaterDefined


def test_unresolvable_string_annotation_is_unchecked_until_defined():
    # As jaxtyping leaves it to its checker, which reads it as Any; the other
    # parameters are checked (tests/runtime/test_jaxtyping_dropin.py: once defined).
    @typechecked
    def f(x: "NeverDefined", y: int) -> None:  # noqa: F821
        pass

    assert f(1, 2) is None and f("one", 2) is None
    with pytest.raises(TypeCheckError, match="parameter 'y'"):
        f(1, "two")


def test_uncheckable_annotation_fails_at_decoration_naming_it():
    with pytest.raises(AnnotationError, match="parameter x"):

        @typechecked
        def f(x: typing.Final) -> None:
            pass


def test_no_type_check_is_respected():
    @typechecked
    @typing.no_type_check
    def f(x: int) -> int:
        return x

    assert f("not an int") == "not an int"


def test_unannotated_parameters_and_return_are_not_checked():
    @typechecked
    def f(x, y: int):
        return "anything"

    assert f(object(), 1) == "anything"


def test_decorating_twice_is_idempotent():
    @typechecked
    def f(x: int) -> int:
        return x

    assert typechecked(f) is f


def test_non_function_is_refused():
    with pytest.raises(TypeError, match="not a function"):
        typechecked(3)


def test_pytree_parameters_bind_sizes_and_structures():
    from tensortypes.pytree import PyTree

    @typechecked
    def f(
        x: PyTree[Float[np.ndarray, "n"], "T"], y: PyTree[Float[np.ndarray, "n"], "T"]
    ) -> Float[np.ndarray, "n"]:
        return x["a"]

    assert f({"a": np.zeros(2)}, {"a": np.zeros(2)}).shape == (2,)
    with pytest.raises(TypeCheckError, match=r"n=2 was bound by axis 0 of x\['a'\]"):
        f({"a": np.zeros(2)}, {"a": np.zeros(3)})
    with pytest.raises(TypeCheckError, match="structure"):
        f({"a": np.zeros(2)}, [np.zeros(2)])


def test_unpacked_axes_bind_and_meet_in_order():
    # The generated check reads a shape whose axes all bind or meet named sizes with
    # one unpacking; a met size is compared after it, a repeated name in one array too.
    @typechecked
    def f(
        x: Float32[np.ndarray, "b c"], y: Float32[np.ndarray, "c d"], z: Float32[np.ndarray, "d d"]
    ) -> Float32[np.ndarray, "b d"]:
        return np.zeros((x.shape[0], y.shape[1]), np.float32)

    a, b, sq = (
        np.zeros((2, 3), np.float32),
        np.zeros((3, 4), np.float32),
        np.zeros((4, 4), np.float32),
    )
    assert f(a, b, sq).shape == (2, 4)
    with pytest.raises(TypeCheckError, match="c"):
        f(a, np.zeros((5, 4), np.float32), sq)
    with pytest.raises(TypeCheckError):
        f(a, b, np.zeros((4, 5), np.float32))
    with pytest.raises(TypeCheckError):
        f(a, b, np.zeros((5, 5), np.float32))

    class Sub(np.ndarray):
        pass

    # A subclass of NumPy's array is not NumPy's class by identity: the set and the
    # slow path still accept it.
    assert f(a.view(Sub), b, sq).shape == (2, 4)


def test_union_of_arrays_without_names_is_tried_member_by_member():
    # PRNGKeyArray-like unions bind no size: each member is tried by its matcher in
    # the generated code, no walk of the general checker per call.
    Key2 = Union[Float32[np.ndarray, ""], Int[np.ndarray, "2"]]

    @typechecked
    def f(key: Key2, other: Optional[Key2] = None) -> int:
        return 1

    source = f.__tensortypes_checker__.source
    assert ".match(key, None)" in source and "why" not in source
    assert f(np.zeros((), np.float32)) == 1
    assert f(np.zeros(2, np.int64), np.zeros((), np.float32)) == 1
    assert f(np.zeros(2, np.int64), None) == 1
    for bad in (np.zeros(3, np.int64), np.zeros((), np.float64), [1, 2], None):
        with pytest.raises(TypeCheckError, match="key"):
            f(bad)

    # A union whose members name sizes still binds them for the rest of the call.
    @typechecked
    def g(x: Union[Float[np.ndarray, "n"], Int[np.ndarray, "n 2"]], y: Float[np.ndarray, "n"]):
        return None

    g(np.zeros(3), np.zeros(3))
    with pytest.raises(TypeCheckError):
        g(np.zeros((3, 2), int), np.zeros(4))
