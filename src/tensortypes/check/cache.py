"""The per-file result cache of ``tensortypes check`` (layer 6: ``check``).

A file's diagnostics depend only on its content, the options that change
what is reported (``strict``) and the checker's own code, since nothing is
imported across files. The cache stores them as JSON under a key hashing those
three, so a re-run checks only files whose content changed; a renamed file
hits the cache too (the path is written back into its diagnostics). The
checker's code is the source of the whole ``tensortypes`` package (the rules
read annotations through ``annotate``, ``types`` and ``core``), hashed once per
process, so an edit to any of it, or an upgrade, misses every old entry; no
version number has to be remembered.

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

__all__ = ["ResultCache", "CHECKER_VERSION", "cache_key", "code_digest"]

# The format of an entry; the checker's code is hashed into every key besides.
CHECKER_VERSION = "check-3"
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


def cache_key(text: str, strict: bool) -> str:
    """The key of one file's results.

    >>> len(cache_key("x = 1", False))
    40
    """
    h = hashlib.sha1(usedforsecurity=False)
    h.update(f"{CHECKER_VERSION}\0{code_digest()}\0{int(strict)}\0".encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class ResultCache:
    """Diagnostics by content key, one small JSON file per entry."""

    __slots__ = ("directory", "hits", "misses")

    def __init__(self, directory: str | os.PathLike | None = None):
        base = Path(directory) if directory is not None else Path(config.cache_dir) / "check"
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CacheError(f"cannot create the check cache directory {base}: {error}") \
                from None
        if not os.access(base, os.W_OK):
            raise CacheError(f"the check cache directory {base} is not writable")
        self.directory = base
        self.hits = 0
        self.misses = 0

    def _file(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

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
        payload = json.dumps([d.to_dict() for d in diagnostics])
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
