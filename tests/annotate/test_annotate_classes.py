"""Annotation classes as objects: interning, pickling, printing and the name format,
jaxtyping's attributes, ``.type`` in the lattice, isinstance alone and in scopes,
``__instancecheck_str__``, and what importing the package loads."""

from __future__ import annotations

import asyncio
import copy
import doctest
import importlib
import pickle
import threading
from typing import Any

import numpy as np
import pytest

import tensortypes.annotate as A
from tensortypes.annotate import (
    AbstractArray,
    Float,
    Float32,
    Int,
    Shaped,
    current,
    get_array_name_format,
    pop,
    push,
    scope,
    set_array_name_format,
)
from tensortypes.core.shapes import DimSpec
from tensortypes.errors import AnnotationError
from tensortypes.tensor import TensorType
from tensortypes.types import ArrayType, UnionType, ann_to_type, is_subtype


def test_annotations_are_interned():
    assert Float[np.ndarray, "b c"] is Float[np.ndarray, "b c"]
    assert Float[np.ndarray, "b  c"] is Float[np.ndarray, "b c"]
    assert Float[np.ndarray, "b c"] is not Float[np.ndarray, "c b"]
    assert Float[np.ndarray, "b c"] is not Float32[np.ndarray, "b c"]
    assert copy.deepcopy(Float[np.ndarray, "b"]) is Float[np.ndarray, "b"]


def test_annotations_pickle_to_themselves(torch, jax):
    for hint in (
        Float[np.ndarray, "b c"],
        Int[torch.Tensor, "*batch n"],
        Float32[jax.Array, ""],
        Shaped[Any, "..."],
        Float[Float32[np.ndarray, "c"], "b"],
        Float[np.ndarray, "{size} n-1"],
    ):
        assert pickle.loads(pickle.dumps(hint)) is hint
    union = Float[np.ndarray | torch.Tensor, "n"]
    assert pickle.loads(pickle.dumps(union)) == union


def test_printing_and_jaxtyping_attributes():
    hint = Float[np.ndarray, "b c"]
    assert str(hint) == hint.__name__ == "Float[ndarray, 'b c']"
    assert repr(hint) == "<class 'Float[ndarray, 'b c']'>"
    assert hint.dtype is Float and hint.dtypes == Float.dtypes
    assert hint.array_type is np.ndarray
    assert hint.dim_str == "b c" and hint.index_variadic is None
    assert hint.dims == (DimSpec("var", "b"), DimSpec("var", "c"))
    assert Float[np.ndarray, "*b c"].index_variadic == 0
    assert repr(AbstractArray).startswith("<class ")


def test_name_format():
    assert get_array_name_format() == "dtype_and_shape"
    set_array_name_format("array")
    try:
        short = Float[np.ndarray, "q r"]
        assert str(short) == "ndarray"
        assert get_array_name_format() == "array"
        assert pickle.loads(pickle.dumps(short)) is short
    finally:
        set_array_name_format("dtype_and_shape")
    long = Float[np.ndarray, "q r"]
    assert str(long) == "Float[ndarray, 'q r']" and long is not short
    with pytest.raises(ValueError, match="array name format"):
        set_array_name_format("shape")


def test_type_is_the_lattice_array_type():
    hint = Float32[np.ndarray, "2 n"]
    t = hint.type
    assert isinstance(t, ArrayType)
    assert t is ArrayType("numpy", "float32", hint.type.shape)
    assert t.is_super(TensorType("float32", (2, 5))) is True
    assert t.is_super(TensorType("float32", (3, 5))) is False
    assert t.is_super(TensorType("float64", (2, 5))) is False
    assert ann_to_type(hint) is t
    assert Float[np.ndarray, "..."].type.shape is None
    assert is_subtype(Float32[np.ndarray, "2 3"].type, Float[np.ndarray, "a b"].type)
    assert isinstance(ann_to_type(Float[np.ndarray, "n"] | None), UnionType)
    assert ann_to_type(Float[float, ""]) is ann_to_type(float)


def test_isinstance_alone_and_in_scopes():
    x = Float[np.ndarray, "n"]
    assert current() is None
    assert isinstance(np.zeros(2), x) and isinstance(np.zeros(3), x)
    with scope() as b:
        assert current() is b
        assert isinstance(np.zeros(2), x)
        assert not isinstance(np.zeros(3), x)  # n=2 from the first check
        assert b.sizes == {"n": 2}
        with scope():  # a nested scope starts fresh
            assert isinstance(np.zeros(3), x)
        assert current() is b and not isinstance(np.zeros(3), x)
    assert current() is None


def test_push_pop_and_exceptions_leave_no_scope_behind():
    bindings, token = push({"size": 3})
    assert current() is bindings and bindings.arguments == {"size": 3}
    pop(token)
    assert current() is None
    with pytest.raises(ZeroDivisionError), scope():
        1 / 0
    assert current() is None
    s = scope()
    with s, pytest.raises(RuntimeError, match="already entered"):
        s.__enter__()


def test_scopes_are_per_thread_and_per_task():
    seen = {}

    def worker():
        seen["thread"] = current()

    with scope():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen["thread"] is None

    async def task(size):
        with scope() as b:
            assert isinstance(np.zeros(size), Float[np.ndarray, "n"])
            await asyncio.sleep(0)
            assert isinstance(np.zeros(size), Float[np.ndarray, "n"])
            return b.sizes["n"]

    async def both():
        return await asyncio.gather(task(2), task(5))

    assert asyncio.run(both()) == [2, 5]


def test_instancecheck_str_gives_the_reason_and_binds_on_success():
    x = Float[np.ndarray, "b c"]
    with scope() as b:
        assert x.__instancecheck_str__(np.zeros((2, 3))) == ""
        assert b.sizes == {"b": 2, "c": 3}
        reason = x.__instancecheck_str__(np.zeros((2, 4)))
        assert reason == (
            "axis 1 has size 4, but c=3 was bound by axis 1 of a value checked with isinstance"
        )
    assert AbstractArray.__instancecheck_str__(np.zeros(1)).endswith(
        "no value is an instance of it"
    )


def test_annotations_cannot_be_instantiated_or_subclassed():
    with pytest.raises(AnnotationError, match="cannot be instantiated"):
        Float[np.ndarray, "n"]()
    with pytest.raises(TypeError, match="not subclassed directly"):

        class Mine(AbstractArray):
            pass

    assert not isinstance(np.zeros(1), AbstractArray)


def test_bindings_describe_where_sizes_came_from():
    with scope() as b:
        b.label = "x"
        isinstance(np.zeros((2, 3, 4)), Float[np.ndarray, "*batch n"])
        assert b.summary() == "*batch=(2, 3) (axes 0-1 of x)\nn=4 (axis 2 of x)"
    assert A.Bindings().summary() == "(no sizes bound)"


def test_importing_annotations_loads_no_array_library(run_python):
    proc = run_python("""
        import sys, numpy as np
        import tensortypes.annotate as A
        assert isinstance(np.zeros((2, 3)), A.Float[np.ndarray, "b c"])
        heavy = sorted(m for m in ("torch", "jax", "jaxlib", "tensorflow", "mlx")
                       if m in sys.modules)
        print(heavy)
    """)
    assert proc.stdout.strip() == "[]"


def test_jax_names_without_jax(run_python):
    proc = run_python("""
        import sys
        sys.modules["jax"] = None
        import tensortypes.annotate as A
        try:
            A.Scalar
        except AttributeError as error:
            print("AttributeError", "needs JAX" in str(error))
        from tensortypes.annotate import Float
        print(Float.__name__)
    """)
    assert proc.stdout.split() == ["AttributeError", "True", "Float"]


def test_static_checkers_read_annotations_as_the_array_type(tmp_path, run_python):
    pytest.importorskip("mypy")
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import numpy as np\n"
        "from tensortypes.annotate import Float32\n"
        "def f(x: Float32[np.ndarray, 'b c']) -> Float32[np.ndarray, 'b']:\n"
        "    return x.sum(axis=1)\n"
        "y: np.ndarray = f(np.zeros((2, 3), np.float32))\n"
    )
    proc = run_python(f"""
        from mypy import api
        out, err, status = api.run(["--ignore-missing-imports", {str(sample)!r}])
        print(status, out)
    """)
    assert proc.stdout.startswith("0 "), proc.stdout


@pytest.mark.parametrize(
    "module",
    ["_scope", "_shape", "_extract", "_interpret", "_match", "_kinds", "_array", "_dtypes"],
)
def test_docstring_examples(module):
    mod = importlib.import_module(f"tensortypes.annotate.{module}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_an_annotation_nothing_uses_is_freed_with_its_generated_source():
    # Each distinct annotation cost ~13 KiB that was never freed: a program building
    # shape strings from data grew without bound.
    import gc
    import linecache
    import weakref

    ann = Float[np.ndarray, "freed_a freed_b 12345"]
    assert Float[np.ndarray, "freed_a freed_b 12345"] is ann  # same class while it lives
    filename = ann._tt_matcher.match.__code__.co_filename
    assert filename in linecache.cache
    ref = weakref.ref(ann)
    del ann
    gc.collect()
    assert ref() is None
    assert filename not in linecache.cache
    assert isinstance(np.zeros((1, 2, 12345)), Float[np.ndarray, "freed_a freed_b 12345"])


def test_a_freed_matchers_source_waits_while_linecache_reads_its_cache():
    # linecache.checkcache indexes the cache by a list of its keys taken before; a
    # matcher freed by a collection inside it must not take an entry away in between
    # (a KeyError in doctest's debugger reset). The entry leaves at the next safe point.
    import linecache

    from tensortypes.annotate import _match

    name = "<tensortypes match test: freed inside linecache>"
    linecache.cache[name] = (2, None, ["x\n"], name)
    _match._USERS[name] = 1
    inside = {"__name__": "linecache", "forget": _match._forget_source, "name": name}
    exec("def checkcache():\n    forget(name)\n", inside)
    inside["checkcache"]()
    assert name in linecache.cache
    Float[np.ndarray, "waits_a waits_b 4321"]  # the next generated matcher: a safe point
    assert name not in linecache.cache
