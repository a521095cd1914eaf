"""``tensortypes annotate``: shape annotations written from what the code did (layer 7).

Two steps, as MonkeyType does for plain types, but with dtypes and shapes whose
sizes are shared across parameters:

- ``tensortypes annotate run [--include PKG] -- python -m pytest ...`` (or
  ``-- python script.py ...``) runs the program in this process under a
  low-overhead tracer (``annotator.trace``) and appends what each included
  function was called with to a SQLite trace file;
- ``tensortypes annotate apply [PATH ...]`` infers one annotation per array
  parameter and return value from every recorded call (``annotator.infer``) and
  writes them into the source with libcst (``annotator.apply``); ``--diff`` shows
  the change instead, ``--stubs DIR`` writes ``.pyi`` files.

Needs the ``annotate`` extra (libcst) for ``apply``; ``run`` needs nothing.
Nothing imports this package but the command line (``tensortypes.cli``).
"""

from __future__ import annotations

import argparse
import difflib
import os
import runpy
import sys
from pathlib import Path

__all__ = ["main", "build_parser"]


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The ``annotate`` command's arguments (``cli.py`` attaches them as a subcommand)."""
    from .trace import DEFAULT_CAP, DEFAULT_TRACE

    parser = parser or argparse.ArgumentParser(prog="tensortypes annotate")
    steps = parser.add_subparsers(dest="step", metavar="STEP", required=True)
    run = steps.add_parser(
        "run",
        help="run a program and record the shapes its functions see",
        description="Run a program (-- python -m pytest ... or -- python script.py ...) in "
        "this process and record, for each included function, the kind, dtype "
        "and shape of its array arguments and return values.",
    )
    run.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="PKG",
        help="record functions of this package/module or path (repeatable; "
        "default: code under the working directory)",
    )
    run.add_argument(
        "--trace",
        default=None,
        metavar="FILE",
        help=f"the trace file (default: $TENSORTYPES_TRACE or {DEFAULT_TRACE})",
    )
    run.add_argument(
        "--cap",
        type=int,
        default=DEFAULT_CAP,
        metavar="N",
        help=f"distinct calls recorded per function (default {DEFAULT_CAP}; "
        f"at most 4 times as many are looked at)",
    )
    run.add_argument(
        "program",
        nargs=argparse.REMAINDER,
        help="-- python -m MODULE ARGS..., or -- python SCRIPT ARGS...",
    )
    apply = steps.add_parser(
        "apply",
        help="write annotations inferred from the trace into the source",
        description="Infer one annotation per array parameter and return value from the "
        "recorded calls and write it into the source (existing annotations "
        "are kept).",
    )
    apply.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="only files under these paths (default: every traced file)",
    )
    apply.add_argument("--trace", default=None, metavar="FILE")
    apply.add_argument("--diff", action="store_true", help="print the change, write nothing")
    apply.add_argument(
        "--stubs",
        default=None,
        metavar="DIR",
        help="write .pyi stubs under DIR instead of changing the source",
    )
    apply.add_argument(
        "--import-from",
        default="tensortypes",
        choices=("tensortypes", "jaxtyping"),
        help="where the dtype classes are imported from (a module that "
        "already imports jaxtyping keeps it)",
    )
    return parser


def _target(command: list) -> tuple:
    """``("module", name, argv)`` or ``("path", script, argv)`` from ``-- python ...``."""
    if command and command[0] == "--":
        command = command[1:]
    if command and Path(command[0]).name.startswith("python"):
        command = command[1:]
    if not command:
        raise ValueError("nothing to run: give -- python -m MODULE ... or -- python SCRIPT ...")
    if command[0] == "-m":
        if len(command) < 2:
            raise ValueError("-m needs a module name")
        return "module", command[1], [command[1], *command[2:]]
    if command[0].startswith("-"):
        raise ValueError(f"unsupported interpreter option {command[0]!r} (only -m)")
    return "path", command[0], command


def run(args) -> int:
    from .trace import Tracer, trace_path

    try:
        kind, target, argv = _target(list(args.program))
    except ValueError as error:
        sys.stderr.write(f"tensortypes annotate run: {error}\n")
        return 2
    if kind == "path" and not Path(target).is_file():
        sys.stderr.write(f"tensortypes annotate run: no such script: {target}\n")
        return 2
    out = trace_path(args.trace)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(target)) if kind == "path" else os.getcwd())
    tracer = Tracer(args.include, cap=args.cap)
    status = 0
    try:
        with tracer:
            try:
                if kind == "module":
                    runpy.run_module(target, run_name="__main__", alter_sys=True)
                else:
                    runpy.run_path(target, run_name="__main__")
            except SystemExit as exit_:
                code = exit_.code
                status = code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        written = tracer.save(out)
        sys.stderr.write(
            f"tensortypes annotate: recorded {written} calls of "
            f"{len({k for k, v in tracer.counts.items() if v})} functions "
            f"in {out}\n"
        )
    return status


def _load(trace) -> dict:
    """``filename -> qualname -> [(args, ret, self_ints), ...]`` from the trace file."""
    from .trace import TraceStore

    found: dict = {}
    for _module, qualname, filename, _line, a, r, s in TraceStore(trace).calls():
        found.setdefault(os.path.abspath(filename), {}).setdefault(qualname, []).append((a, r, s))
    return found


def apply(args) -> int:
    try:
        import libcst  # noqa: F401
    except ImportError:
        sys.stderr.write(
            "tensortypes annotate apply: writing annotations needs the "
            "'annotate' extra (libcst): pip install 'tensortypes[annotate]'\n"
        )
        return 2
    from .apply import annotate_source, stub_source
    from .trace import trace_path

    trace = trace_path(args.trace)
    if not trace.is_file():
        sys.stderr.write(
            f"tensortypes annotate apply: no trace file {trace}; record one "
            f"with 'tensortypes annotate run -- python ...'\n"
        )
        return 2
    traced = _load(trace)
    wanted = [os.path.abspath(p) for p in args.paths]
    changed = contradicted = 0
    for filename in sorted(traced):
        if wanted and not any(
            filename == w or filename.startswith(w.rstrip(os.sep) + os.sep) for w in wanted
        ):
            continue
        path = Path(filename)
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        try:
            new, report = annotate_source(text, traced[filename], args.import_from)
        except SyntaxError as error:
            sys.stderr.write(f"{filename}: cannot parse: {error}\n")
            continue
        for line in report.contradictions:
            sys.stderr.write(
                f"{filename}: {line[0]}: {line[1]}: a recorded call contradicts "
                f"the annotation: {line[2]}\n"
            )
            contradicted += 1
        if new == text:
            continue
        changed += 1
        rel = os.path.relpath(filename)
        if args.diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    text.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    f"a/{rel}",
                    f"b/{rel}",
                )
            )
        elif args.stubs:
            stub = Path(args.stubs) / Path(rel).with_suffix(".pyi")
            stub.parent.mkdir(parents=True, exist_ok=True)
            stub.write_text(stub_source(new), encoding="utf-8")
        else:
            path.write_text(new, encoding="utf-8")
    what = "would change" if args.diff else "wrote stubs for" if args.stubs else "annotated"
    sys.stderr.write(
        f"tensortypes annotate: {what} {changed} file{'s' if changed != 1 else ''}"
        + (
            f"; {contradicted} annotation{'s' if contradicted != 1 else ''} "
            f"contradicted by recorded calls"
            if contradicted
            else ""
        )
        + "\n"
    )
    return 1 if contradicted else 0


def main(args) -> int:
    """Run ``tensortypes annotate`` with parsed arguments; the exit status."""
    return run(args) if args.step == "run" else apply(args)
