"""README.md stays true: its examples run, and its two commands are the ones CI runs.

(The README's other code blocks, the install lines and commands, are run or
checked by ``tests/test_docs.py`` with those of ``docs/``.)

Every ``>>>`` example in README.md is run with doctest, one section (``## ``
heading) at a time with fresh globals, so each section stands on its own and a
failure names the section. The quickstart's commands are checked against the
Makefile (a dry run) and against ``.ci/run``.
"""

from __future__ import annotations

import doctest
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _sections() -> list[tuple[str, int, str]]:
    """(heading, first line number, text) of every ``## `` section of README.md."""
    lines = README.read_text(encoding="utf-8").splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")] + [len(lines)]
    return [(lines[a][3:].strip(), a, "".join(lines[a:b])) for a, b in zip(starts, starts[1:])]


SECTIONS = [s for s in _sections() if ">>> " in s[2]]


def test_readme_has_examples():
    assert len(SECTIONS) >= 4, [s[0] for s in _sections()]


@pytest.mark.parametrize("heading,lineno,text", SECTIONS, ids=[s[0] for s in SECTIONS])
def test_readme_section_examples(heading, lineno, text, cache_dir):
    test = doctest.DocTestParser().get_doctest(
        text, {}, f"README.md: {heading}", str(README), lineno
    )
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    result = runner.run(test, out=out.write)
    assert result.attempted > 0
    assert result.failed == 0, out.getvalue()


def _quickstart() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```(?:bash|sh|console)?\n(make demo.*?)```", text, re.S)
    assert block, "README.md has no block of the clone's two commands"
    commands = (line.split(" #")[0].strip() for line in block.group(1).splitlines())
    return [c for c in commands if c and not c.startswith("#")]


def test_install_comes_first_then_the_two_commands():
    text = README.read_text(encoding="utf-8")
    headings = [s[0] for s in _sections()]
    assert headings[0] == "Use it in your project", headings
    assert text.index("```") == text.index("```bash\npip install"), "installing comes first"
    assert _quickstart() == ["make demo", "make test"]


needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(*args: str) -> str:
    proc = subprocess.run(
        ["make", "-n", "-B", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@needs_make
def test_make_test_creates_the_venv_and_uses_its_python():
    out = _dry_run("test", "PYTHON=python3.42")
    assert "python3.42 -m venv .venv" in out  # PYTHON is respected
    assert re.search(r"^\.venv/bin/python -m pip install .*-e '\.\[test\]'$", out, re.M), out
    assert re.search(r"^\.venv/bin/python -m pytest", out, re.M), out


@needs_make
def test_make_demo_runs_the_demo_from_the_venv():
    out = _dry_run("demo")
    assert re.search(r"^\.venv/bin/python -m pip install .*-e \.$", out, re.M), out
    assert ".venv/bin/python -m tensortypes demo" in out


def test_ci_runs_the_readme_test_command():
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    commands = [
        line.strip()
        for line in script.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert "set -euo pipefail" in commands
    # The README's test command, then only the dogfood run of the static checker.
    test_at = commands.index(_quickstart()[1])
    assert [c for c in commands[test_at + 1 :] if not c.startswith("echo ")] == [
        ".venv/bin/python -m tensortypes check --no-cache src tests"
    ]
    # Pinned: an unpinned torch would pull a CUDA build of several GB.
    assert '"torch==2.13.0"' in script and " jax" in script
    proc = subprocess.run(["bash", "-n", str(REPO / ".ci" / "run")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
