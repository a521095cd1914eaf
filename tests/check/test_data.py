"""The data-driven checker tests: every program under ``data/`` with inline expectations.

A line ending in ``# E: fragment`` must get an error whose message contains
``fragment`` (``# E: fragment [code]`` also fixes the code); a line may carry
several. Every other line must get no error: the ``*_ok.py`` programs have no
expectation at all, so any error in them is a false alarm.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tensortypes.check import check_source

DATA = Path(__file__).parent / "data"
PROGRAMS = sorted(DATA.glob("*.py"))
_EXPECT = re.compile(r"# E: ([^#]*)")
_CODE = re.compile(r"(.*?)\s*\[([a-z-]+)\]$")


def expectations(text: str) -> dict:
    """``{line: [(fragment, code or None), ...]}`` from the ``# E:`` comments."""
    found: dict = {}
    for number, line in enumerate(text.splitlines(), start=1):
        for raw in _EXPECT.findall(line):
            raw = raw.strip()
            match = _CODE.match(raw)
            fragment, code = (match.group(1), match.group(2)) if match else (raw, None)
            found.setdefault(number, []).append((fragment, code))
    return found


def test_the_corpus_has_both_kinds():
    names = {p.name for p in PROGRAMS}
    assert len(PROGRAMS) >= 20
    bad = {n for n in names if n.endswith("_bad.py")}
    assert bad and all(n.replace("_bad", "_ok") in names for n in bad)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program(path: Path):
    text = path.read_text()
    wanted = expectations(text)
    if path.name.endswith("_ok.py"):
        assert not wanted, "a correct twin must carry no expectation"
    else:
        assert wanted, "a program with bugs must say where they are"
    got: dict = {}
    for d in check_source(text, str(path)):
        if d.severity == "error":
            got.setdefault(d.line, []).append(d)
    problems = []
    for line in sorted(wanted.keys() | got.keys()):
        found = got.get(line, [])
        for fragment, code in wanted.get(line, []):
            if not any(fragment in d.message and code in (None, d.code) for d in found):
                problems.append(
                    f"line {line}: missing error containing {fragment!r}"
                    f"{f' [{code}]' if code else ''}; got "
                    f"{[d.message for d in found]}"
                )
        for d in found:
            if not any(fragment in d.message for fragment, _ in wanted.get(line, [])):
                problems.append(f"line {line}: unexpected {d.message} [{d.code}]")
    assert not problems, "\n".join(problems)
