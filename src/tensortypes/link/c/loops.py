"""One fused C loop for an elementwise node, with broadcasting and strides (layer 6).

``elemwise_code`` lowers ``Elemwise(scalar_op)`` (a fused ``Composite`` too):
the scalar op's ``c_body``/``c_expr`` becomes the body of a single loop that
computes every output element from the input elements. At run time:

1. the output shape is the broadcast of the input shapes (NumPy's rule; a
   mismatch is a ``ValueError`` naming the shapes);
2. the outputs are allocated C-contiguous;
3. when every array input is C-contiguous with the output's size, one flat
   loop over plain pointers runs (the compiler vectorises it); otherwise the
   strided loop walks the operands with byte strides (negative strides,
   broadcasting, any layout), after merging axes that are contiguous in every
   operand so the inner loop is as long as possible.

Inputs whose static shape is all 1s (0-d included) are loaded once before the
loop; a constant input the linker could print (``sub["literals"]``) is
inlined, so ``2 * x`` multiplies by a literal. Large loops release the GIL.
"""

from __future__ import annotations

import numpy as np

from tensortypes.errors import MethodNotDefined
from tensortypes.link.c.cnames import DTYPE_CTYPE, DTYPE_TYPENUM, c_string

__all__ = [
    "elemwise_code",
    "elemwise_support",
    "elemwise_headers",
    "elemwise_version",
    "scalar_kernel",
    "LOOP_SUPPORT",
]

_VERSION = 1
_NO_C = frozenset({"float16", "complex64", "complex128"})
_GIL_THRESHOLD = 16384  # elements; below this, releasing the GIL costs more than it frees

LOOP_SUPPORT = r"""
#ifndef TT_LOOP_SUPPORT
#define TT_LOOP_SUPPORT
/* Loops stay functions of their own: inlined into the caller, their restrict
   parameters would no longer tell the compiler that the arrays do not overlap. */
#if defined(__GNUC__)
#define TT_LOOP static __attribute__((noinline))
#else
#define TT_LOOP static
#endif
/* NumPy's broadcasting of the shapes of arrs[0..narr) into dims[0..nd). */
static int tt_broadcast(int narr, PyArrayObject** arrs, int nd, npy_intp* dims,
                        const char* what)
{
    int k, a;
    for (a = 0; a < nd; a++) dims[a] = 1;
    for (k = 0; k < narr; k++) {
        int off = nd - PyArray_NDIM(arrs[k]);
        for (a = 0; a < PyArray_NDIM(arrs[k]); a++) {
            npy_intp d = PyArray_DIMS(arrs[k])[a];
            if (d == 1) continue;
            if (dims[off + a] == 1) dims[off + a] = d;
            else if (dims[off + a] != d) {
                PyObject* shapes = PyTuple_New(narr);
                int j;
                if (shapes == NULL) return -1;
                for (j = 0; j < narr; j++) {
                    PyObject* s = PyObject_GetAttrString((PyObject*)arrs[j], "shape");
                    if (s == NULL) { Py_DECREF(shapes); return -1; }
                    PyTuple_SET_ITEM(shapes, j, s);
                }
                PyErr_Format(PyExc_ValueError, "%s: operands could not be broadcast together "
                             "with shapes %R (axis %d: %zd vs %zd)", what, shapes, a + off - nd,
                             (Py_ssize_t)dims[off + a], (Py_ssize_t)d);
                Py_DECREF(shapes);
                return -1;
            }
        }
    }
    return 0;
}

/* Axis m (its size in shape[m], the operands' strides in str[k * NPY_MAXDIMS + m])
   after the m axes before it: merged into axis m - 1 where every operand is
   contiguous across the two. Returns the axis count after it. */
static int tt_push_axis(int nop, int m, npy_intp* shape, npy_intp* str)
{
    int k, merge = m > 0;
    for (k = 0; k < nop && merge; k++)
        merge = str[k * NPY_MAXDIMS + m - 1] == str[k * NPY_MAXDIMS + m] * shape[m];
    if (!merge) return m + 1;
    shape[m - 1] *= shape[m];
    for (k = 0; k < nop; k++) str[k * NPY_MAXDIMS + m - 1] = str[k * NPY_MAXDIMS + m];
    return m;
}

/* m axes, or one axis of size 1 (stride 0) when every axis was dropped. */
static int tt_one_axis_at_least(int nop, int m, npy_intp* shape, npy_intp* str)
{
    int k;
    if (m > 0) return m;
    shape[0] = 1;
    for (k = 0; k < nop; k++) str[k * NPY_MAXDIMS] = 0;
    return 1;
}

/* Strides of nop operands over dims[0..nd), broadcast axes with stride 0, size-1
   axes dropped and axes merged where every operand is contiguous across them.
   Fills shape[0..m) and strides[k * NPY_MAXDIMS + a]; returns m >= 1. */
static int tt_iter_prepare(int nop, PyArrayObject** ops, int nd, const npy_intp* dims,
                           npy_intp* shape, npy_intp* strides)
{
    int m = 0, a, k;
    for (a = 0; a < nd; a++) {
        if (dims[a] == 1) continue;
        shape[m] = dims[a];
        for (k = 0; k < nop; k++) {
            int off = nd - PyArray_NDIM(ops[k]);
            npy_intp s = 0;
            if (a >= off && PyArray_DIMS(ops[k])[a - off] != 1)
                s = PyArray_STRIDES(ops[k])[a - off];
            strides[k * NPY_MAXDIMS + m] = s;
        }
        m = tt_push_axis(nop, m, shape, strides);
    }
    return tt_one_axis_at_least(nop, m, shape, strides);
}

/* Advance the odometer over the outer axes [0..m-1); 0 when the walk is over. */
static int tt_iter_next(int nop, int m, npy_intp* idx, const npy_intp* shape,
                        const npy_intp* strides, char** ptr)
{
    int a, k;
    for (a = m - 2; a >= 0; a--) {
        if (++idx[a] < shape[a]) {
            for (k = 0; k < nop; k++) ptr[k] += strides[k * NPY_MAXDIMS + a];
            return 1;
        }
        idx[a] = 0;
        for (k = 0; k < nop; k++) ptr[k] -= strides[k * NPY_MAXDIMS + a] * (shape[a] - 1);
    }
    return 0;
}
#endif
"""


def scalar_kernel(sop, in_dtypes, out_dtypes, in_names, out_names) -> str:
    """C statements computing ``out_names`` from ``in_names`` with the scalar op ``sop``."""
    if _NO_C.intersection([*in_dtypes, *out_dtypes]):
        raise MethodNotDefined(
            f"{sop} has no C loop for float16/complex dtypes "
            f"({', '.join(in_dtypes)} -> {', '.join(out_dtypes)})"
        )
    body = getattr(sop, "c_body", None)
    if body is not None:
        return body(list(in_names), list(out_names), list(in_dtypes))
    if len(out_names) != 1:
        raise MethodNotDefined(f"{sop} has {len(out_names)} outputs but no c_body")
    expr = sop.c_expr(list(in_names), list(in_dtypes), out_dtypes[0])
    if out_dtypes[0] == "bool":
        return f"{out_names[0]} = (npy_bool)(({expr}) != 0);"
    return f"{out_names[0]} = ({DTYPE_CTYPE[out_dtypes[0]]})({expr});"


def _kernel(node, in_names, out_names) -> str:
    """C statements computing ``out_names`` from ``in_names`` (one element each)."""
    return scalar_kernel(
        node.op.scalar_op,
        [v.type.dtype for v in node.inputs],
        [v.type.dtype for v in node.outputs],
        in_names,
        out_names,
    )


class _Layout:
    """Which inputs are arrays, scalars or literals, and the C types of everything."""

    __slots__ = ("nd", "literals", "scalar", "arrays", "ctype", "otype", "kernel")

    def __init__(self, node, sub):
        self.literals = sub.get("literals", {})
        self.nd = node.outputs[0].type.ndim
        in_types = [v.type for v in node.inputs]
        self.scalar = [
            i in self.literals or all(s == 1 for s in t.shape) for i, t in enumerate(in_types)
        ]
        self.arrays = [i for i in range(len(in_types)) if not self.scalar[i]]
        self.ctype = [DTYPE_CTYPE[t.dtype] for t in in_types]
        self.otype = [DTYPE_CTYPE[v.type.dtype] for v in node.outputs]
        self.kernel = _kernel(
            node,
            [f"tt_a{i}" for i in range(len(in_types))],
            [f"tt_o{j}" for j in range(len(node.outputs))],
        )

    def runtime_scalars(self) -> list:
        return [i for i, s in enumerate(self.scalar) if s and i not in self.literals]

    def body(self, load, store) -> str:
        """The loop body: load each input element, run the kernel, store the outputs."""
        lines = []
        for i, c in enumerate(self.ctype):
            value = (
                self.literals.get(i)
                if i in self.literals
                else (f"tt_s{i}" if self.scalar[i] else load(i))
            )
            lines.append(f"const {c} tt_a{i} = {value};")
        lines += [f"{c} tt_o{j};" for j, c in enumerate(self.otype)]
        lines.append(self.kernel)
        lines += [store(j) for j in range(len(self.otype))]
        return _indent("\n".join(lines), 8)


def elemwise_support(node, name, sub) -> str:
    """The shared loop functions, and this node's two loops as functions of their own.

    Array pointers are ``restrict`` parameters, which is what lets the compiler
    vectorise the flat loop (it honours ``restrict`` on parameters).

    >>> from tensortypes.tensor import dvector
    >>> "TT_LOOP void tt_flat_n0(" in elemwise_support((-dvector("x")).owner, "n0", {})
    True
    """
    lay = _Layout(node, sub)
    support = getattr(node.op.scalar_op, "c_support_code", None)
    scalars = [f"const {lay.ctype[i]} tt_s{i}" for i in lay.runtime_scalars()]
    flat_args = ", ".join(
        [
            "npy_intp tt_n",
            *scalars,
            *(f"const {lay.ctype[i]}* restrict tt_p{i}" for i in lay.arrays),
            *(f"{c}* restrict tt_q{j}" for j, c in enumerate(lay.otype)),
        ]
    )
    strided_args = ", ".join(
        [
            "npy_intp tt_n",
            *scalars,
            *(f"const char* tt_p{i}, npy_intp tt_t{i}" for i in lay.arrays),
            *(f"char* tt_q{j}, npy_intp tt_u{j}" for j in range(len(lay.otype))),
        ]
    )
    flat = lay.body(lambda i: f"tt_p{i}[tt_i]", lambda j: f"tt_q{j}[tt_i] = tt_o{j};")
    strided = lay.body(
        lambda i: f"*(const {lay.ctype[i]}*)(tt_p{i} + tt_i * tt_t{i})",
        lambda j: f"*({lay.otype[j]}*)(tt_q{j} + tt_i * tt_u{j}) = tt_o{j};",
    )
    return f"""{support() if support is not None else ""}{LOOP_SUPPORT}
TT_LOOP void tt_flat_{name}({flat_args})
{{
    npy_intp tt_i;
    for (tt_i = 0; tt_i < tt_n; tt_i++) {{
{flat}
    }}
}}

TT_LOOP void tt_strided_{name}({strided_args})
{{
    npy_intp tt_i;
    for (tt_i = 0; tt_i < tt_n; tt_i++) {{
{strided}
    }}
}}
"""


def elemwise_code(node, name, inputs, outputs, sub) -> str:
    """The C code of one ``Elemwise`` node (see the module docstring).

    >>> from tensortypes.tensor import dvector
    >>> node = (dvector("x") + dvector("y")).owner
    >>> code = elemwise_code(node, "n0", ["V0", "V1"], ["V2"], {"fail": "goto fail;"})
    >>> "tt_broadcast(2" in code and "tt_flat_n0(" in code
    True
    """
    lay = _Layout(node, sub)
    fail, nd, arrays = sub["fail"], lay.nd, lay.arrays
    what = c_string(str(node.op))
    lines = [f"npy_intp tt_dims[{max(nd, 1)}];"]
    if arrays:
        lines.append(
            f"PyArrayObject* tt_ins[{len(arrays)}] = {{{', '.join(inputs[i] for i in arrays)}}};"
        )
    lines.append(
        f"if (tt_broadcast({len(arrays)}, {'tt_ins' if arrays else 'NULL'}, {nd}, "
        f"tt_dims, {what}) < 0) {{ {fail} }}"
    )
    for j, out in enumerate(outputs):
        typenum = DTYPE_TYPENUM[node.outputs[j].type.dtype]
        lines.append(
            f"Py_XDECREF({out});\n{out} = (PyArrayObject*)PyArray_EMPTY({nd}, "
            f"tt_dims, {typenum}, 0);\nif ({out} == NULL) {{ {fail} }}"
        )
    lines.append(f"const npy_intp tt_n = PyArray_SIZE({outputs[0]});")
    scalars = [f"*(const {lay.ctype[i]}*)PyArray_DATA({inputs[i]})" for i in lay.runtime_scalars()]
    flat_call = ", ".join(
        [
            "tt_n",
            *scalars,
            *(f"(const {lay.ctype[i]}*)PyArray_DATA({inputs[i]})" for i in arrays),
            *(f"({c}*)PyArray_DATA({o})" for c, o in zip(lay.otype, outputs)),
        ]
    )
    ops = [*outputs, *(inputs[i] for i in arrays)]
    nop = len(ops)
    slot = {i: len(outputs) + k for k, i in enumerate(arrays)}
    stride = "tt_str[{k} * NPY_MAXDIMS + tt_m - 1]"
    strided_call = ", ".join(
        [
            "tt_shape[tt_m - 1]",
            *scalars,
            *(f"tt_ptr[{slot[i]}], {stride.format(k=slot[i])}" for i in arrays),
            *(f"tt_ptr[{j}], {stride.format(k=j)}" for j in range(len(outputs))),
        ]
    )
    contiguous = (
        " && ".join(
            f"PyArray_IS_C_CONTIGUOUS({inputs[i]}) && PyArray_SIZE({inputs[i]}) == tt_n"
            for i in arrays
        )
        or "1"
    )
    lines.append(f"""if (tt_n > 0) {{
    NPY_BEGIN_THREADS_DEF;
    if (tt_n > {_GIL_THRESHOLD}) {{ NPY_BEGIN_THREADS; }}
    if ({contiguous}) {{
        tt_flat_{name}({flat_call});
    }} else {{
        PyArrayObject* tt_ops[{nop}] = {{{", ".join(ops)}}};
        npy_intp tt_shape[NPY_MAXDIMS], tt_idx[NPY_MAXDIMS], tt_str[{nop} * NPY_MAXDIMS];
        char* tt_ptr[{nop}];
        int tt_k, tt_m = tt_iter_prepare({nop}, tt_ops, {nd}, tt_dims, tt_shape, tt_str);
        for (tt_k = 0; tt_k < {nop}; tt_k++) tt_ptr[tt_k] = PyArray_BYTES(tt_ops[tt_k]);
        for (tt_k = 0; tt_k < tt_m; tt_k++) tt_idx[tt_k] = 0;
        do {{
            tt_strided_{name}({strided_call});
        }} while (tt_iter_next({nop}, tt_m, tt_idx, tt_shape, tt_str, tt_ptr));
    }}
    NPY_END_THREADS;
}}""")
    return "{\n" + _indent("\n".join(lines), 4) + "\n}"


def _indent(code: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + line if line.strip() else line for line in code.split("\n"))


def elemwise_headers(node) -> list:
    """The headers of the loops: ``<math.h>``."""
    return ["<math.h>"]


def elemwise_version(node) -> tuple:
    """The loop's version and the scalar op's; empty when the scalar op is unversioned.

    >>> from tensortypes.tensor import dvector
    >>> elemwise_version((dvector("x") * 2.0).owner)[:2]
    (1, (1,))
    """
    version = getattr(node.op.scalar_op, "c_code_cache_version", None)
    sop_version = tuple(version()) if version is not None else ()
    if not sop_version:
        return ()
    return (_VERSION, sop_version, np.__version__.split(".")[0])
