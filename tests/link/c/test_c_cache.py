"""ModuleCache: keys, the per-user directory, locking, atomic installs, corrupt entries."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from c_toys import DoubleMul, double, fgraph, needs_cc
from tensortypes.errors import CacheError, CompileError
from tensortypes.graph import Apply, CLinkerOp, Op
from tensortypes.link.c import CLinker, ModuleCache, default_compiler
from tensortypes.link.c import cache as cache_module
from tensortypes.link.c.cache import BuildSettings, prepare_directory
from tensortypes.link.c.compiler import Compiler

REPO = Path(__file__).resolve().parents[3]

# A graph built only from library code, for the subprocesses.
SCRIPT = textwrap.dedent("""
    import sys
    from tensortypes._config import config
    config.cache_dir = sys.argv[1]
    from tensortypes.graph import FunctionGraph
    from tensortypes.link.c import CLinker, ModuleCache
    from tensortypes.tensor import dvector
    from tensortypes.tensor.elemwise import exp
    x, y = dvector("x"), dvector("y")
    graph = FunctionGraph([x, y], [exp(x) * y + 1.0])
    import time
    start = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    while time.time() < start:
        time.sleep(0.001)
    cache = ModuleCache.default()
    f = CLinker(cache).make_function(graph)
    import numpy as np
    assert np.allclose(f([np.zeros(2), np.ones(2)])[0], 2.0)
    print(cache.stats["compiled"], cache.stats["loaded"], cache.stats["rebuilt"])
""")


def _run(args, env=None, **kwargs):
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


def _graph():
    x, y = double("x"), double("y")
    return fgraph([x, y], [DoubleMul()(x, y)])


# -- the directory --------------------------------------------------------------------------


def test_directory_is_created_private(tmp_path):
    path = prepare_directory(str(tmp_path / "a" / "cache"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o700


@needs_cc
def test_a_directory_of_another_user_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "theirs"
    path.mkdir()
    me = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: me + 1)
    with pytest.raises(CacheError, match="owned by user id .* not by you"):
        prepare_directory(str(path))
    with pytest.raises(CacheError, match="owned by user id"):
        CLinker(ModuleCache(path)).compile(_graph())


def test_a_file_is_not_a_cache(tmp_path):
    path = tmp_path / "file"
    path.write_text("")
    with pytest.raises(CacheError, match="not a directory"):
        prepare_directory(str(path))


@needs_cc
def test_the_environment_variable_chooses_the_directory(tmp_path):
    target = tmp_path / "from-env"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT.replace("config.cache_dir = sys.argv[1]", "")],
        cwd=REPO,
        env={**os.environ, "TENSORTYPES_CACHE_DIR": str(target)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in target.iterdir() if p.is_dir() and p.name.startswith("tt_")]


# -- keys and reuse ---------------------------------------------------------------------------


def test_a_module_is_built_once_and_loaded_by_later_processes(fresh_cache):
    CLinker(fresh_cache).compile(_graph())
    assert fresh_cache.stats["compiled"] == 1 and len(fresh_cache.entries()) == 1
    CLinker(fresh_cache).compile(_graph())
    assert fresh_cache.stats["memory_hits"] == 1 and fresh_cache.stats["compiled"] == 1
    later = ModuleCache(fresh_cache.directory)  # another process: nothing in memory
    assert CLinker(later).compile(_graph()).function([2.0, 4.0]) == [8.0]
    assert later.stats == {"compiled": 0, "loaded": 1, "memory_hits": 0, "rebuilt": 0}


def test_the_key_covers_code_versions_settings_compiler_and_abi(fresh_cache, monkeypatch):
    digest = fresh_cache.key_digest("code", ((1,),), BuildSettings())
    assert digest == fresh_cache.key_digest("code", ((1,),), BuildSettings())
    assert digest != fresh_cache.key_digest("code2", ((1,),), BuildSettings())
    assert digest != fresh_cache.key_digest("code", ((2,),), BuildSettings())
    assert digest != fresh_cache.key_digest("code", ((1,),), BuildSettings(libraries=["z"]))
    cc = fresh_cache.get_compiler()
    other = ModuleCache(fresh_cache.directory, Compiler(cc.command, cc.version, ("-O1",)))
    assert digest != other.key_digest("code", ((1,),), BuildSettings())
    monkeypatch.setattr(cache_module, "python_abi", lambda: ("another", "abi"))
    assert digest != fresh_cache.key_digest("code", ((1,),), BuildSettings())


# -- failures -------------------------------------------------------------------------------------


class BadC(Op, CLinkerOp):
    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def c_code(self, node, name, inputs, outputs, sub):
        return "this is not C;"

    def c_code_cache_version(self):
        return (1,)


def test_compiler_failure_is_a_compile_error_with_the_source(fresh_cache):
    x = double("x")
    with pytest.raises(CompileError, match="the C compiler failed") as info:
        CLinker(fresh_cache).compile(fgraph([x], [BadC()(x)]))
    err = info.value
    assert err.source_path and os.path.exists(err.source_path)
    assert "this is not C;" in Path(err.source_path).read_text()
    assert "error" in err.compiler_output and err.source_path in str(err)
    assert fresh_cache.entries() == []


def test_no_compiler_is_a_compile_error(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_module, "default_compiler", lambda probe_dir=None: None)
    with pytest.raises(CompileError, match="no C compiler found"):
        CLinker(ModuleCache(tmp_path / "c")).compile(_graph())


@needs_cc
def test_a_corrupt_entry_is_detected_and_rebuilt(tmp_path):
    # Each process loads the entry afresh (a loaded module stays in its process).
    cache_dir = str(tmp_path / "c")
    assert _run([cache_dir]).stdout.split() == ["1", "0", "0"]
    [entry] = ModuleCache(cache_dir).entries()
    [binary] = Path(entry).glob("*.so")
    data = bytearray(binary.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    damaged = binary.with_suffix(".tmp")
    damaged.write_bytes(bytes(data))
    damaged.replace(binary)
    assert _run([cache_dir]).stdout.split() == ["1", "0", "1"]  # rebuilt
    assert _run([cache_dir]).stdout.split() == ["0", "1", "0"]  # and trusted again
    (Path(entry) / "checksum").unlink()  # an entry without its checksum is not trusted
    assert _run([cache_dir]).stdout.split() == ["1", "0", "1"]


@needs_cc
def test_the_lock_works_without_the_filelock_package(fresh_cache, monkeypatch):
    monkeypatch.setattr(cache_module, "_filelock", None)
    assert CLinker(fresh_cache).compile(_graph()).function([2.0, 2.0]) == [4.0]
    assert fresh_cache.stats["compiled"] == 1


# -- several processes ---------------------------------------------------------------------------


@needs_cc
def test_processes_compiling_the_same_module_build_it_once(tmp_path):
    start = time.time() + 2.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SCRIPT, str(tmp_path / "c"), str(start)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append([int(v) for v in out.split()])
    assert sum(r[0] for r in results) == 1, results  # compiled once in all
    assert sum(r[1] for r in results) == 3, results  # the others loaded its result


@needs_cc
def test_a_killed_compile_leaves_no_loadable_module(tmp_path):
    compiler = default_compiler()
    marker = tmp_path / "slow"
    marker.touch()
    fake = tmp_path / "slowcc"
    fake.write_text(
        textwrap.dedent(f"""\
        #!/bin/sh
        for a in "$@"; do
            case "$a" in -DTT_MODULE_NAME=*) [ -e "{marker}" ] && sleep 60;; esac
        done
        exec {" ".join(compiler.command)} "$@"
    """)
    )
    fake.chmod(0o755)
    cache_dir = tmp_path / "c"
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(cache_dir)],
        cwd=REPO,
        env={**os.environ, "CC": str(fake)},
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 120
    while not list(cache_dir.glob("tmp-*/mod.c")):
        assert time.time() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not list(cache_dir.glob("tt_*/")), "a half-built module was installed"
    assert list(cache_dir.glob("tmp-*"))  # the killed build's directory is left behind...
    marker.unlink()
    done = _run([str(cache_dir)], env={"CC": str(fake)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "0", "0"]  # built anew, from scratch
    assert len(ModuleCache(cache_dir).entries()) == 1
    assert not list(cache_dir.glob("tmp-*"))  # ...and the next process removed it
