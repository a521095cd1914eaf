"""Output formats of ``tensortypes check`` for people, editors and CI (layer 6: ``check``).

One function, :func:`render`, turns a run's diagnostics into one of

- ``text``: mypy's layout, ``path:line:col: error: message [code]`` (the
  default; ``show_codes=False`` drops the ``[code]``);
- ``json``: ``{"diagnostics": [...], "summary": {...}}`` (``diagnostics.to_json``);
- ``github``: GitHub Actions workflow commands (``::error file=...``), which
  GitHub shows as annotations on the lines of a pull request's diff;
- ``sarif``: a SARIF 2.1.0 log, the format code-scanning services read.

Every format carries the same diagnostics with the same codes, so the editor
(``tensortypes lsp``), pre-commit and CI show the same findings.
"""

from __future__ import annotations

import json
from pathlib import Path

from .diagnostics import CODES, format_text, to_json

__all__ = ["FORMATS", "render", "to_github", "to_sarif"]

FORMATS = ("text", "json", "github", "sarif")

_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "note": "note"}


def render(
    diagnostics, fmt: str = "text", files: int | None = None, show_codes: bool = True
) -> str:
    """The run's ``diagnostics`` in the output format ``fmt`` (one of ``FORMATS``).

    >>> from tensortypes.check.diagnostics import Diagnostic
    >>> d = Diagnostic("m.py", 3, 5, "matmul", "contracted axes differ: 3 vs 4")
    >>> print(render([d], "github", files=1))
    ::error file=m.py,line=3,col=5,title=tensortypes [matmul]::contracted axes differ: 3 vs 4
    """
    if fmt == "text":
        text = format_text(diagnostics, files=files)
        if not show_codes:
            text = "\n".join(
                _drop_code(line, d) for line, d in _lines_with_owner(text, diagnostics)
            )
        return text
    if fmt == "json":
        return to_json(diagnostics, files=files)
    if fmt == "github":
        return to_github(diagnostics)
    if fmt == "sarif":
        return json.dumps(to_sarif(diagnostics), indent=2)
    raise ValueError(f"unknown output format {fmt!r} (formats: {', '.join(FORMATS)})")


def _lines_with_owner(text: str, diagnostics):
    """Each line of ``format_text`` paired with the diagnostic it belongs to (or None)."""
    owners = []
    for d in diagnostics:
        owners.append(d)
        owners.extend([None] * (len(d.related) + len(d.notes)))
    lines = text.split("\n")
    owners.extend([None] * (len(lines) - len(owners)))
    return zip(lines, owners)


def _drop_code(line: str, owner) -> str:
    suffix = f" [{owner.code}]" if owner is not None else ""
    return line[: -len(suffix)] if suffix and line.endswith(suffix) else line


def _escape_data(text: str) -> str:
    # The workflow-command escapes: a message may hold '%', CR and LF.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(diagnostics) -> str:
    """GitHub Actions workflow commands, one per diagnostic (its notes on further lines).

    ``::error`` for errors and ``::notice`` for notes; GitHub turns each into an
    annotation on that line of the diff.
    """
    out = []
    for d in diagnostics:
        kind = "error" if d.severity == "error" else "notice"
        where = (
            f"file={_escape_property(d.path)},line={d.line},col={d.col}"
            + (f",endLine={d.end_line}" if getattr(d, "end_line", None) else "")
            + (f",endColumn={d.end_col}" if getattr(d, "end_col", None) else "")
        )
        body = "\n".join((d.message, *d.notes))
        out.append(
            f"::{kind} {where},title={_escape_property(f'tensortypes [{d.code}]')}::"
            f"{_escape_data(body)}"
        )
        for line, col, message in d.related:  # a located note: an annotation on its line
            out.append(
                f"::notice file={_escape_property(d.path)},line={line},col={col},"
                f"title={_escape_property(f'tensortypes [{d.code}]')}::{_escape_data(message)}"
            )
    return "\n".join(out)


def _uri(path: str) -> str:
    p = Path(path)
    return p.as_uri() if p.is_absolute() else p.as_posix()


def to_sarif(diagnostics) -> dict:
    """A SARIF 2.1.0 log (a dict ready for ``json.dumps``) with one run of the checker.

    Each code of ``CODES`` is a rule of the tool's driver; each diagnostic a
    result with its location, its located notes as ``relatedLocations`` (line,
    column and their own message), and its notes as further ``relatedLocations``,
    one for each other line a note names (``... at line 11``), and as text otherwise.
    """
    from importlib.metadata import PackageNotFoundError, version

    from .notes import note_lines

    try:
        tool_version = version("tensortypes")
    except PackageNotFoundError:  # run from a source tree that was never installed
        tool_version = "0"

    used = sorted({d.code for d in diagnostics})
    rules = [{"id": code, "name": code, "shortDescription": {"text": CODES[code]}} for code in used]
    index = {code: i for i, code in enumerate(used)}
    results = []
    for d in diagnostics:
        region = {"startLine": max(1, d.line), "startColumn": max(1, d.col)}
        if getattr(d, "end_line", None):
            region["endLine"] = d.end_line
            if getattr(d, "end_col", None):
                region["endColumn"] = d.end_col
        location = {
            "physicalLocation": {"artifactLocation": {"uri": _uri(d.path)}, "region": region}
        }
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": _SARIF_LEVEL[d.severity],
            "message": {"text": "\n".join((d.message, *d.notes))},
            "locations": [location],
        }
        related: list[dict] = []
        for line, col, message in d.related:
            related.append(
                {
                    "id": len(related),
                    "message": {"text": message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(d.path)},
                        "region": {"startLine": line, "startColumn": col},
                    },
                }
            )
        located = {line for line, _, _ in d.related}
        for note in d.notes:
            for line in note_lines(note):  # each line a note names (made at, shaped at)
                if line in located:
                    continue
                related.append(
                    {
                        "id": len(related),
                        "message": {"text": note},
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(d.path)},
                            "region": {"startLine": line},
                        },
                    }
                )
        if related:
            result["relatedLocations"] = related
        results.append(result)
    return {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {"name": "tensortypes", "version": tool_version, "rules": rules}
                },
                "results": results,
            }
        ],
    }
