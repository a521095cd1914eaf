"""tensortypes standing in for jaxtyping: the forms real projects (equinox, lineax,
optimistix) and jaxtyping's own test suite use, each once broken."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import textwrap
import typing
from importlib.metadata import entry_points

import numpy as np
import numpy.typing as npt
import pytest

from tensortypes import (
    AnnotationError,
    Bool,
    Float,
    Int,
    PyTree,
    TypeCheckError,
    install_import_hook,
    jaxtyped,
    typechecked,
)
from tensortypes.runtime._checkerspec import resolve_checker_text, split_top_level
from tensortypes.runtime.pytest_plugin import split_packages

pytest_plugins = ["pytester"]

BEAR_FULL = "beartype.beartype(conf=beartype.BeartypeConf(strategy=beartype.BeartypeStrategy.On))"


# -- cause 1: typechecker strings with arguments ------------------------------------


def test_checker_string_with_a_call_and_keywords():
    assert resolve_checker_text("functools.partial(int, base=2)")("11") == 3
    assert resolve_checker_text(" builtins.dict(a=(1, -2.5), b=[None, True], c={'k': b'v'})") == {
        "a": (1, -2.5),
        "b": [None, True],
        "c": {"k": b"v"},
    }


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "(lambda: 1)()",
        "a.b if c else d",
        "x[0]",
        "f(*args)",
        "f(**kw)",
        "1 + 2",
        "",
    ],
)
def test_checker_string_is_read_never_evaluated(text):
    with pytest.raises((ValueError, ImportError)):  # a bare name is a module or a class
        resolve_checker_text(text)


def test_checker_string_missing_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'does_not_exist'"):
        resolve_checker_text("tensortypes.does_not_exist")
    with pytest.raises(ImportError):
        resolve_checker_text("no_such_module_here.checker")


def test_split_does_not_cut_inside_brackets_or_quotes():
    assert split_top_level("a,f(x=1, y=g(2, 3)),'p,q'") == ["a", "f(x=1, y=g(2, 3))", "'p,q'"]
    assert split_packages(f"pkg_a,pkg_b,{BEAR_FULL}", True) == (["pkg_a", "pkg_b"], BEAR_FULL)
    assert split_packages("pkg,b.b(conf=C(x=1, y=2))", True) == (["pkg"], "b.b(conf=C(x=1, y=2))")


def test_jaxtyped_takes_a_checker_string_with_arguments():
    pytest.importorskip("beartype")

    @jaxtyped(typechecker=BEAR_FULL)
    def f(x: Float[np.ndarray, "n"]) -> int:
        return 1

    assert f(np.zeros(2)) == 1
    with pytest.raises(TypeCheckError):
        f(np.zeros((2, 2)))


def test_import_hook_takes_a_checker_string_with_arguments(tmp_path, monkeypatch):
    pytest.importorskip("beartype")
    (tmp_path / "hookmod_bear.py").write_text("def f(x: int) -> int:\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with install_import_hook("hookmod_bear", BEAR_FULL):
        mod = importlib.import_module("hookmod_bear")
    assert mod.f(1) == 1
    with pytest.raises(TypeCheckError):
        mod.f("x")


def test_import_hook_unknown_checker_raises_at_import(tmp_path, monkeypatch):
    (tmp_path / "hookmod_broken.py").write_text("def f(x: int) -> int:\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AttributeError):
        with install_import_hook("hookmod_broken", "tensortypes.does_not_exist"):
            importlib.import_module("hookmod_broken")


# -- cause 2: PyTree inside a union prints as alone ---------------------------------


def test_pytree_repr_is_the_same_inside_a_union():
    assert repr(PyTree | int) == "PyTree | int"
    assert repr(PyTree) == "<class 'PyTree'>" and str(PyTree) == "PyTree"
    assert repr(PyTree[int] | None) == "PyTree[int] | None"
    assert pickle.loads(pickle.dumps(PyTree)) is PyTree


def test_bare_pytree_under_beartype():
    beartype = pytest.importorskip("beartype")

    @jaxtyped(typechecker=beartype.beartype)
    def f(x: PyTree) -> PyTree:
        return x

    assert f([1, {"a": 2}]) == [1, {"a": 2}]


@pytest.mark.parametrize(
    "spell",
    [
        lambda a: a | int,
        lambda a: typing.Union[a, int],  # noqa: UP007 (the form under test)
        lambda a: typing.Union[int, a],  # noqa: UP007
        lambda a: int | a,
    ],
)
@pytest.mark.parametrize("which", ["array", "pytree", "pytree_bare"])
def test_annotations_in_a_union_with_int_under_beartype(spell, which):
    # beartype compares repr(hint) with repr(hint | int), and caches that repr by
    # equality: once Union[A, int] is seen, A | int (equal to it) reads as
    # "typing.Union[...]". A class repr ("<class ...>") is exempt from the comparison.
    beartype = pytest.importorskip("beartype")
    member = {
        "array": Float[np.ndarray, "n"],
        "pytree": PyTree[Float[np.ndarray, "n"]],
        "pytree_bare": PyTree,
    }[which]

    def f(x):
        return 1

    f.__annotations__ = {"x": spell(member), "return": int}
    g = jaxtyped(typechecker=beartype.beartype)(f)
    assert g(3) == 1 and g(np.zeros(2)) == 1
    if which != "pytree_bare":
        with pytest.raises(TypeCheckError):
            g("a")


# -- cause 3: forward references resolved at the first call ---------------------------


def test_forward_reference_under_another_checker_is_resolved_at_first_call():
    beartype = pytest.importorskip("beartype")

    @jaxtyped(typechecker=beartype.beartype)
    def f(x: "LaterDefined") -> int:  # noqa: F821 (defined below, as in real code)
        return 1

    class LaterDefined:
        pass

    globals()["LaterDefined"] = LaterDefined
    try:
        assert f(LaterDefined()) == 1
        with pytest.raises(TypeCheckError):
            f(3)
    finally:
        del globals()["LaterDefined"]


def test_method_returning_its_own_class_by_string():
    typeguard = pytest.importorskip("typeguard")
    if hasattr(typeguard, "TypeCheckError"):
        pytest.skip("typeguard 2.x is the version jaxtyping's call forms target")

    class Node:
        @jaxtyped(typechecker=typeguard.typechecked)
        def me(self) -> "Node":
            return self

    n = Node()
    assert n.me() is n


# -- cause 4: unions with members that can never be arrays -----------------------------


def test_numpy_arraylike_annotation_builds_and_checks():
    annotation = Bool[npt.ArrayLike, "*shape"]
    # Written as typing.Union, so the annotation is one too (jaxtyping's get_origin).
    assert typing.get_origin(annotation) is typing.Union

    @typechecked
    def f(x: annotation) -> int:
        return 1

    assert f(np.array([True, False])) == 1 and f(True) == 1
    with pytest.raises(TypeCheckError):
        f(b"bytes")


def test_numpy_arraylike_means_python_scalars_too():
    # numpy 2 spells them `complex` alone, PEP 484's int | float | complex.
    assert isinstance(True, Bool[npt.ArrayLike, ""])
    assert isinstance(1, Int[npt.ArrayLike, "*foo"])
    assert isinstance(1.0, Float[npt.ArrayLike, "..."])
    assert not isinstance(1.0, Int[npt.ArrayLike, ""])


def test_a_bare_non_array_builtin_is_still_an_error():
    with pytest.raises(AnnotationError, match="bytes is not an array type"):
        Float[bytes, "n"]
    with pytest.raises(AnnotationError, match="no member of bytes | str is an array type"):
        Float[bytes | str, "n"]


# -- cause 5: NoReturn under another checker ------------------------------------------


def test_noreturn_under_beartype():
    beartype = pytest.importorskip("beartype")

    @jaxtyped(typechecker=beartype.beartype)
    def fail(x: int) -> typing.NoReturn:
        raise KeyError(x)

    with pytest.raises(KeyError):
        fail(1)

    @jaxtyped(typechecker=beartype.beartype)
    def lies(x: int) -> typing.NoReturn:
        return x  # type: ignore[misc]

    with pytest.raises(TypeCheckError):
        lies(1)


# -- cause 7: the plugin installs the hook before conftest.py is imported ---------------


def _plugin_args() -> list[str]:
    ours = any(ep.value.startswith("tensortypes") for ep in entry_points(group="pytest11"))
    return [] if ours else ["-p", "tensortypes.runtime.pytest_plugin"]


@pytest.mark.parametrize(
    "option", ["--tensortypes-packages=confpkg", f"--jaxtyping-packages=confpkg,{BEAR_FULL}"]
)
def test_pytest_plugin_hooks_before_conftest(pytester, option):
    if "beartype" in option:
        pytest.importorskip("beartype")
    pytester.mkpydir("confpkg")
    (pytester.path / "confpkg" / "core.py").write_text(
        "def double(x: int) -> int:\n    return x * 2\n"
    )
    pytester.makeconftest("import confpkg.core\n")
    pytester.makepyfile(
        test_conf="""
        import confpkg.core

        def test_bad():
            confpkg.core.double("2")
    """
    )
    result = pytester.runpytest_subprocess(*_plugin_args(), option)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*TypeCheckError*"])


# -- the shim: `import jaxtyping` gives tensortypes -------------------------------------


def test_shim_command_runs_code_importing_jaxtyping(tmp_path):
    script = tmp_path / "uses_jaxtyping.py"
    script.write_text(
        textwrap.dedent("""
        import subprocess, sys
        import jaxtyping, tensortypes
        from jaxtyping import Float, jaxtyped
        from jaxtyping._pytest_plugin import pytest_addoption
        assert jaxtyping is tensortypes, jaxtyping
        child = subprocess.run([sys.executable, "-c",
                                "import jaxtyping, tensortypes; print(jaxtyping is tensortypes)"],
                               capture_output=True, text=True, check=True)
        print("child", child.stdout.strip(), sys.argv[1:])
    """)
    )
    out = subprocess.run(
        [sys.executable, "-m", "tensortypes.jaxtyping_shim", str(script), "a1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "child True ['a1']"
    module = subprocess.run(
        [
            sys.executable,
            "-m",
            "tensortypes.jaxtyping_shim",
            "-c",
            "import jaxtyping; print(jaxtyping.__name__)",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert module.stdout.strip() == "tensortypes", module.stderr


def test_shim_command_usage():
    out = subprocess.run(
        [sys.executable, "-m", "tensortypes.jaxtyping_shim"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 2 and "usage" in out.stderr


def test_shim_runs_a_pytest_suite_with_jaxtypings_option(pytester):
    pytester.mkpydir("shimpkg")
    (pytester.path / "shimpkg" / "core.py").write_text(
        "from jaxtyping import Float\nimport numpy as np\n\n"
        "def total(x: Float[np.ndarray, 'n']) -> float:\n    return float(x.sum())\n"
    )
    pytester.makepyfile(
        test_shim="""
        import numpy as np
        import pytest
        import shimpkg.core
        from jaxtyping import TypeCheckError

        def test_good():
            assert shimpkg.core.total(np.ones(2)) == 2.0

        def test_bad():
            with pytest.raises(TypeCheckError):
                shimpkg.core.total(np.ones((2, 2)))
    """
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tensortypes.jaxtyping_shim",
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            *_plugin_args(),
            "--jaxtyping-packages=shimpkg,None",
            "-q",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout


# -- cause 8: what jaxtyping's own suite found ------------------------------------------


def test_first_line_is_jaxtypings():
    @typechecked
    def f(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "n"]:
        return np.zeros(3)  # tensortypes: ignore[return] (the error under test)

    with pytest.raises(
        TypeCheckError,
        match=r"^Type-check error whilst checking the "
        r"parameters of .*<locals>\.f\. The problem arose whilst "
        r"typechecking parameter 'x'\.\n  where:",
    ):
        f("not an array")
    with pytest.raises(
        TypeCheckError,
        match=r"^Type-check error whilst checking the return "
        r"value of .*<locals>\.f\.\n",
    ):
        f(np.zeros(2))


def test_anonymous_variadic_star():
    star = Float[np.ndarray, "a * b"]
    assert isinstance(np.zeros((1, 2, 3, 4)), star) and isinstance(np.zeros((1, 4)), star)
    assert not isinstance(np.zeros(1), star)
    assert isinstance(np.zeros(()), Float[np.ndarray, "*"])


def test_annotation_classes_pickle_by_value_too():
    cloudpickle = pytest.importorskip("cloudpickle")
    for module in (pickle, cloudpickle):
        loaded = module.loads(module.dumps(Float[np.ndarray, "_ _"]))
        assert isinstance(np.zeros((2, 3)), loaded) and not isinstance(np.zeros(2), loaded)


def test_calling_an_annotation_is_a_runtime_error_too():
    with pytest.raises(RuntimeError, match="cannot be instantiated"):
        Float[np.ndarray, ""]()
    with pytest.raises(AnnotationError):
        Float[np.ndarray, ""]()


def test_no_type_check_on_top_of_another_checker():
    beartype = pytest.importorskip("beartype")

    @typing.no_type_check
    @jaxtyped(typechecker=beartype.beartype)
    def g(x: Float[np.ndarray, "a b"]) -> None:
        pass

    g("not an array")


def test_converter_field_holds_what_init_was_given():
    import dataclasses

    @typechecked
    @dataclasses.dataclass
    class WithConverter:
        a: Float[np.ndarray, ""] = dataclasses.field(metadata={"converter": np.asarray})

        def __init__(self, a: str):
            self.a = float(a)

    WithConverter("1.5")  # converted later (equinox's metaclass); not checked as an array


def test_pytree_names_and_unnamed_path_sizes_at_check_time():
    cb = typing.Callable[[PyTree[int, " T"]], str]
    assert PyTree[None | cb].__name__ == "PyTree[None | Callable[[PyTree[int, 'T']], str]]"
    unnamed = PyTree[Float[np.ndarray, "?foo"]]  # written, as in jaxtyping
    with pytest.raises(AnnotationError, match="except when contained with structured"):
        isinstance([np.zeros(2)], unnamed)


def test_union_under_typeguard_2_is_checked():
    typeguard = pytest.importorskip("typeguard")
    if hasattr(typeguard, "TypeCheckError"):
        pytest.skip("typeguard 2.x is the version jaxtyping's call forms target")

    @jaxtyped(typechecker=typeguard.typechecked)
    def f(x: Float[np.ndarray, ""] | None) -> None:
        pass

    f(None)
    with pytest.raises(TypeCheckError):
        f(np.zeros(2))


# -- cause 6: tensortypes' own checker on equinox's idioms ------------------------------

_FR_MODULE = """
from typing import Callable, ParamSpec, TypeVar
_T = TypeVar("_T", bound="Base")
_P = ParamSpec("_P")

class Base:
    def __new__(cls: "type[_T]", *args, **kwargs) -> "_T":
        return object.__new__(cls)

    def __init__(self, x: int):
        self.x = x

def wrap(fn: Callable[_P, int] | None) -> int:
    return 1

made = Base(1)  # checked while the module is still being imported
"""


def test_own_checker_on_forward_bound_typevars_and_paramspecs(tmp_path, monkeypatch):
    (tmp_path / "frmod_dropin.py").write_text(_FR_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    with install_import_hook("frmod_dropin", None):
        mod = importlib.import_module("frmod_dropin")
    assert mod.made.x == 1 and mod.wrap(len) == 1
    with pytest.raises(TypeCheckError, match="parameter 'x'"):
        mod.Base("not an int")
    with pytest.raises(TypeCheckError):
        mod.wrap(3)


# -- own checker: a parameter holding its default is not checked (as beartype) -------

_NOT_GIVEN = object()


class _State:
    pass


def test_own_checker_does_not_check_an_omitted_sentinel_default():
    @typechecked
    def step(x: int, state: _State = _NOT_GIVEN, k: int = None) -> int:  # type: ignore[assignment]
        return x

    assert step(1) == 1 and step(1, _State(), 2) == 1
    checker = step.__tensortypes_checker__
    assert "state is not " in checker.source and "k is not " in checker.source
    with pytest.raises(TypeCheckError, match="parameter 'state'"):
        step(1, object())
    with pytest.raises(TypeCheckError, match="parameter 'k'"):
        step(1, _State(), "two")


def test_a_default_that_fits_and_cannot_change_costs_no_guard():
    @typechecked
    def f(x: int, k: int = 3, name: str = "a", flag: bool | None = None) -> int:
        return x + k

    assert f(1) == 4
    assert " is not " not in f.__tensortypes_checker__.source


@pytest.mark.parametrize("first", [True, False])
def test_an_omitted_array_default_binds_no_size(first):
    zeros = np.zeros(3)
    if first:

        @typechecked
        def f(
            y: Float[np.ndarray, "n"] = zeros, x: Float[np.ndarray, "n"] | None = None
        ) -> Float[np.ndarray, "n"]:
            return np.ones(4) if x is None else x
    else:

        @typechecked
        def f(
            x: Float[np.ndarray, "n"] | None = None, y: Float[np.ndarray, "n"] = zeros
        ) -> Float[np.ndarray, "n"]:
            return np.ones(4) if x is None else x

    # jaxtyping + beartype: an omitted y is not checked and binds nothing.
    assert f().shape == (4,)
    assert f(x=np.ones(5)).shape == (5,)
    assert f(x=np.ones(3), y=zeros).shape == (3,)  # zeros *is* the default: not checked
    with pytest.raises(TypeCheckError, match="parameter '[xy]'"):  # the later one
        f(x=np.ones(5), y=np.ones(3))
    with pytest.raises(TypeCheckError, match="return value"):
        f(y=np.ones(3))  # a y given (not the default object) binds n = 3


def test_an_omitted_default_in_env_mode_is_not_checked_either():
    threes = [np.zeros(3)]

    @typechecked
    def f(
        x: list[Float[np.ndarray, "n"]],
        state: _State = _NOT_GIVEN,  # type: ignore[assignment]
        y: list[Float[np.ndarray, "n"]] = threes,
    ) -> int:
        return len(x)

    assert f.__tensortypes_checker__.env_mode
    assert f([np.ones(4)]) == 1
    with pytest.raises(TypeCheckError, match="parameter 'state'"):
        f([np.ones(4)], 5)
    with pytest.raises(TypeCheckError, match="parameter 'y'"):
        f([np.ones(4)], _State(), [np.ones(3)])


# -- own checker: a name still undefined at the first call --------------------------

_LATE_MODULE = """
from __future__ import annotations
from tensortypes import TypeCheckError, typechecked

@typechecked
def store(table: dict[str, Item], n: int) -> int:
    return n

early = store({"a": 1}, 2)  # Item is still undefined: table unchecked, n checked
try:
    store({}, "two")
except TypeCheckError:
    n_checked = True

class Item:
    pass

@typechecked
def fit(opt: optax.GradientTransformation, steps: int) -> int:
    return steps
"""


def test_a_name_undefined_at_the_first_call_is_any_until_defined(tmp_path, monkeypatch):
    (tmp_path / "late_dropin.py").write_text(_LATE_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("late_dropin")
    assert mod.early == 2 and mod.n_checked
    # Now that Item exists, table is checked.
    assert mod.store({"a": mod.Item()}, 3) == 3
    with pytest.raises(TypeCheckError, match="parameter 'table'"):
        mod.store({"a": 1}, 2)
    # optax is never imported by the module: opt stays unchecked, steps is checked.
    assert mod.fit(object(), 4) == 4
    assert mod.fit("anything", 5) == 5
    with pytest.raises(TypeCheckError, match="parameter 'steps'"):
        mod.fit(object(), "five")
    # Once the name is defined (late import), the whole signature is checked.
    mod.optax = importlib.import_module("types")
    mod.optax.GradientTransformation = _State  # a class standing for optax's
    assert mod.fit(_State(), 6) == 6
    with pytest.raises(TypeCheckError, match="parameter 'opt'"):
        mod.fit(object(), 6)


def test_an_undefined_name_in_a_return_annotation_is_retried_too():
    namespace: dict = {"typechecked": typechecked}
    exec(
        textwrap.dedent("""
        @typechecked
        def make(x: int) -> "Later":
            return x
    """),
        namespace,
    )
    make = namespace["make"]
    assert make(1) == 1  # unchecked return while Later is undefined
    with pytest.raises(TypeCheckError, match="parameter 'x'"):
        make("one")
    exec("class Later:\n    pass\n", namespace)
    with pytest.raises(TypeCheckError, match="return value"):
        make(1)


# -- own checker: NoReturn and Never --------------------------------------------------


def test_own_checker_reads_noreturn_and_never():
    @typechecked
    def fail(x: int) -> typing.NoReturn:
        raise ValueError(x)

    @typechecked
    def lies(x: int) -> typing.NoReturn:
        return None  # type: ignore[return-value]

    @typechecked
    def unreachable(x: typing.Never, y: int = 0) -> int:  # type: ignore[valid-type]
        return y

    @typechecked
    def call(f: typing.Callable[[str], typing.NoReturn]) -> int:
        return 1

    with pytest.raises(ValueError, match="3"):
        fail(3)
    with pytest.raises(TypeCheckError, match="the return value"):
        lies(1)
    with pytest.raises(TypeCheckError, match="parameter 'x'"):
        unreachable(None)
    assert call(fail) == 1
