"""Shared by jaxtyping_suite.py and client_suites.py: run a pytest suite twice in one
environment, once on the installed jaxtyping and once on tensortypes standing in
for it (``python -m tensortypes.jaxtyping_shim``), and compare per test.

Nothing here is third-party code: the suites are read from snapshots whose path
the user gives.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PASS, FAIL, SKIP = "passed", "failed", "skipped"


def run_pytest(
    python: str,
    args: list[str],
    cwd: str,
    shim: bool,
    log: str,
    env: dict | None = None,
    timeout: float = 3600,
    xml: str | None = None,
) -> tuple[dict, int]:
    """Run pytest; return ({test id: outcome}, exit code). The log keeps its output;
    ``xml`` keeps the junit report."""
    with tempfile.TemporaryDirectory(prefix="tt-suite-") as tmp:
        xml = xml or os.path.join(tmp, "report.xml")
        launcher = ["-m", "tensortypes.jaxtyping_shim"] if shim else []
        command = [
            python,
            *launcher,
            "-m",
            "pytest",
            *args,
            f"--junitxml={xml}",
            "-p",
            "no:cacheprovider",
            "-q",
            "-o",
            "junit_family=xunit1",
        ]
        full_env = dict(os.environ, **(env or {}))
        full_env.pop("PYTHONPATH", None) if not (env or {}).get("PYTHONPATH") else None
        with open(log, "w", encoding="utf-8") as out:
            out.write("$ " + " ".join(command) + f"\n(cwd {cwd})\n")
            out.flush()
            try:
                code = subprocess.run(
                    command,
                    cwd=cwd,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=full_env,
                    timeout=timeout,
                    check=False,
                ).returncode
            except subprocess.TimeoutExpired:
                out.write(f"\n!! timed out after {timeout} s\n")
                code = -1
        return read_junit(xml), code


def collect_ids(python: str, args: list[str], cwd: str, shim: bool, log: str) -> list[str]:
    """The node ids pytest selects with ``args`` (``--collect-only``, same launcher)."""
    launcher = ["-m", "tensortypes.jaxtyping_shim"] if shim else []
    command = [python, *launcher, "-m", "pytest", *args, "--collect-only", "-q"]
    command += ["-p", "no:cacheprovider"]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    with open(log, "w", encoding="utf-8") as out:
        out.write("$ " + " ".join(command) + f"\n(cwd {cwd})\n" + done.stdout + done.stderr)
    return node_ids(done.stdout)


_NODE_ID = re.compile(r"[^\s:]+\.py::\S")


def node_ids(collected: str) -> list[str]:
    """The node ids in ``pytest --collect-only -q`` output: lines that start with a
    test file's path and ``::``; never a line of a warning's text that quotes one
    (``  Test: tests/t.py::test_x, argvalues type: generator``)."""
    return [line.rstrip() for line in collected.splitlines() if _NODE_ID.match(line)]


def run_pytest_chunks(
    python: str,
    args: list[str],
    selection: list[str],
    cwd: str,
    shim: bool,
    log: str,
    size: int,
    timeout: float = 3600,
    xml: str | None = None,
) -> tuple[dict, int]:
    """``run_pytest`` on the tests ``selection`` (files, ``-k``) picks, ``size`` tests
    per pytest process; ``args`` are the other options. Returns the union of the
    outcomes and the first nonzero exit code (0 if none).

    One process per chunk because XLA keeps every program it compiled for a
    function that stays alive (a test module's functions do), and each holds a few
    memory maps: a long test file can reach the kernel's limit on a process's maps
    (``vm.max_map_count``, 65530 by default), where XLA's compiler dies with a
    segmentation fault or an abort, whatever the checker.
    """
    ids = collect_ids(python, selection + args, cwd, shim, log + ".collect")
    if not ids:  # nothing collected (or collection failed): one ordinary run reports it
        return run_pytest(python, selection + args, cwd, shim, log, timeout=timeout, xml=xml)
    results: dict = {}
    first = 0
    parts = []
    for start in range(0, len(ids), size):
        part = f"{log}.{start // size}"
        part_xml = f"{xml or log}.{start // size}.xml"
        found, code = run_pytest(
            python, ids[start : start + size] + args, cwd, shim, part, timeout=timeout, xml=part_xml
        )
        results.update(found)
        first = first or code
        parts.append((part, part_xml))
    with open(log, "w", encoding="utf-8") as out:
        for part, _ in parts:
            with open(part, encoding="utf-8") as text:
                out.write(text.read())
            os.remove(part)
    if xml is not None:
        merged = ET.Element("testsuites")
        for _, part_xml in parts:
            if os.path.exists(part_xml):
                merged.extend(ET.parse(part_xml).getroot().iter("testsuite"))
                os.remove(part_xml)
        ET.ElementTree(merged).write(xml, encoding="utf-8")
    return results, first


def died_note(code: int) -> str:
    """What a pytest exit code that is a signal (segmentation fault, abort) may mean."""
    if code >= -1:  # -1: run_pytest's timeout
        return ""
    try:
        with open("/proc/sys/vm/max_map_count", encoding="ascii") as f:
            limit = f.read().strip()
    except OSError:
        limit = "unknown"
    return (
        f"  (pytest died with signal {-code}: XLA's compiler dies so when the process "
        f"reaches the kernel's limit on memory maps, vm.max_map_count = {limit} here; "
        f"--chunk-size runs fewer tests per process)"
    )


def read_junit(path: str) -> dict:
    results: dict = {}
    if not os.path.exists(path):
        return results
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome = PASS
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = FAIL
            elif child.tag == "skipped" and outcome == PASS:
                outcome = SKIP
        if results.get(name) == FAIL:
            continue  # a teardown error after a pass still fails the test
        results[name] = outcome
    return results


def first_error_lines(path: str, count: int = 3) -> dict:
    """{test id: first lines of its failure message} from a junit report (for notes)."""
    out: dict = {}
    if not os.path.exists(path):
        return out
    for case in ET.parse(path).getroot().iter("testcase"):
        for child in case:
            if child.tag in ("failure", "error"):
                text = (child.get("message") or child.text or "").strip().splitlines()
                out[f"{case.get('classname')}::{case.get('name')}"] = text[:count]
    return out


def compare(label: str, real: dict, ours: dict) -> int:
    """Print per-test differences and totals; return how many tests real passes and
    tensortypes does not."""
    names = sorted(set(real) | set(ours))
    worse = [n for n in names if real.get(n) == PASS and ours.get(n) != PASS]
    better = [n for n in names if real.get(n) != PASS and ours.get(n) == PASS]
    other = [n for n in names if n not in worse and n not in better and real.get(n) != ours.get(n)]
    print(f"== {label}: differences ({len(worse)} worse, {len(better)} better, {len(other)} other)")
    for n in worse:
        print(
            f"  WORSE   {n}: jaxtyping {real.get(n, 'absent')}, tensortypes {ours.get(n, 'absent')}"
        )
    for n in better:
        print(
            f"  BETTER  {n}: jaxtyping {real.get(n, 'absent')}, tensortypes {ours.get(n, 'absent')}"
        )
    for n in other:
        print(
            f"  OTHER   {n}: jaxtyping {real.get(n, 'absent')}, tensortypes {ours.get(n, 'absent')}"
        )

    def totals(r: dict) -> str:
        return ", ".join(f"{sum(1 for v in r.values() if v == k)} {k}" for k in (PASS, FAIL, SKIP))

    print(f"== {label}: jaxtyping:   {totals(real)}")
    print(f"== {label}: tensortypes: {totals(ours)}")
    both = sum(1 for n in names if real.get(n) == PASS and ours.get(n) == PASS)
    print(
        f"== {label}: tensortypes passes {both} of the {sum(1 for v in real.values() if v == PASS)}"
        f" tests jaxtyping passes"
    )
    return len(worse)


def python_default() -> str:
    return sys.executable
