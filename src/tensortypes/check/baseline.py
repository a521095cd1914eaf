"""A baseline of accepted findings, so a large project fails only on new ones (layer 6).

``tensortypes check --write-baseline FILE`` records today's errors;
``tensortypes check --baseline FILE`` then drops every error the file records
and reports the rest. A finding is matched by its file, code and message, not
its line, so an edit above it does not bring it back; each recorded finding
absorbs as many reports as it was recorded times (two identical errors in a
file recorded once leave one reported). Paths are stored relative to the
baseline file's folder, so the file can be committed and used from any
working directory.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

__all__ = ["BASELINE_VERSION", "write_baseline", "read_baseline", "apply_baseline"]

BASELINE_VERSION = 1


def _rel(path: str, folder: Path) -> str:
    p = Path(path)
    try:
        return Path(os.path.relpath(p.resolve(), folder.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return p.as_posix()


def _entry(d, folder: Path) -> tuple:
    return (_rel(d.path, folder), d.code, d.message)


def write_baseline(diagnostics, file) -> int:
    """Record the errors of ``diagnostics`` in ``file``; the number recorded."""
    file = Path(file)
    folder = file.parent
    counts = Counter(_entry(d, folder) for d in diagnostics if d.severity == "error")
    entries = [
        {"path": p, "code": c, "message": m, "count": n} for (p, c, m), n in sorted(counts.items())
    ]
    file.write_text(
        json.dumps({"version": BASELINE_VERSION, "errors": entries}, indent=1) + "\n",
        encoding="utf-8",
    )
    return sum(counts.values())


def read_baseline(file) -> Counter:
    """The recorded findings of ``file``: (path, code, message) -> count.

    Raises ``ValueError`` naming the file when it is not a baseline.
    """
    file = Path(file)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"cannot read the baseline {file}: {error}") from None
    if (
        not isinstance(data, dict)
        or data.get("version") != BASELINE_VERSION
        or not isinstance(data.get("errors"), list)
    ):
        raise ValueError(
            f"{file} is not a tensortypes baseline (version {BASELINE_VERSION}); "
            f"write one with --write-baseline"
        )
    counts: Counter = Counter()
    for item in data["errors"]:
        try:
            counts[(str(item["path"]), str(item["code"]), str(item["message"]))] += int(
                item.get("count", 1)
            )
        except (TypeError, KeyError, ValueError):
            raise ValueError(f"{file}: malformed entry {item!r}") from None
    return counts


def apply_baseline(diagnostics, file) -> tuple:
    """``(kept, dropped)``: the diagnostics the baseline does not record, and how many it did.

    Notes are always kept; an error is dropped while its entry has count left.
    """
    left = read_baseline(file)
    folder = Path(file).parent
    kept, dropped = [], 0
    for d in diagnostics:
        if d.severity == "error":
            key = _entry(d, folder)
            if left[key] > 0:
                left[key] -= 1
                dropped += 1
                continue
        kept.append(d)
    return kept, dropped
