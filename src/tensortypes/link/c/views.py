"""The view ops in C: ``reshape``, ``transpose``, ``expand_dims``, ``squeeze`` and basic
indexing, without copying where NumPy does not copy (layer 6, ``link``).

``Transpose``, ``Squeeze`` and ``Subtensor`` always give views: their output's
shape and strides are computed from the input's (a slice ``start:stop:step``
moves the data pointer by ``start`` strides and multiplies the stride by
``step``; an int index moves it and drops the axis; a new axis has stride 0),
and the output array's base is the input. ``Reshape`` and ``ExpandDims`` call
``PyArray_Newshape``, the function behind ``numpy.reshape``: a view when the
strides allow it, else a C-ordered copy, exactly when NumPy copies. A reshape
to a symbolic size reads it from the input axis of the same size; one it
cannot find there runs through ``perform``. Out-of-bounds indices and axes
squeezed that do not have size 1 are NumPy's ``IndexError``/``ValueError``.
"""

from __future__ import annotations

from tensortypes.core.dims import Dim, eq as dim_eq
from tensortypes.errors import MethodNotDefined
from tensortypes.link.c.cnames import c_string

__all__ = [
    "view_support",
    "view_version",
    "reshape_code",
    "transpose_code",
    "expand_dims_code",
    "squeeze_code",
    "subtensor_code",
]

_VERSION = 1

VIEW_SUPPORT = r"""
#ifndef TT_VIEW_SUPPORT
#define TT_VIEW_SUPPORT
/* A view of x: nd axes of sizes dims and byte strides strides, starting offset bytes
   into x's data; its base is x, writeable when x is. */
static PyArrayObject* tt_view(PyArrayObject* x, int nd, npy_intp* dims, npy_intp* strides,
                              npy_intp offset)
{
    PyArray_Descr* d = PyArray_DESCR(x);
    PyArrayObject* v;
    Py_INCREF(d);
    v = (PyArrayObject*)PyArray_NewFromDescr(&PyArray_Type, d, nd, dims, strides,
                                             PyArray_BYTES(x) + offset,
                                             PyArray_FLAGS(x) & NPY_ARRAY_WRITEABLE, NULL);
    if (v == NULL) return NULL;
    Py_INCREF(x);
    if (PyArray_SetBaseObject(v, (PyObject*)x) < 0) { Py_DECREF(v); return NULL; }
    PyArray_UpdateFlags(v, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    return v;
}
#endif
"""


def view_support(node, name, sub) -> str:
    """``tt_view``, shared by every view op."""
    return VIEW_SUPPORT


def view_version(node) -> tuple:
    """The version of the view code."""
    return (_VERSION,)


def _block(lines: list) -> str:
    body = "\n".join(lines)
    return "{\n" + "\n".join("    " + ln if ln.strip() else ln for ln in body.split("\n")) + "\n}"


def _newshape(x: str, out: str, nd: int, sizes: list, fail: str) -> str:
    """``out = x.reshape(sizes)`` (C expressions, -1 once) through ``PyArray_Newshape``."""
    lines = [f"npy_intp tt_nd[{max(nd, 1)}];"]
    lines += [f"tt_nd[{i}] = {s};" for i, s in enumerate(sizes)]
    lines.append(f"PyArray_Dims tt_shape = {{tt_nd, {nd}}};")
    lines.append(f"Py_XDECREF({out});")
    lines.append(f"{out} = (PyArrayObject*)PyArray_Newshape({x}, &tt_shape, NPY_CORDER);")
    lines.append(f"if ({out} == NULL) {{ {fail} }}")
    return _block(lines)


def reshape_code(node, name, inputs, outputs, sub) -> str:
    """``Reshape``: ``PyArray_Newshape`` (a view where NumPy's reshape gives one).

    >>> from tensortypes.tensor import dmatrix
    >>> "PyArray_Newshape(V0" in reshape_code(dmatrix("x").reshape(-1).owner, "n0", ["V0"],
    ...                                       ["V1"], {"fail": "goto fail;"})
    True
    """
    (x,), (out,) = inputs, outputs
    xshape = node.inputs[0].type.shape
    sizes = []
    for s in node.op.shape:
        if isinstance(s, Dim):
            axis = next(
                (i for i, d in enumerate(xshape) if d is not None and dim_eq(d, s) is True), None
            )
            if axis is None:
                raise MethodNotDefined(
                    f"{node.op}: the size {s} is not the size of an axis of the input"
                )
            sizes.append(f"PyArray_DIMS({x})[{axis}]")
        else:
            sizes.append(str(int(s)))
    return _newshape(x, out, len(sizes), sizes, sub["fail"])


def expand_dims_code(node, name, inputs, outputs, sub) -> str:
    """``ExpandDims``: the input's sizes with 1s inserted, through ``PyArray_Newshape``."""
    (x,), (out,) = inputs, outputs
    nd = node.outputs[0].type.ndim
    rest = iter(range(node.inputs[0].type.ndim))
    sizes = ["1" if i in node.op.axes else f"PyArray_DIMS({x})[{next(rest)}]" for i in range(nd)]
    return _newshape(x, out, nd, sizes, sub["fail"])


def transpose_code(node, name, inputs, outputs, sub) -> str:
    """``Transpose``: ``PyArray_Transpose``, always a view."""
    (x,), (out,) = inputs, outputs
    axes = node.op.axes
    fail = sub["fail"]
    return _block(
        [
            f"npy_intp tt_perm[{max(len(axes), 1)}] = {{{', '.join(map(str, axes)) or '0'}}};",
            f"PyArray_Dims tt_axes = {{tt_perm, {len(axes)}}};",
            f"Py_XDECREF({out});",
            f"{out} = (PyArrayObject*)PyArray_Transpose({x}, &tt_axes);",
            f"if ({out} == NULL) {{ {fail} }}",
        ]
    )


def squeeze_code(node, name, inputs, outputs, sub) -> str:
    """``Squeeze``: the other axes' sizes and strides (an axis not of size 1: NumPy's error)."""
    (x,), (out,) = inputs, outputs
    fail = sub["fail"]
    nd = node.inputs[0].type.ndim
    message = c_string("cannot select an axis to squeeze out which has size not equal to one")
    lines = [f"npy_intp tt_d[{max(nd, 1)}], tt_s[{max(nd, 1)}];", "int tt_j = 0;"]
    for a in range(nd):
        if a in node.op.axes:
            lines.append(
                f"if (PyArray_DIMS({x})[{a}] != 1) {{ PyErr_SetString(PyExc_ValueError, "
                f"{message}); {fail} }}"
            )
        else:
            lines.append(
                f"tt_d[tt_j] = PyArray_DIMS({x})[{a}]; tt_s[tt_j++] = PyArray_STRIDES({x})[{a}];"
            )
    lines += [
        f"Py_XDECREF({out});",
        f"{out} = tt_view({x}, tt_j, tt_d, tt_s, 0);",
        f"if ({out} == NULL) {{ {fail} }}",
    ]
    return _block(lines)


def subtensor_code(node, name, inputs, outputs, sub) -> str:
    """``Subtensor``: each int index and slice start moves the data pointer, a slice's
    step multiplies its stride, a new axis has stride 0 (bounds as ``PySlice_AdjustIndices``).

    >>> from tensortypes.tensor import dmatrix
    >>> x = dmatrix("x")
    >>> "tt_view(V0" in subtensor_code(x[1:, 0].owner, "n0", ["V0"], ["V1"],
    ...                                {"fail": "goto fail;"})
    True
    """
    (x,), (out,) = inputs, outputs
    fail = sub["fail"]
    nd_in, nd_out = node.inputs[0].type.ndim, node.outputs[0].type.ndim
    message = c_string("index %zd is out of bounds for axis %d with size %zd")
    lines = [
        f"npy_intp tt_d[{max(nd_out, 1)}], tt_s[{max(nd_out, 1)}], tt_off = 0, tt_n, tt_i;",
        "Py_ssize_t tt_start, tt_stop;",
        "int tt_j = 0;",
    ]
    axis = 0
    for e in node.op.idx:
        if e[0] == "new":
            lines.append("tt_d[tt_j] = 1; tt_s[tt_j++] = 0;")
            continue
        lines.append(f"tt_n = PyArray_DIMS({x})[{axis}];")
        if e[0] == "int":
            lines.append(f"""tt_i = {e[1]} < 0 ? {e[1]} + tt_n : {e[1]};
if (tt_i < 0 || tt_i >= tt_n) {{
    PyErr_Format(PyExc_IndexError, {message}, (Py_ssize_t){e[1]}, {axis}, (Py_ssize_t)tt_n);
    {fail}
}}
tt_off += tt_i * PyArray_STRIDES({x})[{axis}];""")
        else:
            # bounds past any array's size are clamped (Python ints can be any size)
            start, stop, step = (None if b is None else max(-(2**62), min(b, 2**62)) for b in e[1:])
            step = 1 if step is None else step
            if start is None:
                start = "PY_SSIZE_T_MAX" if step < 0 else "0"
            if stop is None:
                stop = "PY_SSIZE_T_MIN" if step < 0 else "PY_SSIZE_T_MAX"
            lines.append(f"""tt_start = {start}; tt_stop = {stop};
tt_d[tt_j] = PySlice_AdjustIndices(tt_n, &tt_start, &tt_stop, {step});
tt_off += tt_d[tt_j] > 0 ? tt_start * PyArray_STRIDES({x})[{axis}] : 0;
tt_s[tt_j++] = {step} * PyArray_STRIDES({x})[{axis}];""")
        axis += 1
    for a in range(axis, nd_in):
        lines.append(
            f"tt_d[tt_j] = PyArray_DIMS({x})[{a}]; tt_s[tt_j++] = PyArray_STRIDES({x})[{a}];"
        )
    lines += [
        "(void)tt_i; (void)tt_start; (void)tt_stop; (void)tt_n;",
        f"Py_XDECREF({out});",
        f"{out} = tt_view({x}, tt_j, tt_d, tt_s, tt_off);",
        f"if ({out} == NULL) {{ {fail} }}",
    ]
    return _block(lines)
