"""Checked calls of equinox and lineax: jaxtyping + beartype, tensortypes in its place, our checker.

The libraries are checked the way their own CI checks them: jaxtyping's import
hook decorates every annotated function and dataclass of ``equinox`` and
``lineax`` (``jaxtyping.install_import_hook(["equinox", "lineax"], CHECKER)``,
what ``pytest --jaxtyping-packages=equinox,CHECKER`` does). Each call is timed in
four variants:

- ``unchecked``: the libraries imported without the hook (real jaxtyping
  installed, as equinox needs it);
- ``jaxtyping+beartype``: real jaxtyping's hook with ``beartype.beartype``;
- ``tensortypes+beartype``: the same hook call with tensortypes standing in for
  jaxtyping (``tensortypes.jaxtyping_shim.install()``, what ``python -m
  tensortypes.jaxtyping_shim`` does), beartype kept as the checker;
- ``tensortypes own``: the shim, hook installed with ``None`` as the checker,
  which in tensortypes means its own checker.

Real jaxtyping and tensortypes cannot both be ``jaxtyping`` in one interpreter,
so the script (the driver) runs each variant in a subprocess of itself
(``--worker VARIANT``), in interleaved rounds, and keeps each call's best time
over all rounds. A time is CPU time (``time.process_time``: all threads of the
worker, so JAX's own threads count) per call, the best of several repeats of a
loop of at least ``--min-time`` seconds. The overhead of a variant is its time
minus the unchecked time; the targets (docs/benchmarks.md):

- tensortypes' own checker: at least 10x less overhead than jaxtyping+beartype
  on every call;
- tensortypes with beartype kept: never dearer than jaxtyping+beartype (an
  overhead ratio of at most 1.10 counts as equal: noise).

Run it in its own environment (jaxtyping must never be importable in the test one):

    python -m venv .venv-bench
    .venv-bench/bin/pip install jaxtyping==0.3.11 jax equinox lineax beartype==0.23.1
    .venv-bench/bin/pip install -e .
    .venv-bench/bin/python benchmarks/clients.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_seconds, markdown_table  # noqa: E402 (shared helpers beside this script)

PACKAGES = ["equinox", "lineax"]
VARIANTS = ("unchecked", "jaxtyping+beartype", "tensortypes+beartype", "tensortypes own")
OWN_SPEEDUP = 10.0  # jaxtyping+beartype's overhead over our own checker's, at least
BEARTYPE_RATIO = 1.10  # tensortypes+beartype's overhead over jaxtyping+beartype's, at most


def _import(variant: str, checker: str):
    """Import jax, equinox and lineax checked as ``variant`` says; the hook's checker name."""
    if variant.startswith("tensortypes"):
        import tensortypes.jaxtyping_shim

        tensortypes.jaxtyping_shim.install()
    import jaxtyping

    if variant == "tensortypes own":
        jaxtyping.install_import_hook(PACKAGES, None)
    elif variant != "unchecked":
        jaxtyping.install_import_hook(PACKAGES, checker)
    import equinox
    import jax
    import lineax

    if (variant == "unchecked") == hasattr(equinox.is_array, "__wrapped__"):
        raise SystemExit(
            f"{variant}: equinox.is_array is {'' if variant == 'unchecked' else 'not '}"
            f"decorated: the hook did not do what this variant needs"
        )
    expected = "tensortypes" if variant.startswith("tensortypes") else "jaxtyping"
    if jaxtyping.__name__ != expected:
        raise SystemExit(f"{variant}: `import jaxtyping` gave {jaxtyping.__name__}")
    return jax, equinox, lineax


def calls(jax, eqx, lx) -> dict:
    """``{name: zero-argument callable}``: the calls timed, each waiting for its result."""
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    x = jnp.arange(4.0, dtype=jnp.float32)
    linear = eqx.nn.Linear(4, 3, key=key)
    mlp = eqx.nn.MLP(4, 2, 8, 2, key=key)
    op = lx.MatrixLinearOperator(jnp.eye(4, dtype=jnp.float32) * 2.0)
    ready = jax.block_until_ready
    return {
        "eqx.is_array(x)": lambda: eqx.is_array(x),
        "eqx.filter(mlp, eqx.is_array)": lambda: eqx.filter(mlp, eqx.is_array),
        "eqx.nn.Linear(4, 3, key=key)": lambda: ready(eqx.nn.Linear(4, 3, key=key)),
        "linear(x)": lambda: ready(linear(x)),
        "eqx.nn.MLP(4, 2, 8, 2, key=key)": lambda: ready(eqx.nn.MLP(4, 2, 8, 2, key=key)),
        "mlp(x)": lambda: ready(mlp(x)),
        "lx.MatrixLinearOperator(a)": lambda: lx.MatrixLinearOperator(op.matrix),
        "op.mv(x)": lambda: ready(op.mv(x)),
        "lx.linear_solve(op, x)": lambda: ready(lx.linear_solve(op, x).value),
    }


def worker(variant: str, checker: str, repeat: int, min_time: float) -> dict:
    """``{call: seconds}`` for one variant, in this process."""
    jax, eqx, lx = _import(variant, checker)
    timed = calls(jax, eqx, lx)
    for fn in timed.values():  # first calls trace and compile what the library jits
        fn()
    return {
        name: best_seconds(fn, repeat, min_time, timer=time.process_time)
        for name, fn in timed.items()
    }


def run_rounds(
    rounds: int, checker: str, repeat: int, min_time: float, variants: tuple = VARIANTS
) -> tuple[dict, dict]:
    """``{variant: {call: best seconds over the rounds}}``, each worker a subprocess, and
    ``{variant: last line of its error}`` for the variants whose worker failed."""
    best: dict = {v: {} for v in variants}
    failed: dict = {}
    for _ in range(rounds):
        for variant in variants:
            if variant in failed:
                continue
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--worker",
                    variant,
                    "--checker",
                    checker,
                    "--repeat",
                    str(repeat),
                    "--min-time",
                    str(min_time),
                ],
                capture_output=True,
                text=True,
                env={**os.environ, "JAX_PLATFORMS": "cpu"},
            )
            if out.returncode != 0:
                lines = out.stderr.strip().splitlines() or ["(no output)"]
                failed[variant] = lines[-1]
                print(f"the {variant} worker failed:\n{out.stderr}", file=sys.stderr)
                continue
            for name, seconds in json.loads(out.stdout.splitlines()[-1]).items():
                best[variant][name] = min(seconds, best[variant].get(name, seconds))
    return best, failed


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


def report(best: dict, failed: dict) -> tuple[str, bool]:
    """The table (overheads and their ratios) and whether every target holds; a
    variant whose worker failed reads ``failed`` and misses its target."""
    rows, ok = [], not failed
    # An overhead below zero is noise: the ratios read anything under 0.1 us as 0.1 us.
    floor = 1e-7
    for name, base in best.get("unchecked", {}).items():
        over = {v: best[v][name] - base for v in VARIANTS[1:] if name in best.get(v, {})}
        jt, tb, own = (over.get(v) for v in VARIANTS[1:])
        bear_ratio = None if jt is None or tb is None else max(tb, floor) / max(jt, floor)
        speedup = None if jt is None or own is None else max(jt, floor) / max(own, floor)
        good = (
            bear_ratio is not None
            and bear_ratio <= BEARTYPE_RATIO
            and speedup is not None
            and speedup >= OWN_SPEEDUP
        )
        ok = ok and good
        rows.append(
            (
                name,
                _us(base),
                *("failed" if v is None else _us(v) for v in (jt, tb, own)),
                "n/a" if bear_ratio is None else f"{bear_ratio:.2f}",
                "n/a" if speedup is None else f"{speedup:.1f}",
                "ok" if good else "MISSED",
            )
        )
    header = (
        "call",
        "unchecked time",
        "overhead: jaxtyping+beartype",
        "tensortypes+beartype",
        "tensortypes own",
        "tt+bt / jt+bt",
        "jt+bt / own",
        "target",
    )
    return markdown_table(header, rows), ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=3, help="subprocesses per variant, interleaved (default 3)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="best of N loops (default 5)")
    parser.add_argument(
        "--min-time",
        type=float,
        default=0.1,
        help="seconds each timing loop runs at least (default 0.1)",
    )
    parser.add_argument(
        "--checker",
        default="beartype.beartype",
        help="the hook's checker for the beartype variants (default "
        "beartype.beartype; equinox's CI: 'beartype.beartype(conf="
        "beartype.BeartypeConf(strategy=beartype.BeartypeStrategy.On))')",
    )
    parser.add_argument("--json", action="store_true", help="print the best times as JSON")
    parser.add_argument("--worker", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.checker, args.repeat, args.min_time)))
        return 0
    best, failed = run_rounds(args.rounds, args.checker, args.repeat, args.min_time)
    if args.json:
        print(json.dumps({"best": best, "failed": failed}, indent=2))
        return 0
    table, ok = report(best, failed)
    print(
        f"checker: {args.checker}; CPU time per call, best of {args.rounds} rounds x "
        f"{args.repeat} repeats; overhead = checked - unchecked\n"
    )
    print(table)
    for variant, line in failed.items():
        print(f"\n{variant}: failed: {line}")
    print("\nevery target met" if ok else "\nsome target MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
