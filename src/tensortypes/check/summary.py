"""The ``--strict`` summary: what the checker could not check, by cause (layer 6: ``check``).

Under ``--strict`` every place where the checker gave up is a note (code
``unchecked``); on a large project they run to thousands of lines. The summary
line counts them by cause, with the number of modules each cause touches::

    not checked: 2 unresolved imports (1 module), 12 annotations with unresolved
    names (3 modules), 40 calls of library functions with no rule (9 modules), 25
    calls of unknown functions (7 modules)
"""

from __future__ import annotations

import re

__all__ = ["CAUSES", "cause_of", "unchecked_summary"]

_UNRESOLVED = re.compile(r"annotation .* names \w+, which is not resolved")
_REMAINDERS = re.compile(r"sizes .* are equal only when the divisions in them are exact")

# (cause, its singular, what the message starts with or a pattern it matches), most
# specific first.
CAUSES = (
    ("unresolved imports", "unresolved import", "import of "),
    ("annotations with unresolved names", "annotation with an unresolved name", _UNRESOLVED),
    ("annotations not understood", "annotation not understood", "annotation "),
    (
        "calls of array methods with no rule",
        "call of an array method with no rule",
        "no rule for the array method",
    ),
    (
        "calls of library functions with no rule",
        "call of a library function with no rule",
        "no rule for ",
    ),
    ("calls of unknown functions", "call of an unknown function", "call of "),
    ("expressions nested too deeply", "expression nested too deeply", "expression nested "),
    (
        "sizes equal only when a division is exact",
        "size equal only when a division is exact",
        _REMAINDERS,
    ),
)
_OTHER = ("other values the checker gave up on", "other value the checker gave up on")


def cause_of(message: str) -> str:
    """The cause an ``unchecked`` note's message names.

    >>> cause_of("no rule for torch.foo: its result is unknown")
    'calls of library functions with no rule'
    """
    for cause, _, start in CAUSES:
        if message.startswith(start) if isinstance(start, str) else start.match(message):
            return cause
    return _OTHER[0]


def unchecked_summary(diagnostics) -> str:
    """One line counting the ``unchecked`` notes by cause (see the module docstring).

    >>> from tensortypes.check.diagnostics import Diagnostic
    >>> d = Diagnostic("m.py", 1, 1, "unchecked", "import of pkg.x not resolved", (), "note")
    >>> unchecked_summary([d])
    'not checked: 1 unresolved import (1 module)'
    """
    counts: dict = {}
    modules: dict = {}
    for d in diagnostics:
        if d.code != "unchecked":
            continue
        cause = cause_of(d.message)
        counts[cause] = counts.get(cause, 0) + 1
        modules.setdefault(cause, set()).add(d.path)
    if not counts:
        return "not checked: nothing (every annotation, call and import was understood)"
    parts = []
    for cause, singular, *_ in (*CAUSES, _OTHER):
        n = counts.get(cause)
        if not n:
            continue
        m = len(modules[cause])
        parts.append(f"{n} {cause if n != 1 else singular} ({m} module{'s' if m != 1 else ''})")
    return "not checked: " + ", ".join(parts)
