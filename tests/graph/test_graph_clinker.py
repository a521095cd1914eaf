"""The C interface (as in Theano) and the registry of built-in C implementations."""

from __future__ import annotations

import types

import pytest

import tensortypes.graph.clinker as clinker
from graph_toys import floatt
from tensortypes.errors import MethodNotDefined
from tensortypes.graph import (
    Apply,
    CLinkerOp,
    CLinkerType,
    CRegistered,
    Generic,
    Type,
    c_implementation,
    generic,
    register_c_implementation,
)

REQUIRED = [
    ("c_declare", ("x", {})),
    ("c_init", ("x", {})),
    ("c_extract", ("x", {})),
    ("c_sync", ("x", {})),
    ("c_cleanup", ("x", {})),
    ("c_element_type", ()),
    ("c_literal", (1,)),
]


@pytest.fixture
def registry(monkeypatch):
    """A private, empty registry; link.c counts as already tried."""
    monkeypatch.setattr(clinker, "_registry", {})
    monkeypatch.setattr(clinker, "_resolved", {})
    monkeypatch.setattr(clinker, "_backend_tried", True)
    return clinker._registry


class Bare(CLinkerType):
    pass


@pytest.mark.parametrize("method, args", REQUIRED)
def test_required_methods_raise_method_not_defined(method, args):
    with pytest.raises(MethodNotDefined, match=f"Bare does not define {method}"):
        getattr(Bare(), method)(*args)


def test_defaults():
    t = Bare()
    for method in (
        "c_headers",
        "c_header_dirs",
        "c_libraries",
        "c_lib_dirs",
        "c_compile_args",
        "c_no_compile_args",
        "c_init_code",
    ):
        assert getattr(t, method)() == []
    assert t.c_headers(c_compiler="gcc") == []
    assert t.c_support_code() == ""
    assert t.c_code_cache_version() == ()
    assert t.c_is_simple() is False


class Cint(CLinkerType):
    def c_declare(self, name, sub, check_input=True):
        return f"long {name};"

    def c_init(self, name, sub):
        return f"{name} = 0;"

    def c_extract(self, name, sub, check_input=True):
        check = "/* checked */" if check_input else ""
        return f"{check}{name} = PyLong_AsLong(py_{name}); if (PyErr_Occurred()) {{{sub['fail']}}}"


def test_c_extract_out_wraps_init_and_extract():
    code = Cint().c_extract_out("v", {"fail": "goto fail;"})
    lines = [line.strip() for line in code.strip().splitlines()]
    assert lines[0] == "if (py_v == Py_None)"
    assert "v = 0;" in lines
    assert lines[lines.index("else") + 2].startswith("/* checked */v = PyLong_AsLong(py_v);")
    assert "goto fail;" in code
    assert "/* checked */" not in Cint().c_extract_out("v", {"fail": ""}, check_input=False)


def test_clinker_op_defaults():
    class COp(CLinkerOp):
        pass

    op = COp()
    with pytest.raises(MethodNotDefined, match="COp does not define c_code"):
        op.c_code(None, "n", [], [], {})
    assert op.c_code_cleanup(None, "n", [], [], {}) == ""
    assert op.c_support_code_apply(None, "n") == ""
    assert op.c_init_code_apply(None, "n") == ""
    assert op.c_support_code_struct(None, "n") == ""
    assert op.c_init_code_struct(None, "n", {}) == ""
    assert op.c_cleanup_code_struct(None, "n") == ""
    assert op.c_headers() == [] and op.c_code_cache_version() == ()


class VersionedType(Type, CLinkerType):
    def __init__(self, version):
        self.version = version

    def filter(self, data, strict=False, allow_downcast=None):
        return data

    def c_code_cache_version(self):
        return self.version


class VersionedOp(CLinkerOp):
    def __init__(self, version):
        self.version = version

    def c_code_cache_version(self):
        return self.version


def test_c_code_cache_version_apply_combines_op_and_types():
    t1, t2 = VersionedType((1,)), VersionedType((2, 3))
    node = Apply(VersionedOp((4,)), [t1(), t2()], [t1()])
    assert node.op.c_code_cache_version_apply(node) == (
        (4,),
        ("VersionedType", (1,)),
        ("VersionedType", (2, 3)),
    )
    assert VersionedOp(()).c_code_cache_version_apply(node) == ()
    unversioned = Apply(VersionedOp((4,)), [t1(), VersionedType(())()], [t1()])
    assert unversioned.op.c_code_cache_version_apply(unversioned) == ()
    python_only = Apply(VersionedOp((4,)), [floatt()], [t1()])  # floatt has no C code
    assert python_only.op.c_code_cache_version_apply(python_only) == ()


# -- the registry ---------------------------------------------------------------------------


class Boxed(CRegistered, Type):
    def filter(self, data, strict=False, allow_downcast=None):
        return data


class SubBoxed(Boxed):
    pass


class BoxedC(CLinkerType):
    def c_declare(self, name, sub, check_input=True):
        return f"PyObject* {name}; /* {type(self).__name__} */"

    def c_element_type(self):
        return "PyObject*"

    def c_code_cache_version(self):
        return (7,)


def test_registered_implementation_is_called_with_the_type_instance(registry):
    register_c_implementation(Boxed, BoxedC)
    b = Boxed()
    assert b.c_declare("v", {}) == "PyObject* v; /* Boxed */"
    assert b.c_element_type() == "PyObject*"
    assert b.c_code_cache_version() == (7,)
    # Methods the implementation leaves alone keep the interface's behaviour.
    assert b.c_headers() == [] and b.c_is_simple() is False
    with pytest.raises(MethodNotDefined, match="Boxed does not define c_init"):
        b.c_init("v", {})
    # c_extract_out's default calls back into the registry for c_init.
    with pytest.raises(MethodNotDefined, match="c_init"):
        b.c_extract_out("v", {})


def test_lookup_walks_the_mro_and_the_nearest_class_wins(registry):
    register_c_implementation(Boxed, BoxedC)
    assert SubBoxed().c_declare("v", {}) == "PyObject* v; /* SubBoxed */"

    class SubBoxedC(BoxedC):
        def c_element_type(self):
            return "npy_int8"

    register_c_implementation(SubBoxed, SubBoxedC)
    assert SubBoxed().c_element_type() == "npy_int8"
    assert Boxed().c_element_type() == "PyObject*"
    assert c_implementation(SubBoxed) is SubBoxedC


def test_a_namespace_of_functions_is_a_valid_implementation(registry):
    impl = types.SimpleNamespace(c_literal=lambda self, data: f"{data}L")
    register_c_implementation(Boxed, impl)
    assert Boxed().c_literal(5) == "5L"
    with pytest.raises(MethodNotDefined, match="c_sync"):
        Boxed().c_sync("v", {})


def test_nothing_registered_names_the_type_and_method(registry):
    with pytest.raises(
        MethodNotDefined,
        match="no C implementation is registered for "
        r"Boxed, so c_declare\(\) is not available",
    ):
        Boxed().c_declare("v", {})
    with pytest.raises(MethodNotDefined, match="Boxed.*c_headers"):
        Boxed().c_headers()


def test_a_type_defining_the_method_itself_wins(registry):
    register_c_implementation(Boxed, BoxedC)

    class Own(Boxed):
        def c_element_type(self):
            return "double"

    assert Own().c_element_type() == "double"
    assert Own().c_declare("v", {}).startswith("PyObject* v")


def test_registration_validation(registry):
    with pytest.raises(TypeError, match="needs a class"):
        register_c_implementation(Boxed(), BoxedC)
    with pytest.raises(TypeError, match="at least one of"):
        register_c_implementation(Boxed, object())
    with pytest.raises(TypeError, match="cannot itself be a CRegistered"):
        register_c_implementation(Boxed, SubBoxed)
    assert register_c_implementation(Boxed, BoxedC) is BoxedC


def test_generic_is_registered_type(registry):
    assert isinstance(generic, CRegistered)
    with pytest.raises(MethodNotDefined, match="Generic"):
        generic.c_declare("v", {})
    register_c_implementation(Generic, BoxedC)
    assert generic.c_declare("v", {}) == "PyObject* v; /* Generic */"


# Serves a stand-in ``tensortypes.link`` package and ``link.c`` module to a fresh
# interpreter; the variable ``LINK_C`` holds the source of link.c.
FAKE_BACKEND = """
import importlib.abc, importlib.util, sys
execs = []
class Backend(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in ("tensortypes.link", "tensortypes.link.c"):
            return importlib.util.spec_from_loader(
                name, self, is_package=name == "tensortypes.link")
        return None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        execs.append(module.__name__)
        if module.__name__ == "tensortypes.link.c":
            exec(LINK_C, module.__dict__)
sys.meta_path.insert(0, Backend())
"""

GENERIC_C = """
from tensortypes.graph import CLinkerType, Generic, register_c_implementation
class GenericC(CLinkerType):
    def c_declare(self, name, sub, check_input=True):
        return "PyObject* " + name + ";"
register_c_implementation(Generic, GenericC)
"""


def test_first_miss_loads_the_c_backend_once(run_python):
    proc = run_python(
        f"LINK_C = {GENERIC_C!r}\n"
        + FAKE_BACKEND
        + """
import tensortypes.graph.clinker as clinker
from tensortypes.errors import MethodNotDefined
from tensortypes.graph import CRegistered, generic
print(clinker._backend_tried, execs)
print(generic.c_declare("v", {}))
print(generic.c_declare("w", {}))
class Other(CRegistered):
    pass
try:
    Other().c_declare("v", {})
except MethodNotDefined as exc:
    print("other:", exc)
print(execs)
"""
    )
    out = proc.stdout.splitlines()
    assert out[0] == "False []"
    assert out[1:3] == ["PyObject* v;", "PyObject* w;"]
    assert out[3].startswith("other: no C implementation is registered for Other")
    assert out[4] == "['tensortypes.link', 'tensortypes.link.c']"


def test_missing_backend_module_leaves_the_registry_empty(run_python):
    proc = run_python("""
        import sys
        sys.modules["tensortypes.link.c"] = None  # as if link.c did not exist
        import tensortypes.graph.clinker as clinker
        from tensortypes.errors import MethodNotDefined
        from tensortypes.graph import generic
        for _ in range(2):
            try:
                generic.c_declare("v", {})
            except MethodNotDefined as exc:
                print("missing:", exc)
        print(clinker._backend_tried)
    """)
    out = proc.stdout.splitlines()
    assert out[0].startswith("missing: no C implementation is registered for Generic")
    assert out[1] == out[0] and out[2] == "True"


def test_a_broken_backend_is_reported_not_hidden(run_python):
    link_c = "import a_module_that_is_not_installed\n"
    proc = run_python(
        f"LINK_C = {link_c!r}\n"
        + FAKE_BACKEND
        + """
from tensortypes.graph import generic
for _ in range(2):
    try:
        generic.c_declare("v", {})
    except ImportError as exc:
        print("error:", exc.name)
"""
    )
    assert proc.stdout.splitlines() == ["error: a_module_that_is_not_installed"] * 2
