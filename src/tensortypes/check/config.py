"""``[tool.tensortypes]`` in ``pyproject.toml``: what ``tensortypes check`` reads (layer 6).

Keys (all optional)::

    [tool.tensortypes]
    paths = ["src", "examples"]   # what to check when no path is given
    exclude = ["build/*", "*_pb2.py"]   # glob patterns, matched against relative paths
    strict = false                # report where the checker gave up (--strict)
    jobs = 0                      # worker processes; 0 means one per core
    cache = true                  # keep per-file results in the cache directory
    disable_codes = ["view"]      # error codes not to report (--disable-code)
    baseline = "tensortypes-baseline.json"   # errors recorded here are not reported

The file is found by walking up from the working directory. A key of the
wrong type is a ``ValueError`` naming the key; an unknown key (a typo such as
``exlude``) is a warning naming it, printed by the command, never silently
ignored. ``exclude`` applies to the files found by searching folders: a file
named on the command line is always checked, as mypy does.
"""

from __future__ import annotations

import difflib
import fnmatch
import tomllib
from pathlib import Path

__all__ = ["CheckConfig", "load_config", "find_pyproject", "is_excluded"]

_KEYS: dict[str, type] = {
    "paths": list,
    "exclude": list,
    "strict": bool,
    "jobs": int,
    "cache": bool,
    "disable_codes": list,
    "baseline": str,
}


class CheckConfig:
    """The settings of one run (defaults, then the file, then the command line)."""

    __slots__ = (
        "paths",
        "exclude",
        "strict",
        "jobs",
        "cache",
        "root",
        "warnings",
        "disable_codes",
        "baseline",
    )

    def __init__(
        self,
        paths=(),
        exclude=(),
        strict=False,
        jobs=0,
        cache=True,
        root=None,
        warnings=(),
        disable_codes=(),
        baseline=None,
    ):
        self.paths = list(paths)
        self.disable_codes = list(disable_codes)
        self.baseline = baseline
        self.exclude = list(exclude)
        self.strict = strict
        self.jobs = jobs
        self.cache = cache
        self.root = root
        self.warnings = list(warnings)

    def __repr__(self) -> str:
        return (
            f"CheckConfig(paths={self.paths}, exclude={self.exclude}, strict={self.strict}, "
            f"jobs={self.jobs}, cache={self.cache})"
        )


def find_pyproject(start: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (default: the working directory)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(pyproject: Path | None = None) -> CheckConfig:
    """The ``[tool.tensortypes]`` settings of ``pyproject`` (found when None).

    >>> load_config(Path("/nonexistent/pyproject.toml")).strict
    False
    """
    path = pyproject if pyproject is not None else find_pyproject()
    if path is None or not path.is_file():
        return CheckConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: invalid TOML: {error}") from None
    table = data.get("tool", {}).get("tensortypes", {})
    if not isinstance(table, dict):
        raise ValueError(f"{path}: [tool.tensortypes] must be a table")
    values = {}
    warnings = []
    for key, value in table.items():
        kind = _KEYS.get(key)
        if kind is None:
            close = difflib.get_close_matches(key, _KEYS, n=1)
            hint = (
                f" (did you mean {close[0]!r}?)" if close else f" (known keys: {', '.join(_KEYS)})"
            )
            warnings.append(f"{path}: [tool.tensortypes] unknown key {key!r} is ignored{hint}")
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(
                f"{path}: [tool.tensortypes] {key} must be a {kind.__name__}, got {value!r}"
            )
        if kind is list and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise ValueError(f"{path}: [tool.tensortypes] {key} must be a list of strings")
        values[key] = value
    return CheckConfig(root=path.parent, warnings=warnings, **values)


def is_excluded(path: Path, patterns, root: Path | None = None) -> bool:
    """Whether ``path`` matches one of the ``exclude`` glob patterns.

    >>> is_excluded(Path("build/x.py"), ["build/*"])
    True
    """
    text = path.as_posix()
    if root is not None:
        try:
            text = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return any(fnmatch.fnmatch(text, p) or fnmatch.fnmatch(path.name, p) for p in patterns)
