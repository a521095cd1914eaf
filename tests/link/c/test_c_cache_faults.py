"""Faults in the module cache's directory are ``CacheError``s or are recovered from.

A full disk, a lock path that is a directory, a damaged probe file: each is
named by the library (``CacheError`` saying what to do) or repaired, never a
raw ``OSError`` and never a silent change of behaviour.
"""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from c_toys import DoubleMul, double, fgraph
from tensortypes.errors import CacheError
from tensortypes.link.c import CLinker, ModuleCache
from tensortypes.link.c import cache as cache_module
from tensortypes.link.c import compiler as compiler_module
from tensortypes.link.c.compiler import Compiler


REPO = Path(__file__).resolve().parents[3]


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


FULL_DISK = textwrap.dedent("""
    import errno, sys
    from tensortypes._config import config
    from tensortypes.graph import FunctionGraph
    from tensortypes.link.c import CLinker, ModuleCache
    from tensortypes.tensor import dvector
    point = sys.argv[1]
    with open(point + "/filler", "wb", buffering=0) as fh:  # fill the filesystem
        try:
            while True:
                fh.write(b"\\0" * 1024)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    x, y = dvector("x"), dvector("y")
    graph = FunctionGraph([x, y], [x * y + 1.0])
    cache = ModuleCache(point + "/cache")
    try:
        CLinker(cache).compile(graph)
    except Exception as exc:
        print(type(exc).__name__, getattr(exc, "errno", None), str(exc).split(":")[0])
    import os
    os.unlink(point + "/filler")  # with room again, the same cache works
    import numpy as np
    f = CLinker(ModuleCache(point + "/cache")).make_function(graph)
    print(f([np.ones(2), np.ones(2) * 2.0])[0].tolist())
""")


def test_a_really_full_disk_is_a_cache_error(tmp_path):
    # A 256 KiB tmpfs in a private mount namespace: nothing stays mounted afterwards.
    unshare = shutil.which("unshare")
    if not (hasattr(os, "geteuid") and os.geteuid() == 0) or unshare is None:
        pytest.skip("a private tmpfs needs root and unshare")
    if cache_module.default_compiler() is None:
        pytest.skip("no C compiler found")
    point = tmp_path / "tiny"
    point.mkdir()
    script = tmp_path / "full_disk.py"
    script.write_text(FULL_DISK)
    shell = (
        f"mount -t tmpfs -o size=256k,mode=0700 tmpfs {shlex.quote(str(point))} && "
        f"exec {shlex.quote(sys.executable)} {shlex.quote(str(script))} "
        f"{shlex.quote(str(point))}"
    )
    proc = subprocess.run(
        [unshare, "--mount", "--propagation", "private", "sh", "-c", shell],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    if proc.returncode != 0 and "mount" in proc.stderr and "Traceback" not in proc.stderr:
        pytest.skip(f"cannot mount a private tmpfs here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.strip().splitlines()
    # before: a raw OSError: [Errno 28] from writing the source
    assert (
        first == f"CacheError {errno.ENOSPC} cannot write to the module cache directory "
        f"{point}/cache"
    ), first
    assert second == "[3.0, 3.0]"


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


def test_a_compiler_stopped_by_a_full_disk_is_a_cache_error(fresh_cache, tmp_path):
    # The compiler, not our own write, meets the full disk: still the disk's fault.
    fake = tmp_path / "fullcc"
    fake.write_text(
        "#!/bin/sh\necho 'ld: final link failed: No space left on device' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    cc = fresh_cache.get_compiler()
    full = ModuleCache(
        fresh_cache.directory, compiler=Compiler([str(fake)], cc.version, cc.flags, cc.link_flags)
    )
    with pytest.raises(CacheError, match="No space left on device") as info:
        CLinker(full).compile(_graph())
    assert info.value.errno == errno.ENOSPC
    root = Path(fresh_cache.directory)
    assert not list(root.glob("failed-*")) and not list(root.glob("tmp-*"))
