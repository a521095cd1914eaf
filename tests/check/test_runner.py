"""The Python API, the cache, configuration and the ``tensortypes check`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tensortypes.check import check_paths, check_source
from tensortypes.check.cache import ResultCache
from tensortypes.check.config import load_config
from tensortypes.check.runner import collect_files

BUG = "import torch\nx = torch.zeros(3, 4)\ny = x @ torch.ones(5, 2)\n"
FINE = "import torch\nx = torch.zeros(3, 4)\ny = x @ torch.ones(4, 2)\n"


def _run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "tensortypes", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_check_source_reports_position_code_and_notes():
    (d,) = check_source(BUG, "m.py")
    assert (d.path, d.line, d.col, d.code) == ("m.py", 3, 5, "matmul")
    assert "4 columns" in d.message and "5 rows" in d.message
    assert any("f32[3,4](torch)" in note for note in d.notes)
    assert check_source(FINE) == []


def test_syntax_errors_are_diagnostics():
    (d,) = check_source("def f(:\n", "bad.py")
    assert d.code == "syntax" and d.line == 1


def test_strict_reports_where_the_checker_gave_up():
    src = "import torch\nx = torch.histc(torch.ones(2, 3))\n"
    assert check_source(src) == []
    notes = check_source(src, strict=True)
    assert [d.code for d in notes] == ["unchecked"] and notes[0].severity == "note"


def test_unknown_values_are_never_errors():
    src = (
        "import torch\nimport mystery\n"
        "def f(x):\n    return x @ mystery.weights() + torch.ones(3)\n"
    )
    assert check_source(src) == []


def test_check_paths_uses_the_cache(tmp_path):
    (tmp_path / "a.py").write_text(BUG)
    (tmp_path / "b.py").write_text(FINE)
    cache = ResultCache(tmp_path / "cache")
    first = check_paths([tmp_path], cache=cache, jobs=1, exclude=["cache/*"])
    assert [d.code for d in first] == ["matmul"] and cache.misses == 2
    again = check_paths([tmp_path], cache=cache, jobs=1)
    assert again == first and cache.hits == 2
    (tmp_path / "b.py").write_text(BUG + "z = 1\n")  # changed: only b.py is checked again
    third = check_paths([tmp_path], cache=cache, jobs=1)
    assert len(third) == 2 and cache.hits == 3 and cache.misses == 3
    (tmp_path / "c.py").write_text(BUG)  # same content as a.py: keyed by content, a hit
    check_paths([tmp_path], cache=cache, jobs=1)
    assert cache.misses == 3


def test_parallel_and_serial_runs_agree(tmp_path):
    for i in range(10):
        (tmp_path / f"m{i}.py").write_text(BUG if i % 2 else FINE)
    serial = check_paths([tmp_path], cache=False, jobs=1)
    parallel = check_paths([tmp_path], cache=False, jobs=2)
    assert serial == parallel and len(serial) == 5


def test_worker_processes_in_a_single_threaded_process(tmp_path, run_python):
    # The test session may have JAX's threads running, where forking is unsafe
    # and the runner checks serially; a fresh interpreter uses worker processes.
    for i in range(10):
        (tmp_path / f"m{i}.py").write_text(BUG if i % 2 else FINE)
    proc = run_python(f"""
        from concurrent import futures
        from tensortypes.check import runner
        used = []
        original = futures.ProcessPoolExecutor
        class Recording(original):
            def __init__(self, *args, **kwargs):
                used.append(kwargs.get("max_workers"))
                super().__init__(*args, **kwargs)
        runner.ProcessPoolExecutor = Recording
        found = runner.check_paths([{str(tmp_path)!r}], cache=False, jobs=2)
        print(len(found), used)
    """)
    assert proc.stdout.split() == ["5", "[2]"], proc.stdout


def test_no_fork_when_threads_are_running():
    import threading

    from tensortypes.check import runner

    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert runner._can_fork() is False
    finally:
        stop.set()
        worker.join()


def test_collect_files_skips_hidden_and_excluded(tmp_path):
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.py").write_text(BUG)
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "y.py").write_text(BUG)
    (tmp_path / "z.py").write_text(BUG)
    found = collect_files([tmp_path], ["gen"], tmp_path)
    assert [p.name for p in found] == ["z.py"]
    with pytest.raises(FileNotFoundError):
        collect_files([tmp_path / "missing"])


def test_pyproject_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensortypes]\npaths = ["src"]\nexclude = ["gen/*"]\nstrict = true\n'
    )
    config = load_config(tmp_path / "pyproject.toml")
    assert config.paths == ["src"] and config.strict and config.exclude == ["gen/*"]
    (tmp_path / "pyproject.toml").write_text('[tool.tensortypes]\nstrict = "yes"\n')
    with pytest.raises(ValueError, match="strict must be a bool"):
        load_config(tmp_path / "pyproject.toml")


def test_command_line_text_json_and_exit_status(tmp_path):
    (tmp_path / "bad.py").write_text(BUG)
    (tmp_path / "good.py").write_text(FINE)
    cache = str(tmp_path / "cache")
    proc = _run(str(tmp_path / "bad.py"), "--cache-dir", cache)
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'bad.py'}:3:5: error: ") and first.endswith("[matmul]")
    assert ": note: " in proc.stdout
    proc = _run(str(tmp_path / "good.py"), "--cache-dir", cache)
    assert proc.returncode == 0 and "Success: no issues found in 1 source file" in proc.stdout
    proc = _run(str(tmp_path / "bad.py"), "--json", "--no-cache")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1 and data["summary"]["errors"] == 1
    assert data["diagnostics"][0]["code"] == "matmul"
    proc = _run(str(tmp_path / "nope.py"), "--no-cache")
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_command_line_reads_pyproject(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_text(BUG)
    (tmp_path / "other.py").write_text(BUG)
    (tmp_path / "pyproject.toml").write_text('[tool.tensortypes]\npaths = ["src"]\n')
    proc = _run("--no-cache", cwd=tmp_path)
    assert proc.returncode == 1
    assert "bad.py" in proc.stdout and "other.py" not in proc.stdout


def test_examples_folder_finds_every_planted_bug():
    root = Path(__file__).resolve().parents[2] / "examples"
    diagnostics = check_paths([root], cache=False, jobs=1)
    by_file: dict = {}
    for d in diagnostics:
        by_file.setdefault(Path(d.path).name, []).append(d)
    for path in sorted(root.glob("*.py")):
        planted = [i for i, line in enumerate(path.read_text().splitlines(), 1) if "# BUG" in line]
        lines = sorted({d.line for d in by_file.get(path.name, [])})
        assert lines == planted, path.name
