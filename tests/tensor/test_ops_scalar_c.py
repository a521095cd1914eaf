"""The scalar ops' C expressions compute what NumPy computes.

One small C program (no Python headers: the ``npy_*`` names are typedef'd to
the fixed-width C types) evaluates every op's ``c_expr`` on edge values of
each dtype combination (zero, minus zero, extremes, NaN, infinities, negative
divisors); the results are compared with the op's NumPy ufunc on the same
values. Integer results must be equal; float results equal (NaN matching NaN,
the sign of zero ignored), except a few ulps for the transcendental functions.
Skipped without a C compiler.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import pytest

from tensortypes.errors import MethodNotDefined
from tensortypes.tensor import scalar_ops as so

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler on PATH")

PRELUDE = r"""
#include <stdio.h>
#include <stdint.h>
#include <math.h>
typedef unsigned char npy_bool;
typedef int8_t npy_int8; typedef int16_t npy_int16; typedef int32_t npy_int32;
typedef int64_t npy_int64; typedef uint8_t npy_uint8; typedef uint16_t npy_uint16;
typedef uint32_t npy_uint32; typedef uint64_t npy_uint64;
typedef float npy_float32; typedef double npy_float64;
#define NPY_NAN NAN
#define NPY_INFINITY INFINITY
"""

VALUES = {
    "bool": [0, 1],
    "int8": [0, 1, -1, 7, -7, 3, -128, 127],
    "int16": [0, 1, -1, 300, -300, -32768],
    "int32": [0, 1, -1, 7, -7, -(2**31), 2**31 - 1],
    "int64": [0, 1, -1, 7, -7, -(2**63), 2**63 - 1],
    "uint8": [0, 1, 7, 255],
    "uint16": [0, 1, 7, 65535],
    "uint32": [0, 1, 7, 2**32 - 1],
    "uint64": [0, 1, 7, 2**63, 2**64 - 1],
    "float32": [0.0, -0.0, 1.5, -2.5, 7.0, -7.0, 0.1, float("nan"), float("inf"), float("-inf")],
    "float64": [0.0, -0.0, 1.5, -2.5, 7.0, -7.0, 0.1, float("nan"), float("inf"), float("-inf")],
}
SAME = [(d, d) for d in VALUES]
MIXED = [
    ("int8", "uint8"),
    ("int64", "uint64"),
    ("uint64", "int8"),
    ("int32", "float32"),
    ("bool", "int16"),
    ("uint16", "float64"),
    ("int64", "float32"),
    ("uint32", "int32"),
]
APPROX = {
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "pow",
    "true_div",
    "log1p",
    "expm1",
    "sigmoid",
    "softplus",
}

_FMT = {
    "b": ('"%d\\n"', "(int)"),
    "i": ('"%lld\\n"', "(long long)"),
    "u": ('"%llu\\n"', "(unsigned long long)"),
    "f": ('"%a\\n"', "(double)"),
}


def _cases():
    cases = []
    for name, op in so.SCALAR_OPS.items():
        if name == "where":
            continue
        combos = [(d,) for d in VALUES] if op.nin == 1 else SAME + MIXED
        for dtypes in combos:
            try:
                out = op.output_dtype(*dtypes)
                expr = op.c_expr([f"a{i}[k]" for i in range(op.nin)], list(dtypes), out)
            except (TypeError, MethodNotDefined):
                continue
            cases.append((name, dtypes, out, expr))
    where_dtypes = ("float64", "int8", "float32")
    out = so.where.output_dtype(*where_dtypes)
    cases.append(
        (
            "where",
            where_dtypes,
            out,
            so.where.c_expr(["a0[k]", "a1[k]", "a2[k]"], list(where_dtypes), out),
        )
    )
    return cases


def _grid(dtypes):
    columns = [VALUES[d] for d in dtypes]
    if len(columns) == 3:
        return [
            (c, a, b)
            for c in (0.0, 1.0, float("nan"))
            for a in columns[1][:3]
            for b in columns[2][:3]
        ]
    if len(columns) == 1:
        return [(v,) for v in columns[0]]
    return [(a, b) for a in columns[0] for b in columns[1]]


def _program(cases) -> str:
    parts = [PRELUDE, so.C_HELPERS, "int main(void) {"]
    for _n, (_name, dtypes, out, expr) in enumerate(cases):
        grid = _grid(dtypes)
        parts.append("    {")
        for i, d in enumerate(dtypes):
            literals = ", ".join(so.c_literal(row[i], d) for row in grid)
            parts.append(f"        static const {so.c_type(d)} a{i}[] = {{{literals}}};")
        fmt, cast = _FMT[np.dtype(out).kind]
        parts.append(f"        for (int k = 0; k < {len(grid)}; k++) {{")
        parts.append(f"            {so.c_type(out)} r = {expr};")
        parts.append(f"            printf({fmt}, {cast}r);")
        parts.append("        }")
        parts.append("    }")
    parts.append("    return 0;\n}\n")
    return "\n".join(parts)


def _parse(text: str, dtype: str):
    kind = np.dtype(dtype).kind
    if kind == "f":
        return float.fromhex(text)
    return int(text)


@pytest.fixture(scope="module")
def c_results(tmp_path_factory):
    cases = _cases()
    src = tmp_path_factory.mktemp("scalar_c") / "ops.c"
    src.write_text(_program(cases))
    exe = src.with_suffix("")
    proc = subprocess.run(
        [
            CC,
            "-std=c99",
            "-O1",
            "-Wall",
            "-Werror",
            "-Wno-unused-function",
            str(src),
            "-o",
            str(exe),
            "-lm",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    results, pos = {}, 0
    for name, dtypes, out, _ in cases:
        count = len(_grid(dtypes))
        results[(name, dtypes)] = (out, [_parse(t, out) for t in lines[pos : pos + count]])
        pos += count
    assert pos == len(lines)
    return results


def test_every_c_capable_op_is_exercised(c_results):
    names = {name for name, _ in c_results}
    assert names == set(so.SCALAR_OPS)


def test_c_expressions_match_numpy(c_results):
    problems = []
    for (name, dtypes), (out, got) in c_results.items():
        grid = _grid(dtypes)
        columns = [np.array([row[i] for row in grid], dtype=d) for i, d in enumerate(dtypes)]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = so.SCALAR_OPS[name].nfunc(*columns)
        for row, w, g in zip(grid, want.tolist(), got):
            if isinstance(w, float):
                same = (
                    (w == g)
                    or (w != w and g != g)
                    or (
                        name in APPROX
                        and abs(w - g)
                        <= 4e-7 * max(abs(w), 1e-30) * (1 if out == "float32" else 1e-8)
                    )
                )
            else:
                same = int(w) == g
            if not same:
                problems.append(f"{name}{dtypes} at {row}: numpy {w!r}, C {g!r}")
    assert not problems, "\n".join(problems[:30])
