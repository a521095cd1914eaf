"""One voice: every kind of message prints a value and an array annotation the same way.

``core.words`` is the one formatter: a value is ``f64[5,2](numpy)`` (or
``np.float64(3.0)`` for a NumPy scalar, ``int 3`` for anything else), an array
annotation ``Float[np.ndarray, 'fan_in fan_out']``. ``MESSAGES`` makes one
message of every kind the library raises about a value (runtime parameter and
return value, wrong array kind, NumPy scalar, PyTree leaf and structure,
``check_value``, ``filter``, a compiled function's input, a dataclass field
assignment, a size bound by ``isinstance``, a ``*batch`` of another rank), and
each is checked against the forms; then the fixes of single messages.

Beyond these, ``tests/message_record.py`` records every message the whole
suite makes (errors and checker diagnostics) and fails the run on an old
form; the tests at the end check that collector.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import message_record
import numpy as np
import pytest

import tensortypes
from tensortypes import Float, PyTree, TypeCheckError, typechecked
from tensortypes.check import check_source
from tensortypes.check.diagnostics import Diagnostic
from tensortypes.core.words import annotation_text, value_text
from tensortypes.tensor import TensorType, tensor
from tensortypes.types import ann_to_type, check_value

VALUE = re.compile(r"\b(bool|[fiuc]\d+|bf16)\[[\d,]*\]\((numpy|torch|jax)\)")


def _message(call) -> str:
    try:
        call()
    except TypeCheckError as error:
        return str(error)
    raise AssertionError("no TypeCheckError")


@typechecked
def linear(
    x: Float[np.ndarray, "batch fan_in"], w: Float[np.ndarray, "fan_in fan_out"]
) -> Float[np.ndarray, "batch fan_out"]:
    return x @ w


@typechecked
def transposed(x: Float[np.ndarray, "n d"]) -> Float[np.ndarray, "n d"]:
    return x.T  # tensortypes: ignore[return] (the error whose message is tested)


@typechecked
def total(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, ""]:
    return x.sum()  # tensortypes: ignore[return] (the error whose message is tested)


@typechecked
def pair(x: PyTree[Float[np.ndarray, "?n"], "T"], y: PyTree[Float[np.ndarray, "?n"], "T"]):
    return None


@typechecked
def padded(x: Float[np.ndarray, "n"]) -> Float[np.ndarray, "m"]:
    y = np.pad(x, 1)
    assert isinstance(y, Float[np.ndarray, "m"])
    return y[1:]


@typechecked
def batched(x: Float[np.ndarray, "*batch d"], y: Float[np.ndarray, "*batch"]):
    return None


@typechecked(check_assignment=True)
@dataclasses.dataclass
class State:
    h: Float[np.ndarray, "b d"]
    c: Float[np.ndarray, "b d"]


def _assign():
    state = State(np.zeros((2, 3)), np.zeros((2, 3)))
    state.h = np.zeros((4, 3))


def _compiled():
    x = tensor("float32", ("n",), name="z")
    f = tensortypes.function([x], x * 2, mode="py")
    f(np.ones(3))


MESSAGES = {
    "parameter": lambda: linear(np.ones((4, 3)), np.ones((5, 2))),  # tensortypes: ignore[arg-type]
    "return value": lambda: transposed(np.ones((2, 3))),
    "array kind": lambda: linear([[1.0, 2.0, 3.0]], np.ones((3, 2))),
    "NumPy scalar": lambda: total(np.ones(3)),
    "PyTree leaf": lambda: pair((np.zeros(5), np.zeros(5)), (np.ones(3), np.ones(5))),
    "PyTree structure": lambda: pair((np.zeros(5),), [np.zeros(5)]),
    "check_value": lambda: check_value(np.zeros((2, 3)), ann_to_type(Float[np.ndarray, "n n"])),
    "filter": lambda: TensorType("int64", (None,)).filter(np.zeros(3)),
    "compiled input": _compiled,
    "dataclass assignment": _assign,
    "bound by isinstance": lambda: padded(np.ones(3)),
    "variadic rank": lambda: batched(
        np.ones((2, 3, 4)), np.ones(2)
    ),  # tensortypes: ignore[arg-type]
}


@pytest.mark.parametrize("kind", list(MESSAGES))
def test_every_message_kind_uses_the_one_forms(kind):
    text = _message(MESSAGES[kind])
    found = message_record.problems([(kind, text)])
    assert not found, "\n".join(found)


def test_arrays_print_in_the_short_form_everywhere():
    texts = {kind: _message(call) for kind, call in MESSAGES.items()}
    for kind in (
        "parameter",
        "return value",
        "PyTree leaf",
        "check_value",
        "filter",
        "compiled input",
        "dataclass assignment",
    ):
        assert VALUE.search(texts[kind]), f"{kind}:\n{texts[kind]}"
    for kind in ("parameter", "return value", "PyTree leaf", "check_value"):
        assert re.search(r"Float\[np\.ndarray, '[^']*'\]", texts[kind]), texts[kind]


def test_the_formatter_itself():
    assert value_text(np.zeros((5, 2))) == "f64[5,2](numpy)"
    assert value_text(np.float64(3.0)) == "np.float64(3.0)"
    assert value_text(np.zeros((), np.int32)) == "i32[](numpy)"
    assert (
        annotation_text(Float[np.ndarray, "fan_in fan_out"])
        == "Float[np.ndarray, 'fan_in fan_out']"
    )
    assert annotation_text(Float[np.ndarray, "n"].type) == "Float[np.ndarray, 'n']"


def test_array_classes_print_by_their_public_names():
    # jax.Array's __qualname__ is "jaxlib._jax.Array": a message names it jax.Array.
    jax = pytest.importorskip("jax")
    assert annotation_text(Float[jax.Array, "n d"]) == "Float[jax.Array, 'n d']"
    torch = pytest.importorskip("torch")
    assert annotation_text(Float[torch.Tensor, "n"]) == "Float[torch.Tensor, 'n']"


def test_an_assignment_blames_the_assigned_field_with_its_new_value():
    state = State(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(TypeCheckError) as info:
        state.h = np.zeros((4, 3))
    text = str(info.value)
    assert "assignment to field h" in text
    assert "got:      f64[4,3](numpy)" in text
    assert "axis 0 of h has size 4, but b=2 was bound by axis 0 of c" in text
    assert state.h.shape == (2, 3)  # the old value is back
    state.c = np.ones((2, 3))  # a fitting assignment passes


def test_a_size_bound_by_isinstance_says_of_what():
    text = _message(MESSAGES["bound by isinstance"])
    assert "m=5 was bound by axis 0 of a value checked with isinstance" in text


def test_a_variadic_of_another_rank_says_so_in_grammar():
    text = _message(MESSAGES["variadic rank"])
    assert "have shape (2,)" not in text
    assert "*batch matches 1 axis here" in text and "(2 axes)" in text


def test_a_numpy_scalar_is_refused_with_what_to_write_instead():
    text = _message(MESSAGES["NumPy scalar"])
    assert "got:      np.float64(3.0)" in text
    assert "Float[np.number, '']" in text and "np.asarray(...)" in text


def test_the_static_checker_agrees_on_numpy_scalars():
    source = (
        "import numpy as np\n"
        "from jaxtyping import Float\n"
        "def total(x: Float[np.ndarray, 'n']) -> Float[np.ndarray, '']:\n"
        "    return x.sum()\n"
        "def total_ok(x: Float[np.ndarray, 'n']) -> Float[np.ndarray, '']:\n"
        "    return np.asarray(x.sum())\n"
        "def rows(x: Float[np.ndarray, 'n d']) -> Float[np.ndarray, 'n']:\n"
        "    return x.sum(axis=1)\n"
    )
    found = check_source(source)
    assert [d.line for d in found] == [4], [d.to_text() for d in found]
    assert "NumPy scalar" in found[0].message
    assert "Float[np.number, '']" in found[0].message and "np.asarray(...)" in found[0].message


def test_the_downcast_hint_can_be_followed():
    text = _message(_compiled)
    assert "pass allow_downcast=True (to filter or to function)" in text
    x = tensor("float32", ("n",), name="z")
    f = tensortypes.function([x], x * 2, mode="py", allow_downcast=True)
    assert f(np.ones(3)).dtype == np.float32


def test_static_wording():
    assert "invalid syntax: invalid syntax" not in check_source("x = = 1\n")[0].message
    source = (
        "import jax.numpy as jnp\n"
        "from jaxtyping import Array, Float\n"
        "def f(a: Float[Array, 'n 3'], b: Float[Array, 'n 4']):\n"
        "    return jnp.concatenate([a, b], axis=0)\n"
    )
    assert check_source(source)[0].message.startswith("jnp.concatenate along axis 0")
    source = (
        "import numpy as np\n"
        "from jaxtyping import Float\n"
        "def f(x: Float[np.ndarray, 'n d'], y: Float[np.ndarray, 'm d']):\n"
        "    return x @ y\n"
    )
    message = check_source(source)[0].message
    assert "contracted axes differ" in message and "'#'" not in message


def test_jaxtypings_array_imported_from_tensortypes_is_a_jax_array():
    # docs/migrating.md moves `from jaxtyping import Array` to `from tensortypes import
    # Array`: the static checker reads it as jax.Array either way.
    for module in ("jaxtyping", "tensortypes", "tensortypes.annotate"):
        source = (
            f"from {module} import Array, Float\n"
            "def f(x: Float[Array, 'n d']):\n"
            "    reveal_type(x)\n"
        )
        (note,) = check_source(source)
        assert note.message == "revealed: x is float[n,d](jax)", (module, note.message)


def test_two_names_for_one_size_say_how_to_tell_the_checker():
    # jaxtyping code names axes freely ("b c h w"); a layer built from another name of
    # the same signature (in_ch) is an error by the contract, and the message says how
    # to state it. (A name of the instance's __init__ is another scope: not compared.)
    source = (
        "import torch\n"
        "from torch import nn\n"
        "from jaxtyping import Float\n"
        "def net(x: Float[torch.Tensor, 'b c h w'], y: Float[torch.Tensor, 'b c'], in_ch: int):\n"
        "    conv = nn.Conv2d(in_ch, 16, 3)\n"
        "    fc = nn.Linear(2 * in_ch, 1)\n"
        "    return conv(x), fc(y)\n"
    )
    conv, linear = (d.message for d in check_source(source))
    assert "if c is always in_ch, an assert on the shape or one name for both says so" in conv
    # A formula (2*in_ch against c) is no second name for the same size: no such hint.
    assert "(not provably equal for every size)" in linear and "assert" not in linear
    fixed = source.replace(
        "    return conv",
        "    assert x.shape[1] == in_ch\n    return conv",
    )
    assert [d.code for d in check_source(fixed)] == ["layer"]


def test_paths_from_the_configuration_print_relative(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.tensortypes]\npaths = ["src"]\n')
    (tmp_path / "src" / "pkg" / "m.py").write_text(
        "import numpy as np\na = np.zeros((2, 3))\nb = a.reshape(4, 2)\n"
    )
    env = {**os.environ, "TENSORTYPES_CACHE_DIR": str(tmp_path / "cache")}
    for cwd, shown in (
        (tmp_path, "src/pkg/m.py:3:5: error"),
        (tmp_path / "sub", "../src/pkg/m.py:3:5: error"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "tensortypes", "check"],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout.startswith(shown), proc.stdout
        assert str(Path(tmp_path)) not in proc.stdout


def test_a_dtype_list_reads_the_same_at_the_top_and_in_a_tree():
    @typechecked
    def top(x: Float[np.ndarray, "n"]):
        return None

    @typechecked
    def tree(x: PyTree[Float[np.ndarray, "n"]]):
        return None

    texts = [_message(lambda: top(np.zeros(3, int))), _message(lambda: tree([np.zeros(3, int)]))]
    for text in texts:
        assert "its dtype is int64, not Float (bfloat16, float16, float32, float64" in text, text


OLD_FORMS = {
    "long dtype before a shape": "got float64[3,2] instead",
    "class before a dtype": "expected a NumPy array, got ndarray float32",
    "'of dtype ... and shape'": "an array of dtype float64 and shape (2, 3)",
    "annotation without its module": "Float[ndarray, 'n d'] cannot be instantiated",
    "annotation with double quotes": 'x is f64[3](numpy), expected Tuple[Float[np.ndarray, "n"], int]',
    "the dtype twice": "expected a NumPy array, got float64 float64",
    "static value as shape and dtype": "x: (n, d) floating, parameter at line 6",
    "static value as 'array (...)'": "reveal_type: x is array (n, d) of some dtype",
    "an array class by its private module": "expected: Float[jax.jaxlib._jax.Array, 'n']",
}


@pytest.mark.parametrize("what", list(OLD_FORMS))
def test_the_collector_refuses_every_old_form(what):
    (found,) = message_record.problems([("TypeCheckError", OLD_FORMS[what])])
    assert found.startswith(f"TypeCheckError: {what}: ")


def test_the_collector_accepts_the_one_forms():
    texts = [
        "x: float[n,d](numpy), parameter at line 6",
        "return value of g() is f32[n](torch), expected Float[np.ndarray, 'n d']",
        "expected Optional[Float[np.ndarray, 'n']], got np.float64(3.0)",
        "in-place update of counts (int64) with a float64 result",
        "cannot broadcast x (n, d) with mean (n,): axis -1 has sizes d and n",
    ]
    assert message_record.problems(("checker", text) for text in texts) == []


def test_the_suite_records_every_error_and_diagnostic():
    text = "a message made only by this test: f64[7](numpy)"
    TypeCheckError(text)
    Diagnostic("m.py", 1, 1, "rank", text + " (checker)", ("a note made only by this test",))
    recorded = message_record.recorded()
    assert recorded[text] == "TypeCheckError"
    assert recorded[text + " (checker)"] == "checker [rank]"
    assert recorded["a note made only by this test"] == "checker [rank] note"


def test_a_recorded_file_is_checked_on_its_own(tmp_path):
    path = tmp_path / "messages.jsonl"
    message_record.write(str(path))
    assert (
        "TypeCheckError",
        "a message made only by this test: f64[7](numpy)",
    ) in message_record.read(str(path))
    path.write_text('{"kind": "checker [shape] note", "text": "x: float[n,d](numpy)"}\n')
    assert message_record.main([str(path)]) == 0
    with path.open("a") as out:
        out.write('{"kind": "checker [shape] note", "text": "x: (n, d) floating"}\n')
    assert message_record.main([str(path)]) == 1
