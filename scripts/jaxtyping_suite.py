"""Run jaxtyping's own test suite on tensortypes and on jaxtyping; print where they differ.

    python scripts/jaxtyping_suite.py JAXTYPING_CHECKOUT [--python PY] [-k EXPR]

JAXTYPING_CHECKOUT is a checkout (or snapshot) of jaxtyping's repository; its
``test/`` directory is copied to a temporary directory (so the checkout's own
``jaxtyping/`` package is not importable from there) and run twice with the same
interpreter: once as is, on the installed jaxtyping, and once under
``python -m tensortypes.jaxtyping_shim``, where ``import jaxtyping`` gives
tensortypes. The interpreter's environment needs jaxtyping, tensortypes, jax,
beartype, typeguard 2.13.3, pytest, pytest-asyncio and IPython; it must not be
the project's test environment (jaxtyping never goes there).

Prints every test whose outcome differs, the totals both ways, and exits 1 when
tensortypes fails a test jaxtyping passes that is not in ``--allow`` (a file of
test ids, one a line, ``#`` comments).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _suites import compare, first_error_lines, run_pytest  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("-k", default=None, help="pytest -k expression")
    parser.add_argument("--allow", default=None, help="file of test ids allowed to differ")
    parser.add_argument("--logs", default=None, help="directory for the two pytest logs")
    parser.add_argument("--only", choices=("both", "ours", "real"), default="both")
    args = parser.parse_args(argv)
    tests = os.path.join(args.checkout, "test")
    if not os.path.isdir(tests):
        print(f"no test/ directory in {args.checkout}", file=sys.stderr)
        return 2
    logs = args.logs or tempfile.mkdtemp(prefix="tt-jaxtyping-suite-")
    os.makedirs(logs, exist_ok=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="tt-jaxtyping-tests-") as work:
        shutil.copytree(tests, os.path.join(work, "test"))
        pytest_args = ["test", "--rootdir", work, "-c", os.devnull]
        if args.k:
            pytest_args += ["-k", args.k]
        for mode in ("real", "ours"):
            if args.only not in ("both", mode):
                continue
            log = os.path.join(logs, f"{mode}.log")
            # The junit report is read by run_pytest; keep a copy for error lines.
            results[mode], code = run_pytest(
                args.python,
                pytest_args,
                work,
                mode == "ours",
                log,
                xml=os.path.join(logs, mode + ".xml"),
            )
            print(f"== {mode}: pytest exit {code}, {len(results[mode])} tests, log {log}")
    if args.only != "both":
        return 0
    allowed = set()
    if args.allow:
        with open(args.allow, encoding="utf-8") as f:
            allowed = {line.split("#")[0].strip() for line in f} - {""}
    if not any(v == "passed" for v in results["real"].values()):
        # A broken environment (jaxtyping or pytest missing) must not pass as "no
        # difference".
        print("== jaxtyping itself passed no test: see the log of the 'real' run", file=sys.stderr)
        return 2
    worse = compare("jaxtyping's suite", results["real"], results["ours"])
    errors = first_error_lines(os.path.join(logs, "ours.xml"))
    unexplained = [
        n
        for n, v in results["real"].items()
        if v == "passed" and results["ours"].get(n) != "passed" and n not in allowed
    ]
    for n in unexplained:
        print(f"  -- {n}: {' | '.join(errors.get(n, ['(no message)']))[:300]}")
    print(f"== {worse} worse, {len(unexplained)} not in the allowed list")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
