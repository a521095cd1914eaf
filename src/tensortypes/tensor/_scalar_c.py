"""The C forms of the basic scalar ops (layer 4, ``tensor``; used by ``scalar_ops``).

Rules as data: ``C_RULES`` maps a scalar op's name to the function building
its C expression. Conventions (the contract with the C linker): an element of
dtype ``d`` has the C type ``npy_<d>``; a rule receives C expressions whose
values have the C types of the input dtypes and returns one expression, which
the caller assigns to a variable of the output dtype's C type. Integer
arithmetic wraps modulo 2**bits as NumPy's does (it is computed in unsigned C
types: signed overflow would be undefined behaviour), integer division and
remainder by zero give NumPy's 0, and ``floor_div``/``mod`` on floats follow
NumPy's ``npy_divmod``. Helpers live in ``C_HELPERS``, one include-guarded block.
"""

from __future__ import annotations

import numpy as np

from tensortypes.core import dtypes as _dtypes
from tensortypes.errors import MethodNotDefined

__all__ = ["C_HELPERS", "C_RULES", "NO_C_DTYPES", "c_type", "c_literal"]


def _kind(dtype: str) -> str:
    return np.dtype(dtype).kind


NO_C_DTYPES = frozenset({"float16", "complex64", "complex128"})


def c_type(dtype: str) -> str:
    """The C type of one element of ``dtype``.

    >>> c_type("int64"), c_type("bool")
    ('npy_int64', 'npy_bool')
    """
    return "npy_" + np.dtype(dtype).name


def c_literal(value, dtype: str) -> str:
    """A C expression of type ``c_type(dtype)`` holding ``value`` exactly.

    >>> c_literal(2, "float64"), c_literal(-3, "int8")
    ('((npy_float64)0x1.0000000000000p+1)', '((npy_int8)-3LL)')
    """
    dtype = np.dtype(dtype).name
    if dtype in NO_C_DTYPES:
        raise MethodNotDefined(f"no C literal for dtype {dtype}")
    v = np.asarray(value, dtype=dtype).item()
    kind = _kind(dtype)
    if kind == "b":
        text = "1" if v else "0"
    elif kind == "u":
        text = f"{int(v)}ULL"
    elif kind == "i":
        v = int(v)
        text = "(-9223372036854775807LL - 1)" if v == -(2**63) else f"{v}LL"
    elif v != v:
        text = "NAN"  # <math.h>'s; NumPy 2's headers no longer define NPY_NAN/NPY_INFINITY
    elif v in (float("inf"), float("-inf")):
        text = "INFINITY" if v > 0 else "(-INFINITY)"
    else:
        text = float(v).hex()
    return f"(({c_type(dtype)}){text})"


def _cast(expr: str, src: str, dst: str) -> str:
    return f"({expr})" if src == dst else f"(({c_type(dst)})({expr}))"


def _float_fn(name: str, dtype: str) -> str:
    return name + ("f" if dtype == "float32" else "")


# Helper functions for the ops that are not one C operator. Every op that needs
# one returns this whole block; the guard makes repeated inclusion harmless.
C_HELPERS = r"""
#ifndef TENSORTYPES_SCALAR_HELPERS
#define TENSORTYPES_SCALAR_HELPERS
#include <math.h>
/* sigmoid and softplus, stable at both ends: exp only ever of -|x|. */
static inline double tt_sigmoid(double x) {
    double e = exp(-fabs(x));
    return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}
static inline float tt_sigmoidf(float x) {
    float e = expf(-fabsf(x));
    return x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
}
static inline double tt_softplus(double x) {
    if (x != x) return x;
    return (x > 0 ? x : 0.0) + log1p(exp(-fabs(x)));
}
static inline float tt_softplusf(float x) {
    if (x != x) return x;
    return (x > 0 ? x : 0.0f) + log1pf(expf(-fabsf(x)));
}
static inline npy_int64 tt_floordiv_i64(npy_int64 a, npy_int64 b) {
    npy_int64 q;
    if (b == 0) return 0;
    if (b == -1) return (npy_int64)((npy_uint64)0 - (npy_uint64)a);
    q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline npy_uint64 tt_floordiv_u64(npy_uint64 a, npy_uint64 b) {
    return b == 0 ? 0 : a / b;
}
static inline npy_int64 tt_mod_i64(npy_int64 a, npy_int64 b) {
    npy_int64 r;
    if (b == 0 || b == -1) return 0;
    r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline npy_uint64 tt_mod_u64(npy_uint64 a, npy_uint64 b) {
    return b == 0 ? 0 : a % b;
}
#define TT_DIVMOD(T, SUF)                                                      \
static inline T tt_divmod_##SUF(T a, T b, T *modulus) {                      \
    T div, mod, floordiv;                                                    \
    mod = fmod##SUF(a, b);                                                   \
    if (!b) { *modulus = mod; return a / b; }                                \
    div = (a - mod) / b;                                                     \
    if (mod) {                                                               \
        if ((b < 0) != (mod < 0)) { mod += b; div -= (T)1; }                 \
    } else {                                                                 \
        mod = copysign##SUF((T)0, b);                                        \
    }                                                                        \
    if (div) {                                                               \
        floordiv = floor##SUF(div);                                          \
        if (div - floordiv > (T)0.5) floordiv += (T)1;                       \
    } else {                                                                 \
        floordiv = copysign##SUF((T)0, a / b);                               \
    }                                                                        \
    *modulus = mod;                                                          \
    return floordiv;                                                         \
}                                                                            \
static inline T tt_floordiv_##SUF(T a, T b) {                                \
    T mod;                                                                   \
    if (!b) return a / b;                                                    \
    return tt_divmod_##SUF(a, b, &mod);                                      \
}                                                                            \
static inline T tt_mod_##SUF(T a, T b) {                                     \
    T mod;                                                                   \
    if (!b) return fmod##SUF(a, b);                                          \
    tt_divmod_##SUF(a, b, &mod);                                             \
    return mod;                                                              \
}
TT_DIVMOD(npy_float32, f)
TT_DIVMOD(npy_float64, )
#undef TT_DIVMOD
/* Exact comparison of a signed integer with an unsigned 64-bit one: -1, 0 or 1. */
static inline int tt_cmp_i64_u64(npy_int64 s, npy_uint64 u) {
    if (s < 0) return -1;
    return (npy_uint64)s < u ? -1 : ((npy_uint64)s == u ? 0 : 1);
}
#endif
"""

_C_OPERATORS = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "true_div": "/",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "neq": "!=",
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _c_arith(op, xs, ds, out):
    """``+ - *`` and ``/``: logical on bool, wrapping on integers, IEEE on floats."""
    sym = _C_OPERATORS[op.name]
    kind = _kind(out)
    if kind == "b":
        a, b = (_cast(x, d, "bool") for x, d in zip(xs, ds))
        return f"({a} {'&&' if sym == '*' else '||'} {b})"
    if kind in "iu":
        a, b = (_cast(x, d, "uint64") for x, d in zip(xs, ds))
        return f"(({c_type(out)})({a} {sym} {b}))"
    a, b = (_cast(x, d, out) for x, d in zip(xs, ds))
    return f"({a} {sym} {b})"


def _c_divmod(op, xs, ds, out):
    kind = _kind(out)
    base = "floordiv" if op.name == "floor_div" else "mod"
    if kind in "iu":
        wide = "int64" if kind == "i" else "uint64"
        a, b = (_cast(x, d, wide) for x, d in zip(xs, ds))
        return f"(({c_type(out)})tt_{base}_{'i' if kind == 'i' else 'u'}64({a}, {b}))"
    a, b = (_cast(x, d, out) for x, d in zip(xs, ds))
    return f"tt_{base}_{'f' if out == 'float32' else ''}({a}, {b})"


def _c_pow(op, xs, ds, out):
    if _kind(out) != "f":
        raise MethodNotDefined(
            f"{op.name} has no C form for {out} (NumPy raises on negative "
            "integer exponents, which a C expression cannot)"
        )
    a, b = (_cast(x, d, out) for x, d in zip(xs, ds))
    return f"{_float_fn('pow', out)}({a}, {b})"


def _c_minmax(op, xs, ds, out):
    a, b = (_cast(x, d, out) for x, d in zip(xs, ds))
    wins = ">" if op.name == "maximum" else "<"
    if _kind(out) == "b":
        return f"({a} {'||' if wins == '>' else '&&'} {b})"
    if _kind(out) == "f":  # NaN propagates; on ties NumPy returns the second operand
        return f"((isnan({a}) || {a} {wins} {b}) ? {a} : {b})"
    return f"(({a} {wins} {b}) ? {a} : {b})"


def _c_compare(op, xs, ds, out):
    sym = _C_OPERATORS[op.name]
    kinds = [_kind(d) for d in ds]
    # NumPy compares a signed integer with a uint64 exactly (no float64 detour).
    if "uint64" in ds and "i" in kinds:
        if ds[0] == "uint64":
            u, s, sym = xs[0], _cast(xs[1], ds[1], "int64"), _MIRROR[sym]
        else:
            s, u = _cast(xs[0], ds[0], "int64"), xs[1]
        return f"(tt_cmp_i64_u64({s}, {u}) {sym} 0)"
    ct = _dtypes.result_type(*ds).name
    if ct in NO_C_DTYPES:
        raise MethodNotDefined(f"{op.name} has no C form for {ct}")
    a, b = (_cast(x, d, ct) for x, d in zip(xs, ds))
    return f"({a} {sym} {b})"


def _c_bitwise(op, xs, ds, out):
    a, b = (_cast(x, d, out) for x, d in zip(xs, ds))
    return f"(({c_type(out)})({a} {_C_OPERATORS[op.name]} {b}))"


def _c_invert(op, xs, ds, out):
    a = _cast(xs[0], ds[0], out)
    if out == "bool":
        return f"(!{a})"
    return f"(({c_type(out)})(~{a}))"


def _c_neg(op, xs, ds, out):
    if _kind(out) in "iu":
        return f"(({c_type(out)})((npy_uint64)0 - {_cast(xs[0], ds[0], 'uint64')}))"
    return f"(-{_cast(xs[0], ds[0], out)})"


def _c_abs(op, xs, ds, out):
    a = _cast(xs[0], ds[0], out)
    kind = _kind(out)
    if kind == "i":
        return f"(({a} < 0) ? ({c_type(out)})((npy_uint64)0 - (npy_uint64){a}) : {a})"
    if kind == "f":
        return f"{_float_fn('fabs', out)}({a})"
    return a


def _c_unary_float(op, xs, ds, out):
    return f"{_float_fn(op.name, out)}({_cast(xs[0], ds[0], out)})"


def _c_helper_float(op, xs, ds, out):
    return f"{_float_fn('tt_' + op.name, out)}({_cast(xs[0], ds[0], out)})"


def _c_where(op, xs, ds, out):
    cond = xs[0] if ds[0] == "bool" else f"({xs[0]} != 0)"
    return f"({cond} ? {_cast(xs[1], ds[1], out)} : {_cast(xs[2], ds[2], out)})"


C_RULES = {
    "add": _c_arith,
    "sub": _c_arith,
    "mul": _c_arith,
    "true_div": _c_arith,
    "floor_div": _c_divmod,
    "mod": _c_divmod,
    "pow": _c_pow,
    "maximum": _c_minmax,
    "minimum": _c_minmax,
    "neg": _c_neg,
    "abs": _c_abs,
    "exp": _c_unary_float,
    "log": _c_unary_float,
    "sqrt": _c_unary_float,
    "sin": _c_unary_float,
    "cos": _c_unary_float,
    "tanh": _c_unary_float,
    "log1p": _c_unary_float,
    "expm1": _c_unary_float,
    "sigmoid": _c_helper_float,
    "softplus": _c_helper_float,
    "lt": _c_compare,
    "le": _c_compare,
    "gt": _c_compare,
    "ge": _c_compare,
    "eq": _c_compare,
    "neq": _c_compare,
    "bitwise_and": _c_bitwise,
    "bitwise_or": _c_bitwise,
    "bitwise_xor": _c_bitwise,
    "invert": _c_invert,
    "where": _c_where,
}
