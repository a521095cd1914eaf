"""Lattice operations of tensortypes and PyTensor, side by side in one process.

Prints one table: nanoseconds per operation for ``tensortypes.tensor.TensorType``
and ``pytensor.tensor.type.TensorType`` (construction with the same arguments,
``==``, ``hash``, ``is_super``, ``filter_variable`` of an already compatible
variable, building a ``SpecifyShape`` node), dim expressions against SymPy
(PyTensor has none), and the import cost over ``import numpy`` measured in
fresh interpreters. Each timing is the best of several repeats of a loop long
enough to dwarf the clock (``timeit``), so it measures the operation, not the
noise of a busy machine.

Run it in its own environment, never in the test one (see benchmarks/README.md):

    python -m venv /tmp/tt-bench
    /tmp/tt-bench/bin/pip install -e . -r benchmarks/requirements.txt
    /tmp/tt-bench/bin/python benchmarks/lattice.py

Without PyTensor or SymPy installed their columns read ``n/a``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_ns, markdown_table  # noqa: E402 (shared helpers beside this script)

# Targets (see docs/benchmarks.md): a lattice operation at most 1 us and within
# 10% of PyTensor's; building a node at most 10 us; importing at most 50 ms.
LATTICE_NS = 1_000.0
NODE_NS = 10_000.0
IMPORT_MS = 50.0
RATIO = 1.10


@dataclass
class Row:
    name: str
    ours: float | None
    theirs: float | None
    against: str
    limit: float | None  # absolute target for ``ours``, in the row's unit
    ratio_target: bool  # also required: ours <= RATIO * theirs
    unit: str = "ns"

    @property
    def ratio(self) -> float | None:
        if self.ours is None or not self.theirs:
            return None
        return self.ours / self.theirs

    @property
    def verdict(self) -> str:
        if self.ours is None:
            return "n/a"
        misses = []
        if self.limit is not None and self.ours > self.limit:
            misses.append(f"> {self.limit:g} {self.unit}")
        if self.ratio_target and self.ratio is not None and self.ratio > RATIO:
            misses.append(f"{self.ratio:.2f}x {self.against}")
        if misses:
            return "MISSED " + ", ".join(misses)
        return "ok (no ratio)" if self.ratio_target and self.ratio is None else "ok"


def _ours() -> dict:
    from tensortypes.core import dims
    from tensortypes.tensor import TensorType, specify_shape

    a = TensorType("float64", (2, None))
    return {
        "T": TensorType,
        "dims": dims,
        "specify_shape": specify_shape,
        "a": a,
        "a2": TensorType("float64", (2, None)),
        "b": TensorType("float64", (2, 3)),
        "c": TensorType("float32", (2, None)),
        "x": a("x"),
        "y": TensorType("float64", (None, None))("y"),
        "expr": "2*n + n - 1",
        "d": dims.parse("2*n + n - 1"),
        "bindings": {"n": 3},
    }


def _pytensor() -> dict | None:
    try:
        import pytensor.tensor as pt
        from pytensor.tensor.type import TensorType
    except ImportError:
        return None
    a = TensorType("float64", shape=(2, None))
    return {
        "T": TensorType,
        "specify_shape": pt.specify_shape,
        "a": a,
        "a2": TensorType("float64", shape=(2, None)),
        "b": TensorType("float64", shape=(2, 3)),
        "c": TensorType("float32", shape=(2, None)),
        "x": a("x"),
        "y": TensorType("float64", shape=(None, None))("y"),
    }


def _sympy() -> dict | None:
    try:
        import sympy
    except ImportError:
        return None
    n = sympy.Symbol("n")
    return {
        "sympify": sympy.sympify,
        "expr": "2*n + n - 1",
        "d": sympy.sympify("2*n + n - 1"),
        "bindings": {n: 3},
    }


# (name, our statement, their statement, against, limit in ns, ratio required)
CASES = [
    (
        "TensorType(...) again",
        "T('float64', (2, None))",
        "T('float64', shape=(2, None))",
        "pytensor",
        LATTICE_NS,
        True,
    ),
    ("== (equal)", "a == a2", "a == a2", "pytensor", LATTICE_NS, True),
    ("== (different dtype)", "a == c", "a == c", "pytensor", LATTICE_NS, True),
    ("hash", "hash(a)", "hash(a)", "pytensor", LATTICE_NS, True),
    ("is_super", "a.is_super(b)", "a.is_super(b)", "pytensor", LATTICE_NS, True),
    (
        "filter_variable (compatible)",
        "a.filter_variable(x)",
        "a.filter_variable(x)",
        "pytensor",
        LATTICE_NS,
        True,
    ),
    (
        "specify_shape node",
        "specify_shape(y, (2, None))",
        "specify_shape(y, (2, None))",
        "pytensor",
        NODE_NS,
        False,
    ),
    ("dim parse", "dims.parse(expr)", "sympify(expr)", "sympy", None, False),
    ("dim evaluate", "d.evaluate(bindings)", "d.subs(bindings)", "sympy", None, False),
]

_IMPORT_PROBE = """
import time
import numpy
t1 = time.perf_counter()
import {module}
t2 = time.perf_counter()
print(t2 - t1)
"""


def import_ms(module: str, runs: int) -> float | None:
    """Median time to import ``module`` after NumPy, in fresh interpreters (ms)."""
    probe = _IMPORT_PROBE.format(module=module)
    times = []
    for i in range(runs + 1):
        proc = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        if proc.returncode != 0:
            return None
        if i:  # the first run writes bytecode caches; it is not what a user sees twice
            times.append(float(proc.stdout.strip()) * 1e3)
    return statistics.median(times)


def measure(repeat: int, min_time: float, import_runs: int) -> list[Row]:
    ours, theirs = _ours(), {"pytensor": _pytensor(), "sympy": _sympy()}
    rows = []
    for name, our_stmt, their_stmt, against, limit, ratio_target in CASES:
        other = theirs[against]
        rows.append(
            Row(
                name=name,
                ours=best_ns(our_stmt, ours, repeat, min_time),
                theirs=best_ns(their_stmt, other, repeat, min_time) if other else None,
                against=against,
                limit=limit,
                ratio_target=ratio_target,
            )
        )
    pytensor_import = import_ms("pytensor", import_runs) if theirs["pytensor"] else None
    rows.append(
        Row(
            "import tensortypes (after numpy)",
            import_ms("tensortypes", import_runs),
            pytensor_import,
            "pytensor",
            IMPORT_MS,
            False,
            unit="ms",
        )
    )
    rows.append(
        Row(
            "import tensortypes.tensor (after numpy)",
            import_ms("tensortypes.tensor", import_runs),
            pytensor_import,
            "pytensor",
            None,
            False,
            unit="ms",
        )
    )
    return rows


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.1f} ms" if unit == "ms" else f"{value:,.0f} ns"


def _ratio(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}" if value >= 0.01 else f"{value:.1e}"


def render(rows: list[Row]) -> str:
    header = ("operation", "tensortypes", "other", "other is", "ratio", "target")
    body = [
        (
            r.name,
            _fmt(r.ours, r.unit),
            _fmt(r.theirs, r.unit),
            r.against,
            _ratio(r.ratio),
            r.verdict,
        )
        for r in rows
    ]
    return markdown_table(header, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timing repeats (best is kept)")
    parser.add_argument(
        "--min-time", type=float, default=0.05, help="seconds each repeat's loop runs at least"
    )
    parser.add_argument(
        "--import-runs",
        type=int,
        default=9,
        help="fresh interpreters per import measurement (median is kept)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = measure(args.repeat, args.min_time, args.import_runs)
    if args.json:
        print(
            json.dumps(
                [{**vars(r), "ratio": r.ratio, "verdict": r.verdict} for r in rows], indent=2
            )
        )
    else:
        print(
            f"Python {sys.version.split()[0]}; ratio = tensortypes / other; "
            f"ns per operation, best of {args.repeat}"
        )
        print(render(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
