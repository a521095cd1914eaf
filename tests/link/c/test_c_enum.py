"""EnumType, EnumList and CEnumType: every statement of Theano's type interface, in Python and in C."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from c_toys import double, fgraph
from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, CLinkerOp, Op, generic
from tensortypes.link.c import CEnumType, EnumList, EnumType
from tensortypes.types.primitives import INT


# -- constants, values, aliases --------------------------------------------------------------


def test_spec_example_values():
    enum = EnumType(CONSTANT_1=1, CONSTANT_2=2.5, CONSTANT_3=False, CONSTANT_4=True)
    assert (enum.CONSTANT_1, enum.CONSTANT_2, enum.CONSTANT_3, enum.CONSTANT_4) == (1, 2.5, 0, 1)
    assert type(enum.CONSTANT_3) is int and type(enum.CONSTANT_4) is int  # bools stored as ints
    assert enum["CONSTANT_2"] == 2.5 and len(enum) == 4 and "CONSTANT_1" in enum
    assert list(enum) == ["CONSTANT_1", "CONSTANT_2", "CONSTANT_3", "CONSTANT_4"]
    assert enum.ctype == "double" and enum.cname == "double"


def test_spec_alias_example():
    enum = EnumType(A=("alpha", 1), B=("beta", 2), C=3, D=("delta", 4))
    assert (enum.A, enum.B, enum.C, enum.D) == (1, 2, 3, 4)
    assert enum.fromalias("alpha") == 1 and enum.fromalias("beta") == 2
    assert enum.fromalias("delta") == 4
    assert enum.fromalias("C") == 3  # an unknown alias is looked up as a constant name
    assert enum.filter("delta", strict=False) == 4
    assert enum.get_aliases() == ("alpha", "beta", "delta")
    assert enum.has_alias("beta") and not enum.has_alias("C") and not enum.has_alias("gamma")
    with pytest.raises(KeyError, match="gamma"):
        enum.fromalias("gamma")


@pytest.mark.parametrize("name", ["a", "Ab", "1A", "A-B", "_A", "A B", ""])
def test_constant_names_are_capitals_digits_underscores(name):
    with pytest.raises(ValueError, match="invalid constant name"):
        EnumType(**{name: 1})


def test_names_with_digits_and_underscores_are_fine():
    assert EnumType(A_1=1, B2_C=2).B2_C == 2


@pytest.mark.parametrize("value", ["1", None, b"1", 1j, object()])
def test_values_are_ints_floats_or_bools(value):
    with pytest.raises(TypeError, match="expected an int, a float or a bool"):
        EnumType(A=value)


def test_numpy_numbers_become_python_numbers():
    enum = EnumType(A=np.int32(3), B=np.float32(0.5))
    assert type(enum.A) is int and type(enum.B) is float


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"A": ("alpha", 1, 2)}, TypeError, "2 values"),
        ({"A": (1, 1)}, TypeError, "alias must be a str"),
        ({"A": ("A", 1)}, ValueError, "useless"),
        ({"A": ("x", 1), "B": ("x", 2)}, ValueError, "used twice"),
        ({"A": ("B", 1), "B": 2}, ValueError, "also constant names"),
    ],
)
def test_bad_aliases(kwargs, error, match):
    with pytest.raises(error, match=match):
        EnumType(**kwargs)


def test_ctype_and_cname_are_validated_c_names():
    enum = EnumType(A=0, ctype="unsigned   long long")
    assert enum.ctype == "unsigned long long" and enum.cname == "unsigned_long_long"
    assert EnumType(A=0, ctype="size_t", cname="MyEnumName").cname == "MyEnumName"
    for ctype in ("int; system(1)", "int*", "double)", "", "long {"):
        with pytest.raises(ValueError, match="C type|pointer"):
            EnumType(A=0, ctype=ctype)
    for cname in ("1abc", "my-enum", "a b", ""):
        with pytest.raises(ValueError, match="C identifier"):
            EnumType(A=0, cname=cname)
    with pytest.raises(TypeError):
        EnumType(A=0, ctype=3)


# -- filter ------------------------------------------------------------------------------------


def test_filter_accepts_values_and_non_strict_names_aliases_bools():
    enum = EnumType(A=("alpha", 1), B=2.5, C=0)
    assert enum.filter(1, strict=True) == 1 and enum.filter(2.5) == 2.5
    assert enum.filter("alpha") == 1 and enum.filter("B") == 2.5
    assert enum.filter(False) == 0 and type(enum.filter(False)) is int
    assert enum.filter(np.int64(1)) == 1


@pytest.mark.parametrize(
    "value, strict",
    [
        (7, True),
        (7, False),
        ("alpha", True),
        ("omega", False),
        (None, False),
        ([1], False),
    ],
)
def test_unknown_values_are_type_check_errors(value, strict):
    enum = EnumType(A=("alpha", 1), B=2.5)
    with pytest.raises(TypeCheckError):
        enum.filter(value, strict=strict)
    assert enum.is_valid_value(value, strict=strict) is False


def test_is_valid_value():
    enum = EnumList("A", "B")
    assert enum.is_valid_value(1) and not enum.is_valid_value(2)
    assert enum.values_eq(1, 1) and enum.values_eq_approx(0, 0) and not enum.values_eq(0, 1)


def test_enums_are_immutable():
    enum = EnumType(A=("alpha", 1))
    with pytest.raises(AttributeError, match="immutable"):
        enum.A = 2
    with pytest.raises(AttributeError, match="immutable"):
        enum.ctype = "int"
    with pytest.raises(TypeError):
        enum["A"] = 2
    with pytest.raises(TypeError):
        enum.aliases["beta"] = "A"
    with pytest.raises(AttributeError, match="no constant or attribute 'Z'"):
        enum.Z


# -- EnumList and CEnumType ----------------------------------------------------------------------


def test_enum_list_numbers_its_constants():
    enum = EnumList("CONSTANT_1", "CONSTANT_2", "CONSTANT_3", "CONSTANT_4", "CONSTANT_5")
    assert [enum[k] for k in enum] == [0, 1, 2, 3, 4] and enum.ctype == "int"
    enum = EnumList(("A", "alpha"), ("B", "beta"), "C", "D", "E", "F", ("G", "gamma"))
    assert enum.fromalias("gamma") == 6 and enum.C == 2
    assert EnumList("A", ctype="unsigned int").ctype == "unsigned int"


@pytest.mark.parametrize(
    "args, kwargs, error",
    [
        (("A", "A"), {}, ValueError),
        ((("A", "a", "b"),), {}, TypeError),
        ((("A", 1),), {}, TypeError),
        ((3,), {}, TypeError),
        (("A",), {"other": 1}, TypeError),
        (("a",), {}, ValueError),
    ],
)
def test_enum_list_errors(args, kwargs, error):
    with pytest.raises(error):
        EnumList(*args, **kwargs)


def test_cenum_type_numbers_in_python_and_defines_nothing_in_c():
    enum = CEnumType("CONSTANT_CNAME_1", ("CONSTANT_CNAME_2", "two"), ctype="long")
    assert (enum.CONSTANT_CNAME_1, enum.fromalias("two"), enum.ctype) == (0, 1, "long")
    support = enum.c_support_code()
    assert "#define" not in support
    assert "tensortypes_enum_to_string_long(long value, char* out)" in support


def test_c_support_code_defines_every_constant():
    code = EnumType(A=1, B=-2, C=2.5, D=float("inf"), cname="mine").c_support_code()
    for line in (
        "#define A 1\n",
        "#define B (-2)\n",
        "#define C (2.5)\n",
        "#define D (HUGE_VAL)\n",
        "tensortypes_enum_to_string_mine(double value",
    ):
        assert line in code


# -- comparison and pickling -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "enum",
    [
        EnumType(A=("alpha", 1), B=2.5, ctype="float", cname="f"),
        EnumList(("A", "alpha"), "B", ctype="short"),
        CEnumType("SEEK_SET", ("SEEK_END", "end")),
    ],
)
def test_pickle_round_trip(enum):
    back = pickle.loads(pickle.dumps(enum))
    assert back == enum and hash(back) == hash(enum) and type(back) is type(enum)
    assert back.get_aliases() == enum.get_aliases() and list(back) == list(enum)
    assert back.c_code_cache_version() == enum.c_code_cache_version()


def test_equality():
    assert EnumType(A=1, B=2) == EnumType(B=2, A=1)
    assert hash(EnumType(A=1, B=2)) == hash(EnumType(B=2, A=1))
    assert EnumType(A=1) != EnumType(A=2)
    assert EnumType(A=1) != EnumType(A=("a", 1))
    assert EnumType(A=1) != EnumType(A=1, ctype="int")
    assert EnumType(A=1, ctype="int") != EnumType(A=1, ctype="int", cname="other")
    assert EnumList("A", "B") != EnumType(A=0, B=1, ctype="int")
    assert EnumList("A", "B") != CEnumType("A", "B")
    assert EnumType(A=1) != {"A": 1}
    assert repr(EnumType(A=("alpha", 1), B=2)) == "EnumType<double>(A(alpha):1, B:2)"


# -- in C ----------------------------------------------------------------------------------------

MODES = EnumList(("MUL", "times"), ("ADD", "plus"), cname="combine_mode")


class Combine(Op, CLinkerOp):
    """``x * y`` or ``x + y`` on doubles, chosen by an enum parameter."""

    __props__ = ("mode",)
    params_type = MODES

    def __init__(self, mode):
        self.mode = MODES.filter(mode)

    def get_params(self, node):
        return self.mode

    def make_node(self, x, y):
        return Apply(self, [x, y], [double()])

    def perform(self, node, inputs, output_storage):
        raise AssertionError("Combine must run in C")

    def c_code(self, node, name, inputs, outputs, sub):
        (x, y), (z,), p = inputs, outputs, sub["params"]
        return f"{z} = ({p} == MUL) ? {x} * {y} : {x} + {y};"

    def c_code_cache_version(self):
        return (1,)


class ModeName(Op, CLinkerOp):
    """The name of the op's mode, from the enum-to-string C function (raw: a bad value)."""

    __props__ = ("raw",)
    params_type = MODES

    def __init__(self, raw=None):
        self.raw = raw

    def get_params(self, node):
        return MODES.ADD

    def make_node(self):
        return Apply(self, [], [generic()])

    def c_code(self, node, name, inputs, outputs, sub):
        value = sub["params"] if self.raw is None else str(self.raw)
        return f"""char buf_{name}[16];
if (tensortypes_enum_to_string_combine_mode({value}, buf_{name}) != 0) {{ {sub["fail"]} }}
{outputs[0]} = PyUnicode_FromString(buf_{name});
if ({outputs[0]} == NULL) {{ {sub["fail"]} }}"""

    def c_code_cache_version(self):
        return (1,)


def test_enum_parameters_reach_the_c_code(linker):
    x, y = double("x"), double("y")
    for mode, expected in (("times", 6.0), ("ADD", 5.0), (MODES.MUL, 6.0)):
        compiled = linker.compile(fgraph([x, y], [Combine(mode)(x, y)]))
        assert compiled.fallbacks == []
        assert compiled.function([2.0, 3.0]) == [expected]


def test_enum_to_string_c_function(linker):
    f = linker.make_function(fgraph([], [ModeName()()]))
    assert f([]) == ["ADD"]
    bad = linker.make_function(fgraph([], [ModeName(raw=99)()]))
    with pytest.raises(ValueError, match="combine_mode: unknown enum value"):
        bad([])


class Passthrough(Op, CLinkerOp):
    """Copies an enum value through C (extraction, then sync)."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = {inputs[0]};"

    def c_code_cache_version(self):
        return (1,)


def test_enum_values_round_trip_through_c(linker):
    enum = EnumType(A=1, B=2.5, cname="mixed")
    v = enum("v")
    f = linker.make_function(fgraph([v], [Passthrough()(v)]))
    assert f([2.5]) == [2.5] and f([1]) == [1.0]
    with pytest.raises(TypeCheckError, match="unknown value 3"):
        f([3])
    with pytest.raises(TypeCheckError, match="expected an int or a float"):
        f(["A"])


class CValue(Op, CLinkerOp):
    """The C value of a CEnumType variable, as an int; the constants come from a header."""

    __props__ = ("header_dir",)

    def __init__(self, header_dir):
        self.header_dir = header_dir

    def make_node(self, x):
        return Apply(self, [x], [INT()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = (npy_int64){inputs[0]};"

    def c_headers(self, **kwargs):
        return ["colors.h"]

    def c_header_dirs(self, **kwargs):
        return [self.header_dir]


def test_cenum_type_maps_to_constants_of_user_headers(linker, tmp_path):
    (tmp_path / "colors.h").write_text(
        "#define TT_RED 10\n#define TT_GREEN 20\n#define TT_BLUE 30\n"
    )
    colors = CEnumType("TT_RED", "TT_GREEN", ("TT_BLUE", "blue"), cname="colors")
    c = colors("c")
    f = linker.make_function(fgraph([c], [CValue(str(tmp_path))(c), Passthrough()(c)]))
    assert f([colors.TT_GREEN]) == [20, 1]
    assert f([colors.fromalias("blue")]) == [30, 2]
    with pytest.raises(TypeCheckError, match="invalid value 7 to map to C constants"):
        f([7])


def test_two_enums_with_one_c_name_are_refused(linker):
    a = EnumList("A", "B", cname="same")("a")
    b = EnumList("C", "D", cname="same")("b")
    with pytest.raises(ValueError, match="share the C name 'same'"):
        linker.make_function(fgraph([a, b], [Passthrough()(a), Passthrough()(b)]))


def test_one_constant_with_two_values_is_refused(linker):
    a = EnumType(A=1, cname="first")("a")
    b = EnumType(A=2, cname="second")("b")
    with pytest.raises(ValueError, match="the C constant A is 1"):
        linker.make_function(fgraph([a, b], [Passthrough()(a), Passthrough()(b)]))
