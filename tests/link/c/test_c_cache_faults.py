"""Faults in the module cache's directory are ``CacheError``s or are recovered from.

A full disk, a lock path that is a directory, a damaged probe file: each is
named by the library (``CacheError`` saying what to do) or repaired, never a
raw ``OSError`` and never a silent change of behaviour.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from c_toys import DoubleMul, double, fgraph
from tensortypes.errors import CacheError
from tensortypes.link.c import CLinker, ModuleCache
from tensortypes.link.c import cache as cache_module
from tensortypes.link.c import compiler as compiler_module


def _graph():
    x, y = double("x"), double("y")
    return fgraph([x, y], [DoubleMul()(x, y)])


# -- the lock ---------------------------------------------------------------------------------

@pytest.mark.parametrize("filelock", [True, False], ids=["filelock", "flock"])
def test_a_lock_path_that_is_a_directory_is_moved_aside(fresh_cache, monkeypatch, filelock):
    if not filelock:
        monkeypatch.setattr(cache_module, "_filelock", None)
    elif cache_module._filelock is None:
        pytest.skip("the filelock package is not installed")
    root = Path(fresh_cache.directory)
    name = CLinker(fresh_cache).compile(_graph()).module.__name__
    shutil.rmtree(root / name)
    lock = root / f"{name}.lock"
    if lock.exists():
        lock.unlink()
    lock.mkdir()  # before: IsADirectoryError
    (lock / "junk").write_text("x")
    later = ModuleCache(root)  # another process: nothing in memory
    assert CLinker(later).compile(_graph()).function([2.0, 5.0]) == [10.0]
    assert later.stats["compiled"] == 1 and lock.is_file()
    assert not list(root.glob("trash-*"))


def test_a_lock_that_cannot_be_opened_is_a_cache_error(fresh_cache, monkeypatch):
    monkeypatch.setattr(cache_module, "_filelock", None)

    def refuse(path, flags, mode=0o777):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(cache_module.os, "open", refuse)
    with pytest.raises(CacheError, match="cannot take the lock") as info:
        with cache_module._Lock(os.path.join(fresh_cache.directory, "x.lock")):
            pass
    assert type(info.value) is CacheError


# -- a full disk ----------------------------------------------------------------------------------

def test_a_full_disk_is_a_cache_error(fresh_cache, monkeypatch):
    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", path)

    monkeypatch.setattr(cache_module, "write_private", full)
    with pytest.raises(CacheError, match="No space left on device. Free some space") as info:
        CLinker(fresh_cache).compile(_graph())
    assert info.value.errno == errno.ENOSPC
    assert "TENSORTYPES_CACHE_DIR" in str(info.value)
    assert not list(Path(fresh_cache.directory).glob("tmp-*"))  # nothing half-built left


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 256 KiB tmpfs (needs root and a working ``mount``; skips otherwise)."""
    if not (hasattr(os, "geteuid") and os.geteuid() == 0) or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount")
    point = tmp_path / "tiny"
    point.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs",
                           str(point)], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield point
    finally:
        # Lazily: the module loaded from it stays mapped in this process.
        subprocess.run(["umount", "-l", str(point)], capture_output=True, timeout=60)


def test_a_really_full_disk_is_a_cache_error(tiny_tmpfs, fresh_cache):
    # Fill the filesystem, then ask for a module that is not built yet.
    filler = tiny_tmpfs / "filler"
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 1024)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    cache = ModuleCache(tiny_tmpfs / "cache", compiler=fresh_cache.get_compiler())
    with pytest.raises(CacheError, match="No space left on device") as info:
        CLinker(cache).compile(_graph())
    assert info.value.errno == errno.ENOSPC
    filler.unlink()  # with room again, the same cache works
    assert CLinker(cache).compile(_graph()).function([3.0, 2.0]) == [6.0]


# -- the probe file -------------------------------------------------------------------------------

@pytest.fixture
def probes(monkeypatch):
    """Count the real probes; each answers True."""
    calls = []

    def probe(command):
        calls.append(command)
        return True

    monkeypatch.setattr(compiler_module, "_probe_vector_math", probe)
    return calls


def _probe_file(directory: Path) -> Path:
    [path] = directory.glob("probe-vector-math-*")
    return path


def test_the_probe_answer_is_remembered_privately(tmp_path, probes):
    assert compiler_module._vector_math(["cc"], "v1", str(tmp_path)) is True
    assert compiler_module._vector_math(["cc"], "v1", str(tmp_path)) is True
    assert len(probes) == 1
    path = _probe_file(tmp_path)
    assert path.read_text() == "1\n" and (path.stat().st_mode & 0o077) == 0


@pytest.mark.parametrize("damage", ["garbage", "", "0 but more", "directory", "open mode"])
def test_a_damaged_probe_file_is_probed_again_and_replaced(tmp_path, probes, damage):
    compiler_module._vector_math(["cc"], "v1", str(tmp_path))
    path = _probe_file(tmp_path)
    path.unlink()
    if damage == "directory":
        path.mkdir()
    elif damage == "open mode":
        path.write_text("0\n")  # a valid answer, but anyone could have written it
        os.chmod(path, 0o666)
    else:
        path.write_text(damage)
    # Before, any text but "1" silently read as "no vector math" and changed the flags.
    assert compiler_module._vector_math(["cc"], "v1", str(tmp_path)) is True
    assert len(probes) == 2
    assert path.is_file() and path.read_text() == "1\n"
    assert (path.stat().st_mode & 0o077) == 0
