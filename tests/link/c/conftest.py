"""Fixtures of the C back end's tests.

A test that compiles skips cleanly without a C compiler: through the
``linker`` and ``fresh_cache`` fixtures, or marked ``needs_cc`` (from
``c_toys``). Modules are
built into temporary caches, never the user's: ``linker`` shares one cache for
the whole session (identical graphs compile once), which is also
``config.cache_dir`` unless a test sets its own; ``fresh_cache`` is a new,
empty cache in ``config.cache_dir`` for the tests of the cache itself.
"""

from __future__ import annotations

import pytest

from tensortypes._config import config
from tensortypes.link.c import CLinker, ModuleCache, default_compiler

NO_COMPILER = default_compiler() is None
NO_COMPILER_REASON = "no C compiler found ($CC, gcc, clang or cc)"


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory) -> ModuleCache:
    """One temporary module cache for the session."""
    return ModuleCache(tmp_path_factory.mktemp("c-module-cache"))


@pytest.fixture(autouse=True)
def _private_cache_dir(shared_cache):
    """What builds through the default cache (``CDataType.make_value``) stays private."""
    config.cache_dir = shared_cache.directory


@pytest.fixture
def linker(shared_cache) -> CLinker:
    """A C linker building into the session's temporary cache (skips without a compiler)."""
    if NO_COMPILER:
        pytest.skip(NO_COMPILER_REASON)
    return CLinker(shared_cache)


@pytest.fixture
def fresh_cache(cache_dir) -> ModuleCache:
    """An empty module cache in this test's ``config.cache_dir`` (skips without a compiler)."""
    if NO_COMPILER:
        pytest.skip(NO_COMPILER_REASON)
    return ModuleCache(cache_dir)
