"""Scalar ops: dtype rules against NumPy (whole tables), weak Python scalars, Composite."""

from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest

from tensortypes.errors import MethodNotDefined
from tensortypes.tensor import scalar_ops as so
from tensortypes.tensor.elemwise import as_elemwise_inputs
from tensortypes.tensor.scalar_ops import SCALAR_OPS, Composite, ScalarExpr, op_expr

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


def numpy_result(op, dtypes):
    """The dtype NumPy computes for ``op`` on arrays of ``dtypes``, or "error"."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return op.nfunc(*[np.ones(2, d) for d in dtypes]).dtype.name
        except TypeError:
            return "error"


def our_result(op, dtypes):
    try:
        return op.output_dtype(*dtypes)
    except TypeError:
        return "error"


@pytest.mark.parametrize("name", sorted(SCALAR_OPS))
def test_dtype_rule_is_numpy_on_every_dtype_combination(name):
    op = SCALAR_OPS[name]
    table = {ds: numpy_result(op, ds) for ds in itertools.product(DTYPES, repeat=op.nin)}
    wrong = {
        ds: (want, our_result(op, ds)) for ds, want in table.items() if our_result(op, ds) != want
    }
    assert not wrong, f"{name}: (numpy, ours) differ for {dict(list(wrong.items())[:5])}"


@pytest.mark.parametrize(
    ("name", "dtypes", "expected"),
    [
        ("true_div", ("int8", "int8"), "float64"),
        ("true_div", ("float16", "int8"), "float16"),
        ("exp", ("int16",), "float32"),
        ("sqrt", ("bool",), "float16"),
        ("abs", ("complex64",), "float32"),
        ("lt", ("int64", "uint64"), "bool"),
        ("pow", ("bool", "bool"), "int8"),
        ("where", ("float64", "int8", "float32"), "float32"),
    ],
)
def test_golden_dtypes(name, dtypes, expected):
    assert SCALAR_OPS[name].output_dtype(*dtypes) == expected


@pytest.mark.parametrize(
    ("name", "dtypes"),
    [
        ("sub", ("bool", "bool")),
        ("neg", ("bool",)),
        ("floor_div", ("complex64", "int8")),
        ("bitwise_and", ("float32", "int8")),
        ("invert", ("float64",)),
    ],
)
def test_refused_combinations_name_the_op_and_dtypes(name, dtypes):
    with pytest.raises(TypeError, match=rf"{name} is not defined for dtype"):
        SCALAR_OPS[name].output_dtype(*dtypes)


def test_wrong_arity_is_a_type_error():
    with pytest.raises(TypeError, match="takes 2 input"):
        so.add.output_dtype("int8")


def test_scalar_ops_are_interned_and_pickle_to_themselves():
    assert so.scalar_op("add") is so.add
    assert pickle.loads(pickle.dumps(so.exp)) is so.exp
    with pytest.raises(ValueError, match="no scalar op named 'nope'"):
        so.scalar_op("nope")
    with pytest.raises(AttributeError, match="immutable"):
        so.add.name = "plus"


# -- weak Python scalars (NEP 50), against what NumPy 2 computes ------------------------------
@pytest.mark.parametrize("value", [3, 2.5, 1j, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["add", "mul", "maximum", "true_div", "lt"])
def test_python_scalars_promote_as_in_numpy(name, dtype, value):
    op = SCALAR_OPS[name]
    from tensortypes.tensor import tensor

    x = tensor(dtype, (2,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = op.nfunc(np.ones(2, dtype), value).dtype.name
        except TypeError:
            want = "error"
    try:
        a, b = as_elemwise_inputs(op, [x, value])
        got = op.output_dtype(a.dtype, b.dtype)
    except TypeError:
        got = "error"
    assert got == want


def test_out_of_range_python_int_is_a_build_time_error_except_in_comparisons():
    from tensortypes.tensor import tensor

    x = tensor("int8", (3,))
    with pytest.raises(TypeError, match="1000 is out of bounds for int8"):
        as_elemwise_inputs(so.add, [x, 1000])
    a, b = as_elemwise_inputs(so.lt, [x, 1000])
    assert b.dtype == "int64"
    _, c = as_elemwise_inputs(so.lt, [tensor("uint64", (3,)), 2**64 - 1])
    assert c.dtype == "uint64"


def test_weak_scalar_in_where_condition_keeps_its_own_dtype():
    from tensortypes.tensor import fvector

    cond, x, y = as_elemwise_inputs(so.where, [1, fvector("x"), 0.5])
    assert (cond.dtype, x.dtype, y.dtype) == ("int64", "float32", "float32")


# -- Composite -------------------------------------------------------------------------------
def make_composite():
    x, y = ScalarExpr.input("float64"), ScalarExpr.input("float64")
    e = op_expr(so.exp, x)
    two = ScalarExpr.constant(2, "float64")
    out = op_expr(so.add, op_expr(so.mul, e, y), op_expr(so.mul, e, two))
    return Composite([x, y], [out])


def test_composite_name_dtypes_and_impl():
    c = make_composite()
    assert c.name == "add(mul(exp(i0), i1), mul(exp(i0), 2.0))"
    assert (c.nin, c.nout, c.output_dtype("float64", "float64")) == (2, 1, "float64")
    a, b = np.linspace(-1, 1, 5), np.linspace(2, 3, 5)
    np.testing.assert_allclose(c.impl(a, b), np.exp(a) * b + np.exp(a) * 2)
    assert c.nfunc(a, b).dtype == np.float64


def test_composite_equality_hash_and_pickle():
    c1, c2 = make_composite(), make_composite()
    assert c1 == c2 and hash(c1) == hash(c2) and c1 is not c2
    again = pickle.loads(pickle.dumps(c1))
    assert again == c1 and hash(again) == hash(c1)
    x = ScalarExpr.input("float64")
    other = Composite([x], [op_expr(so.exp, x)])
    assert other != c1


def test_composite_checks_its_input_dtypes_and_structure():
    c = make_composite()
    with pytest.raises(TypeError, match="takes dtypes"):
        c.output_dtype("float32", "float64")
    x, stray = ScalarExpr.input("int8"), ScalarExpr.input("int8")
    with pytest.raises(ValueError, match="not among its inputs"):
        Composite([x], [op_expr(so.add, x, stray)])
    with pytest.raises(ValueError, match="listed twice"):
        Composite([x, x], [x])
    with pytest.raises(TypeError, match="must be ScalarExpr.input"):
        Composite([op_expr(so.neg, x)], [x])


def test_composite_inlines_composites_and_multiple_outputs():
    c = make_composite()
    a, b = ScalarExpr.input("float64"), ScalarExpr.input("float64")
    (inner,) = c.inline([a, b])
    both = Composite([a, b], [inner, op_expr(so.neg, inner)])
    assert both.nout == 2
    u, v = np.array([0.5]), np.array([1.5])
    first, second = both.impl(u, v)
    np.testing.assert_allclose(second, -first)
    assert "tt_tmp_" in both.c_body(["a", "b"], ["o0", "o1"], ["float64", "float64"])
    with pytest.raises(MethodNotDefined, match="use c_body"):
        both.c_expr(["a", "b"], ["float64", "float64"], "float64")


def test_composite_c_body_assigns_every_output_inside_a_block():
    body = make_composite().c_body(["x", "y"], ["out"], ["float64", "float64"])
    lines = body.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert lines[-2].strip().startswith("out = tt_tmp_")
    assert "exp((x))" in body


def test_c_forms_refuse_float16_complex_and_integer_pow():
    with pytest.raises(MethodNotDefined):
        so.add.c_expr(["a", "b"], ["float16", "float16"], "float16")
    with pytest.raises(MethodNotDefined):
        so.exp.c_expr(["a"], ["complex64"], "complex64")
    with pytest.raises(MethodNotDefined, match="negative integer exponents"):
        so.pow.c_expr(["a", "b"], ["int32", "int32"], "int32")
    assert "tt_floordiv" in so.floor_div.c_expr(["a", "b"], ["int8", "int8"], "int8")


@pytest.mark.parametrize(
    ("value", "dtype", "text"),
    [
        (2, "float64", "((npy_float64)0x1.0000000000000p+1)"),
        (-3, "int8", "((npy_int8)-3LL)"),
        (-(2**63), "int64", "((npy_int64)(-9223372036854775807LL - 1))"),
        (2**64 - 1, "uint64", "((npy_uint64)18446744073709551615ULL)"),
        (True, "bool", "((npy_bool)1)"),
        (float("nan"), "float32", "((npy_float32)NAN)"),
        (float("-inf"), "float64", "((npy_float64)(-INFINITY))"),
    ],
)
def test_c_literals_are_exact(value, dtype, text):
    assert so.c_literal(value, dtype) == text


@pytest.mark.parametrize("name", sorted(SCALAR_OPS))
@pytest.mark.parametrize("shape", [(), (5,)])
def test_composite_impl_computes_exactly_what_each_op_computes(name, shape):
    op = SCALAR_OPS[name]
    rng = np.random.default_rng(0)
    for dtypes in [
        ("int8",) * op.nin,
        ("float32",) * op.nin,
        ("int16", "float64", "uint8"),
        ("bool",) * op.nin,
        ("uint64", "int64", "int64"),
    ]:
        dtypes = dtypes[: op.nin]
        try:
            op.output_dtype(*dtypes)
        except TypeError:
            continue
        ins = [ScalarExpr.input(d) for d in dtypes]
        single = Composite(ins, [op_expr(op, *ins)])
        nested = Composite(
            ins,
            [
                op_expr(
                    so.neg if op.output_dtype(*dtypes) != "bool" else so.invert, op_expr(op, *ins)
                )
            ],
        )
        values = [np.asarray(rng.integers(1, 4, shape)).astype(d) for d in dtypes]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = np.asarray(op.nfunc(*values))
            got = np.asarray(single.impl(*values))
            try:
                outer = np.asarray(nested.nodes[-1][0].nfunc(want))
            except TypeError:
                continue
            got_nested = np.asarray(nested.impl(*values))
        assert got.dtype == want.dtype and got_nested.dtype == outer.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_nested, outer)
