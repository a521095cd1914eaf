"""The numerically stable rewrites (``tensor.rewriting.STABILIZE``) and the ops they use.

Each form users write is compiled (Python and C linkers) and compared with NumPy's
stable equivalent at extreme values, where the naive form overflows or loses
precision; the rewritten graph keeps the exact type of what it replaced.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensortypes
from tensortypes.graph import FunctionGraph
from tensortypes.tensor import exp, expm1, fvector, log, log1p, sigmoid, softplus, tensor, dvector
from tensortypes.tensor import sum as tsum
from tensortypes.tensor.rewriting import default_rewriter

EXTREME = np.array(
    [-1000.0, -745.2, -30.0, -1e-12, -0.0, 0.0, 1e-12, 30.0, 709.0, 1000.0, np.inf, -np.inf, np.nan]
)


def _sigmoid_ref(x):
    return np.where(
        x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x)))
    )


FORMS = [
    ("softplus", lambda x: log(1 + exp(x)), lambda v: np.logaddexp(0, v)),
    ("softplus", lambda x: log(exp(x) + 1), lambda v: np.logaddexp(0, v)),
    ("softplus", lambda x: log1p(exp(x)), lambda v: np.logaddexp(0, v)),
    ("log1p", lambda x: log(1 + x), np.log1p),
    ("expm1", lambda x: exp(x) - 1, np.expm1),
    ("sigmoid", lambda x: 1 / (1 + exp(-x)), _sigmoid_ref),
]


def _ops(fg) -> set:
    names = set()
    for node in fg.toposort():
        scalar = getattr(node.op, "scalar_op", None)
        names.add(getattr(scalar, "name", type(node.op).__name__))
        for inner in getattr(scalar, "nodes", ()) or ():
            names.add(getattr(inner, "name", ""))
    return names


@pytest.mark.parametrize("mode", ["py", "c"])
@pytest.mark.parametrize(("op", "build", "reference"), FORMS)
def test_stable_forms_match_numpy_at_extremes(mode, op, build, reference):
    x = dvector("x")
    f = tensortypes.function([x], build(x), mode=mode)
    with np.errstate(all="ignore"):
        want = reference(EXTREME)
        got = f(EXTREME)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0, equal_nan=True)
    assert np.array_equal(
        np.signbit(got[np.isfinite(got)]), np.signbit(want[np.isfinite(want)])
    ) or op in ("sigmoid", "softplus")


@pytest.mark.parametrize(("op", "build", "reference"), FORMS)
def test_the_rewrite_fires_and_keeps_the_type(op, build, reference):
    for make in (dvector, fvector):
        x = make("x")
        out = build(x)
        fg = FunctionGraph([x], [out], clone=True)
        default_rewriter().apply(fg)
        assert op in str(fg.outputs[0].owner.op) or op in _ops(fg), _ops(fg)
        assert fg.outputs[0].type == out.type


def test_the_naive_form_overflows_where_the_rewritten_one_does_not():
    x = dvector("x")
    with np.errstate(all="ignore"):
        naive = np.log(1 + np.exp(np.array([1000.0])))
    assert naive[0] == np.inf
    f = tensortypes.function([x], log(1 + exp(x)), mode="c")
    assert f(np.array([1000.0]))[0] == 1000.0


@pytest.mark.parametrize("mode", ["py", "c"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_log_sum_exp_subtracts_the_maximum(mode, keepdims):
    m = tensor("float64", (4, 3), name="m")
    f = tensortypes.function([m], log(tsum(exp(m), axis=1, keepdims=keepdims)), mode=mode)
    data = np.array(
        [
            [1000.0, 1000.0, 999.0],
            [-1000.0, -1000.0, -np.inf],
            [-np.inf, -np.inf, -np.inf],
            [np.inf, 0.0, 1.0],
        ]
    )
    with np.errstate(all="ignore"):
        got = f(data)
        top = data.max(axis=1, keepdims=True)
        safe = np.where(np.isfinite(top), top, 0)
        want = np.log(np.exp(data - safe).sum(axis=1, keepdims=True)) + safe
    if not keepdims:
        want = want[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-13, equal_nan=True)
    assert np.isfinite(got[0]).all() and np.isfinite(got[1]).all()  # naive: inf and -inf
    assert np.all(got[2] == -np.inf) and np.all(got[3] == np.inf)


def test_log_sum_exp_is_left_alone_over_an_axis_that_may_be_empty():
    # max of an empty axis has no value where the naive sum is 0: not rewritten.
    m = tensor("float64", ("n", 3), name="m")
    out = log(tsum(exp(m), axis=0))
    fg = FunctionGraph([m], [out], clone=True)
    default_rewriter().apply(fg)
    assert "max" not in str([str(n.op) for n in fg.toposort()])
    f = tensortypes.function([m], out, mode="c")
    with np.errstate(all="ignore"):
        assert np.all(f(np.zeros((0, 3))) == -np.inf)


@pytest.mark.parametrize(
    "fn, ref",
    [
        (log1p, np.log1p),
        (expm1, np.expm1),
        (sigmoid, _sigmoid_ref),
        (softplus, lambda v: np.logaddexp(0, v)),
    ],
)
def test_new_ops_float32_and_int_inputs(fn, ref):
    x32 = fvector("x")
    f = tensortypes.function([x32], fn(x32), mode="c")
    v = np.array([-100.0, -1.0, 0.0, 1e-8, 1.0, 100.0], np.float32)
    with np.errstate(all="ignore"):
        got, want = f(v), ref(v).astype(np.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=4e-7)
    xi = tensor("int32", ("n",), name="i")
    assert fn(xi).dtype == "float64"
    z = tensor("complex128", ("n",), name="z")
    if fn in (sigmoid, softplus):  # NumPy's logaddexp has no complex loop: refused, as there
        with pytest.raises(TypeError, match="complex"):
            fn(z)
    else:
        assert fn(z).dtype == "complex128"
