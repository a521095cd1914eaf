"""PyTree checks of tensortypes (on each flattening backend) and of jaxtyping, side by side.

The workload: ``f(x, y)`` with both parameters annotated
``PyTree[Float[np.ndarray, "?n"], "T"]`` and called on two trees of 1000 small
float32 arrays (a dict of 100 lists of 10 arrays, sizes varying by leaf and
agreeing between ``x`` and ``y`` leaf by leaf). Rows:

- ours, one row per flattening backend (``jax``, ``optree``, ``own``): the two
  parameter checks as the runtime checker runs them, ``check(x)`` then
  ``check(y)`` in one fresh scope;
- ours through ``tensortypes.runtime.typechecked`` when the runtime checker
  handles PyTree parameters (else the row says why not);
- jaxtyping: ``@jaxtyped(typechecker=beartype)`` on the same signature with
  jaxtyping's own ``PyTree`` and ``Float`` (it needs JAX).

Each timing is the best of several repeats of a loop of at least ``--min-time``
seconds. Run it in its own environment (jaxtyping is never installed in the
test one):

    python -m venv --system-site-packages /tmp/tt-bench-pt
    /tmp/tt-bench-pt/bin/pip install jaxtyping beartype jax optree
    /tmp/tt-bench-pt/bin/python benchmarks/pytree.py

Target: each of our rows at least 10x faster than jaxtyping with beartype.
"""

# No ``from __future__ import annotations``: the checked functions below are
# local, and string annotations would hide their hints from the checkers.
import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_seconds  # noqa: E402 (shared helpers beside this script)

TARGET_SPEEDUP = 10.0


def trees(n_keys: int = 100, per_key: int = 10) -> tuple[dict, dict]:
    """Two trees of ``n_keys * per_key`` small arrays with matching sizes per leaf."""
    x, y = {}, {}
    for k in range(n_keys):
        sizes = [(k * per_key + i) % 7 + 1 for i in range(per_key)]
        x[f"k{k:03d}"] = [np.zeros(s, np.float32) for s in sizes]
        y[f"k{k:03d}"] = [np.ones(s, np.float32) for s in sizes]
    return x, y


def best_ms(fn, repeat: int, min_time: float) -> float:
    """Best time per call of ``fn`` in milliseconds (timeit, best of ``repeat``)."""
    return best_seconds(fn, repeat, min_time) * 1e3


def ours_rows(x: dict, y: dict, repeat: int, min_time: float) -> list:
    from tensortypes.annotate import Float
    from tensortypes.annotate._scope import Bindings
    from tensortypes.pytree import PyTree, set_backend
    from tensortypes.pytree.backends import load

    annotation = PyTree[Float[np.ndarray, "?n"], "T"]
    t = annotation.type
    rows: list[tuple[str, float | str]] = []
    for name in ("jax", "optree", "own"):
        try:
            load(name)
        except ImportError as error:
            rows.append((f"tensortypes, {name} backend", f"n/a ({error})"))
            continue
        set_backend(name)

        def call():
            b = Bindings()
            if not (t.check(x, b) and t.check(y, b)):
                raise AssertionError("the benchmark trees must pass")

        call()
        rows.append((f"tensortypes, {name} backend", best_ms(call, repeat, min_time)))
    set_backend(None)
    rows.append(("tensortypes typechecked", _checked(annotation, x, y, repeat, min_time)))
    return rows


def _checked(annotation, x, y, repeat: int, min_time: float) -> float | str:
    try:
        from tensortypes.runtime import typechecked
    except ImportError as error:
        return f"n/a ({error})"
    try:

        @typechecked
        def f(x: annotation, y: annotation):
            return None

        f(x, y)
    except Exception as error:  # noqa: BLE001 (the row reports why it cannot run)
        return f"n/a ({type(error).__name__}: {str(error).splitlines()[0][:60]})"
    return best_ms(lambda: f(x, y), repeat, min_time)


def jaxtyping_row(x: dict, y: dict, repeat: int, min_time: float) -> float | str:
    try:
        from beartype import beartype
        from jaxtyping import Float, PyTree, jaxtyped
    except ImportError as error:
        return f"n/a ({error})"

    @jaxtyped(typechecker=beartype)
    def f(x: PyTree[Float[np.ndarray, "?n"], "T"], y: PyTree[Float[np.ndarray, "?n"], "T"]):
        return None

    f(x, y)
    return best_ms(lambda: f(x, y), repeat, min_time)


def render(rows: list[tuple[str, float | str]], theirs: float | str) -> str:
    lines = [
        "| check | time per call | speed-up over jaxtyping | target (>= 10x) |",
        "|---|---|---|---|",
    ]
    for name, value in rows:
        if isinstance(value, str) or isinstance(theirs, str):
            shown = value if isinstance(value, str) else f"{value:.3f} ms"
            lines.append(f"| {name} | {shown} | n/a | n/a |")
            continue
        speedup = theirs / value
        verdict = "ok" if speedup >= TARGET_SPEEDUP * 0.9 else "MISSED"
        lines.append(f"| {name} | {value:.3f} ms | {speedup:.1f}x | {verdict} |")
    shown = theirs if isinstance(theirs, str) else f"{theirs:.3f} ms"
    lines.append(f"| jaxtyping + beartype | {shown} | 1.0x | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    x, y = trees()
    rows = ours_rows(x, y, args.repeat, args.min_time)
    theirs = jaxtyping_row(x, y, args.repeat, args.min_time)
    if args.json:
        print(json.dumps({"rows": rows, "jaxtyping": theirs}))
    else:
        print(
            f"Python {sys.version.split()[0]}, NumPy {np.__version__}; "
            f"two trees of 1000 float32 arrays, PyTree[Float[np.ndarray, '?n'], 'T']"
        )
        print(render(rows, theirs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
