"""Shared pieces of the fuzz suite: budgets, a hard time guard, input strategies.

Every fuzz test in ``tests/fuzz`` builds on this module, so its names are the suite's
API (see ``docs/fuzzing.md``):

- ``examples(n)``: the number of examples a test runs: ``n`` in an ordinary run, the
  value of ``TENSORTYPES_FUZZ_EXAMPLES`` (split evenly over the fuzz tests, at least
  ``n``) in a long run before a release.
- ``fuzz_settings(n)``: hypothesis settings for one fuzz test: ``examples(n)``
  examples, no per-example deadline (a hang is caught by ``time_guard``; a wall-clock
  deadline fails on a busy machine), no time wasted on health checks about slow data.
- ``time_guard(seconds, what)``: a context manager that interrupts the block with
  ``FuzzTimeout`` (a ``BaseException``, so no ``except Exception`` in the library can
  swallow it) when it runs longer than ``seconds`` of wall time. Use it around each
  call into the library: a hang becomes a failing example with the input named,
  instead of a CI job killed by its own timeout. Main thread only (``SIGALRM``); off
  the main thread, or where there is no ``SIGALRM``, it does nothing.
- ``shape_strings()``: text for the shape argument of an annotation: grammar-built
  shapes, grammar shapes mutated, character soup, injection payloads mutated.
- ``dim_texts()``: text for ``core.dims.parse``: grammar-built expressions and
  mutations of them.
- ``HOSTILE``: the catalogue of hostile values, a list of ``(name, factory)``; each
  factory returns a fresh value. ``hostile_values()`` draws ``(name, value)`` from it.
- ``KNOWN_ISSUES``: inputs that still fail for a reason another change is fixing, as
  ``(substring, reason)``; ``known_issue(text)`` returns the reason or None.

Nothing here imports tensortypes: a fuzz test imports what it targets.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

__all__ = [
    "ENV",
    "FUZZ_TESTS",
    "FuzzTimeout",
    "examples",
    "long_run",
    "fuzz_settings",
    "time_guard",
    "shape_strings",
    "dim_texts",
    "names",
    "HOSTILE",
    "hostile_values",
    "KNOWN_ISSUES",
    "known_issue",
]

# ---------------------------------------------------------------------------- budgets

ENV = "TENSORTYPES_FUZZ_EXAMPLES"
# How many fuzz tests share a long run's total (kept roughly in step with the suite;
# a test with a larger ordinary budget still gets at least that).
FUZZ_TESTS = 8


def long_run() -> int | None:
    """The total number of examples asked for by ``TENSORTYPES_FUZZ_EXAMPLES``, or None."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return None
    try:
        total = int(text.replace("_", ""))
    except ValueError:
        raise ValueError(f"{ENV} must be a whole number of examples, got {text!r}") from None
    return max(total, 1)


def examples(n: int) -> int:
    """Examples for one fuzz test: ``n``, or its share of a long run's total."""
    total = long_run()
    return n if total is None else max(n, -(-total // FUZZ_TESTS))


def fuzz_settings(n: int, deadline_ms: int | None = None) -> settings:
    """Hypothesis settings for a fuzz test of ``n`` ordinary examples.

    No per-example deadline by default: the hard guard against a hang is ``time_guard``
    (which names the input), and a wall-clock deadline only adds failures when the machine
    is busy (tests never assert on time). ``deadline_ms`` sets one for a local
    investigation. The ordinary run is derandomized (the same examples each time); a long
    run is not. Database off: a fuzz run should not depend on what an earlier run on this
    machine found, and a failure prints its example (and a ``@reproduce_failure`` blob)
    anyway.
    """
    # The ordinary run (CI) is derandomized: the same examples every time, so a red CI
    # is a real regression; a long run (TENSORTYPES_FUZZ_EXAMPLES) explores new ones.
    return settings(
        max_examples=examples(n),
        deadline=deadline_ms,
        database=None,
        derandomize=long_run() is None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        print_blob=True,
    )


class FuzzTimeout(BaseException):
    """Raised inside a block that ran past its ``time_guard``."""


@contextlib.contextmanager
def time_guard(seconds: float, what: str = "") -> Iterator[None]:
    """Interrupt the block with ``FuzzTimeout`` after ``seconds`` of wall time.

    >>> with time_guard(1.0, "nothing"):
    ...     pass
    """
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def _alarm(signum: int, frame: Any) -> None:
        # Fire again soon: an exception raised inside a finalizer or __del__ (a garbage
        # collection that ran when the timer expired) is printed and dropped by Python,
        # and the block must still be interrupted.
        signal.setitimer(signal.ITIMER_REAL, 0.25)
        raise FuzzTimeout(f"over {seconds} s: {what}")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --------------------------------------------------------------------- shape strings

_PLAIN_NAMES = ["n", "m", "b", "c", "h", "w", "batch", "dim", "k", "x1", "_n", "N"]
# Names a hostile string might use: keywords, builtins, dunders, the two functions of
# the dims language, and identifiers Python normalises (NFKC) to plain ones.
_ODD_NAMES = [
    "min",
    "max",
    "None",
    "True",
    "lambda",
    "import",
    "__class__",
    "__import__",
    "self",
    "eval",
    "\ufb01",
    "fi",
    "\U0001d427",
    "\u0394",
    "\u00b5",
    "\u212b",
]


def names() -> st.SearchStrategy[str]:
    """Axis names: mostly plain, sometimes odd (keywords, dunders, NFKC-equal pairs)."""
    return st.one_of(st.sampled_from(_PLAIN_NAMES), st.sampled_from(_ODD_NAMES))


def _ints() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(0, 12).map(str),
        st.integers(0, 10**30).map(str),
        st.sampled_from(["00", "007", "1_000", "4" * 40]),
    )


def _expressions(depth: int = 3) -> st.SearchStrategy[str]:
    """Dimension expressions over names and small numbers, with every operator."""
    leaf = st.one_of(names(), _ints())

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binop = st.tuples(
            inner, st.sampled_from(["+", "-", "*", "//", "%", "**", " + ", " * "]), inner
        ).map("".join)
        unary = st.tuples(st.sampled_from(["-", "+", "--"]), inner).map("".join)
        paren = inner.map(lambda e: f"({e})")
        call = st.tuples(
            st.sampled_from(["min", "max"]), st.lists(inner, min_size=1, max_size=4)
        ).map(lambda t: f"{t[0]}({','.join(t[1])})")
        return st.one_of(binop, unary, paren, call)

    return st.recursive(leaf, extend, max_leaves=2**depth)


def _braces() -> st.SearchStrategy[str]:
    path = st.lists(
        st.sampled_from(["k", "self", "size", "__class__", "shape", "n"]), min_size=1, max_size=3
    ).map(".".join)
    return st.tuples(
        st.sampled_from(["", "n", "2*"]), path, st.sampled_from(["", "+1", "-1", "{k}"])
    ).map(lambda t: f"{t[0]}{{{t[1]}}}{t[2]}")


def _token() -> st.SearchStrategy[str]:
    body = st.one_of(names(), _ints(), _expressions(2), st.just("_"), _braces())
    modifiers = st.lists(st.sampled_from(["*", "#", "_", "?"]), max_size=3, unique=True)
    doc = st.one_of(st.just(""), names().map(lambda n: n + "="))
    special = st.sampled_from(["...", "*...", "#...", "_", "*_", "#*b", "*#b"])
    built = st.tuples(modifiers, doc, body).map(lambda t: "".join(t[0]) + t[1] + t[2])
    return st.one_of(built, special)


def _grammar_shapes() -> st.SearchStrategy[str]:
    sep = st.sampled_from([" ", " ", "  ", "\t", " \n "])
    return st.lists(st.tuples(_token(), sep), max_size=6).map(
        lambda parts: "".join(t + s for t, s in parts).strip()
    )


# Characters that break tokenisers: operators, quotes, escapes, NUL, a lone surrogate,
# emoji, combining marks, non-ASCII digits and numerals, odd spaces and line breaks.
_SOUP = list("0123456789nmbc_*#?.=+-/%(),{}[]'\"\\ \t\n:;!@$^&|~`<>") + [
    "\x00",
    "\ud800",
    "\U0001f600",
    "\u0301",
    "\u0663",
    "\u00b2",
    "\u216b",
    "\uff11",
    "\u2028",
    "\u3000",
    "\x0c",
    "\ufb01",
    "\U0001d427",
    "**",
    "//",
    "...",
    "min(",
    "max(",
]

_PAYLOADS = [
    "__import__('os').system('true')",
    "eval('1')",
    "exec('x=1')",
    "lambda: 0",
    "().__class__.__bases__[0].__subclasses__()",
    "n\n__import__('os')",
    "n # comment",
    "n'; x='",
    "f'{n}'",
    "{fn.__globals__}",
    "{__import__}",
    "{x.__class__.__mro__}",
    "globals()",
    "open('/etc/passwd')",
    "n if True else m",
    "[n for n in m]",
]


def _mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply ``(position, kind, char)`` edits: 0 insert, 1 delete, 2 replace, 3 duplicate."""
    chars = list(text)
    for pos, kind, ch in edits:
        i = pos % (len(chars) + 1)
        if kind == 0 or not chars:
            chars.insert(i, ch)
        elif kind == 1:
            del chars[min(i, len(chars) - 1)]
        elif kind == 2:
            chars[min(i, len(chars) - 1)] = ch
        else:
            j = min(i, len(chars) - 1)
            chars[j:j] = chars[j : j + 4]
    return "".join(chars)


def _mutated(base: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    edit = st.tuples(st.integers(0, 200), st.integers(0, 3), st.sampled_from(_SOUP))
    return st.tuples(base, st.lists(edit, min_size=1, max_size=5)).map(lambda t: _mutate(*t))


def _specials() -> st.SearchStrategy[str]:
    """Big inputs, scaled down to what a per-example time budget allows."""
    n = st.integers(1, 60)
    return st.one_of(
        n.map(lambda k: "(" * k + "n" + ")" * k),
        n.map(lambda k: "-" * k + "n"),
        n.map(lambda k: "+".join(f"a{i}" for i in range(k))),
        n.map(lambda k: "max(" + ",".join(f"a{i}" for i in range(k)) + ")"),
        st.integers(1, 6).map(lambda k: "*".join(f"(a{i}+b{i})" for i in range(k))),
        st.integers(1, 8).map(lambda k: "**".join(["2"] * k)),
        st.integers(1, 5000).map(lambda k: "9" * k),
        st.integers(1, 2000).map(lambda k: "n" * k),
    )


def shape_strings() -> st.SearchStrategy[str]:
    """Text for ``Float[np.ndarray, text]``: grammar, mutated grammar, soup, payloads."""
    return st.one_of(
        _grammar_shapes(),
        _mutated(_grammar_shapes()),
        st.lists(st.sampled_from(_SOUP), max_size=12).map("".join),
        st.text(max_size=12),
        _mutated(st.sampled_from(_PAYLOADS)),
        _specials(),
    )


def dim_texts() -> st.SearchStrategy[str]:
    """Text for ``core.dims.parse``: expressions, mutated expressions, soup, specials."""
    return st.one_of(
        _expressions(4),
        _mutated(_expressions(3)),
        st.lists(st.sampled_from(_SOUP), max_size=10).map("".join),
        _specials(),
    )


# ---------------------------------------------------------------------- hostile values


class Boom(RuntimeError):
    """What the hostile values raise (an ordinary exception class of the value's own)."""


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise Boom("boom")


def _prop(get: Callable[[Any], Any]) -> property:
    return property(get)


def _raising_prop() -> property:
    return property(_boom)


def _ndsub(name: str, **attrs: Any) -> Callable[[], Any]:
    """A factory of ``np.zeros((2, 3))`` viewed as an ndarray subclass with ``attrs``."""
    cls = type(name, (np.ndarray,), attrs)
    return lambda: np.zeros((2, 3)).view(cls)


def _lib_class(module: str, name: str, **attrs: Any) -> Callable[[], Any]:
    """A factory of instances of a class that claims to come from ``module``."""
    namespace = {"__module__": module}
    namespace.update(attrs)
    cls = type(name, (), namespace)
    return cls


def _duck(shape: Any = (2, 3), dtype: Any = "float32", **attrs: Any) -> Callable[[], Any]:
    namespace = {"shape": shape, "dtype": dtype}
    namespace.update(attrs)
    return type("Duck", (), namespace)


class _Unhashable:
    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return "float32"


class _HashBoom:
    def __hash__(self) -> int:
        raise Boom("hash")

    def __eq__(self, other: object) -> bool:
        raise Boom("eq")

    def __str__(self) -> str:
        raise Boom("str")


class _StrBoom:
    def __str__(self) -> str:
        raise Boom("str")

    __repr__ = __str__


class _Liar:
    """An object whose ``__class__`` claims to be ``np.ndarray``."""

    @property
    def __class__(self) -> type:  # type: ignore[override]
        return np.ndarray


class _LiarShaped(_Liar):
    shape = (2, 3)
    dtype = np.dtype("float64")


class _GetattrBoom:
    def __getattr__(self, name: str) -> Any:
        raise Boom(name)


class _Everything:
    """Every dunder a checker might call raises."""

    __array__ = _boom
    __len__ = _boom
    __iter__ = _boom
    __eq__ = _boom
    __hash__ = _boom
    __bool__ = _boom
    __str__ = _boom
    __repr__ = _boom
    __format__ = _boom
    shape = _raising_prop()
    dtype = _raising_prop()


def _recursive_list() -> list:
    out: list = []
    out.append(out)
    return out


def _deep_list(depth: int) -> Callable[[], list]:
    def make() -> list:
        out: list = [np.zeros(2)]
        for _ in range(depth):
            out = [out]
        return out

    return make


def _dict_raising_keys() -> dict:
    return {_HashBoomKey(): np.zeros(2)}


class _HashBoomKey:
    def __hash__(self) -> int:
        return 1

    def __eq__(self, other: object) -> bool:
        raise Boom("eq")

    def __repr__(self) -> str:
        raise Boom("repr")


def _readonly() -> np.ndarray:
    a = np.zeros((2, 3))
    a.flags.writeable = False
    return a


def _unaligned() -> np.ndarray:
    return np.frombuffer(bytes(49), dtype=np.float64, offset=1).reshape(2, 3)


def _rank64() -> np.ndarray:
    """64 axes, 2**32 items by zero strides: cheap to hold, ruinous to print."""
    return np.lib.stride_tricks.as_strided(
        np.zeros(1), shape=(2,) * 32 + (1,) * 32, strides=(0,) * 64
    )


def _matrix() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix(np.zeros((2, 3)))


def _generator() -> Iterator[int]:
    return (i for i in range(3))


def _raising_generator_shape(self: Any) -> Iterator[int]:
    return (i for i in (2, 3))


class _DictSub(dict):
    def items(self) -> Any:
        raise Boom("items")

    def keys(self) -> Any:
        raise Boom("keys")

    def __iter__(self) -> Any:
        raise Boom("iter")


class _ListSub(list):
    def __iter__(self) -> Any:
        raise Boom("iter")

    def __len__(self) -> int:
        raise Boom("len")


class _TupleSub(tuple):
    def __iter__(self) -> Any:
        raise Boom("iter")

    def __len__(self) -> int:
        raise Boom("len")


class _IntSub(int):
    def __repr__(self) -> str:
        raise Boom("repr")

    __str__ = __repr__


HOSTILE: list[tuple[str, Callable[[], Any]]] = [
    # --- ordinary NumPy arrays of every dtype, rank and layout (must pass or fail cleanly)
    *[
        (f"ndarray-{dt}", (lambda dt=dt: np.zeros((2, 3), dtype=dt)))
        for dt in [
            "float64",
            "float32",
            "float16",
            "int8",
            "uint64",
            "bool",
            "complex64",
            "object",
            "U3",
            "S3",
            "V8",
            ">f8",
            "datetime64[s]",
            "longdouble",
            "f8,i4",
        ]
    ],
    ("ndarray-rank0", lambda: np.zeros(())),
    ("ndarray-rank64", lambda: _rank64()),
    ("ndarray-0size", lambda: np.zeros((0, 3))),
    ("list-of-rank64", lambda: [_rank64()]),
    ("dict-of-rank64", lambda: {"a": (1, _rank64())}),
    ("ndarray-huge-zero-stride", lambda: np.broadcast_to(np.zeros(1), (2**30, 2**28))),
    ("ndarray-transposed", lambda: np.zeros((3, 2)).T),
    ("ndarray-negative-strides", lambda: np.zeros((2, 3))[::-1, ::-1]),
    ("ndarray-noncontiguous", lambda: np.zeros((4, 6))[::2, ::2]),
    ("ndarray-fortran", lambda: np.zeros((2, 3), order="F")),
    ("ndarray-readonly", _readonly),
    ("ndarray-unaligned", _unaligned),
    ("np.matrix", _matrix),
    ("masked", lambda: np.ma.masked_array(np.zeros((2, 3)), mask=False)),
    ("recarray", lambda: np.zeros(3, dtype=[("a", "f8")]).view(np.recarray)),
    ("np.float32-scalar", lambda: np.float32(1.0)),
    ("np.int64-scalar", lambda: np.int64(3)),
    # --- ndarray subclasses with hostile attributes
    ("sub-plain", _ndsub("Sub")),
    ("sub-shape-raises", _ndsub("S", shape=_raising_prop())),
    ("sub-shape-None", _ndsub("S", shape=_prop(lambda self: None))),
    ("sub-shape-list", _ndsub("S", shape=_prop(lambda self: [2, 3]))),
    ("sub-shape-str", _ndsub("S", shape=_prop(lambda self: "2 3"))),
    ("sub-shape-int", _ndsub("S", shape=_prop(lambda self: 6))),
    ("sub-shape-generator", _ndsub("S", shape=_prop(_raising_generator_shape))),
    ("sub-shape-floats", _ndsub("S", shape=_prop(lambda self: (2.0, 3.0)))),
    ("sub-shape-negative", _ndsub("S", shape=_prop(lambda self: (-2, 3)))),
    ("sub-shape-npints", _ndsub("S", shape=_prop(lambda self: (np.int64(2), np.int8(3))))),
    ("sub-shape-bigint", _ndsub("S", shape=_prop(lambda self: (10**5000, 3)))),
    ("sub-shape-objects", _ndsub("S", shape=_prop(lambda self: (_HashBoom(), 3)))),
    ("sub-shape-unhashable", _ndsub("S", shape=_prop(lambda self: ([2], {3: 3})))),
    ("sub-shape-10000-axes", _ndsub("S", shape=_prop(lambda self: (1,) * 10000))),
    ("sub-dtype-raises", _ndsub("D", dtype=_raising_prop())),
    ("sub-dtype-None", _ndsub("D", dtype=_prop(lambda self: None))),
    ("sub-dtype-str", _ndsub("D", dtype=_prop(lambda self: "float64"))),
    ("sub-dtype-list", _ndsub("D", dtype=_prop(lambda self: ["float64"]))),
    ("sub-dtype-unhashable", _ndsub("D", dtype=_prop(lambda self: _Unhashable()))),
    ("sub-dtype-hash-raises", _ndsub("D", dtype=_prop(lambda self: _HashBoom()))),
    ("sub-repr-raises", _ndsub("R", __repr__=_boom, __str__=_boom)),
    (
        "sub-len-iter-eq-raise",
        _ndsub("R", __len__=_boom, __iter__=_boom, __eq__=_boom, __bool__=_boom),
    ),
    ("sub-array-raises", _ndsub("R", __array__=_boom, __array_function__=_boom)),
    ("sub-getattribute-raises", _ndsub("G", __getattribute__=_boom)),
    # --- objects that pretend to be ndarrays
    ("class-liar", _Liar),
    ("class-liar-shaped", _LiarShaped),
    ("mock-spec-ndarray", lambda: mock.Mock(spec=np.ndarray)),
    ("magicmock-spec-ndarray", lambda: mock.MagicMock(spec=np.ndarray)),
    ("magicmock", mock.MagicMock),
    ("class-ndarray-itself", lambda: np.ndarray),
    # --- classes named like torch / JAX / TensorFlow / MLX arrays
    ("torch-shape-raises", _lib_class("torch", "Tensor", dtype="float32", shape=_raising_prop())),
    (
        "torch-shape-zerodiv",
        _lib_class("torch", "Tensor", dtype="float32", shape=_prop(lambda self: 1 / 0)),
    ),
    ("torch-shape-None", _lib_class("torch", "Tensor", dtype="float32", shape=None)),
    ("torch-shape-int", _lib_class("torch", "Tensor", dtype="float32", shape=6)),
    (
        "torch-shape-generator",
        _lib_class("torch", "Tensor", dtype="float32", shape=_prop(_raising_generator_shape)),
    ),
    ("torch-dtype-raises", _lib_class("torch", "Tensor", shape=(2, 3), dtype=_raising_prop())),
    (
        "torch-dtype-unhashable",
        _lib_class("torch", "Tensor", shape=(2, 3), dtype=_prop(lambda self: _Unhashable())),
    ),
    (
        "torch-dtype-str-raises",
        _lib_class("torch", "Tensor", shape=(2, 3), dtype=_prop(lambda self: _StrBoom())),
    ),
    ("torch-no-attributes", _lib_class("torch", "Tensor")),
    ("torch-getattr-raises", _lib_class("torch", "Tensor", __getattr__=_boom)),
    ("torch-good", _lib_class("torch", "Tensor", shape=(2, 3), dtype="torch.float32")),
    (
        "jax-shape-raises",
        _lib_class("jaxlib.xla_extension", "ArrayImpl", dtype="float32", shape=_raising_prop()),
    ),
    (
        "jax-tracer-dtype-raises",
        _lib_class(
            "jax._src.interpreters", "DynamicJaxprTracer", shape=(2, 3), dtype=_raising_prop()
        ),
    ),
    (
        "tf-shape-raises",
        _lib_class("tensorflow.python", "Tensor", dtype="float32", shape=_raising_prop()),
    ),
    (
        "mlx-shape-list-of-objects",
        _lib_class("mlx.core", "array", dtype="float32", shape=_prop(lambda self: [object()])),
    ),
    # --- duck arrays
    ("duck-good", _duck()),
    ("duck-list-shape", _duck(shape=[2, 3])),
    ("duck-None-shape", _duck(shape=None)),
    ("duck-int-shape", _duck(shape=6)),
    ("duck-str-shape", _duck(shape="2 3")),
    ("duck-dict-shape", _duck(shape={2: 3})),
    ("duck-float-sizes", _duck(shape=(2.0, 3.0))),
    ("duck-negative-sizes", _duck(shape=(-2, 3))),
    ("duck-shape-raises", _duck(shape=_raising_prop())),
    ("duck-dtype-raises", _duck(dtype=_raising_prop())),
    ("duck-dtype-None", _duck(dtype=None)),
    ("duck-getattr-raises", _GetattrBoom),
    ("duck-10000-axes", _duck(shape=(1,) * 10000)),
    ("everything-raises", _Everything),
    # --- plain Python values
    ("None", lambda: None),
    ("int", lambda: 3),
    ("int-10**5000", lambda: 10**5000),
    ("int-sub-repr-raises", lambda: _IntSub(3)),
    ("bool", lambda: True),
    ("float-nan", lambda: float("nan")),
    ("float-inf", lambda: float("inf")),
    ("str", lambda: "2 3"),
    ("bytes", lambda: b"\x00\xff"),
    ("list-of-arrays", lambda: [np.zeros(2), np.zeros(3)]),
    ("list-of-ints", lambda: [1, 2, 3]),
    ("tuple", lambda: (np.zeros(2), 1)),
    ("dict", lambda: {"a": np.zeros(2)}),
    ("dict-int-keys", lambda: {1: np.zeros(2)}),
    ("dict-key-eq-raises", _dict_raising_keys),
    ("dict-sub-items-raise", lambda: _DictSub(a=np.zeros(2))),
    ("list-sub-iter-raises", lambda: _ListSub([np.zeros(2)])),
    ("tuple-sub-iter-raises", lambda: _TupleSub((np.zeros(2),))),
    ("recursive-list", _recursive_list),
    ("deep-list-5000", _deep_list(5000)),
    ("generator", _generator),
    ("str-raises", _StrBoom),
    ("hash-eq-str-raise", _HashBoom),
    ("object", object),
    ("class-int", lambda: int),
    ("function", lambda: lambda: 0),
]


def hostile_values() -> st.SearchStrategy[tuple[str, Any]]:
    """``(name, fresh value)`` drawn from ``HOSTILE``."""
    return st.sampled_from(HOSTILE).map(lambda entry: (entry[0], entry[1]()))


# ----------------------------------------------------------------------- known issues

# Inputs whose failure another change is fixing, each with the reason: a fuzz test
# calls ``known_issue(text)`` before failing and records a note instead (see
# docs/fuzzing.md). Keep this list empty when nothing is pending.
KNOWN_ISSUES: list[tuple[str, str]] = []


def known_issue(text: str) -> str | None:
    """The reason ``text`` is a known, pending failure, or None."""
    for fragment, reason in KNOWN_ISSUES:
        if fragment in text:
            return reason
    return None
