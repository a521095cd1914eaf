"""Diagnostics of the static checker and their text and JSON forms (layer 6: ``check``).

A :class:`Diagnostic` is one finding about a source file: where
(``path:line:col``, 1-based line and column as editors count them), how bad
(``error``, or ``note`` for what ``--strict`` reports), a code naming the rule
(``[matmul]``), the message, and notes (the sizes involved and where each was
bound), and ``related`` notes at other places of the file (where an operand's
shape was made). Text output follows mypy's layout, the located notes right
after the error::

    model.py:12:16: error: matmul: contracted axes differ: 128 vs 64 [matmul]
    model.py:11:5: note: h gets its shape (b, 128) here (used at line 12)
    model.py:12:16: note: left operand h: (b, 128) float32, its shape from line 11

Notes are not findings: ``--baseline`` and ``# type: ignore`` deal with the
error only, and its notes go with it.

The rules raise :class:`CheckFailure`; the walker turns it into a
``Diagnostic`` at the node it was checking.
"""

from __future__ import annotations

import json

__all__ = ["CODES", "Diagnostic", "CheckFailure", "format_text", "to_json", "from_json"]

# Every code the checker emits, with what it means (docs/check.md lists the same).
CODES: dict[str, str] = {
    "broadcast": "operands of an elementwise operation do not broadcast",
    "matmul": "the contracted axes of a matrix product differ, or an operand has rank 0",
    "reshape": "reshape/view to a shape with a different number of elements",
    "view": "view of a non-contiguous tensor (after transpose/permute/expand)",
    "axis": "an axis or dim argument out of range for the array's rank",
    "rank": "an operation got an array of the wrong rank",
    "concat": "arrays joined by cat/concatenate/stack disagree off the joined axis",
    "layer": "a torch.nn layer got an input whose size or layout it cannot take",
    "loss": "a loss got a target of the wrong shape or dtype",
    "dtype": "a dtype an operation cannot take (float indices, int labels, mixed precision)",
    "index": "indexing out of range, or with too many indices",
    "arg-type": "an argument does not match the annotation of its parameter",
    "return": "a returned value does not match the function's return annotation",
    "assign": "an assigned value does not match the annotation of its target",
    "call": "a call with missing, extra or unknown arguments",
    "attr": "an attribute that the class's schema (set in __init__) does not have",
    "optional": "a value that may be None used where None fails",
    "assert": "an assert on sizes or shapes that fails for every size the annotations allow",
    "annotation": "a malformed shape string or dimension expression",
    "syntax": "the file does not parse",
    "unchecked": "(--strict) the checker gave up on a value here",
    "reveal": "(a note) reveal_type(x): what the checker knows about x",
    "skipped": "(a note) a path that is not a source file to read: a FIFO, a device, or a "
    "file over the size limit",
    "internal": "the checker itself failed on this file (a bug of tensortypes): the rest of "
    "the file is unchecked",
}


class CheckFailure(Exception):
    """Raised by a rule: ``code`` (a key of ``CODES``), ``message`` and ``notes``."""

    def __init__(self, code: str, message: str, notes: tuple | list = ()):
        super().__init__(message)
        self.code = code
        self.message = message
        self.notes = tuple(notes)


class Diagnostic:
    """One finding: ``path``, ``line``, ``col`` (1-based), ``code``, ``message``, ``notes``.

    ``end_line``/``end_col`` (1-based, the column after the last character, or
    None) give the extent of the expression, for editors and SARIF. ``related``
    holds notes located elsewhere in the same file, ``(line, col, message)``.

    >>> d = Diagnostic("m.py", 3, 5, "matmul", "contracted axes differ: 3 vs 4",
    ...                ("a: (2, 3), its shape from line 2",),
    ...                related=((2, 5, "a gets its shape (2, 3) here (used at line 3)"),))
    >>> print(d.to_text())
    m.py:3:5: error: contracted axes differ: 3 vs 4 [matmul]
    m.py:2:5: note: a gets its shape (2, 3) here (used at line 3)
    m.py:3:5: note: a: (2, 3), its shape from line 2
    """

    __slots__ = (
        "path",
        "line",
        "col",
        "code",
        "message",
        "notes",
        "severity",
        "end_line",
        "end_col",
        "related",
    )

    def __init__(
        self,
        path: str,
        line: int,
        col: int,
        code: str,
        message: str,
        notes: tuple | list = (),
        severity: str = "error",
        end_line: int | None = None,
        end_col: int | None = None,
        related: tuple | list = (),
    ):
        if code not in CODES:
            raise ValueError(f"unknown diagnostic code {code!r}")
        if severity not in ("error", "note"):
            raise ValueError(f"severity is 'error' or 'note', got {severity!r}")
        self.path = path
        self.line = line
        self.col = col
        self.code = code
        self.message = message
        self.notes = tuple(notes)
        self.severity = severity
        self.end_line = end_line
        self.end_col = end_col
        self.related = tuple((int(ln), int(c), str(m)) for ln, c, m in related)

    def key(self) -> tuple:
        return (self.path, self.line, self.col, self.code, self.message)

    def __eq__(self, other):
        return (
            isinstance(other, Diagnostic)
            and self.key() == other.key()
            and self.notes == other.notes
            and self.severity == other.severity
            and self.related == other.related
        )

    def __hash__(self):
        return hash(self.key())

    def __repr__(self) -> str:
        return f"Diagnostic({self.path}:{self.line}:{self.col} [{self.code}] {self.message!r})"

    def to_text(self) -> str:
        """The mypy-style lines: the finding, its located notes (each at its own
        line), then one ``note:`` line per note."""
        where = f"{self.path}:{self.line}:{self.col}"
        lines = [f"{where}: {self.severity}: {self.message} [{self.code}]"]
        lines.extend(f"{self.path}:{ln}:{c}: note: {m}" for ln, c, m in self.related)
        lines.extend(f"{where}: note: {note}" for note in self.notes)
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """A JSON-ready dict with every field."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.col,
            "end_line": self.end_line,
            "end_column": self.end_col,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "notes": list(self.notes),
            "related": [{"line": ln, "column": c, "message": m} for ln, c, m in self.related],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Diagnostic:
        """The inverse of :meth:`to_dict` (used by the cache)."""
        return cls(
            data["path"],
            data["line"],
            data["column"],
            data["code"],
            data["message"],
            tuple(data.get("notes", ())),
            data.get("severity", "error"),
            data.get("end_line"),
            data.get("end_column"),
            [(r["line"], r["column"], r["message"]) for r in data.get("related", ())],
        )


def format_text(diagnostics, summary: bool = True, files: int | None = None) -> str:
    """All ``diagnostics`` as text, with mypy's closing summary line.

    >>> format_text([], files=2)
    'Success: no issues found in 2 source files'
    """
    lines = [d.to_text() for d in diagnostics]
    if summary:
        errors = sum(d.severity == "error" for d in diagnostics)
        where = f" in {files} source file{'s' if files != 1 else ''}" if files is not None else ""
        if errors:
            bad = len({d.path for d in diagnostics if d.severity == "error"})
            lines.append(
                f"Found {errors} error{'s' if errors != 1 else ''} in {bad} "
                f"file{'s' if bad != 1 else ''}"
                + (
                    f" (checked {files} source file{'s' if files != 1 else ''})"
                    if files is not None
                    else ""
                )
            )
        else:
            lines.append(f"Success: no issues found{where}")
    return "\n".join(lines)


def to_json(diagnostics, files: int | None = None) -> str:
    """The ``--json`` output: ``{"diagnostics": [...], "summary": {...}}``.

    >>> import json
    >>> json.loads(to_json([]))["summary"]["errors"]
    0
    """
    errors = sum(d.severity == "error" for d in diagnostics)
    return json.dumps(
        {
            "diagnostics": [d.to_dict() for d in diagnostics],
            "summary": {"errors": errors, "files": files},
        },
        indent=2,
    )


def from_json(text: str) -> list:
    """The diagnostics of a ``--json`` output."""
    return [Diagnostic.from_dict(d) for d in json.loads(text)["diagnostics"]]
