"""Where a diagnostic's notes point (layer 6: ``check``).

A note names the line where a size was bound or a value came from
(``n from x axis 0 (line 3)``, ``from self.fc1(x) at line 11``). The editor
(``relatedInformation``) and SARIF (``relatedLocations``) turn those lines into
links; :func:`note_lines` finds them.

A note that names the line where an operand's shape was made (``its shape
from line 26``) is a :class:`ShapeNote`: besides its text it knows the line,
the operand and its shape, so the diagnostic can also show a note *at* that
line (:func:`shape_origin`), as mypy prints a note at its own location.
"""

from __future__ import annotations

import re

__all__ = ["ShapeNote", "note_line", "note_lines", "shape_origin"]

_LINE = re.compile(r"\bline (\d{1,9})\b")


def note_lines(note: str) -> list:
    """The line numbers a note names, in order, without repeats.

    >>> note_lines("sizes bound by: n from x axis 0 (line 3); m from y axis 1 (line 7)")
    [3, 7]
    """
    found = []
    for match in _LINE.finditer(note):
        line = int(match.group(1))
        if line >= 1 and line not in found:
            found.append(line)
    return found


def note_line(note: str) -> int | None:
    """The first line a note names, or None.

    >>> note_line("left operand h: (b, 128) float32, from self.fc1(x) at line 11")
    11
    """
    lines = note_lines(note)
    return lines[0] if lines else None


class ShapeNote(str):
    """A note's text that names where an operand's shape was made.

    ``line`` is that line (0: none, the branches made it), ``name`` the variable
    that carries the shape, ``shape`` the shape as the message writes it,
    ``assigned`` the line that assigned the variable (None when unknown) and
    ``sources`` other lines that made it, ``((line, shape), ...)``: each branch's,
    or the variable's previous value's; and ``(line, text, variable)`` for an int or
    float variable that set one of its sizes (``n_bins is m``, ``w is a number over m``). It compares and prints as its text; the cache and
    the JSON output keep the text only.
    """

    line: int
    name: str
    shape: str
    assigned: int | None
    sources: tuple

    def __new__(
        cls,
        text: str,
        line: int,
        name: str,
        shape: str,
        assigned: int | None = None,
        sources: tuple = (),
    ) -> ShapeNote:
        made = super().__new__(cls, text)
        made.line = line
        made.name = name
        made.shape = shape
        made.assigned = assigned
        made.sources = sources
        return made

    def __reduce__(self):
        return (
            ShapeNote,
            (str(self), self.line, self.name, self.shape, self.assigned, self.sources),
        )


def shape_origin(note, used_at: int, source_lines) -> list:
    """The located notes ``(line, column, message)`` a :class:`ShapeNote` gives for an
    error at line ``used_at``: one at the line that made the shape, and one at the
    line that assigned the variable when that is a third line (a shape kept from
    another variable: ``m = torch.gather(x, -1, index=i)`` has the shape of ``i``).
    None for another kind of note, and none at the error's own line or at a line
    the source does not have. The column is where the line's statement starts.

    >>> n = ShapeNote("m: (c, 1), its shape from line 2", 2, "m", "(c, 1)")
    >>> shape_origin(n, 4, ["def f(x):", "    m = x[:, None]", "", "    return m @ x"])
    [(2, 5, 'm gets its shape (c, 1) here (used at line 4)')]
    """
    if not isinstance(note, ShapeNote):
        return []
    found = []
    if note.line != used_at and 1 <= note.line <= len(source_lines):
        found.append(
            (
                note.line,
                _column(source_lines[note.line - 1]),
                f"{note.name} gets its shape {note.shape} here (used at line {used_at})",
            )
        )
    for line, shape, *size in note.sources:
        if line not in (used_at, note.line) and 1 <= line <= len(source_lines):
            if size[1:] == ["array"]:  # an array the variable's value was made from
                said = f"{shape} here, and {note.name} {note.shape} is made from it"
            elif size[1:] == ["number"]:  # an int variable the operation was given
                said = f"{shape} here"
            elif size[1:] in (["said"], ["call"]):
                # a line and what it made, as written; or a callee's line that fails for
                # the call at ``used_at``
                at = "the call" if size[1:] == ["call"] else "used"
                found.append(
                    (line, _column(source_lines[line - 1]), f"{shape} ({at} at line {used_at})")
                )
                continue
            elif size:
                said = f"{shape} here, a size of {note.name} {note.shape}"
            else:
                said = f"{note.name} is {shape} here"
            located = (line, _column(source_lines[line - 1]), f"{said} (used at line {used_at})")
            if located not in found:
                found.append(located)
    assigned = note.assigned
    if (
        assigned is not None
        and assigned not in (used_at, note.line)
        and 1 <= assigned <= len(source_lines)
    ):
        shape = (
            f"its shape {note.shape} from line {note.line}"
            if note.line
            else f"with the shape {note.shape}"
        )
        found.append(
            (
                assigned,
                _column(source_lines[assigned - 1]),
                f"{note.name} is assigned here, {shape} (used at line {used_at})",
            )
        )
    return found


def _column(text: str) -> int:
    return len(text) - len(text.lstrip()) + 1
