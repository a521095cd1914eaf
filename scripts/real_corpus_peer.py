"""Another checker on the real-code corpus of ``tensortypes check``, scored the same way.

Rebuilds the corpus trees from ``$TENSORTYPES_SNAPSHOTS`` as ``real_corpus.py``
does, runs a peer type checker over each repository unmodified (its error
count), then applies each planted bug and runs the checker on the patched file
(imports resolved through its repository). A bug is caught on its line, or in its
function, by the rule of ``real_corpus.py``: an error the unmodified file does
not have (same line, error kind and message) on the statement the patch changes,
or there or further down the same function.

Pyrefly runs with ``--preset default`` (its normal checks: without a
configuration file it would fall back to the lenient ``basic`` preset, which
reports nothing even for ``x: int = "s"``). Only Pyrefly is supported: it runs
in seconds per repository, where mypy takes
minutes for each of the 41 patched runs. Pyrefly and the libraries the corpus
imports (torch, einops, jaxtyping) are taken from the interpreter given with
``--python`` (its site-packages); the checker must be on ``PATH`` or given
with ``--pyrefly``.

    TENSORTYPES_SNAPSHOTS=/work/snap python scripts/real_corpus_peer.py \\
        --pyrefly /tmp/peer/bin/pyrefly --python /tmp/peer/bin/python
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_corpus import DATA, apply_patch, bug_span, build, load, missing, snapshots  # noqa: E402


def pyrefly(exe: str, python: str, paths: list, root: Path) -> list:
    """``(path relative to root, line, kind, message)`` of each error Pyrefly reports."""
    done = subprocess.run(
        [
            exe,
            "check",
            *map(str, paths),
            "--output-format",
            "json",
            "--summary=none",
            # Without a configuration file Pyrefly falls back to its lenient "basic"
            # preset, which turns off assignment and call checks: its normal checks
            # are the fair measure.
            "--preset",
            "default",
            "--python-interpreter-path",
            python,
            "--search-path",
            str(root),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=900,
    )
    try:
        found = json.loads(done.stdout)["errors"]
    except (ValueError, KeyError):
        raise SystemExit(
            f"pyrefly gave no JSON (exit {done.returncode}):\n{done.stderr[-2000:]}"
        ) from None
    out = []
    for e in found:
        if e.get("severity", "error") != "error" or e["name"] == "missing-import":
            continue  # import errors are not counted for any tool
        path = Path(e["path"])
        rel = str((root / path).resolve().relative_to(root.resolve()))
        out.append((rel, e["line"], e["name"], e["concise_description"]))
    return out


def run(base: Path, exe: str, python: str) -> dict:
    repos, bugs = load()
    out: dict = {"reports": {}, "bugs": []}
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        build(repos, base, tree)
        before: dict = {}
        for repo in repos:
            root = tree / repo["name"]
            start = time.perf_counter()
            found = pyrefly(exe, python, [root / p for p in repo["paths"]], root)
            took = time.perf_counter() - start
            out["reports"][repo["name"]] = len(found)
            for rel, line, kind, message in found:
                before.setdefault((repo["name"], rel), set()).add((line, kind, message))
            print(f"{repo['name']}: {len(found)} errors ({took:.1f} s)")
        for bug in bugs:
            root = tree / bug["repo"]
            file = root / bug["file"]
            original = file.read_text(encoding="utf-8")
            patch = (DATA / "bugs" / f"{bug['id']}.patch").read_text()
            text, line = apply_patch(original, patch)
            file.write_text(text, encoding="utf-8")
            try:
                found = pyrefly(exe, python, [file], root)
            finally:
                file.write_text(original, encoding="utf-8")
            old = before.get((bug["repo"], bug["file"]), set())
            (first, last), (_, end) = bug_span(text, line)
            new = [
                (ln, kind, msg)
                for rel, ln, kind, msg in found
                if rel == bug["file"] and (ln, kind, msg) not in old
            ]
            hits = [e for e in new if first <= e[0] <= last]
            later = [e for e in new if first <= e[0] <= end]
            shown = hits or later
            out["bugs"].append(
                {
                    "id": bug["id"],
                    "caught": bool(hits),
                    "in_function": bool(later),
                    "error": f"{shown[0][0]}: [{shown[0][1]}] {shown[0][2]}" if shown else "",
                }
            )
            mark = "line" if hits else "function" if later else "missed"
            print(f"  {bug['id']}: {mark} {out['bugs'][-1]['error']}")
    n = len(out["bugs"])
    caught = sum(b["caught"] for b in out["bugs"])
    in_function = sum(b["in_function"] for b in out["bugs"])
    out["summary"] = {
        "bugs": n,
        "caught": caught,
        "in_function": in_function,
        "reports": sum(out["reports"].values()),
    }
    print(
        f"pyrefly: recall {caught}/{n} on the bug's line, {in_function}/{n} in its function; "
        f"{out['summary']['reports']} errors on the unmodified code"
    )
    return out


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyrefly", default=shutil.which("pyrefly") or "pyrefly")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    base = snapshots()
    repos, _ = load()
    if base is None or missing(repos, base):
        print("TENSORTYPES_SNAPSHOTS does not hold the corpus snapshots; nothing run")
        return 2
    out = run(base, args.pyrefly, args.python)
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
