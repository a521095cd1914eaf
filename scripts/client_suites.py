"""Run the test suites of libraries that use jaxtyping (equinox, lineax, optimistix)
on jaxtyping and on tensortypes, the way their CI runs them; print where they differ.

    python scripts/client_suites.py equinox=PATH [lineax=PATH optimistix=PATH]
        [--python PY] [--checker beartype|ours|both] [--tests tests/test_nn.py ...]
        [-k EXPR] [--only both|ours|real]

Each PATH is a checkout (or snapshot) of that library. pytest runs in it, so its
own ``pyproject.toml`` ``addopts`` apply unchanged
(``--jaxtyping-packages=<pkg>,beartype.beartype(conf=...)``): once on the
installed jaxtyping, once under ``python -m tensortypes.jaxtyping_shim`` (the
library and its dependencies import ``jaxtyping`` and get tensortypes). With
``--checker ours`` the option is given again with tensortypes' own checker
(``--jaxtyping-packages=<pkg>,None``, the last value wins); that run has no
jaxtyping counterpart (jaxtyping has no checker of its own) and is compared
with jaxtyping + beartype.

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
from _suites import compare, first_error_lines, run_pytest  # noqa: E402

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
        base = list(args.tests or [])
        if args.k:
            base += ["-k", args.k]
        # pytest-asyncio (jaxtyping's suite needs it) warns at startup, which these
        # suites' filterwarnings=error turns into an error; none of them uses it.
        base += ["-p", "no:randomly", "-p", "no:asyncio"]
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
            results[label], code = run_pytest(
                args.python, base + extra, path, shim, log, timeout=args.timeout, xml=xml
            )
            print(f"== {name} {label}: pytest exit {code}, {len(results[label])} tests, log {log}")
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
