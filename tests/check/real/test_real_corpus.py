"""The real-code corpus (``scripts/real_corpus.py``): runs when the snapshots are present.

``TENSORTYPES_SNAPSHOTS`` names a folder holding snapshots of the repositories
of ``manifest.json``; without it the measurement is skipped with a note. The
figures are printed, not asserted (the rules improve; docs/benchmarks.md
records them): what is asserted is that every bug patch applies to its
snapshot and that each run yields a result for every bug.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent


def _script():
    spec = importlib.util.spec_from_file_location(
        "real_corpus", ROOT / "scripts" / "real_corpus.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_patches_apply_as_one_line_changes():
    rc = _script()
    bugs = json.loads((HERE / "bugs.json").read_text())
    assert len(bugs) >= 40 and len({b["id"] for b in bugs}) == len(bugs)
    for bug in bugs:
        patch = (HERE / "bugs" / f"{bug['id']}.patch").read_text()
        removed = [line for line in patch.splitlines()[2:] if line.startswith("-")]
        added = [line for line in patch.splitlines()[2:] if line.startswith("+")]
        assert len(removed) == len(added) == 1, bug["id"]
        assert bug["confirm"]["function"], bug["id"]
    text = "a\nb\nc\nd\n"
    patch = rc.make_patch(text, 3, "C = 1", "f.py")
    assert rc.apply_patch(text, patch) == ("a\nb\nC = 1\nd\n", 3)
    with pytest.raises(ValueError, match="does not apply"):
        rc.apply_patch("x\ny\nz\nw\n", patch)


def test_real_corpus(capsys):
    rc = _script()
    base = rc.snapshots()
    repos, bugs = rc.load()
    if base is None or rc.missing(repos, base):
        with capsys.disabled():
            print(
                "\nreal corpus skipped: set TENSORTYPES_SNAPSHOTS to a folder with "
                "snapshots of " + ", ".join(r["name"] for r in repos)
            )
        pytest.skip("no snapshots of the real corpus (TENSORTYPES_SNAPSHOTS)")
    out = rc.run(base, verbose=False)
    assert out["errors"] == []
    assert [b["id"] for b in out["bugs"]] == [b["id"] for b in bugs]
    s = out["summary"]
    with capsys.disabled():
        print(
            f"\nreal corpus: recall {s['caught']}/{s['bugs']} on the line, "
            f"{s['located']} by a located error or note on the line, "
            f"{s['pointed']} on it or named by a note, {s['in_function']} in the function; "
            f"{s['reports']} reports "
            f"({s['false_alarms']} false alarms, {s['unclassified']} unclassified) in "
            f"{s['lines']} lines"
        )
    # Every report classified, and no false alarm (the target of docs/benchmarks.md is
    # at most one per 20k lines; the last one, an equality only inequalities under a
    # flag establish, went in the twelfth round); recall no lower than measured. Each blind
    # slice lowers the share when it is added (slices 9 and 10 located 5 of 20 each
    # as planted; 12, 8 and 7 of 20, 12 and 12 for slices 11 to 13; 5, 7, 4, 3 and 3
    # of 16 for slices 14 to 18, 2 of 16 for slice 19, 3, 5, 4, 3 and 4 of 16 for
    # slices 20 to 24, 1, 3 and 3 of 16 for slices 25 to 27, 3 and 7 of 16 for
    # slices 28 and 29, 5 and 2 of 16 for slices 30 and 31, 5 and 3 of 16 for slices
    # 32 and 33), so the floor is per slice: slices 1 to 8 (138 of 169 at the end of
    # the ninth round) stay at the 80% target, and all the bugs at 57% (331 of 573 in
    # the seventeenth round, 57.8%, with slice 33; the target, 80%, is not met:
    # docs/benchmarks.md).
    assert s["unclassified"] == 0
    assert s["false_alarms"] == 0, s["false_alarms"]
    assert s["located"] * 100 >= s["bugs"] * 57, (s["located"], s["bugs"])
    early = [b for b in out["bugs"] if b.get("slice", 1) <= 8]
    located = sum(1 for b in early if b.get("located"))
    assert located * 100 >= len(early) * 80, (located, len(early))
