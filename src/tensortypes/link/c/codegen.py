"""The C source of one compiled graph, from a list of steps (layer 6, ``link``).

The linker describes a graph as data: a ``Module`` with the declarations of
every variable, an ordered list of ``Step``s and the support code, headers and
init code collected from types and ops. ``render`` turns it into the source of
one CPython extension module:

- a function ``run`` (``METH_O``: one list of input values in, the list of
  output values out) in which each step first initialises the variables it
  owns, then runs its code (extraction, an op's code, a call to ``perform``,
  syncing values back to Python);
- the failure ladder: a step that fails jumps to its own label; the labels
  run, in reverse order, the cleanup code of that step and of every step
  before it, and nothing else. The success path falls through every label, so
  each acquired variable is cleaned exactly once on every path;
- ``make_function(state)``, which binds ``run`` to the state tuple (constants,
  ``perform`` thunks, symbol checkers, the variables' labels for messages), so
  a call costs one C call.

The module's init function is ``PyInit_`` followed by the macro
``TT_MODULE_NAME`` (defined on the compiler's command line), so the source does
not depend on the name the module cache gives it.
"""

from __future__ import annotations

from tensortypes.link.c.cnames import indent

__all__ = ["Step", "Module", "render", "fail_code"]

_VECTOR_MATH = """#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/* glibc's vector math library: lets the compiler vectorise loops calling these. */
#define TT_OMP_SIMD 1
#pragma omp declare simd notinbranch
extern double exp(double);
#pragma omp declare simd notinbranch
extern double log(double);
#pragma omp declare simd notinbranch
extern double sin(double);
#pragma omp declare simd notinbranch
extern double cos(double);
#pragma omp declare simd notinbranch
extern double pow(double, double);
#pragma omp declare simd notinbranch
extern float expf(float);
#pragma omp declare simd notinbranch
extern float logf(float);
#pragma omp declare simd notinbranch
extern float sinf(float);
#pragma omp declare simd notinbranch
extern float cosf(float);
#pragma omp declare simd notinbranch
extern float powf(float, float);
#endif
"""


def fail_code(step: int) -> str:
    """The C text of ``sub["fail"]`` in step ``step``: record it and take its label.

    >>> fail_code(3)
    '{ tt_failure = 3; goto tt_label_3; }'
    """
    return f"{{ tt_failure = {step}; goto tt_label_{step}; }}"


class Step:
    """One step of ``run``: ``init`` (cannot fail), ``body`` (may fail), ``cleanup``.

    ``input_index`` is the position of the graph input this step extracts, or
    -1; a ``TypeCheckError`` raised by such a step gets that index as its
    ``input_index`` attribute.
    """

    __slots__ = ("comment", "init", "body", "cleanup", "input_index")

    def __init__(
        self, comment: str, init: str = "", body: str = "", cleanup: str = "", input_index: int = -1
    ):
        self.comment = comment
        self.init = init
        self.body = body
        self.cleanup = cleanup
        self.input_index = input_index


class Module:
    """Everything ``render`` needs: declarations, steps, outputs and global code."""

    __slots__ = (
        "title",
        "declarations",
        "steps",
        "n_inputs",
        "outputs",
        "headers",
        "support",
        "init_code",
        "vector_math",
        "n_symbols",
    )

    def __init__(self, title: str):
        self.title = title
        self.declarations: list[str] = []
        self.steps: list[Step] = []
        self.n_inputs = 0
        self.outputs: list[str] = []  # the py_ names holding each output
        self.headers: list[str] = []
        self.support: list[str] = []
        self.init_code: list[str] = []
        self.vector_math = False
        self.n_symbols = 0

    def add_header(self, header: str) -> None:
        header = header.strip()
        if not header or "\n" in header:
            raise ValueError(f"a C header is one non-empty line, got {header!r}")
        if header[0] not in '<"':
            header = f'"{header}"'
        if header not in self.headers:
            self.headers.append(header)

    def add_support(self, code: str) -> None:
        if code and code.strip() and code not in self.support:
            self.support.append(code)


def _comment(text: str) -> str:
    return "/* " + text.replace("*/", "* /").replace("\n", " ") + " */"


def _run_function(mod: Module) -> str:
    out = [
        "static PyObject* tt_run(PyObject* tt_self, PyObject* tt_arg)",
        "{",
        "    PyObject* tt_result = NULL;",
        "    int tt_failure = 0;",
        "    PyObject* tt_seq;",
        "    PyObject** tt_items;",
        "    PyObject* tt_consts = PyTuple_GET_ITEM(tt_self, 0);",
        "    PyObject* tt_thunks = PyTuple_GET_ITEM(tt_self, 1);",
        "    PyObject* tt_checkers = PyTuple_GET_ITEM(tt_self, 2);",
        "    PyObject* tt_labels = PyTuple_GET_ITEM(tt_self, 3);",
        f"    npy_intp tt_sym[{max(mod.n_symbols, 1)}];",
    ]
    out += [indent(d) for d in mod.declarations]
    out.append(f"""    (void)tt_consts; (void)tt_thunks; (void)tt_checkers; (void)tt_labels;
    (void)tt_sym;
    {{ int tt_s; for (tt_s = 0; tt_s < {max(mod.n_symbols, 1)}; tt_s++) tt_sym[tt_s] = -1; }}
    if (PyList_CheckExact(tt_arg) || PyTuple_CheckExact(tt_arg)) {{
        tt_seq = tt_arg; Py_INCREF(tt_seq);
    }} else {{
        tt_seq = PySequence_Fast(tt_arg, "a compiled graph takes a list of input values");
        if (tt_seq == NULL) return NULL;
    }}
    if (PySequence_Fast_GET_SIZE(tt_seq) != {mod.n_inputs}) {{
        PyErr_Format(PyExc_TypeError, "this compiled graph takes a list of {mod.n_inputs} "
                     "input value(s), got %zd", PySequence_Fast_GET_SIZE(tt_seq));
        Py_DECREF(tt_seq);
        return NULL;
    }}
    tt_items = PySequence_Fast_ITEMS(tt_seq);
    (void)tt_items;""")
    for k, step in enumerate(mod.steps, start=1):
        out.append(f"    {_comment(f'step {k}: ' + step.comment)}")
        out.append("    {")
        if step.init:
            out.append(indent(step.init, " " * 8))
        if step.body:
            out.append(indent(step.body, " " * 8))
        out.append("    }")
    # Every output's Python object exists now; the list is built last, so
    # nothing can fail once it holds references.
    n_out = len(mod.outputs)
    last = len(mod.steps)
    out.append(f"    {_comment('the outputs')}")
    for py in dict.fromkeys(mod.outputs):
        out.append(
            f"    if ({py} == NULL) {{ PyErr_SetString(PyExc_RuntimeError, "
            f'"an output of the compiled graph was never computed"); '
            f"{fail_code(last)} }}"
        )
    out.append(f"    tt_result = PyList_New({n_out});")
    out.append(f"    if (tt_result == NULL) {fail_code(last)}")
    for i, py in enumerate(mod.outputs):
        out.append(f"    Py_INCREF({py}); PyList_SET_ITEM(tt_result, {i}, {py});")
    for k in range(len(mod.steps), 0, -1):
        step = mod.steps[k - 1]
        out.append(f"tt_label_{k}:")
        if step.cleanup:
            out.append(indent(step.cleanup, " " * 4))
        out.append("    ;")
    out.append("tt_label_0:")
    out.append("    Py_DECREF(tt_seq);")
    out.append("    tt_release_py();")
    out.append("    if (tt_result == NULL) tt_failed(tt_failure);")
    out.append("    return tt_result;")
    out.append("}")
    return "\n".join(out)


def render(mod: Module, release_py: list[str]) -> str:
    """The complete C source of ``mod``; ``release_py`` are the ``py_`` names to release.

    >>> source = render(Module("nothing"), [])
    >>> source.startswith("/* Generated by tensortypes.link.c."), "PyInit_" in source
    (True, True)
    """
    table = ", ".join(str(s.input_index) for s in mod.steps) or "-1"
    headers = "\n".join(f"#include {h}" for h in mod.headers)
    release = "\n".join(
        [
            "#define tt_release_py() do { \\",
            *(f"    Py_XDECREF({p}); {p} = NULL; \\" for p in release_py),
            "} while (0)",
        ]
    )
    parts = [
        f"/* Generated by tensortypes.link.c. {_comment(mod.title)[3:]}",
        "#define PY_SSIZE_T_CLEAN",
        "#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION",
        "#include <Python.h>",
        "#include <numpy/arrayobject.h>",
        headers,
        "#define TT_STR2(x) #x",
        "#define TT_STR(x) TT_STR2(x)",
        "#define TT_CAT2(a, b) a##b",
        "#define TT_CAT(a, b) TT_CAT2(a, b)",
        "static PyObject* tt_TypeCheckError = NULL;",
        "/* The label of a variable in error messages, read at run time (not in the source). */",
        "#define tt_label(k) PyUnicode_AsUTF8(PyTuple_GET_ITEM(tt_labels, (k)))",
        _VECTOR_MATH if mod.vector_math else "",
        *mod.support,
        f"static const int tt_step_input[] = {{-1, {table}}};",
        _FAILED,
        release,
        _run_function(mod),
        _TAIL.replace("@INIT@", indent("\n".join(mod.init_code))),
    ]
    return "\n".join(p for p in parts if p) + "\n"


# After a failure: make sure an exception is set, and tell which input was bad.
_FAILED = r"""
static void tt_failed(int step)
{
    if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_RuntimeError, "the compiled graph failed at step %d without "
                     "setting an exception", step);
        return;
    }
    if (step > 0 && tt_step_input[step] >= 0 && PyErr_ExceptionMatches(tt_TypeCheckError)) {
        PyObject *type, *value, *tb, *index;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        index = PyLong_FromLong(tt_step_input[step]);
        if (value != NULL && index != NULL)
            PyObject_SetAttrString(value, "input_index", index);
        Py_XDECREF(index);
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
    }
}
"""

_TAIL = r"""
static PyMethodDef tt_run_def = {
    "compiled_graph", (PyCFunction)tt_run, METH_O,
    "compiled_graph(inputs: list) -> list of outputs"
};

static PyObject* tt_make_function(PyObject* module, PyObject* state)
{
    Py_ssize_t k;
    if (!PyTuple_CheckExact(state) || PyTuple_GET_SIZE(state) != 4) {
        PyErr_SetString(PyExc_TypeError, "make_function takes a tuple of 4 tuples "
                        "(constants, thunks, checkers, labels)");
        return NULL;
    }
    for (k = 0; k < 4; k++) {
        if (!PyTuple_CheckExact(PyTuple_GET_ITEM(state, k))) {
            PyErr_SetString(PyExc_TypeError, "make_function takes a tuple of 4 tuples "
                            "(constants, thunks, checkers, labels)");
            return NULL;
        }
    }
    return PyCFunction_New(&tt_run_def, state);
}

static PyMethodDef tt_methods[] = {
    {"make_function", (PyCFunction)tt_make_function, METH_O,
     "make_function(state) -> the compiled graph bound to its state"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef tt_moduledef = {
    PyModuleDef_HEAD_INIT, TT_STR(TT_MODULE_NAME), NULL, -1, tt_methods,
    NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC TT_CAT(PyInit_, TT_MODULE_NAME)(void)
{
    PyObject* module;
    PyObject* errors;
    if (_import_array() < 0) return NULL;
    errors = PyImport_ImportModule("tensortypes.errors");
    if (errors == NULL) return NULL;
    tt_TypeCheckError = PyObject_GetAttrString(errors, "TypeCheckError");
    Py_DECREF(errors);
    if (tt_TypeCheckError == NULL) return NULL;
    module = PyModule_Create(&tt_moduledef);
    if (module == NULL) return NULL;
    {
@INIT@
    }
    return module;
}
"""
