"""Differential test of the jaxtyping drop-in: the same annotations, checkers and values
run on real jaxtyping and on tensortypes imported as ``jaxtyping``; print every difference.

    python scripts/jaxtyping_differential.py [--python PY] [--quick] [--select PREFIX,...]
        [--brief] [--allow FILE] [--keep DIR]

The interpreter (``--python``, default this one) needs jaxtyping, tensortypes, numpy,
torch, jax, beartype and typeguard 2.13.3; it must not be the project's test
environment (jaxtyping never goes there). Each side runs in a subprocess of its own
(``--side jaxtyping`` / ``--side tensortypes``), which imports only its own library
under the name ``jaxtyping``, builds the same generated grid of cases and prints one
JSON record per outcome:

- a *case* is an annotation (an array kind, a dtype class and a shape string, or a
  wrapper around one: ``| None``, ``Union``, ``list[...]``, ``PyTree[...]``, ...)
  placed in a context (a parameter, a return annotation, two parameters sharing
  sizes, a dataclass field, a method, a decorated class, postponed annotations);
- each case is built (the annotation evaluated), then decorated with each checker:
  ``jaxtyped(typechecker=beartype.beartype)``, ``jaxtyped(typechecker=typeguard.typechecked)``
  and, on the tensortypes side, its own ``typechecked``;
- each decorated function is called with values made for the array kind: right
  dtype and shape, wrong dtype, wrong shape, inconsistent sizes across two
  parameters, other libraries' arrays, NumPy scalars, Python scalars, ``None``,
  strings, containers, and JAX tracers under ``jax.jit`` for JAX arrays.

Outcomes are ``ok`` or the class name of the exception raised. tensortypes' own
checker is compared with jaxtyping + beartype (the reference a jaxtyping user
has); the record also shows what jaxtyping + typeguard did. Prints the counts per
category and every difference, each with a minimal reproduction; exits 1 when any
difference is found that ``--allow`` (a file of difference keys, one a line, ``#``
comments) does not list.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------
# The grid (identical on both sides: plain data, no library imported)
# ---------------------------------------------------------------------------

KINDS = {
    "np": "np.ndarray",
    "torch": "torch.Tensor",
    "jax": "jax.Array",
    "jtArray": "Array",
    "Any": "typing.Any",
    "ArrayLike": "ArrayLike",
}
DTYPES = [
    "Float",
    "Int",
    "Shaped",
    "Bool",
    "Key",
    "Float32",
    "Float64",
    "UInt8",
    "Int32",
    "Num",
    "Inexact",
    "Integer",
    "Complex",
    "BFloat16",
    "Real",
    "UInt",
    "Int8",
    "Float16",
    "Complex64",
]
SHAPES = [
    "",
    "n",
    "3",
    "n m",
    "n n",
    "*b n",
    "*b",
    "... n",
    "...",
    "#n",
    "#n m",
    "_",
    "_ n",
    "*_",
    "*",
    "n=3",
    "?n",
    "n-1",
    "{n}",
    "*#b n",
    " n",
]
# Shapes (tuples) the values come in; each annotation's shape string matches some.
VALUE_SHAPES = [(), (1,), (3,), (4,), (2, 3), (3, 3), (3, 4, 5), (2, 1, 3)]
VALUE_DTYPES = ["float32", "float64", "float16", "int32", "int8", "uint8", "bool", "complex64"]


def array_expr(lib: str, dtype: str, shape: tuple[int, ...]) -> str:
    if lib == "np":
        return f"np.zeros({shape!r}, np.{dtype if dtype != 'bool' else 'bool_'})"
    if lib == "torch":
        return f"torch.zeros({shape!r}, dtype=torch.{dtype})"
    return f"jnp.zeros({shape!r}, jnp.{dtype if dtype != 'bool' else 'bool_'})"


def lib_of(kind: str) -> str:
    return {"np": "np", "torch": "torch", "jax": "jax", "jtArray": "jax"}.get(kind, "np")


SCALARS = ["1", "1.0", "True", "np.float32(1.0)", "np.int64(1)", "None", "'s'", "[1.0, 2.0, 3.0]"]


def base_values(kind: str, full: bool) -> list[str]:
    """Values for an annotation of array kind ``kind``."""
    lib = lib_of(kind)
    vals = []
    shapes = VALUE_SHAPES if full else [(), (3,), (2, 3)]
    for shape in shapes:
        vals.append(array_expr(lib, "float32", shape))
    dtypes = VALUE_DTYPES if full else ["float64", "int32", "bool"]
    for dt in dtypes:
        if dt != "float32":
            vals.append(array_expr(lib, dt, (3,)))
    other = {"np": "torch", "torch": "jax", "jax": "np"}[lib]
    vals.append(array_expr(other, "float32", (3,)))
    if kind in ("Any", "ArrayLike"):
        vals.append(array_expr("torch" if kind == "Any" else "jax", "float32", (2, 3)))
    if lib == "jax" or kind == "ArrayLike":
        vals += ["jax.random.key(0)", "jax.random.PRNGKey(0)"]
    if full:
        vals += SCALARS
        vals += {
            "np": [
                "np.ma.masked_array(np.zeros((3,), np.float32))",
                "np.zeros((0,), np.float32)",
                "np.zeros((3,), [('a', 'f4')])",
                "np.array(['a', 'b', 'c'])",
                "np.zeros((3,), 'datetime64[s]')",
                "np.zeros((3,), object)",
            ],
            "torch": [
                "torch.zeros((3,), dtype=torch.bfloat16)",
                "torch.zeros((0,))",
                "torch.zeros((3,), device='meta')",
                "torch.nn.Parameter(torch.zeros((3,)))",
            ],
            "jax": [
                "jnp.zeros((3,), jnp.bfloat16)",
                "jnp.zeros((0,))",
                "jax.ShapeDtypeStruct((3,), jnp.float32)",
            ],
        }[lib]
    else:
        vals += ["1.0", "np.float32(1.0)", "None", "'s'"]
    return vals


# Wrappers: (name, annotation template with {A}, value transforms with {v}).
WRAPPERS = [
    ("bare", "{A}", ["{v}"]),
    ("|None", "{A} | None", ["{v}"]),
    ("|int", "{A} | int", ["{v}"]),
    ("|float", "{A} | float", ["{v}"]),
    ("Union", "typing.Union[{A}, int]", ["{v}"]),
    ("Optional", "typing.Optional[{A}]", ["{v}"]),
    ("nested-union", "typing.Union[{A} | None, str, typing.Union[int, {A}]]", ["{v}"]),
    ("list", "list[{A}]", ["[{v}, {v}]", "[]", "{v}"]),
    ("List", "typing.List[{A}]", ["[{v}, {v}]"]),
    ("tuple", "tuple[{A}, {A}]", ["({v}, {v})", "({v},)"]),
    ("tuple...", "tuple[{A}, ...]", ["({v}, {v})", "()"]),
    ("dict", "dict[str, {A}]", ["{{'a': {v}}}", "{{}}"]),
    ("PyTree", "PyTree[{A}]", ["{v}", "[{v}, {v}]", "{{'a': {v}, 'b': ({v},)}}"]),
    ("PyTreeT", 'PyTree[{A}, "T"]', ["{v}", "[{v}, {v}]"]),
    ("union-of-two", "typing.Union[{A}, list[{A}]]", ["{v}", "[{v}]"]),
    ("Optional|list", "list[{A}] | None", ["[{v}]", "None"]),
    ("Annotated", "typing.Annotated[{A}, 'meta']", ["{v}"]),
    ("Sequence", "typing.Sequence[{A}]", ["[{v}]", "({v},)"]),
    ("Tuple-int", "typing.Tuple[{A}, int]", ["({v}, 1)", "(1, {v})"]),
    ("PyTree-T...", 'PyTree[{A}, "T ..."]', ["{v}", "[{v}, {v}]"]),
    ("PyTree-...T", 'PyTree[{A}, "... T"]', ["{v}", "[{v}, {v}]"]),
    ("two-arrays", "{A} | Int[np.ndarray, 'n m']", ["{v}", "np.zeros((2, 3), np.int64)"]),
]
# Non-array annotations and PyTree forms checked with the same machinery.
PLAIN_ANNOTATIONS = [
    "PyTree",
    "PyTree | None",
    "PyTree[int]",
    "PyTree[int | str]",
    "PyTree[int, 'T']",
    "typing.Any",
    "int | None",
    "ArrayLike",
    "ArrayLike | None",
    "Scalar",
    "ScalarLike",
    "DTypeLike",
    "PRNGKeyArray",
    "Int[ArrayLike, '']",
    "Float[ArrayLike, '*b']",
    "Shaped[ArrayLike, 'n'] | None",
    "Bool[np.ndarray, '*shape'] | bool",
    "Float[np.ndarray | torch.Tensor, 'n']",
    "Float[typing.Union[np.ndarray, torch.Tensor], 'n']",
    "Float[np.float32, '']",
    "Float[np.generic, '']",
    "Float[np.number, '']",
    "Float[float, '']",
    "Int[int, '']",
    "Float[Float[np.ndarray, 'n'], '']",
    "Float[Shaped[np.ndarray, '3'], 'n']",
    "Key[Array, '']",
    "Key[jax.Array, 'n']",
    "UInt32[Array, '2']",
]
PLAIN_VALUES = [
    "1",
    "1.0",
    "True",
    "'s'",
    "None",
    "[1, 2]",
    "{'a': 1, 'b': [2, 'x']}",
    "(1, 2.0)",
    "np.float32(1.0)",
    "np.int64(1)",
    "np.zeros((3,), np.float32)",
    "np.zeros((), np.float64)",
    "np.zeros((3,), np.int32)",
    "np.zeros((3,), np.bool_)",
    "torch.zeros((3,))",
    "jnp.zeros((3,))",
    "jnp.zeros((2,), jnp.uint32)",
    "jax.random.key(0)",
    "jax.random.key(0)[None]",
    "jax.random.PRNGKey(0)",
    "np.dtype('float32')",
    "jnp.float32",
    "object()",
]

# Contexts: (name, source template, call template). In the source, CHECK is the
# checker's decorator and ANN the annotation's source; the source defines
# ``target``; in the call, {v} is the value.
CONTEXTS = [
    ("param", "@CHECK\ndef target(x: ANN):\n    return x\n", "target({v})"),
    ("return", "@CHECK\ndef target(x) -> ANN:\n    return x\n", "target({v})"),
    ("param+return", "@CHECK\ndef target(x: ANN) -> ANN:\n    return x\n", "target({v})"),
    ("two-params", "@CHECK\ndef target(x: ANN, y: ANN):\n    return x\n", "target({v}, {w})"),
    ("default-None", "@CHECK\ndef target(x: ANN = None):\n    return x\n", "target({v})"),
    ("kwonly", "@CHECK\ndef target(*, x: ANN):\n    return x\n", "target(x={v})"),
    ("varargs", "@CHECK\ndef target(*xs: ANN):\n    return xs\n", "target({v}, {v})"),
    (
        "dataclass",
        "@CHECK\n@dataclasses.dataclass\nclass target:\n    x: ANN\n",
        "target({v})",
    ),
    (
        "method",
        "class C:\n    @CHECK\n    def m(self, x: ANN) -> ANN:\n        return x\ntarget = C().m\n",
        "target({v})",
    ),
    (
        "staticmethod",
        "class C:\n    @staticmethod\n    @CHECK\n    def m(x: ANN):\n        return x\n"
        "target = C.m\n",
        "target({v})",
    ),
    (
        "class",
        "@CHECK\nclass C:\n    def m(self, x: ANN):\n        return x\ntarget = C().m\n",
        "target({v})",
    ),
    (
        "postponed",
        "from __future__ import annotations\n@CHECK\ndef target(x: ANN) -> ANN:\n    return x\n",
        "target({v})",
    ),
    ("jit", "@CHECK\ndef target(x: ANN):\n    return x\n", "jax.jit(target)({v})"),
    (
        "return-binds",
        "@CHECK\ndef target(x: ANN, y) -> ANN:\n    return y\n",
        "target({v}, {w})",
    ),
    (
        "isinstance",
        "@CHECK\ndef target(x: ANN, y):\n    return isinstance(y, ANN)\n",
        "target({v}, {w})",
    ),
    ("isinstance-unscoped", "def target(x):\n    return isinstance(x, ANN)\n", "target({v})"),
    (
        "nested",
        "@CHECK\ndef inner(x: ANN):\n    return x\n@CHECK\ndef target(x: ANN, y):\n"
        "    return inner(y)\n",
        "target({v}, {w})",
    ),
]


# Signatures of their own, for each array kind KIND (np.ndarray, torch.Tensor, jax.Array):
# (name, source, calls); in the calls, {a3} is a float32 array of shape (3,) of KIND's
# library, {a4} of shape (4,), {a2} (2,), {a23} (2, 3), {a32} (3, 2), {a33} (3, 3),
# {a123} (1, 2, 3), {a223} (2, 2, 3), {i3} an int32 array of shape (3,).
SPECIAL = [
    (
        "symbolic-return",
        "@CHECK\ndef target(x: Float[KIND, 'n'], y) -> Float[KIND, 'n-1']:\n    return y\n",
        ["target({a3}, {a2})", "target({a3}, {a3})", "target({a4}, {a2})"],
    ),
    (
        "product-return",
        "@CHECK\ndef target(x: Float[KIND, 'n'], y) -> Float[KIND, '2*n']:\n    return y\n",
        ["target({a2}, {a4})", "target({a3}, {a4})"],
    ),
    (
        "braces-argument",
        "@CHECK\ndef target(x: Float[KIND, '{n}'], n: int):\n    return x\n",
        ["target({a3}, 3)", "target({a3}, 4)"],
    ),
    (
        "braces-attribute",
        "class C:\n    dim = 3\n    @CHECK\n    def m(self, x: Float[KIND, '{self.dim}']):\n"
        "        return x\ntarget = C().m\n",
        ["target({a3})", "target({a4})"],
    ),
    (
        "transpose",
        "@CHECK\ndef target(x: Float[KIND, 'n m'], y: Float[KIND, 'm n']):\n    return x\n",
        ["target({a23}, {a32})", "target({a23}, {a23})", "target({a33}, {a33})"],
    ),
    (
        "batch",
        "@CHECK\ndef target(x: Float[KIND, '*b n'], y: Float[KIND, '*b n']):\n    return x\n",
        ["target({a23}, {a23})", "target({a123}, {a23})", "target({a223}, {a123})"],
    ),
    (
        "broadcast-batch",
        "@CHECK\ndef target(x: Float[KIND, '#*b n'], y: Float[KIND, '#*b n']):\n    return x\n",
        ["target({a223}, {a123})", "target({a23}, {a33})", "target({a3}, {a223})"],
    ),
    (
        "tree-path",
        "@CHECK\ndef target(x: PyTree[Float[KIND, '?n'], 'T'], y: PyTree[Float[KIND, '?n'], 'T']):\n"
        "    return x\n",
        ["target(({a2}, {a3}), ({a2}, {a3}))", "target(({a2}, {a3}), ({a3}, {a3}))"],
    ),
    (
        "structure",
        "@CHECK\ndef target(x: PyTree[Float[KIND, 'n'], 'T'], y: PyTree[Float[KIND, 'n'], 'T']):\n"
        "    return x\n",
        ["target(({a3}, {a3}), ({a3}, {a3}))", "target(({a3}, {a3}), [{a3}, {a3}])"],
    ),
    (
        "composite",
        "@CHECK\ndef target(x: PyTree[int, 'T'], y: PyTree[int, 'S'], z: PyTree[int, 'S T']):\n"
        "    return x\n",
        ["target((1, 2), {{'k': 3}}, {{'k': (4, 5)}})", "target((1, 2), {{'k': 3}}, {{'k': 4}})"],
    ),
    (
        "tuple-return",
        "@CHECK\ndef target(x: Float[KIND, 'n'], y) -> tuple[Float[KIND, 'n'], int]:\n"
        "    return (y, 1)\n",
        ["target({a3}, {a3})", "target({a3}, {a4})"],
    ),
    (
        "kwargs",
        "@CHECK\ndef target(**kw: Float[KIND, 'n']):\n    return kw\n",
        ["target(a={a3}, b={a3})", "target(a={a3}, b=1.0)"],
    ),
    (
        "array-default",
        "@CHECK\ndef target(x: Float[KIND, 'n'], y: Float[KIND, 'n'] = None):\n    return x\n",
        ["target({a3})", "target({a3}, {a4})"],
    ),
    (
        "int-dtype-pair",
        "@CHECK\ndef target(x: Float[KIND, 'n'], i: Int[KIND, 'n']) -> Float[KIND, 'n']:\n    return x\n",
        ["target({a3}, {i3})", "target({a3}, {a3})", "target({a4}, {i3})"],
    ),
]


# Whole sources of their own, NumPy only: (name, source, calls). z3 and z4 are float32
# arrays of shapes (3,) and (4,), i3 an int32 array of shape (3,).
_Z = "z3 = np.zeros((3,), np.float32)\nz4 = np.zeros((4,), np.float32)\ni3 = np.zeros((3,), np.int32)\n"
MISC = [
    (
        "generator",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n']) -> typing.Iterator[Float[np.ndarray, 'n']]:\n"
        "    yield x\n",
        ["list(target(z3))", "list(target(1.0))"],
    ),
    (
        "body-raises",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n'], e):\n    raise e\n",
        [
            "target(z3, ValueError('body'))",
            "target(z3, TypeError('body'))",
            "target(z3, KeyError(1))",
        ],
    ),
    (
        "recursion",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n'], k: int) -> Float[np.ndarray, 'n']:\n"
        "    if k:\n        target(np.zeros((len(x) + 1,), np.float32), k - 1)\n    return x\n",
        ["target(z3, 2)", "target(z3, 0)"],
    ),
    (
        "classmethod",
        "class C:\n    @classmethod\n    @CHECK\n    def m(cls, x: Float[np.ndarray, 'n']):\n"
        "        return x\ntarget = C.m\n",
        ["target(z3)", "target(i3)"],
    ),
    (
        "property",
        "class C:\n    def __init__(self, v):\n        self.v = v\n    @property\n    @CHECK\n"
        "    def p(self) -> Float[np.ndarray, 'n']:\n        return self.v\n"
        "def target(v):\n    return C(v).p\n",
        ["target(z3)", "target(i3)"],
    ),
    (
        "init",
        "class C:\n    @CHECK\n    def __init__(self, x: Float[np.ndarray, 'n'], y: Float[np.ndarray, 'n']):\n"
        "        self.x = x\ntarget = C\n",
        ["target(z3, z3)", "target(z3, z4)", "target(i3, i3)"],
    ),
    (
        "local-forward-ref",
        "def make():\n    @CHECK\n    def f(x: 'Later') -> int:\n        return 1\n"
        "    class Later:\n        pass\n    return f, Later\ntarget, Later = make()\n",
        ["target(Later())", "target(1)"],
    ),
    (
        "typevar",
        "T = typing.TypeVar('T')\n@CHECK\ndef target(x: T, y: T) -> T:\n    return x\n",
        ["target(1, 2)", "target(1, 's')"],
    ),
    (
        "typevar-bound",
        "T = typing.TypeVar('T', bound=Float[np.ndarray, 'n'])\n@CHECK\n"
        "def target(x: T) -> T:\n    return x\n",
        ["target(z3)", "target(i3)", "target(1)"],
    ),
    (
        "callable",
        "@CHECK\ndef target(f: typing.Callable[[Float[np.ndarray, 'n']], int]):\n    return f\n",
        ["target(len)", "target(1)"],
    ),
    (
        "literal",
        "@CHECK\ndef target(x: typing.Literal['a', 'b'], y: Float[np.ndarray, 'n']):\n    return y\n",
        ["target('a', z3)", "target('c', z3)", "target('a', i3)"],
    ),
    (
        "namedtuple",
        "class NT(typing.NamedTuple):\n    a: Float[np.ndarray, 'n']\n"
        "@CHECK\ndef target(x: NT):\n    return x\n",
        ["target(NT(z3))", "target((z3,))", "target(NT(1))"],
    ),
    (
        "typeddict",
        "class TD(typing.TypedDict):\n    a: Float[np.ndarray, 'n']\n"
        "@CHECK\ndef target(x: TD):\n    return x\n",
        ["target({'a': z3})", "target({'a': 1})", "target({})"],
    ),
    (
        "type",
        "@CHECK\ndef target(x: type[np.ndarray]):\n    return x\n",
        ["target(np.ndarray)", "target(int)", "target(z3)"],
    ),
    (
        "vmap",
        "@CHECK\ndef target(x: Float[jax.Array, 'n']) -> Float[jax.Array, 'n']:\n    return x\n",
        ["jax.vmap(target)(jnp.zeros((2, 3)))", "jax.vmap(target)(jnp.zeros((2, 3), jnp.int32))"],
    ),
    (
        "dataclass-optional",
        "@CHECK\n@dataclasses.dataclass\nclass target:\n    x: Float[np.ndarray, 'n']\n"
        "    y: Float[np.ndarray, 'n'] | None = None\n",
        ["target(z3)", "target(z3, z4)", "target(z3, z3)", "target(z3, 1)"],
    ),
    (
        "dataclass-classvar-initvar",
        "@CHECK\n@dataclasses.dataclass\nclass target:\n    x: Float[np.ndarray, 'n']\n"
        "    c: typing.ClassVar[int] = 1\n    i: dataclasses.InitVar[int] = 0\n"
        "    def __post_init__(self, i):\n        pass\n",
        ["target(z3)", "target(z3, 2)", "target(z3, 'not an int')", "target(i3)"],
    ),
    (
        "dataclass-frozen",
        "@CHECK\n@dataclasses.dataclass(frozen=True)\nclass target:\n"
        "    x: Float[np.ndarray, 'n']\n    y: Float[np.ndarray, 'n']\n",
        ["target(z3, z3)", "target(z3, z4)"],
    ),
    (
        "dataclass-factory",
        "@CHECK\n@dataclasses.dataclass\nclass target:\n"
        "    x: list[Float[np.ndarray, 'n']] = dataclasses.field(default_factory=list)\n",
        ["target()", "target([z3])", "target([1])"],
    ),
    (
        "async",
        "@CHECK\nasync def target(x: Float[np.ndarray, 'n']) -> Float[np.ndarray, 'n']:\n"
        "    return x\n",
        ["asyncio.run(target(z3))", "asyncio.run(target(i3))"],
    ),
    (
        "varargs-sizes",
        "@CHECK\ndef target(*xs: Float[np.ndarray, 'n']):\n    return xs\n",
        ["target(z3, z3)", "target(z3, z4)"],
    ),
    (
        "positional-only",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n'], /, y: Float[np.ndarray, 'n']):\n"
        "    return x\n",
        ["target(z3, z3)", "target(z3, y=z4)"],
    ),
    (
        "numpy-typing",
        "@CHECK\ndef target(x: npt.NDArray[np.float32], y: np.ndarray):\n    return x\n",
        ["target(z3, z3)", "target(i3, z3)", "target(1, z3)"],
    ),
    (
        "numpy-typing-arraylike",
        "@CHECK\ndef target(x: npt.ArrayLike) -> npt.ArrayLike:\n    return x\n",
        ["target(z3)", "target(1)", "target(object())"],
    ),
    (
        "union-rollback",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n 3'] | Float[np.ndarray, '3 n'], "
        "y: Float[np.ndarray, 'n']):\n    return x\n",
        [
            "target(np.zeros((4, 3), np.float32), z4)",
            "target(np.zeros((3, 4), np.float32), z4)",
            "target(np.zeros((3, 4), np.float32), z3)",
            "target(np.zeros((3, 3), np.float32), z3)",
            "target(np.zeros((3, 3), np.float32), z4)",
        ],
    ),
    (
        "keyword-order",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n'], y: Float[np.ndarray, 'n m']):\n"
        "    return x\n",
        [
            "target(y=np.zeros((3, 2), np.float32), x=z3)",
            "target(y=np.zeros((4, 2), np.float32), x=z3)",
        ],
    ),
    (
        "optional-pytree",
        "@CHECK\ndef target(x: typing.Optional[PyTree[Float[np.ndarray, 'n'], 'T']], "
        "y: PyTree[Float[np.ndarray, 'n'], 'T']):\n    return x\n",
        ["target(None, [z3])", "target([z3], [z3])", "target([z3], (z3,))", "target([z3], [z4])"],
    ),
    (
        "pytree-keys",
        "@CHECK\ndef target(x: PyTree[Float[np.ndarray, 'n']]):\n    return x\n",
        [
            "target({1: z3, (2, 3): [z3]})",
            "target({'a': [z3, (z3, None)]})",
            "target({'a': [z3, 1]})",
        ],
    ),
    (
        "equinox-module",
        "import equinox as eqx\nclass M(eqx.Module):\n    w: Float[jax.Array, 'n m']\n"
        "    b: Float[jax.Array, 'm']\ntarget = CHECK(M)\n",
        [
            "target(jnp.zeros((2, 3)), jnp.zeros(3))",
            "target(jnp.zeros((2, 3)), jnp.zeros(4))",
            "target(jnp.zeros((2, 3)), 1.0)",
        ],
    ),
    (
        "equinox-filter-jit",
        "import equinox as eqx\n@eqx.filter_jit\n@CHECK\n"
        "def target(x: Float[jax.Array, 'n'], y: Float[jax.Array, 'n']) -> Float[jax.Array, 'n']:\n"
        "    return x + y\n",
        [
            "target(jnp.zeros(3), jnp.zeros(3))",
            "target(jnp.zeros(3), jnp.zeros(4))",
            "target(jnp.zeros(3, jnp.int32), jnp.zeros(3))",
        ],
    ),
    (
        "vmap-two",
        "@CHECK\ndef target(x: Float[jax.Array, 'n'], y: Float[jax.Array, 'n']):\n    return x\n",
        [
            "jax.vmap(target)(jnp.zeros((2, 3)), jnp.zeros((2, 3)))",
            "jax.vmap(target)(jnp.zeros((2, 3)), jnp.zeros((2, 4)))",
            "jax.vmap(target, in_axes=(0, None))(jnp.zeros((2, 3)), jnp.zeros(3))",
        ],
    ),
    (
        "scope-only",
        "@jaxtyping.jaxtyped(typechecker=None)\ndef target(x, y):\n"
        "    return isinstance(x, Float[np.ndarray, 'n']) and isinstance(y, Float[np.ndarray, 'n'])\n",
        ["target(z3, z3)", "target(z3, z4)", "target(z3, i3)"],
    ),
    (
        "pytree-namedtuple",
        "class P(typing.NamedTuple):\n    a: typing.Any\n    b: typing.Any\n"
        "@CHECK\ndef target(x: PyTree[Float[np.ndarray, 'n'], 'T'], y: PyTree[Float[np.ndarray, 'n'], 'T']):\n"
        "    return x\n",
        [
            "target(P(z3, z3), P(z3, z3))",
            "target(P(z3, z3), (z3, z3))",
            "target(P(z3, 1), P(z3, z3))",
        ],
    ),
    (
        "pytree-equinox-leaves",
        "import equinox as eqx\nclass M(eqx.Module):\n    w: typing.Any\n"
        "@CHECK\ndef target(x: PyTree[Float[jax.Array, 'n']]):\n    return x\n",
        [
            "target(M(jnp.zeros(3)))",
            "target(M(jnp.zeros(3, jnp.int32)))",
            "target([M(jnp.zeros(3)), M(jnp.zeros(4))])",
        ],
    ),
    (
        "pytree-leaf-union",
        "@CHECK\ndef target(x: PyTree[Float[np.ndarray, 'n'] | int]):\n    return x\n",
        ["target([z3, 1])", "target([z3, 'a'])", "target([z3, z4])", "target({'a': (1, 2)})"],
    ),
    (
        "pytree-of-list",
        "@CHECK\ndef target(x: PyTree[list[int]]):\n    return x\n",
        ["target([1, 2])", "target({'a': [1, 2]})", "target({'a': [1, 'b']})", "target(3)"],
    ),
    (
        "array-in-list-sizes",
        "@CHECK\ndef target(x: list[Float[np.ndarray, 'n']], y: Float[np.ndarray, 'n']):\n    return x\n",
        ["target([z3, z3], z3)", "target([z3], z4)"],
    ),
    (
        "return-none",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n']) -> None:\n    return x\n",
        ["target(z3)"],
    ),
    (
        "return-noreturn",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n']) -> typing.NoReturn:\n    raise ValueError\n",
        ["target(z3)", "target(i3)"],
    ),
    (
        "nested-returns",
        "@CHECK\ndef target(x: Float[np.ndarray, 'n']) -> dict[str, Float[np.ndarray, 'n']]:\n"
        "    return {'a': x, 'b': np.zeros((len(x) + 1,), np.float32)}\n",
        ["target(z3)"],
    ),
]


@dataclass
class Case:
    id: str
    category: str  # for the counts: the wrapper or context
    kind: str
    ann: str
    source: str  # with CHECK in place of the decorator
    calls: list[str] = field(default_factory=list)
    build: bool = True  # whether ``ann`` is an expression to build on its own


def contextual(ctx: str, ann: str) -> tuple[str, str]:
    for name, src, call in CONTEXTS:
        if name == ctx:
            return src.replace("ANN", ann), call
    raise KeyError(ctx)


def shape_fits_two(shape: str) -> bool:
    return shape in ("n", "n m", "*b n", "#n", "?n", "")


def cases(quick: bool, select: str | None) -> Iterator[Case]:
    """The grid's cases whose id starts with one of the comma-separated ``select``."""
    prefixes = tuple(select.split(",")) if select else ("",)
    return (case for case in generate(quick) if case.id.startswith(prefixes))


def generate(quick: bool) -> Iterator[Case]:
    """The grid, in a fixed order (identical on both sides)."""
    shapes = SHAPES if not quick else ["", "n", "3", "*b n", "...", "#n", "n=3", "*"]
    dtypes = DTYPES if not quick else ["Float", "Int", "Shaped", "Key", "Float32", "UInt8"]
    # 1. Every kind x dtype x shape, bare, as a parameter, with the full set of values.
    for kind, kind_src in KINDS.items():
        for dt in dtypes:
            for shape in shapes:
                ann = f"{dt}[{kind_src}, {shape!r}]"
                src, call = contextual("param", ann)
                vals = base_values(kind, full=True)
                yield Case(
                    f"grid/{kind}/{dt}/{shape!r}",
                    "grid",
                    kind,
                    ann,
                    src,
                    [call.format(v=v) for v in vals],
                )
    # 2. Wrappers around a sample of annotations.
    w_dtypes = ["Float", "Int", "Shaped"] if not quick else ["Float"]
    w_shapes = ["", "n", "3", "*b n", "#n"] if not quick else ["n", ""]
    for kind, kind_src in KINDS.items():
        for dt in w_dtypes:
            for shape in w_shapes:
                inner = f"{dt}[{kind_src}, {shape!r}]"
                vals = base_values(kind, full=False)
                for wname, wtpl, transforms in WRAPPERS[1:]:
                    ann = wtpl.format(A=inner)
                    src, call = contextual("param", ann)
                    calls = [call.format(v=t.format(v=v)) for t in transforms for v in vals]
                    yield Case(f"wrap/{wname}/{kind}/{inner}", wname, kind, ann, src, calls)
    # 3. Contexts around a smaller sample (bare and | None).
    c_shapes = ["n", "", "*b n"] if not quick else ["n"]
    for kind, kind_src in KINDS.items():
        for shape in c_shapes:
            for wtpl in ("{A}", "{A} | None"):
                ann = wtpl.format(A=f"Float[{kind_src}, {shape!r}]")
                vals = base_values(kind, full=False)
                for ctx, _src, _call in CONTEXTS[1:]:
                    if ctx == "jit" and lib_of(kind) != "jax":
                        continue
                    src, call = contextual(ctx, ann)
                    if "{w}" in call:
                        pairs = [(v, v) for v in vals]
                        lib = lib_of(kind)
                        if shape_fits_two(shape):
                            pairs += [
                                (
                                    array_expr(lib, "float32", (3,)),
                                    array_expr(lib, "float32", (4,)),
                                ),
                                (
                                    array_expr(lib, "float32", (2, 3)),
                                    array_expr(lib, "float32", (3, 3)),
                                ),
                                (
                                    array_expr(lib, "float32", (2, 3)),
                                    array_expr(lib, "float32", (2, 4)),
                                ),
                                (
                                    array_expr(lib, "float32", (3,)),
                                    array_expr(lib, "float32", (1,)),
                                ),
                            ]
                        calls = [call.format(v=v, w=w) for v, w in pairs]
                    else:
                        calls = [call.format(v=v) for v in vals]
                    yield Case(f"ctx/{ctx}/{kind}/{ann}", ctx, kind, ann, src, calls)
    # 4. Signatures of their own, per array kind.
    for lib, kind_src in (("np", "np.ndarray"), ("torch", "torch.Tensor"), ("jax", "jax.Array")):
        arrays = {
            "a3": (3,),
            "a4": (4,),
            "a2": (2,),
            "a23": (2, 3),
            "a32": (3, 2),
            "a33": (3, 3),
            "a123": (1, 2, 3),
            "a223": (2, 2, 3),
        }
        fill = {k: array_expr(lib, "float32", shape) for k, shape in arrays.items()}
        fill["i3"] = array_expr(lib, "int32", (3,))
        for name, src, calls in SPECIAL:
            source = src.replace("KIND", kind_src)
            yield Case(
                f"special/{name}/{lib}",
                name,
                lib,
                source.splitlines()[1 if source.startswith("@") else 0],
                source,
                [c.format(**fill) for c in calls],
                build=False,
            )
    # 5. Whole sources of their own.
    for name, src, calls in MISC:
        yield Case(f"misc/{name}", name, "np", name, _Z + src, calls, build=False)
    # 6. Plain annotations (PyTree forms, ArrayLike, scalars, odd array kinds).
    for ann in PLAIN_ANNOTATIONS:
        src, call = contextual("param", ann)
        yield Case(f"plain/{ann}", "plain", "-", ann, src, [call.format(v=v) for v in PLAIN_VALUES])
        src, call = contextual("return", ann)
        yield Case(
            f"plain-return/{ann}", "plain", "-", ann, src, [call.format(v=v) for v in PLAIN_VALUES]
        )


# ---------------------------------------------------------------------------
# One side
# ---------------------------------------------------------------------------

CHECKERS = {
    "beartype": "jaxtyping.jaxtyped(typechecker=beartype.beartype)",
    "typeguard": "jaxtyping.jaxtyped(typechecker=typeguard.typechecked)",
    "own": "jaxtyping.typechecked",  # tensortypes only
}


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout


def outcome(exc: BaseException | None) -> str:
    if exc is None:
        return "ok"
    if isinstance(exc, _Timeout):
        return "timeout"
    return type(exc).__name__


def detail(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__module__}.{type(exc).__name__}: {text[0][:160] if text else ''}"


def fresh_module(base_ns: dict) -> dict:
    """A new module ``dp_case`` (in sys.modules, as a real module's code runs) holding the names."""
    mod = types.ModuleType("dp_case")
    mod.__dict__.update(base_ns)
    sys.modules["dp_case"] = mod
    return mod.__dict__


def run_side(side: str, quick: bool, select: str | None) -> None:
    warnings.simplefilter("ignore")
    import asyncio
    import dataclasses
    import typing

    import beartype
    import jax
    import jax.numpy as jnp
    import numpy as np
    import numpy.typing as npt
    import torch
    import typeguard

    jax.config.update("jax_platforms", "cpu")
    if side == "tensortypes":
        import tensortypes as jaxtyping
    else:
        import jaxtyping  # type: ignore[no-redef]

    base_ns = {
        "np": np,
        "npt": npt,
        "asyncio": asyncio,
        "torch": torch,
        "jax": jax,
        "jnp": jnp,
        "typing": typing,
        "dataclasses": dataclasses,
        "beartype": beartype,
        "typeguard": typeguard,
        "jaxtyping": jaxtyping,
    }
    # jaxtyping gives its JAX names (Array, ArrayLike, ...) from a module __getattr__.
    jax_names = [
        "PyTree",
        "Array",
        "ArrayLike",
        "DTypeLike",
        "Scalar",
        "ScalarLike",
        "PRNGKeyArray",
    ]
    for name in [*dir(jaxtyping), *jax_names]:
        if not name.startswith("_") and name[0].isupper():
            base_ns.setdefault(name, getattr(jaxtyping, name))
    checkers = dict(CHECKERS)
    if side != "tensortypes":
        del checkers["own"]
    signal.signal(signal.SIGALRM, _alarm)
    out = sys.stdout
    for case in cases(quick, select):
        rec = {"case": case.id}
        ns = fresh_module(base_ns)
        try:
            signal.alarm(10)
            if case.build:
                eval(case.ann, ns)
            build, why = "ok", ""
        except BaseException as e:  # noqa: BLE001
            build, why = outcome(e), detail(e)
        finally:
            signal.alarm(0)
        out.write(json.dumps({**rec, "stage": "build", "out": build, "why": why}) + "\n")
        if build != "ok" and "postponed" not in case.id:
            continue
        for cname, cexpr in checkers.items():
            ns = fresh_module(base_ns)
            try:
                signal.alarm(10)
                ns["CHECK"] = eval(cexpr, ns)
                exec(compile(case.source, "<case>", "exec"), ns)
                dec, why = "ok", ""
            except BaseException as e:  # noqa: BLE001
                dec, why = outcome(e), detail(e)
            finally:
                signal.alarm(0)
            out.write(
                json.dumps({**rec, "checker": cname, "stage": "decorate", "out": dec, "why": why})
                + "\n"
            )
            if dec != "ok":
                continue
            for i, call in enumerate(case.calls):
                try:
                    signal.alarm(10)
                    got = eval(call, ns)
                    res, why = ("ok" if not isinstance(got, bool) else f"ok:{got}"), ""
                except BaseException as e:  # noqa: BLE001
                    res, why = outcome(e), detail(e)
                finally:
                    signal.alarm(0)
                out.write(
                    json.dumps(
                        {**rec, "checker": cname, "stage": f"call{i}", "out": res, "why": why}
                    )
                    + "\n"
                )
    out.flush()


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def load(path: str) -> dict[tuple[str, str, str], dict]:
    recs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            recs[(r["case"], r.get("checker", ""), r["stage"])] = r
    return recs


def kind_of_difference(ref: str, ours: str, stage: str) -> str:
    """A first classification; the reasons are read from the reproduction."""
    if stage == "build":
        return "annotation refused" if ours != "ok" else "annotation jaxtyping refuses"
    if stage == "decorate":
        return "decoration fails" if ours != "ok" else "decoration jaxtyping refuses"
    if ours.startswith("ok:") and ref.startswith("ok:"):
        return "isinstance answers differ"
    if ours.startswith("ok"):
        return "accepted, jaxtyping rejects"
    if ref.startswith("ok"):
        return "rejected, jaxtyping accepts"
    return "other exception class"


def reproduction(case: Case, checker: str, stage: str) -> str:
    deco = CHECKERS[checker]
    if stage == "build":
        return f"{case.ann}"
    src = case.source.replace("CHECK", deco)
    if stage == "decorate":
        return src
    return src + case.calls[int(stage[4:])]


def compare(
    quick: bool, select: str | None, real: str, ours: str, brief: bool, allow: set[str]
) -> tuple[int, dict]:
    ref = load(real)
    mine = load(ours)
    by_id = {c.id: c for c in cases(quick, select)}
    counts: collections.Counter[str] = collections.Counter()
    diffs = []
    pairs = [("beartype", "beartype"), ("typeguard", "typeguard"), ("own", "beartype")]
    for cid, case in by_id.items():
        b_ref = ref.get((cid, "", "build"))
        b_me = mine.get((cid, "", "build"))
        assert b_ref and b_me, cid
        counts["annotations"] += 1
        if b_ref["out"] != b_me["out"]:
            diffs.append((case, "-", "build", b_ref, b_me, None))
        for mine_ck, ref_ck in pairs:
            for stage in ["decorate"] + [f"call{i}" for i in range(len(case.calls))]:
                r = ref.get((cid, ref_ck, stage))
                m = mine.get((cid, mine_ck, stage))
                if r is None and m is None:
                    continue
                if r is None or m is None:
                    continue  # the decoration (or the build) differed: reported once there
                counts[f"{mine_ck}:{'decorations' if stage == 'decorate' else 'calls'}"] += 1
                counts[f"cat:{case.category}"] += 1
                r_out, m_out = r["out"], m["out"]
                if r_out != m_out:
                    tg = ref.get((cid, "typeguard", stage)) if mine_ck == "own" else None
                    diffs.append((case, mine_ck, stage, r, m, tg))
    groups: dict[tuple, list] = collections.defaultdict(list)
    for d in diffs:
        case, ck, stage, r, m, tg = d
        key = (ck, case.category, kind_of_difference(r["out"], m["out"], stage), r["out"], m["out"])
        groups[key].append(d)
    print("== compared")
    for k, v in sorted(counts.items()):
        print(f"  {k}: {v}")
    print(f"== {len(diffs)} differences in {len(groups)} groups")
    unexplained = 0
    for key in sorted(groups):
        items = groups[key]
        ck, cat, what, r_out, m_out = key
        label = f"{ck} | {cat} | {what} | jaxtyping {r_out} / tensortypes {m_out}"
        allowed = label in allow
        unexplained += 0 if allowed else len(items)
        print(f"\n-- {label}: {len(items)}{' (allowed)' if allowed else ''}")
        items.sort(key=lambda d: len(reproduction(d[0], d[1] if d[1] != "-" else "beartype", d[2])))
        case, ck2, stage, r, m, tg = items[0]
        print("   reproduction:")
        for line in reproduction(case, ck2 if ck2 != "-" else "beartype", stage).splitlines():
            print("     " + line)
        if r.get("why"):
            print("   jaxtyping:   " + r["why"])
        if m.get("why"):
            print("   tensortypes: " + m["why"])
        if tg is not None:
            print(f"   (jaxtyping + typeguard: {tg['out']})")
        if not brief:
            for case, _ck, stage, _r, _m, _tg in items:
                what_called = case.calls[int(stage[4:])] if stage.startswith("call") else stage
                print(f"   {case.ann}  ::  {what_called.replace(chr(10), ' ')}")
    return unexplained, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--side", choices=("jaxtyping", "tensortypes"))
    parser.add_argument("--quick", action="store_true", help="a smaller grid")
    parser.add_argument(
        "--select", default=None, help="only the cases whose id starts so (comma-separated)"
    )
    parser.add_argument("--brief", action="store_true", help="one reproduction a group only")
    parser.add_argument("--allow", default=None, help="file of allowed difference groups")
    parser.add_argument("--keep", default=None, help="directory for the two record files")
    args = parser.parse_args(argv)
    if args.side:
        run_side(args.side, args.quick, args.select)
        return 0
    work = args.keep or tempfile.mkdtemp(prefix="tt-jaxtyping-diff-")
    os.makedirs(work, exist_ok=True)
    procs = {}
    here = os.path.abspath(__file__)
    for side in ("jaxtyping", "tensortypes"):
        cmd = [args.python, here, "--side", side] + (["--quick"] if args.quick else [])
        cmd += ["--select", args.select] if args.select else []
        with open(os.path.join(work, side + ".jsonl"), "w") as outf:
            procs[side] = subprocess.Popen(
                cmd, stdout=outf, env={**os.environ, "JAX_PLATFORMS": "cpu"}
            )
    for side, p in procs.items():
        if p.wait() != 0:
            print(f"== the {side} side failed (exit {p.returncode})", file=sys.stderr)
            return 2
    allow: set[str] = set()
    if args.allow:
        with open(args.allow, encoding="utf-8") as f:
            allow = {line.split("#")[0].strip() for line in f} - {""}
    unexplained, _ = compare(
        args.quick,
        args.select,
        os.path.join(work, "jaxtyping.jsonl"),
        os.path.join(work, "tensortypes.jsonl"),
        args.brief,
        allow,
    )
    print(f"\n== records in {work}; {unexplained} differences not allowed")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
