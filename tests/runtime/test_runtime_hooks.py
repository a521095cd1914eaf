"""The import hook, the pytest plugin and the IPython extension."""

from __future__ import annotations

import ast
import importlib
import sys
import textwrap
import warnings
from importlib.metadata import entry_points

import numpy as np
import pytest

from tensortypes.errors import AnnotationError, AnnotationWarning, TypeCheckError
from tensortypes.runtime import install_import_hook, load_ipython_extension, typechecked
from tensortypes.runtime.import_hook import CheckTransformer
from tensortypes.runtime.import_hook import unload_ipython_extension
from tensortypes.runtime.pytest_plugin import split_packages

pytest_plugins = ["pytester"]

MODULE = """
from __future__ import annotations

import dataclasses
import typing

import numpy as np
from tensortypes.annotate import Float


def pair(x: Float[np.ndarray, "n"], y: Float[np.ndarray, "n"]) -> int:
    return 1


@typing.no_type_check
def skipped(x: int) -> int:
    return x


def unannotated(x):
    return x


@dataclasses.dataclass
class Both:
    a: Float[np.ndarray, "n"]
    b: Float[np.ndarray, "n"]


class Holder:
    def get(self, x: int) -> int:
        return x

    @property
    def bad(self) -> int:
        return "not an int"
"""


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A fresh package ``hooked_<n>`` with the module ``mod`` above; forgotten afterwards."""
    name = f"hooked_{tmp_path.name.replace('-', '_')}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "mod.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]


def test_import_hook_checks_functions_methods_and_dataclasses(package):
    with install_import_hook(package):
        mod = importlib.import_module(f"{package}.mod")
    assert mod.pair(np.zeros(2), np.zeros(2)) == 1
    with pytest.raises(TypeCheckError, match="n=2 was bound by axis 0 of x"):
        mod.pair(np.zeros(2), np.zeros(3))
    assert mod.skipped("no check") == "no check"
    assert mod.unannotated("x") == "x"
    with pytest.raises(TypeCheckError, match="field b"):
        mod.Both(np.zeros(2), np.zeros(3))
    with pytest.raises(TypeCheckError):
        mod.Holder().get("1")
    with pytest.raises(TypeCheckError, match="return value"):
        mod.Holder().bad


def test_uninstalled_hook_instruments_nothing_and_leaves_no_checked_bytecode(package):
    hook = install_import_hook(package)
    hook.uninstall()
    hook.uninstall()  # twice is harmless
    mod = importlib.import_module(f"{package}.mod")
    assert mod.pair("anything", None) == 1
    del sys.modules[f"{package}.mod"]
    with install_import_hook(package):
        checked = importlib.import_module(f"{package}.mod")
    with pytest.raises(TypeCheckError):
        checked.pair("anything", None)
    del sys.modules[f"{package}.mod"]
    plain = importlib.import_module(f"{package}.mod")  # from the cache, unchecked
    assert plain.pair("anything", None) == 1


def test_import_hook_with_another_checker_by_name(package):
    typeguard = pytest.importorskip("typeguard")
    if hasattr(typeguard, "TypeCheckError"):
        pytest.skip("typeguard 2.x is the version jaxtyping's call forms target")
    with install_import_hook([package], "typeguard.typechecked"):
        mod = importlib.import_module(f"{package}.mod")
    with pytest.raises(TypeCheckError, match="parameter y"):
        mod.pair(np.zeros(2), np.zeros(3))


BROKEN = """
from __future__ import annotations

import numpy as np
from tensortypes.annotate import Float


def pair(x: Float[np.ndarray, "n"], y: Float[np.ndarray, "n"], hook: callable | None = None) -> int:
    return 1


def later(x: Float[np.ndarray, "n"], f: callable | None, y: Later) -> int:
    return 1


class Later:
    pass
"""


def test_import_hook_leaves_an_unevaluable_annotation_unchecked_and_warns(package, tmp_path):
    # A library's annotation that raises when evaluated (`callable | None` under
    # future annotations) must not stop its import: it is left unchecked, once said.
    (tmp_path / package / "broken.py").write_text(BROKEN)
    with install_import_hook(package):
        with pytest.warns(AnnotationWarning) as record:
            mod = importlib.import_module(f"{package}.broken")
    said = sorted(str(w.message) for w in record)
    assert len(said) == 2, said
    assert "parameter f of " in said[0] and "broken.later (" in said[0]
    assert "parameter hook of " in said[1] and "broken.pair (" in said[1]
    assert all("'callable | None'" in m and "left unchecked" in m for m in said)
    assert mod.pair(np.zeros(2), np.zeros(2), hook=print) == 1
    with pytest.raises(TypeCheckError, match="n=2 was bound by axis 0 of x"):
        mod.pair(np.zeros(2), np.zeros(3))
    # Deferred to the first call (Later is defined after it), and lenient there too,
    # without saying it again.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mod.later(np.zeros(2), None, mod.Later()) == 1
        with pytest.raises(TypeCheckError, match="parameter y"):
            mod.later(np.zeros(2), None, "not Later")


def test_typechecked_still_refuses_an_unevaluable_annotation():
    # Written by the user and checked on request: an error at decoration.
    def f(x: "callable | None") -> int:  # noqa: F821 (the annotation under test)
        return 1

    with pytest.raises(AnnotationError, match="cannot evaluate 'callable | None'"):
        typechecked(f)


def test_import_hook_refuses_bad_module_names():
    with pytest.raises(ValueError):
        install_import_hook("not a module")


def _our_plugin_registered() -> bool:
    return any(ep.value.startswith("tensortypes") for ep in entry_points(group="pytest11"))


def _plugin_args() -> list[str]:
    return [] if _our_plugin_registered() else ["-p", "tensortypes.runtime.pytest_plugin"]


def test_pytest_plugin_checks_the_packages_named(pytester):
    pytester.mkpydir("plugpkg")
    (pytester.path / "plugpkg" / "core.py").write_text(
        textwrap.dedent("""
        def double(x: int) -> int:
            return x * 2
    """)
    )
    pytester.makepyfile(
        test_uses="""
        import plugpkg.core

        def test_good():
            assert plugpkg.core.double(2) == 4

        def test_bad():
            plugpkg.core.double("2")
    """
    )
    result = pytester.runpytest_subprocess(*_plugin_args(), "--tensortypes-packages=plugpkg")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*TypeCheckError*parameter 'x'*"])
    plain = pytester.runpytest_subprocess(*_plugin_args())
    plain.assert_outcomes(passed=2)


def test_pytest_plugin_jaxtyping_spelling(pytester):
    pytester.mkpydir("plugpkg2")
    (pytester.path / "plugpkg2" / "core.py").write_text("def one(x: int) -> int:\n    return 1\n")
    pytester.makepyfile(
        test_alias="""
        import plugpkg2.core

        def test_bad():
            plugpkg2.core.one("x")
    """
    )
    result = pytester.runpytest_subprocess(*_plugin_args(), "--jaxtyping-packages=plugpkg2,None")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*TypeCheckError*"])


def test_a_failed_check_ends_its_traceback_at_the_users_call(pytester):
    # pytest hides the library's frames (the generated wrapper, the error's builder):
    # the last frame shown is the test's own line, under our checker and another one.
    checkers = ["typechecked"]
    if importlib.util.find_spec("beartype") is not None:
        checkers.append("jaxtyped(typechecker=beartype.beartype)")
    source = textwrap.dedent("""
        import numpy as np
        from tensortypes import Float, jaxtyped, typechecked

        @CHECKER
        def first(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
            return x[1:]

        def test_bad_return():
            first(np.ones(3))

        def test_bad_parameter():
            first(np.ones((3, 2)))
    """)
    for checker in checkers:
        head = "import beartype\n" if "beartype" in checker else "\n"
        (pytester.path / "test_trace.py").write_text(head + source.replace("CHECKER", checker))
        result = pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:randomly")
        result.assert_outcomes(failed=2)
        out = result.stdout.str()
        assert "_codegen.py" not in out and "_external.py" not in out, out
        result.stdout.fnmatch_lines(["test_trace.py:11: TypeCheckError"])
        result.stdout.fnmatch_lines(["test_trace.py:14: TypeCheckError"])


def test_split_packages():
    assert split_packages("a_pkg", False) == (["a_pkg"], None)
    assert split_packages("a_pkg,b_pkg,beartype.beartype", False) == (
        ["a_pkg", "b_pkg"],
        "beartype.beartype",
    )
    assert split_packages("a_pkg,numpy", False) == (["a_pkg", "numpy"], None)
    assert split_packages("a_pkg,None", True) == (["a_pkg"], None)


class _Shell:
    """The parts of an IPython shell the extension uses."""

    def __init__(self):
        self.ast_transformers: list = []
        self.magics: dict = {}

    def register_magic_function(self, fn, kind, name):
        self.magics[name] = fn

    def run_cell(self, source: str, namespace: dict) -> None:
        tree = ast.parse(source)
        for transformer in self.ast_transformers:
            tree = transformer.visit(tree)
        exec(compile(ast.fix_missing_locations(tree), "<cell>", "exec"), namespace)  # noqa: S102


def test_ipython_extension_checks_cells():
    shell = _Shell()
    load_ipython_extension(shell)
    assert "tensortypes.typechecker" in shell.magics and "jaxtyping.typechecker" in shell.magics
    namespace: dict = {}
    shell.run_cell("def f(x: int) -> int:\n    return x\n", namespace)
    assert namespace["f"](1) == 1
    with pytest.raises(TypeCheckError):
        namespace["f"]("1")
    shell.magics["tensortypes.typechecker"]("None")
    assert sum(isinstance(t, CheckTransformer) for t in shell.ast_transformers) == 1
    unload_ipython_extension(shell)
    shell.run_cell("def g(x: int) -> int:\n    return x\n", namespace)
    assert namespace["g"]("unchecked") == "unchecked"
    with pytest.raises(TypeError):
        load_ipython_extension(object())
