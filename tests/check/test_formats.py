"""Output formats (text, json, github, sarif), error-code selection and the baseline."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tensortypes.check.baseline import apply_baseline, read_baseline, write_baseline
from tensortypes.check.diagnostics import Diagnostic, from_json
from tensortypes.check.formats import render, to_github, to_sarif
from tensortypes.cli import main

BAD = "import numpy as np\na = np.zeros((2, 3))\nb = a.reshape(4, 2)\nc = a @ a\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.tensortypes]\n")
    (tmp_path / "bad.py").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, *argv) -> tuple:
    status = main(["check", "--no-cache", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_every_format_carries_the_same_findings(project, capsys):
    status, text, _ = _run(capsys, "bad.py")
    assert status == 1 and "[reshape]" in text and "[matmul]" in text
    status, out, _ = _run(capsys, "-O", "json", "bad.py")
    codes = [d.code for d in from_json(out)]
    assert status == 1 and codes == ["reshape", "matmul"]
    first = from_json(out)[0]
    assert (first.line, first.col, first.end_line, first.end_col) == (3, 5, 3, 20)
    status, out, _ = _run(capsys, "--output-format", "github", "bad.py")
    lines = out.strip().split("\n")
    errors = [line for line in lines if line.startswith("::error ")]
    assert status == 1 and len(errors) == 2
    assert lines[0].startswith(
        "::error file=bad.py,line=3,col=5,endLine=3,endColumn=20,title=tensortypes [reshape]::"
    )
    # The located note (where a's shape was made) is an annotation on its own line.
    assert lines[1] == (
        "::notice file=bad.py,line=2,col=1,title=tensortypes [reshape]::"
        "a gets its shape (2, 3) here (used at line 3)"
    )
    status, out, _ = _run(capsys, "-O", "sarif", "bad.py")
    log = json.loads(out)
    results = log["runs"][0]["results"]
    assert status == 1 and [r["ruleId"] for r in results] == codes
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 5,
        "endLine": 3,
        "endColumn": 20,
    }
    # The located note (a's shape made at line 2) is a related location with its message.
    first_related = results[0]["relatedLocations"][0]
    assert first_related["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 1}
    assert first_related["message"]["text"] == "a gets its shape (2, 3) here (used at line 3)"


def test_a_located_note_follows_its_error(project, capsys):
    """mypy's layout: the note where an operand's shape was made, at its own line, right
    after the error; the error's own notes stay; JSON keeps it as a related entry."""
    status, text, _ = _run(capsys, "bad.py")
    lines = text.splitlines()
    assert lines[:3] == [
        "bad.py:3:5: error: .reshape: cannot reshape (2, 3) to (4, 2): 6 elements vs 8 [reshape]",
        "bad.py:2:1: note: a gets its shape (2, 3) here (used at line 3)",
        "bad.py:3:5: note: a: f64[2,3](numpy), assigned at line 2",
    ]
    status, out, _ = _run(capsys, "-O", "json", "bad.py")
    data = json.loads(out)["diagnostics"][0]
    assert data["related"] == [
        {"line": 2, "column": 1, "message": "a gets its shape (2, 3) here (used at line 3)"}
    ]
    assert from_json(out)[0].related == ((2, 1, "a gets its shape (2, 3) here (used at line 3)"),)
    # Not a finding: the summary counts errors, and hiding codes keeps the note whole.
    assert text.strip().endswith("Found 2 errors in 1 file (checked 1 source file)")
    _, out, _ = _run(capsys, "--hide-error-codes", "bad.py")
    assert "bad.py:2:1: note: a gets its shape (2, 3) here (used at line 3)" in out.splitlines()


def test_a_shape_made_on_the_error_line_gets_no_located_note(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.tensortypes]\n")
    (tmp_path / "one.py").write_text(
        "import numpy as np\nc = np.zeros((2, 3)) @ np.zeros((2, 3))\n"
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = _run(capsys, "-O", "json", "one.py")
    assert status == 1 and json.loads(out)["diagnostics"][0]["related"] == []


def test_hide_error_codes(project, capsys):
    _, out, _ = _run(capsys, "--hide-error-codes", "bad.py")
    assert "[reshape]" not in out and "cannot reshape" in out
    assert out.strip().endswith("(checked 1 source file)")


def test_github_escapes_newlines_and_separators():
    d = Diagnostic("a,b:c.py", 1, 1, "matmul", "50% off\nsecond line", ("note: x",))
    out = to_github([d])
    assert out.startswith("::error file=a%2Cb%3Ac.py,line=1,col=1,")
    assert "50%25 off%0Asecond line%0Anote: x" in out and "\n" not in out


def test_disable_and_enable_codes(project, capsys):
    status, out, _ = _run(capsys, "--disable-code", "reshape,matmul", "bad.py")
    assert status == 0 and "Success" in out
    status, out, _ = _run(capsys, "--disable-code", "reshape", "bad.py")
    assert status == 1 and "[reshape]" not in out and "[matmul]" in out
    (project / "pyproject.toml").write_text("[tool.tensortypes]\ndisable_codes = ['matmul']\n")
    status, out, _ = _run(capsys, "bad.py")
    assert "[matmul]" not in out and "[reshape]" in out
    status, out, _ = _run(capsys, "--enable-code", "matmul", "bad.py")
    assert "[matmul]" in out
    status, _, err = _run(capsys, "--disable-code", "nosuchcode", "bad.py")
    assert status == 2 and "unknown error code 'nosuchcode'" in err


def test_baseline_reports_only_new_errors(project, capsys):
    status, _, err = _run(capsys, "--write-baseline", "baseline.json", "bad.py")
    assert status == 0 and "recorded 2 errors" in err
    status, out, err = _run(capsys, "--baseline", "baseline.json", "bad.py")
    assert status == 0 and "Success" in out and "2 errors recorded" in err
    # An edit above moves the old errors down a line and adds a new one.
    (project / "bad.py").write_text(
        "import numpy as np\n\n" + BAD.split("\n", 1)[1] + "d = np.zeros(3) + np.zeros(4)\n"
    )
    status, out, _ = _run(capsys, "--baseline", "baseline.json", "bad.py")
    assert status == 1 and "[broadcast]" in out
    assert "[reshape]" not in out and "[matmul]" not in out
    # Located notes are not findings: those of the recorded errors went with them.
    assert "gets its shape (2, 3)" not in out
    # The configuration names the baseline too, relative to pyproject.toml.
    (project / "pyproject.toml").write_text("[tool.tensortypes]\nbaseline = 'baseline.json'\n")
    status, out, _ = _run(capsys, "bad.py")
    assert status == 1 and "[broadcast]" in out and "[reshape]" not in out


def test_baseline_counts_duplicates(tmp_path):
    d = Diagnostic(str(tmp_path / "m.py"), 1, 1, "matmul", "same")
    file = tmp_path / "b.json"
    assert write_baseline([d], file) == 1
    kept, dropped = apply_baseline([d, d], file)
    assert dropped == 1 and kept == [d]
    assert read_baseline(file) == {("m.py", "matmul", "same"): 1}


@pytest.mark.parametrize(
    "content",
    ["not json", "[]", '{"version": 99, "errors": []}', '{"version": 1, "errors": [{"path": 1}]}'],
)
def test_a_bad_baseline_is_a_usage_error(project, capsys, content):
    (project / "baseline.json").write_text(content)
    status, _, err = _run(capsys, "--baseline", "baseline.json", "bad.py")
    assert status == 2 and "baseline" in err


def test_render_rejects_an_unknown_format():
    with pytest.raises(ValueError, match="unknown output format"):
        render([], "xml")


def _sarif_schema() -> Path | None:
    root = os.environ.get("TENSORTYPES_SNAPSHOTS")
    candidates = [os.environ.get("TENSORTYPES_SARIF_SCHEMA")]
    if root:
        candidates.append(str(Path(root) / "sarif" / "sarif-schema-2.1.0.json"))
    for c in candidates:
        if c and Path(c).is_file():
            return Path(c)
    return None


def test_sarif_validates_against_the_sarif_2_1_0_schema(project, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    schema_path = _sarif_schema()
    if schema_path is None:
        print(
            "skipped: no SARIF 2.1.0 schema (set TENSORTYPES_SARIF_SCHEMA, or "
            "TENSORTYPES_SNAPSHOTS with sarif/sarif-schema-2.1.0.json)"
        )
        pytest.skip("the SARIF 2.1.0 schema is not available")
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    _, out, _ = _run(capsys, "-O", "sarif", "bad.py")
    jsonschema.validate(json.loads(out), schema)
    jsonschema.validate(to_sarif([]), schema)
    d = Diagnostic("/abs/m.py", 2, 1, "reveal", "revealed: x is int", severity="note")
    jsonschema.validate(to_sarif([d]), schema)


def test_the_line_that_made_a_shape_is_a_related_location(tmp_path, monkeypatch, capsys):
    # The broadcast fails on line 6; the value's shape was made on line 3 and kept by
    # line 4 (a product keeps a shape): SARIF links the error to line 3.
    (tmp_path / "pyproject.toml").write_text("[tool.tensortypes]\n")
    (tmp_path / "m.py").write_text(
        "import numpy as np\n"
        "a = np.zeros((2, 3))\n"
        "s = a.sum(axis=0)\n"
        "t = s * 2.0\n"
        "b = np.zeros((2,))\n"
        "c = t + b\n"
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = _run(capsys, "-O", "sarif", "m.py")
    result = json.loads(out)["runs"][0]["results"][0]
    assert status == 1 and result["ruleId"] == "broadcast"
    # The located notes: t's shape made on line 3 and kept by its assignment on line 4,
    # b's shape made on line 5 (each line once).
    lines = [r["physicalLocation"]["region"]["startLine"] for r in result["relatedLocations"]]
    assert lines == [3, 4, 5]
    assert result["relatedLocations"][0]["message"]["text"] == (
        "t gets its shape (3,) here (used at line 6)"
    )
    _, out, _ = _run(capsys, "m.py")
    assert out.splitlines()[1:5] == [
        "m.py:3:1: note: t gets its shape (3,) here (used at line 6)",
        "m.py:4:1: note: t is assigned here, its shape (3,) from line 3 (used at line 6)",
        "m.py:5:1: note: b gets its shape (2,) here (used at line 6)",
        "m.py:6:5: note: t: f64[3](numpy), assigned at line 4, its shape from line 3",
    ]
