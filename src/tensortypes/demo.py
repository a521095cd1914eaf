"""The tour printed by ``tensortypes demo`` (facade: may import any layer).

The tour is data: ``SECTIONS`` is a list of ``Section`` values, each a key, a
title and the statements to run, so a new feature adds its section in one
place. The first sections are what a user reaches for (a runtime check and the
error it catches, ``tensortypes check`` on a shipped example, PyTrees, a graph
compiled to C, the type language); the ones marked ``internal`` (dtypes, dims,
``TensorType``, ``filter``, ``SpecifyShape``) run only with ``demo --all`` or
by name. Every tour ends with the next steps (where the docs are, the install
line).

Each section runs in its own namespace and makes its own imports, and keeps
its number in the full tour whichever sections are chosen. Every statement is
run for real; one that raises when it should not (or does not raise when it
should), or a command with another exit status than shown, makes the demo
exit with status 1, so the tour cannot drift from the code.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import NamedTuple, TextIO

__all__ = ["Section", "Step", "SECTIONS", "NEXT_STEPS", "run_demo", "default_keys"]


class Step(NamedTuple):
    """One statement of the tour.

    ``raises`` names the exception it must raise. A step whose ``command`` is
    true is a ``tensortypes ...`` command line, echoed after ``$`` and run as
    that command; ``raises`` is then its exit status.
    """

    source: str
    raises: str | None = None
    command: bool = False


class Section(NamedTuple):
    """A titled part of the tour: a key for ``demo KEY``, a title, and its steps."""

    key: str
    title: str
    steps: tuple[Step, ...]
    internal: bool = False


def _steps(*items: str | tuple[str, str] | Step) -> tuple[Step, ...]:
    return tuple(
        item if isinstance(item, Step) else Step(*item) if isinstance(item, tuple) else Step(item)
        for item in items
    )


# The example ``demo check`` runs, from a clone; installed without one, the same
# kind of bug in a file the demo writes.
_EXAMPLE = "examples/numpy_stats_buggy.py"
_FALLBACK_NAME = "mlp.py"
_FALLBACK_SOURCE = (
    "import torch\n"
    "from torch import nn\n"
    "from tensortypes import Float\n\n\n"
    "class MLP(nn.Module):\n"
    "    def __init__(self, d_in: int, hidden: int):\n"
    "        super().__init__()\n"
    "        self.fc1 = nn.Linear(d_in, hidden)\n"
    "        self.fc2 = nn.Linear(hidden * 2, 10)  # BUG: fc1 gives hidden features\n\n"
    "    def forward(self, x: Float[torch.Tensor, 'b d_in']) -> Float[torch.Tensor, 'b 10']:\n"
    "        return self.fc2(torch.relu(self.fc1(x)))\n"
)


def _clone_root() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    return root if (root / _EXAMPLE).is_file() else None


_CHECK_TARGET = _EXAMPLE if _clone_root() is not None else _FALLBACK_NAME

SECTIONS: list[Section] = [
    Section(
        "annotations",
        "annotations checked at every call: a caught shape error",
        _steps(
            "import numpy as np",
            "from tensortypes import Float, typechecked",
            "@typechecked\n"
            "def linear(x: Float[np.ndarray, 'batch fan_in'],\n"
            "           w: Float[np.ndarray, 'fan_in fan_out']) -> Float[np.ndarray, 'batch fan_out']:\n"
            "    return x @ w",
            "linear(np.ones((4, 3)), np.ones((3, 2))).shape",
            ("linear(np.ones((4, 3)), np.ones((5, 2)))", "TypeCheckError"),
            "isinstance(np.zeros((2, 3), np.float32), Float[np.ndarray, '2 n'])",
            ("Float[np.ndarray, '*a *b']", "AnnotationError"),
        ),
    ),
    Section(
        "check",
        "tensortypes check: the same kind of error found without running the code",
        _steps(Step(f"tensortypes check {_CHECK_TARGET}", "1", command=True)),
    ),
    Section(
        "pytrees",
        "PyTrees: every leaf checked, the structure bound by name",
        _steps(
            "import numpy as np",
            "from tensortypes import Float, PyTree, typechecked",
            "@typechecked\n"
            "def sgd(params: PyTree[Float[np.ndarray, '?n'], 'T'],\n"
            "        grads: PyTree[Float[np.ndarray, '?n'], 'T']) -> PyTree[Float[np.ndarray, '?n'], 'T']:\n"
            "    return {k: params[k] - 0.1 * grads[k] for k in params}",
            "params = {'w': np.ones(3), 'b': np.ones(5)}",
            "sgd(params, {'w': np.ones(3), 'b': np.ones(5)})['b'].shape",
            ("sgd(params, {'w': np.ones(3), 'b': np.ones(4)})", "TypeCheckError"),
            ("sgd(params, {'w': np.ones(3)})", "TypeCheckError"),
        ),
    ),
    Section(
        "compiled",
        "a typed graph, fused and compiled to C",
        _steps(
            "import numpy as np",
            "import tensortypes",
            "from tensortypes.tensor import exp, tensor",
            "x, y, z = (tensor('float64', ('n',), name=name) for name in 'xyz')",
            "out = exp(x) * y + z * 2 - x / y",
            "out.type",
            "f = tensortypes.function([x, y, z], out, mode='c')",
            "f(np.ones(3), np.full(3, 2.0), np.zeros(3))",
            ("f(np.ones(3), np.ones(3), np.ones(4))", "TypeCheckError"),
        ),
    ),
    Section(
        "typelang",
        "the type language: TorchScript's types with arrays that carry shapes",
        _steps(
            "from typing import List, Optional",
            "import numpy as np",
            "from tensortypes.types import INT, NONE, ann_to_type, infer_type, is_subtype, unify",
            "t = ann_to_type(Optional[List[int]])",
            "str(t), t.torchscript_str()",
            "is_subtype(infer_type([1, 2]), t)",
            "unify(INT, NONE)",
            "infer_type(np.zeros((2, 3), np.float32))",
        ),
    ),
    Section(
        "dtypes",
        "internals: dtypes and promotion",
        _steps(
            "from tensortypes.core.dtypes import as_dtype, result_type, can_cast",
            "as_dtype('f4')",
            "result_type('float32', 'int64')",
            "result_type('int8', 'uint8')",
            "can_cast('int64', 'float32')",
            "can_cast('float64', 'float32', casting='same_kind')",
        ),
        internal=True,
    ),
    Section(
        "dims",
        "internals: dim expressions and their normal forms",
        _steps(
            "from tensortypes.core import dims",
            "d = dims.parse('2*n + n - 1')",
            "d",
            "d.evaluate({'n': 3})",
            "dims.eq(dims.parse('(n + 1) * 2'), dims.parse('2*n + 2'))",
            "dims.lt(dims.parse('n'), dims.parse('n + 1'))",
            "print(dims.eq(dims.symbol('n'), dims.symbol('m')))  # None: cannot tell",
            ("dims.parse('n + * 2')", "AnnotationError"),
        ),
        internal=True,
    ),
    Section(
        "types",
        "internals: TensorType, rigid symbols, unknown dims and is_super",
        _steps(
            "from tensortypes.tensor import TensorType",
            "TensorType('float64', (None, 3)).is_super(TensorType('float64', (2, 3)))",
            "TensorType('float64', (2, 3)).is_super(TensorType('float64', (None, 3)))",
            "print(TensorType('float64', ('n',)).is_super(TensorType('float64', (5,))))  # rigid n",
            "TensorType('float64', ('n',)).is_super(TensorType('float64', ('n',)))",
            "TensorType('float64', (2, 3)) is TensorType('float64', (2, 3))  # interned",
        ),
        internal=True,
    ),
    Section(
        "filter",
        "internals: filter checks a value against its type",
        _steps(
            "import numpy as np",
            "from tensortypes.tensor import TensorType",
            "TensorType('float64', (2, None)).filter(np.zeros((2, 7))).shape",
            ("TensorType('float64', (2, 3)).filter(np.zeros((3, 3)))", "TypeCheckError"),
        ),
        internal=True,
    ),
    Section(
        "graphs",
        "internals: filter_variable inserts SpecifyShape; dprint; eval",
        _steps(
            "import numpy as np",
            "from tensortypes.graph import dprint",
            "from tensortypes.tensor import TensorType",
            "v1 = TensorType('float64', (2, None))()",
            "v3 = TensorType('float64', (2, 1)).filter_variable(v1)",
            "v3.type",
            "_ = dprint(v3, print_type=True)  # dprint also returns the text",
            "v3.eval({v1: np.ones((2, 1))})",
            ("v3.eval({v1: np.ones((2, 4))})", "TypeCheckError"),
        ),
        internal=True,
    ),
]

NEXT_STEPS = """\
== Next steps

Use it in your project (from a clone of the repository; NumPy is the only dependency):
    pip install ./tensortypes            # or "./tensortypes[torch]", "[jax]", "[all]"
Three ways in: @typechecked, jaxtyped(...) for code written for jaxtyping, and
    tensortypes check src/               # the static checker, nothing is run
Read: README.md, then docs/index.md: docs/migrating.md (from jaxtyping),
docs/checker.md (runtime), docs/check.md (static), docs/annotations.md.
More of the tour: tensortypes demo --all (the internals), demo --list.
"""


def default_keys() -> list[str]:
    """The sections ``tensortypes demo`` runs without arguments: all but the internals."""
    return [s.key for s in SECTIONS if not s.internal]


def _print_source(source: str, out: TextIO) -> None:
    for i, line in enumerate(source.splitlines()):
        out.write(("... " if i else ">>> ") + line + "\n")


def _run_command(step: Step, out: TextIO) -> str | None:
    """Run a ``tensortypes ...`` step as that command, in a fresh interpreter; a problem, or None.

    It runs from the clone (so paths print as ``examples/...``), or without a
    clone from a scratch folder holding the fallback file.
    """
    out.write(f"$ {step.source}\n")
    argv = [sys.executable, "-m", "tensortypes", *shlex.split(step.source)[1:]]
    with tempfile.TemporaryDirectory(prefix="tensortypes-demo-") as scratch:
        root = _clone_root()
        if root is None:
            root = Path(scratch)
            (root / _FALLBACK_NAME).write_text(_FALLBACK_SOURCE, encoding="utf-8")
        proc = subprocess.run(
            argv, cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600
        )
    out.write(proc.stdout + proc.stderr)
    expected = int(step.raises or 0)
    if proc.returncode != expected:
        return f"`{step.source}` exited with status {proc.returncode}, not {expected}"
    return None


def _run_step(step: Step, namespace: dict, out: TextIO) -> str | None:
    """Run one step, echoing it and its result; return a problem, or None."""
    if step.command:
        return _run_command(step, out)
    _print_source(step.source, out)
    code = compile(step.source, "<tensortypes demo>", "single")
    saved_stdout, saved_hook = sys.stdout, sys.displayhook

    def show(value: object) -> None:
        if value is not None:
            out.write(repr(value) + "\n")

    sys.stdout, sys.displayhook = out, show
    try:
        exec(code, namespace)  # noqa: S102 (the steps are this module's own constants)
    except Exception as exc:  # noqa: BLE001 (an error is the expected result of some steps)
        out.write(f"{type(exc).__name__}: {exc}\n")
        if step.raises is None or type(exc).__name__ != step.raises:
            # Skip this module's own frame: the reader wants the library's.
            tb = exc.__traceback__
            return "".join(
                traceback.format_exception(type(exc), exc, tb.tb_next if tb is not None else None)
            )
        return None
    finally:
        sys.stdout, sys.displayhook = saved_stdout, saved_hook
    if step.raises is not None:
        return f"expected {step.raises}, nothing was raised"
    return None


def run_demo(
    keys: list[str] | None = None, out: TextIO | None = None, everything: bool = False
) -> int:
    """Print the tour and return the exit status.

    ``keys`` names the sections to run; without them, every section that is
    not internal, or every section with ``everything``. Each section keeps its
    number in the full tour, and the next steps close every tour.

    >>> import io
    >>> run_demo(["dtypes"], out=io.StringIO())
    0
    """
    out = sys.stdout if out is None else out
    unknown = sorted(set(keys or ()) - {s.key for s in SECTIONS})
    if unknown:
        known = ", ".join(s.key for s in SECTIONS)
        sys.stderr.write(
            f"tensortypes demo: unknown section {', '.join(unknown)} (sections: {known})\n"
        )
        return 2
    wanted = set(keys) if keys else {s.key for s in SECTIONS if everything or not s.internal}
    failures = []
    for number, section in enumerate(SECTIONS, start=1):
        if section.key not in wanted:
            continue
        # A fresh namespace per section, so each one runs on its own (demo KEY).
        namespace: dict = {"__name__": "__main__"}  # as typed at a prompt: "in linear (...)"
        out.write(f"\n== {number}. {section.title}\n\n")
        for step in section.steps:
            problem = _run_step(step, namespace, out)
            if problem:
                # Later steps build on this one; running them would only add noise.
                failures.append(f"[{section.key}] {step.source}\n{problem}")
                out.write("(rest of this section skipped)\n")
                break
    out.write("\n" + NEXT_STEPS)
    out.flush()
    if failures:
        sys.stderr.write(
            "tensortypes demo: some steps did not behave as shown:\n\n" + "\n".join(failures)
        )
        return 1
    return 0
