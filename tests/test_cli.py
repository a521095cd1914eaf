"""The ``tensortypes`` command line: ``python -m tensortypes demo`` and its sections."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tensortypes import cli, demo


def _run(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(argv), capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300, env=env
    )


def test_demo_starts_with_what_users_reach_for_and_ends_with_next_steps(tmp_path):
    env = {**os.environ, "TENSORTYPES_CACHE_DIR": str(tmp_path / "cache")}
    proc = _run(sys.executable, "-m", "tensortypes", "demo", env=env)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    titles = [line for line in out.splitlines() if line.startswith("== ")]
    assert titles[0].startswith("== 1. annotations checked at every call")
    assert titles[1].startswith("== 2. tensortypes check")
    assert titles[-1] == "== Next steps"
    assert not any("internals" in title for title in titles)  # behind --all
    # the static checker is shown as the command people run, on a shipped example
    assert "$ tensortypes check examples/numpy_stats_buggy.py\n" in out
    assert "Found 4 errors in 1 file" in out
    assert "leaf grads['b']" in out and "was bound by params" in out  # PyTrees
    assert "pip install ./tensortypes" in out and "docs/migrating.md" in out
    assert proc.stderr == ""


def test_demo_all_runs_in_a_fresh_interpreter(tmp_path):
    env = {**os.environ, "TENSORTYPES_CACHE_DIR": str(tmp_path / "cache")}
    proc = _run(sys.executable, "-m", "tensortypes", "demo", "--all", env=env)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # One fragment per section, each one a result the tour promises.
    assert ">>> result_type('float32', 'int64')\nDType('float64')" in out
    assert "AnnotationError:" in out and "^" in out  # the caret under the bad token
    assert "TypeCheckError:" in out
    # the caught shape error of a checked call, with the binding that broke
    assert "axis 0 of w has size 5, but fan_in=3 was bound by axis 1 of x" in out
    # the static checker finds the planted bugs without running anything
    assert "[matmul]" in out and "[concat]" in out
    # the compiled graph runs, and refuses a disagreeing symbol
    assert "array([4.93656366, 4.93656366, 4.93656366])" in out
    assert "but n=3, as bound by input 0 (x) axis 0" in out
    assert "SpecifyShape [id A] <TensorType(float64, (2, 1))>" in out
    assert " |<TensorType(float64, (2, ?))> [id B] <TensorType(float64, (2, ?))>" in out
    assert proc.stderr == ""


def test_python_dash_m_lists_the_sections():
    proc = _run(sys.executable, "-m", "tensortypes", "demo", "--list")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"{s.key}: {s.title}" for s in cli.SECTIONS]


def test_every_section_runs_alone(cache_dir):
    for number, section in enumerate(cli.SECTIONS, start=1):
        out = io.StringIO()
        assert cli.run_demo([section.key], out=out) == 0, out.getvalue()
        assert out.getvalue().startswith(f"\n== {number}. {section.title}\n")
        shown = out.getvalue().count(">>> ") + out.getvalue().count("\n$ ")
        assert shown == len(section.steps)


def test_a_section_keeps_its_number_in_the_full_tour():
    out = io.StringIO()
    assert cli.run_demo(["dims"], out=out) == 0
    number = [s.key for s in demo.SECTIONS].index("dims") + 1
    assert f"\n== {number}. internals: dim expressions" in out.getvalue()
    assert "\n== 1." not in out.getvalue()


def test_the_check_section_runs_without_a_clone(monkeypatch, tmp_path):
    monkeypatch.setattr(demo, "_clone_root", lambda: None)
    step = demo.Step(f"tensortypes check {demo._FALLBACK_NAME}", "1", command=True)
    out = io.StringIO()
    assert demo._run_step(step, {}, out) is None, out.getvalue()
    assert "$ tensortypes check mlp.py\n" in out.getvalue()
    assert "expected 2*hidden (in_features)" in out.getvalue()


def test_a_command_with_another_exit_status_fails_the_demo():
    step = demo.Step("tensortypes check examples/numpy_stats.py", "1", command=True)
    problem = demo._run_step(step, {}, io.StringIO())
    assert problem and "exited with status 0, not 1" in problem


def test_expected_errors_are_shown_not_raised():
    out = io.StringIO()
    assert cli.run_demo(["dims"], out=out) == 0
    text = out.getvalue()
    assert ">>> dims.parse('n + * 2')\nAnnotationError: " in text
    assert "n + * 2\n" in text


def test_a_step_that_misbehaves_fails_the_demo(monkeypatch, capsys):
    broken = cli.Section(
        "broken",
        "a broken section",
        (
            cli.Step("x = 1"),
            cli.Step("x + 1", raises="TypeCheckError"),
            cli.Step("never_reached"),
        ),
    )
    monkeypatch.setattr(demo, "SECTIONS", [broken])
    out = io.StringIO()
    assert cli.run_demo(out=out) == 1
    assert "expected TypeCheckError, nothing was raised" in capsys.readouterr().err
    assert "never_reached" not in out.getvalue()
    assert "(rest of this section skipped)" in out.getvalue()


def test_unexpected_error_reports_the_traceback(monkeypatch, capsys):
    monkeypatch.setattr(demo, "SECTIONS", [cli.Section("bad", "bad", (cli.Step("1 / 0"),))])
    assert cli.run_demo(out=io.StringIO()) == 1
    err = capsys.readouterr().err
    assert "ZeroDivisionError" in err and "[bad] 1 / 0" in err
    assert "demo.py" not in err  # the demo's own frame is left out


def test_unknown_section_is_a_usage_error(capsys):
    assert cli.main(["demo", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert "unknown section nonsense" in err and "dtypes" in err


def test_missing_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_version(capsys):
    import tensortypes

    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"tensortypes {tensortypes.__version__}"


def test_section_keys_are_unique():
    keys = [s.key for s in cli.SECTIONS]
    assert len(keys) == len(set(keys))


def test_console_script_when_installed():
    # pip puts the ``tensortypes`` script beside the interpreter of the environment.
    script = Path(sys.executable).parent / "tensortypes"
    if not script.exists():
        script = shutil.which("tensortypes")
        if script is None:
            pytest.skip("the tensortypes console script is not installed here")
    proc = _run(os.fspath(script), "demo", "--list")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("annotations: ")
