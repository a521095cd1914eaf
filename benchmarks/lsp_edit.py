"""Benchmark: how long the language server takes to answer an edit of a large module.

The module is the checker's own corpus of correct programs (``tests/check/data/*_ok.py``)
joined into one file until it has at least ``--lines`` lines (default 2,000; further
copies have their functions and classes renamed), so every line is checkable code.

Measured, one core, in this process:

- **cold**: the first check of the module by a fresh server (imports done);
- **warm edit**: the server has checked the module; one line inside a function body
  changes (a new local assignment); the time until the new diagnostics are ready
  (``TensortypesServer.check_text``: the same call ``didChange`` makes after its
  debounce pause, which is a setting and is not counted);
- **hover**: the shape of an expression from the last check's walk.

Also shown side by side: the cost of ``ast.parse`` alone on the same text, the floor
any Python checker that reads the source pays. Wall times on a loaded machine
mislead; the CPU time of this process is shown too.

    python benchmarks/lsp_edit.py [--lines 2000] [--repeat 7]

Needs the ``lsp`` extra (pygls, lsprotocol).
"""

from __future__ import annotations

import argparse
import ast
import re
import statistics
import time
from pathlib import Path

from _timing import markdown_table

ROOT = Path(__file__).resolve().parents[1]


def corpus(lines: int) -> str:
    parts = [
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "tests" / "check" / "data").glob("*_ok.py"))
    ]
    chosen, n, k = [], 0, 0
    while n < lines:
        part = parts[k % len(parts)]
        copy = k // len(parts)
        if copy:
            part = re.sub(
                r"\b(def|class) (\w+)", lambda m: f"{m.group(1)} {m.group(2)}_{copy}", part
            )
        chosen.append(part)
        n += part.count("\n") + 1
        k += 1
    return "\n".join(chosen)


def edit(text: str, i: int) -> str:
    """The text with one new assignment inside the last function's body."""
    lines = text.split("\n")
    for j in range(len(lines) - 1, -1, -1):
        if lines[j].startswith("def ") and lines[j].rstrip().endswith(":"):
            indent = "    "
            lines.insert(j + 1, f"{indent}_edit_{i} = {i}")
            break
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    from lsprotocol import types as lsp

    from tensortypes.lsp.server import TensortypesServer, _innermost

    text = corpus(args.lines)
    n_lines = text.count("\n") + 1
    server = TensortypesServer()
    start = time.perf_counter()
    result = server.check_text(text, "big.py", 1)
    cold = time.perf_counter() - start
    warm, warm_cpu, parse, hover = [], [], [], []
    for i in range(args.repeat):
        changed = edit(text, i)
        start, cpu = time.perf_counter(), time.process_time()
        result = server.check_text(changed, "big.py", i + 2)
        warm.append(time.perf_counter() - start)
        warm_cpu.append(time.process_time() - cpu)
        start = time.perf_counter()
        ast.parse(changed)
        parse.append(time.perf_counter() - start)
        node = next(iter(result.record))
        start = time.perf_counter()
        _innermost(result, node.lineno, node.col_offset)
        hover.append(time.perf_counter() - start)
    del lsp
    rows = [
        ("cold check", f"{cold * 1e3:.0f} ms"),
        ("warm edit (median)", f"{statistics.median(warm) * 1e3:.0f} ms"),
        ("warm edit (best)", f"{min(warm) * 1e3:.0f} ms"),
        (
            "warm edit, CPU time of this process (median)",
            f"{statistics.median(warm_cpu) * 1e3:.0f} ms",
        ),
        ("ast.parse alone (median)", f"{statistics.median(parse) * 1e3:.0f} ms"),
        ("hover lookup (median)", f"{statistics.median(hover) * 1e3:.1f} ms"),
    ]
    print(f"module: {n_lines} lines, {len(result.diagnostics)} diagnostics")
    print(markdown_table(("what", "time"), rows))


if __name__ == "__main__":
    main()
