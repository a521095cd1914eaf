"""Importing tensortypes never imports a heavy array library.

Each test runs in a fresh interpreter, because this process has long since
imported whatever the other tests needed. Every module of the package is
imported, not only the root, so a lazy import that slipped to module level in
any file is caught.
"""

from __future__ import annotations

import json

import pytest

HEAVY = ("torch", "jax", "jaxlib", "tensorflow", "mlx")

# The modules of the tools that need an extra (layer 7): each imports its library at
# module level, by design, and is imported only by a command that says what to install
# when the library is missing. Without the library they must fail with ImportError.
EXTRAS = {
    "tensortypes.lsp.server": ("pygls", "lsprotocol"),
    "tensortypes.annotator.apply": ("libcst",),
}

# Lists the package's modules from the installed package itself. __main__ is
# left out: importing it runs the command line.
_IMPORT_ALL = """
import importlib, importlib.util, json, pkgutil, sys
blocked = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else []
for name in blocked:
    sys.modules[name] = None
extras = %r
import tensortypes
names = ["tensortypes"] + sorted(
    m.name for m in pkgutil.walk_packages(tensortypes.__path__, "tensortypes.")
    if not m.name.endswith("__main__"))
missing = []
for name in names:
    needs = extras.get(name, ())
    absent = [d for d in needs if d in blocked or importlib.util.find_spec(d) is None]
    if absent:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
            continue
        raise AssertionError(name + " imported without " + ", ".join(absent))
    importlib.import_module(name)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in %r and sys.modules[m] is not None)
print(json.dumps({"imported": [n for n in names if n not in missing], "heavy": heavy,
                  "needs_extra": missing}))
""" % (EXTRAS, HEAVY)


def _run(run_python, blocked: tuple[str, ...] = ()) -> dict:
    proc = run_python(_IMPORT_ALL, ",".join(blocked))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_every_module_imports_no_heavy_library(run_python):
    result = _run(run_python)
    for package in ("tensortypes.core", "tensortypes.graph", "tensortypes.tensor"):
        assert package in result["imported"]
    assert result["heavy"] == [], f"imported as a side effect: {result['heavy']}"


def test_every_module_imports_with_heavy_libraries_blocked(run_python):
    # sys.modules[name] = None makes ``import name`` raise ImportError, as if
    # the library were not installed, even where it is.
    result = _run(run_python, HEAVY)
    assert "tensortypes" in result["imported"]
    assert result["heavy"] == []


def test_tools_without_their_extra_fail_only_on_their_own_module(run_python):
    # With pygls, lsprotocol and libcst blocked, every module imports but the two that
    # need them, and those fail with ImportError (their commands then say what to install).
    blocked = tuple(sorted({d for deps in EXTRAS.values() for d in deps}))
    result = _run(run_python, blocked)
    assert sorted(result["needs_extra"]) == sorted(EXTRAS)
    assert "tensortypes.lsp" in result["imported"]
    assert "tensortypes.annotator" in result["imported"]


def test_root_exports_errors_and_config(run_python):
    proc = run_python(
        """
        import tensortypes
        assert issubclass(tensortypes.TypeCheckError, TypeError)
        assert issubclass(tensortypes.AnnotationError, ValueError)
        print(tensortypes.config.floatX)
    """,
        env={"TENSORTYPES_FLOATX": "float32"},
    )
    assert proc.stdout.strip() == "float32"


@pytest.mark.parametrize("name", HEAVY)
def test_block_makes_import_fail(run_python, name):
    # The blocking trick itself must work, or the test above proves nothing.
    proc = run_python(f"""
        import sys
        sys.modules[{name!r}] = None
        try:
            import {name}
        except ImportError:
            print("blocked")
    """)
    assert proc.stdout.strip() == "blocked"


def test_every_public_name_exists():
    """Each package's ``__all__`` names only what it defines (``import *`` works)."""
    import importlib
    import pkgutil

    import tensortypes

    import importlib.util

    missing = []
    for info in pkgutil.walk_packages(tensortypes.__path__, "tensortypes."):
        if not info.ispkg and info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        if any(importlib.util.find_spec(d) is None for d in EXTRAS.get(info.name, ())):
            continue  # a tool's module whose extra is not installed here
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            if not hasattr(module, name):
                missing.append(f"{info.name}.{name}")
    assert not missing, f"names in __all__ that do not exist: {missing}"
