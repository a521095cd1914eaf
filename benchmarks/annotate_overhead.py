"""Benchmark: what ``tensortypes annotate run`` costs a test suite, against the untraced run.

Each suite runs in a fresh subprocess, untraced (``python -m pytest ...``) and traced
(``python -m tensortypes annotate run --include PKG -- python -m pytest ...``), best of
``--repeat`` runs each, alternating, so both see the same machine. The ratio is the
traced time over the untraced one (the issue's target: under 2x).

Suites: the sample projects of ``tests/annotator/projects`` (NumPy geometry; a tiny
GPT in PyTorch, skipped without torch); x-transformers with the selection of its own
tests that ``scripts/annotate_real.py`` runs, when a snapshot is under
``$TENSORTYPES_SNAPSHOTS/x-transformers`` (skipped with a note otherwise); and, with
``--suite DIR PKG``, any project of yours (its tests under ``DIR/tests``).

    python benchmarks/annotate_overhead.py [--repeat 3] [--suite DIR PKG]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import markdown_table

ROOT = Path(__file__).resolve().parents[1]


def _time(cmd: list, cwd: Path) -> float:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
    return elapsed


def measure(project: Path, package: str, repeat: int, tests=("tests",)) -> tuple:
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests]
    traced = [
        sys.executable,
        "-m",
        "tensortypes",
        "annotate",
        "run",
        "--trace",
        str(project / "bench.sqlite3"),
        "--include",
        package,
        "--",
        "python",
        *pytest[1:],
    ]
    plain, slow = [], []
    for _ in range(repeat):
        plain.append(_time(pytest, project))
        slow.append(_time(traced, project))
        (project / "bench.sqlite3").unlink(missing_ok=True)
    return min(plain), min(slow)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--suite", nargs=2, action="append", default=[], metavar=("DIR", "PKG"))
    args = parser.parse_args()
    suites = [(ROOT / "tests" / "annotator" / "projects" / "npgeo", "npgeo")]
    if importlib.util.find_spec("torch") is not None:
        suites.append((ROOT / "tests" / "annotator" / "projects" / "tinygpt", "tinygpt"))
    suites = [(path, package, ("tests",)) for path, package in suites]
    snapshot = Path(os.environ.get("TENSORTYPES_SNAPSHOTS", "/nonexistent")) / "x-transformers"
    if snapshot.is_dir() and importlib.util.find_spec("torch") is not None:
        sys.path.insert(0, str(ROOT / "scripts"))
        from annotate_real import SUITES

        package, tests = SUITES["x-transformers"]
        suites.append((snapshot, package, tuple(tests)))
    else:
        print("x-transformers skipped: no snapshot under $TENSORTYPES_SNAPSHOTS (or no torch)")
    suites += [(Path(d), p, ("tests",)) for d, p in args.suite]
    rows = []
    for source, package, tests in suites:
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / source.name
            shutil.copytree(source, project, ignore=shutil.ignore_patterns(".git", "*.ipynb"))
            plain, traced = measure(project, package, args.repeat, tests)
        rows.append((package, f"{plain:.2f} s", f"{traced:.2f} s", f"{traced / plain:.2f}x"))
    print(markdown_table(("suite", "untraced", "annotate run", "ratio"), rows))


if __name__ == "__main__":
    main()
