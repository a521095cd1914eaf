"""Compiled functions: every bad input is a ``TypeCheckError``; a ``Function`` pickles.

The bad inputs are those of a reliability probe of compiled graphs: values whose
own code raises (``__array__``, ``.shape``, ``.dtype``, ``__float__``,
``__str__``), values that lie about their class, ndarray subclasses with their
own semantics. Whatever they do, ``Function.__call__`` refuses them with a
``TypeCheckError`` whose message can be printed, or computes what the same plain
ndarray gives, in both modes.
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

import tensortypes
from tensortypes._config import config
from tensortypes.errors import TypeCheckError
from tensortypes.link.c import default_compiler
from tensortypes.tensor import dmatrix, dvector, shared, tensor
from tensortypes.tensor.elemwise import exp

MODES = [
    "py",
    pytest.param(
        "c",
        marks=pytest.mark.skipif(
            default_compiler() is None, reason="no C compiler found ($CC, gcc, clang or cc)"
        ),
    ),
]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory):
    old = config.cache_dir
    config.cache_dir = str(tmp_path_factory.getbasetemp() / "function-hostile-cache")
    yield
    config.cache_dir = old


class BadStr:
    def __array__(self, dtype=None, copy=None):
        raise ValueError("no")

    def __repr__(self):
        raise RuntimeError("repr boom")

    __str__ = __repr__


class RaisingArray:
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("array boom")


class CustomError(Exception):
    def __str__(self):
        raise RuntimeError("str of the error boom")


class RaisingCustom:
    def __array__(self, dtype=None, copy=None):
        raise CustomError()


class ListArray:
    def __array__(self, dtype=None, copy=None):
        return [1.0, 2.0]


class Liar:
    @property
    def __class__(self):
        return np.ndarray


class BadFloat:
    def __float__(self):
        raise RuntimeError("float boom")


class BadLen:
    def __len__(self):
        raise RuntimeError("len boom")

    def __getitem__(self, i):
        raise RuntimeError("getitem boom")


def _subclass(attr):
    def boom(self):
        raise RuntimeError(f"{attr} boom")

    return type(f"Bad_{attr}", (np.ndarray,), {attr: property(boom)})


HOSTILE = {
    "raising __array__ and __str__": lambda: BadStr(),
    "raising __array__": lambda: RaisingArray(),
    "an error whose __str__ raises": lambda: RaisingCustom(),
    "__array__ returning a list": lambda: ListArray(),
    "a __class__ liar": lambda: Liar(),
    "raising __float__": lambda: BadFloat(),
    "raising __len__": lambda: BadLen(),
    "Mock(spec=ndarray)": lambda: mock.Mock(spec=np.ndarray),
    "masked array": lambda: np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]),
    "10**5000": lambda: 10**5000,
    "a generator": lambda: (i for i in range(3)),
    "None": lambda: None,
    "a str": lambda: "abc",
    "a ragged list": lambda: [[1.0], [1.0, 2.0]],
    "an object array": lambda: np.array([object()] * 3),
}


def _graphs():
    x = tensor("float64", ("n",), name="x")
    m = dmatrix("m")
    return {
        "fused": ([x], exp(x) * 2.0 - x),
        "identity": ([x], x),
        "sum": ([m], m.sum(axis=0)),
        "matrix": ([m], m * 2.0 + m),
    }


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("graph", ["fused", "identity", "sum", "matrix"])
def test_every_hostile_input_is_a_type_check_error(mode, graph):
    inputs, output = _graphs()[graph]
    f = tensortypes.function(inputs, output, mode=mode)
    escaped = {}
    for name, make in HOSTILE.items():
        try:
            f(make())
        except TypeCheckError as exc:
            text = str(exc)  # the message builder never raises...
            assert text.startswith("input 0 (") and "boom" not in text.split(":")[0], text
        except BaseException as exc:  # noqa: BLE001 - what we are counting
            escaped[name] = f"{type(exc).__name__}: {exc!r}"[:120]
        else:
            escaped[name] = "accepted"
    assert not escaped, escaped


@pytest.mark.parametrize("mode", MODES)
def test_the_message_names_what_the_value_raised(mode):
    x = tensor("float64", ("n",), name="x")
    f = tensortypes.function([x], x * 2.0, mode=mode)
    with pytest.raises(TypeCheckError, match=r"input 0 \(x\).*RuntimeError: array boom"):
        f(RaisingArray())
    with pytest.raises(TypeCheckError, match=r"CustomError: <its message could not be read>"):
        f(RaisingCustom())
    with pytest.raises(TypeCheckError, match="masked array.*ignore its mask"):
        f(np.ma.masked_array([1.0, 2.0]))
    with pytest.raises(TypeCheckError) as info:
        f(BadStr())
    assert "BadStr" in str(info.value)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("mode", MODES)
def test_ndarray_subclasses_are_read_as_plain_arrays(mode):
    m = dmatrix("m")
    total = tensortypes.function([m], m.sum(axis=0), mode=mode)
    doubled = tensortypes.function([m, dmatrix("n")], m * 2.0, mode=mode)
    mat = np.matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out = total(mat)  # before: np.matrix.sum's own signature raised TypeError
    assert type(out) is np.ndarray and out.tolist() == [5.0, 7.0, 9.0]
    res = doubled(mat, mat)
    assert type(res) is np.ndarray and res.tolist() == (np.asarray(mat) * 2).tolist()
    x = tensor("float64", ("n",), name="x")
    one_d = tensortypes.function([x], exp(x) * 2.0 - x, mode=mode)
    plain = np.arange(3.0)
    for attr in ("shape", "dtype", "ndim", "flags", "strides"):
        # The data, never the raising property (before: the property's RuntimeError).
        odd = np.arange(6.0).reshape(2, 3).view(_subclass(attr))
        assert total(odd).tolist() == [3.0, 5.0, 7.0]
        np.testing.assert_array_equal(one_d(plain.view(_subclass(attr))), one_d(plain))
        with pytest.raises(TypeCheckError, match="input 0 \\(x\\).*expected 1 axis, got 2"):
            one_d(odd)  # and the rank is checked on the data too


# -- pickling ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("protocol", sorted({2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL}))
def test_a_function_pickles_with_its_graph_and_mode(mode, protocol):
    x = tensor("float64", ("n",), name="x")
    y = tensor("float64", ("n",), name="y")
    w = shared(np.array([1.0, 2.0, 3.0]), name="w")
    f = tensortypes.function([x, y], [exp(x) * y + w, (x * y).sum()], mode=mode)
    g = pickle.loads(pickle.dumps(f, protocol=protocol))  # before: PicklingError
    assert g.mode == mode and len(g.inputs) == 2 and [v.name for v in g.inputs] == ["x", "y"]
    a, b = np.array([0.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    for got, want in zip(g(a, b), f(a, b)):
        np.testing.assert_allclose(got, want)
    with pytest.raises(TypeCheckError, match="input 1 \\(y\\)"):
        g(a, np.zeros(4))  # the symbol n still binds across inputs
    single = tensortypes.function([y], y * 2.0, mode=mode, rewrite=False)
    again = pickle.loads(pickle.dumps(single, protocol=protocol))
    assert isinstance(again(b), np.ndarray) and again(b).tolist() == [2.0, 4.0, 6.0]
    assert copy.copy(single) is single
    assert copy.deepcopy(single)(b).tolist() == [2.0, 4.0, 6.0]


UNPICKLE = textwrap.dedent("""
    import pickle, sys
    import numpy as np
    from tensortypes._config import config
    config.cache_dir = sys.argv[1]
    from tensortypes.link.c import ModuleCache
    f = pickle.loads(open(sys.argv[2], "rb").read())
    print(f(np.array([1.0, 2.0])).tolist(), f.mode, ModuleCache.default().stats["compiled"],
          ModuleCache.default().stats["loaded"])
""")


@pytest.mark.skipif(default_compiler() is None, reason="no C compiler found")
def test_a_pickled_c_function_is_loaded_from_the_cache_in_a_new_process(tmp_path):
    config.cache_dir = str(tmp_path / "cache")
    y = dvector("y")
    f = tensortypes.function([y], exp(y) * 0.0 + y * 3.0, mode="c")
    path = tmp_path / "f.pkl"
    path.write_bytes(pickle.dumps(f))
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", UNPICKLE, config.cache_dir, str(path)],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["[3.0,", "6.0]", "c", "0", "1"]  # loaded, not compiled


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.skipif(default_compiler() is None, reason="no C compiler found")
def test_the_raw_c_entry_reads_subclasses_as_plain_arrays():
    from tensortypes.graph import FunctionGraph
    from tensortypes.link.c import CLinker

    m = dmatrix("m")
    # sum runs through perform inside the module: it must see a plain ndarray too.
    f = CLinker().make_function(FunctionGraph([m], [m.sum(axis=0), m * 2.0]))
    mat = np.matrix([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    total, doubled = f([mat])  # before: TypeError from np.matrix.sum's signature
    assert type(total) is np.ndarray and total.tolist() == [5.0, 7.0, 9.0]
    assert type(doubled) is np.ndarray and doubled.tolist() == (np.asarray(mat) * 2).tolist()


def test_a_list_nested_deeper_than_the_rank_is_refused_before_conversion():
    # A list holding a broadcast array of 2**32 items: refused by its nesting, never
    # copied whole (before: np.asarray materialised it).
    huge = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(2,) * 32, strides=(0,) * 32)
    x = tensor("float64", ("n",), name="x")
    f = tensortypes.function([x], x * 2.0, mode="py")
    with pytest.raises(
        TypeCheckError,
        match=r"input 0 \(x\).*expected 1 axis, got a list "
        r"nested at least 33 deep",
    ):
        f([huge])
    with pytest.raises(TypeCheckError, match="expected 1 axis"):
        f([[1.0]])
    assert f([1.0, 2.0]).tolist() == [2.0, 4.0]
