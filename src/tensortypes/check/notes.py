"""Where a diagnostic's notes point (layer 6: ``check``).

A note names the line where a size was bound or a value came from
(``n from x axis 0 (line 3)``, ``from self.fc1(x) at line 11``). The editor
(``relatedInformation``) and SARIF (``relatedLocations``) turn those lines into
links; :func:`note_lines` finds them.
"""

from __future__ import annotations

import re

__all__ = ["note_line", "note_lines"]

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
