"""C loops for reductions, ``argmax``/``argmin`` and fused reductions (layer 6, ``link``).

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

``fused_code`` lowers ``FusedReduce`` (``tensor.fused``): a program of elementwise
steps and reductions over the trailing axes, run row by row. In each row the
program's stages run in order, each one loop over the row: values a later stage
reads are kept in row buffers, so each row is read from memory once and every
intermediate stays in cache (row softmax: the maximum, then ``exp`` and the sum,
then the division).

``argmax_code`` lowers ``Argmax``: each row along the axis is scanned for its first
extreme (a NaN first of all, as NumPy); the flat index reads a C-contiguous copy
when the input is not one.
"""

from __future__ import annotations

import numpy as np

from tensortypes.errors import MethodNotDefined
from tensortypes.link.c.cnames import DTYPE_CTYPE, DTYPE_TYPENUM, c_string
from tensortypes.link.c.loops import LOOP_SUPPORT, scalar_kernel

__all__ = [
    "reduce_code",
    "reduce_support",
    "reduce_version",
    "SIMD_SUPPORT",
    "acc_ctype",
    "identity",
    "combine",
    "mean_warning",
    "empty_checks",
    "FusedProgram",
    "scalar_support",
    "space_prologue",
    "fused_code",
    "fused_support",
    "fused_version",
    "argmax_code",
    "argmax_support",
]

_VERSION = 1
_NO_C = frozenset({"float16", "complex64", "complex128"})
_GIL_THRESHOLD = 16384
_NUMPY_NAME = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum", "mean": "add"}

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


def empty_checks(kind: str, count: str, fail: str) -> str:
    if kind in ("max", "min"):
        message = c_string(
            f"zero-size array to reduction operation {_NUMPY_NAME[kind]} which has no identity"
        )
        return f"if ({count} == 0) {{ PyErr_SetString(PyExc_ValueError, {message}); {fail} }}"
    return ""


def mean_warning(count: str, rows: str, fail: str) -> str:
    """NumPy's warning for the mean of an empty slice (an error under ``-W error``)."""
    return (
        f"if ({count} == 0 && {rows} > 0 && PyErr_WarnEx(PyExc_RuntimeWarning, "
        f'"Mean of empty slice", 1) < 0) {{ {fail} }}'
    )


def reduce_support(node, name, sub) -> str:
    """The two inner loops of one ``Reduce`` node: into registers, and into a row."""
    _check_dtypes(node)
    op = node.op
    kind, xd, od = op.kind, node.inputs[0].type.dtype, node.outputs[0].type.dtype
    it, ot, at = DTYPE_CTYPE[xd], DTYPE_CTYPE[od], acc_ctype(kind, xd, od)
    ident = identity(kind, od)
    lanes = "\n".join(
        f"        {combine(kind, f'tt_l[{k}]', f'(({at})tt_a[tt_i + {k}])')}" for k in range(8)
    )
    fold = "\n".join(f"    {combine(kind, 'tt_r', f'tt_l[{k}]')}" for k in range(8))
    store_row = f"*({ot}*)(tt_q + tt_i * tt_sq) = ({ot})tt_c;"
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
    lines = [
        f"npy_intp tt_kd[{max(nd, 1)}], tt_od[{max(nd, 1)}], tt_count = 1;",
        "PyArrayObject* tt_view = NULL;",
    ]
    j = 0
    for a in range(nd):
        if a in axes:
            lines.append(f"tt_kd[{a}] = 1; tt_count *= PyArray_DIMS({x})[{a}];")
        else:
            lines.append(f"tt_kd[{a}] = tt_od[{j}] = PyArray_DIMS({x})[{a}];")
            j += 1
    lines.append(empty_checks(kind, "tt_count", fail))
    out_nd, out_dims = (nd, "tt_kd") if op.keepdims else (j, "tt_od")
    lines.append(
        f"Py_XDECREF({out});\n{out} = (PyArrayObject*)PyArray_EMPTY({out_nd}, "
        f"{out_dims}, {DTYPE_TYPENUM[od]}, 0);\nif ({out} == NULL) {{ {fail} }}"
    )
    if kind == "mean":
        lines.append(mean_warning("tt_count", f"PyArray_SIZE({out})", fail))
    if op.keepdims:
        view = f"tt_view = {out}; Py_INCREF(tt_view);"
    else:
        view = (
            f"PyArray_Dims tt_shape_k = {{tt_kd, {nd}}};\n"
            f"        tt_view = (PyArrayObject*)PyArray_Newshape({out}, &tt_shape_k, "
            "NPY_CORDER);"
        )
    finish = ""
    if kind == "mean":
        finish = (
            f"for (tt_k = 0; tt_k < tt_nout; tt_k++) tt_o[tt_k] = ({ot})"
            f"(tt_o[tt_k] / (npy_float64)tt_count);"
        )
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
    return (
        "{\n"
        + "\n".join(
            "    " + ln if ln.strip() else ln for ln in "\n".join(filter(None, lines)).split("\n")
        )
        + "\n}"
    )


def reduce_version(node) -> tuple:
    """The loop's version with NumPy's major version (its C API)."""
    return (_VERSION, np.__version__.split(".")[0])


# -- FusedReduce: a program of elementwise steps and reductions, row by row ----------------


class FusedProgram:
    """What the C code of one ``FusedReduce`` node needs, decided from its types.

    ``cls[v]`` is ``"row"`` (1 on every reduced axis) or ``"full"``; ``level[v]`` is the
    stage a step is computed in (a reduction: the stage it accumulates in; its value
    is ready from the next one); ``buffered`` are the full values a later stage reads.
    """

    __slots__ = (
        "op",
        "nin",
        "k",
        "dtypes",
        "values_ndim",
        "cls",
        "level",
        "stage",
        "stages",
        "outputs",
        "buffered",
        "kernels",
    )

    def __init__(self, node):
        op = node.op
        _check_dtypes(node)
        self.op, self.nin = op, op.nin
        self.k = op.ndim - len(op.axes)
        values = op.build(list(node.inputs))
        self.dtypes = [v.type.dtype for v in values]
        self.values_ndim = [v.type.ndim for v in values]
        if _NO_C & set(self.dtypes):
            raise MethodNotDefined(f"{op} has a float16/complex step")
        self.cls = []
        for v in values:
            shape = (1,) * (op.ndim - v.type.ndim) + tuple(v.type.shape)
            self.cls.append("row" if all(shape[a] == 1 for a in op.axes) else "full")
        avail = [0] * len(values)
        self.level: dict = {}  # step value -> stage it is computed in (reduce: accumulated)
        for i, step in enumerate(op.program):
            v = self.nin + i
            if step[0] == "elemwise":
                self.level[v] = max((avail[a] for a in step[2]), default=0)
                avail[v] = self.level[v]
            else:
                if self.cls[step[2]] != "full":
                    raise MethodNotDefined(f"{op}: a reduction of a row value")
                self.level[v] = avail[step[2]]
                avail[v] = self.level[v] + 1
                self.cls[v] = "row"
        self.stages = max(avail, default=0) + 1
        self.outputs = list(op.outputs)
        # full values read in a later stage than the one computing them: row buffers
        self.buffered = set()
        for i, step in enumerate(op.program):
            v = self.nin + i
            args = step[2] if step[0] == "elemwise" else (step[2],)
            for a in args:
                if a >= self.nin and self.cls[a] == "full" and self.level[a] < self.level[v]:
                    self.buffered.add(a)

    def ctype(self, v: int) -> str:
        return DTYPE_CTYPE[self.dtypes[v]]

    def name(self, v: int) -> str:
        if v < self.nin:
            return f"tt_a{v}" if self.cls[v] == "full" else f"tt_s{v}"
        return f"tt_v{v}"

    def args(self, v: int) -> tuple:
        step = self.op.program[v - self.nin]
        return step[2] if step[0] == "elemwise" else (step[2],)

    def kernel(self, v: int) -> str:
        step = self.op.program[v - self.nin]
        args = step[2]
        return scalar_kernel(
            step[1],
            [self.dtypes[a] for a in args],
            [self.dtypes[v]],
            [self.name(a) for a in args],
            [self.name(v)],
        )


def _fused_row(prog: FusedProgram, name: str) -> str:
    """The function computing one row: every stage in order."""
    op, nin = prog.op, prog.nin
    params = ["npy_intp tt_L"]
    for k in range(nin):
        ct = prog.ctype(k)
        params.append(
            f"const {ct}* restrict tt_in{k}" if prog.cls[k] == "full" else f"const {ct} tt_s{k}"
        )
    for j, o in enumerate(prog.outputs):
        params.append(f"{prog.ctype(o)}* restrict tt_out{j}")
    for b in sorted(prog.buffered):
        params.append(f"{prog.ctype(b)}* restrict tt_buf{b}")
    lines = []
    steps = range(nin, nin + len(op.program))
    row_steps = [v for v in steps if prog.cls[v] == "row"]
    lines += [f"{prog.ctype(v)} tt_v{v};" for v in row_steps]
    outs = {o: j for j, o in enumerate(prog.outputs)}
    for s in range(prog.stages):
        for v in row_steps:
            if op.program[v - nin][0] == "elemwise" and prog.level[v] == s:
                lines.append(prog.kernel(v))
                if v in outs:
                    lines.append(f"*tt_out{outs[v]} = tt_v{v};")
        full = [v for v in steps if prog.cls[v] == "full" and prog.level[v] == s]
        reds = [v for v in steps if op.program[v - nin][0] == "reduce" and prog.level[v] == s]
        if not full and not reds:
            continue
        clauses, body, after = [], [], []
        used = {a for v in full + reds for a in prog.args(v)}
        for k in range(nin):
            if k in used and prog.cls[k] == "full":
                body.append(f"const {prog.ctype(k)} tt_a{k} = tt_in{k}[tt_j];")
        for b in sorted(prog.buffered):
            if b in used and prog.level[b] < s:
                body.append(f"const {prog.ctype(b)} tt_v{b} = tt_buf{b}[tt_j];")
        for v in full:
            body.append(f"{prog.ctype(v)} tt_v{v};")
            body.append(prog.kernel(v))
            if v in prog.buffered:
                body.append(f"tt_buf{v}[tt_j] = tt_v{v};")
            if v in outs:
                body.append(f"tt_out{outs[v]}[tt_j] = tt_v{v};")
        for v in reds:
            _, kind, arg, _ = op.program[v - nin]
            at = acc_ctype(kind, prog.dtypes[arg], prog.dtypes[v])
            acc = f"tt_acc{v}"
            lines.append(f"{at} {acc} = ({at}){identity(kind, prog.dtypes[v])};")
            src = f"(({at}){prog.name(arg)})"
            if kind in ("max", "min"):
                clauses.append(f"reduction({kind}:{acc})")
                cmp = ">" if kind == "max" else "<"
                body.append(f"{acc} = {src} {cmp} {acc} ? {src} : {acc};")
                if np.dtype(prog.dtypes[v]).kind == "f":
                    lines.append(f"int tt_nan{v} = 0;")
                    clauses.append(f"reduction(|:tt_nan{v})")
                    body.append(f"tt_nan{v} |= {prog.name(arg)} != {prog.name(arg)};")
                    after.append(f"if (tt_nan{v}) {acc} = NAN;")
            else:
                clauses.append(f"reduction({'*' if kind == 'prod' else '+'}:{acc})")
                body.append(combine(kind, acc, src))
            total = " / (npy_float64)tt_L" if kind == "mean" else ""
            after.append(f"tt_v{v} = ({prog.ctype(v)})({acc}{total});")
            if v in outs:
                after.append(f"*tt_out{outs[v]} = tt_v{v};")
        lines.append(f"TT_SIMD({' '.join(clauses)})")
        lines.append("for (npy_intp tt_j = 0; tt_j < tt_L; tt_j++) {")
        lines += ["    " + ln for b in body for ln in b.split("\n")]
        lines.append("}")
        lines += after
    inner = "\n".join("    " + ln for ln in "\n".join(lines).split("\n"))
    return f"TT_LOOP void tt_row_{name}({', '.join(params)})\n{{\n{inner}\n}}\n"


def space_prologue(op, inputs, fail: str, count: str, kept: str) -> list:
    """C lines for a ``FusedReduce``'s space: ``tt_in`` (the inputs), ``tt_dims`` (their
    broadcast), ``tt_kd`` (1 on the reduced axes), ``tt_od`` (the kept sizes), ``count``
    (the reduced elements per kept position) and ``kept`` (the kept positions); then
    NumPy's error for an empty ``max``/``min`` and its warning for an empty ``mean``."""
    nd, nin = op.ndim, op.nin
    reduced = " || ".join(f"tt_a == {a}" for a in op.axes)
    lines = [
        f"npy_intp tt_dims[{nd}], tt_kd[{nd}], tt_od[{nd}], {count} = 1, {kept} = 1;",
        f"PyArrayObject* tt_in[{nin}] = {{{', '.join(inputs)}}};",
        "int tt_a, tt_d = 0;",
        f"if (tt_broadcast({nin}, tt_in, {nd}, tt_dims, {c_string(str(op))}) < 0) {{ {fail} }}",
        f"for (tt_a = 0; tt_a < {nd}; tt_a++) {{",
        f"    if ({reduced}) {{ {count} *= tt_dims[tt_a]; tt_kd[tt_a] = 1; }}",
        f"    else {{ {kept} *= tt_dims[tt_a]; tt_kd[tt_a] = tt_od[tt_d++] = tt_dims[tt_a]; }}",
        "}",
    ]
    kinds = {s[1] for s in op.program if s[0] == "reduce"}
    for kind in ("max", "min"):
        if kind in kinds:
            lines.append(empty_checks(kind, count, fail))
    if "mean" in kinds:
        lines.append(mean_warning(count, kept, fail))
    return lines


def scalar_support(op) -> list:
    """The support code of the scalar ops of a ``FusedReduce``'s steps, each once."""
    support: list = []
    for step in op.program:
        code = step[1].c_support_code() if step[0] == "elemwise" else ""
        if code and code not in support:
            support.append(code)
    return support


def fused_support(node, name, sub) -> str:
    """The shared loop helpers, the scalar ops' support code and this node's row function
    (over the trailing axes; other axes: ``fused_walk``)."""
    prog = FusedProgram(node)
    support = scalar_support(node.op)
    return "\n".join([*support, LOOP_SUPPORT, SIMD_SUPPORT, _fused_row(prog, name)])


def fused_code(node, name, inputs, outputs, sub) -> str:
    """The C code of one ``FusedReduce`` node (see the module docstring).

    Full inputs whose rows are not contiguous (a transposed or strided array, or
    one broadcast along a row) are first copied into contiguous arrays of the
    iteration space's shape; outputs are allocated C-contiguous.

    >>> import tensortypes.tensor as tt
    >>> from tensortypes.graph import FunctionGraph
    >>> from tensortypes.tensor.rewriting import ReduceFusion
    >>> x = tt.tensor("float64", ("n", "m"), name="x")
    >>> fg = FunctionGraph([x], [tt.sum(tt.exp(x), axis=1)], clone=True)
    >>> ReduceFusion().apply(fg)
    {'reduce_fusion': 1}
    >>> "tt_row_n0(" in fused_code(fg.outputs[0].owner, "n0", ["V0"], ["V1"],
    ...                            {"fail": "goto fail;"})
    True
    """
    prog = FusedProgram(node)
    op, nin, k, nd = prog.op, prog.nin, prog.k, prog.op.ndim
    fail = sub["fail"]
    full_in = [i for i in range(nin) if prog.cls[i] == "full"]
    lines = [
        f"PyArrayObject* tt_own[{nin}] = {{{', '.join(['NULL'] * nin)}}};",
        f"void* tt_bufs[{max(len(prog.buffered), 1)}] = {{NULL}};",
        "int tt_k, tt_ok = 1;",
        *space_prologue(op, inputs, fail, "tt_L", "tt_rows"),
    ]
    for j, o in enumerate(prog.outputs):
        out = outputs[j]
        step = op.program[o - nin] if o >= nin else None
        if prog.cls[o] == "full":
            ndims, dims = nd, "tt_dims"
        elif step is not None and step[0] == "reduce" and not step[3]:
            ndims, dims = k, "tt_dims"
        else:
            ndims, dims = nd, "tt_kd"
        lines.append(
            f"Py_XDECREF({out});\n{out} = (PyArrayObject*)PyArray_EMPTY({ndims}, "
            f"{dims}, {DTYPE_TYPENUM[prog.dtypes[o]]}, 0);\n"
            f"if ({out} == NULL) {{ {fail} }}"
        )
    # Full inputs must have contiguous rows of the space's size; others are copied.
    for i in full_in:
        isz = f"(npy_intp)sizeof({prog.ctype(i)})"
        lines.append(f"""{{
    PyArrayObject* tt_x = tt_in[{i}];
    int tt_off = {nd} - PyArray_NDIM(tt_x), tt_good = 1;
    npy_intp tt_want = {isz};
    for (tt_a = {nd} - 1; tt_a >= {k}; tt_a--) {{
        if (tt_dims[tt_a] == 1) continue;
        if (tt_a < tt_off || PyArray_DIMS(tt_x)[tt_a - tt_off] != tt_dims[tt_a]
                || PyArray_STRIDES(tt_x)[tt_a - tt_off] != tt_want) {{ tt_good = 0; break; }}
        tt_want *= tt_dims[tt_a];
    }}
    if (!tt_good) {{
        tt_own[{i}] = (PyArrayObject*)PyArray_EMPTY({nd}, tt_dims, {DTYPE_TYPENUM[prog.dtypes[i]]}, 0);
        if (tt_own[{i}] == NULL || PyArray_CopyInto(tt_own[{i}], tt_x) < 0) tt_ok = 0;
        else tt_in[{i}] = tt_own[{i}];
    }}
}}""")
    for n, b in enumerate(sorted(prog.buffered)):
        lines.append(
            f"if (tt_ok) {{ tt_bufs[{n}] = PyMem_Malloc((size_t)(tt_L > 0 ? tt_L : 1) "
            f"* sizeof({prog.ctype(b)})); if (tt_bufs[{n}] == NULL) {{ PyErr_NoMemory(); "
            "tt_ok = 0; } }"
        )
    call = ["tt_L"]
    for i in range(nin):
        ct = prog.ctype(i)
        call.append(
            f"(const {ct}*)tt_ptr[{i}]" if prog.cls[i] == "full" else f"*(const {ct}*)tt_ptr[{i}]"
        )
    for j, o in enumerate(prog.outputs):
        ct = prog.ctype(o)
        step = "tt_r * tt_L" if prog.cls[o] == "full" else "tt_r"
        call.append(f"({ct}*)PyArray_DATA({outputs[j]}) + {step}")
    for n, b in enumerate(sorted(prog.buffered)):
        call.append(f"({prog.ctype(b)}*)tt_bufs[{n}]")
    lines.append(f"""if (tt_ok && tt_rows > 0) {{
    npy_intp tt_shape[NPY_MAXDIMS], tt_idx[NPY_MAXDIMS], tt_str[{nin} * NPY_MAXDIMS], tt_r;
    char* tt_ptr[{nin}];
    NPY_BEGIN_THREADS_DEF;
    for (tt_k = 0; tt_k < {nin}; tt_k++) {{
        PyArrayObject* tt_x = tt_in[tt_k];
        int tt_off = {nd} - PyArray_NDIM(tt_x);
        tt_ptr[tt_k] = PyArray_BYTES(tt_x);
        for (tt_a = 0; tt_a < {k}; tt_a++)
            tt_str[tt_k * NPY_MAXDIMS + tt_a] = (tt_a < tt_off || PyArray_DIMS(tt_x)[tt_a - tt_off] == 1)
                ? 0 : PyArray_STRIDES(tt_x)[tt_a - tt_off];
    }}
    for (tt_a = 0; tt_a < {k}; tt_a++) {{ tt_shape[tt_a] = tt_dims[tt_a]; tt_idx[tt_a] = 0; }}
    if (tt_rows * tt_L > {_GIL_THRESHOLD}) {{ NPY_BEGIN_THREADS; }}
    for (tt_r = 0; tt_r < tt_rows; tt_r++) {{
        tt_row_{name}({", ".join(call)});
        tt_iter_next({nin}, {k + 1}, tt_idx, tt_shape, tt_str, tt_ptr);
    }}
    NPY_END_THREADS;
}}""")
    lines.append(
        "for (tt_k = 0; tt_k < (int)(sizeof(tt_bufs) / sizeof(tt_bufs[0])); tt_k++) "
        "PyMem_Free(tt_bufs[tt_k]);"
    )
    lines.append(f"for (tt_k = 0; tt_k < {nin}; tt_k++) Py_XDECREF(tt_own[tt_k]);")
    lines.append(f"if (!tt_ok) {{ {fail} }}")
    return (
        "{\n"
        + "\n".join("    " + ln if ln.strip() else ln for ln in "\n".join(lines).split("\n"))
        + "\n}"
    )


def fused_version(node) -> tuple:
    """The loop's version with its scalar ops' (empty when one is unversioned)."""
    versions = []
    for step in node.op.program:
        if step[0] == "elemwise":
            v = getattr(step[1], "c_code_cache_version", None)
            v = tuple(v()) if v is not None else ()
            if not v:
                return ()
            versions.append(v)
    return (_VERSION, tuple(versions), np.__version__.split(".")[0])


# -- Argmax: the index of the first extreme along one axis (or of the flat array) ---------


def argmax_support(node, name, sub) -> str:
    """The scan of one row: the index of its first extreme, a NaN first of all."""
    _check_dtypes(node)
    op = node.op
    it = DTYPE_CTYPE[node.inputs[0].type.dtype]
    cmp = ">" if op.kind == "argmax" else "<"
    nan = " || (tt_v != tt_v && tt_b == tt_b)" if node.inputs[0].type.dtype[0] == "f" else ""
    return f"""{LOOP_SUPPORT}
TT_LOOP npy_int64 tt_arg_{name}(npy_intp tt_n, const char* tt_p, npy_intp tt_s)
{{
    {it} tt_b = *(const {it}*)tt_p;
    npy_int64 tt_at = 0;
    npy_intp tt_i;
    for (tt_i = 1; tt_i < tt_n; tt_i++) {{
        const {it} tt_v = *(const {it}*)(tt_p + tt_i * tt_s);
        if (tt_v {cmp} tt_b{nan}) {{ tt_b = tt_v; tt_at = (npy_int64)tt_i; }}
    }}
    return tt_at;
}}
"""


def argmax_code(node, name, inputs, outputs, sub) -> str:
    """The C code of one ``Argmax`` node: the input (C-contiguous first for the flat
    index) scanned row by row along the axis, rows in C order of the other axes.

    >>> from tensortypes.tensor import dmatrix
    >>> "tt_arg_n0(" in argmax_code(dmatrix("x").argmax(axis=0).owner, "n0", ["V0"], ["V1"],
    ...                             {"fail": "goto fail;"})
    True
    """
    _check_dtypes(node)
    op = node.op
    (x,), (out,) = inputs, outputs
    fail = sub["fail"]
    nd = node.inputs[0].type.ndim
    out_nd = node.outputs[0].type.ndim
    message = c_string(f"attempt to get {op.kind} of an empty sequence")
    lines = [
        f"PyArrayObject* tt_x = {x};",
        "PyArrayObject* tt_c = NULL;",
        f"npy_intp tt_od[{max(out_nd, 1)}], tt_n, tt_s, tt_rows = 1;",
        "int tt_a, tt_j = 0;",
    ]
    if op.axis is None:
        lines.append(f"for (tt_a = 0; tt_a < {out_nd}; tt_a++) tt_od[tt_a] = 1;")
        lines.append("tt_n = PyArray_SIZE(tt_x);")
    else:
        lines.append(f"""for (tt_a = 0; tt_a < {nd}; tt_a++) {{
    if (tt_a != {op.axis}) {{ tt_od[tt_j++] = PyArray_DIMS(tt_x)[tt_a]; tt_rows *= PyArray_DIMS(tt_x)[tt_a]; }}
    else if ({int(op.keepdims)}) tt_od[tt_j++] = 1;
}}
tt_n = PyArray_DIMS(tt_x)[{op.axis}];""")
    lines.append(f"if (tt_n == 0) {{ PyErr_SetString(PyExc_ValueError, {message}); {fail} }}")
    lines.append(
        f"Py_XDECREF({out});\n{out} = (PyArrayObject*)PyArray_EMPTY({out_nd}, tt_od, "
        f"NPY_INT64, 0);\nif ({out} == NULL) {{ {fail} }}"
    )
    if op.axis is None:
        lines.append(f"""tt_c = (PyArrayObject*)PyArray_GETCONTIGUOUS(tt_x);
if (tt_c == NULL) {{ {fail} }}
*(npy_int64*)PyArray_DATA({out}) = tt_arg_{name}(tt_n, PyArray_BYTES(tt_c),
                                                 PyArray_ITEMSIZE(tt_c));
Py_DECREF(tt_c);""")
    else:
        # the other axes, in C order, walked as the outer axes of the loop helpers
        lines.append(f"""if (tt_rows > 0) {{
    npy_intp tt_shape[NPY_MAXDIMS], tt_idx[NPY_MAXDIMS], tt_str[NPY_MAXDIMS], tt_r;
    char* tt_ptr[1] = {{PyArray_BYTES(tt_x)}};
    npy_int64* tt_o = (npy_int64*)PyArray_DATA({out});
    int tt_m = 0;
    for (tt_a = 0; tt_a < {nd}; tt_a++) {{
        if (tt_a == {op.axis}) continue;
        tt_shape[tt_m] = PyArray_DIMS(tt_x)[tt_a]; tt_str[tt_m] = PyArray_STRIDES(tt_x)[tt_a];
        tt_idx[tt_m++] = 0;
    }}
    tt_s = PyArray_STRIDES(tt_x)[{op.axis}];
    for (tt_r = 0; tt_r < tt_rows; tt_r++) {{
        tt_o[tt_r] = tt_arg_{name}(tt_n, tt_ptr[0], tt_s);
        tt_iter_next(1, tt_m + 1, tt_idx, tt_shape, tt_str, tt_ptr);
    }}
}}""")
    body = "\n".join(lines)
    return "{\n" + "\n".join("    " + ln if ln.strip() else ln for ln in body.split("\n")) + "\n}"
