"""The per-file result cache of ``tensortypes check`` (layer 6: ``check``).

A file's diagnostics depend on its content, the options that change what is
reported (``strict``), the checker's own code, and the *interfaces* of the
project modules it imports, directly or through re-exports (``check.project``):
their text less the function bodies, as mypy keys its cache. Two kinds of
entries, both small JSON files:

- *meta*, keyed by the content and the checker's code alone
  (:func:`content_key`): the module's interface hash and the modules it
  imports;
- *results*, keyed by :func:`result_key`: the content key, ``strict`` and the
  (file, interface hash) of every project module it depends on.

So an edit inside a function body rechecks that module only; an edit to a
signature or an alias rechecks the module and every module that depends on
it. A renamed file hits the cache too (the path is written back into its
diagnostics). The checker's code is the source of the whole ``tensortypes``
package (the rules read annotations through ``annotate``, ``types`` and
``core``), hashed once per process, so an edit to any of it, or an upgrade,
misses every old entry; no version number has to be remembered.

The directory is ``<config.cache_dir>/check`` (``TENSORTYPES_CACHE_DIR``), or an
explicit one. An unusable directory raises ``CacheError``; a corrupt entry is
treated as a miss and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from tensortypes._config import config
from tensortypes.errors import CacheError

from .diagnostics import Diagnostic

__all__ = ["ResultCache", "CHECKER_VERSION", "content_key", "result_key", "code_digest"]

# The format of an entry; the checker's code is hashed into every key besides.
CHECKER_VERSION = "check-4"
_PACKAGE = Path(__file__).resolve().parents[1]
_code_digest: list = []


def code_digest() -> str:
    """A digest of the ``tensortypes`` package's source files (computed once).

    >>> len(code_digest())
    40
    """
    if not _code_digest:
        h = hashlib.sha1(usedforsecurity=False)
        for path in sorted(_PACKAGE.rglob("*.py")):
            h.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
            try:
                h.update(path.read_bytes())
            except OSError:
                h.update(b"?")
        _code_digest.append(h.hexdigest())
    return _code_digest[0]


def content_key(text: str) -> str:
    """The key of one file's meta entry: its content and the checker's code.

    >>> content_key("x = 1") == content_key("x = 1") != content_key("x = 2")
    True
    """
    h = hashlib.sha1(usedforsecurity=False)
    h.update(f"{CHECKER_VERSION}\0{code_digest()}\0meta\0".encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def result_key(content: str, strict: bool, interfaces=()) -> str:
    """The key of one file's results: its content key, ``strict``, and its dependencies.

    ``interfaces``: ``(file, interface hash)`` of every project module it depends on.

    >>> result_key("k", False) != result_key("k", False, [("a.py", "h")])
    True
    """
    h = hashlib.sha1(usedforsecurity=False)
    h.update(f"{content}\0{int(strict)}\0".encode())
    for file, iface in sorted(interfaces):
        h.update(f"{file}\0{iface}\0".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class ResultCache:
    """Diagnostics by content key, one small JSON file per entry."""

    __slots__ = ("directory", "hits", "misses")

    def __init__(self, directory: str | os.PathLike | None = None):
        base = Path(directory) if directory is not None else Path(config.cache_dir) / "check"
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CacheError(f"cannot create the check cache directory {base}: {error}") from None
        if not os.access(base, os.W_OK):
            raise CacheError(f"the check cache directory {base} is not writable")
        self.directory = base
        self.hits = 0
        self.misses = 0

    def _file(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get_meta(self, key: str):
        """``(interface hash, imported module names)`` stored under a content key, or None."""
        try:
            data = json.loads((self.directory / "meta" / f"{key}.json").read_text(encoding="utf-8"))
            found = (str(data["interface"]), [str(m) for m in data["imports"]])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return found

    def put_meta(self, key: str, meta) -> None:
        """Store a module's ``(interface hash, imported module names)`` under its content key."""
        target = self.directory / "meta" / f"{key}.json"
        target.parent.mkdir(exist_ok=True)
        self._write(target, json.dumps({"interface": meta[0], "imports": list(meta[1])}))

    def get(self, key: str, path: str):
        """The cached diagnostics for ``key`` (with ``path`` filled in), or None."""
        try:
            data = json.loads(self._file(key).read_text(encoding="utf-8"))
            found = [Diagnostic.from_dict({**d, "path": path}) for d in data]
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(self, key: str, diagnostics) -> None:
        """Store ``diagnostics`` under ``key`` (atomically: a reader never sees half)."""
        target = self._file(key)
        target.parent.mkdir(exist_ok=True)
        self._write(target, json.dumps([d.to_dict() for d in diagnostics]))

    @staticmethod
    def _write(target: Path, payload: str) -> None:
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
            os.replace(tmp, target)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
