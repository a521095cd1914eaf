"""C loops for reductions (layer 6, ``link``).

``reduce_code`` lowers ``Reduce(kind, axis, keepdims)`` for any axes and
layout. The output is allocated C-contiguous and filled with the identity
of the reduction; the input is walked in its own index order with the
output's strides set to 0 on the reduced axes (axes contiguous in both are
merged, as in the elementwise loop), so a reduction over the innermost axis
accumulates in registers (eight independent partial results, so the loop
vectorises) and a reduction over an outer axis adds whole rows into the
output. NumPy's rules hold: ``sum``/``prod`` of booleans and integers
accumulate in 64 bits with wrap-around, ``mean`` of integers in float64,
``max``/``min`` propagate NaN; an empty reduced axis gives the identity
(``sum`` 0, ``prod`` 1, ``mean`` NaN with NumPy's ``RuntimeWarning``), and for
``max``/``min`` the ``ValueError`` NumPy raises. float16 and complex run
through ``perform``.
"""

from __future__ import annotations

import numpy as np

from tensortypes.errors import MethodNotDefined
from tensortypes.link.c.cnames import DTYPE_CTYPE, DTYPE_TYPENUM, c_string
from tensortypes.link.c.loops import LOOP_SUPPORT

__all__ = ["reduce_code", "reduce_support", "reduce_version", "SIMD_SUPPORT", "acc_ctype",
           "identity", "combine", "mean_warning"]

_VERSION = 1
_NO_C = frozenset({"float16", "complex64", "complex128"})
_GIL_THRESHOLD = 16384
_NUMPY_NAME = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
               "mean": "add"}

SIMD_SUPPORT = r"""
#ifndef TT_SIMD_SUPPORT
#define TT_SIMD_SUPPORT
/* A loop the compiler may vectorise, reductions reassociated (only the
   rounding of sums changes, as with NumPy's own pairwise sums). */
#if defined(TT_OMP_SIMD)
#define TT_SIMD(clauses) _Pragma(TT_STR(omp simd clauses))
#elif defined(__GNUC__) && !defined(__clang__)
#define TT_SIMD(clauses) _Pragma("GCC ivdep")
#else
#define TT_SIMD(clauses)
#endif
#endif
"""


def _check_dtypes(node) -> None:
    dtypes = {v.type.dtype for v in (*node.inputs, *node.outputs)}
    if _NO_C & dtypes:
        raise MethodNotDefined(f"{node.op} has no C loop for float16/complex dtypes")


def _int_like(dtype: str) -> bool:
    return np.dtype(dtype).kind in "biu"


def acc_ctype(kind: str, in_dtype: str, out_dtype: str) -> str:
    """The C type partial results are kept in: 64-bit unsigned for integer sums and
    products (NumPy wraps around), double for float32 sums and means, else the output's."""
    if kind in ("max", "min"):
        return DTYPE_CTYPE[out_dtype]
    if _int_like(out_dtype):
        return "npy_uint64"
    if out_dtype == "float32":
        return "npy_float64"
    return DTYPE_CTYPE[out_dtype]


def identity(kind: str, dtype: str) -> str:
    """The C literal every partial result of ``kind`` starts from (for ``dtype``)."""
    if kind in ("sum", "mean"):
        return "0"
    if kind == "prod":
        return "1"
    k = np.dtype(dtype).kind
    if k == "f":
        return "(-INFINITY)" if kind == "max" else "INFINITY"
    if k == "b":
        return "0" if kind == "max" else "1"
    if k == "u":
        return "0" if kind == "max" else f"NPY_MAX_{dtype.upper()}"
    return f"NPY_MIN_{dtype.upper()}" if kind == "max" else f"NPY_MAX_{dtype.upper()}"


def combine(kind: str, acc: str, v: str) -> str:
    """The C statement folding the value ``v`` into the partial result ``acc``."""
    if kind in ("sum", "mean"):
        return f"{acc} += {v};"
    if kind == "prod":
        return f"{acc} *= {v};"
    cmp = ">" if kind == "max" else "<"
    # NaN propagates: once acc is NaN no comparison replaces it.
    return f"{acc} = ({v} {cmp} {acc} || {v} != {v}) ? {v} : {acc};"


def _empty_checks(kind: str, count: str, fail: str) -> str:
    if kind in ("max", "min"):
        message = c_string(f"zero-size array to reduction operation {_NUMPY_NAME[kind]} "
                           "which has no identity")
        return f"if ({count} == 0) {{ PyErr_SetString(PyExc_ValueError, {message}); {fail} }}"
    return ""


def mean_warning(count: str, rows: str, fail: str) -> str:
    """NumPy's warning for the mean of an empty slice (an error under ``-W error``)."""
    return (f"if ({count} == 0 && {rows} > 0 && PyErr_WarnEx(PyExc_RuntimeWarning, "
            f"\"Mean of empty slice\", 1) < 0) {{ {fail} }}")


def reduce_support(node, name, sub) -> str:
    """The two inner loops of one ``Reduce`` node: into registers, and into a row."""
    _check_dtypes(node)
    op = node.op
    kind, xd, od = op.kind, node.inputs[0].type.dtype, node.outputs[0].type.dtype
    it, ot, at = DTYPE_CTYPE[xd], DTYPE_CTYPE[od], acc_ctype(kind, xd, od)
    ident = identity(kind, od)
    lanes = "\n".join(f"        {combine(kind, f'tt_l[{k}]', f'(({at})tt_a[tt_i + {k}])')}"
                      for k in range(8))
    fold = "\n".join(f"    {combine(kind, 'tt_r', f'tt_l[{k}]')}" for k in range(8))
    store_row = (f"*({ot}*)(tt_q + tt_i * tt_sq) = ({ot})tt_c;")
    return f"""{LOOP_SUPPORT}
TT_LOOP void tt_rr_{name}(npy_intp tt_n, const char* tt_p, npy_intp tt_sp, char* tt_q)
{{
    {at} tt_r = ({at})*({ot}*)tt_q;
    npy_intp tt_i = 0;
    if (tt_sp == sizeof({it})) {{
        const {it}* restrict tt_a = (const {it}*)tt_p;
        {at} tt_l[8] = {{{", ".join([ident] * 8)}}};
        for (; tt_i + 8 <= tt_n; tt_i += 8) {{
{lanes}
        }}
{fold}
        for (; tt_i < tt_n; tt_i++) {{ {combine(kind, "tt_r", f"(({at})tt_a[tt_i])")} }}
    }} else {{
        for (; tt_i < tt_n; tt_i++) {{
            const {at} tt_v = ({at})*(const {it}*)(tt_p + tt_i * tt_sp);
            {combine(kind, "tt_r", "tt_v")}
        }}
    }}
    *({ot}*)tt_q = ({ot})tt_r;
}}

TT_LOOP void tt_rv_{name}(npy_intp tt_n, const char* tt_p, npy_intp tt_sp, char* tt_q,
                          npy_intp tt_sq)
{{
    npy_intp tt_i;
    for (tt_i = 0; tt_i < tt_n; tt_i++) {{
        const {at} tt_v = ({at})*(const {it}*)(tt_p + tt_i * tt_sp);
        {at} tt_c = ({at})*({ot}*)(tt_q + tt_i * tt_sq);
        {combine(kind, "tt_c", "tt_v")}
        {store_row}
    }}
}}
"""


def reduce_code(node, name, inputs, outputs, sub) -> str:
    """The C code of one ``Reduce`` node (see the module docstring).

    >>> from tensortypes.tensor import dmatrix
    >>> code = reduce_code(dmatrix("x").sum(axis=1).owner, "n0", ["V0"], ["V1"],
    ...                    {"fail": "goto fail;"})
    >>> "tt_rr_n0(" in code
    True
    """
    _check_dtypes(node)
    op = node.op
    (x,), (out,) = inputs, outputs
    fail = sub["fail"]
    kind, axes = op.kind, set(op.axis)
    nd = node.inputs[0].type.ndim
    od = node.outputs[0].type.dtype
    ot = DTYPE_CTYPE[od]
    lines = [f"npy_intp tt_kd[{max(nd, 1)}], tt_od[{max(nd, 1)}], tt_count = 1;",
             "PyArrayObject* tt_view = NULL;"]
    j = 0
    for a in range(nd):
        if a in axes:
            lines.append(f"tt_kd[{a}] = 1; tt_count *= PyArray_DIMS({x})[{a}];")
        else:
            lines.append(f"tt_kd[{a}] = tt_od[{j}] = PyArray_DIMS({x})[{a}];")
            j += 1
    lines.append(_empty_checks(kind, "tt_count", fail))
    out_nd, out_dims = (nd, "tt_kd") if op.keepdims else (j, "tt_od")
    lines.append(f"Py_XDECREF({out});\n{out} = (PyArrayObject*)PyArray_EMPTY({out_nd}, "
                 f"{out_dims}, {DTYPE_TYPENUM[od]}, 0);\nif ({out} == NULL) {{ {fail} }}")
    if kind == "mean":
        lines.append(mean_warning("tt_count", f"PyArray_SIZE({out})", fail))
    if op.keepdims:
        view = f"tt_view = {out}; Py_INCREF(tt_view);"
    else:
        view = (f"PyArray_Dims tt_shape_k = {{tt_kd, {nd}}};\n"
                f"        tt_view = (PyArrayObject*)PyArray_Newshape({out}, &tt_shape_k, "
                "NPY_CORDER);")
    finish = ""
    if kind == "mean":
        finish = (f"for (tt_k = 0; tt_k < tt_nout; tt_k++) tt_o[tt_k] = ({ot})"
                  f"(tt_o[tt_k] / (npy_float64)tt_count);")
    lines.append(f"""{{
    const npy_intp tt_nout = PyArray_SIZE({out});
    {ot}* tt_o = ({ot}*)PyArray_DATA({out});
    npy_intp tt_k;
    for (tt_k = 0; tt_k < tt_nout; tt_k++) tt_o[tt_k] = ({ot}){identity(kind, od)};
    if (tt_nout > 0 && tt_count > 0) {{
        {view}
        if (tt_view == NULL) {{ {fail} }}
        {{
            PyArrayObject* tt_ops[2] = {{tt_view, {x}}};
            npy_intp tt_shape[NPY_MAXDIMS], tt_idx[NPY_MAXDIMS], tt_str[2 * NPY_MAXDIMS];
            char* tt_ptr[2];
            int tt_m = tt_iter_prepare(2, tt_ops, {nd}, PyArray_DIMS({x}), tt_shape, tt_str);
            const npy_intp tt_sq = tt_str[tt_m - 1], tt_sp = tt_str[NPY_MAXDIMS + tt_m - 1];
            NPY_BEGIN_THREADS_DEF;
            if (PyArray_SIZE({x}) > {_GIL_THRESHOLD}) {{ NPY_BEGIN_THREADS; }}
            tt_ptr[0] = PyArray_BYTES(tt_view);
            tt_ptr[1] = PyArray_BYTES({x});
            for (tt_k = 0; tt_k < tt_m; tt_k++) tt_idx[tt_k] = 0;
            do {{
                if (tt_sq == 0) tt_rr_{name}(tt_shape[tt_m - 1], tt_ptr[1], tt_sp, tt_ptr[0]);
                else tt_rv_{name}(tt_shape[tt_m - 1], tt_ptr[1], tt_sp, tt_ptr[0], tt_sq);
            }} while (tt_iter_next(2, tt_m, tt_idx, tt_shape, tt_str, tt_ptr));
            NPY_END_THREADS;
        }}
        Py_CLEAR(tt_view);
    }}
    {finish}
}}""")
    return "{\n" + "\n".join("    " + ln if ln.strip() else ln
                             for ln in "\n".join(filter(None, lines)).split("\n")) + "\n}"


def reduce_version(node) -> tuple:
    """The loop's version with NumPy's major version (its C API)."""
    return (_VERSION, np.__version__.split(".")[0])
