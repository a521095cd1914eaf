"""Agreement with TorchScript: annotations, subtyping, unification and inference.

Every answer of ``tensortypes.types`` is compared with TorchScript's own
(``torch.jit.annotations.ann_to_type``, the C++ ``isSubtypeOf``,
``torch._C.unify_type_list``, ``torch._C._jit_try_infer_type``). Each
difference is listed here as deliberate, with the expected answer, and
explained in docs/typelang.md ("Differences from TorchScript").
"""

# No ``from __future__ import annotations``: TorchScript cannot read string field
# annotations of NamedTuples (its issue #95858), and the corpus compares with it.
import enum
import itertools
import typing
import warnings
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit's own

import torch.futures  # noqa: E402, F811 (the submodule, after importorskip)
from torch._sources import fake_range  # noqa: E402
from torch.jit.annotations import ann_to_type as torch_ann_to_type  # noqa: E402

import tensortypes.types as T  # noqa: E402
from tensortypes.errors import AnnotationError  # noqa: E402
from tensortypes.types.joins import unshaped  # noqa: E402

from torchscript_bridge import from_torch, strip_mangling  # noqa: E402

Future = torch.futures.Future
RRef = torch.distributed.rpc.RRef if torch.distributed.rpc.is_available() else None


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Ratio(enum.Enum):
    HALF = 0.5


class Word(enum.Enum):
    HELLO = "hello"


class Mixed(enum.Enum):
    A = 1
    B = "b"


class Flags(enum.Enum):
    ON = True


class Nothing(enum.Enum):
    pass


class Pair(NamedTuple):
    a: int
    b: str


class Later(NamedTuple):
    a: "int"


class Point:
    def __init__(self, x: int, y: float):
        self.x = x
        self.y = y

    def norm(self) -> float:
        return self.x + self.y


class Shape(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


with warnings.catch_warnings():  # torch.jit.interface warns that it is deprecated
    warnings.simplefilter("ignore", DeprecationWarning)
    Shape = torch.jit.interface(Shape)


class Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.v = torch.rand((2, 3))

    def forward(self):
        return self.v


CLASSES = {c.__qualname__: c for c in (Color, Ratio, Word, Pair, Point, Shape)}
LOC = fake_range()

ACCEPTED = [
    int,
    float,
    complex,
    bool,
    str,
    None,
    type(None),
    Any,
    torch.Tensor,
    torch.device,
    torch.Stream,
    torch.Generator,
    torch.SymInt,
    List[int],
    list[int],
    List[List[int]],
    List[torch.Tensor],
    List[Optional[int]],
    Optional[List[int]],
    Tuple[int, str],
    tuple[int, str],
    Tuple[()],
    tuple[()],
    Tuple[int],
    Tuple[Tuple[int, int], str],
    Dict[str, torch.Tensor],
    dict[str, int],
    Dict[int, List[float]],
    Dict[float, int],
    Dict[complex, int],
    Dict[bool, int],
    Dict[torch.Tensor, int],
    Dict[torch.device, int],
    Dict[Any, int],
    Optional[int],
    int | None,
    Optional[torch.Tensor],
    Optional[Optional[int]],
    Optional[Tuple[int, str]],
    Union[int, str],
    Union[str, int],
    int | str,
    Union[int, str, None],
    Union[float, int],
    Union[float, int, complex],
    Union[int, bool],
    Union[List[int], List[str]],
    Union[Tuple[int], Tuple[int, int]],
    Union[torch.Tensor, int],
    Union[Dict[str, int], Dict[int, int]],
    Union[float, int, complex, None],
    Future[int],
    Future[Optional[int]],
    List[Future[int]],
    Color,
    Ratio,
    Word,
    Pair,
    List[Pair],
    Optional[Color],
    Point,
    Shape,
    torch.nn.Parameter,
    Tuple[List[int], Dict[str, Optional[torch.Tensor]]],
] + ([RRef[int]] if RRef is not None else [])

REFUSED = [
    List,
    Dict,
    Tuple,
    list,
    dict,
    tuple,
    typing.Sequence[int],
    typing.Callable[[int], int],
    typing.Set[int],
    typing.Literal[1],
    typing.Final[int],
    object,
    Dict[Tuple[int, int], int],
    Dict[Optional[int], int],
    Dict[List[int], int],
    Dict[Union[int, str], int],
    Tuple[int, ...],
    bytes,
    typing.Annotated[int, "x"],
    Mixed,
    Flags,
    Nothing,
    Plain,
    typing.Iterator[int],
    typing.FrozenSet[int],
]

# TorchScript fails (with an internal assert, or on a forward reference) where the
# lattice has an answer; or answers with a different type on purpose.
DELIBERATE = {
    Union[int, Any]: T.ANY,
    Union[Tuple[int], Tuple[None]]: T.UnionType([T.TupleType([T.INT]), T.TupleType([T.NONE])]),
    Later: T.NamedTupleType(Later, [("a", T.INT)]),
    torch.dtype: T.DTYPE,
}

# The same type, printed differently: TorchScript prints a union holding ``number``
# with an empty member, and keeps ``Optional[Any]``, which is ``Any``, apart.
PRINTED_DIFFERENTLY = {
    Union[float, int, complex, str]: ("Union[, str, number]", "Union[str, number]"),
    Optional[Any]: ("Optional[Any]", "Any"),
}


def _torch(ann):
    return torch_ann_to_type(ann, LOC)


def test_corpus_sizes():
    annotations = ACCEPTED + REFUSED + list(DELIBERATE) + list(PRINTED_DIFFERENTLY)
    assert len(annotations) >= 60
    assert len(SUBTYPE_PAIRS) + len(TENSOR_PAIRS) >= 50
    assert len(VALUES) >= 30


@pytest.mark.parametrize("ann", ACCEPTED, ids=repr)
def test_accepted_annotations_agree(ann):
    theirs = _torch(ann)
    ours = T.ann_to_type(ann, torchscript=True)
    assert ours is from_torch(theirs, CLASSES)
    assert str(ours) == strip_mangling(theirs.annotation_str)
    assert ours.torchscript_str() == strip_mangling(theirs.str())


@pytest.mark.parametrize("ann", ACCEPTED, ids=repr)
def test_default_mode_keeps_torchscript_meaning(ann):
    ours = T.ann_to_type(ann)
    if ann is torch.nn.Parameter:
        # Python's meaning is the subclass; TorchScript widens every subclass to Tensor.
        assert ours.kind is torch.nn.Parameter and T.is_subtype(ours, T.TENSOR)
    else:
        assert ours is T.ann_to_type(ann, torchscript=True)


@pytest.mark.parametrize("ann", REFUSED, ids=repr)
def test_refused_annotations_agree(ann):
    with pytest.raises(Exception):
        _torch(ann)
    with pytest.raises(AnnotationError, match="TorchScript|use|add"):
        T.ann_to_type(ann, torchscript=True)


@pytest.mark.parametrize("ann", list(DELIBERATE), ids=repr)
def test_deliberate_differences(ann):
    expected = DELIBERATE[ann]
    assert T.ann_to_type(ann, torchscript=True) is expected
    if ann is torch.dtype:
        assert _torch(ann) is torch._C.IntType.get()
    else:
        with pytest.raises(Exception):
            _torch(ann)


@pytest.mark.parametrize("ann", list(PRINTED_DIFFERENTLY), ids=repr)
def test_printed_differently(ann):
    theirs = _torch(ann)
    ours = T.ann_to_type(ann, torchscript=True)
    assert ours is from_torch(theirs, CLASSES)
    assert (theirs.annotation_str, str(ours)) == PRINTED_DIFFERENTLY[ann]


PAIR_TYPES = [
    int,
    float,
    complex,
    bool,
    str,
    None,
    Any,
    torch.Tensor,
    List[int],
    List[Optional[int]],
    List[Any],
    Tuple[int, str],
    Tuple[Optional[int], str],
    Tuple[Any, Any],
    Dict[str, int],
    Dict[str, Optional[int]],
    Optional[int],
    Optional[str],
    Union[int, str],
    Union[int, str, None],
    Union[float, int],
    Union[float, int, complex],
    Future[int],
    Future[Optional[int]],
    Pair,
    Optional[torch.Tensor],
    Optional[Any],
    Union[int, bool],
]
SUBTYPE_PAIRS = list(itertools.product(PAIR_TYPES, PAIR_TYPES))


def _tensor(dtype, sizes):
    t = torch._C.TensorType.get()
    if dtype is not None:
        t = t.with_dtype(dtype)
    if sizes is not None:
        t = t.with_sizes(list(sizes))
    return t


TENSORS = [
    (torch.float32, (2, 3)),
    (torch.float32, (2, None)),
    (torch.float32, None),
    (None, None),
    (torch.float64, (2, 3)),
    (torch.float32, (2, 3, 4)),
    (None, (2, 3)),
]
TENSOR_PAIRS = list(itertools.product(TENSORS, TENSORS))


def _ours_tensor(dtype, sizes):
    return T.ArrayType("torch", None if dtype is None else str(dtype).replace("torch.", ""), sizes)


@pytest.mark.parametrize("a, b", SUBTYPE_PAIRS, ids=repr)
def test_subtype_and_unify_agree(a, b):
    ta, tb = _torch(a), _torch(b)
    oa, ob = T.ann_to_type(a, torchscript=True), T.ann_to_type(b, torchscript=True)
    assert T.is_subtype(oa, ob) is ta.isSubtypeOf(tb)
    _assert_unify_agrees(oa, ob, ta, tb)


@pytest.mark.parametrize("a, b", TENSOR_PAIRS, ids=repr)
def test_tensor_subtype_and_unify_agree(a, b):
    ta, tb = _tensor(*a), _tensor(*b)
    oa, ob = _ours_tensor(*a), _ours_tensor(*b)
    assert oa is from_torch(ta) and ob is from_torch(tb)
    assert T.is_subtype(oa, ob) is ta.isSubtypeOf(tb)
    _assert_unify_agrees(oa, ob, ta, tb)
    _assert_unify_agrees(
        T.ListType(oa), T.ListType(ob), torch._C.ListType(ta), torch._C.ListType(tb)
    )
    _assert_unify_agrees(T.OptionalType(oa), ob, torch._C.OptionalType(ta), tb)


def _assert_unify_agrees(oa, ob, ta, tb):
    try:
        theirs = from_torch(torch._C.unify_type_list([ta, tb]), CLASSES)
    except RuntimeError:
        theirs = None
    # Compared as types: TorchScript's Optional[Any] is our Any, its Optional[Union[...]]
    # our union holding None.
    assert T.unify(oa, ob) is theirs
    assert T.unify_list([oa, ob]) is theirs


VALUES = [
    1,
    1.0,
    True,
    "a",
    None,
    1j,
    [1, 2, 3],
    [1.0],
    ["a", "b"],
    [True],
    {"a": 1.0},
    {1: "a"},
    {1.0: 2},
    {True: 1},
    (1, "a"),
    (),
    [[1], [2]],
    [None],
    [None, 1],
    [1, None],
    (1, (2, 3.0)),
    [(1, "a"), (2, "b")],
    [(1, "a"), (2, None)],
    [[1.0, 2.0], [3.0]],
    {"x": [1, 2]},
    {"a": (1, 2)},
    [{"a": 1}],
    [1, "a"],
    [1, 1.0],
    [True, 1],
    {"a": 1, "b": "x"},
    [[1], []],
    "tensor",
    "tensor list",
    "tensor dict",
    "device",
    "generator",
    "int64 tensor",
    "scalar tensor",
    "color",
]

# Python's answer where TorchScript fails or drops information (docs/typelang.md).
DELIBERATE_VALUES = [
    ([], T.ListType(T.TENSOR)),
    ({}, T.DictType(T.STR, T.TENSOR)),
    ({1, 2}, T.SetType(T.INT)),
    (b"x", T.ClassType(bytes)),
    (Pair(1, "x"), T.ann_to_type(Pair)),
]


def _value(v):
    named = {
        "tensor": torch.zeros(2, 3),
        "tensor list": [torch.zeros(2), torch.zeros(3)],
        "tensor dict": {"a": torch.zeros(2)},
        "device": torch.device("cpu"),
        "generator": torch.Generator(),
        "int64 tensor": torch.zeros(2, dtype=torch.int64),
        "scalar tensor": torch.zeros(()),
        "color": Color.RED,
    }
    return named[v] if isinstance(v, str) and v in named else v


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_inferred_types_agree(value):
    value = _value(value)
    result = torch._C._jit_try_infer_type(value)
    if not result.success():
        with pytest.raises(TypeError, match="do not unify"):
            T.infer_type(value)
        return
    ours = T.infer_type(value)
    # TorchScript drops a tensor's dtype and shape; ours keeps them.
    assert unshaped(ours) is from_torch(result.type(), CLASSES)


def test_inferred_tensors_keep_dtype_and_shape():
    assert T.infer_type(torch.zeros(2, 3)) is T.ArrayType("torch", "float32", (2, 3))
    assert T.infer_type(torch.zeros((), dtype=torch.int64)).torchscript_str() == "Long()"
    assert T.infer_type([torch.zeros(2), torch.zeros(3)]) is T.ListType(
        T.ArrayType("torch", "float32", (None,))
    )


@pytest.mark.parametrize("value, expected", DELIBERATE_VALUES, ids=repr)
def test_inferred_deliberate_differences(value, expected):
    assert T.infer_type(value) is expected
    result = torch._C._jit_try_infer_type(value)
    if result.success():
        theirs = from_torch(result.type(), CLASSES)
        assert theirs is not expected
        if isinstance(value, tuple):
            assert T.is_subtype(expected, theirs) is True  # a named tuple is below its Tuple
