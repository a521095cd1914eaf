"""Fuzz: the static checker on generated and mutated sources.

``tensortypes check`` reads code nobody vetted, so ``check_source`` must answer any
text with diagnostics: never an exception, never a hang, never an ``internal``
error (the checker's own safety net, which would mean a bug here), and every
diagnostic well formed (a known code, a line inside the text, a message).

Inputs:

- programs built from a grammar of the code the checker models: NumPy/PyTorch
  calls with random arguments, annotated functions whose shape strings come from
  ``_fuzz.shape_strings()``, classes with ``__init__`` and attributes, control flow,
  narrowing, comprehensions, deep and long expressions;
- real programs (the checker's data corpus and the shipped examples) mutated: lines
  deleted, duplicated, swapped or cut, characters inserted from a hostile soup
  (surrogates, NUL, BOM, tabs, brackets);
- the inputs of the reliability probe that once crashed or hung the checker, and
  short texts of at most 200 characters, each under the same time guard.

Run longer with ``TENSORTYPES_FUZZ_EXAMPLES`` (see ``docs/fuzzing.md``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _fuzz import fuzz_settings, known_issue, names, shape_strings, time_guard
from tensortypes.check import CODES, check_source

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

_GUARD = 10.0  # seconds per source: real files of this size check in well under one
_SHORT_GUARD = 2.0  # seconds for a text of at most 200 characters

_REPO = Path(__file__).resolve().parents[2]
_CORPUS = sorted((_REPO / "tests" / "check" / "data").glob("*.py")) + sorted(
    (_REPO / "examples").glob("*.py")
)


def _check(text: str, guard: float = _GUARD, strict: bool = False) -> list:
    """``check_source(text)`` under the time guard, and the properties every answer has."""
    reason = known_issue(text)
    with time_guard(guard if reason is None else 30 * guard, f"checking {text[:300]!r}"):
        found = check_source(text, "fuzz.py", strict=strict)
    assert isinstance(found, list)
    lines = max(1, text.count("\n") + 1)
    for d in found:
        assert d.code in CODES, d
        assert d.code != "internal" or reason is not None, (
            f"internal error of the checker on {text[:2000]!r}:\n{d.to_text()}"
        )
        assert 1 <= d.line <= lines + 1 and d.col >= 1, (d, lines)
        assert d.message.strip(), d
    return found


# -------------------------------------------------------------------- generated programs

_ARRAY_KINDS = ["np.ndarray", "torch.Tensor", "jax.Array"]
_DTYPES = ["Float", "Float32", "Int", "Int64", "Bool", "Shaped", "Float16", "UInt8"]
_CREATE = [
    "np.zeros",
    "np.ones",
    "np.empty",
    "torch.zeros",
    "torch.ones",
    "torch.randn",
    "torch.rand",
    "jnp.zeros",
    "np.arange",
    "torch.arange",
    "np.eye",
]
_FUNCS = [
    "np.concatenate",
    "np.stack",
    "torch.cat",
    "torch.stack",
    "np.matmul",
    "torch.matmul",
    "torch.einsum",
    "np.where",
    "torch.where",
    "F.softmax",
    "F.linear",
    "F.conv2d",
    "F.pad",
    "F.cross_entropy",
    "F.mse_loss",
    "torch.bmm",
    "np.reshape",
    "np.transpose",
    "np.sum",
    "np.mean",
    "torch.max",
    "np.maximum",
    "len",
    "isinstance",
    "range",
    "zip",
    "enumerate",
    "max",
    "min",
    "int",
    "float",
    "print",
    "setattr",
    "getattr",
    "object.__setattr__",
    "reveal_type",
    "helper",
    "Model",
    "Box",
    "tuple",
    "list",
    "sorted",
    "sum",
]
_METHODS = [
    "reshape",
    "view",
    "transpose",
    "permute",
    "sum",
    "mean",
    "max",
    "unsqueeze",
    "squeeze",
    "flatten",
    "expand",
    "repeat",
    "T",
    "shape",
    "dtype",
    "size",
    "float",
    "to",
    "contiguous",
    "detach",
    "numpy",
    "item",
    "tolist",
    "masked_fill",
    "matmul",
    "backward",
    "grad",
    "append",
    "pop",
    "index_select",
    "gather",
    "split",
    "chunk",
    "astype",
    "copy",
    "argmax",
    "softmax",
    "clamp",
    "new_zeros",
    "type_as",
    "ndim",
]
_LAYERS = [
    "nn.Linear",
    "nn.Conv2d",
    "nn.LayerNorm",
    "nn.Embedding",
    "nn.LSTM",
    "nn.MultiheadAttention",
    "nn.BatchNorm1d",
    "nn.Dropout",
    "nn.Sequential",
    "nn.ModuleList",
    "nn.ReLU",
    "nn.CrossEntropyLoss",
]
_OPS = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "<<"]
_CMPS = ["==", "!=", "<", ">=", "is", "is not", "in", "not in"]

_HEADER = (
    "import numpy as np\nimport torch\nimport jax.numpy as jnp\n"
    "import torch.nn.functional as F\nfrom torch import nn\n"
    "from typing import Optional, List, Tuple, Union\n"
    "from jaxtyping import Float, Float32, Int, Int64, Bool, Shaped, Float16, UInt8\n"
)


def _ints() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(-3, 70).map(str),
        st.sampled_from(
            [
                "-1",
                "0",
                "2**40",
                "10**30",
                "n",
                "d",
                "k",
                "b",
                "x.shape[0]",
                "x.shape[-1]",
                "len(xs)",
                "True",
                "None",
                "1.5",
                "'a'",
            ]
        ),
    )


def _atoms() -> st.SearchStrategy[str]:
    return st.one_of(
        names(),
        st.sampled_from(
            ["x", "y", "w", "self.fc", "self.p", "xs", "xs[0]", "a.grad", "None", "..."]
        ),
        _ints(),
    )


def _expressions(depth: int) -> st.SearchStrategy[str]:
    if depth <= 0:
        return _atoms()
    sub = _expressions(depth - 1)
    args = st.lists(
        st.one_of(
            sub,
            st.tuples(sub, sub).map(lambda t: f"({t[0]}, {t[1]})"),
            st.tuples(
                st.sampled_from(["dim", "axis", "keepdim", "dtype", "size", "out", "reduction"]),
                sub,
            ).map(lambda t: f"{t[0]}={t[1]}"),
        ),
        max_size=4,
    )
    return st.one_of(
        sub,
        st.tuples(st.sampled_from(_CREATE + _FUNCS), args).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.tuples(sub, st.sampled_from(_METHODS), args, st.booleans()).map(
            lambda t: f"{t[0]}.{t[1]}({', '.join(t[2])})" if t[3] else f"{t[0]}.{t[1]}"
        ),
        st.tuples(sub, st.sampled_from(_OPS), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(sub, st.sampled_from(_CMPS), sub).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(
            sub,
            st.lists(
                st.sampled_from(
                    [":", "0", "-1", "None", "...", "1:", ":-k", "idx", "mask", "::2", "0.5"]
                ),
                min_size=1,
                max_size=4,
            ),
        ).map(lambda t: f"{t[0]}[{', '.join(t[1])}]"),
        st.tuples(sub, sub, sub).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(st.sampled_from(["not ", "-", "~"]), sub).map(lambda t: t[0] + t[1]),
        st.tuples(sub, names(), sub).map(lambda t: f"[{t[0]} for {t[1]} in {t[2]}]"),
        st.tuples(sub, sub).map(lambda t: f"isinstance({t[0]}, np.ndarray) or {t[1]}"),
        st.tuples(st.sampled_from(_LAYERS), args).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
    )


def _annotation() -> st.SearchStrategy[str]:
    array = st.tuples(st.sampled_from(_DTYPES), st.sampled_from(_ARRAY_KINDS), shape_strings())
    return st.one_of(
        array.map(lambda t: f"{t[0]}[{t[1]}, {t[2]!r}]"),
        array.map(lambda t: f"Optional[{t[0]}[{t[1]}, {t[2]!r}]]"),
        array.map(lambda t: repr(f"{t[0]}[{t[1]}, {t[2]!r}]")),  # a string annotation
        st.sampled_from(
            [
                "int",
                "float",
                "str",
                "bool",
                "None",
                "List[int]",
                "Tuple[int, ...]",
                "Optional[int]",
                "Union[int, str]",
                "tuple",
                "'Model'",
                "Box",
                "torch.Tensor",
                "np.ndarray",
                "List[torch.Tensor]",
            ]
        ),
    )


def _statements(depth: int) -> st.SearchStrategy[list]:
    expr = _expressions(2)
    simple = st.one_of(
        st.tuples(names(), expr).map(lambda t: f"{t[0]} = {t[1]}"),
        st.tuples(st.sampled_from(["x", "y", "self.p", "a.grad", "xs[0]", "self.fc"]), expr).map(
            lambda t: f"{t[0]} = {t[1]}"
        ),
        st.tuples(names(), _annotation(), expr).map(lambda t: f"{t[0]}: {t[1]} = {t[2]}"),
        st.tuples(names(), st.sampled_from(["+=", "-=", "*=", "@=", "//="]), expr).map(
            lambda t: f"{t[0]} {t[1]} {t[2]}"
        ),
        expr,
        expr.map(lambda e: f"return {e}"),
        expr.map(lambda e: f"assert {e}"),
        st.just("a.grad = None"),
        st.just("loss.backward()"),
        st.just("pass"),
        st.tuples(names(), names(), expr).map(lambda t: f"{t[0]}, {t[1]} = {t[2]}"),
        expr.map(lambda e: f"raise ValueError({e})"),
    )
    if depth <= 0:
        return st.lists(simple, min_size=1, max_size=4)
    inner = _statements(depth - 1)
    block = st.one_of(
        simple.map(lambda s: [s]),
        st.tuples(expr, inner, inner).map(
            lambda t: [f"if {t[0]}:", *_indent(t[1]), "else:", *_indent(t[2])]
        ),
        st.tuples(names(), expr, inner).map(lambda t: [f"for {t[0]} in {t[1]}:", *_indent(t[2])]),
        st.tuples(expr, inner).map(lambda t: [f"while {t[0]}:", *_indent(t[1])]),
        st.tuples(inner, inner).map(
            lambda t: ["try:", *_indent(t[0]), "except Exception:", *_indent(t[1])]
        ),
        st.tuples(expr, inner).map(lambda t: [f"with {t[0]}:", *_indent(t[1])]),
    )
    return st.lists(block, min_size=1, max_size=4).map(lambda bs: [s for b in bs for s in b])


def _indent(lines: list) -> list:
    return ["    " + line for line in lines]


def _function() -> st.SearchStrategy[list]:
    params = st.lists(
        st.tuples(
            st.sampled_from(["x", "y", "w", "n", "d", "k", "xs", "mask", "loss", "a"]),
            st.one_of(st.none(), _annotation()),
            st.one_of(st.none(), st.sampled_from(["None", "3", "0.5"])),
        ),
        max_size=4,
        unique_by=lambda p: p[0],
    )

    def build(t) -> list:
        name, ps, ret, body = t
        text = ", ".join(
            p + (f": {a}" if a else "") + (f" = {d}" if d else "")
            for p, a, d in sorted(ps, key=lambda p: p[2] is not None)
        )
        head = f"def {name}({text})" + (f" -> {ret}:" if ret else ":")
        return [head, *_indent(body)]

    return st.tuples(
        st.sampled_from(["f", "helper", "forward_fn", "g"]),
        params,
        st.one_of(st.none(), _annotation()),
        _statements(1),
    ).map(build)


def _class() -> st.SearchStrategy[list]:
    def build(t) -> list:
        base, slots, init, method = t
        lines = [f"class {'Model' if base else 'Box'}({base}):"]
        if slots:
            lines.append("    __slots__ = ('p', 'fc')")
        lines += _indent(
            [
                "def __init__(self, d: int, n: int = 4):",
                *(["    super().__init__()"] if base else []),
                *_indent(init),
            ]
        )
        lines += _indent(method)
        return lines

    return st.tuples(
        st.sampled_from(["nn.Module", "", "tuple"]), st.booleans(), _statements(0), _function()
    ).map(build)


def _programs() -> st.SearchStrategy[str]:
    part = st.one_of(_function(), _class(), _statements(1))
    return st.lists(part, min_size=1, max_size=4).map(
        lambda parts: _HEADER + "\n".join(line for p in parts for line in p) + "\n"
    )


@fuzz_settings(120)
@given(_programs(), st.booleans())
def test_generated_programs_give_diagnostics(text: str, strict: bool) -> None:
    _check(text, strict=strict)


# ---------------------------------------------------------------------- mutated programs

_SOUP = [
    "\ud800",
    "\x00",
    "\ufeff",
    "\t",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    "'",
    '"',
    "\\",
    "#",
    "\n",
    "    ",
    "lambda",
    "yield",
    "*",
    "@",
    ",",
    "=",
    ".",
    "None",
    "è",
    "\u2028",
    "𝐧",
    "ﬁ",
    "0" * 40,
]


def _mutations():
    edit = st.one_of(
        st.tuples(st.just("delete-line"), st.integers(0, 10**6)),
        st.tuples(st.just("duplicate-line"), st.integers(0, 10**6)),
        st.tuples(st.just("swap-lines"), st.integers(0, 10**6), st.integers(0, 10**6)),
        st.tuples(st.just("insert"), st.integers(0, 10**6), st.sampled_from(_SOUP)),
        st.tuples(st.just("cut"), st.integers(0, 10**6)),
        st.tuples(st.just("dedent"), st.integers(0, 10**6)),
    )
    return st.lists(edit, min_size=1, max_size=6)


def _apply(text: str, edits: list) -> str:
    for edit in edits:
        lines = text.split("\n")
        kind = edit[0]
        if kind == "delete-line" and lines:
            del lines[edit[1] % len(lines)]
        elif kind == "duplicate-line" and lines:
            i = edit[1] % len(lines)
            lines.insert(i, lines[i])
        elif kind == "swap-lines" and lines:
            i, j = edit[1] % len(lines), edit[2] % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "dedent" and lines:
            i = edit[1] % len(lines)
            lines[i] = lines[i].lstrip()
        elif kind == "insert":
            at = edit[1] % (len(text) + 1)
            text = text[:at] + edit[2] + text[at:]
            continue
        elif kind == "cut":
            text = text[: edit[1] % (len(text) + 1)]
            continue
        text = "\n".join(lines)
    return text


@pytest.mark.skipif(not _CORPUS, reason="no corpus files found")
@fuzz_settings(120)
@given(st.sampled_from(_CORPUS or [Path(__file__)]), _mutations())
def test_mutated_real_programs_give_diagnostics(path: Path, edits: list) -> None:
    _check(_apply(path.read_text(encoding="utf-8"), edits))


# ------------------------------------------------------------- the probe's inputs, short texts

_PROBE = [
    "x = 1\ny = " + " + ".join(["x"] * 496) + "\n",
    "import numpy as np\ny = np" + ".T" * 50000 + "\n",
    "y = " + "-" * 50000 + "1\n",
    "import numpy as np\ny = np.zeros(6)" + ".reshape(2, 3)" * 2500 + "\n",
    "def f(x: 'Float[np.ndarray, \"\\ud800\"]'):\n    return x\n",
    "import numpy as np\nfrom tensortypes import Float\ndef f(x: Float[np.ndarray, '"
    + "9" * 4301
    + "']):\n    return x\n",
    "import numpy as np\nfrom tensortypes import Float\n"
    "def f(x: Float[np.ndarray, 'n'], y: Float[np.ndarray, 'n**100000000']):\n    return x\n\n"
    "f(np.zeros(3), np.zeros(5))\n",
    "import numpy as np\nfrom tensortypes import Float\ndef f(x: Float[np.ndarray, '"
    + "*".join(f"(a{i}+b{i})" for i in range(18))
    + "']):\n    return x\n",
    "\ufeffx = 1\n",
    "x = [" * 190 + "]" * 190 + "\n",
    "".join("    " * i + f"if x{i}:\n" for i in range(99)) + "    " * 99 + "pass\n",
]


@pytest.mark.parametrize("text", _PROBE, ids=[f"probe{i}" for i in range(len(_PROBE))])
def test_the_probes_inputs_give_diagnostics(text: str) -> None:
    _check(text, guard=60.0)  # the large ones take their parse time; none may hang


_SHORT_PIECES = [
    "x",
    "y",
    "np",
    "torch",
    ".T",
    ".reshape(",
    "(",
    ")",
    "[",
    "]",
    "+",
    "*",
    "**",
    "-",
    "@",
    " ",
    "\n",
    "    ",
    ":",
    "=",
    ",",
    "1",
    "0",
    "-1",
    "'",
    "Float[np.ndarray, '",
    "n",
    "*b",
    "...",
    "def f(",
    "):",
    "return ",
    "class A:",
    "if ",
    "else:",
    "None",
    "is not ",
    "lambda: ",
    "\\",
    "#",
]


@fuzz_settings(300)
@given(
    st.lists(st.sampled_from(_SHORT_PIECES), max_size=60)
    .map("".join)
    .filter(lambda t: len(t) <= 200)
)
def test_short_texts_are_answered_in_bounded_time(text: str) -> None:
    _check(_HEADER + text, guard=_SHORT_GUARD)
