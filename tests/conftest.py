"""Shared test configuration for the whole suite.

- Hypothesis: the ``tensortypes`` profile (no deadline, since machines are
  noisy; random, not derandomised, so every run explores new examples) is
  loaded unless ``HYPOTHESIS_PROFILE`` names another one. ``ci`` runs more
  examples.
- ``config`` is restored after every test, so a test that changes
  ``floatX`` or ``disable`` cannot leak into the next one.
- One voice: every error and checker diagnostic the suite makes is recorded
  and checked against the one message forms at the end of the session
  (``tests/message_record.py``); a message in an old form fails the run.
- Fixtures: ``cache_dir`` (a private ``config.cache_dir``), ``run_python``
  (a fresh interpreter, for import-time behaviour), ``torch``/``jax`` (the
  module, or the test skips when it is not installed).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import message_record
import pytest
from hypothesis import settings

from tensortypes._config import config

REPO = Path(__file__).resolve().parents[1]

settings.register_profile("tensortypes", deadline=None, derandomize=False)
settings.register_profile("ci", parent=settings.get_profile("tensortypes"), max_examples=300)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "tensortypes"))

message_record.install()
_FORM_PROBLEMS: list[str] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Check every recorded message against the one forms; an old form fails the run."""
    path = os.environ.get("TENSORTYPES_MESSAGES")
    if path:
        message_record.write(path)
    found = message_record.problems(
        (kind, text) for text, kind in message_record.recorded().items()
    )
    _FORM_PROBLEMS[:] = found
    if found and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    if _FORM_PROBLEMS:
        terminalreporter.section("messages in an old form (tests/message_record.py)", red=True)
        for line in _FORM_PROBLEMS[:50]:
            terminalreporter.write_line(line)
        if len(_FORM_PROBLEMS) > 50:
            terminalreporter.write_line(f"... and {len(_FORM_PROBLEMS) - 50} more")


_CONFIG_FIELDS = ("floatX", "disable", "cache_dir", "numeric_tower", "container_check")


@pytest.fixture(autouse=True)
def _restore_config():
    saved = {name: getattr(config, name) for name in _CONFIG_FIELDS}
    yield
    for name, value in saved.items():
        setattr(config, name, value)


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """A fresh, empty ``config.cache_dir`` for this test (restored afterwards)."""
    path = tmp_path / "cache"
    config.cache_dir = path
    return path


@pytest.fixture
def run_python():
    """Run Python source in a fresh interpreter; return the ``CompletedProcess``.

    ``run_python(code, *args, check=True, env=None)`` dedents ``code``, runs it
    with this interpreter from the repository root, and on a non-zero exit
    (when ``check``) fails the test showing stdout and stderr.
    """

    def run(
        code: str,
        *args: str,
        check: bool = True,
        env: dict[str, str] | None = None,
        timeout: float = 300,
    ) -> subprocess.CompletedProcess:
        full_env = {**os.environ, **(env or {})}
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code), *args],
            cwd=REPO,
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"subprocess exited {proc.returncode}\n--- stdout\n{proc.stdout}"
                f"\n--- stderr\n{proc.stderr}"
            )
        return proc

    return run


@pytest.fixture
def torch():
    """The ``torch`` module; the test skips when PyTorch is not installed."""
    return pytest.importorskip("torch")


@pytest.fixture
def jax():
    """The ``jax`` module; the test skips when JAX is not installed."""
    return pytest.importorskip("jax")
