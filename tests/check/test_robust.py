"""``tensortypes check`` on hostile and odd input: diagnostics and notes, never a crash.

Each case of the reliability probe that crashed, hung or misread a file is
here: deep expressions, annotations no parser can take, files that are not
files, encodings Python accepts, and a failure of the checker itself, which
is one ``internal`` error for its file (exit status 2) while the other files
are still checked.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tensortypes.check import check_paths, check_source
from tensortypes.check.limits import MAX_DEPTH
from tensortypes.check.runner import collect_files
from tensortypes.check.sources import read_source

BUG = "import torch\nx = torch.zeros(3, 4)\ny = x @ torch.ones(5, 2)\n"
FINE = "import torch\nx = torch.zeros(3, 4)\ny = x @ torch.ones(4, 2)\n"
F_HEADER = "import numpy as np\nfrom tensortypes import Float\n"


def _run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "tensortypes", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def _codes(found) -> list:
    return [d.code for d in found]


# -- deep and large expressions --------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\ny = " + " + ".join(["x"] * 496) + "\n",
        "import numpy as np\nx = np.zeros(3)\ny = " + " + ".join(["x"] * 2000) + "\n",
        "import numpy as np\ny = np.zeros((2, 3))" + ".T" * 400 + "\n",
        "import numpy as np\ny = np.zeros(6)" + ".reshape(2, 3)" * 400 + "\n",
        "y = " + "-" * 900 + "1\n",
        "y = x" + "[0]" * 2000 + "\n",
        "y = " + "lambda: " * 500 + "1\n",
        "y = " + "1 if x else " * 500 + "1\n",
        "".join("    " * i + f"if x{i}:\n" for i in range(99))
        + "    " * 99
        + "y = "
        + " + ".join(["x"] * 300)
        + "\n",
    ],
    ids=[
        "sum496",
        "sum2000",
        "T400",
        "reshape400",
        "unary900",
        "subscript2000",
        "lambda500",
        "ifexp500",
        "nested-if",
    ],
)
def test_deep_expressions_are_pruned_not_a_crash(source):
    assert [d for d in check_source(source) if d.severity == "error"] == []
    notes = check_source(source, strict=True)
    assert notes and all(d.code == "unchecked" for d in notes)
    assert any(f"more than {MAX_DEPTH} levels" in d.message for d in notes)


_DEEP = [
    "x = 1\ny = " + " + ".join(["x"] * 496) + "\n",
    "y = " + "-" * 900 + "1\n",
    "y = " + "lambda: " * 500 + "1\n",
    "y = f(" + "a=f(" * 90 + "1" + ")" * 91 + "\n",
    "y = {\n" + "".join(f"  'k{i}': [" + "-" * 60 + "x],\r\n" for i in range(9)) + "}\n",
    "".join("    " * i + f"if x{i}:\n" for i in range(99)) + "    " * 99 + "y = -x\n",
    "s = '\u00e9\u00e9\u00e9'\n\fz = " + "a." * 170 + "b\n",
]


@pytest.mark.parametrize("source", _DEEP)
def test_pruning_with_the_source_cuts_what_the_whole_walk_cuts(source):
    # The text's length bounds a node's depth: skipping short nodes changes nothing.
    import ast

    from tensortypes.check.limits import prune_deep

    whole, fast = ast.parse(source), ast.parse(source)
    assert prune_deep(fast, source=source) == prune_deep(whole)
    assert ast.dump(fast) == ast.dump(whole)


def test_a_bug_beside_a_deep_expression_is_still_found():
    source = BUG + "z = " + " + ".join(["x"] * 600) + "\n"
    assert _codes(check_source(source)) == ["matmul"]


def test_nested_comprehensions_over_literals_stay_linear():
    # Only the outermost comprehension over a literal is evaluated item by item: 14
    # levels of 8 items each would be 8**14 evaluations otherwise.
    expr = "x @ torch.ones(5, 2)"
    for i in range(14):
        expr = f"[{expr} for x{i} in [1, 2, 3, 4, 5, 6, 7, 8]]"
    source = "import torch\nx = torch.zeros(3, 4)\ny = " + expr + "\n"
    assert _codes(check_source(source)) == ["matmul"]


def test_a_lambda_that_calls_itself_is_bounded():
    # Ten calls of itself a level would be 10**8 evaluations at the depth bound; the
    # lambdas one call evaluates are bounded in number too. A bug beside it is found.
    source = (
        "import torch\n"
        "def g(x: torch.Tensor):\n"
        "    f = lambda x: " + " + ".join(["f(x)"] * 10) + "\n"
        "    h = lambda t: t @ t.T\n"
        "    return f(x) + h(torch.zeros(2, 3)) @ torch.zeros(3, 2)\n"
    )
    assert _codes(check_source(source)) == ["matmul"]


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np\ny = np" + ".T" * 50000 + "\n",
        "y = " + "-" * 50000 + "1\n",
        "import numpy as np\ny = np.zeros(6)" + ".reshape(2, 3)" * 2500 + "\n",
    ],
    ids=["T50k", "unary50k", "reshape2500"],
)
def test_what_python_cannot_parse_is_a_syntax_error(source):
    (d,) = check_source(source)
    assert d.code == "syntax" and "nested too deeply" in d.message


# -- annotations and sizes beyond the parsers' limits --------------------------------------------


def test_lone_surrogate_in_a_string_annotation():
    src = "def f(x: 'Float[np.ndarray, \"\\ud800\"]'):\n    return x\n"
    assert check_source(src) == []


def test_size_of_4301_digits_is_an_annotation_error():
    src = F_HEADER + "def f(x: Float[np.ndarray, '" + "9" * 4301 + "']):\n    return x\n"
    found = [d for d in check_source(src) if d.severity == "error"]
    assert _codes(found) == ["annotation"] and found[0].line == 3


def test_uncomputable_size_while_binding_a_call():
    src = (
        F_HEADER + "def f(x: Float[np.ndarray, 'n'], y: Float[np.ndarray, 'n**100000000']):\n"
        "    return x\n\nf(np.zeros(3), np.zeros(5))\n"
    )
    (d,) = check_source(src)
    assert (d.code, d.line) == ("annotation", 6) and "too large" in d.message


def test_byte_order_mark_in_a_string():
    assert check_source("\ufeffx = 1\n") == []
    assert _codes(check_source("\ufeff" + BUG)) == ["matmul"]


# -- files that are not source files --------------------------------------------------------------


def test_fifo_and_devices_are_skipped_with_a_note(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    (tmp_path / "ok.py").write_text(BUG)
    found = check_paths([tmp_path], cache=False, jobs=1)
    by_name = {os.path.basename(d.path): d for d in found}
    assert by_name["pipe.py"].code == "skipped" and "FIFO" in by_name["pipe.py"].message
    assert by_name["zero.py"].code == "skipped" and "device" in by_name["zero.py"].message
    assert by_name["pipe.py"].severity == by_name["zero.py"].severity == "note"
    assert by_name["ok.py"].code == "matmul"
    # Through the cache too (the cached path reads the file before checking it).
    again = check_paths([tmp_path], cache=tmp_path / ".cache", jobs=1)
    assert sorted(_codes(again)) == ["matmul", "skipped", "skipped"]


def test_file_over_the_size_limit_is_skipped(tmp_path):
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 100)
    assert read_source(big, limit=100).skipped.startswith("600 bytes, over the limit")
    assert read_source(big).text == "x = 1\n" * 100


def test_encodings_are_read_as_python_reads_them(tmp_path):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + BUG.encode())
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\ns = '\xe9'\n" + BUG.encode())
    (tmp_path / "cookie_bom.py").write_bytes(b"\xef\xbb\xbf# coding: utf-8\nx = 1\n")
    (tmp_path / "nocodec.py").write_bytes(b"# -*- coding: nonexistent-codec -*-\nx = 1\n")
    found = check_paths([tmp_path], cache=False, jobs=1)
    by_name: dict = {}
    for d in found:
        by_name.setdefault(os.path.basename(d.path), []).append(d)
    assert _codes(by_name["bom.py"]) == ["matmul"] and by_name["bom.py"][0].line == 3
    assert _codes(by_name["latin.py"]) == ["matmul"] and by_name["latin.py"][0].line == 5
    assert "cookie_bom.py" not in by_name
    (d,) = by_name["nocodec.py"]
    assert d.code == "syntax" and "nonexistent-codec" in d.message


# -- a failure of the checker itself -----------------------------------------------------------


def test_internal_error_is_one_diagnostic_for_its_file(monkeypatch):
    from tensortypes.check.statements import StatementMixin

    original = StatementMixin.s_Assign

    def broken(self, stmt, frame):
        if getattr(stmt.targets[0], "id", "") == "boom":
            raise ZeroDivisionError("planted")
        return original(self, stmt, frame)

    monkeypatch.setattr(StatementMixin, "s_Assign", broken)
    found = check_source(BUG + "boom = 1\n", "m.py")
    assert _codes(found) == ["matmul", "internal"]
    internal = found[1]
    assert internal.line == 4 and "ZeroDivisionError: planted" in internal.message
    assert not any("Traceback" in n for n in internal.notes)
    debug = check_source(BUG + "boom = 1\n", "m.py", debug=True)[1]
    assert any("Traceback" in n for n in debug.notes)
    assert any("planted" in n for n in debug.notes)
    # Never silenced by an ignore comment: it is not a finding about the code.
    assert _codes(check_source("# mypy: ignore-errors\nboom = 1\n")) == ["internal"]


_PLANT = """
import os, sys
from tensortypes.check import runner
from tensortypes.check.statements import StatementMixin
original = StatementMixin.s_Assign
def broken(self, stmt, frame):
    name = getattr(stmt.targets[0], "id", "")
    if name == "boom":
        raise RecursionError("planted")
    if name == "die":
        os._exit(9)  # the worker process dies, as on a crash in C or the OOM killer
    return original(self, stmt, frame)
StatementMixin.s_Assign = broken
"""


def test_one_crash_does_not_lose_the_parallel_run(tmp_path, run_python):
    for i in range(10):
        (tmp_path / f"m{i}.py").write_text(BUG)
    (tmp_path / "m3.py").write_text("boom = 1\n")
    (tmp_path / "m6.py").write_text("die = 1\n")
    proc = run_python(
        _PLANT
        + f"""
found = runner.check_paths([{str(tmp_path)!r}], cache=False, jobs=2)
for d in found:
    print(os.path.basename(d.path), d.code, d.message)
"""
    )
    lines = proc.stdout.splitlines()
    assert len(lines) == 10, proc.stdout
    for line in lines:
        name, code, message = line.split(" ", 2)
        if name == "m3.py":
            assert code == "internal" and "RecursionError: planted" in message
        elif name == "m6.py":
            assert code == "internal" and "worker process" in message
        else:
            assert code == "matmul"


def test_exit_status_two_on_an_internal_error(tmp_path, run_python):
    (tmp_path / "a.py").write_text("boom = 1\n")
    (tmp_path / "b.py").write_text(BUG)
    script = (
        _PLANT
        + f"""
from tensortypes.cli import main
sys.exit(main(["check", "--no-cache", "-j", "1", *sys.argv[1:], {str(tmp_path)!r}]))
"""
    )
    proc = run_python(script, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "[internal]" in proc.stdout and "[matmul]" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    proc = run_python(script, "--debug", check=False)
    assert proc.returncode == 2 and "Traceback" in proc.stdout


def test_exit_status_zero_one_two(tmp_path):
    (tmp_path / "bad.py").write_text(BUG)
    (tmp_path / "good.py").write_text(FINE)
    assert _run(str(tmp_path / "good.py"), "--no-cache").returncode == 0
    assert _run(str(tmp_path / "bad.py"), "--no-cache").returncode == 1
    assert _run(str(tmp_path / "missing.py"), "--no-cache").returncode == 2
    assert _run("--no-such-option").returncode == 2


# -- configuration -------------------------------------------------------------------------------


def test_a_file_named_on_the_command_line_is_checked_even_if_excluded(tmp_path):
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "bad.py").write_text(BUG)
    (tmp_path / "pyproject.toml").write_text('[tool.tensortypes]\nexclude = ["gen/*"]\n')
    proc = _run("gen/bad.py", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 1 and "[matmul]" in proc.stdout
    proc = _run(".", "--no-cache", cwd=tmp_path)  # searching a folder: excluded
    assert proc.returncode == 0 and "0 source files" in proc.stdout
    assert collect_files([tmp_path / "gen" / "bad.py"], ["gen/*"], tmp_path) == [
        tmp_path / "gen" / "bad.py"
    ]


def test_unknown_configuration_keys_are_named(tmp_path):
    (tmp_path / "ok.py").write_text(FINE)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensortypes]\nexlude = ["gen/*"]\ncolour = true\n'
    )
    proc = _run("ok.py", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0
    assert "unknown key 'exlude'" in proc.stderr and "did you mean 'exclude'" in proc.stderr
    assert "unknown key 'colour'" in proc.stderr


def test_pythons_warnings_about_the_checked_code_are_not_printed():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning would raise here
        assert check_source("import re\npattern = re.compile('\\d+')\nn = 0x1for\n") is not None
