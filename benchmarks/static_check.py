"""Benchmark of ``tensortypes check`` against mypy and Pyrefly on the same files.

Two corpora:

- the checker's own: the test programs (``tests/check/data``) and the shipped
  ``examples/``, whose bug lines are marked (``# E: ...`` / ``# BUG: ...``);
- a generated one of at least ``--lines`` lines (default 10,000): copies of the
  first corpus under fresh names, so every line is real checkable code.

Measured (best of ``--repeat`` runs, each in a fresh subprocess for the other
tools and in this process for tensortypes, one core, ``jobs=1``):

- cold: no cache (tensortypes ``cache=False``; mypy with an empty cache
  directory); warm: a second run over a populated cache;
- lines per second;
- precision and recall on the first corpus: an error line is a true positive
  when that line carries a bug marker. Import errors (the checked libraries'
  stubs) are not counted for any tool.

Run it in its own environment (mypy, Pyrefly and jaxtyping are never installed
in the test environment)::

    python -m venv /tmp/tt-bench-check
    /tmp/tt-bench-check/bin/pip install -e . mypy pyrefly jaxtyping torch==2.13.0
    /tmp/tt-bench-check/bin/python benchmarks/static_check.py

A third measurement is the throughput on a real project of about 100k
lines with imports followed across its modules (``--project``; by default the
TransformerLens snapshot under ``$TENSORTYPES_SNAPSHOTS``): cold (no cache)
and warm (every file a cache hit) lines per second, as CPU time of this
process (one core, ``jobs=1``), so that other load on the machine does not
count. Targets: 20k lines/s cold, 100k lines/s warm. Pyrefly, when installed,
checks the same files with one thread, timed as its process's CPU time, so
that the cold figure is also a ratio to it on the same machine at the same time.

Pyrefly is run with ``tensor-shapes = true`` (its experimental shape mode; a
release that does not know the key warns and checks without it). A tool that
is not installed is reported as ``n/a``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tensortypes.check import check_paths  # noqa: E402
from tensortypes.check.cache import ResultCache  # noqa: E402

_MARK = re.compile(r"# (E:|BUG)")
_IMPORT_NOISE = re.compile(
    r"import|stub|module named|Cannot find|not installed|"
    r"missing-module|unused-ignore",
    re.IGNORECASE,
)


def corpus() -> list:
    files = sorted((ROOT / "tests" / "check" / "data").glob("*.py"))
    files += sorted((ROOT / "examples").glob("*.py"))
    return files


def expected_lines(files) -> set:
    out = set()
    for f in files:
        for number, line in enumerate(f.read_text().splitlines(), 1):
            if _MARK.search(line):
                out.add((f.resolve(), number))
    return out


def generate(files, lines: int, folder: Path) -> list:
    """Copies of ``files`` in ``folder`` until they hold at least ``lines`` lines."""
    out, total, round_ = [], 0, 0
    while total < lines and files:
        for f in files:
            text = f.read_text()
            target = folder / f"g{round_:03d}_{f.name}"
            target.write_text(text)
            out.append(target)
            total += text.count("\n")
        round_ += 1
    return out


def count_lines(files) -> int:
    return sum(f.read_text().count("\n") for f in files)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


# -- the tools -------------------------------------------------------------------------


def ours(files, repeat: int, cache_dir: Path) -> dict:
    cold = best(lambda: check_paths(files, cache=False, jobs=1), repeat)
    shutil.rmtree(cache_dir, ignore_errors=True)
    store = ResultCache(cache_dir)
    check_paths(files, cache=store, jobs=1)
    warm = best(lambda: check_paths(files, cache=ResultCache(cache_dir), jobs=1), repeat)
    errors = {
        (Path(d.path).resolve(), d.line)
        for d in check_paths(files, cache=False, jobs=1)
        if d.severity == "error"
    }
    return {"cold": cold, "warm": warm, "errors": errors}


def _which(module: str) -> bool:
    return (
        subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode
        == 0
    )


def mypy(files, repeat: int, cache_dir: Path) -> dict | None:
    if not _which("mypy"):
        return None
    base = [
        sys.executable,
        "-m",
        "mypy",
        "--ignore-missing-imports",
        "--no-error-summary",
        "--show-column-numbers",
        "--no-pretty",
        "--follow-imports=silent",
    ]
    names = [str(f) for f in files]

    def cold():
        shutil.rmtree(cache_dir, ignore_errors=True)
        return subprocess.run(
            base + ["--cache-dir", str(cache_dir), *names], capture_output=True, text=True
        )

    t_cold = best(cold, repeat)
    proc = cold()
    t_warm = best(
        lambda: subprocess.run(
            base + ["--cache-dir", str(cache_dir), *names], capture_output=True, text=True
        ),
        repeat,
    )
    errors = set()
    for line in proc.stdout.splitlines():
        m = re.match(r"(.+?):(\d+):(\d+): error: (.*)", line)
        if m and not _IMPORT_NOISE.search(m.group(4)):
            errors.add((Path(m.group(1)).resolve(), int(m.group(2))))
    return {"cold": t_cold, "warm": t_warm, "errors": errors}


def pyrefly_check(folder: Path) -> list | None:
    """``pyrefly check`` with its shape mode and JSON output, configured in ``folder``;
    None when Pyrefly is not installed."""
    exe = shutil.which("pyrefly") or str(Path(sys.executable).parent / "pyrefly")
    if not Path(exe).exists():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "pyrefly.toml"
    config.write_text(f'tensor-shapes = true\npython-interpreter-path = "{sys.executable}"\n')
    return [exe, "check", "--config", str(config), "--output-format", "json"]


def pyrefly(files, repeat: int, folder: Path) -> dict | None:
    check = pyrefly_check(folder)
    if check is None:
        return None
    cmd = [*check, *(str(f) for f in files)]

    def run():
        return subprocess.run(cmd, capture_output=True, text=True, cwd=folder)

    t_cold = best(run, repeat)
    proc = run()
    errors = set()
    try:
        data = json.loads(proc.stdout)
        items = data.get("errors", data) if isinstance(data, dict) else data
        for e in items:
            text = " ".join(
                str(e.get(k, "")) for k in ("name", "description", "concise_description")
            )
            if e.get("severity", "error") != "error" or _IMPORT_NOISE.search(text):
                continue
            errors.add(((folder / e["path"]).resolve(), int(e["line"])))
    except (ValueError, KeyError, TypeError):
        for m in re.finditer(r"ERROR (.*?)\n\s*--> (.+?):(\d+):\d+", proc.stdout + proc.stderr):
            if not _IMPORT_NOISE.search(m.group(1)):
                errors.add((Path(m.group(2)).resolve(), int(m.group(3))))
    return {"cold": t_cold, "warm": None, "errors": errors}


def project_throughput(folder: Path, repeat: int, cache_dir: Path) -> dict:
    """Cold and warm CPU seconds of ``check_paths`` on a project, imports followed."""
    files = sorted(folder.rglob("*.py"))
    lines = count_lines(files)

    def cpu(fn) -> float:
        times = []
        for _ in range(repeat):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        return min(times)

    cold = cpu(lambda: check_paths([folder], cache=False, jobs=1))
    shutil.rmtree(cache_dir, ignore_errors=True)
    check_paths([folder], cache=ResultCache(cache_dir), jobs=1)
    warm = cpu(lambda: check_paths([folder], cache=ResultCache(cache_dir), jobs=1))
    return {
        "files": len(files),
        "lines": lines,
        "cold": cold,
        "warm": warm,
        "pyrefly": pyrefly_project(files, repeat, cache_dir.parent / "pyrefly-project"),
    }


def pyrefly_project(files, repeat: int, work: Path) -> float | None:
    """Pyrefly's CPU seconds (its process, one thread) on the same project files, best
    of ``repeat``; None when Pyrefly is not installed. Cold: it keeps no cache."""
    check = pyrefly_check(work)
    if check is None:
        return None
    cmd = [*check, "--threads", "1", *(str(f) for f in files)]
    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, capture_output=True, text=True, cwd=work)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return min(times)


def score(errors: set, expected: set, files) -> tuple:
    names = {f.resolve() for f in files}
    found = {e for e in errors if e[0] in names}
    tp = len(found & expected)
    precision = tp / len(found) if found else float("nan")
    recall = tp / len(expected) if expected else float("nan")
    return precision, recall, len(found)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    snapshots = os.environ.get("TENSORTYPES_SNAPSHOTS")
    parser.add_argument(
        "--project",
        type=Path,
        default=Path(snapshots) / "TransformerLens" if snapshots else None,
        help="a ~100k-line project for the throughput figures "
        "(default: $TENSORTYPES_SNAPSHOTS/TransformerLens)",
    )
    parser.add_argument(
        "--project-only", action="store_true", help="measure only the project throughput"
    )
    args = parser.parse_args(argv)
    small = corpus()
    expected = expected_lines(small)
    rows, quality = [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        gen_dir = tmp / "generated"
        gen_dir.mkdir()
        big = generate(small, args.lines, gen_dir)
        corpora = () if args.project_only else (("test corpus", small), ("generated", big))
        for name, files in corpora:
            n = count_lines(files)
            results = {
                "tensortypes": ours(files, args.repeat, tmp / "tt-cache"),
                "mypy": mypy(files, args.repeat, tmp / "mypy-cache"),
                "pyrefly": pyrefly(files, args.repeat, tmp),
            }
            for tool, r in results.items():
                if r is None:
                    rows.append((name, n, tool, None, None))
                    continue
                rows.append((name, n, tool, r["cold"], r["warm"]))
                if name == "test corpus":
                    quality.append((tool, *score(r["errors"], expected, files)))
        project = None
        if args.project is not None and args.project.is_dir():
            project = project_throughput(args.project, args.repeat, tmp / "tt-project-cache")
    if args.json:
        print(
            json.dumps(
                {"timings": rows, "quality": quality, "project": project}, default=str, indent=2
            )
        )
        return 0
    if not args.project_only:
        print(f"{'corpus':<12} {'lines':>6} {'tool':<12} {'cold':>9} {'lines/s':>9} {'warm':>9}")
        for name, n, tool, cold, warm in rows:
            if cold is None:
                print(f"{name:<12} {n:>6} {tool:<12} {'n/a':>9}")
                continue
            warm_text = f"{warm * 1000:7.0f}ms" if warm is not None else "      n/a"
            print(f"{name:<12} {n:>6} {tool:<12} {cold * 1000:7.0f}ms {n / cold:9.0f} {warm_text}")
        print(f"\nbugs marked in the test corpus: {len(expected)}")
        print(f"{'tool':<12} {'errors':>7} {'precision':>10} {'recall':>7}")
        for tool, precision, recall, count in quality:
            print(f"{tool:<12} {count:>7} {precision:>10.2f} {recall:>7.2f}")
    if project is None:
        print("\nproject throughput: n/a (no --project folder; set TENSORTYPES_SNAPSHOTS)")
    else:
        p = project
        print(
            f"\nproject throughput, imports followed ({args.project.name}: {p['files']} "
            f"files, {p['lines']} lines, one core, CPU time):"
        )
        print(f"  cold {p['cold']:.2f} s = {p['lines'] / p['cold']:,.0f} lines/s (target 20,000)")
        print(f"  warm {p['warm']:.2f} s = {p['lines'] / p['warm']:,.0f} lines/s (target 100,000)")
        if p["pyrefly"] is None:
            print("  pyrefly: n/a (not installed)")
        else:
            print(
                f"  pyrefly, one thread: {p['pyrefly']:.2f} s = "
                f"{p['lines'] / p['pyrefly']:,.0f} lines/s; tensortypes cold takes "
                f"{p['cold'] / p['pyrefly']:.2f}x its time"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
