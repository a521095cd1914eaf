"""Timing and table helpers shared by the benchmark scripts.

Each script imports this module from its own directory (``python benchmarks/X.py``
puts ``benchmarks/`` first on ``sys.path``), so it is not part of the package.

- ``best_seconds``: best time per execution of a statement or callable, from
  ``timeit`` loops long enough to dwarf the clock, best of several repeats;
- ``best_ns``: the same in nanoseconds, for a statement run in a namespace;
- ``markdown_table``: a header and rows as an aligned Markdown table.
"""

from __future__ import annotations

import timeit

__all__ = ["best_seconds", "best_ns", "markdown_table"]


def best_seconds(
    stmt, repeat: int, min_time: float, namespace: dict | None = None, timer=timeit.default_timer
) -> float:
    """Best seconds per execution of ``stmt`` (a str run in ``namespace``, or a callable).

    The loop count doubles until one loop runs at least ``min_time`` seconds
    (which also warms caches), then the best of ``repeat`` loops is kept.
    ``timer`` is the clock (wall time by default; ``time.process_time`` for CPU
    time, less disturbed by other jobs on a shared machine).

    >>> best_seconds(lambda: None, repeat=1, min_time=0.0) < 1.0
    True
    """
    loop = timeit.Timer(stmt, timer=timer, globals=namespace)
    number = 1
    while loop.timeit(number) < min_time:
        number *= 2
    return min(loop.repeat(repeat=repeat, number=number)) / number


def best_ns(stmt, namespace: dict, repeat: int, min_time: float) -> float:
    """Best time per execution of ``stmt`` in ``namespace``, in nanoseconds.

    >>> best_ns("x + 1", {"x": 1}, repeat=1, min_time=0.0) > 0
    True
    """
    return best_seconds(stmt, repeat, min_time, namespace) * 1e9


def markdown_table(header, rows) -> str:
    """``header`` and ``rows`` (sequences of cells, shown with ``str``) as a Markdown table.

    >>> print(markdown_table(("a", "bb"), [(1, 2)]))
    | a | bb |
    |---|----|
    | 1 | 2  |
    """
    lines = [[str(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = [
        "| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |" for line in lines
    ]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)
