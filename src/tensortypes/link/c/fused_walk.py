"""C passes for a ``FusedReduce`` over axes that are not the trailing ones (layer 6, ``link``).

A reduction over a leading or middle axis (``sum(exp(X), axis=0)``, the column
means and deviations of a standardisation, a column softmax) cannot run row by
row as ``reduce.fused_code`` does: the values one result needs are a column,
strided in memory. Here each stage of the program (``reduce.FusedProgram``) is
one pass over the whole iteration space in memory order: the axes are walked
outermost first by the strides of the largest input (C order for a C-contiguous
one, so a transposed input is read in order too), and each reduction
accumulates into a buffer with one partial result per kept position, read with
stride 0 along the reduced axes. When the innermost walked axis is a kept one,
every run is ``acc[j] += f(x[j])`` over contiguous memory (the per-column
accumulate: the buffer of a 1024-column matrix stays in L1); when it is a
reduced one, the run accumulates in registers and folds into one buffer entry.

Between passes the reductions are finished (a ``mean`` divided by the count,
wide accumulators cast to the result's dtype) and the elementwise steps over
row values (``sqrt(var + eps)``) run once per kept position. A full value a
later pass reads is computed again from the inputs in that pass (a buffer of the
space's size would be the temporary fusion avoids). Everything else is as in
``reduce``: NumPy's dtype rules for the accumulators, empty-axis identities, the
``ValueError`` of an empty ``max``/``min``, the warning of an empty ``mean``.
"""

from __future__ import annotations

from tensortypes.errors import MethodNotDefined
from tensortypes.link.c.cnames import DTYPE_TYPENUM
from tensortypes.link.c.loops import LOOP_SUPPORT
from tensortypes.link.c.reduce import (
    SIMD_SUPPORT,
    FusedProgram,
    acc_ctype,
    combine,
    fused_code,
    fused_support,
    identity,
    scalar_support,
    space_prologue,
)

__all__ = ["walk_code", "walk_support", "fused_reduce_code", "fused_reduce_support", "WALK_SUPPORT"]

_GIL_THRESHOLD = 16384
_MAX_OPERANDS = 32

WALK_SUPPORT = r"""
#ifndef TT_WALK_SUPPORT
#define TT_WALK_SUPPORT
#define TT_WALK_MAXOP 32
typedef void (*tt_walk_kernel)(npy_intp, int, char**, const npy_intp*);
/* Byte strides of x over the space dims[0..nd): 0 on axes x lacks or broadcasts. */
static void tt_walk_strides(PyArrayObject* x, int nd, const npy_intp* dims, npy_intp* s)
{
    int a, off = nd - PyArray_NDIM(x);
    for (a = 0; a < nd; a++)
        s[a] = (a < off || dims[a] == 1 || PyArray_DIMS(x)[a - off] == 1)
            ? 0 : PyArray_STRIDES(x)[a - off];
}
/* Byte strides of a C-contiguous buffer of shape shape[0..nd) (0 where shape is 1). */
static void tt_walk_cstrides(npy_intp item, int nd, const npy_intp* shape, npy_intp* s)
{
    int a;
    for (a = nd - 1; a >= 0; a--) { s[a] = shape[a] == 1 ? 0 : item; item *= shape[a]; }
}
/* The axes of dims[0..nd) outermost first by decreasing |stride| of operand lead
   (C order when lead is broadcast along one), size-1 axes dropped, axes merged
   where every operand is contiguous across them. st[k * NPY_MAXDIMS + a] are the
   operands' strides; fills shape[0..m) and str; returns m >= 1. */
static int tt_walk_prepare(int nop, int nd, const npy_intp* dims, const npy_intp* st,
                           int lead, npy_intp* shape, npy_intp* str)
{
    int order[NPY_MAXDIMS], n = 0, m = 0, a, i, j, k, by_stride = 1;
    const npy_intp* ls = st + lead * NPY_MAXDIMS;
    for (a = 0; a < nd; a++) {
        if (dims[a] == 1) continue;
        order[n++] = a;
        if (ls[a] == 0) by_stride = 0;
    }
    for (i = 1; by_stride && i < n; i++) {
        int x = order[i];
        npy_intp sx = ls[x] < 0 ? -ls[x] : ls[x];
        for (j = i; j > 0; j--) {
            npy_intp sy = ls[order[j - 1]] < 0 ? -ls[order[j - 1]] : ls[order[j - 1]];
            if (sy >= sx) break;
            order[j] = order[j - 1];
        }
        order[j] = x;
    }
    for (i = 0; i < n; i++) {
        a = order[i];
        shape[m] = dims[a];
        for (k = 0; k < nop; k++) str[k * NPY_MAXDIMS + m] = st[k * NPY_MAXDIMS + a];
        m = tt_push_axis(nop, m, shape, str);
    }
    return tt_one_axis_at_least(nop, m, shape, str);
}
/* Run kernel over every innermost run of the walk; the last of the nop operands is
   the probe (the kept positions' strides): its inner stride 0 means the inner axis
   is a reduced one. */
static void tt_walk_run(int nop, int m, const npy_intp* shape, const npy_intp* str,
                        char** ptr, tt_walk_kernel kernel)
{
    npy_intp idx[NPY_MAXDIMS], inner[TT_WALK_MAXOP];
    const int red = str[(nop - 1) * NPY_MAXDIMS + m - 1] == 0;
    int a, k;
    for (k = 0; k < nop - 1; k++) inner[k] = str[k * NPY_MAXDIMS + m - 1];
    for (a = 0; a < m; a++) idx[a] = 0;
    do kernel(shape[m - 1], red, ptr, inner);
    while (tt_iter_next(nop - 1, m, idx, shape, str, ptr));
}
#endif
"""


class _Walk:
    """The passes of one ``FusedReduce`` node: what each stage reads, computes, writes."""

    __slots__ = ("prog", "node", "nin", "steps", "rows", "reduces", "needed")

    def __init__(self, node):
        prog = FusedProgram(node)
        self.prog, self.node, self.nin = prog, node, prog.nin
        op = node.op
        self.steps = range(self.nin, self.nin + len(op.program))
        nd = op.ndim
        for v in self.steps:
            step = op.program[v - self.nin]
            if step[0] == "reduce" and not step[3]:
                if any(v in prog.args(w) for w in self.steps):
                    raise MethodNotDefined(f"{op}: a reduction without keepdims read inside")
            elif prog.values_ndim[v] != nd:
                raise MethodNotDefined(f"{op}: a step of rank other than {nd}")
        if any(o < self.nin for o in op.outputs):
            raise MethodNotDefined(f"{op}: an input is an output")
        self.rows = [v for v in self.steps if prog.cls[v] == "row"]
        self.reduces = [v for v in self.steps if op.program[v - self.nin][0] == "reduce"]

    def _closure(self, roots) -> list:
        """The full step values ``roots`` need, in program order (inputs and row values
        are read, not computed)."""
        prog, want, stack = self.prog, set(), list(roots)
        while stack:
            v = stack.pop()
            if v < self.nin or v in want or (prog.cls[v] == "row" and v not in roots):
                continue
            want.add(v)
            if v not in self.reduces:
                stack.extend(prog.args(v))
        return sorted(want)

    def stage(self, s: int):
        """(reductions accumulated in pass ``s``, full values computed, full outputs)."""
        prog = self.prog
        reds = [v for v in self.reduces if prog.level[v] == s]
        outs = [o for o in prog.outputs if prog.cls[o] == "full" and prog.level[o] == s]
        full = self._closure([prog.args(v)[0] for v in reds] + outs)
        full = [v for v in full if prog.cls[v] == "full"]
        return reds, full, outs

    def reads(self, values) -> tuple:
        """(inputs, row step values) read by ``values``' steps."""
        prog = self.prog
        args = {a for v in values for a in prog.args(v)}
        ins = sorted(a for a in args if a < self.nin)
        rows = sorted(a for a in args if a >= self.nin and prog.cls[a] == "row")
        return ins, [r for r in rows if r not in values]


def _pass_kernel(walk: _Walk, s: int, name: str) -> tuple:
    """The C function of pass ``s`` and its operands [(role, value)] (the probe not
    included). ``tt_red``: the innermost walked axis is a reduced one."""
    prog, op = walk.prog, walk.node.op
    reds, full, outs = walk.stage(s)
    ins, rows = walk.reads(full + reds)
    operands = (
        [("in", i) for i in ins]
        + [("row", r) for r in rows]
        + [("acc", v) for v in reds]
        + [("out", o) for o in outs]
    )
    if len(operands) + 1 > _MAX_OPERANDS:
        raise MethodNotDefined(f"{op}: {len(operands)} operands in one pass")
    kinds = {v: op.program[v - walk.nin][1] for v in reds}
    at = {v: acc_ctype(kinds[v], prog.dtypes[prog.args(v)[0]], prog.dtypes[v]) for v in reds}
    ctypes = [at[v] if role == "acc" else prog.ctype(v) for role, v in operands]

    def each(k: int, registers: bool) -> bool:
        """Whether operand ``k`` is read or written at every element of a run (with the
        inner axis reduced, row values are one value for the whole run)."""
        role, v = operands[k]
        return not registers or role == "out" or (role == "in" and prog.cls[v] == "full")

    def cell(k: int, typed: bool) -> str:
        if typed:
            return f"tt_q{k}[tt_j]"
        return f"*({ctypes[k]}*)(tt_p[{k}] + tt_j * tt_t[{k}])"

    def loop(registers: bool, typed: bool) -> list:
        body = []
        for k, (role, v) in enumerate(operands):
            if role in ("in", "row") and each(k, registers):
                body.append(f"const {ctypes[k]} {prog.name(v)} = {cell(k, typed)};")
        for v in full:
            body += [f"{prog.ctype(v)} tt_v{v};", prog.kernel(v)]
        clauses = []
        for v in reds:
            kind, arg = kinds[v], prog.name(prog.args(v)[0])
            src = f"(({at[v]}){arg})"
            if not registers:
                body.append(combine(kind, cell(operands.index(("acc", v)), typed), src))
            elif kind in ("max", "min"):
                # in a vector loop NaN needs its own flag: the comparison drops it
                clauses.append(f"reduction({kind}:tt_r{v})")
                body.append(
                    f"tt_r{v} = {src} {'>' if kind == 'max' else '<'} tt_r{v} ? {src} : tt_r{v};"
                )
                if prog.dtypes[v].startswith("float"):
                    clauses.append(f"reduction(|:tt_nan{v})")
                    body.append(f"tt_nan{v} |= {arg} != {arg};")
            else:
                clauses.append(f"reduction({'*' if kind == 'prod' else '+'}:tt_r{v})")
                body.append(combine(kind, f"tt_r{v}", src))
        for o in outs:
            body.append(f"{cell(operands.index(('out', o)), typed)} = tt_v{o};")
        head = [f"TT_SIMD({' '.join(clauses)})"] if typed else []
        lines = head + ["for (tt_j = 0; tt_j < tt_n; tt_j++) {"]
        return lines + ["    " + ln for b in body for ln in b.split("\n")] + ["}"]

    def variant(registers: bool) -> list:
        lines = []
        if registers:
            for k, (role, v) in enumerate(operands):
                if role in ("in", "row") and not each(k, True):
                    lines.append(
                        f"const {ctypes[k]} {prog.name(v)} = *(const {ctypes[k]}*)tt_p[{k}];"
                    )
            for v in reds:
                lines.append(f"{at[v]} tt_r{v} = ({at[v]}){identity(kinds[v], prog.dtypes[v])};")
                if kinds[v] in ("max", "min") and prog.dtypes[v].startswith("float"):
                    lines.append(f"int tt_nan{v} = 0;")
        per = [k for k in range(len(operands)) if each(k, registers)]
        fast = " && ".join(f"tt_t[{k}] == (npy_intp)sizeof({ctypes[k]})" for k in per) or "1"
        lines.append(f"if ({fast}) {{")
        for k in per:
            const = "const " if operands[k][0] in ("in", "row") else ""
            lines.append(
                f"    {const}{ctypes[k]}* restrict tt_q{k} = ({const}{ctypes[k]}*)tt_p[{k}];"
            )
        lines += ["    " + ln for ln in loop(registers, True)]
        lines.append("} else {")
        lines += ["    " + ln for ln in loop(registers, False)]
        lines.append("}")
        if registers:
            for v in reds:
                if kinds[v] in ("max", "min") and prog.dtypes[v].startswith("float"):
                    lines.append(f"if (tt_nan{v}) tt_r{v} = NAN;")
                k = operands.index(("acc", v))
                lines.append(combine(kinds[v], f"*({at[v]}*)tt_p[{k}]", f"tt_r{v}"))
        return lines

    body = ["npy_intp tt_j;", "if (tt_red) {"]
    body += ["    " + ln for ln in variant(True)] + ["} else {"]
    body += ["    " + ln for ln in variant(False)] + ["}"]
    inner = "\n".join("    " + ln for ln in "\n".join(body).split("\n"))
    fn = (
        f"TT_LOOP void tt_w{s}_{name}(npy_intp tt_n, int tt_red, char** tt_p, "
        f"const npy_intp* tt_t)\n{{\n{inner}\n}}\n"
    )
    return fn, operands, ctypes


def _row_kernel(walk: _Walk, s: int, name: str) -> tuple | None:
    """The C function computing the row elementwise steps of stage ``s`` once per kept
    position, and its operands (the probe not included); None when there are none."""
    prog, op = walk.prog, walk.node.op
    steps = [v for v in walk.rows if v not in walk.reduces and prog.level[v] == s]
    if not steps:
        return None
    ins, rows = walk.reads(steps)
    operands = [("in", i) for i in ins] + [("row", r) for r in rows] + [("out", v) for v in steps]
    if len(operands) + 1 > _MAX_OPERANDS:
        raise MethodNotDefined(f"{op}: {len(operands)} operands in one pass")
    ctypes = [prog.ctype(v) for _, v in operands]
    body = []
    for k, (role, v) in enumerate(operands):
        if role != "out":
            body.append(
                f"const {ctypes[k]} {prog.name(v)} = *(const {ctypes[k]}*)(tt_p[{k}] + tt_j * tt_t[{k}]);"
            )
    for k, (role, v) in enumerate(operands):
        if role == "out":
            body += [f"{ctypes[k]} tt_v{v};", prog.kernel(v)]
            body.append(f"*({ctypes[k]}*)(tt_p[{k}] + tt_j * tt_t[{k}]) = tt_v{v};")
    lines = ["npy_intp tt_j;", "(void)tt_red;", "for (tt_j = 0; tt_j < tt_n; tt_j++) {"]
    lines += ["    " + ln for b in body for ln in b.split("\n")] + ["}"]
    inner = "\n".join("    " + ln for ln in lines)
    fn = (
        f"TT_LOOP void tt_k{s}_{name}(npy_intp tt_n, int tt_red, char** tt_p, "
        f"const npy_intp* tt_t)\n{{\n{inner}\n}}\n"
    )
    return fn, operands, ctypes


def _kernels(node, name: str) -> tuple:
    walk = _Walk(node)
    passes, rows = [], []
    for s in range(walk.prog.stages):
        rows.append(_row_kernel(walk, s, name))
        reds, full, outs = walk.stage(s)
        passes.append(_pass_kernel(walk, s, name) if reds or outs else None)
    return walk, passes, rows


def walk_support(node, name, sub) -> str:
    """The loop helpers, the scalar ops' support code and this node's pass functions."""
    walk, passes, rows = _kernels(node, name)
    fns = [k[0] for pair in zip(rows, passes) for k in pair if k is not None]
    return "\n".join([*scalar_support(node.op), LOOP_SUPPORT, SIMD_SUPPORT, WALK_SUPPORT, *fns])


def _run(operands, ctypes, dims: str, nd: int, kernel: str, buffers: dict, outputs: dict) -> str:
    """C running ``kernel`` over the space ``dims`` with ``operands`` and the probe."""
    nop = len(operands) + 1
    lines = [
        f"npy_intp tt_st[{nop} * NPY_MAXDIMS], tt_sh[NPY_MAXDIMS], tt_sr[{nop} * NPY_MAXDIMS];",
        f"char* tt_pt[{nop}];",
        "npy_intp tt_big = -1;",
        "int tt_lead = 0, tt_m;",
    ]
    for k, (role, v) in enumerate(operands):
        row = f"tt_st + {k} * NPY_MAXDIMS"
        if role == "in":
            lines.append(f"tt_walk_strides(tt_in[{v}], {nd}, {dims}, {row});")
            lines.append(f"tt_pt[{k}] = PyArray_BYTES(tt_in[{v}]);")
            lines.append(
                f"if (PyArray_SIZE(tt_in[{v}]) > tt_big) {{ tt_big = PyArray_SIZE(tt_in[{v}]); "
                f"tt_lead = {k}; }}"
            )
        elif role == "out" and v in outputs:
            lines.append(f"tt_walk_cstrides(sizeof({ctypes[k]}), {nd}, tt_dims, {row});")
            lines.append(f"tt_pt[{k}] = PyArray_BYTES({outputs[v]});")
        else:  # a buffer with one value per kept position
            lines.append(f"tt_walk_cstrides(sizeof({ctypes[k]}), {nd}, tt_kd, {row});")
            lines.append(f"tt_pt[{k}] = (char*)tt_mem[{buffers[(role == 'acc', v)]}];")
    lines.append(f"tt_walk_cstrides(1, {nd}, tt_kd, tt_st + {nop - 1} * NPY_MAXDIMS);")
    lines.append(f"tt_pt[{nop - 1}] = NULL;")
    lines.append(f"tt_m = tt_walk_prepare({nop}, {nd}, {dims}, tt_st, tt_lead, tt_sh, tt_sr);")
    lines.append(f"tt_walk_run({nop}, tt_m, tt_sh, tt_sr, tt_pt, {kernel});")
    return "{\n" + "\n".join("    " + ln for ln in lines) + "\n}"


def walk_code(node, name, inputs, outputs, sub) -> str:
    """The C code of one ``FusedReduce`` node over axes that are not the trailing ones
    (see the module docstring).

    >>> import tensortypes.tensor as tt
    >>> from tensortypes.graph import FunctionGraph
    >>> from tensortypes.tensor.rewriting import ReduceFusion
    >>> x = tt.tensor("float64", ("n", "m"), name="x")
    >>> fg = FunctionGraph([x], [tt.sum(tt.exp(x), axis=0)], clone=True)
    >>> ReduceFusion().apply(fg)
    {'reduce_fusion': 1}
    >>> "tt_w0_n0" in walk_code(fg.outputs[0].owner, "n0", ["V0"], ["V1"],
    ...                         {"fail": "goto fail;"})
    True
    """
    walk, passes, rows = _kernels(node, name)
    prog, op = walk.prog, node.op
    nin, nd, fail = walk.nin, op.ndim, sub["fail"]
    # buffers: one per row step value (its dtype), one accumulator per reduction
    buffers: dict = {}
    sizes: list[str] = []
    for v in walk.rows:
        buffers[(False, v)] = len(sizes)
        sizes.append(prog.ctype(v))
    for v in walk.reduces:
        kind = op.program[v - nin][1]
        buffers[(True, v)] = len(sizes)
        sizes.append(acc_ctype(kind, prog.dtypes[prog.args(v)[0]], prog.dtypes[v]))
    out_of = {o: outputs[j] for j, o in enumerate(prog.outputs)}
    lines = [
        f"void* tt_mem[{max(len(sizes), 1)}] = {{NULL}};",
        "npy_intp tt_i;",
        "int tt_ok = 1;",
        *space_prologue(op, inputs, fail, "tt_count", "tt_nkept"),
    ]
    for j, o in enumerate(prog.outputs):
        step = op.program[o - nin]
        if prog.cls[o] == "full":
            ndims, dims = nd, "tt_dims"
        elif step[0] == "reduce" and not step[3]:
            ndims, dims = nd - len(op.axes), "tt_od"
        else:
            ndims, dims = nd, "tt_kd"
        lines.append(
            f"Py_XDECREF({outputs[j]});\n{outputs[j]} = (PyArrayObject*)PyArray_EMPTY({ndims}, "
            f"{dims}, {DTYPE_TYPENUM[prog.dtypes[o]]}, 0);\n"
            f"if ({outputs[j]} == NULL) {{ {fail} }}"
        )
    for n, ct in enumerate(sizes):
        lines.append(
            f"if (tt_ok) {{ tt_mem[{n}] = PyMem_Malloc((size_t)(tt_nkept > 0 ? tt_nkept : 1) "
            f"* sizeof({ct})); if (tt_mem[{n}] == NULL) {{ PyErr_NoMemory(); tt_ok = 0; }} }}"
        )
    stages = [
        "NPY_BEGIN_THREADS_DEF;",
        f"if (tt_nkept * tt_count > {_GIL_THRESHOLD}) {{ NPY_BEGIN_THREADS; }}",
    ]
    for v in walk.reduces:
        kind = op.program[v - nin][1]
        ct = sizes[buffers[(True, v)]]
        stages.append(
            f"for (tt_i = 0; tt_i < tt_nkept; tt_i++) (({ct}*)tt_mem[{buffers[(True, v)]}])[tt_i] = "
            f"({ct}){identity(kind, prog.dtypes[v])};"
        )
    for s in range(prog.stages):
        for v in walk.reduces:
            if prog.level[v] == s - 1:
                kind = op.program[v - nin][1]
                ct, at = prog.ctype(v), sizes[buffers[(True, v)]]
                total = " / (npy_float64)tt_count" if kind == "mean" else ""
                stages.append(
                    f"for (tt_i = 0; tt_i < tt_nkept; tt_i++) (({ct}*)tt_mem[{buffers[(False, v)]}])"
                    f"[tt_i] = ({ct})((({at}*)tt_mem[{buffers[(True, v)]}])[tt_i]{total});"
                )
        if rows[s] is not None:
            _, operands, ctypes = rows[s]
            run = _run(operands, ctypes, "tt_kd", nd, f"tt_k{s}_{name}", buffers, {})
            stages.append(f"if (tt_nkept > 0) {run}")
        if passes[s] is not None:
            _, operands, ctypes = passes[s]
            run = _run(operands, ctypes, "tt_dims", nd, f"tt_w{s}_{name}", buffers, out_of)
            stages.append(f"if (tt_nkept * tt_count > 0) {run}")
    stages.append("NPY_END_THREADS;")
    for j, o in enumerate(prog.outputs):
        if prog.cls[o] == "row":
            stages.append(
                f"if (tt_nkept > 0) memcpy(PyArray_DATA({outputs[j]}), tt_mem[{buffers[(False, o)]}], "
                f"(size_t)tt_nkept * sizeof({prog.ctype(o)}));"
            )
    lines.append("if (tt_ok) {")
    lines += ["    " + ln for b in stages for ln in b.split("\n")]
    lines.append("}")
    lines.append(f"for (tt_a = 0; tt_a < {max(len(sizes), 1)}; tt_a++) PyMem_Free(tt_mem[tt_a]);")
    lines.append(f"if (!tt_ok) {{ {fail} }}")
    body = "\n".join(lines)
    return "{\n" + "\n".join("    " + ln if ln.strip() else ln for ln in body.split("\n")) + "\n}"


def fused_reduce_support(node, name, sub) -> str:
    """The support code of any ``FusedReduce``: its row function over the trailing axes
    (``reduce.fused_support``), else its passes."""
    if node.op.trailing:
        return fused_support(node, name, sub)
    return walk_support(node, name, sub)


def fused_reduce_code(node, name, inputs, outputs, sub) -> str:
    """The C code of any ``FusedReduce``: row by row over the trailing axes
    (``reduce.fused_code``), else in passes (``walk_code``)."""
    if node.op.trailing:
        return fused_code(node, name, inputs, outputs, sub)
    return walk_code(node, name, inputs, outputs, sub)
