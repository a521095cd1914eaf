"""Enum values at the edges: huge ints, floats for ints, constants the C type cannot hold, NaN.

Every bad value is a ``TypeCheckError`` in Python and in C (never an
``OverflowError`` or a silent truncation), a constant the C type cannot hold is
refused when the enum is built, and a NaN constant is one value like any other.
"""

from __future__ import annotations

import math
import pickle

import pytest

from c_toys import fgraph
from test_c_enum import Passthrough
from tensortypes.errors import TypeCheckError
from tensortypes.link.c import CEnumType, EnumList, EnumType
from tensortypes.link.c.enum_types import check_enum_conflicts

ENUMS = {
    "list": lambda: EnumList("A", "B", "C", cname="ev_list"),
    "int": lambda: EnumType(A=1, B=2, ctype="int", cname="ev_int"),
    "long long": lambda: EnumType(A=1, H=2**62, ctype="long long", cname="ev_ll"),
    "char": lambda: EnumType(A=1, Z=100, ctype="char", cname="ev_char"),
    "double": lambda: EnumType(A=1, B=2.5, cname="ev_double"),
    "cenum": lambda: CEnumType("SEEK_SET", "SEEK_END", cname="ev_cenum"),
}
BAD = [
    2**70,
    -(2**70),
    10**400,
    2**63,
    -(2**63) - 1,
    1.5,
    0.5,
    float("nan"),
    float("inf"),
    "A",
    None,
    [1],
]


def _passthrough(linker, enum):
    v = enum("v")
    return linker.make_function(fgraph([v], [Passthrough()(v)]))


@pytest.mark.parametrize("kind", ENUMS)
def test_bad_values_are_type_check_errors_in_c(linker, kind):
    enum = ENUMS[kind]()
    f = _passthrough(linker, enum)
    for value in BAD:
        if kind == "double" and value == 2.5:
            continue
        with pytest.raises(TypeCheckError, match="unknown value|invalid value|expected an int"):
            f([value])
        with pytest.raises(TypeCheckError):
            enum.filter(value, strict=True)  # Python agrees
        assert not enum.is_valid_value(value)


@pytest.mark.parametrize("kind", ["list", "int", "char"])
def test_a_float_is_never_truncated_into_an_int_constant(linker, kind):
    enum = ENUMS[kind]()
    f = _passthrough(linker, enum)
    with pytest.raises(TypeCheckError, match="unknown value 1.5"):
        f([1.5])  # before: [1]
    assert f([1.0]) == [1] and f([1]) == [1] and f([True]) == [1]


def test_every_constant_round_trips_through_c(linker):
    for make in ENUMS.values():
        enum = make()
        if isinstance(enum, CEnumType):
            continue
        f = _passthrough(linker, enum)
        for name, value in enum.items():
            assert f([value]) == [value], (enum, name)


def test_the_message_never_calls_the_values_repr(linker):
    class Hostile(int):
        def __repr__(self):
            raise RuntimeError("repr boom")

    enum = ENUMS["int"]()
    f = _passthrough(linker, enum)
    with pytest.raises(TypeCheckError, match="unknown value 7"):
        f([Hostile(7)])
    with pytest.raises(TypeCheckError, match="unknown value 7"):
        enum.filter(Hostile(7), strict=True)
    with pytest.raises(TypeCheckError, match="an int of 16610 bits"):
        enum.filter(10**5000)  # its decimal text would exceed Python's limit


@pytest.mark.parametrize(
    "ctype, constants, match",
    [
        ("int", {"BIG": 2**40, "S": 1}, "int holds"),
        ("char", {"A": 1, "Z": 300}, "char holds 0 to 127"),
        ("char", {"M": -1}, "signed char or unsigned char"),
        ("unsigned char", {"M": -1}, "holds 0 to 255"),
        ("signed char", {"M": 128}, "holds -128 to 127"),
        ("long long", {"H": 2**70}, "long long"),
        ("double", {"H": 2**70}, "reads enum values as long long"),
        ("int", {"F": 1.5}, "integers only"),
        ("int", {"N": float("nan")}, "integers only"),
        ("float", {"P": 0.1}, "would store it as 0.10000000149"),
        ("float", {"B": 1e300}, "would store it as inf"),
        ("double", {"B": 2**53 + 1}, "would store it as"),
    ],
)
def test_constants_the_c_type_cannot_hold_are_refused(ctype, constants, match):
    with pytest.raises(ValueError, match=f"does not fit the C type.*{match}"):
        EnumType(ctype=ctype, **constants)


def test_constants_that_fit_are_accepted():
    assert EnumType(A=-128, B=127, ctype="signed char").B == 127
    assert EnumType(A=2.0, ctype="int").A == 2.0
    assert EnumType(H=2**62, ctype="long long").H == 2**62
    assert EnumType(P=0.5, I=float("inf"), ctype="float").P == 0.5
    assert EnumType(Q=2**40, ctype="my_own_t").Q == 2**40  # unknown types: long long


def test_a_nan_constant_is_one_value(linker):
    enum = EnumType(N=float("nan"), I=float("inf"), cname="ev_nan")
    check_enum_conflicts([enum, enum])  # before: "nan in ... but nan in ..."
    other = EnumType(N=float("nan"), I=float("inf"), cname="ev_nan")
    assert other == enum and hash(other) == hash(enum)
    copy = pickle.loads(pickle.dumps(enum))
    assert copy == enum and hash(copy) == hash(enum)
    check_enum_conflicts([enum, other, copy])
    assert math.isnan(enum.filter(float("nan")))
    f = _passthrough(linker, enum)
    [out] = f([float("nan")])
    assert math.isnan(out)
    assert f([math.inf]) == [math.inf]
    with pytest.raises(TypeCheckError, match="unknown value -inf"):
        f([-math.inf])


def test_a_constant_with_two_values_is_still_refused():
    with pytest.raises(ValueError, match="the C constant N is nan"):
        check_enum_conflicts([EnumType(N=float("nan"), cname="one"), EnumType(N=1.0, cname="two")])
