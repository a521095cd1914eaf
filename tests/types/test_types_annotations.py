"""``ann_to_type``: every typing form, strings and forward references, the lattice ``.type``
protocol, TorchScript's restrictions under ``torchscript=True``, and the cache."""

from __future__ import annotations

import collections
import collections.abc as abc
import dataclasses
import enum
import typing
from typing import (
    Any,
    Callable,
    Dict,
    Final,
    FrozenSet,
    List,
    Literal,
    NamedTuple,
    Optional,
    Protocol,
    Set,
    Tuple,
    Type,
    TypedDict,
    TypeVar,
    Union,
)

import numpy as np
import pytest

import tensortypes.types as T
from tensortypes.errors import AnnotationError

I, F, S, N, A, B = T.INT, T.FLOAT, T.STR, T.NONE, T.ANY, T.BOOL


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Pair(NamedTuple):
    a: int
    b: "Optional[Pair2]"


class Pair2(NamedTuple):
    x: float


class Movie(TypedDict, total=False):
    name: typing.Required[str]
    year: int


class Closer(Protocol):
    def close(self) -> None: ...


@dataclasses.dataclass
class Point:
    x: int
    y: float = 0.0


UserId = typing.NewType("UserId", int)
TB = TypeVar("TB", bound=int)
TC = TypeVar("TC", int, str, covariant=True)


@pytest.mark.parametrize(
    "ann, expected",
    [
        (int, I),
        (float, F),
        (complex, T.COMPLEX),
        (bool, B),
        (str, S),
        (None, N),
        (type(None), N),
        (Any, A),
        (object, A),
        (List[int], T.ListType(I)),
        (list[int], T.ListType(I)),
        (List, T.ListType(A)),
        (list, T.ListType(A)),
        (Tuple[int, str], T.TupleType([I, S])),
        (Tuple[()], T.TupleType([])),
        (tuple[()], T.TupleType([])),
        (Tuple[int, ...], T.VarTupleType(I)),
        (Tuple, T.VarTupleType(A)),
        (tuple, T.VarTupleType(A)),
        (Dict[str, int], T.DictType(S, I)),
        (dict, T.DictType(A, A)),
        (Optional[int], T.OptionalType(I)),
        (int | None, T.OptionalType(I)),
        (Union[int, str], T.UnionType([I, S])),
        (int | str | None, T.UnionType([I, S, N])),
        (Set[int], T.SetType(I)),
        (set[int], T.SetType(I)),
        (FrozenSet[int], T.FrozenSetType(I)),
        (Literal[1, "a"], T.LiteralType([1, "a"])),
        (Literal[None], N),
        (Literal[True, False], B),
        (Literal[Color.RED, Color.GREEN], T.EnumClassType(Color)),
        (Callable[[int], str], T.CallableType([I], S)),
        (Callable[..., int], T.CallableType(None, I)),
        (Callable, T.CallableType(None, A)),
        (abc.Callable[[int], int], T.CallableType([I], I)),
        (typing.Annotated[int, "meta"], T.AnnotatedType(I, ["meta"])),
        (Final[int], I),
        (typing.ClassVar[str], S),
        (Type[int], T.TypeOfType(I)),
        (type[Color], T.TypeOfType(T.EnumClassType(Color))),
        (type, T.TypeOfType(A)),
        (typing.Sequence[int], T.AbcType(abc.Sequence, [I])),
        (abc.Mapping[str, int], T.AbcType(abc.Mapping, [S, I])),
        (typing.Iterator[int], T.AbcType(abc.Iterator, [I])),
        (typing.Generator[int, None, str], T.AbcType(abc.Generator, [I, N, S])),
        (typing.AsyncIterator[int], T.AbcType(abc.AsyncIterator, [I])),
        (typing.Awaitable[int], T.AbcType(abc.Awaitable, [I])),
        (typing.Iterable, T.AbcType(abc.Iterable, [A])),
        (abc.Sized, T.AbcType(abc.Sized)),
        (Color, T.EnumClassType(Color)),
        (Closer, T.ProtocolType(Closer)),
        (Point, T.ClassType(Point)),
        (bytes, T.ClassType(bytes)),
        (typing.DefaultDict[str, int], T.ClassType(collections.defaultdict)),
        (UserId, T.NewTypeType("UserId", I, UserId)),
        (typing.TypeGuard[int], B),
        (typing.LiteralString, S),
        (np.ndarray, T.ArrayType("numpy")),
    ],
)
def test_typing_forms(ann, expected):
    assert T.ann_to_type(ann) is expected


def test_named_tuples_typed_dicts_typevars():
    pair = T.ann_to_type(Pair)
    assert isinstance(pair, T.NamedTupleType) and pair.cls is Pair
    assert pair.field("b") is T.OptionalType(T.ann_to_type(Pair2))  # a forward reference
    with pytest.raises(AttributeError, match="no field 'z'"):
        pair.field("z")
    plain = collections.namedtuple("plain", "a b")
    assert T.ann_to_type(plain).elements == (A, A)
    assert T.ann_to_type(plain, torchscript=True).elements == (T.TENSOR, T.TENSOR)
    movie = T.ann_to_type(Movie)
    assert movie.required == frozenset({"name"}) and dict(movie.fields) == {"name": S, "year": I}
    tb = T.ann_to_type(TB)
    assert tb.bound is I and tb.variance == "invariant" and tb.typevar is TB
    tc = T.ann_to_type(TC)
    assert tc.constraints == (I, S) and tc.variance == "covariant"
    assert T.ann_to_type(TB) is not T.ann_to_type(TypeVar("TB", bound=int))


def test_strings_and_forward_references():
    namespace = {"Node": Point}
    assert T.ann_to_type("List[int]") is T.ListType(I)
    assert T.ann_to_type("Optional[Node]", namespace) is T.OptionalType(T.ClassType(Point))
    assert T.ann_to_type(List["Node"], namespace) is T.ListType(T.ClassType(Point))
    assert T.ann_to_type(typing.ForwardRef("int | None")) is T.OptionalType(I)
    assert T.ann_to_type("Literal[-1]") is T.LiteralType([-1])
    assert T.ann_to_type("Union[int, number]") is T.NUMBER
    assert T.ann_to_type("Node", None, {"Node": int}) is I


@pytest.mark.parametrize(
    "text, fragment, caret",
    [
        ("List[Nope]", "'Nope' is not defined", "     ^^^^"),
        ("List[int", "invalid annotation syntax", None),
        ("f(x)", "Call is not allowed", "^^^^"),
        ("lambda: 1", "Lambda is not allowed", "^^^^^^^^^"),
        ("typing.Nope", "has no attribute 'Nope'", "^^^^^^^^^^^"),
    ],
)
def test_bad_strings_raise_with_a_caret(text, fragment, caret):
    with pytest.raises(AnnotationError, match=fragment) as info:
        T.ann_to_type(text, {"typing": typing})
    lines = str(info.value).splitlines()
    assert lines[1].strip() == text
    if caret is not None:
        assert lines[2][4:] == caret


def test_unsupported_forms():
    for bad in (..., 3, typing.Union, typing.Optional):
        with pytest.raises(AnnotationError):
            T.ann_to_type(bad)


class _Annotation:
    """Stands for the array annotations of tensortypes.annotate: a lattice ``.type``."""

    def __init__(self, t):
        self.type = t


def test_objects_with_a_lattice_type_plug_in():
    shaped = T.ArrayType("torch", "float32", (None, 3))
    assert T.ann_to_type(_Annotation(shaped)) is shaped
    assert T.ann_to_type(List[_Annotation(shaped)]) is T.ListType(shaped)
    carrier = type("Carrier", (), {"type": shaped})
    assert T.ann_to_type(carrier) is shaped
    assert T.ann_to_type(T.INT) is T.INT


def test_cache_is_per_object_and_mode():
    first = T.ann_to_type(Dict[str, List[int]])
    assert T.ann_to_type(Dict[str, List[int]]) is first
    assert T.ann_to_type(Dict[str, List[int]], torchscript=True) is first
    unhashable = typing.Annotated[int, []]
    assert T.ann_to_type(unhashable) is T.ann_to_type(unhashable)
    # A namespace is read every time: it may change.
    namespace = {"X": int}
    assert T.ann_to_type("X", namespace) is I
    namespace["X"] = str
    assert T.ann_to_type("X", namespace) is S


class Mixed(enum.Enum):
    A = 1
    B = "b"


class Flags(enum.Enum):
    ON = True


class Empty(enum.Enum):
    pass


class Ratio(enum.Enum):
    HALF = 0.5


@pytest.mark.parametrize(
    "ann, fragment",
    [
        (List, "e.g. List[int]"),
        (dict, "e.g. Dict[str, int]"),
        (Tuple, "e.g. Tuple[int]"),
        (typing.Sequence[int], "use List[int]"),
        (Callable[[int], int], "torch.jit.interface"),
        (Set[int], "use List[T]"),
        (set, "use List[T]"),
        (Literal[1], "use an Enum"),
        (Final[int], "annotate the value as int"),
        (object, "use Any"),
        (Dict[Tuple[int, int], int], "use a str key"),
        (Tuple[int, ...], "fixed-length Tuple"),
        (Type[int], "pass an instance"),
        (TB, "concrete type"),
        (UserId, "base type int"),
        (Movie, "Dict[str, T]"),
        (Closer, "torch.jit.interface"),
        (bytes, "use str"),
        (np.ndarray, "use torch.Tensor"),
        (typing.Annotated[int, 1], "write int"),
        (Mixed, "every value an int"),
        (Flags, "only int, float and str"),
        (Empty, "add members"),
        (abc.Sized, "concrete TorchScript type"),
        (collections.OrderedDict, "abstract base"),
    ],
)
def test_torchscript_mode_refuses_with_advice(ann, fragment):
    with pytest.raises(AnnotationError, match="is not a TorchScript type") as info:
        T.ann_to_type(ann, torchscript=True)
    assert fragment in str(info.value)


def test_torchscript_mode_accepts_its_language():
    assert T.ann_to_type(Ratio, torchscript=True) is T.EnumClassType(Ratio)
    assert T.ann_to_type(Point, torchscript=True) is T.ClassType(Point)  # not compiled
    assert T.ann_to_type(Dict[bool, Any], torchscript=True) is T.DictType(B, A)
    assert T.ann_to_type(typing.ClassVar[int], torchscript=False) is I


def test_torch_classes_are_recognised():
    torch = pytest.importorskip("torch")
    assert T.ann_to_type(torch.Tensor) is T.TENSOR
    assert T.ann_to_type(torch.device) is T.DEVICE
    assert T.ann_to_type(torch.dtype) is T.DTYPE
    assert T.ann_to_type(torch.Stream) is T.STREAM
    assert T.ann_to_type(torch.Generator) is T.GENERATOR
    assert T.ann_to_type(torch.SymInt) is I
    assert T.ann_to_type(torch.futures.Future[int]) is T.FutureType(I)
    assert T.ann_to_type(torch.nn.Parameter).kind is torch.nn.Parameter
    assert T.ann_to_type(torch.nn.Parameter, torchscript=True) is T.TENSOR


def test_no_array_library_is_imported(run_python):
    run_python("""
        import sys, typing
        import numpy as np
        import tensortypes.types as T
        T.ann_to_type(typing.Dict[str, typing.Optional[np.ndarray]])
        T.ann_to_type("List[int]", torchscript=True)
        T.infer_type({"a": [np.zeros(3)]})
        T.check_value(np.zeros(2), T.ArrayType("any", "float64", (2,)))
        for name in ("torch", "jax", "tensorflow", "mlx"):
            assert name not in sys.modules, name
    """)


def test_works_with_the_array_libraries_blocked(run_python):
    run_python("""
        import sys
        for name in ("torch", "jax", "tensorflow", "mlx"):
            sys.modules[name] = None  # importing any of them now fails
        import typing
        import tensortypes.types as T
        t = T.ann_to_type(typing.Optional[typing.List[int]], torchscript=True)
        assert t.torchscript_str() == "int[]?"
        value = T.infer_type({"a": [1, None]})
        assert value is T.DictType(T.STR, T.ListType(T.OptionalType(T.INT)))
        assert T.unify(T.INT, T.NONE) is T.OptionalType(T.INT)
        assert T.is_subtype(T.ArrayType("torch", "float32", (2, 3)), T.TENSOR) is True
    """)
