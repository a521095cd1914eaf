"""Run the test suites of libraries that use jaxtyping (equinox, lineax, optimistix)
on jaxtyping and on tensortypes, the way their CI runs them; print where they differ.

    python scripts/client_suites.py equinox=PATH [lineax=PATH optimistix=PATH]
        [--python PY] [--checker beartype|ours|both] [--tests tests/test_nn.py ...]
        [-k EXPR] [--only both|ours|real] [--chunk-size N]

Each PATH is a checkout (or snapshot) of that library. pytest runs in it, so its
own ``pyproject.toml`` ``addopts`` apply unchanged
(``--jaxtyping-packages=<pkg>,beartype.beartype(conf=...)``): once on the
installed jaxtyping, once under ``python -m tensortypes.jaxtyping_shim`` (the
library and its dependencies import ``jaxtyping`` and get tensortypes). With
``--checker ours`` the option is given again with tensortypes' own checker
(``--jaxtyping-packages=<pkg>,None``, the last value wins); that run has no
jaxtyping counterpart (jaxtyping has no checker of its own) and is compared
with jaxtyping + beartype.

``--chunk-size N`` runs the selected tests N per pytest process (each run is
collected first): XLA keeps every program it compiled for a function that stays
alive, each with a few memory maps, and a long test file (optimistix's
``test_minimise``) reaches the kernel's limit on a process's maps
(``vm.max_map_count``, 65530 by default) where XLA's compiler dies, with
jaxtyping as with tensortypes. A run that dies by a signal says so.

The interpreter's environment needs jaxtyping, tensortypes, jax, equinox (and
lineax for optimistix), beartype, pytest and the suites' own test dependencies
(optax, pytest-xdist, pytest-benchmark, diffrax...); never the project's test
environment. Exits 1 when tensortypes fails a test jaxtyping passes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _suites import (  # noqa: E402
    compare,
    died_note,
    first_error_lines,
    run_pytest,
    run_pytest_chunks,
)

LIBRARIES = ("equinox", "lineax", "optimistix")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "checkouts", nargs="+", help="NAME=PATH, NAME one of " + ", ".join(LIBRARIES)
    )
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--checker", choices=("beartype", "ours", "both"), default="beartype")
    parser.add_argument("--tests", nargs="*", default=None, help="test files (default: all)")
    parser.add_argument("-k", default=None)
    parser.add_argument("--logs", default=None)
    parser.add_argument("--only", choices=("both", "ours", "real"), default="both")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument(
        "--chunk-size", type=int, default=0, help="tests per pytest process (0: one process)"
    )
    args = parser.parse_args(argv)
    logs = args.logs or tempfile.mkdtemp(prefix="tt-client-suites-")
    os.makedirs(logs, exist_ok=True)
    total_worse = 0
    for item in args.checkouts:
        name, _, path = item.partition("=")
        if name not in LIBRARIES or not os.path.isdir(path):
            print(
                f"expected NAME=PATH with NAME one of {LIBRARIES} and an existing "
                f"directory, got {item!r}",
                file=sys.stderr,
            )
            return 2
        selection = list(args.tests or [])
        if args.k:
            selection += ["-k", args.k]
        # pytest-asyncio (jaxtyping's suite needs it) warns at startup, which these
        # suites' filterwarnings=error turns into an error; none of them uses it.
        base = ["-p", "no:randomly", "-p", "no:asyncio"]
        runs = []
        if args.only in ("both", "real"):
            runs.append(("real", False, []))
        if args.only in ("both", "ours"):
            if args.checker in ("beartype", "both"):
                runs.append(("ours-beartype", True, []))
            if args.checker in ("ours", "both"):
                runs.append(("ours-own", True, [f"--jaxtyping-packages={name},None"]))
        results = {}
        for label, shim, extra in runs:
            log = os.path.join(logs, f"{name}-{label}.log")
            xml = os.path.join(logs, f"{name}-{label}.xml")
            if args.chunk_size > 0:
                results[label], code = run_pytest_chunks(
                    args.python,
                    base + extra,
                    selection,
                    path,
                    shim,
                    log,
                    args.chunk_size,
                    timeout=args.timeout,
                    xml=xml,
                )
            else:
                results[label], code = run_pytest(
                    args.python,
                    selection + base + extra,
                    path,
                    shim,
                    log,
                    timeout=args.timeout,
                    xml=xml,
                )
            print(f"== {name} {label}: pytest exit {code}, {len(results[label])} tests, log {log}")
            if died_note(code):
                print(died_note(code))
        if "real" not in results:
            continue
        for label in results:
            if label == "real":
                continue
            worse = compare(f"{name} ({label})", results["real"], results[label])
            errors = first_error_lines(os.path.join(logs, f"{name}-{label}.xml"))
            for n, v in results["real"].items():
                if v == "passed" and results[label].get(n) != "passed":
                    print(f"  -- {n}: {' | '.join(errors.get(n, ['(no message)']))[:300]}")
            total_worse += worse
    return 1 if total_worse else 0


if __name__ == "__main__":
    sys.exit(main())
