"""Running the checker over sources, files and folders (layer 6: ``check``).

- :func:`check_source`: one module's text -> its diagnostics;
- :func:`check_paths`: files and folders -> diagnostics, following imports
  across the checked project's modules (``check.project``), with the
  incremental cache (``check.cache``) and worker processes for the files that
  miss it;
- :func:`main`: the ``tensortypes check`` command (``cli.py`` builds its
  arguments and calls it).

Folders are searched for ``*.py`` files, skipping hidden folders,
``__pycache__``, virtual environments and the ``exclude`` patterns of
``[tool.tensortypes]``.
"""

from __future__ import annotations

import ast
import gc
import multiprocessing
import os
import sys
import threading
import traceback
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path

from .baseline import apply_baseline, write_baseline
from .cache import ResultCache, content_key, result_key
from .config import is_excluded, load_config
from .diagnostics import CODES, Diagnostic
from .formats import render
from .infer import Checker
from .modinfo import ModuleInfo
from .project import Project, interface_hash
from .sources import parse_module, read_source
from .summary import unchecked_summary

__all__ = [
    "check_source",
    "check_paths",
    "collect_files",
    "internal_error",
    "read_checked",
    "select_codes",
    "main",
]

_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist"})
_PARALLEL_MIN_FILES = 8


def _can_fork() -> bool:
    """Worker processes are forked, which is safe only in a single-threaded process.

    Forking a process with threads (JAX's, for one) can deadlock the child, and
    spawning would re-run an unguarded ``__main__``; with other threads about,
    the files are checked in this process instead (the same results, serially).
    """
    return (
        threading.active_count() == 1
        and "jax" not in sys.modules
        and "fork" in multiprocessing.get_all_start_methods()
    )


def check_source(
    text: str, path: str = "<string>", strict: bool = False, debug: bool = False, project=None
) -> list:
    """The diagnostics of one module's source text, sorted by position.

    Never raises for any text: a failure of the checker itself is one
    ``internal`` error for the module (with the traceback as notes when
    ``debug``), after whatever it had found. ``project``: the
    ``check.project.Project`` whose modules its imports are followed into.

    >>> src = "import numpy as np\\na = np.zeros((2, 3))\\nb = a.reshape(4, 2)\\n"
    >>> [d.code for d in check_source(src)]
    ['reshape']
    """
    if not isinstance(text, str):
        raise TypeError(f"check_source() takes the source as a str, got {type(text).__name__}")
    return _run_checker(Checker(text, path, strict, project=project), debug)


def _run_checker(checker: Checker, debug: bool) -> list:
    try:
        return checker.run()
    except Exception as error:  # noqa: BLE001 (a bug of ours must not end the run)
        found = [d for d in checker.diagnostics.values()]
        found.append(internal_error(checker.path, error, debug))
        return sorted(found, key=lambda d: (d.line, d.col, d.code))


def internal_error(path: str, error: BaseException, debug: bool = False) -> Diagnostic:
    """The ``internal`` diagnostic for an exception the checker raised on ``path``.

    It stands at the innermost statement or expression the walker was on.

    >>> internal_error("m.py", RecursionError("too deep")).to_text().splitlines()[0]
    'm.py:1:1: error: internal error of the checker: RecursionError: too deep [internal]'
    """
    line, col = 1, 1
    tb = error.__traceback__
    while tb is not None:
        for name in ("node", "stmt"):
            node = tb.tb_frame.f_locals.get(name)
            if isinstance(node, ast.AST) and hasattr(node, "lineno"):
                line, col = node.lineno, getattr(node, "col_offset", 0) + 1
                break
        tb = tb.tb_next
    message = f"internal error of the checker: {type(error).__name__}: {error}"
    if len(message) > 300:
        message = message[:297] + "..."
    notes = [
        "the rest of this file was not checked; this is a bug of tensortypes, please "
        "report it" + ("" if debug else " (--debug shows the traceback)")
    ]
    if debug:
        notes.extend(
            line.rstrip("\n")
            for line in traceback.format_exception(type(error), error, error.__traceback__)
        )
    return Diagnostic(path, line, col, "internal", message, notes)


def collect_files(paths, exclude=(), root: Path | None = None) -> list:
    """The ``.py`` files under ``paths``, sorted, minus excludes.

    A path that is not a folder is kept as given, even when ``exclude``
    matches it (as mypy does: what is named explicitly is checked); the
    excludes prune the search of folders.
    """
    found = []
    for given in paths:
        p = Path(given)
        if not p.is_dir():
            if not (p.exists() or p.is_symlink()):
                raise FileNotFoundError(f"no such file or directory: {given}")
            found.append(p)  # a file, or what read_source reports or skips with a note
            continue
        for folder, subdirs, files in os.walk(p):
            subdirs[:] = sorted(
                d
                for d in subdirs
                if not d.startswith(".")
                and d not in _SKIP_DIRS
                and not (Path(folder, d) / "pyvenv.cfg").exists()
                and not is_excluded(Path(folder, d), exclude, root)
            )
            for name in sorted(files):
                candidate = Path(folder, name)
                if name.endswith(".py") and not is_excluded(candidate, exclude, root):
                    found.append(candidate)
    return sorted(set(found))


def read_checked(path) -> tuple:
    """``(text, diagnostics)`` of one file: its text, or None and why it has none."""
    source = read_source(path)
    if source.text is not None:
        return source.text, []
    if source.skipped is not None:
        return None, [Diagnostic(str(path), 1, 1, "skipped", source.skipped, (), severity="note")]
    return None, [Diagnostic(str(path), 1, 1, "syntax", source.error or "cannot be read")]


# The project of the current run: set before worker processes are forked, which
# inherit it (and the modules it has read so far).
_PROJECT: list = [None]
# Whether the run collects its garbage itself (:func:`_young_collections`).
_YOUNG: list = [False]


@contextmanager
def _young_collections():
    """The run's garbage collection: between files, of the young objects only.

    A run keeps every module it reads (the project's first passes, their syntax
    trees); Python's automatic collector would walk all of them again each time
    they grew by a quarter, which took most of the time of parsing. Inside this
    block (and in the worker processes forked from it) the automatic collector
    is off, and :func:`_check_file` collects the two young generations after each
    file: one file's cyclic garbage is freed; what outlives a file is kept to the
    end of the run, when the collector is switched back on.
    """
    enabled = gc.isenabled()
    gc.disable()
    _YOUNG[0] = True
    try:
        yield
    finally:
        _YOUNG[0] = False
        if enabled:
            gc.enable()


def _check_file(job: tuple) -> tuple:
    """``(path, content key or None, diagnostics as dicts, meta or None)``; never raises.

    The meta (``check.cache``) is the module's interface hash and imports.
    """
    try:
        return _check_one(job)
    finally:
        if _YOUNG[0]:
            gc.collect(1)


def _check_one(job: tuple) -> tuple:
    path, strict, debug = job
    try:
        text, found = read_checked(path)
        if text is None:
            return path, None, [d.to_dict() for d in found], None
        checker = Checker(text, path, strict, project=_PROJECT[0])
        found = _run_checker(checker, debug)
        if any(d.code == "internal" for d in found):
            return path, None, [d.to_dict() for d in found], None
        return (
            path,
            content_key(text),
            [d.to_dict() for d in found],
            _meta(text, checker.tree, checker.module),
        )
    except Exception as error:  # noqa: BLE001 (reading or serialising: still one file's fault)
        return path, None, [internal_error(path, error, debug).to_dict()], None


def _meta(text: str, tree, module) -> tuple:
    """``(interface hash, imported modules)`` of a module (see ``check.cache``)."""
    if tree is None or module is None:
        return content_key(text), []
    return (
        interface_hash(text, module.bodies, [*sorted(module.set_by_name), *module.declarations]),
        sorted(set(module.imported_modules)),
    )


def check_paths(
    paths,
    strict: bool = False,
    jobs: int = 0,
    cache=True,
    exclude=(),
    root: Path | None = None,
    debug: bool = False,
    follow: bool = True,
) -> list:
    """The diagnostics of every ``.py`` file under ``paths``.

    ``cache``: True (the default directory), False, a directory, or a
    ``ResultCache``. ``jobs``: worker processes (0: one per core; 1: none).
    ``follow``: follow imports across the checked project's modules. A file
    the checker fails on gets an ``internal`` error; the others are still
    checked.

    >>> check_paths([], cache=False)
    []
    """
    folders = [p for p in paths if Path(p).is_dir()]
    return _check_files(
        collect_files(paths, exclude, root), strict, jobs, cache, debug, folders if follow else None
    )


class _Run:
    """One run's files, their meta entries and keys (the incremental cache's bookkeeping)."""

    def __init__(self, store, project, strict):
        self.store, self.project, self.strict = store, project, strict
        self.content: dict = {}  # resolved file -> content key
        self.metas: dict = {}  # resolved file -> (interface hash, imported modules)
        self.deps: dict = {}  # resolved file -> the project files it imports

    def read(self, file: Path) -> str | None:
        try:
            text, _ = read_checked(file)
        except Exception:  # noqa: BLE001 (the file's own check reports it)
            return None
        if text is None:
            return None
        key = self.content[file.resolve()] = content_key(text)
        if self.store is not None:
            meta = self.store.get_meta(key)
            if meta is not None:
                self.metas[file.resolve()] = meta
        return text

    def meta_of(self, file: Path):
        """A dependency's meta, read from the cache or computed (parsing it)."""
        found = self.metas.get(file)
        if found is not None:
            return found
        text = self.read(file)
        found = self.metas.get(file)
        if found is not None:
            return found
        if text is None:
            found = ("unreadable", [])
        else:
            tree: ast.Module | None
            info: ModuleInfo | None
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = parse_module(text)[0]
                info = ModuleInfo(tree, self.project, file)
            except Exception:  # noqa: BLE001 (unparsable: its own check reports it)
                tree = info = None
            found = _meta(text, tree, info)
            if self.store is not None:
                self.store.put_meta(self.content[file], found)
        self.metas[file] = found
        return found

    def dependencies(self, file: Path) -> list:
        """``(file, interface hash)`` of every project module ``file`` depends on."""
        seen, todo, out = {file}, [file], []
        while todo:
            current = todo.pop()
            found = self.deps.get(current)
            if found is None:
                modules = self.meta_of(current)[1]
                _, _, local = self.project.locate(current)
                found = sorted(
                    {f for f in (self.project.find(m, local) for m in modules) if f is not None}
                )
                self.deps[current] = found
            for dep in found:
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
                    out.append((str(dep), self.meta_of(dep)[0]))
        return out

    def result_key(self, file: Path) -> str:
        file = file.resolve()
        deps = self.dependencies(file) if self.project is not None else ()
        return result_key(self.content[file], self.strict, deps)


def _run_checks(names: list, strict: bool, jobs: int, debug: bool) -> list:
    workers = jobs if jobs > 0 else (os.cpu_count() or 1)
    jobs_list = [(name, strict, debug) for name in names]
    if workers > 1 and len(names) >= _PARALLEL_MIN_FILES and _can_fork():
        return _in_workers(jobs_list, workers)
    return [_check_file(job) for job in jobs_list]


def _check_files(
    files: list, strict: bool, jobs: int, cache, debug: bool = False, folders=()
) -> list:
    """The diagnostics of the collected ``files`` (see :func:`check_paths`).

    ``folders``: the checked folders (package roots besides the files' own);
    None: do not follow imports across modules.
    """
    store = None
    if isinstance(cache, ResultCache):
        store = cache
    elif cache is True:
        store = ResultCache()
    elif cache:
        store = ResultCache(cache)
    project = Project(files, folders) if folders is not None else None
    _PROJECT[0] = project
    run = _Run(store, project, strict)
    results: dict = {}
    try:
        with _young_collections():
            done = _check_all(files, strict, jobs, debug, store, run, results)
    finally:
        _PROJECT[0] = None
    for name, key, found, _ in done:
        diagnostics = [Diagnostic.from_dict(d) for d in found]
        results[name] = diagnostics
        if store is not None and key is not None:
            store.put(run.result_key(Path(name)), diagnostics)
    out = []
    for f in files:
        out.extend(results.get(str(f), ()))
    return out


def _check_all(files, strict, jobs, debug, store, run, results) -> list:
    """The results of the files checked in this run (the cache's hits go to ``results``)."""
    if store is None:
        done = _run_checks([str(f) for f in files], strict, jobs, debug)
    else:
        # First the files whose content is new (their meta is then known), then
        # those whose content was seen: a hit unless an interface they use changed.
        texts = {f: run.read(f) for f in files}
        changed = [f for f in files if texts[f] is None or f.resolve() not in run.metas]
        store.misses += sum(texts[f] is not None for f in changed)
        new = set(changed)
        done = _run_checks([str(f) for f in changed], strict, jobs, debug)
        _remember(run, done)
        again = []
        for f in files:
            if f in new:
                continue
            hit = store.get(run.result_key(f), str(f))
            if hit is not None:
                results[str(f)] = hit
            else:
                again.append(f)
        more = _run_checks([str(f) for f in again], strict, jobs, debug)
        _remember(run, more)
        done += more
    return done


def _remember(run, done: list) -> None:
    for name, key, _, meta in done:
        if key is None or meta is None:
            continue
        file = Path(name).resolve()
        run.content[file] = key
        run.metas[file] = meta
        run.store.put_meta(key, meta)


def _in_workers(jobs_list: list, workers: int) -> list:
    """:func:`_check_file` over ``jobs_list`` in forked worker processes.

    A worker that dies (killed, out of memory, a crash in C) breaks the pool;
    the files it left unfinished are then checked again one per process, so
    only the file that kills its process loses its result (an ``internal``
    error), never the run.
    """
    context = multiprocessing.get_context("fork")
    done: dict = {}
    chunk = max(1, len(jobs_list) // (workers * 4))
    try:
        with ProcessPoolExecutor(
            max_workers=min(workers, len(jobs_list)), mp_context=context
        ) as pool:
            for result in pool.map(_check_file, jobs_list, chunksize=chunk):
                done[result[0]] = result
    except BrokenProcessPool:
        for job in jobs_list:
            if job[0] in done:
                continue
            try:
                with ProcessPoolExecutor(max_workers=1, mp_context=context) as alone:
                    done[job[0]] = alone.submit(_check_file, job).result()
            except BrokenProcessPool as error:
                died = RuntimeError("the worker process checking this file died")
                died.__cause__ = error
                done[job[0]] = (job[0], None, [internal_error(job[0], died).to_dict()], None)
    return [done[job[0]] for job in jobs_list]


def select_codes(diagnostics, disabled=(), enabled=()) -> list:
    """The diagnostics whose code is not disabled (``enabled`` wins over ``disabled``).

    >>> d = Diagnostic("m.py", 1, 1, "matmul", "contracted axes differ")
    >>> select_codes([d], disabled=["matmul"]), len(select_codes([d], ["matmul"], ["matmul"]))
    ([], 1)
    """
    off = set(disabled) - set(enabled)
    return [d for d in diagnostics if d.code not in off] if off else list(diagnostics)


def _codes(values) -> list:
    """Codes from repeated/comma-separated options; ``ValueError`` names an unknown one."""
    found = []
    for value in values or ():
        for code in value.split(","):
            code = code.strip()
            if not code:
                continue
            if code not in CODES:
                raise ValueError(f"unknown error code {code!r} (codes: {', '.join(CODES)})")
            found.append(code)
    return found


def main(args) -> int:
    """Run ``tensortypes check`` with parsed arguments; the exit status.

    0: no errors; 1: errors found; 2: the checker failed on a file (an
    ``internal`` error, as mypy exits 2 on a crash), or a usage problem (a
    missing path, an unusable configuration, cache directory or baseline, an
    unknown error code).
    ``args`` has ``paths``, ``output_format`` (or ``json``), ``strict``, ``jobs``,
    ``no_cache``, ``cache_dir``, ``debug``, ``show_error_codes``, ``disable_code``,
    ``enable_code``, ``baseline`` and ``write_baseline`` (see ``cli.py``); the
    ones it lacks take their defaults.
    """
    try:
        settings = load_config()
        disabled = _codes(
            list(settings.disable_codes) + list(getattr(args, "disable_code", None) or ())
        )
        enabled = _codes(getattr(args, "enable_code", None))
    except ValueError as error:
        sys.stderr.write(f"tensortypes check: {error}\n")
        return 2
    for warning in settings.warnings:
        sys.stderr.write(f"tensortypes check: warning: {warning}\n")
    paths = list(args.paths) or settings.paths or ["."]
    if not args.paths and settings.root is not None and settings.paths:
        # Relative to the working directory (as mypy prints them), so the output
        # reads as it does for paths given on the command line.
        paths = [_relative(settings.root / p) for p in settings.paths]
    strict = bool(args.strict or settings.strict or "unchecked" in enabled)
    jobs = args.jobs if args.jobs is not None else settings.jobs
    cache = False if args.no_cache or not settings.cache else (args.cache_dir or True)
    debug = bool(getattr(args, "debug", False))
    fmt = getattr(args, "output_format", None) or (
        "json" if getattr(args, "json", False) else "text"
    )
    try:
        files = collect_files(paths, settings.exclude, settings.root)
        diagnostics = _check_files(
            files, strict, jobs, cache, debug, [p for p in paths if Path(p).is_dir()]
        )
    except OSError as error:  # a missing path, an unusable cache directory
        sys.stderr.write(f"tensortypes check: {error}\n")
        return 2
    diagnostics = select_codes(diagnostics, disabled, enabled)
    write_to = getattr(args, "write_baseline", None)
    if write_to:
        try:
            count = write_baseline(diagnostics, write_to)
        except OSError as error:
            sys.stderr.write(f"tensortypes check: cannot write the baseline: {error}\n")
            return 2
        sys.stderr.write(
            f"tensortypes check: recorded {count} error{'s' if count != 1 else ''} in {write_to}\n"
        )
        return 0
    baseline = getattr(args, "baseline", None) or settings.baseline
    if baseline:
        if settings.root is not None and not getattr(args, "baseline", None):
            baseline = str(settings.root / baseline)
        try:
            diagnostics, dropped = apply_baseline(diagnostics, baseline)
        except ValueError as error:
            sys.stderr.write(f"tensortypes check: {error}\n")
            return 2
        if dropped and fmt == "text":
            sys.stderr.write(
                f"tensortypes check: {dropped} error{'s' if dropped != 1 else ''} "
                f"recorded in the baseline {baseline} not shown\n"
            )
    show_codes = getattr(args, "show_error_codes", True)
    out = render(diagnostics, fmt, files=len(files), show_codes=show_codes is not False)
    if out:
        sys.stdout.write(out + "\n")
    if strict and fmt == "text":
        sys.stdout.write(unchecked_summary(diagnostics) + "\n")
    if any(d.code == "internal" for d in diagnostics):
        return 2
    return 1 if any(d.severity == "error" for d in diagnostics) else 0


def _relative(path: Path) -> str:
    """``path`` relative to the working directory (``../src`` from a subfolder)."""
    try:
        return os.path.relpath(path, Path.cwd())
    except ValueError:  # another drive, on Windows
        return str(path)
