"""C code of the built-in types: ``TensorType``, ``Generic``, Python scalars (layer 6).

Registered with ``graph.register_c_implementation`` when ``tensortypes.link.c``
is imported, so ``TensorType("int64", ()).c_element_type() == "npy_int64"``.
The methods are written as if they were the type's own: the registry calls
them with the Type instance as ``self``.

- ``TensorType``: a variable ``V`` is a ``PyArrayObject* V`` holding its own
  reference (NULL when empty). Extraction accepts exactly what ``filter(v,
  strict=True)`` accepts, checked in C: an ndarray (or subclass) of the exact
  dtype in native byte order, of the type's rank, with the type's fixed sizes,
  and aligned. Rigid symbolic sizes are checked across variables by the linker.
- ``Generic`` (Theano's type interface: any Python object) is a ``PyObject*`` with its own
  reference: extraction takes the object as it is.
- The type language's ``IntType``, ``FloatType`` and ``BoolType`` are small C
  values (``npy_int64``, ``double``, ``npy_bool``) that live on the stack
  (``c_is_simple``). Extraction checks what ``filter(v, strict=True)`` checks
  (Python's ``isinstance``: ``True`` is an ``int``; an ``int`` is a ``float``
  unless ``config.numeric_tower`` is off, read when the code is generated, and
  the refusal of an ``int`` then names the setting); an int
  beyond 64 bits is an ``OverflowError``.

Failures raise ``tensortypes.errors.TypeCheckError`` (the module preamble holds
it as ``tt_TypeCheckError``), naming the variable (``sub["label"]``), the
expected type and what was found.
"""

from __future__ import annotations

import numpy as np

from tensortypes._config import config
from tensortypes.errors import MethodNotDefined
from tensortypes.graph import CLinkerType
from tensortypes.link.c.cnames import DTYPE_CTYPE, DTYPE_TYPENUM, c_number, c_string

__all__ = ["TensorTypeC", "GenericC", "IntC", "FloatC", "BoolC", "label_of", "label_c"]


def label_of(name: str, sub) -> str:
    """How error messages name the variable ``name``: ``sub["label"]`` or ``name``.

    >>> label_of("V0", {"label": "input 0 (x)"}), label_of("V0", {})
    ('input 0 (x)', 'V0')
    """
    label = sub.get("label") if isinstance(sub, dict) else None
    return str(label) if label else name


def label_c(name: str, sub) -> str:
    """A C expression (``const char*``) naming the variable ``name`` in error messages.

    The linker passes ``sub["label_c"]``, which reads the label at run time, so
    that variable names never enter the source (graphs that differ only by
    names share one module); otherwise a string literal of ``label_of``.

    >>> label_c("V0", {"label_c": "tt_label(0)"}), label_c("V0", {"label": "input 0"})
    ('tt_label(0)', '"input 0"')
    """
    expr = sub.get("label_c") if isinstance(sub, dict) else None
    return str(expr) if expr else c_string(label_of(name, sub))


# One function checks every tensor input: what filter(v, strict=True) accepts.
_CHECK_NDARRAY = r"""
#ifndef TT_CHECK_NDARRAY
#define TT_CHECK_NDARRAY
static int tt_check_ndarray(PyObject* obj, int typenum, int ndim, const npy_intp* fixed,
                            const char* label, const char* type)
{
    PyArrayObject* a;
    int axis;
    if (obj == NULL || !PyArray_Check(obj)) {
        PyErr_Format(tt_TypeCheckError, "%s of type %s: expected a numpy.ndarray, got %s",
                     label, type, obj == NULL ? "NULL" : Py_TYPE(obj)->tp_name);
        return -1;
    }
    a = (PyArrayObject*)obj;
    if (PyArray_TYPE(a) != typenum && !PyArray_EquivTypenums(PyArray_TYPE(a), typenum)) {
        PyArray_Descr* want = PyArray_DescrFromType(typenum);
        PyErr_Format(tt_TypeCheckError, "%s of type %s: expected dtype %S, got %S", label, type,
                     (PyObject*)want, (PyObject*)PyArray_DESCR(a));
        Py_XDECREF(want);
        return -1;
    }
    if (!PyArray_ISNOTSWAPPED(a)) {
        PyErr_Format(tt_TypeCheckError, "%s of type %s: the array is not in native byte order",
                     label, type);
        return -1;
    }
    if (PyArray_NDIM(a) != ndim) {
        PyErr_Format(tt_TypeCheckError, "%s of type %s: expected %d dimension(s), got %d", label,
                     type, ndim,
                     PyArray_NDIM(a));
        return -1;
    }
    for (axis = 0; axis < ndim; axis++) {
        if (fixed[axis] >= 0 && PyArray_DIMS(a)[axis] != fixed[axis]) {
            PyErr_Format(tt_TypeCheckError, "%s of type %s: axis %d has size %zd, but the type "
                         "requires %zd", label, type, axis, (Py_ssize_t)PyArray_DIMS(a)[axis],
                         (Py_ssize_t)fixed[axis]);
            return -1;
        }
    }
    if (!PyArray_ISALIGNED(a)) {
        PyErr_Format(tt_TypeCheckError, "%s of type %s: the array data is not aligned; "
                     "compiled code needs aligned data (copy it with numpy.ascontiguousarray)",
                     label, type);
        return -1;
    }
    return 0;
}
#endif
"""


class TensorTypeC(CLinkerType):
    """The C implementation of ``TensorType`` (methods take the TensorType as ``self``)."""

    __slots__ = ()

    def c_declare(self, name, sub, check_input=True):
        return f"PyArrayObject* {name};"

    def c_init(self, name, sub):
        return f"{name} = NULL;"

    def c_extract(self, name, sub, check_input=True):
        if not check_input:
            return f"{name} = (PyArrayObject*)py_{name}; Py_INCREF({name});"
        fixed = ", ".join(str(int(s)) if isinstance(s, int) else "-1" for s in self.shape)
        return f"""{{
    static const npy_intp fixed_{name}[{max(self.ndim, 1)}] = {{{fixed or "-1"}}};
    if (tt_check_ndarray(py_{name}, {DTYPE_TYPENUM[self.dtype]}, {self.ndim}, fixed_{name},
                         {label_c(name, sub)}, {c_string(str(self))}) < 0) {{ {sub["fail"]} }}
}}
if (!PyArray_CheckExact(py_{name})) {{
    /* An ndarray subclass (np.matrix) is read as the plain array it holds, here and by
       the ops that run through perform: never with the subclass's own semantics. */
    PyObject* tt_plain = PyArray_View((PyArrayObject*)py_{name}, NULL, &PyArray_Type);
    if (tt_plain == NULL) {{ {sub["fail"]} }}
    Py_DECREF(py_{name});
    py_{name} = tt_plain;
}}
{name} = (PyArrayObject*)py_{name};
Py_INCREF({name});"""

    def c_support_code(self, **kwargs):
        return _CHECK_NDARRAY

    def c_sync(self, name, sub):
        return f"""if ({name} == NULL) {{
    Py_XDECREF(py_{name}); py_{name} = Py_None; Py_INCREF(py_{name});
}} else if ((PyObject*){name} != py_{name}) {{
    Py_XDECREF(py_{name}); py_{name} = (PyObject*){name}; Py_INCREF(py_{name});
}}"""

    def c_cleanup(self, name, sub):
        return f"Py_XDECREF({name}); {name} = NULL;"

    def c_element_type(self):
        return DTYPE_CTYPE[self.dtype]

    def c_literal(self, data):
        """A C literal of the element type, for a value with exactly one element."""
        value = np.asarray(data)
        if value.size != 1 or self.dtype.startswith(("complex", "float16")):
            raise MethodNotDefined(
                f"{self} has a C literal only for a single real element "
                f"(not float16), got shape {value.shape}"
            )
        return c_number(value.reshape(()).item(), DTYPE_CTYPE[self.dtype])

    def c_headers(self, **kwargs):
        return ["<numpy/arrayobject.h>", "<math.h>"]

    def c_is_simple(self):
        return False

    def c_code_cache_version(self):
        return (4,)


class GenericC(CLinkerType):
    """The C implementation of ``Generic``: a ``PyObject*`` with its own reference."""

    __slots__ = ()

    def c_declare(self, name, sub, check_input=True):
        return f"PyObject* {name};"

    def c_init(self, name, sub):
        return f"{name} = NULL;"

    def c_extract(self, name, sub, check_input=True):
        return f"{name} = py_{name}; Py_XINCREF({name});"

    def c_sync(self, name, sub):
        return f"""if ({name} != py_{name}) {{
    Py_XDECREF(py_{name});
    py_{name} = ({name} != NULL) ? {name} : Py_None;
    Py_INCREF(py_{name});
}}"""

    def c_cleanup(self, name, sub):
        return f"Py_XDECREF({name}); {name} = NULL;"

    def c_element_type(self):
        return "PyObject*"

    def c_code_cache_version(self):
        return (1,)


def _mismatch(name, sub, expected: str) -> str:
    return (
        f'PyErr_Format(tt_TypeCheckError, "%s: expected {expected}, got %s", '
        f"{label_c(name, sub)}, Py_TYPE(py_{name})->tp_name);\n{sub['fail']}"
    )


def _scalar_impl(class_name: str, ctype: str, convert, extract, sync, version=lambda self: (1,)):
    """A C implementation class for a Python scalar type held as a ``ctype`` value.

    The methods are called with the Type instance as ``self`` (the registry's
    convention), so everything specific comes from this closure, not ``self``.
    """

    def c_declare(self, name, sub, check_input=True):
        return f"{ctype} {name};"

    def c_init(self, name, sub):
        return f"{name} = 0;"

    def c_cleanup(self, name, sub):
        return ""

    def c_literal(self, data):
        return c_number(convert(data), ctype)

    namespace = {
        "__slots__": (),
        "__doc__": f"C code of a Python scalar type held as ``{ctype}``.",
        "c_declare": c_declare,
        "c_init": c_init,
        "c_cleanup": c_cleanup,
        "c_extract": extract,
        "c_sync": sync,
        "c_literal": c_literal,
        "c_is_simple": lambda self: True,
        "c_element_type": lambda self: ctype,
        "c_code_cache_version": version,
    }
    return type(class_name, (CLinkerType,), namespace)


def _int_extract(self, name, sub, check_input=True):
    return f"""if (!PyLong_Check(py_{name})) {{
    {_mismatch(name, sub, "an int")}
}}
{name} = (npy_int64)PyLong_AsLongLong(py_{name});
if ({name} == -1 && PyErr_Occurred()) {{ {sub["fail"]} }}"""


def _int_sync(self, name, sub):
    return f"""Py_XDECREF(py_{name});
py_{name} = PyLong_FromLongLong((long long){name});
if (py_{name} == NULL) {{ {sub["fail"]} }}"""


def _float_extract(self, name, sub, check_input=True):
    accept = f"PyFloat_Check(py_{name})"
    if config.numeric_tower:
        accept += f" || PyLong_Check(py_{name})"
        refuse = _mismatch(name, sub, "a float")
    else:
        refuse = f"""if (PyLong_Check(py_{name})) {{
        {
            _mismatch(
                name,
                sub,
                "a float (an int passes only with config.numeric_tower = True, the default)",
            )
        }
    }}
    {_mismatch(name, sub, "a float")}"""
    return f"""if (!({accept})) {{
    {refuse}
}}
{name} = PyFloat_AsDouble(py_{name});
if ({name} == -1.0 && PyErr_Occurred()) {{ {sub["fail"]} }}"""


def _float_sync(self, name, sub):
    return f"""Py_XDECREF(py_{name});
py_{name} = PyFloat_FromDouble({name});
if (py_{name} == NULL) {{ {sub["fail"]} }}"""


def _bool_extract(self, name, sub, check_input=True):
    return f"""if (!PyBool_Check(py_{name})) {{
    {_mismatch(name, sub, "a bool")}
}}
{name} = (npy_bool)(py_{name} == Py_True);"""


def _bool_sync(self, name, sub):
    return f"""Py_XDECREF(py_{name});
py_{name} = PyBool_FromLong((long){name});"""


IntC = _scalar_impl("IntC", "npy_int64", int, _int_extract, _int_sync)
"""``int`` as ``npy_int64``; ``True``/``False`` are ints, as in Python."""

FloatC = _scalar_impl(
    "FloatC",
    "double",
    float,
    _float_extract,
    _float_sync,
    version=lambda self: (1, bool(config.numeric_tower)),
)
"""``float`` as ``double`` (an ``int`` passes too, unless ``config.numeric_tower`` is off)."""

BoolC = _scalar_impl("BoolC", "npy_bool", bool, _bool_extract, _bool_sync)
"""``bool`` as ``npy_bool`` (0 or 1)."""
