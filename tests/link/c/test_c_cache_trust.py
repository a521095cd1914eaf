"""The module cache trusts nothing another user can write (ARCHITECTURE: the module cache).

Loading a module runs its ``PyInit_``; these tests plant modules whose
``PyInit_`` writes a marker file and prove they are never loaded: in a
directory others can write, in an entry another user owns, in an entry of
ours whose binary others can write. The tests that need a second user create
one (they need root and ``useradd``, and skip with a note otherwise); the
permission tests that need nothing but modes run everywhere.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from c_toys import DoubleMul, double, fgraph, needs_cc
from tensortypes.errors import CacheError
from tensortypes.link.c import CLinker, ModuleCache
from tensortypes.link.c import cache as cache_module
from tensortypes.link.c.cache import prepare_directory
from tensortypes.link.c.compiler import default_compiler

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _graph():
    x, y = double("x"), double("y")
    return fgraph([x, y], [DoubleMul()(x, y)])


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _private_dir(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.mkdir()
    os.chmod(path, 0o700)
    return path


# -- directories: refused, never chmod-ed ------------------------------------------------------


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o770, 0o722, 0o707])
def test_a_directory_others_can_write_is_refused_and_left_unchanged(tmp_path, mode):
    path = tmp_path / "cache"
    path.mkdir()
    os.chmod(path, mode)
    with pytest.raises(CacheError, match="can be written by other users") as info:
        prepare_directory(str(path))
    assert "chmod go-w" in str(info.value) and "TENSORTYPES_CACHE_DIR" in str(info.value)
    assert _mode(path) == mode  # never changed behind the user's back
    with pytest.raises(CacheError, match="can be written by other users"):
        ModuleCache(path).entries()
    assert _mode(path) == mode


def test_an_open_but_read_only_directory_of_ours_is_used_unchanged(tmp_path):
    path = tmp_path / "cache"
    path.mkdir()
    os.chmod(path, 0o755)
    prepare_directory(str(path))
    assert _mode(path) == 0o755


def test_a_parent_others_can_write_is_refused(tmp_path):
    parent = tmp_path / "open"
    parent.mkdir()
    os.chmod(parent, 0o777)
    with pytest.raises(CacheError, match=r"inside .*open, which other users can write"):
        prepare_directory(str(parent / "cache"))
    assert _mode(parent) == 0o777


def test_a_sticky_parent_is_trusted_like_the_system_temporary_directory(tmp_path):
    parent = tmp_path / "sticky"
    parent.mkdir()
    os.chmod(parent, 0o1777)
    path = prepare_directory(str(parent / "cache"))
    assert _mode(path) == 0o700 and _mode(parent) == 0o1777


def test_a_link_through_a_directory_others_can_write_is_refused(tmp_path):
    target = _private_dir(tmp_path, "target")
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    os.chmod(hostile, 0o777)
    (hostile / "link").symlink_to(target)  # anyone could re-point this link
    with pytest.raises(CacheError, match="which other users can write"):
        prepare_directory(str(hostile / "link"))


# -- entries of ours with open permissions are rebuilt, never loaded ----------------------------

EVIL_C = r"""
#include <Python.h>
#include <stdio.h>
PyMODINIT_FUNC PyInit_%(name)s(void)
{
    FILE* f = fopen("%(marker)s", "w");
    if (f != NULL) { fputs("the planted module ran", f); fclose(f); }
    PyErr_SetString(PyExc_ImportError, "planted module");
    return NULL;
}
"""


def _build_planted(tmp_path: Path, name: str, marker: Path) -> bytes:
    """The bytes of a module named ``name`` whose PyInit_ writes ``marker``."""
    src = tmp_path / "evil.c"
    src.write_text(EVIL_C % {"name": name, "marker": str(marker)})
    out = tmp_path / ("evil" + cache_module._SUFFIX)
    default_compiler().build(str(src), str(out))
    return out.read_bytes()


def _entry_name(linker) -> str:
    """The name the cache gives ``_graph()``'s module (computable by anyone)."""
    return linker.compile(_graph()).module.__name__


# A shell, not Python: the other user may not be able to reach this interpreter.
PLANT = 'mkdir -m 755 "$1/$2" && cat > "$1/$2/$2$3" && printf "%s\\n" "$4" > "$1/$2/checksum"'


def _plant(root: Path, name: str, data: bytes, user: int | None = None) -> Path:
    """Write an entry with a matching checksum, as ``user`` (a real process of theirs)."""
    checksum = hashlib.sha256(data).hexdigest()
    proc = subprocess.run(
        ["/bin/sh", "-c", PLANT, "plant", str(root), name, cache_module._SUFFIX, checksum],
        input=data,
        capture_output=True,
        user=user,
        cwd="/",
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return root / name


def _control_loads(binary: Path, name: str, marker: Path) -> None:
    """Prove the planted module is effective: loaded directly, it writes its marker."""
    script = (
        "import importlib.machinery as m, importlib.util as u, sys\n"
        "l = m.ExtensionFileLoader(sys.argv[1], sys.argv[2])\n"
        "s = u.spec_from_file_location(sys.argv[1], sys.argv[2], loader=l)\n"
        "try:\n    l.exec_module(u.module_from_spec(s))\nexcept ImportError:\n    pass\n"
    )
    subprocess.run([sys.executable, "-c", script, name, str(binary)], check=True, timeout=60)
    assert marker.exists()
    marker.unlink()


@needs_cc
def test_an_entry_of_ours_that_others_can_write_is_rebuilt_not_loaded(tmp_path, linker):
    name = _entry_name(linker)
    marker = tmp_path / "marker"
    data = _build_planted(tmp_path, name, marker)
    root = _private_dir(tmp_path, "cache")
    entry = _plant(root, name, data)
    binary = entry / (name + cache_module._SUFFIX)
    os.chmod(binary, 0o666)  # anyone could have replaced its bytes
    _control_loads(binary, name, marker)
    cache = ModuleCache(root)
    assert CLinker(cache).compile(_graph()).function([2.0, 4.0]) == [8.0]
    assert not marker.exists(), "the planted module was loaded"
    assert cache.stats["rebuilt"] == 1 and cache.stats["compiled"] == 1
    # What the cache wrote itself is private.
    for path in [entry, *entry.iterdir()]:
        assert _mode(path) & 0o077 == 0, (path, oct(_mode(path)))


@needs_cc
def test_an_entry_that_is_a_symbolic_link_is_not_followed(tmp_path, linker):
    name = _entry_name(linker)
    marker = tmp_path / "marker"
    data = _build_planted(tmp_path, name, marker)
    elsewhere = _private_dir(tmp_path, "elsewhere")
    real = _plant(elsewhere, name, data)
    root = _private_dir(tmp_path, "cache")
    (root / name).symlink_to(real)
    cache = ModuleCache(root)
    assert CLinker(cache).compile(_graph()).function([2.0, 4.0]) == [8.0]
    assert not marker.exists() and cache.stats["rebuilt"] == 1
    assert not (root / name).is_symlink()


# -- another user, for real ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def other_user():
    """The uid of a system user created for these tests, removed afterwards."""
    if not IS_ROOT:
        pytest.skip("creating another user needs root (these tests run as root in CI)")
    useradd, userdel = shutil.which("useradd"), shutil.which("userdel")
    if useradd is None or userdel is None:
        pytest.skip("useradd/userdel not found: cannot create another user")
    name = f"ttc{uuid.uuid4().hex[:12]}"
    proc = subprocess.run(
        [useradd, "--system", "--no-create-home", "--shell", "/bin/false", name],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if proc.returncode != 0:
        pytest.skip(f"useradd failed: {proc.stderr.strip()}")
    import pwd

    try:
        yield pwd.getpwnam(name).pw_uid
    finally:
        subprocess.run([userdel, name], capture_output=True, timeout=60)


@pytest.fixture
def shared_dir():
    """A directory another user can reach (under the sticky system temporary directory)."""
    path = Path(tempfile.mkdtemp(prefix="tt-trust-", dir="/tmp"))
    os.chmod(path, 0o711)  # others may pass through, not list or write
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@needs_cc
def test_a_module_planted_by_another_user_is_never_loaded(tmp_path, linker, other_user, shared_dir):
    name = _entry_name(linker)
    marker = shared_dir / "marker"
    data = _build_planted(tmp_path, name, marker)
    cache_dir = shared_dir / "cache"
    cache_dir.mkdir()
    os.chmod(cache_dir, 0o777)  # a directory of ours that anyone can write
    entry = _plant(cache_dir, name, data, user=other_user)  # their own process writes it
    binary = entry / (name + cache_module._SUFFIX)
    assert os.stat(binary).st_uid == other_user
    _control_loads(binary, name, marker)

    # 1. The open directory is refused, its mode untouched, nothing loaded.
    with pytest.raises(CacheError, match="can be written by other users"):
        CLinker(ModuleCache(cache_dir)).compile(_graph())
    assert _mode(cache_dir) == 0o777 and not marker.exists()

    # 2. Made private as the message says, the entry they left is still refused.
    os.chmod(cache_dir, 0o700)
    with pytest.raises(CacheError, match=rf"owned by user id {other_user}.*was not loaded"):
        CLinker(ModuleCache(cache_dir)).compile(_graph())
    assert not marker.exists()

    # 3. Removed as the message says, the module is built by us and runs.
    shutil.rmtree(entry)
    cache = ModuleCache(cache_dir)
    assert CLinker(cache).compile(_graph()).function([3.0, 4.0]) == [12.0]
    assert cache.stats["compiled"] == 1 and not marker.exists()


@needs_cc
def test_a_binary_another_user_owns_in_our_entry_is_refused(tmp_path, linker, other_user):
    name = _entry_name(linker)
    marker = tmp_path / "marker"
    data = _build_planted(tmp_path, name, marker)
    root = _private_dir(tmp_path, "cache")
    entry = _plant(root, name, data)
    binary = entry / (name + cache_module._SUFFIX)
    os.chmod(binary, 0o644)
    os.chown(binary, other_user, -1)
    with pytest.raises(CacheError, match=f"owned by user id {other_user}"):
        CLinker(ModuleCache(root)).compile(_graph())
    assert not marker.exists()


def test_a_directory_or_parent_another_user_owns_is_refused(tmp_path, other_user):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, other_user, -1)
    with pytest.raises(CacheError, match=rf"owned by user id {other_user}, not by you"):
        prepare_directory(str(theirs))
    parent = tmp_path / "their-parent"
    (parent / "cache").mkdir(parents=True)
    os.chown(parent, other_user, -1)
    with pytest.raises(
        CacheError,
        match=rf"inside .*their-parent, which is owned by user "
        rf"id {other_user}",
    ):
        prepare_directory(str(parent / "cache"))
