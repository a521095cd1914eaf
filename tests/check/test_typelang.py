"""The checker on the type language: annotations read from source, values against types."""

from __future__ import annotations

import ast
import typing

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortypes.annotate import Float32, Int, Shaped
from tensortypes.check import check_source
from tensortypes.check.annotations import read_annotation
from tensortypes.check.annvalues import value_of
from tensortypes.check.joins import join_values
from tensortypes.check.modinfo import ModuleInfo
from tensortypes.check.shapetext import parse_shape, shape_pattern
from tensortypes.check.symbolic import (
    NONE,
    UNKNOWN,
    Arr,
    BoolV,
    FloatV,
    InstV,
    IntV,
    ListV,
    StrV,
    TupleV,
    UnionV,
)
from tensortypes.check.typelang import class_type, fits, join_kinds, type_of
from tensortypes.core import dims
from tensortypes.errors import AnnotationError
from tensortypes.types import (
    ANY,
    FLOAT,
    INT,
    STR,
    ArrayType,
    ClassType,
    ListType,
    OptionalType,
    ann_to_type,
    is_subtype,
)

IMPORTS = (
    "from typing import Any, Dict, FrozenSet, List, Literal, Optional, Sequence, Set, "
    "Tuple, Union\nimport numpy as np\nimport torch\n"
    "from jaxtyping import Float32, Int, Shaped\n"
)
LIVE = {
    name: getattr(typing, name)
    for name in (
        "Any",
        "Dict",
        "FrozenSet",
        "List",
        "Literal",
        "Optional",
        "Sequence",
        "Set",
        "Tuple",
        "Union",
    )
}


def _module(source: str = "") -> ModuleInfo:
    return ModuleInfo(ast.parse(IMPORTS + source))


def _read(text: str, module: ModuleInfo | None = None):
    return read_annotation(ast.parse(text, mode="eval").body, module or _module())


@pytest.mark.parametrize(
    "text",
    [
        "int",
        "float",
        "str",
        "bool",
        "complex",
        "None",
        "Any",
        "List[int]",
        "list[str]",
        "Optional[List[int]]",
        "Dict[str, float]",
        "Tuple[int, str]",
        "Tuple[int, ...]",
        "Tuple[()]",
        "Union[int, str]",
        "int | None",
        "Union[int, None, str]",
        "List[Tuple[int, Optional[str]]]",
        "Sequence[float]",
        "Literal['a', 'b']",
        "Set[int]",
        "FrozenSet[str]",
        "'Optional[int]'",
        "Optional[Any]",
    ],
)
def test_typing_forms_read_from_source_are_the_types_of_ann_to_type(text):
    assert _read(text) is ann_to_type(eval(text, dict(LIVE)))


@pytest.mark.parametrize(
    "text, live",
    [
        ('Float32[np.ndarray, "b 3"]', Float32[np.ndarray, "b 3"]),
        ('Int[np.ndarray, "n #m *rest"]', Int[np.ndarray, "n #m *rest"]),
        ('Shaped[np.ndarray, "..."]', Shaped[np.ndarray, "..."]),
        ('Float32[np.ndarray, "n-1 2*n"]', Float32[np.ndarray, "n-1 2*n"]),
    ],
)
def test_array_annotations_read_from_source_are_the_annotations_types(text, live):
    assert _read(text) is live.type


def test_array_annotations_keep_kind_dtype_and_shape():
    t = _read('Float32[torch.Tensor, "b {self.d_in}"]')
    assert t is ArrayType("torch", "float32", shape_pattern("b d_in"))
    assert str(t) == 'Float32[Tensor, "b d_in"]'
    assert _read("torch.Tensor") is ArrayType("torch")
    assert _read("Optional[np.ndarray]") is OptionalType(ArrayType("numpy"))


def test_unknown_annotations_are_any():
    assert _read("mystery.Thing") is ANY
    assert _read("Tuple[Unpack[Ts]]", _module("from typing import Unpack\n")) is ANY
    assert _read("Callable[[int], int]") is ANY
    assert _read("Union[int, mystery.Thing]") is ANY


def test_shape_strings_go_through_the_annotation_parser():
    assert parse_shape("{self.k}+3 #{n}") == (dims.parse("k+3"), parse_shape("#n")[0])
    for bad in ("b, c", "n#", "b n+*2", "*a *b"):
        with pytest.raises(AnnotationError) as info:
            shape_pattern(bad)
        assert "^" in str(info.value)


def test_a_malformed_shape_string_is_a_diagnostic_with_a_caret():
    src = (
        "from jaxtyping import Float\nimport torch\n"
        "def f(x: Float[torch.Tensor, 'b, c']) -> None:\n    pass\n"
    )
    (d,) = check_source(src)
    assert d.code == "annotation" and "commas" in d.message
    assert d.notes[-1].strip() == "^" and d.notes[0].strip() == "b, c"


def test_checked_classes_are_nominal_types_with_their_bases():
    module = _module(
        "class A:\n    pass\nclass B(A):\n    pass\nclass C:\n    pass\n"
        "from typing import Protocol\nclass P(Protocol):\n    pass\n"
        "class N(int):\n    pass\n"
    )
    a, b, c = (class_type(module.classes[n], module) for n in "ABC")
    assert type(a) is ClassType and str(a) == "A"
    assert is_subtype(b, a) is True and is_subtype(a, b) is False
    assert is_subtype(c, a) is False
    assert class_type(module.classes["P"], module) is ANY
    assert is_subtype(class_type(module.classes["N"], module), INT) is True
    assert value_of(b, module).info is module.classes["B"]
    again = _module("class A:\n    pass\n")
    assert class_type(again.classes["A"], again) is a  # one stand-in per name and bases


def test_values_against_types_follow_the_lattice_with_python_numbers():
    assert fits(StrV(), INT) is False and fits(IntV(), STR) is False
    assert fits(IntV(), FLOAT) and fits(BoolV(), INT)
    assert fits(FloatV(), INT) is False
    assert fits(UNKNOWN, INT) and fits(StrV(), ANY)
    assert fits(ListV((IntV(), IntV())), ListType(FLOAT))  # a literal takes the element type
    assert fits(ListV((StrV(),)), ListType(INT)) is False
    assert fits(ListV(None), ListType(INT))  # elements unknown: gradual
    assert fits(UnionV((IntV(), NONE)), INT) is False
    assert fits(UnionV((IntV(), NONE)), OptionalType(FLOAT))
    assert fits(TupleV((IntV(), StrV())), _read("Tuple[int, str]"))
    assert fits(StrV("a"), _read("Literal['a', 'b']")) and not fits(
        StrV("c"), _read("Literal['a', 'b']")
    )
    torch_array = Arr("torch", None, None)
    assert fits(torch_array, ArrayType("torch")) and not fits(torch_array, ArrayType("numpy"))
    assert fits(Arr("torch", None, ()), FLOAT)  # a 0-d array converts to a number
    assert not fits(Arr("torch", None, (dims.symbol("n"),)), FLOAT)


def test_joins_of_different_kinds_go_through_unify_and_join():
    module = _module("class A:\n    pass\nclass B(A):\n    pass\n")
    for info in module.classes.values():
        class_type(info, module)
    a, b = InstV(module.classes["A"]), InstV(module.classes["B"])
    assert join_kinds(a, b) is a  # the subclass is absorbed
    joined = join_values(IntV(), StrV())
    assert type(joined) is UnionV and str(type_of(joined)) == "Union[int, str]"
    assert type(join_values(IntV(), FloatV())) is FloatV  # the numeric tower
    assert join_values(Arr("torch", None, None), IntV()) is UNKNOWN


_SCALARS = st.sampled_from(
    [IntV(), FloatV(), BoolV(), StrV(), NONE, IntV(dims.const(3)), StrV("a")]
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: TupleV(tuple(xs))),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: ListV(tuple(xs))),
    ),
    max_leaves=6,
)


@settings(deadline=None, max_examples=150)
@given(_VALUES)
def test_a_value_fits_its_own_type(value):
    assert fits(value, type_of(value)) is not False


@settings(deadline=None, max_examples=150)
@given(_VALUES, _VALUES)
def test_the_join_of_two_values_admits_both(a, b):
    joined = type_of(join_values(a, b))
    if joined is ANY:
        return
    assert fits(a, joined) is not False and fits(b, joined) is not False


NON_ARRAY = """
from typing import List, Optional

def count(items: List[str], limit: int) -> int:
    return min(len(items), limit)

def caller() -> None:
    count(["a"], "3")

def half(n: int) -> int:
    if n < 0:
        return None
    return n // 2

def bump(n: Optional[int]) -> int:
    return n + 1

def pick(flag: bool) -> int:
    if flag:
        value = 1
    else:
        value = None
    return value
"""


def test_the_four_non_array_rules_of_the_issue():
    found = [(d.line, d.code) for d in check_source(NON_ARRAY)]
    assert found == [(8, "arg-type"), (12, "return"), (16, "optional"), (23, "optional")]


@pytest.mark.parametrize(
    "name",
    [
        "Int2",
        "Int4",
        "UInt2",
        "UInt4",
        "Float8e4m3b11fnuz",
        "Float8e4m3fn",
        "Float8e4m3fnuz",
        "Float8e5m2",
        "Float8e5m2fnuz",
    ],
)
def test_every_runtime_dtype_class_is_known_to_the_checker(name):
    from tensortypes import annotate, check_source

    source = (
        f"import numpy as np\nfrom tensortypes import {name}, Float64\n"
        f"def f(x: {name}[np.ndarray, 'n']) -> Float64[np.ndarray, 'n']:\n"
        "    return x\n"
    )
    found = check_source(source)
    dtype = sorted(annotate.DTYPE_CLASSES[name].dtypes)[0]
    assert [d.code for d in found] == ["return"] and dtype in found[0].message
