"""Running the checker over sources, files and folders (layer 6: ``check``).

- :func:`check_source`: one module's text -> its diagnostics;
- :func:`check_paths`: files and folders -> diagnostics, with the per-file
  cache (``check.cache``) and worker processes for the files that miss it;
- :func:`main`: the ``tensortypes check`` command (``cli.py`` builds its
  arguments and calls it).

Folders are searched for ``*.py`` files, skipping hidden folders,
``__pycache__``, virtual environments and the ``exclude`` patterns of
``[tool.tensortypes]``.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .cache import ResultCache, cache_key
from .config import is_excluded, load_config
from .diagnostics import Diagnostic, format_text, to_json
from .infer import Checker

__all__ = ["check_source", "check_paths", "collect_files", "main"]

_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist"})
_PARALLEL_MIN_FILES = 8


def _can_fork() -> bool:
    """Worker processes are forked, which is safe only in a single-threaded process.

    Forking a process with threads (JAX's, for one) can deadlock the child, and
    spawning would re-run an unguarded ``__main__``; with other threads about,
    the files are checked in this process instead (the same results, serially).
    """
    return (threading.active_count() == 1 and "jax" not in sys.modules
            and "fork" in multiprocessing.get_all_start_methods())


def check_source(text: str, path: str = "<string>", strict: bool = False) -> list:
    """The diagnostics of one module's source text, sorted by position.

    >>> src = "import numpy as np\\na = np.zeros((2, 3))\\nb = a.reshape(4, 2)\\n"
    >>> [d.code for d in check_source(src)]
    ['reshape']
    """
    if not isinstance(text, str):
        raise TypeError(f"check_source() takes the source as a str, got {type(text).__name__}")
    return Checker(text, path, strict).run()


def collect_files(paths, exclude=(), root: Path | None = None) -> list:
    """The ``.py`` files under ``paths`` (files are kept as given), sorted, minus excludes."""
    found = []
    for given in paths:
        p = Path(given)
        if p.is_file():
            if not is_excluded(p, exclude, root):
                found.append(p)
            continue
        if not p.is_dir():
            raise FileNotFoundError(f"no such file or directory: {given}")
        for folder, subdirs, files in os.walk(p):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith(".")
                                and d not in _SKIP_DIRS and not
                                (Path(folder, d) / "pyvenv.cfg").exists()
                                and not is_excluded(Path(folder, d), exclude, root))
            for name in sorted(files):
                candidate = Path(folder, name)
                if name.endswith(".py") and not is_excluded(candidate, exclude, root):
                    found.append(candidate)
    return sorted(set(found))


def _check_file(job: tuple) -> tuple:
    path, strict = job
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return path, None, [Diagnostic(path, 1, 1, "syntax",
                                       f"cannot read the file: {error}").to_dict()]
    return path, cache_key(text, strict), [d.to_dict() for d in
                                           Checker(text, path, strict).run()]


def check_paths(paths, strict: bool = False, jobs: int = 0, cache=True, exclude=(),
                root: Path | None = None) -> list:
    """The diagnostics of every ``.py`` file under ``paths``.

    ``cache``: True (the default directory), False, a directory, or a
    ``ResultCache``. ``jobs``: worker processes (0: one per core; 1: none).

    >>> check_paths([], cache=False)
    []
    """
    return _check_files(collect_files(paths, exclude, root), strict, jobs, cache)


def _check_files(files: list, strict: bool, jobs: int, cache) -> list:
    """The diagnostics of the collected ``files`` (see :func:`check_paths`)."""
    store = None
    if isinstance(cache, ResultCache):
        store = cache
    elif cache is True:
        store = ResultCache()
    elif cache:
        store = ResultCache(cache)
    results: dict = {}
    todo = []
    for f in files:
        name = str(f)
        if store is not None:
            try:
                text = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                todo.append(name)
                continue
            hit = store.get(cache_key(text, strict), name)
            if hit is not None:
                results[name] = hit
                continue
        todo.append(name)
    workers = jobs if jobs > 0 else (os.cpu_count() or 1)
    jobs_list = [(name, strict) for name in todo]
    if workers > 1 and len(todo) >= _PARALLEL_MIN_FILES and _can_fork():
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=context) as pool:
            done = list(pool.map(_check_file, jobs_list, chunksize=max(1, len(todo) //
                                                                        (workers * 4))))
    else:
        done = [_check_file(job) for job in jobs_list]
    for name, key, found in done:
        diagnostics = [Diagnostic.from_dict(d) for d in found]
        results[name] = diagnostics
        if store is not None and key is not None:
            store.put(key, diagnostics)
    out = []
    for f in files:
        out.extend(results.get(str(f), ()))
    return out


def main(args) -> int:
    """Run ``tensortypes check`` with parsed arguments; the exit status (1 on errors).

    ``args`` has ``paths``, ``json``, ``strict``, ``jobs``, ``no_cache`` and
    ``cache_dir`` (see ``cli.py``).
    """
    try:
        settings = load_config()
    except ValueError as error:
        sys.stderr.write(f"tensortypes check: {error}\n")
        return 2
    paths = list(args.paths) or settings.paths or ["."]
    if not args.paths and settings.root is not None and settings.paths:
        paths = [str(settings.root / p) for p in settings.paths]
    strict = bool(args.strict or settings.strict)
    jobs = args.jobs if args.jobs is not None else settings.jobs
    cache = False if args.no_cache or not settings.cache else (args.cache_dir or True)
    try:
        files = collect_files(paths, settings.exclude, settings.root)
        diagnostics = _check_files(files, strict, jobs, cache)
    except OSError as error:  # a missing path, an unusable cache directory
        sys.stderr.write(f"tensortypes check: {error}\n")
        return 2
    if args.json:
        sys.stdout.write(to_json(diagnostics, files=len(files)) + "\n")
    else:
        sys.stdout.write(format_text(diagnostics, files=len(files)) + "\n")
    return 1 if any(d.severity == "error" for d in diagnostics) else 0



