"""``scripts/_suites.py``: running a test suite a few tests per pytest process.

optimistix's ``test_minimise`` dies inside XLA's compiler at its 381st test on a
machine whose ``vm.max_map_count`` is the kernel's default (65530), with jaxtyping as
with tensortypes: every program XLA compiled for a function that stays alive stays
too, with its memory maps. ``scripts/client_suites.py --chunk-size N`` runs the
selected tests N per process; these tests run that on a small generated suite (no
JAX needed), including one whose process dies by a signal as XLA's does.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _suites():
    spec = importlib.util.spec_from_file_location("_suites_under_test", SCRIPTS / "_suites.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SUITE = textwrap.dedent(
    """
    import os
    import signal

    import pytest

    @pytest.mark.parametrize("n", range(5))
    def test_pid(n):
        # Each process appends its pid: the test reads how many processes ran.
        with open(os.environ["PIDS"], "a") as f:
            f.write(f"{os.getpid()}\\n")

    def test_fails():
        assert False, "the one failure"

    def test_dies():
        if os.environ.get("DIE"):
            os.kill(os.getpid(), signal.SIGSEGV)
    """
)


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "lib"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_many.py").write_text(SUITE)
    (root / "pytest.ini").write_text("[pytest]\n")
    monkeypatch.setenv("PIDS", str(tmp_path / "pids.txt"))
    return root


def _chunks(s, suite: Path, tmp_path: Path, selection: list[str], size: int, xml: bool = True):
    """``run_pytest_chunks`` on the generated suite, without a checker or a launcher."""
    return s.run_pytest_chunks(
        sys.executable,
        ["-p", "no:randomly"],
        selection,
        str(suite),
        False,
        str(tmp_path / "run.log"),
        size,
        timeout=300,
        xml=str(tmp_path / "run.xml") if xml else None,
    )


def test_chunks_run_in_separate_processes_and_merge(suite: Path, tmp_path: Path) -> None:
    s = _suites()
    log, xml = str(tmp_path / "run.log"), str(tmp_path / "run.xml")
    results, code = _chunks(s, suite, tmp_path, ["tests/test_many.py", "-k", "not dies"], 2)
    assert code == 1  # the chunk holding test_fails
    assert sorted(results.values()).count("passed") == 5
    assert [k for k, v in results.items() if v == "failed"] == ["tests.test_many::test_fails"]
    pids = (tmp_path / "pids.txt").read_text().split()
    assert len(pids) == 5 and len(set(pids)) == 3  # 5 tests, 2 a process
    # One junit report and one log for the whole run, none of the parts left over.
    assert s.read_junit(xml) == results
    assert len(list(ET.parse(xml).getroot().iter("testsuite"))) == 3
    assert open(log, encoding="utf-8").read().count("$ ") == 3
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["lib", "pids.txt", "run.log", "run.log.collect", "run.xml"]
    )


def test_a_chunk_that_dies_loses_only_its_own_tests(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = _suites()
    monkeypatch.setenv("DIE", "1")
    results, code = _chunks(s, suite, tmp_path, ["tests/test_many.py"], 3)
    # Collection order: five test_pid, test_fails, test_dies. The last chunk
    # (test_dies alone) dies; the first two report.
    assert len(results) == 6 and "tests.test_many::test_dies" not in results
    assert code == 1
    alone, died = s.run_pytest(
        sys.executable,
        ["tests/test_many.py::test_dies"],
        str(suite),
        False,
        str(tmp_path / "alone.log"),
        timeout=300,
    )
    assert alone == {} and died == -signal.SIGSEGV
    note = s.died_note(died)
    assert f"signal {int(signal.SIGSEGV)}" in note and "vm.max_map_count" in note
    assert s.died_note(0) == s.died_note(1) == s.died_note(-1) == ""


def test_nothing_collected_falls_back_to_one_run(suite: Path, tmp_path: Path) -> None:
    s = _suites()
    selection = ["tests/test_many.py", "-k", "no_such_test"]
    results, code = _chunks(s, suite, tmp_path, selection, 2, xml=False)
    assert results == {} and code == 5  # pytest's "no tests collected"


def test_collection_warnings_quoting_a_test_are_not_node_ids(tmp_path: Path) -> None:
    # pytest's warning for a generator given to parametrize quotes the test's id on an
    # indented line; taken for an id, it made a chunk's pytest exit 4 with no test run.
    s = _suites()
    out = (
        "tests/t.py::test_a[x y]\n"
        "tests/t.py::test_b\n\n"
        "=== warnings summary ===\n"
        "tests/t.py:3\n"
        "  PytestRemovedIn9Warning: Passing a non-Collection iterable to the parametrize\n"
        "  Test: tests/t.py::test_b, argvalues type: generator\n"
    )
    assert s.node_ids(out) == ["tests/t.py::test_a[x y]", "tests/t.py::test_b"]
    root = tmp_path / "lib"
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "tests" / "test_gen.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.parametrize("n", (i for i in range(3)))
            def test_gen(n):
                assert n < 3
            """
        )
    )
    results, code = s.run_pytest_chunks(
        sys.executable,
        ["-p", "no:randomly"],
        ["tests/test_gen.py"],
        str(root),
        False,
        str(tmp_path / "run.log"),
        2,
        timeout=300,
    )
    assert code == 0 and sorted(results.values()) == ["passed"] * 3
