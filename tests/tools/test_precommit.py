"""The pre-commit hook, run for real: ``pre-commit`` installs this repository's hook into a
temporary project and runs it on a buggy and a fixed file.

Skipped when ``pre-commit`` or ``git`` is not installed. The hook's environment is
built by pre-commit itself (``pip install`` of this repository), so the test needs
the package index that ``pip`` uses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}
BAD = "import numpy as np\na = np.zeros((2, 3))\nb = a @ a\n"
GOOD = BAD.replace("a @ a", "a @ a.T")


def _precommit() -> list | None:
    exe = shutil.which("pre-commit")
    if exe:
        return [exe]
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "pre_commit"]


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, text=True, capture_output=True
    ).stdout.strip()


def test_precommit_hook_reports_and_passes(tmp_path):
    runner = _precommit()
    if runner is None or shutil.which("git") is None:
        print("skipped: pre-commit or git is not installed")
        pytest.skip("pre-commit or git is not installed")
    # The hook repository: this checkout's package files, committed.
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in (".pre-commit-hooks.yaml", "pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).exists():
            shutil.copy(REPO / name, hooks / name)
    shutil.copytree(
        REPO / "src",
        hooks / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so"),
    )
    _git(hooks, "init", "-q")
    _git(hooks, "add", "-A")
    _git(hooks, "commit", "-q", "-m", "hooks")
    rev = _git(hooks, "rev-parse", "HEAD")
    # The user's project: four lines of configuration.
    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks.as_uri()}\n    rev: {rev}\n    hooks:\n"
        f"      - id: tensortypes-check\n"
    )
    (project / "model.py").write_text(BAD)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    env = {
        **os.environ,
        **GIT_ENV,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "TENSORTYPES_CACHE_DIR": str(tmp_path / "ttcache"),
    }
    env.pop("VIRTUAL_ENV", None)
    bad = subprocess.run(
        [*runner, "run", "--all-files"],
        cwd=project,
        env=env,
        text=True,
        capture_output=True,
        timeout=900,
    )
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "model.py:3:5: error:" in bad.stdout and "[matmul]" in bad.stdout
    (project / "model.py").write_text(GOOD)
    _git(project, "add", "-A")
    good = subprocess.run(
        [*runner, "run", "--all-files"],
        cwd=project,
        env=env,
        text=True,
        capture_output=True,
        timeout=900,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout
