"""The ``tensortypes`` command line (facade: may import any layer).

Subcommands:

- ``demo [SECTION ...]``: a short tour of what the library does, printed as
  an interactive session (each statement, then its result or its error).
  ``demo --list`` names the sections.
- ``check [PATH ...]``: the static checker (``tensortypes.check.runner.main``).

The tour is data: ``SECTIONS`` is a list of ``Section`` values, each a title
and the statements to run, so a new feature adds its section in one place.
Each section runs in its own namespace and makes its own imports.
Every statement is run for real; a statement that raises when it should not
(or does not raise when it should) makes the command exit with status 1, so the
tour cannot drift from the code.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from typing import NamedTuple, TextIO

__all__ = ["Section", "Step", "SECTIONS", "run_demo", "main"]


class Step(NamedTuple):
    """One statement of the tour; ``raises`` names the exception it must raise."""

    source: str
    raises: str | None = None


class Section(NamedTuple):
    """A titled part of the tour: a key for ``demo KEY``, a title, and its steps."""

    key: str
    title: str
    steps: tuple[Step, ...]


def _steps(*items: str | tuple[str, str]) -> tuple[Step, ...]:
    return tuple(Step(*item) if isinstance(item, tuple) else Step(item) for item in items)


_MLP_SOURCE = (
    "import torch\n"
    "from torch import nn\n"
    "from tensortypes import Float\n"
    "class MLP(nn.Module):\n"
    "    def __init__(self, d_in: int, hidden: int):\n"
    "        super().__init__()\n"
    "        self.fc1 = nn.Linear(d_in, hidden)\n"
    "        self.fc2 = nn.Linear(hidden * 2, 10)\n"
    "    def forward(self, x: Float[torch.Tensor, 'b d_in']) -> Float[torch.Tensor, 'b 10']:\n"
    "        return self.fc2(torch.relu(self.fc1(x)))\n"
)

SECTIONS: list[Section] = [
    Section("annotations", "annotations checked at call time: a caught shape error", _steps(
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
    )),
    Section("check", "tensortypes check: the same kind of error found without running", _steps(
        "import tensortypes",
        "source = \"\"\"\n" + _MLP_SOURCE + "\"\"\"",
        "for d in tensortypes.check_source(source, path='mlp.py'):\n"
        "    print(d.to_text())",
    )),
    Section("typelang", "the type language: TorchScript's types with arrays that carry shapes",
            _steps(
        "from typing import List, Optional",
        "import numpy as np",
        "from tensortypes.types import INT, NONE, ann_to_type, infer_type, is_subtype, unify",
        "t = ann_to_type(Optional[List[int]])",
        "str(t), t.torchscript_str()",
        "is_subtype(infer_type([1, 2]), t)",
        "unify(INT, NONE)",
        "infer_type(np.zeros((2, 3), np.float32))",
    )),
    Section("compiled", "a typed graph, fused and compiled to C", _steps(
        "import numpy as np",
        "import tensortypes",
        "from tensortypes.tensor import exp, tensor",
        "x, y, z = (tensor('float64', ('n',), name=name) for name in 'xyz')",
        "out = exp(x) * y + z * 2 - x / y",
        "out.type",
        "f = tensortypes.function([x, y, z], out, mode='c')",
        "f(np.ones(3), np.full(3, 2.0), np.zeros(3))",
        ("f(np.ones(3), np.ones(3), np.ones(4))", "TypeCheckError"),
    )),
    Section("dtypes", "dtypes and promotion", _steps(
        "from tensortypes.core.dtypes import as_dtype, result_type, can_cast",
        "as_dtype('f4')",
        "result_type('float32', 'int64')",
        "result_type('int8', 'uint8')",
        "can_cast('int64', 'float32')",
        "can_cast('float64', 'float32', casting='same_kind')",
    )),
    Section("dims", "dim expressions and their normal forms", _steps(
        "from tensortypes.core import dims",
        "d = dims.parse('2*n + n - 1')",
        "d",
        "d.evaluate({'n': 3})",
        "dims.eq(dims.parse('(n + 1) * 2'), dims.parse('2*n + 2'))",
        "dims.lt(dims.parse('n'), dims.parse('n + 1'))",
        "print(dims.eq(dims.symbol('n'), dims.symbol('m')))  # None: cannot tell",
        ("dims.parse('n + * 2')", "AnnotationError"),
    )),
    Section("types", "TensorType: rigid symbols, unknown dims and is_super", _steps(
        "from tensortypes.tensor import TensorType",
        "TensorType('float64', (None, 3)).is_super(TensorType('float64', (2, 3)))",
        "TensorType('float64', (2, 3)).is_super(TensorType('float64', (None, 3)))",
        "print(TensorType('float64', ('n',)).is_super(TensorType('float64', (5,))))  # rigid n",
        "TensorType('float64', ('n',)).is_super(TensorType('float64', ('n',)))",
        "TensorType('float64', (2, 3)) is TensorType('float64', (2, 3))  # interned",
    )),
    Section("filter", "filter checks a value against its type", _steps(
        "import numpy as np",
        "from tensortypes.tensor import TensorType",
        "TensorType('float64', (2, None)).filter(np.zeros((2, 7))).shape",
        ("TensorType('float64', (2, 3)).filter(np.zeros((3, 3)))", "TypeCheckError"),
    )),
    Section("graphs", "filter_variable inserts SpecifyShape; dprint; eval", _steps(
        "import numpy as np",
        "from tensortypes.graph import dprint",
        "from tensortypes.tensor import TensorType",
        "v1 = TensorType('float64', (2, None))()",
        "v3 = TensorType('float64', (2, 1)).filter_variable(v1)",
        "v3.type",
        "_ = dprint(v3, print_type=True)  # dprint also returns the text",
        "v3.eval({v1: np.ones((2, 1))})",
        ("v3.eval({v1: np.ones((2, 4))})", "TypeCheckError"),
    )),
]


def _print_source(source: str, out: TextIO) -> None:
    for i, line in enumerate(source.splitlines()):
        out.write(("... " if i else ">>> ") + line + "\n")


def _run_step(step: Step, namespace: dict, out: TextIO) -> str | None:
    """Run one step, echoing it and its result; return a problem, or None."""
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
            return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__.tb_next))
        return None
    finally:
        sys.stdout, sys.displayhook = saved_stdout, saved_hook
    if step.raises is not None:
        return f"expected {step.raises}, nothing was raised"
    return None


def run_demo(keys: list[str] | None = None, out: TextIO | None = None) -> int:
    """Print the tour (all sections, or those named in ``keys``); return the exit status.

    >>> import io
    >>> run_demo(["dtypes"], out=io.StringIO())
    0
    """
    out = sys.stdout if out is None else out
    chosen = SECTIONS if not keys else [s for s in SECTIONS if s.key in keys]
    unknown = sorted(set(keys or ()) - {s.key for s in SECTIONS})
    if unknown:
        known = ", ".join(s.key for s in SECTIONS)
        sys.stderr.write(f"tensortypes demo: unknown section {', '.join(unknown)} "
                         f"(sections: {known})\n")
        return 2
    failures = []
    for number, section in enumerate(chosen, start=1):
        # A fresh namespace per section, so each one runs on its own (demo KEY).
        namespace: dict = {"__name__": "__demo__"}
        out.write(f"\n== {number}. {section.title}\n\n")
        for step in section.steps:
            problem = _run_step(step, namespace, out)
            if problem:
                # Later steps build on this one; running them would only add noise.
                failures.append(f"[{section.key}] {step.source}\n{problem}")
                out.write("(rest of this section skipped)\n")
                break
    out.flush()
    if failures:
        sys.stderr.write("tensortypes demo: some steps did not behave as shown:\n\n"
                         + "\n".join(failures))
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    from tensortypes import __version__

    parser = argparse.ArgumentParser(
        prog="tensortypes",
        description="Dtypes and symbolic shapes as types for array programs.")
    parser.add_argument("--version", action="version", version=f"tensortypes {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo = commands.add_parser("demo", help="print a short tour of the library",
                               description="Print a short tour of the library.")
    demo.add_argument("sections", nargs="*", metavar="SECTION",
                      help="run only these sections (default: all)")
    demo.add_argument("--list", action="store_true", help="list the sections and exit")
    check = commands.add_parser(
        "check", help="find shape and dtype errors without running the code",
        description="Find shape and dtype errors in NumPy, PyTorch and JAX modules without "
                    "running them. Exit status: 0 no errors, 1 errors found, 2 the checker "
                    "failed on a file (an [internal] error) or a usage problem.")
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files and folders (default: [tool.tensortypes] paths, or .)")
    check.add_argument("--json", action="store_true", help="print the diagnostics as JSON")
    check.add_argument("--strict", action="store_true",
                       help="also report (as notes) where the checker had to give up")
    check.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                       help="worker processes (default: one per core; 1: none)")
    check.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    check.add_argument("--cache-dir", default=None, metavar="DIR",
                       help="cache directory (default: <cache_dir>/check)")
    check.add_argument("--debug", action="store_true",
                       help="show the traceback of an internal error of the checker")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    >>> main(["demo", "--list"])  # doctest: +ELLIPSIS
    dtypes: dtypes and promotion
    ...
    0
    """
    args = _parser().parse_args(argv)
    if args.command == "demo":
        if args.list:
            for section in SECTIONS:
                print(f"{section.key}: {section.title}")
            return 0
        return run_demo(args.sections)
    if args.command == "check":
        from tensortypes.check.runner import main as check_main

        return check_main(args)
    raise AssertionError(f"unhandled command {args.command!r}")  # pragma: no cover
