"""``ModuleCache``: compiled modules on disk, shared safely between processes (layer 6).

A module is identified by a key: its C source, the ``c_code_cache_version`` of
every type and op in it, the compiler with its flags, and the Python and NumPy
binary interfaces. The key's digest names the module (``tt_<digest>``) and its
directory in the cache.

- Versioned modules (every version non-empty) live in the per-user cache
  directory (``config.cache_dir``, ``$TENSORTYPES_CACHE_DIR``), created with
  mode 0700. Loading a module runs its code, so nothing another user can write
  is trusted (``tensortypes.link.c.trust``): a directory, a parent or an entry
  that another user owns or can write is refused with ``CacheError`` before
  anything is loaded, and an existing directory's mode is never changed.
- Unversioned modules (Theano's type interface: an empty version) are built for this process
  only, in a private directory removed at exit.
- A file lock per key makes N processes that need the same module build it
  once: the first builds, the others wait and load its result.
- A build happens in a temporary directory that is renamed into place when
  complete (rename is atomic), so a killed compile never leaves a loadable
  broken module; a checksum of the binary, checked before every load, catches
  an entry damaged later, which is then rebuilt. What is written is private
  (0600/0700); a failed write (a full disk) is a ``CacheError``.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import socket
import stat
import tempfile
import threading
import time

from tensortypes._config import config
from tensortypes.errors import CacheError, CompileError
from tensortypes.link.c.compiler import Compiler, default_compiler, python_abi
from tensortypes.link.c.trust import (
    HOW_TO_FIX,
    check_directory,
    entry_problem,
    foreign_owner,
    write_private,
)

__all__ = ["ModuleCache", "BuildSettings"]

_FORMAT = 1  # bump when the layout of an entry changes
_LOCK_TIMEOUT = 900.0
_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]

try:  # the filelock package where installed; fcntl.flock otherwise
    import filelock as _filelock
except ImportError:  # pragma: no cover - depends on the environment
    _filelock = None


class BuildSettings(tuple):
    """Headers' and libraries' locations and extra flags a module needs (hashable).

    >>> BuildSettings(libraries=["z"]).libraries
    ('z',)
    """

    __slots__ = ()
    _FIELDS = ("include_dirs", "lib_dirs", "libraries", "extra_args", "no_args")

    def __new__(cls, include_dirs=(), lib_dirs=(), libraries=(), extra_args=(), no_args=()):
        fields = (include_dirs, lib_dirs, libraries, extra_args, no_args)
        return super().__new__(cls, tuple(tuple(dict.fromkeys(map(str, f))) for f in fields))

    include_dirs = property(lambda self: self[0])
    lib_dirs = property(lambda self: self[1])
    libraries = property(lambda self: self[2])
    extra_args = property(lambda self: self[3])
    no_args = property(lambda self: self[4])

    def as_kwargs(self) -> dict:
        return dict(zip(self._FIELDS, self))


def _host_tag() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class _Lock:
    """An exclusive lock on a file, released by the OS if the holder dies."""

    __slots__ = ("path", "_fd", "_lock")

    def __init__(self, path: str):
        self.path = path
        self._fd = None
        self._lock = _filelock.FileLock(path, timeout=_LOCK_TIMEOUT) if _filelock else None

    def __enter__(self):
        _clear_lock_path(self.path)
        try:
            return self._acquire()
        except CacheError:
            raise
        except OSError as exc:
            raise CacheError(
                f"cannot take the lock {self.path} of the module cache: {exc}. "
                "Remove the lock path if it is damaged."
            ) from None

    def _acquire(self):
        if self._lock is not None:
            try:
                self._lock.acquire()
            except _filelock.Timeout:
                raise CacheError(
                    f"timed out after {_LOCK_TIMEOUT:.0f} s waiting for the lock "
                    f"{self.path} (another process is compiling)"
                ) from None
            return self
        import fcntl

        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + _LOCK_TIMEOUT
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self._fd)
                    raise CacheError(f"timed out waiting for the lock {self.path}") from None
                time.sleep(0.01)

    def __exit__(self, *exc):
        if self._lock is not None:
            self._lock.release()
        else:
            import fcntl

            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _clear_lock_path(path: str) -> None:
    """Move aside a lock path that is not a regular file (a directory, a link)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise CacheError(f"cannot inspect the lock {path} of the module cache: {exc}") from None
    if stat.S_ISREG(st.st_mode):
        return
    try:
        trash = tempfile.mkdtemp(prefix="trash-", dir=os.path.dirname(path))
        os.rename(path, os.path.join(trash, "old"))
    except FileNotFoundError:
        return  # another process moved it first
    except OSError as exc:
        raise CacheError(
            f"the lock path {path} of the module cache is not a file and cannot "
            f"be moved aside ({exc}); remove it"
        ) from None
    shutil.rmtree(trash, ignore_errors=True)


def _write_error(directory: str, exc: OSError) -> CacheError:
    """A ``CacheError`` for a failed write into the cache (disk full, read-only, ...)."""
    advice = "free some space" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "make it writable"
    err = CacheError(
        f"cannot write to the module cache directory {directory}: "
        f"{exc.strerror or exc}. {advice.capitalize()}, or set "
        "TENSORTYPES_CACHE_DIR or tensortypes.config.cache_dir to another directory."
    )
    err.errno = exc.errno
    return err


def _disk_full(directory: str, exc: CompileError) -> bool:
    """Whether a compiler failure was the disk filling up, not the code."""
    if "No space left on device" in (exc.compiler_output or ""):
        return True
    try:
        return os.statvfs(directory).f_bavail == 0
    except (OSError, AttributeError):  # no statvfs on Windows
        return False


def prepare_directory(path: str) -> str:
    """Create ``path`` (mode 0700) if needed; refuse one that is not safe to load from.

    Returns the absolute path. Raises ``CacheError`` when the directory cannot
    be created, is not a directory, is not writable, or is not trusted: owned
    by another user, or writable by others, itself or a parent (the rules are in
    ``tensortypes.link.c.trust``). An existing directory's mode is never changed.

    >>> import tempfile, os
    >>> d = prepare_directory(os.path.join(tempfile.mkdtemp(), "cache"))
    >>> oct(os.stat(d).st_mode & 0o777)
    '0o700'
    """
    path = os.path.abspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise CacheError(f"the module cache path {path} exists and is not a directory")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise CacheError(f"cannot create the module cache directory {path}: {exc}") from None
    check_directory(path)
    if not os.access(path, os.W_OK | os.X_OK):
        raise CacheError(f"the module cache directory {path} is not writable")
    return path


def _digest_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_loaded: dict = {}


def _load(name: str, path: str):
    # The dynamic loader hands back an already loaded file by its path, so a path
    # is loaded once per process and its module object reused.
    module = _loaded.get(path)
    if module is None:
        loader = importlib.machinery.ExtensionFileLoader(name, path)
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        _loaded[path] = module
    return module


class ModuleCache:
    """Compiled extension modules, keyed by their code, versions, compiler and ABI.

    ``ModuleCache.for_directory(path)`` returns the one instance per directory;
    ``ModuleCache.default()`` the one of ``config.cache_dir``.

    >>> import tempfile
    >>> cache = ModuleCache(tempfile.mkdtemp())
    >>> cache.stats["compiled"]
    0
    """

    __slots__ = ("directory", "compiler", "stats", "_modules", "_mutex", "_private", "_checked")

    _instances: dict = {}
    _instances_lock = threading.Lock()

    def __init__(
        self, directory: str | os.PathLike | None = None, compiler: Compiler | None = None
    ):
        self.directory = os.path.abspath(os.fspath(directory or config.cache_dir))
        self.compiler = compiler
        self.stats = {"compiled": 0, "loaded": 0, "memory_hits": 0, "rebuilt": 0}
        self._modules: dict = {}
        self._mutex = threading.RLock()
        self._private = None
        self._checked = False

    @classmethod
    def for_directory(cls, directory) -> ModuleCache:
        """The shared instance for ``directory`` (created on first use)."""
        key = os.path.abspath(os.fspath(directory))
        inst = cls._instances.get(key)
        if inst is None:
            with cls._instances_lock:
                inst = cls._instances.get(key)
                if inst is None:
                    inst = cls._instances[key] = cls(key)
        return inst

    @classmethod
    def default(cls) -> ModuleCache:
        """The shared instance for ``config.cache_dir``."""
        return cls.for_directory(config.cache_dir)

    def __repr__(self) -> str:
        return f"ModuleCache({self.directory!r})"

    # -- the directory ----------------------------------------------------------------
    def _root(self) -> str:
        if not self._checked:
            prepare_directory(self.directory)
            self._checked = True
            self.clean_stale()  # what killed processes of this host left behind
        return self.directory

    def get_compiler(self) -> Compiler:
        """The compiler this cache builds with; ``CompileError`` when none is installed."""
        if self.compiler is None:
            found = default_compiler(self._root())
            if found is None:
                raise CompileError("no C compiler found: set $CC or install gcc or clang")
            self.compiler = found
        return self.compiler

    def key_digest(self, source: str, versions, settings: BuildSettings) -> str:
        """The digest naming a module: source, versions, compiler, flags and ABI."""
        key = repr(
            (_FORMAT, source, versions, self.get_compiler().key(), python_abi(), tuple(settings))
        )
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    # -- getting a module ---------------------------------------------------------------
    def module(
        self,
        source: str,
        versions=(),
        settings: BuildSettings | None = None,
        versioned: bool = True,
    ):
        """The loaded module compiled from ``source``, built at most once per key.

        ``source`` names its init function ``PyInit_`` followed by the macro
        ``TT_MODULE_NAME``, defined on the command line. With ``versioned``
        False, the module is built for this process only.
        """
        settings = settings or BuildSettings()
        digest = self.key_digest(source, versions, settings)
        with self._mutex:
            module = self._modules.get(digest)
            if module is not None:
                self.stats["memory_hits"] += 1
                return module
            if versioned:
                module = self._versioned(digest, source, settings)
            else:
                module = self._build_in(self._private_dir(), digest, source, settings)
            self._modules[digest] = module
            return module

    def _entry_ok(self, entry: str, name: str) -> bool:
        """Whether the entry may be loaded: trusted files and a matching checksum.

        An entry holding anything another user owns is never loaded: that is a
        ``CacheError`` (someone else could write the cache), not a rebuild.
        An entry of ours that is damaged or has open permissions is False (rebuilt).
        """
        files = (name + _SUFFIX, "checksum")
        for path in (entry, *(os.path.join(entry, f) for f in files)):
            owner = foreign_owner(path)
            if owner is not None:
                raise CacheError(
                    f"the module cache entry {entry} holds {path}, owned by user id {owner}, "
                    "not by you; it was not loaded, since loading a module runs its code. "
                    f"Another user could write to {self.directory} at some time: remove the "
                    f"entry (rm -r {entry}), find out who wrote it, or use another cache "
                    f"directory. {HOW_TO_FIX}"
                )
        if entry_problem(entry, files) is not None:
            return False
        try:
            with open(os.path.join(entry, "checksum"), encoding="ascii") as fh:
                expected = fh.read(200).strip()
            return bool(expected) and _digest_file(os.path.join(entry, files[0])) == expected
        except (OSError, ValueError):
            return False

    def _versioned(self, digest: str, source: str, settings: BuildSettings):
        root = self._root()
        name = f"tt_{digest}"
        entry = os.path.join(root, name)
        binary = os.path.join(entry, name + _SUFFIX)
        if os.path.lexists(entry) and self._entry_ok(entry, name):
            self.stats["loaded"] += 1
            return _load(name, binary)
        with _Lock(os.path.join(root, f"{name}.lock")):
            # Another process may have built it while this one waited.
            if os.path.lexists(entry):
                if self._entry_ok(entry, name):
                    self.stats["loaded"] += 1
                    return _load(name, binary)
                self.stats["rebuilt"] += 1
            try:
                tmp = tempfile.mkdtemp(prefix=f"tmp-{_host_tag()}-", dir=root)
            except OSError as exc:
                raise _write_error(root, exc) from None
            try:
                self._compile(tmp, name, source, settings)
            except CompileError as exc:
                raise self._compile_failed(tmp, name, exc) from None
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            try:
                if os.path.lexists(entry):
                    trash = tempfile.mkdtemp(prefix="trash-", dir=root)
                    os.rename(entry, os.path.join(trash, "old"))
                    shutil.rmtree(trash, ignore_errors=True)
                os.rename(tmp, entry)  # atomic: the entry appears complete or not at all
            except OSError as exc:
                shutil.rmtree(tmp, ignore_errors=True)
                raise _write_error(root, exc) from None
        return _load(name, binary)

    def _build_in(self, directory: str, digest: str, source: str, settings: BuildSettings):
        name = f"tt_{digest}"
        try:
            build = tempfile.mkdtemp(prefix=name + "-", dir=directory)
        except OSError as exc:
            raise _write_error(self.directory, exc) from None
        try:
            binary = self._compile(build, name, source, settings)
        except CompileError as exc:
            raise self._compile_failed(build, name, exc) from None
        return _load(name, binary)

    def _compile(self, directory: str, name: str, source: str, settings: BuildSettings) -> str:
        """Build into the private ``directory``: source, binary and checksum, mode 0600/0700."""
        src = os.path.join(directory, "mod.c")
        try:
            write_private(src, source)
        except OSError as exc:
            raise _write_error(self.directory, exc) from None
        binary = os.path.join(directory, name + _SUFFIX)
        kwargs = settings.as_kwargs()
        kwargs["extra_args"] = (*kwargs["extra_args"], f"-DTT_MODULE_NAME={name}")
        self.get_compiler().build(src, binary, **kwargs)
        try:
            os.chmod(binary, 0o700)  # the compiler's file follows the umask: make it ours
            write_private(os.path.join(directory, "checksum"), _digest_file(binary) + "\n")
        except OSError as exc:
            raise _write_error(self.directory, exc) from None
        self.stats["compiled"] += 1
        return binary

    def _compile_failed(self, build: str, name: str, exc: CompileError) -> OSError | CompileError:
        """The error to raise for a failed build: the disk's fault or the compiler's."""
        if _disk_full(build, exc):
            shutil.rmtree(build, ignore_errors=True)
            return _write_error(self.directory, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
        return self._keep_failed(build, name, exc)

    def _keep_failed(self, build: str, name: str, exc: CompileError) -> CompileError:
        """Keep the failed source where the user can read it; the error names it."""
        target = os.path.join(self._root(), f"failed-{name}")
        shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(build, target)
        except OSError:
            return exc
        message = str(exc.args[0]).split("\n", 1)[0] if exc.args else "the C compiler failed"
        return CompileError(message, os.path.join(target, "mod.c"), exc.compiler_output)

    def _private_dir(self) -> str:
        if self._private is None:
            root = self._root()
            self._private = tempfile.mkdtemp(prefix=f"unversioned-{_host_tag()}-", dir=root)
            atexit.register(shutil.rmtree, self._private, True)
        return self._private

    # -- housekeeping -------------------------------------------------------------------
    def entries(self) -> list[str]:
        """Paths of the versioned modules stored in the cache."""
        root = self._root()
        return sorted(
            os.path.join(root, d)
            for d in os.listdir(root)
            if d.startswith("tt_") and not d.endswith(".lock")
        )

    def clean_stale(self) -> list[str]:
        """Remove build and private directories left by dead processes of this host."""
        root = self._root()
        host = socket.gethostname()
        removed = []
        for d in os.listdir(root):
            for prefix in ("tmp-", "unversioned-", "trash-"):
                if not d.startswith(prefix):
                    continue
                rest = d[len(prefix) :]
                dead = prefix == "trash-"
                if rest.startswith(host + "-"):
                    pid = rest[len(host) + 1 :].split("-", 1)[0]
                    dead = pid.isdigit() and not _alive(int(pid))
                if dead:
                    shutil.rmtree(os.path.join(root, d), ignore_errors=True)
                    removed.append(d)
        return removed

    def forget(self) -> None:
        """Drop this process's memory of loaded modules (the disk entries stay)."""
        with self._mutex:
            self._modules.clear()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
