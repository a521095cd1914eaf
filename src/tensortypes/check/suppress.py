"""Comments that silence the checker on a line or a whole file (layer 6: ``check``).

Checked code is often checked by other tools too, and their suppressions mean
the same thing: the author knows this line is not type-clean.

- ``# type: ignore`` (with or without mypy's codes, which are not ours),
  ``# pyright: ignore`` and ``# tensortypes: ignore`` silence every error on
  their line; ``# pyrefly: ignore`` on a line of its own silences the next
  line's; ``# tensortypes: ignore[matmul, broadcast]`` only those codes;
- ``# type: ignore`` on a line of its own before any code (PEP 484),
  ``# mypy: ignore-errors`` or ``# tensortypes: ignore-errors`` among the
  leading comments silence the whole file.

Notes (``--strict``, ``reveal_type``) and ``internal`` errors (a failure of
the checker, not of the code) are never silenced.
"""

from __future__ import annotations

import re

__all__ = ["ignores_file", "ignored_lines", "unsuppressed"]

_IGNORE = re.compile(r"#\s*(type|tensortypes|pyright|pyrefly)\s*:\s*ignore\s*(?:\[([^\]]*)\])?")

_FILE_IGNORE = re.compile(
    r"#\s*(mypy:\s*ignore-errors|tensortypes:\s*ignore-errors|"
    r"pyre-ignore-all-errors|type:\s*ignore\s*$)"
)


def ignores_file(source: str) -> bool:
    """Whether the file's leading comments opt it out of error reports.

    ``# type: ignore`` on a line of its own before any code (PEP 484),
    ``# mypy: ignore-errors`` or ``# tensortypes: ignore-errors``.

    >>> ignores_file("# mypy: ignore-errors\\nimport torch\\n"), ignores_file("x = 1\\n")
    (True, False)
    """
    if "ignore" not in source:
        return False
    for line in source.splitlines():
        text = line.strip()
        if not text:
            continue
        if not text.startswith("#"):
            return False
        if _FILE_IGNORE.match(text):
            return True
    return False


def ignored_lines(source: str) -> dict:
    """``{line: None (every code) or a set of codes}`` from the ignore comments.

    ``# type: ignore`` (with or without mypy's codes, which are not ours),
    ``# pyright: ignore`` and ``# tensortypes: ignore`` silence every error on
    their line (``# pyrefly: ignore`` on a line of its own, the next line's);
    ``# tensortypes: ignore[matmul, broadcast]`` only those codes.

    >>> ignored_lines("x = 1\\ny = f(x)  # tensortypes: ignore[call]\\n")
    {2: {'call'}}
    """
    if "ignore" not in source:
        return {}
    found: dict[int, set[str] | None] = {}
    for number, line in enumerate(source.splitlines(), start=1):
        if "#" not in line:
            continue
        match = _IGNORE.search(line)
        if match is None:
            continue
        codes = match.group(2)
        if match.group(1) == "pyrefly" and line.lstrip().startswith("#"):
            number += 1  # Pyrefly's comment stands above the line it silences
        if match.group(1) == "tensortypes" and codes:
            found[number] = {c.strip() for c in codes.split(",") if c.strip()}
        else:
            found[number] = None
    return found


def unsuppressed(diagnostics, source: str) -> list:
    """``diagnostics`` without the errors the source's comments silence.

    >>> from tensortypes.check.diagnostics import Diagnostic
    >>> d = Diagnostic("m.py", 1, 1, "call", "missing argument")
    >>> unsuppressed([d], "f()  # type: ignore\\n"), unsuppressed([d], "f()\\n") == [d]
    ([], True)
    """
    if ignores_file(source):
        return [d for d in diagnostics if d.severity != "error" or d.code == "internal"]
    ignored = ignored_lines(source)
    return [
        d
        for d in diagnostics
        if d.severity != "error"
        or d.code == "internal"
        or not (d.line in ignored and (ignored[d.line] is None or d.code in ignored[d.line]))
    ]
