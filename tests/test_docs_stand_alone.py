"""The documentation stands alone: nothing it cites lies outside the repository.

Scanned: every Markdown page of the repository (README.md, CONTRIBUTING.md,
CHANGELOG.md, ``docs/``, the READMEs of ``examples/`` and ``benchmarks/``, and any
other), and every module of
``src/tensortypes``, ``benchmarks/`` and ``tests/`` (docstrings and comments
are what a reader follows). A failure is

- a citation of a document that is not in the repository: a design note
  (``ARCHITECTURE.md``, ``STYLE.md``), a numbered spec ("spec 003"), an issue
  tracker entry ("issue 4"), a path climbing out (``../shared``) or an
  absolute path on the author's machine;
- a Markdown link to a relative path that does not exist;
- in a page or in ``src``, a path under one of the repository's own folders
  (``docs/x.md``, ``tests/test_x.py``, ...) that does not exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_docs import markdown_pages

REPO = Path(__file__).resolve().parents[1]
TOP = ("docs", "tests", "src", "benchmarks", "examples", "scripts", ".ci")

OUTSIDE = [
    (re.compile(r"\b(ARCHITECTURE|STYLE)\.md"), "a design note outside the repository"),
    (re.compile(r"\b(spec|seed)s? ?\d{3}\b", re.I), "a numbered spec outside the repository"),
    (re.compile(r"\bissues? \d+\b"), "an issue of a tracker outside the repository"),
    (re.compile(r"\.\./shared\b|/work/(shared|notes|wt|main)\b"), "a path outside the repository"),
]
LINK = re.compile(r"\]\(([^)\s#]*[./][^)\s#]*)(?:#[^)]*)?\)")
REPO_PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*\w)" % "|".join(re.escape(t) for t in TOP))


def _files() -> list[Path]:
    pages = markdown_pages()
    code = [
        *(REPO / "src" / "tensortypes").rglob("*.py"),
        *(REPO / "benchmarks").glob("*.py"),
        *(REPO / "tests").rglob("*.py"),
    ]
    return [p for p in pages + sorted(code) if p.is_file() and p != Path(__file__).resolve()]


def problems_of(path: Path, text: str) -> list[str]:
    found = []
    rel = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else path.name
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, what in OUTSIDE:
            match = pattern.search(line)
            if match:
                found.append(f"{rel}:{number}: {what}: {match.group(0)!r}")
        if path.suffix == ".md":
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # a web address
                if not (path.parent / target).exists():
                    found.append(f"{rel}:{number}: a link to a missing file: {target}")
        top = path.relative_to(REPO).parts[:1] if path.is_relative_to(REPO) else ()
        if (path.suffix != ".md" and "src" not in top) or "tests" in top:
            # tests and benchmarks name made-up paths on purpose; pages under tests/
            # are data (reports on other projects' files, e.g. tests/check/real)
            continue
        for cited in REPO_PATH.findall(line):
            cited = cited.rstrip(".")
            if "*" in cited or "<" in cited:
                continue
            if not (REPO / cited).exists():
                found.append(f"{rel}:{number}: no such file in the repository: {cited}")
    return found


FILES = _files()


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(REPO).as_posix() for p in FILES])
def test_cites_nothing_outside_the_repository(path):
    problems = problems_of(path, path.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


def test_the_scan_covers_the_docs_and_the_source():
    names = {p.relative_to(REPO).as_posix() for p in FILES}
    assert {"README.md", "docs/architecture.md", "src/tensortypes/cli.py"} <= names
    assert {"CHANGELOG.md", "CONTRIBUTING.md", "tests/check/real/reports.md"} <= names


@pytest.mark.parametrize(
    "line",
    [
        "see ARCHITECTURE.md, Layers",
        "the Type contract of spec 000",
        "Targets (issue 4): under 1 us",
        "read ../shared/spec/README.md",
        "[the map](no_such_page.md)",
        "run `python benchmarks/no_such_script.py`",
    ],
)
def test_a_citation_from_outside_is_caught(line, tmp_path):
    page = REPO / "docs" / "page.md"  # never written: only its folder matters
    assert problems_of(page, line), line
