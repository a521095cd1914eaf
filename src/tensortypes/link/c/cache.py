"""``ModuleCache``: compiled modules on disk, shared safely between processes (layer 6).

A module is identified by a key: its C source, the ``c_code_cache_version`` of
every type and op in it, the compiler with its flags, and the Python and NumPy
binary interfaces. The key's digest names the module (``tt_<digest>``) and its
directory in the cache.

- Versioned modules (every version non-empty) live in the per-user cache
  directory (``config.cache_dir``, ``$TENSORTYPES_CACHE_DIR``), created with
  mode 0700; a directory owned by another user is refused with ``CacheError``,
  since loading a module runs its code.
- Unversioned modules (spec 001: an empty version) are built for this process
  only, in a private directory removed at exit.
- A file lock per key makes N processes that need the same module build it
  once: the first builds, the others wait and load its result.
- A build happens in a temporary directory that is renamed into place when
  complete (rename is atomic), so a killed compile never leaves a loadable
  broken module; a checksum of the binary, checked before every load, catches
  an entry damaged later, which is then rebuilt.
"""

from __future__ import annotations

import atexit
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
        if self._lock is not None:
            try:
                self._lock.acquire()
            except _filelock.Timeout:
                raise CacheError(f"timed out after {_LOCK_TIMEOUT:.0f} s waiting for the lock "
                                 f"{self.path} (another process is compiling)") from None
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


def prepare_directory(path: str) -> str:
    """Create ``path`` with mode 0700 if needed; refuse one owned by another user.

    Returns the absolute path. Raises ``CacheError`` when the directory cannot
    be created, is not a directory, belongs to someone else or is not writable.

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
        st = os.stat(path)
    except OSError as exc:
        raise CacheError(f"cannot create the module cache directory {path}: {exc}") from None
    getuid = getattr(os, "getuid", None)
    if getuid is not None and st.st_uid != getuid():
        raise CacheError(f"the module cache directory {path} is owned by user id {st.st_uid}, "
                         f"not by you (user id {getuid()}); loading modules from it would run "
                         "another user's code. Set TENSORTYPES_CACHE_DIR or "
                         "tensortypes.config.cache_dir to a directory of your own.")
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as exc:
            raise CacheError(f"cannot restrict the module cache {path} to mode 0700: "
                             f"{exc}") from None
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

    def __init__(self, directory: str | os.PathLike | None = None,
                 compiler: Compiler | None = None):
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
        key = repr((_FORMAT, source, versions, self.get_compiler().key(), python_abi(),
                    tuple(settings)))
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    # -- getting a module ---------------------------------------------------------------
    def module(self, source: str, versions=(), settings: BuildSettings | None = None,
               versioned: bool = True):
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
        binary = os.path.join(entry, name + _SUFFIX)
        try:
            with open(os.path.join(entry, "checksum")) as fh:
                expected = fh.read().strip()
            return bool(expected) and _digest_file(binary) == expected
        except OSError:
            return False

    def _versioned(self, digest: str, source: str, settings: BuildSettings):
        root = self._root()
        name = f"tt_{digest}"
        entry = os.path.join(root, name)
        if os.path.isdir(entry) and self._entry_ok(entry, name):
            self.stats["loaded"] += 1
            return _load(name, os.path.join(entry, name + _SUFFIX))
        with _Lock(os.path.join(root, f"{name}.lock")):
            # Another process may have built it while this one waited.
            if os.path.isdir(entry):
                if self._entry_ok(entry, name):
                    self.stats["loaded"] += 1
                    return _load(name, os.path.join(entry, name + _SUFFIX))
                self.stats["rebuilt"] += 1
            tmp = tempfile.mkdtemp(prefix=f"tmp-{_host_tag()}-", dir=root)
            try:
                self._compile(tmp, name, source, settings)
            except CompileError as exc:
                raise self._keep_failed(tmp, name, exc) from None
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            if os.path.exists(entry):
                trash = tempfile.mkdtemp(prefix="trash-", dir=root)
                os.rename(entry, os.path.join(trash, "old"))
                shutil.rmtree(trash, ignore_errors=True)
            os.rename(tmp, entry)
        return _load(name, os.path.join(entry, name + _SUFFIX))

    def _build_in(self, directory: str, digest: str, source: str, settings: BuildSettings):
        name = f"tt_{digest}"
        build = tempfile.mkdtemp(prefix=name + "-", dir=directory)
        try:
            binary = self._compile(build, name, source, settings)
        except CompileError as exc:
            raise self._keep_failed(build, name, exc) from None
        return _load(name, binary)

    def _compile(self, directory: str, name: str, source: str, settings: BuildSettings) -> str:
        src = os.path.join(directory, "mod.c")
        with open(src, "w", encoding="utf-8") as fh:
            fh.write(source)
        binary = os.path.join(directory, name + _SUFFIX)
        kwargs = settings.as_kwargs()
        kwargs["extra_args"] = (*kwargs["extra_args"], f"-DTT_MODULE_NAME={name}")
        self.get_compiler().build(src, binary, **kwargs)
        with open(os.path.join(directory, "checksum"), "w") as fh:
            fh.write(_digest_file(binary) + "\n")
        self.stats["compiled"] += 1
        return binary

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
        return sorted(os.path.join(root, d) for d in os.listdir(root)
                      if d.startswith("tt_") and not d.endswith(".lock"))

    def clean_stale(self) -> list[str]:
        """Remove build and private directories left by dead processes of this host."""
        root = self._root()
        host = socket.gethostname()
        removed = []
        for d in os.listdir(root):
            for prefix in ("tmp-", "unversioned-", "trash-"):
                if not d.startswith(prefix):
                    continue
                rest = d[len(prefix):]
                dead = prefix == "trash-"
                if rest.startswith(host + "-"):
                    pid = rest[len(host) + 1:].split("-", 1)[0]
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
