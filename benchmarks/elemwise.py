"""An elementwise expression compiled to C, against NumPy, numexpr and PyTensor.

Computes ``exp(x)*y + z*2 - x/y`` on float64 arrays in one process with: NumPy,
numexpr with one thread, PyTensor's C back end (``linker=cvm``, its fused
composite), ``tensortypes.function(mode="py")`` and ``mode="c"``. Prints one
table of milliseconds per call at 10^6 and 10^7 elements, the per-call
overhead on size-1 inputs, and, measured in fresh interpreters with their
imports done, the time to get a cached module ready and the first compile
(into an empty cache).

Run it in its own environment, never in the test one (see benchmarks/README.md):

    python -m venv /tmp/tt-bench
    /tmp/tt-bench/bin/pip install -e . -r benchmarks/requirements.txt numexpr
    /tmp/tt-bench/bin/python benchmarks/elemwise.py

Tools that are not installed read ``n/a``. Targets (docs/benchmarks.md): ``mode="c"``
within 10% of PyTensor's C and at least 1.5x faster than NumPy at 10^7; per
call overhead under 2 us; a cached module ready under 50 ms; the first
compile under 1.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_seconds, markdown_table  # noqa: E402 (shared helpers beside this script)

os.environ.setdefault("PYTENSOR_FLAGS", "linker=cvm")
os.environ.setdefault("NUMEXPR_MAX_THREADS", "1")

EXPR = "exp(x)*y + z*2 - x/y"
RATIO = 1.10  # ours may be at most 10% slower than PyTensor's C
NUMPY_SPEEDUP = 1.5
OVERHEAD_US = 2.0
LOAD_MS = 50.0
COMPILE_S = 1.5


def contenders() -> dict:
    """name -> f(x, y, z) for every tool that is installed (None when it is not)."""
    import tensortypes.tensor as tt
    from tensortypes.link import function

    out = {"numpy": lambda x, y, z: np.exp(x) * y + z * 2 - x / y}
    try:
        import numexpr

        numexpr.set_num_threads(1)
        out["numexpr (1 thread)"] = lambda x, y, z: numexpr.evaluate(EXPR)
    except ImportError:
        out["numexpr (1 thread)"] = None
    try:
        import pytensor
        import pytensor.tensor as pt

        px, py_, pz = pt.dvector("x"), pt.dvector("y"), pt.dvector("z")
        out["pytensor C (cvm)"] = pytensor.function(
            [px, py_, pz],
            pt.exp(px) * py_ + pz * 2 - px / py_,
            mode=pytensor.compile.mode.Mode(linker="cvm"),
        )
    except ImportError:
        out["pytensor C (cvm)"] = None
    x, y, z = tt.dvector("x"), tt.dvector("y"), tt.dvector("z")
    out["tensortypes py"] = function([x, y, z], tt.exp(x) * y + z * 2 - x / y, mode="py")
    out["tensortypes c"] = function([x, y, z], tt.exp(x) * y + z * 2 - x / y, mode="c")
    return out


def data(n: int):
    rng = np.random.default_rng(0)
    return rng.random(n), rng.random(n) + 1.0, rng.random(n)


def throughput(fns: dict, sizes, repeat: int, min_time: float) -> dict:
    table = {}
    for n in sizes:
        x, y, z = data(n)
        expected = np.exp(x) * y + z * 2 - x / y
        row = {}
        for name, fn in fns.items():
            if fn is None:
                row[name] = None
                continue
            if not np.allclose(fn(x, y, z), expected):
                raise AssertionError(f"{name} computes something else")
            row[name] = best_seconds(lambda fn=fn: fn(x, y, z), repeat, min_time)
        table[n] = row
    return table


_FRESH = """
import sys, time
import numpy as np
import tensortypes.link.c
import tensortypes.tensor as tt
from tensortypes.link import function
x, y, z = tt.dvector("x"), tt.dvector("y"), tt.dvector("z")
out = tt.exp(x) * y + z * 2 - x / y
t = time.perf_counter()
f = function([x, y, z], out, mode="c")
print(time.perf_counter() - t)
"""

_FRESH_PYTENSOR = """
import time
import pytensor, pytensor.tensor as pt
x, y, z = pt.dvector("x"), pt.dvector("y"), pt.dvector("z")
out = pt.exp(x) * y + z * 2 - x / y
t = time.perf_counter()
f = pytensor.function([x, y, z], out, mode=pytensor.compile.mode.Mode(linker="cvm"))
print(time.perf_counter() - t)
"""


def fresh_times(script: str, env: dict, runs: int) -> list[float] | None:
    """Seconds measured by ``script`` in ``runs`` fresh interpreters (first: empty cache)."""
    times = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            if "No module named 'pytensor'" in proc.stderr:
                return None
            raise RuntimeError(proc.stderr)
        times.append(float(proc.stdout.strip().splitlines()[-1]))
    return times


def _fmt(seconds: float | None, unit: str) -> str:
    if seconds is None:
        return "n/a"
    scale = {"ms": 1e3, "us": 1e6, "s": 1.0}[unit]
    return f"{seconds * scale:,.2f} {unit}"


def _verdict(ok: bool | None, text: str) -> str:
    return "n/a" if ok is None else ("ok" if ok else "MISSED") + f" ({text})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timing repeats (best is kept)")
    parser.add_argument(
        "--min-time", type=float, default=0.2, help="seconds each repeat's loop runs at least"
    )
    parser.add_argument(
        "--fresh-runs",
        type=int,
        default=7,
        help="fresh interpreters for the load and compile times",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="tt-bench-cache-") as cache:
        os.environ["TENSORTYPES_CACHE_DIR"] = cache
        from tensortypes import config

        config.cache_dir = cache
        fns = contenders()
        big = throughput(fns, (10**6, 10**7), args.repeat, args.min_time)
        small = throughput(fns, (1,), args.repeat, args.min_time)[1]
    with tempfile.TemporaryDirectory(prefix="tt-bench-fresh-") as cache:
        ours = fresh_times(_FRESH, {"TENSORTYPES_CACHE_DIR": cache}, args.fresh_runs)
    with tempfile.TemporaryDirectory(prefix="pt-bench-fresh-") as compiledir:
        theirs = fresh_times(
            _FRESH_PYTENSOR,
            {"PYTENSOR_FLAGS": f"linker=cvm,compiledir={compiledir}"},
            args.fresh_runs,
        )

    names = list(fns)
    print(
        f"Python {sys.version.split()[0]}, NumPy {np.__version__}; {EXPR} on float64; "
        f"best of {args.repeat}"
    )
    rows = [
        [f"n = {n:.0e}".replace("+0", ""), *(_fmt(big[n][k], "ms") for k in names)] for n in big
    ]
    rows.append(["n = 1 (overhead)", *(_fmt(small[k], "us") for k in names)])
    print(markdown_table(["time per call", *names], rows))

    c10 = big[10**7]["tensortypes c"]
    pt10 = big[10**7]["pytensor C (cvm)"]
    np10 = big[10**7]["numpy"]
    load = statistics.median(ours[1:]) if ours else None
    their_load = statistics.median(theirs[1:]) if theirs else None
    checks = [
        [
            "mode='c' vs PyTensor C at 1e7",
            f"{c10 / pt10:.2f}x" if pt10 else "n/a",
            _verdict(None if pt10 is None else c10 <= RATIO * pt10, f"<= {RATIO:.2f}x"),
        ],
        [
            "NumPy / mode='c' at 1e7",
            f"{np10 / c10:.2f}x",
            _verdict(np10 / c10 >= NUMPY_SPEEDUP, f">= {NUMPY_SPEEDUP}x"),
        ],
        [
            "per-call overhead (n = 1)",
            _fmt(small["tensortypes c"], "us")
            + " vs PyTensor "
            + _fmt(small["pytensor C (cvm)"], "us"),
            _verdict(small["tensortypes c"] * 1e6 < OVERHEAD_US, f"< {OVERHEAD_US} us"),
        ],
        [
            "cached module ready (new process)",
            _fmt(load, "ms") + " vs PyTensor " + _fmt(their_load, "ms"),
            _verdict(load * 1e3 < LOAD_MS, f"< {LOAD_MS:g} ms"),
        ],
        [
            "first compile (empty cache)",
            _fmt(ours[0], "s") + " vs PyTensor " + _fmt(theirs[0] if theirs else None, "s"),
            _verdict(ours[0] < COMPILE_S, f"< {COMPILE_S} s"),
        ],
    ]
    print()
    print(markdown_table(["target", "measured", "verdict"], checks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
