"""``CDataType``: opaque C pointers passed between ops' C code (layer 6, ``link``).

Theano's type interface: ``CDataType(ctype, freefunc=None, headers=(), header_dirs=(),
libraries=(), lib_dirs=(), compile_args=(), extra_support_code="", version=None)``.
In Python a value is ``None`` (the NULL pointer) or a ``PyCapsule`` holding the
pointer; when the capsule dies, ``freefunc(ptr)`` frees what it points to.
``make_value(ptr)`` turns an integer address into such a capsule, through a
compiled function (the pointer is trusted, as the spec says).

In C a variable is the pointer itself plus an ownership flag: a pointer an op
computed is freed by the cleanup code unless it was handed to a capsule
(``c_sync``), and a pointer extracted from a capsule is never freed by C
code, so every pointer is freed exactly once.
"""

from __future__ import annotations

import ctypes
import datetime
import threading
from typing import Any

from tensortypes.errors import TypeCheckError
from tensortypes.graph import Apply, CLinkerOp, CLinkerType, Op, Type
from tensortypes.link.c.cnames import c_format, c_string, check_ctype, check_identifier
from tensortypes.link.c.types_c import label_c

__all__ = ["CDataType", "MakeCData"]

_CAPSULE = type(datetime.datetime_CAPI)

_DESTRUCTOR = """#ifndef TT_CDATA_DESTRUCTOR
#define TT_CDATA_DESTRUCTOR
static void tt_cdata_destructor(PyObject* capsule)
{
    void* ptr = PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
    void (*release)(void*) = (void (*)(void*))PyCapsule_GetContext(capsule);
    if (ptr != NULL && release != NULL) release(ptr);
}
#endif
"""


def _strings(values, what: str) -> tuple:
    if isinstance(values, str):
        values = (values,)
    out = tuple(values)
    for v in out:
        if not isinstance(v, str) or "\n" in v or not v:
            raise TypeError(
                f"CDataType: {what} must be non-empty strings without newlines, got {v!r}"
            )
    return out


_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


class CDataType(Type, CLinkerType):
    """Opaque C data (a pointer of C type ``ctype``) passed between ops (as in Theano).

    >>> t = CDataType("void *", freefunc="free", headers=("<stdlib.h>",))
    >>> str(t), t.filter(None), t == CDataType("void *", "free", ["<stdlib.h>"])
    ('CDataType{void *}', None, True)
    """

    __slots__ = (
        "ctype",
        "freefunc",
        "headers",
        "header_dirs",
        "libraries",
        "lib_dirs",
        "compile_args",
        "extra_support_code",
        "version",
        "_hash",
    )
    ctype: Any

    __props__ = (
        "ctype",
        "freefunc",
        "headers",
        "header_dirs",
        "libraries",
        "lib_dirs",
        "compile_args",
        "extra_support_code",
        "version",
    )

    def __init__(
        self,
        ctype,
        freefunc=None,
        headers=(),
        header_dirs=(),
        libraries=(),
        lib_dirs=(),
        compile_args=(),
        extra_support_code="",
        version=None,
    ):
        set_ = object.__setattr__
        set_(self, "ctype", check_ctype(ctype, "CDataType: ctype", pointer=True))
        set_(
            self,
            "freefunc",
            None if freefunc is None else check_identifier(freefunc, "CDataType: freefunc"),
        )
        set_(self, "headers", _strings(headers, "headers"))
        set_(self, "header_dirs", _strings(header_dirs, "header_dirs"))
        set_(self, "libraries", _strings(libraries, "libraries"))
        set_(self, "lib_dirs", _strings(lib_dirs, "lib_dirs"))
        set_(self, "compile_args", _strings(compile_args, "compile_args"))
        if not isinstance(extra_support_code, str):
            raise TypeError("CDataType: extra_support_code must be a str of C code")
        set_(self, "extra_support_code", extra_support_code)
        if version is not None:
            hash(version)  # it goes into cache keys
        set_(self, "version", version)
        set_(self, "_hash", hash((CDataType, *self._props())))

    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in self.__props__)

    def __setattr__(self, key, value):
        raise AttributeError(f"CDataType is immutable (cannot set {key!r})")

    def __eq__(self, other):
        return self is other or (type(other) is type(self) and other._props() == self._props())

    def __hash__(self):
        return self._hash

    def __reduce__(self):
        return (type(self), self._props())

    def __str__(self):
        return f"{type(self).__name__}{{{self.ctype}}}"

    __repr__ = __str__

    @property
    def capsule_name(self) -> str:
        """The name given to this type's capsules (it names the C type)."""
        return f"tensortypes.cdata:{self.ctype}"

    # -- values ---------------------------------------------------------------------------
    def filter(self, data, strict=False, allow_downcast=None):
        """``None`` or a capsule (unnamed, or made for this C type)."""
        if data is None:
            return None
        if not isinstance(data, _CAPSULE):
            raise TypeCheckError(f"{self}: expected None or a PyCapsule, got {type(data).__name__}")
        name = _capsule_name(data)
        if name is not None and name.decode("utf-8", "replace") != self.capsule_name:
            raise TypeCheckError(
                f"{self}: the capsule holds a {name.decode('utf-8', 'replace')!r}"
                f", not a {self.capsule_name!r}"
            )
        return data

    def values_eq(self, a, b) -> bool:
        return a is b

    def make_value(self, ptr):
        """A capsule holding the pointer whose integer address is ``ptr`` (as in Theano).

        The address is trusted; ``freefunc`` frees it when the capsule dies.
        The converting function is compiled once per type.
        """
        if isinstance(ptr, bool) or not isinstance(ptr, int):
            raise TypeError(f"make_value takes an int address, got {type(ptr).__name__}")
        return _maker(self)([ptr])[0]

    # -- C --------------------------------------------------------------------------------
    def c_headers(self, **kwargs):
        return list(self.headers)

    def c_header_dirs(self, **kwargs):
        return list(self.header_dirs)

    def c_libraries(self, **kwargs):
        return list(self.libraries)

    def c_lib_dirs(self, **kwargs):
        return list(self.lib_dirs)

    def c_compile_args(self, **kwargs):
        return list(self.compile_args)

    def c_support_code(self, **kwargs):
        return _DESTRUCTOR + self.extra_support_code

    def c_declare(self, name, sub, check_input=True):
        return f"{self.ctype} {name};\nint {name}_owned;"

    def c_init(self, name, sub):
        return f"{name} = NULL; {name}_owned = 1;"

    def c_extract(self, name, sub, check_input=True):
        kind = c_format(f" of type {self}")
        cname = c_string(self.capsule_name)
        return f"""{name}_owned = 0;
if (py_{name} == Py_None) {{
    {name} = NULL;
}} else if (PyCapsule_IsValid(py_{name}, {cname})) {{
    {name} = ({self.ctype})PyCapsule_GetPointer(py_{name}, {cname});
}} else if (PyCapsule_IsValid(py_{name}, NULL)) {{
    {name} = ({self.ctype})PyCapsule_GetPointer(py_{name}, NULL);
}} else {{
    PyErr_Format(tt_TypeCheckError, "%s" {kind} ": expected None or a capsule of this C "
                 "type, got %s", {label_c(name, sub)}, Py_TYPE(py_{name})->tp_name);
    {sub["fail"]}
}}"""

    def c_sync(self, name, sub):
        free = self.freefunc or "NULL"
        release = f"if ({name}_owned) {self.freefunc}({name});" if self.freefunc else ""
        return f"""if ({name} == NULL) {{
    Py_XDECREF(py_{name}); py_{name} = Py_None; Py_INCREF(py_{name});
}} else if ({name}_owned) {{
    PyObject* capsule_{name} = PyCapsule_New((void*){name}, {c_string(self.capsule_name)},
                                             tt_cdata_destructor);
    if (capsule_{name} != NULL && PyCapsule_SetContext(capsule_{name}, (void*){free}) != 0) {{
        Py_CLEAR(capsule_{name});  /* no context yet, so this frees nothing */
    }}
    if (capsule_{name} == NULL) {{
        {release}
        {name} = NULL; {name}_owned = 0;
        {sub["fail"]}
    }}
    Py_XDECREF(py_{name}); py_{name} = capsule_{name};
    {name}_owned = 0;  /* the capsule frees it now */
}}"""

    def c_cleanup(self, name, sub):
        if self.freefunc is None:
            return f"{name} = NULL;"
        return f"if ({name}_owned && {name} != NULL) {self.freefunc}({name});\n{name} = NULL;"

    def c_is_simple(self):
        return True

    def c_element_type(self):
        return self.ctype

    def c_code_cache_version(self):
        return (3,) if self.version is None else (3, self.version)


class MakeCData(Op, CLinkerOp):
    """Turn an integer address into a value of ``rtype`` (a CDataType); C only."""

    __props__ = ("rtype",)
    __slots__ = ("rtype",)

    def __init__(self, rtype: CDataType):
        self.rtype = rtype

    def make_node(self, address):
        from tensortypes.types.primitives import INT

        return Apply(self, [INT.filter_variable(address)], [self.rtype()])

    def c_code(self, node, name, inputs, outputs, sub):
        return f"{outputs[0]} = ({self.rtype.ctype})(uintptr_t){inputs[0]};"

    def c_headers(self, **kwargs):
        return ["<stdint.h>"]

    def c_code_cache_version(self):
        return (1,)


_makers: dict = {}
_makers_lock = threading.Lock()


def _maker(t: CDataType):
    fn = _makers.get(t)
    if fn is None:
        from tensortypes.graph import FunctionGraph
        from tensortypes.link.c.linker import CLinker
        from tensortypes.types.primitives import INT

        with _makers_lock:
            fn = _makers.get(t)
            if fn is None:
                address = INT("address")
                graph = FunctionGraph([address], [MakeCData(t)(address)])
                fn = _makers[t] = CLinker().make_function(graph)
    return fn
