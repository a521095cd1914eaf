"""C code of the built-in types: TensorType, Generic, and the Python scalar types."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from c_toys import fgraph
from tensortypes.errors import MethodNotDefined, TypeCheckError
from tensortypes.graph import Apply, CLinkerOp, CRegistered, Op, generic
from tensortypes.link.c import CLinkerType, EnumType
from tensortypes.link.c.plan import c_interface
from tensortypes.tensor import TensorType
from tensortypes.types.primitives import BOOL, FLOAT, INT, STR

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_element_type_is_numpys_c_name(dtype):
    assert TensorType(dtype, (None,)).c_element_type() == f"npy_{dtype}"


def test_element_type_from_a_plain_session(run_python):
    # Nothing imports tensortypes.link.c: the registry loads it on first use.
    proc = run_python("""
        import sys
        from tensortypes.tensor import TensorType
        assert "tensortypes.link.c" not in sys.modules
        print(TensorType("int64", ()).c_element_type())
        print("tensortypes.link.c" in sys.modules)
    """)
    assert proc.stdout.split() == ["npy_int64", "True"]


def test_link_c_reexports_the_interface():
    assert CLinkerType.__module__ == "tensortypes.graph.clinker"
    assert issubclass(EnumType, CLinkerType)


def test_tensor_c_code_names_the_variable_and_checks_everything():
    t = TensorType("float32", (2, None, 3))
    sub = {"fail": "goto oops;", "label": "input 0 (x)"}
    assert t.c_declare("V1", sub) == "PyArrayObject* V1;"
    assert t.c_init("V1", sub) == "V1 = NULL;"
    code = t.c_extract("V1", sub)
    for fragment in (
        "tt_check_ndarray(py_V1, NPY_FLOAT32, 3, fixed_V1",
        "{2, -1, 3}",
        "goto oops;",
        "input 0 (x)",
        "Py_INCREF(V1)",
    ):
        assert fragment in code
    support = t.c_support_code()
    for check in (
        "PyArray_Check",
        "PyArray_EquivTypenums",
        "PyArray_ISNOTSWAPPED",
        "PyArray_NDIM",
        "PyArray_ISALIGNED",
        "tt_TypeCheckError",
    ):
        assert check in support
    trusted = t.c_extract("V1", sub, check_input=False)
    assert "goto oops" not in trusted and "Py_INCREF(V1)" in trusted
    assert "Py_XDECREF(V1)" in t.c_cleanup("V1", sub)
    assert "py_V1 = (PyObject*)V1" in t.c_sync("V1", sub)
    out = t.c_extract_out("V1", sub)
    assert "Py_None" in out and "tt_check_ndarray" in out
    assert t.c_is_simple() is False and t.c_code_cache_version()
    assert "<numpy/arrayobject.h>" in t.c_headers()


@pytest.mark.parametrize(
    "dtype, value, literal",
    [
        ("float64", 0.1, "((npy_float64)0.1)"),
        ("float64", float("inf"), "((npy_float64)HUGE_VAL)"),
        ("int8", -3, "((npy_int8)-3LL)"),
        ("bool", True, "((npy_bool)1)"),
        ("uint64", 2**64 - 1, "((npy_uint64)18446744073709551615ULL)"),
    ],
)
def test_tensor_c_literal(dtype, value, literal):
    assert TensorType(dtype, ()).c_literal(np.asarray(value, dtype=dtype)) == literal


def test_tensor_c_literal_needs_one_real_element():
    with pytest.raises(MethodNotDefined, match="single real element"):
        TensorType("float64", (2,)).c_literal(np.zeros(2))
    with pytest.raises(MethodNotDefined):
        TensorType("complex128", ()).c_literal(np.asarray(1j))
    assert TensorType("float64", (1, 1)).c_literal(np.ones((1, 1))) == "((npy_float64)1.0)"


def test_generic_is_a_pyobject():
    assert generic.c_declare("V", {}) == "PyObject* V;"
    assert generic.c_element_type() == "PyObject*"
    assert "Py_XINCREF(V)" in generic.c_extract("V", {"fail": ""})
    assert generic.c_code_cache_version()


@pytest.mark.parametrize("t, ctype", [(INT, "npy_int64"), (FLOAT, "double"), (BOOL, "npy_bool")])
def test_python_scalars_have_registered_c_code(t, ctype):
    iface = c_interface(t)
    assert iface.c_element_type() == ctype
    assert iface.c_declare("V", {}) == f"{ctype} V;"
    assert iface.c_is_simple() is True
    assert (
        iface.c_literal(1)
        == {INT: "((npy_int64)1LL)", FLOAT: "((double)1.0)", BOOL: "((npy_bool)1)"}[t]
    )


@pytest.mark.parametrize("t, ctype", [(INT, "npy_int64"), (FLOAT, "double"), (BOOL, "npy_bool")])
def test_python_scalars_answer_spec_001_methods_themselves(t, ctype):
    assert isinstance(t, CRegistered) and isinstance(t, CLinkerType)
    assert c_interface(t) is t  # no adapter: the type is its own C interface
    assert t.c_element_type() == ctype
    assert t.c_is_simple() is True
    assert t.c_declare("V", {}) == f"{ctype} V;"
    assert "V = 0;" in t.c_init("V", {})
    assert t.c_headers() == [] and t.c_code_cache_version()


def test_python_scalar_methods_from_a_plain_session(run_python):
    proc = run_python("""
        import sys
        from tensortypes.types import INT, FLOAT
        assert "tensortypes.link.c" not in sys.modules
        print(INT.c_element_type(), FLOAT.c_element_type())
        print("tensortypes.link.c" in sys.modules)
    """)
    assert proc.stdout.split() == ["npy_int64", "double", "True"]


def test_a_type_without_c_code_has_no_interface():
    assert c_interface(STR) is None
    assert not isinstance(STR, CLinkerType) and not hasattr(STR, "c_element_type")


class Same(Op, CLinkerOp):
    """Copies its input, in C, whatever its type."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        if node.inputs[0].type is generic:
            return f"{outputs[0]} = {inputs[0]}; Py_XINCREF({outputs[0]});"
        return f"{outputs[0]} = {inputs[0]};"

    def c_code_cache_version(self):
        return (1,)


@pytest.mark.parametrize(
    "t, good, bad",
    [
        (INT, [5, -(2**63), True], ["5", 1.5]),
        (FLOAT, [2.5, float("inf"), 1], ["x", None]),  # an int: PEP 484's tower, the default
        (BOOL, [True, False], [1, None]),
    ],
)
def test_python_scalars_round_trip_through_c(linker, t, good, bad):
    x = t("x")
    f = linker.make_function(fgraph([x], [Same()(x)]))
    for value in good:
        (out,) = f([value])
        assert out == value and type(out) is {INT: int, FLOAT: float, BOOL: bool}[t]
    for value in bad:
        with pytest.raises(TypeCheckError, match="input 0 \\(x\\): expected"):
            f([value])


def test_strict_numbers_refuse_an_int_for_a_float_and_name_the_setting(linker):
    from tensortypes._config import config

    config.numeric_tower = False  # read when the C code is generated
    x = FLOAT("x")
    f = linker.make_function(fgraph([x], [Same()(x)]))
    assert f([2.5]) == [2.5]
    with pytest.raises(TypeCheckError, match="config.numeric_tower = True"):
        f([1])
    with pytest.raises(TypeCheckError) as info:
        f(["x"])
    assert "numeric_tower" not in str(info.value)


def test_an_int_beyond_64_bits_is_an_overflow_error(linker):
    x = INT("x")
    f = linker.make_function(fgraph([x], [Same()(x)]))
    with pytest.raises(OverflowError):
        f([2**70])


def test_generic_objects_pass_through_c_with_balanced_references(linker):
    x = generic("x")
    f = linker.make_function(fgraph([x], [Same()(x)]))
    obj = object()
    before = sys.getrefcount(obj)
    for _ in range(100):
        assert f([obj])[0] is obj
    assert sys.getrefcount(obj) == before
