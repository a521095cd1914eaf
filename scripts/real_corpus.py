"""The real-code corpus of ``tensortypes check``: recall on planted bugs, reports on real code.

No third-party code is kept in this repository. ``tests/check/real/`` holds:

- ``manifest.json``: the public repositories (name, GitHub repository, commit,
  the folders checked);
- ``bugs.json``: the planted bugs (id, repository, file, what the one-line
  change does, and how a run confirms it fails); ``bugs/<id>.patch``: each as a
  unified diff with a few lines of context;
- ``reports.md``: every report on the unmodified code, classified (real bug,
  annotation wrong, false alarm).

This script rebuilds the trees from snapshots of those repositories, found
under ``$TENSORTYPES_SNAPSHOTS/<name>`` (a checkout or an extracted archive of
the listed commit), and:

- ``run`` (the default): checks every repository unmodified and prints its
  reports with their class (``unclassified`` if ``reports.md`` lacks them),
  then applies each bug patch to a copy and checks the patched file (imports
  followed through its repository). A bug is *caught on its line* when an
  error the unmodified code does not have (the same line, code and message;
  ``--baseline`` matches findings by code and message too) is reported on the
  statement the patch changes (any line of a statement that spans several; the header of an
  ``if``/``for``/``with``), and *caught in its function* when such an error
  is reported there or later in the same function (the one-line change is
  valid by itself and the error is where its result is used: a new axis in
  the wrong place, then the broadcast that fails), and *named by a note* when
  such an error in its function has a note naming a line of the changed
  statement (where the offending value's shape was made: a related location in
  SARIF and the editor), and *located on its line* when a new error or a
  located note of one (``x gets its shape (c, 1) here (used at line 8)``,
  printed at its own line as mypy prints notes) is on the changed statement:
  this fourth figure counts notes, not only errors. Prints the four recalls
  for all bugs and for each slice of ``bugs.json`` (``"slice"``: 1 when absent),
  precision (reports that are not false alarms) and false alarms per 20k
  lines;
- ``confirm``: runs each buggy function and its original with small random
  inputs under ``tensortypes``'s runtime checker (needs torch and einops): the
  original must pass and the buggy one fail;
- ``plant ID REPO FILE LINE NEW [--kind K --why W]``: writes a new bug's patch
  (the line replaced by ``NEW``, keeping its indentation) and its entry.

    TENSORTYPES_SNAPSHOTS=/work/snap python scripts/real_corpus.py
    TENSORTYPES_SNAPSHOTS=/work/snap python scripts/real_corpus.py confirm
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "check" / "real"
sys.path.insert(0, str(ROOT / "src"))

from tensortypes.check import check_paths  # noqa: E402
from tensortypes.check.notes import note_lines  # noqa: E402
from tensortypes.check.sources import parse_module  # noqa: E402

__all__ = ["load", "snapshots", "build", "apply_patch", "run", "main"]


def load() -> tuple:
    manifest = json.loads((DATA / "manifest.json").read_text())
    bugs = json.loads((DATA / "bugs.json").read_text())
    return manifest["repos"], bugs


def snapshots() -> Path | None:
    """The snapshot folder named by ``$TENSORTYPES_SNAPSHOTS``, or None."""
    found = os.environ.get("TENSORTYPES_SNAPSHOTS")
    return Path(found) if found and Path(found).is_dir() else None


def missing(repos, base: Path) -> list:
    return [
        r["name"] for r in repos if not all((base / r["name"] / p).exists() for p in r["paths"])
    ]


def build(repos, base: Path, target: Path) -> None:
    """Copy the checked folders of each repository from its snapshot into ``target``."""
    for repo in repos:
        for rel in repo["paths"]:
            src = base / repo["name"] / rel
            dst = target / repo["name"] / rel
            if src.is_dir():
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.pyc", ".git"))
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)


# -- patches --------------------------------------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_patch(text: str, patch: str) -> tuple:
    """``(patched text, first changed line)``: one-hunk unified diffs, context checked.

    >>> apply_patch("a\\nb\\nc\\n", "--- x\\n+++ x\\n@@ -1,3 +1,3 @@\\n a\\n-b\\n+B\\n c\\n")
    ('a\\nB\\nc\\n', 2)
    """
    lines = text.splitlines(keepends=True)
    body = patch.splitlines()
    start = next(i for i, line in enumerate(body) if line.startswith("@@"))
    m = _HUNK.match(body[start])
    if m is None:
        raise ValueError("not a unified diff hunk")
    old_start = int(m.group(1)) - 1
    old, new, changed = [], [], None
    for line in body[start + 1 :]:
        if line.startswith("@@"):
            raise ValueError("one hunk per bug patch")
        tag, rest = line[:1], line[1:]
        if tag == " ":
            old.append(rest)
            new.append(rest)
        elif tag == "-":
            if changed is None:
                changed = old_start + len(new) + 1
            old.append(rest)
        elif tag == "+":
            if changed is None:
                changed = old_start + len(new) + 1
            new.append(rest)
    here = [line.rstrip("\n") for line in lines[old_start : old_start + len(old)]]
    if here != old:
        raise ValueError(
            f"the patch does not apply at line {old_start + 1}: the snapshot "
            f"is not the commit the manifest names"
        )
    out = lines[:old_start] + [line + "\n" for line in new] + lines[old_start + len(old) :]
    return "".join(out), changed


def make_patch(text: str, line: int, new: str, path: str) -> str:
    lines = text.splitlines()
    old = lines[line - 1]
    indent = old[: len(old) - len(old.lstrip())]
    changed = list(lines)
    changed[line - 1] = indent + new.strip()
    diff = difflib.unified_diff(lines, changed, f"a/{path}", f"b/{path}", n=2, lineterm="")
    return "\n".join(diff) + "\n"


# -- measuring ------------------------------------------------------------------------------


def bug_span(text: str, line: int) -> tuple:
    """``((first, last), (first, end))``: the lines of the statement holding ``line``
    (of a compound statement, its header) and the rest of its function.

    >>> bug_span("def f(x):\\n    y = g(\\n        x)\\n    return y\\n", 3)
    ((2, 3), (2, 4))
    """
    tree = parse_module(text)[0]
    stmt = None
    function = (0, line)  # the innermost function holding the line
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or not (
            node.lineno <= line <= (node.end_lineno or node.lineno)
        ):
            continue
        last = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ):
            last = body[0].lineno - 1  # a compound statement: its header
            if line > last:
                continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.lineno > function[0]:
                function = (node.lineno, node.end_lineno or node.lineno)
            continue
        if stmt is None or node.lineno >= stmt[0]:
            stmt = (node.lineno, last)
    stmt = stmt or (line, line)
    return stmt, (stmt[0], max(function[1], stmt[1]))


def _names_lines(diagnostic, first: int, last: int) -> bool:
    """Whether a note of ``diagnostic`` names a line from ``first`` to ``last`` (a
    value made there: ``centroid: ..., assigned at line 187``), as editors and SARIF
    show it (a related location)."""
    return any(first <= n <= last for note in diagnostic.notes for n in note_lines(note))


def _errors(found) -> list:
    return [d for d in found if d.severity == "error"]


def _rel(path: str, tree: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(tree.resolve()))
    except ValueError:
        return path


def read_classes() -> dict:
    """``(repo, file, line, code) -> (class, why)`` from ``reports.md``."""
    out = {}
    path = DATA / "reports.md"
    if not path.exists():
        return out
    for row in path.read_text().splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 5 or not re.match(r"^[\w.-]+$", cells[0]) or cells[0] == "repo":
            continue
        where = cells[1].strip("`")
        file, _, line = where.rpartition(":")
        if line.isdigit():
            out[(cells[0], file, int(line), cells[2].strip("`"))] = (cells[3], cells[4])
    return out


def count_lines(folder: Path) -> int:
    total = 0
    for f in folder.rglob("*.py"):
        try:
            total += f.read_text(encoding="utf-8", errors="replace").count("\n")
        except OSError:
            pass
    return total


def run(base: Path, verbose: bool = True, follow: bool = True) -> dict:
    """Measure recall and the reports on unmodified code (see the module docstring)."""
    repos, bugs = load()
    classes = read_classes()
    out = {"reports": [], "bugs": [], "lines": 0, "errors": []}
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        build(repos, base, tree)
        before: dict = {}
        for repo in repos:
            folders = [tree / repo["name"] / p for p in repo["paths"]]
            out["lines"] += sum(count_lines(f) for f in folders)
            start = time.perf_counter()
            found = _errors(check_paths(folders, cache=False, jobs=1, follow=follow))
            took = time.perf_counter() - start
            for d in found:
                rel = _rel(d.path, tree / repo["name"])
                before.setdefault((repo["name"], rel), set()).add((d.line, d.code, d.message))
                cls, why = classes.get((repo["name"], rel, d.line, d.code), ("unclassified", ""))
                out["reports"].append(
                    {
                        "repo": repo["name"],
                        "file": rel,
                        "line": d.line,
                        "code": d.code,
                        "message": d.message,
                        "class": cls,
                        "why": why,
                    }
                )
            if verbose:
                print(f"{repo['name']}: {len(found)} errors ({took:.1f} s)")
        for bug in bugs:
            file = tree / bug["repo"] / bug["file"]
            original = file.read_text(encoding="utf-8")
            patch = (DATA / "bugs" / f"{bug['id']}.patch").read_text()
            try:
                text, line = apply_patch(original, patch)
            except (ValueError, StopIteration) as error:
                out["errors"].append(f"{bug['id']}: {error}")
                continue
            file.write_text(text, encoding="utf-8")
            try:
                found = _errors(check_paths([file], cache=False, jobs=1, follow=follow))
            finally:
                file.write_text(original, encoding="utf-8")
            old = before.get((bug["repo"], bug["file"]), set())
            (first, last), (start, end) = bug_span(text, line)
            new_errors = [d for d in found if (d.line, d.code, d.message) not in old]
            hits = [d for d in new_errors if first <= d.line <= last]
            later = [d for d in new_errors if first <= d.line <= end]
            pointing = [d for d in later if _names_lines(d, first, last)]
            located = [d for d in new_errors if any(first <= r[0] <= last for r in d.related)]
            shown = hits or pointing or later
            out["bugs"].append(
                {
                    "id": bug["id"],
                    "line": line,
                    "caught": bool(hits),
                    "pointed": bool(hits or pointing),
                    "located": bool(hits or located),
                    "slice": bug.get("slice", 1),
                    "in_function": bool(later),
                    "at": shown[0].line if shown else None,
                    "kind": bug.get("kind", ""),
                    "message": shown[0].message if shown else "",
                }
            )
    false = sum(r["class"] == "false alarm" for r in out["reports"])
    unclassified = sum(r["class"] == "unclassified" for r in out["reports"])
    n = len(out["reports"])
    out["slices"] = {
        k: _recalls([b for b in out["bugs"] if b["slice"] == k])
        for k in sorted({b["slice"] for b in out["bugs"]})
    }
    out["summary"] = {
        **_recalls(out["bugs"]),
        "reports": n,
        "false_alarms": false,
        "unclassified": unclassified,
        "precision": (n - false - unclassified) / n if n else float("nan"),
        "lines": out["lines"],
        "false_alarms_per_20k_lines": false * 20000 / out["lines"] if out["lines"] else 0.0,
    }
    if verbose:
        _print(out)
    return out


def _recalls(bugs_run: list) -> dict:
    """The four recalls of some measured bugs (see the module docstring)."""
    n = len(bugs_run)
    out = {"bugs": n}
    for key, share in (
        ("caught", "recall"),
        ("pointed", "recall_pointed"),
        ("located", "recall_located"),
        ("in_function", "recall_in_function"),
    ):
        out[key] = sum(b[key] for b in bugs_run)
        out[share] = out[key] / n if n else float("nan")
    return out


def _recall_line(s: dict) -> str:
    return (
        f"{s['caught']}/{s['bugs']} = {s['recall']:.0%} on the bug's line by an error; "
        f"{s['located']}/{s['bugs']} = {s['recall_located']:.0%} by a located diagnostic "
        f"(error or note) on its line; "
        f"{s['pointed']}/{s['bugs']} = {s['recall_pointed']:.0%} on its line or named by "
        f"a note of the error; "
        f"{s['in_function']}/{s['bugs']} = {s['recall_in_function']:.0%} in its function"
    )


def _print(out: dict) -> None:
    print("\nplanted bugs:")
    for b in out["bugs"]:
        mark = (
            "caught"
            if b["caught"]
            else f"at {b['at']}, note here"
            if b["located"]
            else f"at {b['at']}, named"
            if b["pointed"]
            else f"at {b['at']}"
            if b["in_function"]
            else "MISSED"
        )
        print(
            f"  {b['id']:<10} line {b['line']:<5} {mark:<7} {b['kind']}"
            + (f"  -- {b['message'][:90]}" if b["in_function"] else "")
        )
    for e in out["errors"]:
        print(f"  patch error: {e}")
    print("\nreports on the unmodified code:")
    for r in out["reports"]:
        print(
            f"  [{r['class']}] {r['repo']}/{r['file']}:{r['line']} [{r['code']}] "
            f"{r['message'][:110]}"
        )
    s = out["summary"]
    print(f"\nrecall: {_recall_line(s)}")
    if len(out["slices"]) > 1:
        for k, sl in out["slices"].items():
            print(f"  slice {k}: {_recall_line(sl)}")
    print(
        f"reports on unmodified code: {s['reports']} ({s['false_alarms']} false alarms, "
        f"{s['unclassified']} unclassified) in {s['lines']} lines; precision "
        f"{s['precision']:.0%}; {s['false_alarms_per_20k_lines']:.2f} false alarms "
        f"per 20k lines"
    )


# -- confirming bugs at run time ----------------------------------------------------------------

_PRELUDE = """\
import math
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from einops import rearrange, repeat, reduce, einsum
from typing import Any, Optional, Tuple, Union, Callable, Dict, List
from tensortypes import Float, Int, Bool, Shaped, Num, Float32, Int32, UInt8, Integer
import dataclasses, enum, functools, typing
from types import SimpleNamespace
"""


def _module_namespace(text: str, name: str, extra: str = "") -> dict:
    """The top-level functions and simple constants of a module, with the usual imports.

    The module itself is not imported (its other dependencies need not be
    installed): only its ``def``s and literal assignments are run, after a
    prelude of torch, einops and the ``tensortypes`` dtype classes.
    """
    tree = parse_module(text)[0]  # Python 3.12 syntax is written out on 3.11
    namespace: dict = {"__name__": name}
    exec(compile(_PRELUDE + extra, name, "exec", dont_inherit=True), namespace)
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):  # its methods, as ``Class.method`` (self given)
            for method in stmt.body:
                if not isinstance(method, ast.FunctionDef):
                    continue
                method.decorator_list = []
                code = compile(
                    ast.Module(body=[method], type_ignores=[]), name, "exec", dont_inherit=True
                )
                try:
                    exec(code, namespace)
                except Exception:  # an annotation naming what this run does not make
                    continue
                namespace[f"{stmt.name}.{method.name}"] = namespace.pop(method.name)
            continue
        if isinstance(stmt, ast.FunctionDef):
            stmt.decorator_list = []
        elif not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            continue
        code = compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec", dont_inherit=True)
        try:
            exec(code, namespace)
        except Exception:  # a name from an import this run does not make: left out
            pass
    return namespace


def _make_inputs(function, spec: dict, namespace: dict, seed: int) -> dict:
    import torch

    from tensortypes.annotate import DTYPE_CLASSES  # noqa: F401 (the classes are in scope)

    torch.manual_seed(seed)
    sizes = dict(spec.get("sizes", {}))
    default_sizes = iter(range(2, 40))
    args = {}
    annotations = function.__annotations__
    for name, given in spec.get("args", {}).items():
        args[name] = eval(given, namespace)  # noqa: S307 (our own committed spec)
    for name, ann in annotations.items():
        if name == "return" or name in args:
            continue
        dims = getattr(ann, "dim_str", None) or getattr(ann, "shape_str", None)
        if dims is None:
            continue
        shape = []
        for token in dims.split():
            token = token.lstrip("#")
            if token in ("...",) or token.startswith("*"):
                shape.extend(sizes.get(token, (2,)))
            elif token.isdigit():
                shape.append(int(token))
            else:
                if token not in sizes:
                    value = next(default_sizes)
                    while value in sizes.values():
                        value = next(default_sizes)
                    sizes[token] = value
                shape.append(sizes[token])
        kind = getattr(ann, "dtype_kind", None) or type(ann).__name__
        text = str(ann)  # "Bool[Tensor, '... n']" (the repr is the class's: <class ...>)
        if text.startswith("Bool") or "bool" in str(kind):
            args[name] = torch.rand(shape) > 0.5
        elif text.startswith(("Int", "UInt", "Long")):
            args[name] = torch.randint(0, 3, shape)
        else:
            args[name] = torch.rand(shape) + 0.1
    return args


def confirm(base: Path, only_slice: int | None = None) -> int:
    """Run each bug's function before and after its patch (see the module docstring)."""
    from tensortypes import typechecked

    repos, bugs = load()
    if only_slice is not None:
        bugs = [b for b in bugs if b.get("slice", 1) == only_slice]
    bad = 0
    for bug in bugs:
        spec = bug.get("confirm")
        if spec is None:
            print(f"{bug['id']}: no run specified")
            bad += 1
            continue
        file = base / bug["repo"] / bug["file"]
        original = file.read_text(encoding="utf-8")
        patch = (DATA / "bugs" / f"{bug['id']}.patch").read_text()
        patched, _ = apply_patch(original, patch)
        outcome = []
        for label, text in (("original", original), ("buggy", patched)):
            helpers = "\n".join(spec.get("prelude", []))
            ns = _module_namespace(text, bug["file"], helpers)
            for other in spec.get("helpers", []):
                helper_file, _, fname = other.partition(":")
                helper_ns = _module_namespace(
                    (base / bug["repo"] / helper_file).read_text(), helper_file, helpers
                )
                ns[fname] = helper_ns[fname]
            for alias, module_file in spec.get("modules", {}).items():
                module_ns = _module_namespace(
                    (base / bug["repo"] / module_file).read_text(), module_file, helpers
                )
                ns[alias] = type(sys)(alias)
                ns[alias].__dict__.update(module_ns)
            function = ns[spec["function"]]
            checked = typechecked(function)
            try:
                args = _make_inputs(function, spec, ns, seed=0)
                checked(**args)
                outcome.append("passes")
            except Exception as error:  # the run's own failure is what is measured
                outcome.append(
                    f"fails ({type(error).__name__}: "
                    f"{str(error).splitlines()[0][:80] if str(error) else ''})"
                )
                if os.environ.get("REAL_CORPUS_DEBUG") and label == "original":
                    traceback.print_exc()
        ok = outcome[0] == "passes" and outcome[1].startswith("fails")
        bad += not ok
        print(
            f"{bug['id']:<10} {'confirmed' if ok else 'NOT CONFIRMED':<14} original "
            f"{outcome[0]}; buggy {outcome[1]}"
        )
    print(f"\n{len(bugs) - bad}/{len(bugs)} bugs confirmed by running them")
    return 1 if bad else 0


def plant(args) -> int:
    base = snapshots()
    if base is None:
        print("set TENSORTYPES_SNAPSHOTS to the snapshot folder")
        return 2
    text = (base / args.repo / args.file).read_text(encoding="utf-8")
    patch = make_patch(text, args.line, args.new, args.file)
    (DATA / "bugs").mkdir(exist_ok=True)
    (DATA / "bugs" / f"{args.id}.patch").write_text(patch)
    _, bugs = load()
    bugs = [b for b in bugs if b["id"] != args.id]
    entry = {
        "id": args.id,
        "repo": args.repo,
        "file": args.file,
        "kind": args.kind,
        "why": args.why,
    }
    if args.function:
        entry["confirm"] = {"function": args.function}
    bugs.append(entry)
    (DATA / "bugs.json").write_text(json.dumps(bugs, indent=1) + "\n")
    print(patch)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--no-follow", action="store_true", help="check each module alone (imports not followed)"
    )
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run")
    c = sub.add_parser("confirm")
    c.add_argument("--slice", type=int, default=None, help="only the bugs of this slice")
    p = sub.add_parser("plant")
    for name in ("id", "repo", "file"):
        p.add_argument(name)
    p.add_argument("line", type=int)
    p.add_argument("new")
    p.add_argument("--kind", default="")
    p.add_argument("--why", default="")
    p.add_argument("--function", default="")
    args = parser.parse_args(argv)
    if args.command == "plant":
        return plant(args)
    base = snapshots()
    repos, _ = load()
    if base is None or missing(repos, base):
        print(
            "skipped: set TENSORTYPES_SNAPSHOTS to a folder holding snapshots of "
            + ", ".join(r["name"] for r in repos)
            + (f" (missing: {', '.join(missing(repos, base))})" if base else "")
        )
        return 0
    if args.command == "confirm":
        return confirm(base, args.slice)
    out = run(base, verbose=not args.json, follow=not args.no_follow)
    if args.json:
        print(json.dumps(out, indent=1))
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
