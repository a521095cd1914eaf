"""The ``tensortypes`` command line (facade: may import any layer).

Subcommands:

- ``demo [SECTION ...]``: a short tour of what the library does, printed as
  an interactive session (each statement, then its result or its error);
  ``demo --all`` adds the internals, ``demo --list`` names the sections. The
  tour itself is data, in ``tensortypes.demo``.
- ``check [PATH ...]``: the static checker (``tensortypes.check.runner.main``).
"""

from __future__ import annotations

import argparse

from tensortypes.demo import SECTIONS, Section, Step, run_demo

__all__ = ["Section", "Step", "SECTIONS", "run_demo", "main"]


def _parser() -> argparse.ArgumentParser:
    from tensortypes import __version__
    from tensortypes.check.formats import FORMATS

    parser = argparse.ArgumentParser(
        prog="tensortypes", description="Dtypes and symbolic shapes as types for array programs."
    )
    parser.add_argument("--version", action="version", version=f"tensortypes {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo = commands.add_parser(
        "demo",
        help="print a short tour of the library",
        description="Print a short tour of the library.",
    )
    demo.add_argument(
        "sections",
        nargs="*",
        metavar="SECTION",
        help="run only these sections (default: all but the internals)",
    )
    demo.add_argument("--all", action="store_true", help="also run the internals' sections")
    demo.add_argument("--list", action="store_true", help="list the sections and exit")
    check = commands.add_parser(
        "check",
        help="find shape and dtype errors without running the code",
        description="Find shape and dtype errors in NumPy, PyTorch and JAX modules without "
        "running them. Exit status: 0 no errors, 1 errors found, 2 the checker "
        "failed on a file (an [internal] error) or a usage problem.",
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files and folders (default: [tool.tensortypes] paths, or .)",
    )
    check.add_argument(
        "--output-format",
        "-O",
        choices=FORMATS,
        default=None,
        help="text (default), json, github (workflow annotations) or sarif",
    )
    check.add_argument(
        "--json", action="store_true", help="print the diagnostics as JSON (--output-format json)"
    )
    codes = check.add_mutually_exclusive_group()
    codes.add_argument(
        "--show-error-codes",
        dest="show_error_codes",
        action="store_true",
        default=True,
        help="end each error with its [code] (the default)",
    )
    codes.add_argument(
        "--hide-error-codes",
        dest="show_error_codes",
        action="store_false",
        help="do not print the [code] of each error",
    )
    check.add_argument(
        "--disable-code",
        action="append",
        metavar="CODE",
        help="do not report this code (repeatable, or comma-separated)",
    )
    check.add_argument(
        "--enable-code",
        action="append",
        metavar="CODE",
        help="report this code even if disabled in the configuration "
        "('unchecked' turns on --strict's notes)",
    )
    check.add_argument(
        "--baseline", metavar="FILE", default=None, help="do not report the errors recorded in FILE"
    )
    check.add_argument(
        "--write-baseline",
        metavar="FILE",
        default=None,
        help="record the errors found in FILE and exit 0",
    )
    check.add_argument(
        "--strict",
        action="store_true",
        help="also report (as notes) where the checker had to give up",
    )
    check.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: one per core; 1: none)",
    )
    check.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    check.add_argument(
        "--cache-dir",
        default=None,
        metavar="DIR",
        help="cache directory (default: <cache_dir>/check)",
    )
    check.add_argument(
        "--debug",
        action="store_true",
        help="show the traceback of an internal error of the checker",
    )
    commands.add_parser(
        "lsp",
        help="run the language server over stdio (needs the 'lsp' extra)",
        description="Serve the static checker's diagnostics and hovers to an editor over "
        "the Language Server Protocol on stdin/stdout.",
    )
    from tensortypes.annotator import build_parser

    build_parser(
        commands.add_parser(
            "annotate",
            help="record a run's array shapes and write them as annotations",
            description="Record the dtypes and shapes a program's functions see (annotate run), "
            "then write them into the source as annotations (annotate apply).",
        )
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    >>> main(["demo", "--list"])  # doctest: +ELLIPSIS
    annotations: annotations checked at every call: a caught shape error
    ...
    0
    """
    args = _parser().parse_args(argv)
    if args.command == "demo":
        if args.list:
            for section in SECTIONS:
                print(f"{section.key}: {section.title}")
            return 0
        return run_demo(args.sections, everything=args.all)
    if args.command == "check":
        from tensortypes.check.runner import main as check_main

        return check_main(args)
    if args.command == "lsp":
        from tensortypes.lsp import main as lsp_main

        return lsp_main()
    if args.command == "annotate":
        from tensortypes.annotator import main as annotate_main

        return annotate_main(args)
    raise AssertionError(f"unhandled command {args.command!r}")  # pragma: no cover
