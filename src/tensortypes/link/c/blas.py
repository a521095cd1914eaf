"""``dot`` and ``matmul`` in C, through a real BLAS when there is one (layer 6, ``link``).

``matmul_code`` lowers ``MatMul`` (1-d, 2-d and batched operands, batch axes
broadcast) and ``dot_code`` lowers ``Dot`` (any ranks >= 1: ``a``'s leading axes
are merged into one, ``b``'s leading axes are walked, so an N-d ``dot`` is one
matrix product per index of ``b``'s leading axes). Both reduce to one kernel
per output dtype, ``C (M x N) = A (M x K) B (K x N)`` with element strides:

- float32/float64 call the BLAS that SciPy links: ``scipy.linalg.cython_blas``
  exports its routines as capsules in ``__pyx_capi__``; the module's init reads
  the pointers of ``dgemm``/``sgemm``, ``dgemv``/``sgemv`` and ``ddot``/``sdot``
  once (``PyCapsule_GetPointer``). BLAS is Fortran, column-major: the row-major
  product ``C = A B`` is computed as ``C^T = B^T A^T``, each operand passed as
  itself (transposed) or as its transpose, whichever its strides allow; a
  matrix-vector product is ``gemv``, a vector-vector product ``dot``. An operand
  whose strides BLAS cannot take (negative, zero, overlapping) is copied once
  into a C-contiguous array first, as NumPy does;
- integers and booleans, and floats when SciPy is absent (decided when the
  module is built: ``blas_module()``; also at its import, when SciPy cannot be
  imported then) or a size does not fit BLAS's 32-bit ints, run a plain loop
  over any strides: integers wrap around as NumPy's do, booleans are ``or`` of
  ``and`` as NumPy's are.

Operands of another dtype than the output's are cast first (NumPy's rule:
``int64 @ float32`` is a float64 product). A contracted-axis mismatch is NumPy's
``ValueError``; 0-d operands of ``dot`` (a product by a scalar), float16 and
complex run through ``perform``. Large products release the GIL.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from tensortypes.errors import MethodNotDefined
from tensortypes.link.c.cnames import DTYPE_CTYPE, DTYPE_TYPENUM, c_string
from tensortypes.link.c.loops import LOOP_SUPPORT

__all__ = [
    "blas_module",
    "matmul_code",
    "dot_code",
    "product_support",
    "product_init",
    "product_version",
]

_VERSION = 1
_NO_C = frozenset({"float16", "complex64", "complex128"})
_BLAS_DTYPES = {"float64": "d", "float32": "s"}
_GIL_THRESHOLD = 16384  # multiply-adds


def blas_module() -> str | None:
    """The module whose BLAS capsules compiled products use, or None (loops only).

    SciPy's ``scipy.linalg.cython_blas`` when SciPy is installed; found without
    importing it (the compiled module imports it when it is loaded).
    """
    try:
        found = importlib.util.find_spec("scipy") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        found = False
    return "scipy.linalg.cython_blas" if found else None


# The BLAS pointers, read once when the compiled module is imported.
_BLAS_SUPPORT = r"""
#ifndef TT_BLAS_SUPPORT
#define TT_BLAS_SUPPORT
typedef void (*tt_dgemm_t)(char*, char*, int*, int*, int*, npy_float64*, npy_float64*,
                           int*, npy_float64*, int*, npy_float64*, npy_float64*, int*);
typedef void (*tt_sgemm_t)(char*, char*, int*, int*, int*, npy_float32*, npy_float32*,
                           int*, npy_float32*, int*, npy_float32*, npy_float32*, int*);
typedef void (*tt_dgemv_t)(char*, int*, int*, npy_float64*, npy_float64*, int*,
                           npy_float64*, int*, npy_float64*, npy_float64*, int*);
typedef void (*tt_sgemv_t)(char*, int*, int*, npy_float32*, npy_float32*, int*,
                           npy_float32*, int*, npy_float32*, npy_float32*, int*);
typedef npy_float64 (*tt_ddot_t)(int*, npy_float64*, int*, npy_float64*, int*);
typedef npy_float32 (*tt_sdot_t)(int*, npy_float32*, int*, npy_float32*, int*);
static tt_dgemm_t tt_blas_dgemm = NULL;
static tt_sgemm_t tt_blas_sgemm = NULL;
static tt_dgemv_t tt_blas_dgemv = NULL;
static tt_sgemv_t tt_blas_sgemv = NULL;
static tt_ddot_t tt_blas_ddot = NULL;
static tt_sdot_t tt_blas_sdot = NULL;
static int tt_blas_d = 0, tt_blas_s = 0;  /* all three routines of a precision found */

#ifdef TT_BLAS_MODULE
static PyObject* tt_blas_owner = NULL;  /* kept: the routines live in its library */

static void* tt_blas_get(PyObject* capi, const char* name)
{
    PyObject* capsule = PyDict_GetItemString(capi, name);  /* borrowed */
    void* p;
    if (capsule == NULL || !PyCapsule_CheckExact(capsule)) return NULL;
    p = PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
    if (p == NULL) PyErr_Clear();
    return p;
}
#endif

/* Read the routines once; without the module (or its capsules) the loops run. */
static void tt_blas_load(void)
{
#ifdef TT_BLAS_MODULE
    PyObject* capi;
    if (tt_blas_owner != NULL) return;
    tt_blas_owner = PyImport_ImportModule(TT_BLAS_MODULE);
    if (tt_blas_owner == NULL) { PyErr_Clear(); return; }
    capi = PyObject_GetAttrString(tt_blas_owner, "__pyx_capi__");
    if (capi == NULL || !PyDict_Check(capi)) { PyErr_Clear(); Py_XDECREF(capi); return; }
    tt_blas_dgemm = (tt_dgemm_t)tt_blas_get(capi, "dgemm");
    tt_blas_sgemm = (tt_sgemm_t)tt_blas_get(capi, "sgemm");
    tt_blas_dgemv = (tt_dgemv_t)tt_blas_get(capi, "dgemv");
    tt_blas_sgemv = (tt_sgemv_t)tt_blas_get(capi, "sgemv");
    tt_blas_ddot = (tt_ddot_t)tt_blas_get(capi, "ddot");
    tt_blas_sdot = (tt_sdot_t)tt_blas_get(capi, "sdot");
    tt_blas_d = tt_blas_dgemm != NULL && tt_blas_dgemv != NULL && tt_blas_ddot != NULL;
    tt_blas_s = tt_blas_sgemm != NULL && tt_blas_sgemv != NULL && tt_blas_sdot != NULL;
    Py_DECREF(capi);
#endif
}

/* How BLAS reads the transpose of a row-major R x C matrix with element strides
   (sr, sc): 'N' (it is column-major with leading dimension sr) or 'T' (the matrix
   itself is column-major with leading dimension sc). 0 when neither. */
static int tt_blas_layout(npy_intp R, npy_intp C, npy_intp sr, npy_intp sc, char* trans,
                          int* ld)
{
    npy_intp l;
    if (R > NPY_MAX_INT || C > NPY_MAX_INT) return 0;
    if ((C <= 1 || sc == 1) && (R <= 1 || sr >= (C > 1 ? C : 1))) {
        l = R <= 1 ? (C > 1 ? C : 1) : sr;
        *trans = 'N';
    } else if ((R <= 1 || sr == 1) && (C <= 1 || sc >= (R > 1 ? R : 1))) {
        l = C <= 1 ? (R > 1 ? R : 1) : sc;
        *trans = 'T';
    } else {
        return 0;
    }
    if (l > NPY_MAX_INT) return 0;
    *ld = (int)l;
    return 1;
}

/* Whether BLAS can multiply these operands as they are (else they are copied). */
static int tt_blas_takes(npy_intp M, npy_intp N, npy_intp K, npy_intp sa0, npy_intp sa1,
                         npy_intp sb0, npy_intp sb1)
{
    char t;
    int ld;
    return tt_blas_layout(M, K, sa0, sa1, &t, &ld) && tt_blas_layout(K, N, sb0, sb1, &t, &ld);
}

/* An operand the kernels can read: aligned, strides whole elements (else a copy). */
static PyArrayObject* tt_readable(PyArrayObject* x, PyArrayObject** own)
{
    int a;
    int good = PyArray_ISALIGNED(x);
    for (a = 0; a < PyArray_NDIM(x) && good; a++)
        good = PyArray_STRIDES(x)[a] % PyArray_ITEMSIZE(x) == 0;
    if (good) return x;
    *own = (PyArrayObject*)PyArray_NewCopy(x, NPY_CORDER);
    return *own;
}

/* A C-contiguous copy replacing *x (held in *own); -1 on error. */
static int tt_contiguous(PyArrayObject** x, PyArrayObject** own)
{
    PyArrayObject* c = (PyArrayObject*)PyArray_NewCopy(*x, NPY_CORDER);
    if (c == NULL) return -1;
    Py_XDECREF(*own);
    *own = c;
    *x = c;
    return 0;
}
#endif
"""

# One kernel per precision through BLAS: C (M x N, row stride ldc, columns
# contiguous) = A B; 0 when BLAS cannot take the operands.
_BLAS_KERNEL = r"""
static int tt_mm_blas_@T@(npy_intp M, npy_intp N, npy_intp K,
                          const @C@* A, npy_intp sa0, npy_intp sa1,
                          const @C@* B, npy_intp sb0, npy_intp sb1, @C@* C, npy_intp ldc)
{
    char ta, tb, tg;
    int lda, ldb, m, n, k, incx, incy, ldcc;
    @C@ one = 1, zero = 0;
    if (!tt_blas_@P@ || K == 0 || ldc > NPY_MAX_INT) return 0;
    if (!tt_blas_layout(M, K, sa0, sa1, &ta, &lda) || !tt_blas_layout(K, N, sb0, sb1, &tb, &ldb))
        return 0;
    m = (int)M; n = (int)N; k = (int)K; ldcc = (int)ldc;
    if (M == 1 && N == 1) {
        incx = K > 1 ? (int)sa1 : 1; incy = K > 1 ? (int)sb0 : 1;
        C[0] = tt_blas_@P@dot(&k, (@C@*)A, &incx, (@C@*)B, &incy);
    } else if (N == 1) {  /* y = A x */
        int gm = ta == 'N' ? k : m, gn = ta == 'N' ? m : k;
        tg = ta == 'N' ? 'T' : 'N';
        incx = K > 1 ? (int)sb0 : 1; incy = ldcc;
        tt_blas_@P@gemv(&tg, &gm, &gn, &one, (@C@*)A, &lda, (@C@*)B, &incx, &zero, C, &incy);
    } else if (M == 1) {  /* y^T = B^T x */
        int gm = tb == 'N' ? n : k, gn = tb == 'N' ? k : n;
        incx = K > 1 ? (int)sa1 : 1; incy = 1;
        tt_blas_@P@gemv(&tb, &gm, &gn, &one, (@C@*)B, &ldb, (@C@*)A, &incx, &zero, C, &incy);
    } else {  /* C^T = B^T A^T, column-major */
        tt_blas_@P@gemm(&tb, &ta, &n, &m, &k, &one, (@C@*)B, &ldb, (@C@*)A, &lda, &zero, C,
                        &ldcc);
    }
    return 1;
}
"""

# The loop every dtype has: floats accumulate row by row (i, k, j: the inner loop
# vectorises), integers in 64-bit unsigned arithmetic (wrap-around, as NumPy),
# booleans as or-of-and.
_LOOP_FLOAT = r"""
    for (i = 0; i < M; i++) {
        @C@* c = C + i * ldc;
        for (j = 0; j < N; j++) c[j] = 0;
        for (k = 0; k < K; k++) {
            const @C@ a = A[i * sa0 + k * sa1];
            const @C@* b = B + k * sb0;
            if (sb1 == 1) { for (j = 0; j < N; j++) c[j] += a * b[j]; }
            else { for (j = 0; j < N; j++) c[j] += a * b[j * sb1]; }
        }
    }
"""
_LOOP_INT = r"""
    for (i = 0; i < M; i++) {
        for (j = 0; j < N; j++) {
            npy_uint64 acc = 0;
            for (k = 0; k < K; k++)
                acc += (npy_uint64)A[i * sa0 + k * sa1] * (npy_uint64)B[k * sb0 + j * sb1];
            C[i * ldc + j] = (@C@)acc;
        }
    }
"""
_LOOP_BOOL = r"""
    for (i = 0; i < M; i++) {
        for (j = 0; j < N; j++) {
            npy_bool acc = 0;
            for (k = 0; k < K && !acc; k++)
                acc = A[i * sa0 + k * sa1] && B[k * sb0 + j * sb1];
            C[i * ldc + j] = acc;
        }
    }
"""


def _kernel(dtype: str) -> str:
    ctype = DTYPE_CTYPE[dtype]
    kind = np.dtype(dtype).kind
    loop = _LOOP_FLOAT if kind == "f" else _LOOP_BOOL if kind == "b" else _LOOP_INT
    prec = _BLAS_DTYPES.get(dtype)
    try_blas = ""
    out = []
    if prec is not None:
        out.append(_BLAS_KERNEL.replace("@T@", dtype).replace("@C@", ctype).replace("@P@", prec))
        try_blas = (
            f"    if (tt_mm_blas_{dtype}(M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc)) return;\n"
        )
    out.append(
        f"""static void tt_mm_{dtype}(npy_intp M, npy_intp N, npy_intp K,
                       const {ctype}* A, npy_intp sa0, npy_intp sa1,
                       const {ctype}* B, npy_intp sb0, npy_intp sb1, {ctype}* C, npy_intp ldc)
{{
    npy_intp i, j, k;
    if (M == 0 || N == 0) return;
{try_blas}{loop.replace("@C@", ctype)}}}
"""
    )
    guard = f"TT_MM_{dtype.upper()}"
    return f"#ifndef {guard}\n#define {guard}\n{''.join(out)}#endif\n"


def _dtype(node) -> str:
    dtypes = {v.type.dtype for v in (*node.inputs, *node.outputs)}
    if _NO_C & dtypes:
        raise MethodNotDefined(f"{node.op} has no C loop for float16/complex dtypes")
    return node.outputs[0].type.dtype


def product_support(node, name, sub) -> str:
    """The BLAS pointers and loaders, and the kernel of this node's dtype."""
    dtype = _dtype(node)
    module = blas_module()
    define = ""
    if module is not None:
        define = f"#ifndef TT_BLAS_MODULE\n#define TT_BLAS_MODULE {c_string(module)}\n#endif\n"
    return define + LOOP_SUPPORT + _BLAS_SUPPORT + _kernel(dtype)


def product_init(node) -> list:
    """The module's init reads the BLAS pointers (once per module)."""
    return ["tt_blas_load();"]


def product_version(node) -> tuple:
    """The kernel's version, NumPy's major version and whether BLAS is used."""
    return (_VERSION, np.__version__.split(".")[0], blas_module() is not None)


def _prologue(node, inputs, fail) -> list:
    """Declarations, the casts to the output dtype and readable operands."""
    dtype = node.outputs[0].type.dtype
    lines = [
        "PyArrayObject* tt_own[2] = {NULL, NULL};",
        f"PyArrayObject* tt_x[2] = {{{inputs[0]}, {inputs[1]}}};",
        "int tt_ok = 1, tt_i;",
        f"const npy_intp tt_isz = (npy_intp)sizeof({DTYPE_CTYPE[dtype]});",
    ]
    for i, var in enumerate(node.inputs):
        if var.type.dtype != dtype:
            lines.append(
                f"tt_own[{i}] = (PyArrayObject*)PyArray_CastToType(tt_x[{i}], "
                f"PyArray_DescrFromType({DTYPE_TYPENUM[dtype]}), 0);\n"
                f"if (tt_own[{i}] == NULL) tt_ok = 0; else tt_x[{i}] = tt_own[{i}];"
            )
    lines.append(
        "for (tt_i = 0; tt_i < 2 && tt_ok; tt_i++) {\n"
        "    PyArrayObject* tt_r = tt_readable(tt_x[tt_i], &tt_own[tt_i]);\n"
        "    if (tt_r == NULL) tt_ok = 0; else tt_x[tt_i] = tt_r;\n"
        "}"
    )
    return lines


def _blas_check(dtype: str) -> str:
    prec = _BLAS_DTYPES.get(dtype)
    return f"tt_blas_{prec}" if prec else "0"


def _compute(node, inputs, outputs, sub, shapes: str, strides: str, run: str) -> str:
    """The common frame of both products: casts and readable operands, ``shapes`` (checks
    the sizes, allocates the output, sets ``tt_go`` when there is work), ``strides``
    (the element strides of one matrix of each operand), a copy of an operand BLAS
    cannot read, then ``run`` (the products, GIL released when large)."""
    dtype = _dtype(node)
    fail = sub["fail"]
    lines = _prologue(node, inputs, fail)
    lines.append(f"""if (tt_ok) {{
    PyArrayObject* tt_a = tt_x[0];
    PyArrayObject* tt_b = tt_x[1];
    npy_intp tt_M = 1, tt_N = 1, tt_K, tt_sa0 = 0, tt_sa1, tt_sb0, tt_sb1 = 0, tt_n = 1, tt_r;
    npy_intp tt_shape[NPY_MAXDIMS], tt_idx[NPY_MAXDIMS], tt_str[2 * NPY_MAXDIMS];
    char* tt_ptr[2];
    int tt_ax, tt_go = 0;
{_indent(shapes, 4)}
    if (tt_ok && tt_go) {{
{_indent(strides, 8)}
        if ({_blas_check(dtype)}) {{
            char tt_t;
            int tt_l, tt_copy = 0;
            /* BLAS reads each operand as it is, or a C-contiguous copy of it */
            if (!tt_blas_layout(tt_M, tt_K, tt_sa0, tt_sa1, &tt_t, &tt_l)) {{
                tt_copy = 1;
                if (tt_contiguous(&tt_a, &tt_own[0]) < 0) tt_ok = 0;
            }}
            if (!tt_blas_layout(tt_K, tt_N, tt_sb0, tt_sb1, &tt_t, &tt_l)) {{
                tt_copy = 1;
                if (tt_contiguous(&tt_b, &tt_own[1]) < 0) tt_ok = 0;
            }}
            if (tt_copy && tt_ok) {{
{_indent(strides, 16)}
            }}
        }}
    }}
    if (tt_ok && tt_go) {{
        NPY_BEGIN_THREADS_DEF;
        tt_ptr[0] = PyArray_BYTES(tt_a);
        tt_ptr[1] = PyArray_BYTES(tt_b);
        if (tt_n * tt_M * tt_N * (tt_K > 0 ? tt_K : 1) > {_GIL_THRESHOLD}) {{ NPY_BEGIN_THREADS; }}
{_indent(run, 8)}
        NPY_END_THREADS;
    }}
}}""")
    lines.append("Py_XDECREF(tt_own[0]); Py_XDECREF(tt_own[1]);")
    lines.append(f"if (!tt_ok) {{ {fail} }}")
    return "{\n" + _indent("\n".join(lines), 4) + "\n}"


def _indent(code: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + ln if ln.strip() else ln for ln in code.split("\n"))


def _call(dtype: str, out: str, offset: str, ldc: str) -> str:
    ct = DTYPE_CTYPE[dtype]
    return (
        f"tt_mm_{dtype}(tt_M, tt_N, tt_K, (const {ct}*)tt_ptr[0], tt_sa0, tt_sa1, "
        f"(const {ct}*)tt_ptr[1], tt_sb0, tt_sb1, ({ct}*)PyArray_DATA({out}) + {offset}, {ldc});"
    )


def matmul_code(node, name, inputs, outputs, sub) -> str:
    """The C code of one ``MatMul`` node (see the module docstring).

    >>> from tensortypes.tensor import dmatrix
    >>> code = matmul_code((dmatrix("a") @ dmatrix("b")).owner, "n0", ["V0", "V1"], ["V2"],
    ...                    {"fail": "goto fail;"})
    >>> "tt_mm_float64(" in code
    True
    """
    dtype = _dtype(node)
    out = outputs[0]
    na, nb = node.inputs[0].type.ndim, node.inputs[1].type.ndim
    ba, bb = max(na - 2, 0), max(nb - 2, 0)
    nbatch = max(ba, bb)
    out_nd = node.outputs[0].type.ndim
    kb = nb - 2 if nb > 1 else 0
    mismatch = c_string(
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
        "signature (n?,k),(k,m?)->(n?,m?) (size %zd is different from %zd)"
    )
    batch_msg = c_string(
        "matmul: the batch axes of the operands do not broadcast: axis %d has size %zd "
        "in the first operand and %zd in the second"
    )
    shapes = f"""npy_intp tt_od[{max(out_nd, 1)}];
int tt_j = 0;
tt_K = PyArray_DIMS(tt_a)[{na - 1}];
{f"tt_M = PyArray_DIMS(tt_a)[{na - 2}];" if na > 1 else ""}
{f"tt_N = PyArray_DIMS(tt_b)[{nb - 1}];" if nb > 1 else ""}
if (PyArray_DIMS(tt_b)[{kb}] != tt_K) {{
    PyErr_Format(PyExc_ValueError, {mismatch}, (Py_ssize_t)PyArray_DIMS(tt_b)[{kb}],
                 (Py_ssize_t)tt_K);
    tt_ok = 0;
}}
for (tt_ax = 0; tt_ax < {nbatch} && tt_ok; tt_ax++) {{
    const int tt_ia = tt_ax - {nbatch - ba}, tt_ib = tt_ax - {nbatch - bb};
    const npy_intp tt_da = tt_ia >= 0 ? PyArray_DIMS(tt_a)[tt_ia] : 1;
    const npy_intp tt_db = tt_ib >= 0 ? PyArray_DIMS(tt_b)[tt_ib] : 1;
    if (tt_da != tt_db && tt_da != 1 && tt_db != 1) {{
        PyErr_Format(PyExc_ValueError, {batch_msg}, tt_ax - {nbatch}, (Py_ssize_t)tt_da,
                     (Py_ssize_t)tt_db);
        tt_ok = 0;
        break;
    }}
    tt_shape[tt_ax] = tt_da == 1 ? tt_db : tt_da;
    tt_idx[tt_ax] = 0;
    tt_str[tt_ax] = tt_ia < 0 || tt_da == 1 ? 0 : PyArray_STRIDES(tt_a)[tt_ia];
    tt_str[NPY_MAXDIMS + tt_ax] = tt_ib < 0 || tt_db == 1 ? 0 : PyArray_STRIDES(tt_b)[tt_ib];
    tt_od[tt_j++] = tt_shape[tt_ax];
    tt_n *= tt_shape[tt_ax];
}}
if (tt_ok) {{
    {"tt_od[tt_j++] = tt_M;" if na > 1 else ""}
    {"tt_od[tt_j++] = tt_N;" if nb > 1 else ""}
    Py_XDECREF({out});
    {out} = (PyArrayObject*)PyArray_EMPTY({out_nd}, tt_od, {DTYPE_TYPENUM[dtype]}, 0);
    if ({out} == NULL) tt_ok = 0;
    else tt_go = tt_n > 0 && tt_M > 0 && tt_N > 0;
}}"""
    # a copy for BLAS is C-contiguous: its batch strides are recomputed with the rest
    strides = f"""tt_sa1 = PyArray_STRIDES(tt_a)[{na - 1}] / tt_isz;
{f"tt_sa0 = PyArray_STRIDES(tt_a)[{na - 2}] / tt_isz;" if na > 1 else ""}
tt_sb0 = PyArray_STRIDES(tt_b)[{kb}] / tt_isz;
{f"tt_sb1 = PyArray_STRIDES(tt_b)[{nb - 1}] / tt_isz;" if nb > 1 else ""}
for (tt_ax = 0; tt_ax < {nbatch}; tt_ax++) {{
    const int tt_ia = tt_ax - {nbatch - ba}, tt_ib = tt_ax - {nbatch - bb};
    tt_str[tt_ax] = tt_ia < 0 || PyArray_DIMS(tt_a)[tt_ia] == 1 ? 0 : PyArray_STRIDES(tt_a)[tt_ia];
    tt_str[NPY_MAXDIMS + tt_ax] = tt_ib < 0 || PyArray_DIMS(tt_b)[tt_ib] == 1
        ? 0 : PyArray_STRIDES(tt_b)[tt_ib];
}}"""
    run = f"""for (tt_r = 0; tt_r < tt_n; tt_r++) {{
    {_call(dtype, out, "tt_r * tt_M * tt_N", "tt_N")}
    tt_iter_next(2, {nbatch + 1}, tt_idx, tt_shape, tt_str, tt_ptr);
}}"""
    return _compute(node, inputs, outputs, sub, shapes, strides, run)


def dot_code(node, name, inputs, outputs, sub) -> str:
    """The C code of one ``Dot`` node: ``a``'s leading axes merged into the rows of one
    matrix (copied when they cannot be), one product per index of ``b``'s leading axes.

    >>> from tensortypes.tensor import dmatrix, dvector
    >>> code = dot_code(dmatrix("a").dot(dvector("b")).owner, "n0", ["V0", "V1"], ["V2"],
    ...                 {"fail": "goto fail;"})
    >>> "tt_mm_float64(" in code
    True
    """
    dtype = _dtype(node)
    out = outputs[0]
    na, nb = node.inputs[0].type.ndim, node.inputs[1].type.ndim
    if na == 0 or nb == 0:
        raise MethodNotDefined(
            "dot with a 0-d operand (a product by a scalar) runs through perform"
        )
    bb = max(nb - 2, 0)
    kb = nb - 2 if nb > 1 else 0
    out_nd = node.outputs[0].type.ndim
    mismatch = c_string("shapes %R and %R not aligned: %zd (dim %d) != %zd (dim %d)")
    shapes = f"""npy_intp tt_od[{max(out_nd, 1)}];
int tt_j = 0;
tt_K = PyArray_DIMS(tt_a)[{na - 1}];
if (PyArray_DIMS(tt_b)[{kb}] != tt_K) {{
    PyObject* tt_sa = PyObject_GetAttrString((PyObject*)tt_a, "shape");
    PyObject* tt_sb = tt_sa == NULL ? NULL : PyObject_GetAttrString((PyObject*)tt_b, "shape");
    if (tt_sb != NULL)
        PyErr_Format(PyExc_ValueError, {mismatch}, tt_sa, tt_sb, (Py_ssize_t)tt_K, {na - 1},
                     (Py_ssize_t)PyArray_DIMS(tt_b)[{kb}], {kb});
    Py_XDECREF(tt_sa);
    Py_XDECREF(tt_sb);
    tt_ok = 0;
}}
for (tt_ax = 0; tt_ax < {na - 1}; tt_ax++) {{
    tt_od[tt_j++] = PyArray_DIMS(tt_a)[tt_ax];
    tt_M *= PyArray_DIMS(tt_a)[tt_ax];
}}
for (tt_ax = 0; tt_ax < {bb}; tt_ax++) {{
    tt_shape[tt_ax] = tt_od[tt_j++] = PyArray_DIMS(tt_b)[tt_ax];
    tt_idx[tt_ax] = 0;
    tt_str[tt_ax] = 0;
    tt_n *= tt_shape[tt_ax];
}}
{f"tt_N = tt_od[tt_j++] = PyArray_DIMS(tt_b)[{nb - 1}];" if nb > 1 else ""}
if (tt_ok) {{
    Py_XDECREF({out});
    {out} = (PyArrayObject*)PyArray_EMPTY({out_nd}, tt_od, {DTYPE_TYPENUM[dtype]}, 0);
    if ({out} == NULL) tt_ok = 0;
    else tt_go = tt_n > 0 && tt_M > 0 && tt_N > 0;
}}"""
    # the rows of a: its leading axes, one stride when they merge (else a copy)
    merge = ""
    if na > 2:
        merge = f"""{{
    npy_intp tt_want = 0;
    int tt_merged = 1, tt_first = 1;
    for (tt_ax = {na - 2}; tt_ax >= 0; tt_ax--) {{
        const npy_intp tt_d = PyArray_DIMS(tt_a)[tt_ax], tt_s = PyArray_STRIDES(tt_a)[tt_ax];
        if (tt_d == 1) continue;
        if (tt_first) {{ tt_sa0 = tt_s / tt_isz; tt_first = 0; }}
        else if (tt_s != tt_want) {{ tt_merged = 0; break; }}
        tt_want = tt_s * tt_d;
    }}
    if (!tt_merged) {{
        if (tt_contiguous(&tt_a, &tt_own[0]) < 0) tt_ok = 0;
        tt_sa0 = tt_K;
    }}
}}"""
    elif na == 2:
        merge = "tt_sa0 = PyArray_STRIDES(tt_a)[0] / tt_isz;"
    strides = f"""{merge}
tt_sa1 = PyArray_STRIDES(tt_a)[{na - 1}] / tt_isz;
tt_sb0 = PyArray_STRIDES(tt_b)[{kb}] / tt_isz;
{f"tt_sb1 = PyArray_STRIDES(tt_b)[{nb - 1}] / tt_isz;" if nb > 1 else ""}
for (tt_ax = 0; tt_ax < {bb}; tt_ax++) tt_str[NPY_MAXDIMS + tt_ax] = PyArray_STRIDES(tt_b)[tt_ax];"""
    run = f"""for (tt_r = 0; tt_r < tt_n; tt_r++) {{
    {_call(dtype, out, "tt_r * tt_N", "tt_n * tt_N")}
    tt_iter_next(2, {bb + 1}, tt_idx, tt_shape, tt_str, tt_ptr);
}}"""
    return _compute(node, inputs, outputs, sub, shapes, strides, run)
